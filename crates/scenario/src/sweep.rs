//! Sweeps: a scenario with a `[sweep]` table stands for the product of its
//! axes.
//!
//! ```toml
//! [sweep]
//! "link.buffer" = ["0.25bdp", "1bdp"]
//! "flow.0.cc" = ["bbr", "obbr:mu=0.5"]
//! seeds = [1, 2, 3]
//! ```
//!
//! Keys are the dotted paths of `--set` (quoted in TOML because they contain
//! dots); `seed` and `seeds` both name the seed axis.
//!
//! A `[fast]` table says how to shorten the experiment (`--fast`): each key
//! is an override (`duration = "20s"`, `"flow.0.size" = "50MB"`), or, for a
//! sweep axis, a list that replaces the axis' values (`seeds = [1]`). Each run is the base
//! scenario (the file without its `[sweep]` table) with one value of every
//! axis applied as an override, validated exactly as a `--set` would be.
//! The first axis varies slowest.
//!
//! An override (`--set`, `--seed`) of a key that is an axis, or lies
//! inside a table that is one (`link.buffer` under a `link` axis), is an
//! error naming the axis: every point would overwrite it, so it could
//! only be ignored.

use std::fmt;
use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Value};

use crate::{from_str, AxisValue, Override, Scenario, ScenarioError};

/// One axis of a sweep: a key and the values it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The dotted key (`seeds` is normalised to `seed`).
    pub key: String,
    /// The values, each with its label (the override's text).
    pub values: Vec<AxisValue>,
}

/// One run of a sweep: a value for every axis.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SweepPoint {
    /// `(key, value)` per axis, in axis order.
    pub params: Vec<(String, AxisValue)>,
}

impl SweepPoint {
    /// The value of axis `key` at this point, if it is an axis.
    pub fn value(&self, key: &str) -> Option<&AxisValue> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The point as overrides.
    pub fn overrides(&self) -> Vec<Override> {
        self.params
            .iter()
            .map(|(k, v)| Override::new(k.clone(), v.label()))
            .collect()
    }
}

impl fmt::Display for SweepPoint {
    /// `key=value key=value`, the point's stable identity in results.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

/// The most runs one sweep may expand to (before anything is allocated
/// for them): far beyond what a machine simulates in a day at paper
/// fidelity, and small enough to hold every point's scenario in memory.
pub const MAX_RUNS: usize = 100_000;

/// A scenario expanded into its runs.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The scenario file.
    pub source: PathBuf,
    /// The scenario text without its `[sweep]` table.
    pub base: String,
    /// Overrides applied to every run (from the command line).
    pub overrides: Vec<Override>,
    /// The axes, in file order.
    pub axes: Vec<Axis>,
    /// The `[fast]` table: overrides, and axes with fewer values.
    pub fast: Vec<Axis>,
}

impl Sweep {
    /// The shortened experiment of the `[fast]` table: its scalar keys
    /// become overrides of every run, its lists replace axes' values.
    pub fn fast(mut self) -> Result<Sweep, ScenarioError> {
        for f in std::mem::take(&mut self.fast) {
            match self.axes.iter_mut().find(|a| a.key == f.key) {
                Some(axis) => axis.values = f.values,
                None if f.values.len() == 1 => {
                    self.overrides
                        .push(Override::new(f.key, f.values[0].label()));
                }
                None => {
                    return Err(ScenarioError {
                        file: self.source.clone(),
                        key: Some(format!("fast.\"{}\"", f.key)),
                        line: None,
                        column: None,
                        message: format!(
                            "a list in [fast] must name a [sweep] axis; `{}` is not one",
                            f.key
                        ),
                    })
                }
            }
        }
        // The base must still be valid with the new overrides.
        from_str(&self.base, &self.source, &self.overrides)?;
        Ok(self)
    }

    /// The number of points: the product of the axes' sizes, or `None`
    /// when it does not fit in a `usize`. Counted without expanding.
    pub fn count(&self) -> Option<usize> {
        self.axes
            .iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
    }

    /// "a (3) x b (4)": the axes and their sizes, for messages.
    fn shape(&self) -> String {
        self.axes
            .iter()
            .map(|a| format!("{} ({})", a.key, a.values.len()))
            .collect::<Vec<_>>()
            .join(" x ")
    }

    /// Every point of the product, first axis slowest. A scenario without a
    /// `[sweep]` table has one point with no parameters.
    pub fn points(&self) -> Vec<SweepPoint> {
        let mut points = vec![SweepPoint { params: Vec::new() }];
        for axis in &self.axes {
            let mut next = Vec::with_capacity(points.len() * axis.values.len());
            for p in &points {
                for v in &axis.values {
                    let mut params = p.params.clone();
                    params.push((axis.key.clone(), v.clone()));
                    next.push(SweepPoint { params });
                }
            }
            points = next;
        }
        points
    }

    /// The scenario of one point.
    pub fn scenario(&self, point: &SweepPoint) -> Result<Scenario, ScenarioError> {
        let mut overrides = self.overrides.clone();
        overrides.extend(point.overrides());
        from_str(&self.base, &self.source, &overrides)
    }

    /// Validates every point, so a bad value fails before anything runs.
    /// Refuses sweeps of more than [`MAX_RUNS`] points before expanding
    /// them ([`Sweep::scenarios_up_to`] takes another limit).
    pub fn scenarios(&self) -> Result<Vec<(SweepPoint, Scenario)>, ScenarioError> {
        self.scenarios_up_to(MAX_RUNS)
    }

    /// [`Sweep::scenarios`] with a limit of `max_runs` points.
    pub fn scenarios_up_to(
        &self,
        max_runs: usize,
    ) -> Result<Vec<(SweepPoint, Scenario)>, ScenarioError> {
        match self.count() {
            Some(n) if n <= max_runs => {}
            count => {
                return Err(ScenarioError {
                    file: self.source.clone(),
                    key: Some("sweep".to_string()),
                    line: None,
                    column: None,
                    message: format!(
                        "the sweep has {} runs ({}); at most {max_runs} are allowed: split it into several files",
                        count.map_or("more than 2^64".to_string(), |n| n.to_string()),
                        self.shape()
                    ),
                })
            }
        }
        self.points()
            .into_iter()
            .map(|p| {
                let s = self.scenario(&p).map_err(|mut e| {
                    e.message = format!("{} (in sweep point {p})", e.message);
                    e
                })?;
                Ok((p, s))
            })
            .collect()
    }
}

/// Reads a scenario file with an optional `[sweep]` table.
pub fn load_sweep(path: &Path, overrides: &[Override]) -> Result<Sweep, ScenarioError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ScenarioError::file_error(path, format!("cannot read scenario file: {e}")))?;
    sweep_from_str(&text, path, overrides)
}

/// Parses a scenario text with an optional `[sweep]` table.
pub fn sweep_from_str(
    text: &str,
    origin: &Path,
    overrides: &[Override],
) -> Result<Sweep, ScenarioError> {
    let mut doc: DocumentMut = match text.parse() {
        Ok(d) => d,
        // Let the scenario parser produce its precise syntax error.
        Err(_) => return Err(from_str(text, origin, overrides).expect_err("a TOML syntax error")),
    };
    let line_of = |key: &str| {
        text.lines()
            .position(|l| {
                let l = l.trim_start();
                l.starts_with(&format!("\"{key}\""))
                    || l.starts_with(&format!("{key} "))
                    || l.starts_with(&format!("{key}="))
            })
            .map(|i| i + 1)
    };
    let err = |key: String, message: String| ScenarioError {
        file: origin.to_path_buf(),
        line: line_of(key.trim_start_matches("sweep.").trim_matches('"')),
        key: Some(key),
        column: None,
        message,
    };
    let mut fast = Vec::new();
    if let Some(item) = doc.remove("fast") {
        let Item::Table(table) = item else {
            return Err(err(
                "fast".into(),
                "expected a [fast] table of key = value".into(),
            ));
        };
        for (key, value) in table.iter() {
            let key = if key == "seeds" {
                "seed".to_string()
            } else {
                key.to_string()
            };
            let values = match value.as_value() {
                Some(Value::Array(a)) if a.is_empty() => {
                    return Err(err(
                        format!("fast.\"{key}\""),
                        "expected at least one value".into(),
                    ))
                }
                Some(Value::Array(a)) => a.iter().map(axis_value).collect(),
                Some(v) => vec![axis_value(v)],
                None => {
                    return Err(err(
                        format!("fast.\"{key}\""),
                        "expected a value or a list".into(),
                    ))
                }
            };
            fast.push(Axis { key, values });
        }
    }
    let mut axes = Vec::new();
    // `sweep."key"` of each axis, as written in the file, for messages.
    let mut axis_lines = Vec::new();
    if let Some(item) = doc.remove("sweep") {
        let Item::Table(table) = item else {
            return Err(err(
                "sweep".into(),
                "expected a [sweep] table of key = [values]".into(),
            ));
        };
        for (key, value) in table.iter() {
            let path = format!("sweep.\"{key}\"");
            let Some(Value::Array(array)) = value.as_value() else {
                return Err(err(
                    path,
                    format!("expected a list of values, e.g. \"{key}\" = [..., ...]"),
                ));
            };
            if array.is_empty() {
                return Err(err(path, "expected at least one value".into()));
            }
            let key = if key == "seeds" {
                "seed".to_string()
            } else {
                key.to_string()
            };
            if axes.iter().any(|a: &Axis| a.key == key) {
                return Err(err(path, format!("the axis `{key}` is given twice")));
            }
            let values = array.iter().map(axis_value).collect();
            axes.push(Axis { key, values });
            axis_lines.push(path);
        }
    }
    // An override of a swept key (or of a key inside a swept table) would
    // be overwritten by every point: refuse it rather than ignore it.
    for ov in overrides {
        let Ok(target) = ov.path() else { continue };
        let swept = axes.iter().zip(&axis_lines).find(|(a, _)| {
            Override::new(a.key.clone(), "")
                .path()
                .is_ok_and(|p| target.0.starts_with(&p.0))
        });
        if let Some((axis, path)) = swept {
            let seed_note = if axis.key == "seed" {
                " (`--seed N` is `--set seed=N`)"
            } else {
                ""
            };
            return Err(err(
                path.clone(),
                format!(
                    "--set {ov}{seed_note} names an axis of the [sweep] (values {}); \
                     --set cannot fix a swept value: edit the axis or drop it from [sweep]",
                    axis.values
                        .iter()
                        .map(AxisValue::label)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    let sweep = Sweep {
        source: origin.to_path_buf(),
        base: doc.to_string(),
        overrides: overrides.to_vec(),
        axes,
        fast,
    };
    // The base itself must be valid (errors then carry file lines).
    from_str(&sweep.base, origin, overrides)?;
    Ok(sweep)
}

/// A TOML value of an axis: its label the text an override would carry.
fn axis_value(value: &Value) -> AxisValue {
    AxisValue::parse(match value {
        Value::String(s) => s.value().clone(),
        other => {
            let mut bare = other.clone();
            strip_decor(&mut bare);
            bare.to_string()
        }
    })
}

/// Removes the comments and layout a value carries from its place in the
/// file (a comment line above a list element is part of that element's
/// prefix), so only the value itself reaches the override parser.
fn strip_decor(value: &mut Value) {
    value.decor_mut().clear();
    match value {
        Value::Array(array) => {
            array.set_trailing("");
            array.set_trailing_comma(false);
            array.iter_mut().for_each(strip_decor);
        }
        Value::InlineTable(table) => {
            table.set_preamble("");
            for (mut key, value) in table.iter_mut() {
                key.leaf_decor_mut().clear();
                key.dotted_decor_mut().clear();
                strip_decor(value);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn huge_sweeps_are_refused_before_expanding() {
        let values: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
        let list = format!("[{}]", values.join(", "));
        let starts = format!(
            "[{}]",
            (0..1000)
                .map(|i| format!("\"{i}ms\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let losses = format!(
            "[{}]",
            (0..1000)
                .map(|i| format!("\"{}%\"", i % 50))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let text = format!(
            "name = \"x\"\nduration = \"1s\"\n[link]\nrate = \"10Mbit\"\nrtt = \"10ms\"\nbuffer = \"1bdp\"\n[[flow]]\ncc = \"bbr\"\n[sweep]\nseeds = {list}\n\"flow.0.start\" = {starts}\n\"link.loss\" = {losses}\n",
        );
        let sweep = sweep_from_str(&text, Path::new("big.toml"), &[]).unwrap();
        assert_eq!(sweep.count(), Some(1_000_000_000));
        let started = std::time::Instant::now();
        let e = sweep.scenarios().unwrap_err();
        assert!(started.elapsed().as_secs() < 1);
        assert_eq!(e.key.as_deref(), Some("sweep"));
        assert!(
            e.message.contains("1000000000 runs (seed (1000) x flow.0.start (1000) x link.loss (1000)); at most 100000"),
            "{}",
            e.message
        );
    }

    use super::*;

    const BASE: &str = r#"
name = "s"
duration = "2s"
[link]
rate = "10Mbit"
rtt = "20ms"
buffer = "1bdp"
[[flow]]
cc = "bbr"
"#;

    #[test]
    fn product_of_axes_first_axis_slowest() {
        let text = format!(
            "{BASE}\n[sweep]\n\"link.buffer\" = [\"0.5bdp\", \"2bdp\"]\nseeds = [1, 2, 3]\n"
        );
        let sweep = sweep_from_str(&text, Path::new("s.toml"), &[]).unwrap();
        let points = sweep.points();
        assert_eq!(points.len(), 6);
        assert_eq!(points[0].to_string(), "link.buffer=0.5bdp seed=1");
        assert_eq!(points[1].to_string(), "link.buffer=0.5bdp seed=2");
        assert_eq!(points[5].to_string(), "link.buffer=2bdp seed=3");
        // Each value parsed once, its label kept.
        let buffer = points[5].value("link.buffer").unwrap();
        assert_eq!(
            (buffer.label(), buffer.number_in("bdp")),
            ("2bdp", Some(2.0))
        );
        assert_eq!(
            points[5].value("seed").and_then(AxisValue::number),
            Some(3.0)
        );
        assert_eq!(points[5].value("link.rtt"), None);
        let all = sweep.scenarios().unwrap();
        assert_eq!(all[4].1.config.seed, 2);
        assert_eq!(
            all[4].1.config.link.buffer,
            sim::link::BufferLimit::Bytes(cc::Bytes(50_000))
        );
    }

    #[test]
    fn an_override_of_a_swept_key_is_an_error_naming_the_axis() {
        let text = format!(
            "{BASE}\n[sweep]\n\"flow.0.cc\" = [\"bbr\", \"cubic\"]\nseeds = [1, 2]\nlink = [{{ rate = \"10Mbit\", rtt = \"20ms\", buffer = \"1bdp\" }}]\n"
        );
        let origin = Path::new("s.toml");
        let refused = |key: &str, value: &str| {
            sweep_from_str(&text, origin, &[Override::new(key, value)]).unwrap_err()
        };
        // The same key, also written with brackets.
        for key in ["flow.0.cc", "flow[0].cc"] {
            let e = refused(key, "reno");
            assert_eq!(e.key.as_deref(), Some("sweep.\"flow.0.cc\""), "{e}");
            assert_eq!(e.line, Some(12), "{e}");
            assert!(
                e.to_string().contains(&format!(
                    "--set {key}=reno names an axis of the [sweep] (values bbr, cubic); --set cannot fix a swept value: edit the axis or drop it from [sweep]"
                )),
                "{e}"
            );
        }
        // `--seed` is `--set seed=N`; the axis is written `seeds`.
        let e = refused("seed", "7");
        assert_eq!(e.key.as_deref(), Some("sweep.\"seeds\""), "{e}");
        assert_eq!(e.line, Some(13), "{e}");
        assert!(e.message.contains("`--seed N` is `--set seed=N`"), "{e}");
        // A key inside a swept table.
        let e = refused("link.buffer", "2bdp");
        assert_eq!(e.key.as_deref(), Some("sweep.\"link\""), "{e}");
        // Keys no axis covers still apply, siblings of a swept key too.
        let ok = [
            Override::new("duration", "1s"),
            Override::new("flow.0.start", "100ms"),
        ];
        let sweep = sweep_from_str(&text, origin, &ok).unwrap();
        assert_eq!(
            sweep.scenarios().unwrap()[0].1.config.duration,
            std::time::Duration::from_secs(1)
        );
    }

    #[test]
    fn fast_table_overrides_and_shrinks_axes() {
        let text =
            format!("{BASE}\n[sweep]\nseeds = [1, 2, 3]\n[fast]\nseeds = [1]\nduration = \"1s\"\n");
        let sweep = sweep_from_str(&text, Path::new("s.toml"), &[]).unwrap();
        assert_eq!(sweep.points().len(), 3, "the full experiment");
        let fast = sweep.fast().unwrap();
        assert_eq!(fast.points().len(), 1);
        let runs = fast.scenarios().unwrap();
        assert_eq!(runs[0].1.config.duration, std::time::Duration::from_secs(1));
        let bad = format!("{BASE}\n[fast]\n\"link.buffer\" = [\"1bdp\", \"2bdp\"]\n");
        let e = sweep_from_str(&bad, Path::new("s.toml"), &[])
            .unwrap()
            .fast()
            .unwrap_err();
        assert!(e.to_string().contains("must name a [sweep] axis"), "{e}");
    }

    #[test]
    fn comments_inside_a_sweep_list_are_not_part_of_its_values() {
        let text = format!(
            "{BASE}\n[sweep]\nlink = [\n    # shallow\n    {{ rate = \"10Mbit\", rtt = \"20ms\", buffer = \"0.5bdp\" }}, # trailing\n    # deep\n    {{ rate = \"10Mbit\", rtt = \"20ms\", buffer = \"4bdp\" }},\n]\nseed = [\n    # the paper's seed\n    7,\n]\n"
        );
        let sweep = sweep_from_str(&text, Path::new("s.toml"), &[]).unwrap();
        let points = sweep.points();
        assert_eq!(points.len(), 2);
        assert!(!points[0].to_string().contains('#'), "{}", points[0]);
        let runs = sweep.scenarios().unwrap();
        assert_eq!(
            runs[1].1.config.link.buffer,
            sim::link::BufferLimit::Bytes(cc::Bytes(100_000))
        );
        assert_eq!(runs[0].1.config.seed, 7);
    }

    #[test]
    fn no_sweep_table_is_one_run() {
        let sweep = sweep_from_str(BASE, Path::new("s.toml"), &[]).unwrap();
        assert_eq!(sweep.points().len(), 1);
        assert!(sweep.scenarios().is_ok());
    }

    #[test]
    fn a_bad_value_names_the_point() {
        let text = format!("{BASE}\n[sweep]\n\"flow.0.cc\" = [\"bbr\", \"vegas\"]\n");
        let sweep = sweep_from_str(&text, Path::new("s.toml"), &[]).unwrap();
        let e = sweep.scenarios().unwrap_err().to_string();
        assert!(
            e.contains("unknown algorithm `vegas`") && e.contains("flow.0.cc=vegas"),
            "{e}"
        );
    }

    #[test]
    fn malformed_sweep_tables_are_rejected() {
        let e = sweep_from_str(
            &format!("{BASE}\n[sweep]\nseed = 3\n"),
            Path::new("s.toml"),
            &[],
        )
        .unwrap_err();
        assert!(e.to_string().contains("expected a list of values"), "{e}");
        assert_eq!(e.line, Some(12));
        let e = sweep_from_str(
            &format!("{BASE}\n[sweep]\nseed = []\n"),
            Path::new("s.toml"),
            &[],
        )
        .unwrap_err();
        assert!(e.to_string().contains("at least one value"), "{e}");
        let e = sweep_from_str(
            &format!("{BASE}\n[sweep]\nseed = [1]\nseeds = [2]\n"),
            Path::new("s.toml"),
            &[],
        )
        .unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
        let e = sweep_from_str(
            &format!("{BASE}\n[sweep]\n\"link.nosuch\" = [1]\n"),
            Path::new("s.toml"),
            &[],
        )
        .unwrap()
        .scenarios()
        .unwrap_err();
        assert!(e.to_string().contains("link.nosuch"), "{e}");
    }
}
