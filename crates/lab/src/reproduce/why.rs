//! Why a claim differs from its paper, or reproduces it only partly: one
//! sentence per claim with a pointer to the analysis behind it, kept in
//! `why.toml` beside this file (data, not code: the reasons are written
//! after the runs, while the claims' tolerances are fixed before them, so
//! the two live apart). docs/REPRODUCTION.md prints the reason under every
//! Differs and Partly row and names every such row that has none.
//!
//! A reason is keyed by the claim's id and, where one claim is judged in
//! several experiments for different reasons, by the experiment too; a
//! reason without an experiment serves every experiment that judges the
//! claim.

use std::sync::OnceLock;

use serde::Deserialize;

/// The file's text, compiled in so the binary carries it.
const WHY_TOML: &str = include_str!("why.toml");

/// One reason.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Reason {
    /// The claim's id.
    pub id: String,
    /// The experiment whose row it explains; none: every row of the claim.
    #[serde(default)]
    pub experiment: Option<String>,
    /// The cause, in a sentence or two.
    pub text: String,
    /// Where the analysis is (a document and section, a report section).
    pub see: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    why: Vec<Reason>,
}

/// The reasons of a `why.toml` text; `name` names it in errors.
pub fn parse(name: &str, text: &str) -> anyhow::Result<Vec<Reason>> {
    let file: File = toml::from_str(text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    for (i, r) in file.why.iter().enumerate() {
        for (field, value) in [("id", &r.id), ("text", &r.text), ("see", &r.see)] {
            anyhow::ensure!(
                !value.trim().is_empty(),
                "{name}: reason {} ([[why]] number {}): `{field}` is empty",
                r.id,
                i + 1
            );
        }
        let twice = file.why[..i]
            .iter()
            .any(|o| o.id == r.id && o.experiment == r.experiment);
        anyhow::ensure!(
            !twice,
            "{name}: reason {} ([[why]] number {}): a second reason for the same claim{}",
            r.id,
            i + 1,
            r.experiment
                .as_deref()
                .map(|e| format!(" in experiment {e}"))
                .unwrap_or_default()
        );
    }
    Ok(file.why)
}

/// The compiled-in reasons.
pub fn reasons() -> anyhow::Result<&'static [Reason]> {
    static REASONS: OnceLock<Result<Vec<Reason>, String>> = OnceLock::new();
    REASONS
        .get_or_init(|| {
            parse("crates/lab/src/reproduce/why.toml", WHY_TOML).map_err(|e| format!("{e:#}"))
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// The reason for `id`'s row in `experiment`: the experiment's own, else
/// the claim's.
pub fn lookup<'a>(reasons: &'a [Reason], experiment: &str, id: &str) -> Option<&'a Reason> {
    reasons
        .iter()
        .find(|r| r.id == id && r.experiment.as_deref() == Some(experiment))
        .or_else(|| {
            reasons
                .iter()
                .find(|r| r.id == id && r.experiment.is_none())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_in_reasons_parse() {
        let reasons = reasons().unwrap();
        assert!(!reasons.is_empty());
    }

    #[test]
    fn an_experiments_own_reason_comes_first() {
        let reasons = parse(
            "t",
            r#"
            [[why]]
            id = "a"
            text = "generic"
            see = "x"
            [[why]]
            id = "a"
            experiment = "e2"
            text = "own"
            see = "y"
            "#,
        )
        .unwrap();
        assert_eq!(lookup(&reasons, "e1", "a").unwrap().text, "generic");
        assert_eq!(lookup(&reasons, "e2", "a").unwrap().text, "own");
        assert!(lookup(&reasons, "e1", "b").is_none());
    }

    #[test]
    fn bad_files_are_named_with_the_reason_at_fault() {
        let err = parse(
            "why.toml",
            "[[why]]\nid = \"a\"\ntext = \"\"\nsee = \"x\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("why.toml: reason a ([[why]] number 1): `text` is empty"),
            "{err}"
        );
        let twice = "[[why]]\nid = \"a\"\ntext = \"t\"\nsee = \"x\"\n".repeat(2);
        let err = parse("why.toml", &twice).unwrap_err().to_string();
        assert!(
            err.contains("number 2): a second reason for the same claim"),
            "{err}"
        );
        let err = parse("why.toml", "[[why]]\nid = \"a\"\ntext = \"t\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("why.toml") && err.contains("see"), "{err}");
        let err = parse(
            "why.toml",
            "[[why]]\nid = \"a\"\ntext = \"t\"\nsee = \"x\"\nsea = 1\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("sea"), "{err}");
    }
}
