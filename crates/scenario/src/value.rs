//! The values of sweep axes, parsed.
//!
//! A sweep point sets each axis to one value, applied as an override: the
//! value's text (its *label*: `"0.25bdp"`, `"obbr:mu=0.5"`, `3`) is what
//! the scenario receives, what results tables and file names show, and so
//! part of what a run's id hashes. The label never changes; an
//! [`AxisValue`] carries it together with what it means, read once, the
//! way the override reads it: a TOML number or boolean is one, and a
//! string that is a plain decimal followed by one of the scenario units
//! ([`crate::units`]) is a number with that unit. Everything else (a
//! controller spec, a trace name, a table, a list) is text.
//!
//! Analyses take numbers from [`AxisValue::number`] and
//! [`AxisValue::number_in`] instead of cutting them out of labels again,
//! and conditions compare values by meaning ([`AxisValue::means`]):
//! `"1bdp"` and `"1.0bdp"` are the same buffer, `"1bdp"` and `"1pkt"` are
//! not.
//!
//! A value is stored (run records, results tables) as its label, so stores
//! written before values were parsed read back unchanged.

use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use toml_edit::Value;

/// What an axis value means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Meaning {
    /// A number, and the unit written after it in its one spelling (rates
    /// in bit: `"40Mbps"` is 40 `"Mbit"`; `"0.25bdp"`, `"1%"`, `"40ms"`),
    /// or none for a bare number (a seed, a count, a probability `0.01`).
    Number {
        /// The number as written, in its unit.
        number: f64,
        /// The unit, if the value has one.
        unit: Option<&'static str>,
    },
    /// `true` or `false`.
    Bool(bool),
    /// Anything else: the label is the value.
    Text,
}

/// One value of a sweep axis: its label and its [`Meaning`].
///
/// ```
/// use scenario::{AxisValue, Meaning};
/// let v = AxisValue::parse("0.25bdp");
/// assert_eq!(v.label(), "0.25bdp");
/// assert_eq!(v.number_in("bdp"), Some(0.25));
/// assert_eq!(AxisValue::parse("40 Mbps").meaning(), Meaning::Number { number: 40.0, unit: Some("Mbit") });
/// assert_eq!(AxisValue::parse("3").number(), Some(3.0));
/// assert_eq!(AxisValue::parse("obbr:mu=0.5").meaning(), Meaning::Text);
/// assert!(AxisValue::parse("1.0bdp").means(&AxisValue::parse("1bdp")));
/// ```
#[derive(Clone, Debug)]
pub struct AxisValue {
    label: String,
    meaning: Meaning,
}

impl AxisValue {
    /// The value whose label is `label`, its meaning read as an override
    /// reads the text.
    pub fn parse(label: impl Into<String>) -> AxisValue {
        let label = label.into();
        let meaning = match crate::overrides::parse_value(&label) {
            Value::Integer(n) => Meaning::Number {
                number: *n.value() as f64,
                unit: None,
            },
            Value::Float(f) if f.value().is_finite() => Meaning::Number {
                number: *f.value(),
                unit: None,
            },
            Value::Boolean(b) => Meaning::Bool(*b.value()),
            Value::String(s) => match crate::units::number_and_unit(s.value()) {
                Some((number, unit)) => Meaning::Number {
                    number,
                    unit: Some(unit),
                },
                None => Meaning::Text,
            },
            _ => Meaning::Text,
        };
        AxisValue { label, meaning }
    }

    /// The value as written: what the override carries, tables show and
    /// run ids are made of.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The label, taken.
    pub fn into_label(self) -> String {
        self.label
    }

    /// What the value means.
    pub fn meaning(&self) -> Meaning {
        self.meaning
    }

    /// The number of a number value, in whatever unit it has (`"40ms"`:
    /// 40; `"0.25bdp"`: 0.25; `2`: 2); `None` for a boolean or text.
    pub fn number(&self) -> Option<f64> {
        match self.meaning {
            Meaning::Number { number, .. } => Some(number),
            _ => None,
        }
    }

    /// The number of a value in `unit` (its one spelling: `"bdp"`,
    /// `"ms"`, `"%"`, `"Mbit"`); `None` for any other value.
    pub fn number_in(&self, unit: &str) -> Option<f64> {
        match self.meaning {
            Meaning::Number {
                number,
                unit: Some(u),
            } if u == unit => Some(number),
            _ => None,
        }
    }

    /// Whether two values mean the same: equal numbers in the same unit
    /// (`"1bdp"` and `"1.0bdp"`), the same boolean, or, for text, the
    /// same label.
    pub fn means(&self, other: &AxisValue) -> bool {
        match (self.meaning, other.meaning) {
            (Meaning::Text, Meaning::Text) => self.label == other.label,
            (a, b) => a == b,
        }
    }
}

/// Two values are the same point's when their labels are equal (the
/// label is the point's identity; see [`AxisValue::means`] for equal
/// meaning).
impl PartialEq for AxisValue {
    fn eq(&self, other: &AxisValue) -> bool {
        self.label == other.label
    }
}

impl Eq for AxisValue {}

/// A value is the label it is written as.
impl PartialEq<str> for AxisValue {
    fn eq(&self, label: &str) -> bool {
        self.label == label
    }
}

impl Hash for AxisValue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.label.hash(state);
    }
}

impl fmt::Display for AxisValue {
    /// The label.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

impl From<&str> for AxisValue {
    fn from(label: &str) -> AxisValue {
        AxisValue::parse(label)
    }
}

impl From<String> for AxisValue {
    fn from(label: String) -> AxisValue {
        AxisValue::parse(label)
    }
}

/// Written as its label, as points were before their values were parsed.
impl Serialize for AxisValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.label)
    }
}

/// Read from its label; a JSON number or boolean (a value written by hand)
/// is taken as the label it prints as.
impl<'de> Deserialize<'de> for AxisValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<AxisValue, D::Error> {
        struct Label;
        impl serde::de::Visitor<'_> for Label {
            type Value = AxisValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sweep value's label (a string such as \"0.25bdp\")")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<AxisValue, E> {
                Ok(AxisValue::parse(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<AxisValue, E> {
                Ok(AxisValue::parse(v.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<AxisValue, E> {
                Ok(AxisValue::parse(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<AxisValue, E> {
                Ok(AxisValue::parse(v.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<AxisValue, E> {
                Ok(AxisValue::parse(v.to_string()))
            }
        }
        deserializer.deserialize_any(Label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(label: &str) -> Option<(f64, Option<&'static str>)> {
        match AxisValue::parse(label).meaning() {
            Meaning::Number { number, unit } => Some((number, unit)),
            _ => None,
        }
    }

    #[test]
    fn values_mean_what_the_override_reads() {
        assert_eq!(number("0.25bdp"), Some((0.25, Some("bdp"))));
        assert_eq!(number("16BDP"), Some((16.0, Some("bdp"))));
        assert_eq!(number("100pkts"), Some((100.0, Some("pkt"))));
        assert_eq!(number("40 ms"), Some((40.0, Some("ms"))));
        assert_eq!(number("250µs"), Some((250.0, Some("us"))));
        assert_eq!(number("1.5%"), Some((1.5, Some("%"))));
        assert_eq!(number("40Mbit/s"), Some((40.0, Some("Mbit"))));
        assert_eq!(number("500kbps"), Some((500.0, Some("kbit"))));
        assert_eq!(number("64kB"), Some((64.0, Some("KB"))));
        assert_eq!(number("3"), Some((3.0, None)));
        assert_eq!(number("0.01"), Some((0.01, None)));
        assert_eq!(AxisValue::parse("true").meaning(), Meaning::Bool(true));
        for text in [
            "bbr",
            "obbr:mu=0.5",
            "40furlongs",
            "-5ms",
            "1e3ms",
            "{ rate = \"10Mbit\" }",
            "[1, 2]",
            "nan",
            "",
        ] {
            assert_eq!(AxisValue::parse(text).meaning(), Meaning::Text, "{text}");
        }
    }

    #[test]
    fn numbers_in_a_unit_and_equal_meanings() {
        let v = AxisValue::parse("0.5bdp");
        assert_eq!((v.number(), v.number_in("bdp")), (Some(0.5), Some(0.5)));
        assert_eq!(v.number_in("pkt"), None);
        assert_eq!(AxisValue::parse("300KB").number_in("bdp"), None);
        assert_eq!(AxisValue::parse("bbr").number(), None);
        let same = |a: &str, b: &str| AxisValue::parse(a).means(&AxisValue::parse(b));
        assert!(same("1bdp", "1.0bdp") && same("2%", "2 %") && same("bbr", "bbr"));
        assert!(same("3", "3.0") && same("true", "true"));
        assert!(!same("1bdp", "1pkt") && !same("0", "0%") && !same("bbr", "cubic"));
        // Identity is the label.
        assert_ne!(AxisValue::parse("1bdp"), AxisValue::parse("1.0bdp"));
    }

    #[test]
    fn stored_as_the_label_and_read_back_from_older_stores() {
        #[derive(Debug, Serialize, Deserialize)]
        struct Record {
            params: Vec<(String, AxisValue)>,
        }
        let record = Record {
            params: vec![
                ("link.buffer".to_string(), AxisValue::parse("0.25bdp")),
                ("seed".to_string(), AxisValue::parse("3")),
            ],
        };
        let text = toml::to_string(&record).unwrap();
        assert_eq!(
            text.trim(),
            r#"params = [["link.buffer", "0.25bdp"], ["seed", "3"]]"#
        );
        let back: Record = toml::from_str(&text).unwrap();
        assert_eq!(back.params, record.params);
        assert_eq!(back.params[0].1.number_in("bdp"), Some(0.25));
        let by_hand: Record = toml::from_str(r#"params = [["seed", 3], ["on", true]]"#).unwrap();
        let seed = &by_hand.params[0].1;
        assert_eq!((seed.label(), seed.number()), ("3", Some(3.0)));
        assert_eq!(by_hand.params[1].1.meaning(), Meaning::Bool(true));
        let bad = toml::from_str::<Record>(r#"params = [["seed", [1]]]"#)
            .unwrap_err()
            .to_string();
        assert!(bad.contains("a sweep value's label"), "{bad}");
    }
}
