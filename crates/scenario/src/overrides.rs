//! `--set key=value` overrides, applied to the parsed document before it is
//! validated, so an overridden value is checked exactly like one written in
//! the file.

use std::fmt;
use std::str::FromStr;

use toml_edit::{DocumentMut, InlineTable, Item, Table, Value};

use crate::error::{KeyPath, Seg};

/// One `--set key=value`: a dotted key path (array items by index,
/// `flow.0.cc`; `flow[0].cc` is accepted too) and a value.
///
/// The value is read as TOML if it is valid TOML (a number, boolean, quoted
/// string, array or inline table: `seed=3`, `link.schedule=[["0s","10Mbit"]]`),
/// otherwise taken as a plain string (`flow.0.cc=cubic`, `link.loss=1%`).
///
/// ```
/// use scenario::Override;
/// let o: Override = "flow.0.cc=cubic:beta=0.7".parse().unwrap();
/// assert_eq!(o.key, "flow.0.cc");
/// assert_eq!(o.value, "cubic:beta=0.7");
/// assert!("seed".parse::<Override>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Override {
    /// The dotted key path, e.g. `link.buffer` or `flow.1.rtt`.
    pub key: String,
    /// The value as given on the command line.
    pub value: String,
}

impl Override {
    /// An override of `key` with `value`.
    pub fn new(key: impl Into<String>, value: impl Into<String>) -> Override {
        Override {
            key: key.into(),
            value: value.into(),
        }
    }

    /// The override `--seed N` stands for: `seed=N`.
    pub fn seed(seed: u64) -> Override {
        Override::new("seed", seed.to_string())
    }

    /// The key as a path; `flow[1].cc` and `flow.1.cc` are the same.
    pub(crate) fn path(&self) -> Result<KeyPath, String> {
        let key = self.key.trim();
        // Brackets hold an index and close before the next segment:
        // `flow[0].cc`, never `flow[0.cc`, `flow]0` or `flow[x]`.
        let mut rest = key;
        while let Some(open) = rest.find(['[', ']']) {
            let after = &rest[open + 1..];
            let close = after.find(']');
            let index_ok = rest.as_bytes()[open] == b'['
                && close.is_some_and(|c| c > 0 && after[..c].bytes().all(|b| b.is_ascii_digit()));
            if !index_ok {
                return Err(format!(
                    "malformed key {:?}: brackets must hold an index, as in flow[0].cc",
                    self.key
                ));
            }
            let close = close.unwrap_or(0);
            rest = &after[close + 1..];
            if !(rest.is_empty() || rest.starts_with('.') || rest.starts_with('[')) {
                return Err(format!(
                    "malformed key {:?}: expected `.` or the end after `]`",
                    self.key
                ));
            }
        }
        let normalised: String = key.replace('[', ".").replace(']', "");
        let mut segs = Vec::new();
        for part in normalised.split('.') {
            let part = part.trim();
            if part.is_empty() {
                return Err(format!(
                    "malformed key {:?}: expected a dotted path like link.buffer or flow.0.cc",
                    self.key
                ));
            }
            if part.bytes().all(|b| b.is_ascii_digit()) {
                let i = part
                    .parse::<usize>()
                    .map_err(|_| format!("index {part} is too large"))?;
                segs.push(Seg::Index(i));
            } else {
                segs.push(Seg::Key(part.to_string()));
            }
        }
        if let Some(Seg::Index(_)) = segs.first() {
            return Err(format!(
                "malformed key {:?}: it must start with a key name",
                self.key
            ));
        }
        Ok(KeyPath(segs))
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key, self.value)
    }
}

/// An override that is not of the form `key=value`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected key=value (e.g. link.buffer=1bdp or flow.0.cc=cubic), got {0:?}")]
pub struct ParseOverrideError(pub String);

impl FromStr for Override {
    type Err = ParseOverrideError;

    fn from_str(s: &str) -> Result<Override, ParseOverrideError> {
        match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok(Override::new(k.trim(), v.trim())),
            _ => Err(ParseOverrideError(s.to_string())),
        }
    }
}

/// The shape of a scenario document, for checking override paths.
enum Schema {
    /// A single value (which may still be an array, e.g. `link.schedule`).
    Leaf,
    /// A table with these keys.
    Table(&'static [(&'static str, Schema)]),
    /// A single value or a table with these keys (`link.loss`).
    LeafOrTable(&'static [(&'static str, Schema)]),
    /// An array of tables (`[[flow]]`).
    Array(&'static Schema),
}

use Schema::Leaf;

/// The keys of `[[flow]]` entries.
#[cfg(test)]
pub(crate) const FLOW_KEYS: &[&str] = &["cc", "start", "size", "count", "rtt", "app", "copilot"];
/// The keys of a `[flow.live]` table.
const LIVE: &[(&str, Schema)] = &[
    ("bitrate", Leaf),
    ("frame_interval", Leaf),
    ("gop", Leaf),
    ("frame_sizes", Leaf),
    ("i_frame_ratio", Leaf),
    ("deadline", Leaf),
    ("client", Leaf),
];
/// The keys of a `[flow.dash]` table.
const DASH: &[(&str, Schema)] = &[
    ("ladder", Leaf),
    ("segment", Leaf),
    ("video", Leaf),
    ("abr", Leaf),
    ("stable_buffer", Leaf),
    ("top_quality_buffer", Leaf),
    ("initial_bitrate", Leaf),
    ("insufficient_buffer_rule", Leaf),
    ("switch_history_rule", Leaf),
    ("abandon_requests", Leaf),
    ("fast_switching", Leaf),
    ("player", Leaf),
];
static FLOW: Schema = Schema::Table(&[
    ("cc", Leaf),
    ("start", Leaf),
    ("size", Leaf),
    ("count", Leaf),
    ("rtt", Leaf),
    ("app", Leaf),
    ("copilot", Leaf),
    ("live", Schema::Table(LIVE)),
    ("dash", Schema::Table(DASH)),
]);
/// The keys of a `[link.loss]` table.
pub(crate) const LOSS_KEYS: &[&str] = &["model", "p", "r", "loss_bad", "loss_good"];
const LOSS: &[(&str, Schema)] = &[
    ("model", Leaf),
    ("p", Leaf),
    ("r", Leaf),
    ("loss_bad", Leaf),
    ("loss_good", Leaf),
];
const LINK: &[(&str, Schema)] = &[
    ("rate", Leaf),
    ("schedule", Leaf),
    ("trace", Leaf),
    ("trace_format", Leaf),
    ("rtt", Leaf),
    ("buffer", Leaf),
    ("burst", Leaf),
    ("loss", Schema::LeafOrTable(LOSS)),
    ("line_rate", Leaf),
    ("ack_delay", Leaf),
    ("uplink_rate", Leaf),
    ("uplink_trace", Leaf),
    ("acks_share_queue", Leaf),
    ("trace_start", Leaf),
];
const TRANSPORT: &[(&str, Schema)] = &[
    ("ack_policy", Leaf),
    ("max_ack_delay", Leaf),
    ("datagram", Leaf),
    ("initial_window", Leaf),
    ("pacing_timer", Leaf),
    ("pacer_ack_credit", Leaf),
    ("receive_window", Leaf),
];
static ROOT: Schema = Schema::Table(&[
    ("name", Leaf),
    ("seed", Leaf),
    ("duration", Leaf),
    ("warmup", Leaf),
    ("sample_interval", Leaf),
    ("stop_when_done", Leaf),
    ("link", Schema::Table(LINK)),
    ("transport", Schema::Table(TRANSPORT)),
    ("flow", Schema::Array(&FLOW)),
]);

/// Every settable key path, for documentation and tests (`flow.N.*` with N = 0).
#[cfg(test)]
pub(crate) fn all_leaf_paths() -> Vec<String> {
    fn walk(schema: &Schema, prefix: &str, out: &mut Vec<String>) {
        match schema {
            Schema::Leaf => out.push(prefix.to_string()),
            Schema::Table(fields) | Schema::LeafOrTable(fields) => {
                if matches!(schema, Schema::LeafOrTable(_)) {
                    out.push(prefix.to_string());
                }
                for (name, s) in fields.iter() {
                    let p = if prefix.is_empty() {
                        name.to_string()
                    } else {
                        format!("{prefix}.{name}")
                    };
                    walk(s, &p, out);
                }
            }
            Schema::Array(elem) => walk(elem, &format!("{prefix}.0"), out),
        }
    }
    let mut out = Vec::new();
    walk(&ROOT, "", &mut out);
    out
}

/// Reads an override's value: TOML if it parses as a TOML value, else a string.
pub(crate) fn parse_value(text: &str) -> Value {
    let t = text.trim();
    match t.parse::<Value>() {
        Ok(mut v) => {
            v.decor_mut().clear();
            v
        }
        Err(_) => Value::from(t),
    }
}

/// Applies one override to `doc`; returns the path it set.
pub(crate) fn apply(doc: &mut DocumentMut, ov: &Override) -> Result<KeyPath, String> {
    let path = ov.path()?;
    let value = parse_value(&ov.value);
    set(
        Slot::Table(doc.as_table_mut()),
        &ROOT,
        &path.0,
        value,
        KeyPath::root(),
    )?;
    Ok(path)
}

/// Where the walk stands in the document.
enum Slot<'a> {
    Table(&'a mut Table),
    Item(&'a mut Item),
    Value(&'a mut Value),
}

enum TableRef<'a> {
    Std(&'a mut Table),
    Inline(&'a mut InlineTable),
}

fn with_decor_of(mut value: Value, old: Option<&Value>) -> Value {
    if let Some(old) = old {
        *value.decor_mut() = old.decor().clone();
    }
    value
}

fn set(
    slot: Slot<'_>,
    schema: &Schema,
    segs: &[Seg],
    value: Value,
    here: KeyPath,
) -> Result<(), String> {
    let Some((seg, rest)) = segs.split_first() else {
        return Err("empty key".to_string());
    };
    match seg {
        Seg::Key(name) => {
            let fields = match schema {
                Schema::Table(f) | Schema::LeafOrTable(f) => *f,
                _ => {
                    return Err(format!(
                        "`{here}` is a single value and has no key `{name}`"
                    ))
                }
            };
            let Some((_, child_schema)) = fields.iter().find(|(n, _)| n == name) else {
                let valid: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
                return Err(if here.0.is_empty() {
                    format!(
                        "unknown key `{name}`; valid top-level keys: {}",
                        valid.join(", ")
                    )
                } else {
                    format!(
                        "`{here}` has no key `{name}`; valid keys: {}",
                        valid.join(", ")
                    )
                });
            };
            let child_path = here.key(name);
            let table = match slot {
                Slot::Table(t) => TableRef::Std(t),
                Slot::Item(Item::Table(t)) => TableRef::Std(t),
                Slot::Item(Item::Value(Value::InlineTable(t)))
                | Slot::Value(Value::InlineTable(t)) => TableRef::Inline(t),
                _ => {
                    return Err(format!(
                        "`{here}` is not a table in this scenario, so it has no key `{name}`"
                    ))
                }
            };
            if rest.is_empty() {
                match table {
                    TableRef::Std(t) => {
                        let value = with_decor_of(value, t.get(name).and_then(Item::as_value));
                        t.insert(name, Item::Value(value));
                    }
                    TableRef::Inline(t) => {
                        let value = with_decor_of(value, t.get(name));
                        t.insert(name, value);
                    }
                }
                return Ok(());
            }
            let missing = match &table {
                TableRef::Std(t) => !t.contains_key(name),
                TableRef::Inline(t) => !t.contains_key(name),
            };
            if missing {
                match child_schema {
                    Schema::Array(_) => {
                        return Err(format!("the scenario has no `{child_path}` entries"))
                    }
                    Schema::Leaf => {
                        return Err(format!("`{child_path}` is not set in this scenario"))
                    }
                    _ => {}
                }
            }
            match table {
                TableRef::Std(t) => {
                    if missing {
                        t.insert(name, Item::Table(Table::new()));
                    }
                    let child = t
                        .get_mut(name)
                        .ok_or_else(|| format!("cannot reach `{child_path}`"))?;
                    set(Slot::Item(child), child_schema, rest, value, child_path)
                }
                TableRef::Inline(t) => {
                    if missing {
                        t.insert(name, Value::InlineTable(InlineTable::new()));
                    }
                    let child = t
                        .get_mut(name)
                        .ok_or_else(|| format!("cannot reach `{child_path}`"))?;
                    set(Slot::Value(child), child_schema, rest, value, child_path)
                }
            }
        }
        Seg::Index(i) => {
            let elem: &Schema = match schema {
                Schema::Array(e) => e,
                Schema::Leaf => &Leaf,
                _ => {
                    return Err(format!(
                        "`{here}` is a table, not an array; give a key name instead of {i}"
                    ))
                }
            };
            let child_path = here.index(*i);
            let no_entry = |len: usize| {
                if len == 0 {
                    format!("there is no `{child_path}`: `{here}` is empty")
                } else {
                    format!(
                        "there is no `{child_path}`: the scenario has {len} `{here}` entr{} (indices 0 to {})",
                        if len == 1 { "y" } else { "ies" },
                        len - 1
                    )
                }
            };
            match slot {
                Slot::Item(Item::ArrayOfTables(aot)) => {
                    let len = aot.len();
                    let Some(t) = aot.get_mut(*i) else {
                        return Err(no_entry(len));
                    };
                    if rest.is_empty() {
                        match value {
                            Value::InlineTable(it) => {
                                *t = it.into_table();
                                Ok(())
                            }
                            _ => Err(format!("`{child_path}` must be set to an inline table like {{ cc = \"bbr\" }}")),
                        }
                    } else {
                        set(Slot::Table(t), elem, rest, value, child_path)
                    }
                }
                Slot::Item(Item::Value(Value::Array(a))) | Slot::Value(Value::Array(a)) => {
                    let len = a.len();
                    let Some(v) = a.get_mut(*i) else {
                        return Err(no_entry(len));
                    };
                    if rest.is_empty() {
                        *v = with_decor_of(value, Some(v));
                        Ok(())
                    } else {
                        set(Slot::Value(v), elem, rest, value, child_path)
                    }
                }
                _ => Err(format!("`{here}` is not an array in this scenario")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(doc: &str, set: &str) -> Result<String, String> {
        let mut d: DocumentMut = doc.parse().unwrap();
        apply(&mut d, &set.parse().unwrap())?;
        Ok(d.to_string())
    }

    const DOC: &str = "name = \"x\" # the name\n[link]\nrate = \"10Mbit\"\nschedule = [[\"0s\", \"1Mbit\"]]\n[[flow]]\ncc = \"bbr\"\n[[flow]]\ncc = \"reno\"\n";

    #[test]
    fn malformed_brackets_are_errors() {
        for key in [
            "flow[0.cc",
            "flow]0.cc",
            "flow[x].cc",
            "flow[].cc",
            "flow[0]cc",
            "flow[0",
        ] {
            let e = Override::new(key, "cubic").path().unwrap_err();
            assert!(e.starts_with("malformed key"), "{key}: {e}");
        }
        assert!(Override::new("flow[0].cc", "cubic").path().is_ok());
        assert!(Override::new("link.schedule[1][0]", "1s").path().is_ok());
    }

    #[test]
    fn parses_key_value() {
        assert_eq!(
            "a.b=c=d".parse::<Override>().unwrap(),
            Override::new("a.b", "c=d")
        );
        assert_eq!(
            " seed = 3 ".parse::<Override>().unwrap(),
            Override::new("seed", "3")
        );
        assert!("=3".parse::<Override>().is_err());
        assert!("nothing".parse::<Override>().is_err());
        assert_eq!(Override::seed(7), Override::new("seed", "7"));
        assert_eq!(
            Override::new("flow[1].cc", "x").path().unwrap(),
            Override::new("flow.1.cc", "x").path().unwrap()
        );
        assert!(Override::new("a..b", "x").path().is_err());
        assert!(Override::new("0.cc", "x").path().is_err());
    }

    #[test]
    fn sets_values_keeping_comments_and_lines() {
        let out = applied(DOC, "name=y").unwrap();
        assert!(out.starts_with("name = \"y\" # the name\n"), "{out}");
        let out = applied(DOC, "flow.1.cc=cubic:beta=0.7").unwrap();
        assert!(out.contains("cc = \"cubic:beta=0.7\""), "{out}");
        assert!(out.contains("cc = \"bbr\""), "{out}");
        let out = applied(DOC, "seed=3").unwrap();
        assert!(out.contains("seed = 3"), "{out}");
        let out = applied(DOC, "link.loss=1%").unwrap();
        assert!(out.contains("loss = \"1%\""), "{out}");
        let out = applied(DOC, "link.schedule.0.1=5Mbit").unwrap();
        assert!(out.contains("[\"0s\", \"5Mbit\"]"), "{out}");
        let out = applied(DOC, "transport.ack_policy=every-packet").unwrap();
        assert!(
            out.contains("[transport]\nack_policy = \"every-packet\""),
            "{out}"
        );
        let out = applied(DOC, "link.loss.p=1%").unwrap();
        assert!(out.contains("p = \"1%\""), "{out}");
        let with_table = format!("{DOC}[link.loss]\np = 0.1\nr = 0.2\n");
        let out = applied(&with_table, "link.loss=2%").unwrap();
        assert!(
            out.contains("loss = \"2%\"") && !out.contains("[link.loss]"),
            "{out}"
        );
        assert!(out.parse::<DocumentMut>().is_ok(), "{out}");
        let out = applied(&with_table, "link.loss.r=0.5").unwrap();
        assert!(out.contains("r = 0.5") && out.contains("p = 0.1"), "{out}");
        let out = applied(DOC, "flow.0={cc=\"cubic\"}").unwrap();
        assert!(out.contains("cc = \"cubic\""), "{out}");
    }

    #[test]
    fn sets_keys_in_implicit_and_dotted_tables() {
        let out = applied("[link.loss]\np = 0.1\n", "link.rate=1Mbit").unwrap();
        let v: toml::Value = toml::from_str(&out).unwrap();
        assert_eq!(v["link"]["rate"].as_str(), Some("1Mbit"), "{out}");
        assert_eq!(v["link"]["loss"]["p"].as_float(), Some(0.1), "{out}");
        let out = applied("link.rate = \"1Mbit\"\n", "link.rtt=10ms").unwrap();
        let v: toml::Value = toml::from_str(&out).unwrap();
        assert_eq!(v["link"]["rtt"].as_str(), Some("10ms"), "{out}");
        let out = applied("link = { rate = \"1Mbit\" }\n", "link.loss.p=1%").unwrap();
        let v: toml::Value = toml::from_str(&out).unwrap();
        assert_eq!(v["link"]["loss"]["p"].as_str(), Some("1%"), "{out}");
    }

    #[test]
    fn rejects_paths_outside_the_schema_or_the_document() {
        let e = applied(DOC, "flow.5.cc=cubic").unwrap_err();
        assert!(
            e.contains("no `flow[5]`") && e.contains("2 `flow` entries"),
            "{e}"
        );
        let e = applied(DOC, "link.nosuch=1").unwrap_err();
        assert!(
            e.contains("`link` has no key `nosuch`") && e.contains("buffer"),
            "{e}"
        );
        let e = applied(DOC, "nosuch=1").unwrap_err();
        assert!(e.contains("unknown key `nosuch`"), "{e}");
        let e = applied(DOC, "flow.0.cc.x=1").unwrap_err();
        assert!(e.contains("single value"), "{e}");
        let e = applied(DOC, "link.0=1").unwrap_err();
        assert!(e.contains("not an array"), "{e}");
        let e = applied("name = \"x\"\n", "flow.0.cc=bbr").unwrap_err();
        assert!(e.contains("no `flow` entries"), "{e}");
        let e = applied(DOC, "link.schedule.3.0=1s").unwrap_err();
        assert!(e.contains("no `link.schedule[3]`"), "{e}");
        let e = applied("link = 3\n", "link.rate=1Mbit").unwrap_err();
        assert!(e.contains("not a table"), "{e}");
    }

    #[test]
    fn schema_lists_every_key() {
        let paths = all_leaf_paths();
        assert!(paths.contains(&"link.loss".to_string()));
        assert!(paths.contains(&"link.loss.loss_bad".to_string()));
        assert!(paths.contains(&"flow.0.cc".to_string()));
        for k in FLOW_KEYS {
            assert!(paths.contains(&format!("flow.0.{k}")), "{k}");
        }
        for k in LOSS_KEYS {
            assert!(paths.contains(&format!("link.loss.{k}")), "{k}");
        }
        assert!(paths.contains(&"flow.0.live.bitrate".to_string()));
        assert!(paths.contains(&"link.uplink_trace".to_string()));
    }
}
