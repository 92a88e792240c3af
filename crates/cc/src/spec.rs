//! Algorithm spec strings: `name[:key=value,key=value...]`.
//!
//! Every algorithm registers an [`AlgorithmInfo`]: its name, a one-line
//! summary, its parameters with defaults and valid ranges, and a constructor.
//! [`AlgorithmSpec::parse`] checks a spec against that declaration, so an
//! unknown name, an unknown parameter or an out-of-range value is an error
//! that lists what exists, and a constructor only ever sees valid values.

use std::collections::BTreeMap;
use std::fmt;

use crate::controller::{CongestionControl, ControllerConfig};

/// The type and valid range of a parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A real number in `[min, max]`.
    Float { min: f64, max: f64 },
    /// An integer in `[min, max]`.
    Int { min: u64, max: u64 },
    /// `true` or `false`.
    Bool,
}

/// One declared parameter of an algorithm.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The key in the spec string.
    pub name: &'static str,
    /// Type and range.
    pub kind: ParamKind,
    /// The default, written as it would be in a spec string.
    pub default: &'static str,
    /// What the parameter does.
    pub doc: &'static str,
}

/// A controller constructor.
pub type Constructor = fn(&AlgorithmSpec, &ControllerConfig) -> Box<dyn CongestionControl>;

/// An algorithm's entry in the registry.
#[derive(Clone, Copy)]
pub struct AlgorithmInfo {
    /// The spec name (e.g. `"bbr"`).
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// Its parameters.
    pub params: &'static [ParamSpec],
    /// Builds a controller from a validated spec.
    pub build: Constructor,
}

impl fmt::Debug for AlgorithmInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlgorithmInfo")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A parameter value after validation.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Float(f64),
    Int(u64),
    Bool(bool),
}

/// Why a spec string was rejected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// The name is not a registered algorithm.
    #[error("unknown algorithm `{name}`; known algorithms: {}", known.join(", "))]
    UnknownAlgorithm {
        name: String,
        known: Vec<&'static str>,
    },
    /// The parameter is not declared by the algorithm.
    #[error("`{algorithm}` has no parameter `{param}`; valid parameters: {}", if valid.is_empty() { "none".to_string() } else { valid.join(", ") })]
    UnknownParameter {
        algorithm: &'static str,
        param: String,
        valid: Vec<&'static str>,
    },
    /// The value does not parse or is out of range.
    #[error("`{algorithm}` parameter `{param}` = `{value}`: expected {expected}")]
    BadValue {
        algorithm: &'static str,
        param: String,
        value: String,
        expected: String,
    },
    /// A `key=value` item is malformed.
    #[error("malformed parameter `{item}` in `{spec}`: expected key=value")]
    Malformed { spec: String, item: String },
    /// A parameter is given twice.
    #[error("parameter `{param}` given twice in `{spec}`")]
    Duplicate { spec: String, param: String },
    /// A `:` with no parameters after it, or an empty item between commas.
    #[error(
        "empty parameter list or item in `{spec}`: expected name or name:key=value[,key=value...]"
    )]
    EmptyItem { spec: String },
}

/// A parsed, validated algorithm spec (defaults filled in).
#[derive(Clone, Debug)]
pub struct AlgorithmSpec {
    info: &'static AlgorithmInfo,
    text: String,
    values: BTreeMap<&'static str, Value>,
}

impl AlgorithmSpec {
    /// Parses and validates `spec` against the registry.
    pub fn parse(spec: &str) -> Result<AlgorithmSpec, SpecError> {
        let spec = spec.trim();
        let (name, rest) = match spec.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (spec, None),
        };
        let info = find(name).ok_or_else(|| SpecError::UnknownAlgorithm {
            name: name.to_string(),
            known: crate::algorithms().iter().map(|a| a.name).collect(),
        })?;
        let mut values = BTreeMap::new();
        for p in info.params {
            values.insert(
                p.name,
                parse_value(info, p, p.default).expect("declared defaults are valid"),
            );
        }
        let mut given = Vec::new();
        let items: Vec<&str> = rest
            .into_iter()
            .flat_map(|r| r.split(','))
            .map(str::trim)
            .collect();
        if items.iter().any(|i| i.is_empty()) {
            return Err(SpecError::EmptyItem {
                spec: spec.to_string(),
            });
        }
        for item in items {
            let (key, value) = item
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| SpecError::Malformed {
                    spec: spec.to_string(),
                    item: item.to_string(),
                })?;
            let param = info.params.iter().find(|p| p.name == key).ok_or_else(|| {
                SpecError::UnknownParameter {
                    algorithm: info.name,
                    param: key.to_string(),
                    valid: info.params.iter().map(|p| p.name).collect(),
                }
            })?;
            if given.contains(&param.name) {
                return Err(SpecError::Duplicate {
                    spec: spec.to_string(),
                    param: key.to_string(),
                });
            }
            given.push(param.name);
            values.insert(param.name, parse_value(info, param, value)?);
        }
        Ok(AlgorithmSpec {
            info,
            text: spec.to_string(),
            values,
        })
    }

    /// The algorithm's registry entry.
    pub fn info(&self) -> &'static AlgorithmInfo {
        self.info
    }

    /// The algorithm's name.
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    /// The spec as written (trimmed).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Builds a controller.
    pub fn build(&self, config: &ControllerConfig) -> Box<dyn CongestionControl> {
        (self.info.build)(self, config)
    }

    /// A float parameter. Panics if `name` is not a declared float parameter
    /// (a programming error in the algorithm's constructor, not bad input).
    pub fn float(&self, name: &str) -> f64 {
        match self.values.get(name) {
            Some(Value::Float(v)) => *v,
            other => panic!(
                "{}: `{name}` is not a declared float parameter ({other:?})",
                self.info.name
            ),
        }
    }

    /// An integer parameter (see [`AlgorithmSpec::float`] on undeclared names).
    pub fn int(&self, name: &str) -> u64 {
        match self.values.get(name) {
            Some(Value::Int(v)) => *v,
            other => panic!(
                "{}: `{name}` is not a declared integer parameter ({other:?})",
                self.info.name
            ),
        }
    }

    /// A boolean parameter (see [`AlgorithmSpec::float`] on undeclared names).
    pub fn flag(&self, name: &str) -> bool {
        match self.values.get(name) {
            Some(Value::Bool(v)) => *v,
            other => panic!(
                "{}: `{name}` is not a declared boolean parameter ({other:?})",
                self.info.name
            ),
        }
    }
}

impl fmt::Display for AlgorithmSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn find(name: &str) -> Option<&'static AlgorithmInfo> {
    crate::algorithms().iter().find(|a| a.name == name)
}

fn parse_value(info: &AlgorithmInfo, param: &ParamSpec, text: &str) -> Result<Value, SpecError> {
    let bad = |expected: String| SpecError::BadValue {
        algorithm: info.name,
        param: param.name.to_string(),
        value: text.to_string(),
        expected,
    };
    match param.kind {
        ParamKind::Float { min, max } => {
            let v: f64 = text
                .parse()
                .map_err(|_| bad(format!("a number in [{min}, {max}]")))?;
            if !v.is_finite() || v < min || v > max {
                return Err(bad(format!("a number in [{min}, {max}]")));
            }
            Ok(Value::Float(v))
        }
        ParamKind::Int { min, max } => {
            let v: u64 = text
                .parse()
                .map_err(|_| bad(format!("an integer in [{min}, {max}]")))?;
            if v < min || v > max {
                return Err(bad(format!("an integer in [{min}, {max}]")));
            }
            Ok(Value::Int(v))
        }
        ParamKind::Bool => match text {
            "true" | "1" | "yes" | "on" => Ok(Value::Bool(true)),
            "false" | "0" | "no" | "off" => Ok(Value::Bool(false)),
            _ => Err(bad("true or false".to_string())),
        },
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn empty_parameter_lists_and_items_are_errors() {
        for spec in [
            "cubic:",
            "cubic:beta=0.7,,c=1",
            "cubic: ",
            "cubic:beta=0.7,",
        ] {
            let e = AlgorithmSpec::parse(spec).unwrap_err();
            assert!(matches!(e, SpecError::EmptyItem { .. }), "{spec}: {e}");
            assert!(
                e.to_string().starts_with("empty parameter list or item"),
                "{e}"
            );
        }
        assert!(AlgorithmSpec::parse("cubic:beta=0.7,c=0.4").is_ok());
        assert!(AlgorithmSpec::parse("cubic").is_ok());
    }

    use super::*;

    #[test]
    fn every_registered_algorithm_parses_with_defaults_and_builds() {
        for info in crate::algorithms() {
            let spec = AlgorithmSpec::parse(info.name).unwrap();
            let cc = spec.build(&ControllerConfig::new(1, crate::Instant::ZERO));
            assert_eq!(cc.spec(), info.name);
            assert!(cc.cwnd() > crate::Bytes::ZERO);
        }
    }

    #[test]
    fn unknown_algorithm_lists_the_known_ones() {
        let err = AlgorithmSpec::parse("vegas").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("unknown algorithm `vegas`"), "{msg}");
        assert!(
            msg.contains("bbr") && msg.contains("cubic") && msg.contains("reno"),
            "{msg}"
        );
    }

    #[test]
    fn unknown_parameter_lists_the_valid_ones() {
        let msg = AlgorithmSpec::parse("bbr:mu=0.5").unwrap_err().to_string();
        assert!(msg.contains("`bbr` has no parameter `mu`"), "{msg}");
        assert!(msg.contains("lt_bw"), "{msg}");
    }

    #[test]
    fn out_of_range_and_malformed_values_are_rejected() {
        let msg = AlgorithmSpec::parse("cubic:beta=1.5")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("expected a number in"), "{msg}");
        let msg = AlgorithmSpec::parse("bbr:lt_bw=maybe")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("true or false"), "{msg}");
        assert!(matches!(
            AlgorithmSpec::parse("bbr:lt_bw"),
            Err(SpecError::Malformed { .. })
        ));
        assert!(matches!(
            AlgorithmSpec::parse("bbr:lt_bw=true,lt_bw=false"),
            Err(SpecError::Duplicate { .. })
        ));
    }

    #[test]
    fn explicit_values_override_defaults() {
        let spec = AlgorithmSpec::parse(" cubic : beta = 0.5 ").unwrap();
        assert_eq!(spec.float("beta"), 0.5);
        assert_eq!(spec.as_str(), "cubic : beta = 0.5");
    }
}
