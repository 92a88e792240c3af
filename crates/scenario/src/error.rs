//! The error type of scenario loading.

use std::fmt;
use std::path::PathBuf;

/// Why a scenario could not be loaded: the file, the key (a dotted path
/// such as `link.buffer` or `flow[1].cc`, flows counted from 0), the line
/// when it is known, and what was expected.
///
/// Displayed as
/// `scenarios/x.toml: link.buffer (line 9): expected a buffer of at least one datagram ..., got "0"`;
/// a TOML syntax error has no key but a line and column:
/// `scenarios/x.toml (line 3, column 7): TOML syntax error: ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario file (or the origin given to [`crate::from_str`]).
    pub file: PathBuf,
    /// The offending key as a dotted path (`link.loss.p`, `flow[0].cc`), if
    /// the error is about one key.
    pub key: Option<String>,
    /// 1-based line in the scenario file, when it can be known (not for
    /// values set by overrides).
    pub line: Option<usize>,
    /// 1-based column (TOML syntax errors only).
    pub column: Option<usize>,
    /// What is wrong: what was expected and what was found.
    pub message: String,
}

impl ScenarioError {
    /// An error about the whole file (no key, no line).
    pub fn file_error(file: impl Into<PathBuf>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: file.into(),
            key: None,
            line: None,
            column: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        match (&self.key, self.line, self.column) {
            (Some(key), Some(line), _) => write!(f, ": {key} (line {line})")?,
            (Some(key), None, _) => write!(f, ": {key}")?,
            (None, Some(line), Some(column)) => write!(f, " (line {line}, column {column})")?,
            (None, Some(line), None) => write!(f, " (line {line})")?,
            (None, None, _) => {}
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// A path to a key in a scenario document: table keys and array indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyPath(pub Vec<Seg>);

/// One step of a [`KeyPath`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

impl KeyPath {
    pub(crate) fn root() -> KeyPath {
        KeyPath(Vec::new())
    }

    /// This path extended by a table key.
    pub(crate) fn key(&self, name: &str) -> KeyPath {
        let mut v = self.0.clone();
        v.push(Seg::Key(name.to_string()));
        KeyPath(v)
    }

    /// This path extended by an array index.
    pub(crate) fn index(&self, i: usize) -> KeyPath {
        let mut v = self.0.clone();
        v.push(Seg::Index(i));
        KeyPath(v)
    }

    /// Whether `self` is `other` or lies inside it.
    pub(crate) fn starts_with(&self, other: &KeyPath) -> bool {
        self.0.len() >= other.0.len() && self.0[..other.0.len()] == other.0[..]
    }
}

/// `link.loss.p`, `flow[1].cc`, `link.schedule[0]`.
impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_forms() {
        let e = ScenarioError {
            file: "scenarios/x.toml".into(),
            key: Some("link.buffer".into()),
            line: Some(9),
            column: None,
            message: "expected a size, got \"0\"".into(),
        };
        assert_eq!(
            e.to_string(),
            "scenarios/x.toml: link.buffer (line 9): expected a size, got \"0\""
        );
        let e = ScenarioError {
            key: None,
            line: Some(3),
            column: Some(7),
            message: "bad".into(),
            ..e
        };
        assert_eq!(e.to_string(), "scenarios/x.toml (line 3, column 7): bad");
        let e = ScenarioError::file_error("a.toml", "cannot read");
        assert_eq!(e.to_string(), "a.toml: cannot read");
        let p = KeyPath::root().key("flow").index(1).key("cc");
        assert_eq!(p.to_string(), "flow[1].cc");
        assert!(p.starts_with(&KeyPath::root().key("flow").index(1)));
        assert!(!p.starts_with(&KeyPath::root().key("flow").index(0)));
    }
}
