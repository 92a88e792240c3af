//! `[[claim]]`: a claim as the file declares it (its kind, the paper's
//! number or the project's bar, its tolerance and reason, an optional
//! precondition), turned into a [`Claim`] once at parse time, and judged on
//! its measure's value by the rules of [`crate::reproduce::claims`].

use serde::Deserialize;

use super::*;
use crate::reproduce::claims::{Claim, Declaration, Judged, Measured, Origin, Paper, Test};
use crate::reproduce::data::Runs;

/// Conditions as a claim's row with `every_condition` shows them: each
/// named with its outcome, "X (holds)" or "X (does not)".
pub(super) fn every_condition(conditions: &[(String, bool)]) -> Measured {
    Measured::Conditions {
        held: conditions.iter().filter(|(_, ok)| *ok).count(),
        total: conditions.len(),
        detail: conditions
            .iter()
            .map(|(label, ok)| format!("{label} ({})", if *ok { "holds" } else { "does not" }))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The `{ID}` placeholders of a text, in order.
pub(super) fn placeholders(text: &str) -> Vec<&str> {
    text.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(id, _)| id))
        .collect()
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum PaperKey {
    Obbr,
    Cws,
    Bbr2,
    Copilot,
    Own,
}

impl PaperKey {
    pub(super) fn paper(self) -> Paper {
        match self {
            PaperKey::Obbr => Paper::Obbr,
            PaperKey::Cws => Paper::Cws,
            PaperKey::Bbr2 => Paper::Bbr2,
            PaperKey::Copilot => Paper::Copilot,
            PaperKey::Own => Paper::Own,
        }
    }
}

/// A claim's test as a file writes it: the kinds of [`Test`].
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub(super) enum TestSpec {
    Point {
        paper: f64,
    },
    Factor {
        paper: f64,
    },
    Fraction {
        paper: f64,
    },
    Cut {
        paper: f64,
    },
    Gain {
        paper: f64,
    },
    AtLeast {
        bound: f64,
    },
    AtMost {
        bound: f64,
    },
    Direction {
        #[serde(default)]
        margin: f64,
    },
}

impl TestSpec {
    pub(super) fn test(self) -> Test {
        match self {
            TestSpec::Point { paper } => Test::point(paper),
            TestSpec::Factor { paper } => Test::factor(paper),
            TestSpec::Fraction { paper } => Test::fraction(paper),
            TestSpec::Cut { paper } => Test::cut(paper),
            TestSpec::Gain { paper } => Test::gain(paper),
            TestSpec::AtLeast { bound } => Test::at_least(bound),
            TestSpec::AtMost { bound } => Test::at_most(bound),
            TestSpec::Direction { margin } => Test::direction_within(margin),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClaimSpec {
    pub(super) id: String,
    pub(super) paper: PaperKey,
    pub(super) place: String,
    pub(super) statement: String,
    pub(super) about: String,
    pub(super) metric: String,
    pub(super) unit: String,
    pub(super) paper_says: String,
    pub(super) test: TestSpec,
    pub(super) tolerance_reason: String,
    pub(super) origin: Origin,
    /// The measure whose value (or conditions) the claim is judged on (a
    /// claim of an experiment file; empty in a claims-not-run file).
    #[serde(default)]
    pub(super) measure: String,
    /// What must hold in the runs for the claim to mean anything
    /// (`Claim::requires`).
    #[serde(default)]
    pub(super) precondition: Option<PreconditionSpec>,
    /// Whether the row names every condition with its outcome
    /// ("X (holds)", "Y (does not)"), not only those that fail.
    #[serde(default)]
    pub(super) every_condition: bool,
    /// What judging the claim would need (a claim of a claims-not-run
    /// file, [`NotRunFile`]).
    #[serde(default)]
    pub(super) needs: Option<String>,
}

impl ClaimSpec {
    /// The claim it declares.
    pub(super) fn declare(&self) -> &'static Claim {
        let declared = Claim::new(Declaration {
            id: leak(&self.id),
            paper: self.paper.paper(),
            place: leak(&self.place),
            statement: leak(&self.statement),
            about: leak(&self.about),
            metric: leak(&self.metric),
            unit: leak(&self.unit),
            paper_says: leak(&self.paper_says),
            test: self.test.test(),
            tolerance_reason: leak(&self.tolerance_reason),
            origin: self.origin,
        });
        let declared = match &self.precondition {
            Some(p) => declared.requires(leak(&p.text)),
            None => declared,
        };
        Box::leak(Box::new(declared))
    }
}

/// A claim's precondition: its text and the condition measure that checks
/// it (it holds where every condition holds).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PreconditionSpec {
    pub(super) text: String,
    pub(super) measure: String,
    /// What the row says where the precondition fails, `{ID}` standing for
    /// one-number measure `ID`'s number (default: "not at" the conditions
    /// that fail).
    #[serde(default)]
    pub(super) unmet: Option<String>,
    /// The decimals of the numbers in `unmet`.
    #[serde(default = "two")]
    pub(super) decimals: usize,
}

pub(super) fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

impl ExperimentFile {
    /// A precondition's `unmet` text with each `{ID}` replaced by one-number
    /// measure `ID`'s number in `context` ("—" without one).
    pub(super) fn unmet_text(
        &self,
        runs: &Runs,
        text: &str,
        decimals: usize,
        context: &[(String, String)],
    ) -> String {
        placeholders(text)
            .into_iter()
            .fold(text.to_string(), |out, id| {
                let number = match self.evaluate_in(runs, id, 0.0, context) {
                    Ok(Value::Number(v)) => v,
                    Ok(Value::Stat(s)) => s.mean,
                    _ => f64::NAN,
                };
                let shown = if number.is_finite() {
                    format!("{number:.decimals$}")
                } else {
                    "—".to_string()
                };
                out.replace(&format!("{{{id}}}"), &shown)
            })
    }

    /// A claim judged on `measure` (and its precondition's) in `context`.
    pub(super) fn judge(
        &self,
        runs: &Runs,
        claim: &'static Claim,
        measure: &str,
        precondition: Option<&str>,
        context: &[(String, String)],
    ) -> Judged {
        let spec = self.spec.claims.iter().find(|c| c.id == claim.id());
        let measured = match self.evaluate_in(runs, measure, claim.margin(), context) {
            Ok(Value::Conditions(c)) if spec.is_some_and(|s| s.every_condition) => {
                every_condition(&c)
            }
            Ok(v) => v.measured(),
            Err(e) => Measured::NotRun(format!("{e:#}")),
        };
        let Some(precondition) = precondition else {
            return claim.judge(measured);
        };
        let unmet = spec
            .and_then(|s| s.precondition.as_ref())
            .and_then(|p| Some((p.unmet.as_deref()?, p.decimals)));
        match self.evaluate_in(runs, precondition, 0.0, context) {
            Ok(Value::Conditions(c)) if !c.is_empty() => {
                let failed: Vec<&str> = c
                    .iter()
                    .filter(|(_, ok)| !ok)
                    .map(|(l, _)| l.as_str())
                    .collect();
                let detail = match unmet {
                    Some((text, decimals)) => self.unmet_text(runs, text, decimals, context),
                    None => format!("not at {}", failed.join(", ")),
                };
                claim.judge_given(failed.is_empty(), &detail, measured)
            }
            Ok(_) => claim.judge(Measured::NotRun(
                "its precondition has no condition measured".into(),
            )),
            Err(e) => claim.judge(Measured::NotRun(format!("{e:#}"))),
        }
    }
}
