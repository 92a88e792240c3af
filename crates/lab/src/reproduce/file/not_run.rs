//! `not-run.toml`: the claims of a suite that no experiment can judge (they
//! need a testbed, a trace or a system the project does not have), each
//! with what it needs; read by the same parser, hashed the same way.

use serde::Deserialize;

use super::*;
use crate::reproduce::claims::{Claim, Judged, Measured};

/// A claims-not-run file as written: its claims, each with what judging
/// it `needs` in place of a measure.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NotRunSpec {
    #[serde(default, rename = "claim")]
    pub(super) claims: Vec<ClaimSpec>,
}

/// A suite's claims that no experiment judges (`experiments/<suite>/
/// not-run.toml`): those a simulated dumbbell cannot measure (a real
/// Internet path, a production log, a condition the paper does not give)
/// and those runnable but not judged yet, each judged "not run" with what
/// judging it `needs`. Its claims are written and checked as an experiment
/// file's (the same keys, errors naming the file, the line and the key),
/// without a measure; its SHA-256 is recorded as an experiment file's.
#[derive(Clone, Debug)]
pub struct NotRunFile {
    /// The file's name as given (the repository path of a suite's).
    pub name: String,
    /// The SHA-256 of its bytes, hex.
    pub sha256: String,
    /// Each claim and what judging it needs.
    pub(super) claims: Vec<(&'static Claim, String)>,
}

impl NotRunFile {
    /// Parses a claims-not-run file's `text`; `name` names it in errors
    /// and in the report.
    pub fn parse(name: &str, text: &str) -> anyhow::Result<NotRunFile> {
        let spec: NotRunSpec = toml::from_str(text).map_err(|e| toml_error(name, text, &e))?;
        let mut claims: Vec<(&'static Claim, String)> = Vec::new();
        for c in &spec.claims {
            let needle = format!("\"{}\"", c.id);
            let refuse =
                |key: &str, message: String| Err(key_error(name, text, key, &needle, message));
            if claims.iter().any(|(d, _)| d.id() == c.id) {
                return refuse("claim.id", format!("`{}` is declared twice", c.id));
            }
            let judged_by = [
                ("claim.measure", !c.measure.is_empty()),
                ("claim.precondition", c.precondition.is_some()),
                ("claim.every_condition", c.every_condition),
            ];
            if let Some((key, _)) = judged_by.iter().find(|(_, given)| *given) {
                return refuse(
                    key,
                    format!(
                        "`{}` is not run, so it has no `{}`: an experiment file judges a claim \
                         on measures",
                        c.id,
                        key.trim_start_matches("claim.")
                    ),
                );
            }
            match c.needs.as_deref().map(str::trim) {
                Some(needs) if !needs.is_empty() => claims.push((c.declare(), needs.to_string())),
                _ => {
                    return refuse(
                        "claim.needs",
                        format!("`{}` needs `needs`: what judging it would need", c.id),
                    )
                }
            }
        }
        Ok(NotRunFile {
            name: name.to_string(),
            sha256: sha256_hex(text.as_bytes()),
            claims,
        })
    }

    /// Every claim judged "not run", with what it needs.
    pub fn judged(&self) -> Vec<Judged> {
        self.claims
            .iter()
            .map(|(claim, needs)| claim.judge(Measured::NotRun(needs.clone())))
            .collect()
    }
}
