//! Claims: what a paper says, declared as data, and judged on our numbers.
//!
//! A claim is one statement of a paper's evaluation ("oBBR retransmits at
//! most a fifth of BBR's bytes without loss", "CUBIC loses 94% of its
//! goodput at 1% loss"), tied to the controller it is about, the metric
//! that measures it, and a test with its tolerance. Everything that decides
//! the verdict is fixed where the claim is declared, as a `static`, with
//! the reason for its tolerance; an analysis can only hand a claim the
//! number it measured. It cannot widen a tolerance, move the check to
//! another controller or add a tie rule after a run missed it: the fields
//! are private to this module and the only constructor is `const`.
//!
//! ```compile_fail,E0616
//! use lab::reproduce::claims::{Claim, Declaration, Origin, Paper, Test};
//! static CLAIM: Claim = Claim::new(Declaration {
//!     id: "example", paper: Paper::Obbr, place: "Fig. 7", statement: "s",
//!     about: "oBBR", metric: "m", unit: "x", paper_says: "5x",
//!     test: Test::at_most(0.2), tolerance_reason: "r", origin: Origin::Paper,
//! });
//! // A tolerance cannot be changed after the claim's declaration (E0616:
//! // the field is private).
//! let mut widened = CLAIM.clone();
//! widened.test = Test::at_most(0.5);
//! ```
//!
//! Verdicts: `Reproduced` when the number passes the test, `Partly` when
//! it misses the test but passes the weaker band declared with it (a
//! direction that holds in most conditions, a magnitude within a wider
//! band), `Differs` otherwise, `NotRun` when the experiment produced no
//! number. A section's verdict is computed from its claims' verdicts.

use report::{Cell, Table, VerdictStatus};
use serde::Serialize;

/// Declares a claim as a documented `pub static`, its fields in the order
/// of [`Declaration`]: name; paper and place; id; statement; about;
/// metric; unit; the paper's number; test; the tolerance's reason; origin.
macro_rules! claim {
    ($name:ident, $paper:expr, $place:expr, $id:literal, $statement:literal, $about:literal,
     $metric:literal, $unit:literal, $paper_says:literal, $test:expr, $reason:literal,
     $origin:expr) => {
        #[doc = $statement]
        pub static $name: $crate::reproduce::claims::Claim =
            $crate::reproduce::claims::Claim::new($crate::reproduce::claims::Declaration {
                id: $id,
                paper: $paper,
                place: $place,
                statement: $statement,
                about: $about,
                metric: $metric,
                unit: $unit,
                paper_says: $paper_says,
                test: $test,
                tolerance_reason: $reason,
                origin: $origin,
            });
    };
}
pub(crate) use claim;

/// The paper a claim comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Paper {
    /// Bi et al., "oBBR: Optimize Retransmissions of BBR Flows on the Internet", ATC 2023.
    #[serde(rename = "oBBR (Bi et al., ATC 2023)")]
    Obbr,
    /// Kim, Song, Cho, "BBR-CWS: BBR congestion window scaling", Electronics 2020.
    #[serde(rename = "BBR-CWS (Kim et al., Electronics 2020)")]
    Cws,
    /// Drucker et al., "BBR vs. BBRv2: A Performance Evaluation".
    #[serde(rename = "BBR vs. BBRv2 (Drucker et al.)")]
    Bbr2,
    /// Yan et al., "When BBR Meets Live Streaming" (BBR-Copilot).
    #[serde(rename = "BBR-Copilot (Yan et al.)")]
    Copilot,
}

/// Who set the bar a claim is judged against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Origin {
    /// The paper's own number or direction.
    #[serde(rename = "paper")]
    Paper,
    /// A threshold of this project's (e.g. "at least five-fold" where the
    /// paper reports one run's ratio), labelled so in every table.
    #[serde(rename = "project target")]
    ProjectTarget,
}

/// How a measured number is judged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Test {
    /// Within `rel` (a fraction) of `paper`: reproduced; within `partly_rel`: partly.
    Near {
        /// The paper's value.
        paper: f64,
        /// Relative tolerance for "reproduced".
        rel: f64,
        /// Relative tolerance for "partly".
        partly_rel: f64,
    },
    /// At least `bound`: reproduced; at least `partly`: partly.
    AtLeast {
        /// The bound.
        bound: f64,
        /// The weaker bound for "partly" (`bound` when there is none).
        partly: f64,
    },
    /// At most `bound`: reproduced; at most `partly`: partly.
    AtMost {
        /// The bound.
        bound: f64,
        /// The weaker bound for "partly" (`bound` when there is none).
        partly: f64,
    },
    /// A direction checked in several conditions: all hold: reproduced; at
    /// least `partly_share` of them: partly.
    Holds {
        /// The share of conditions for "partly".
        partly_share: f64,
        /// How far against the direction a condition may go and still hold,
        /// in the claim's unit (0: strictly). The analysis reads it from
        /// the claim ([`Claim::margin`]), so it is declared here too.
        margin: f64,
    },
}

impl Test {
    /// Within `rel` of `paper`, partly within `partly_rel`.
    pub const fn near(paper: f64, rel: f64, partly_rel: f64) -> Test {
        Test::Near {
            paper,
            rel,
            partly_rel,
        }
    }

    /// At least `bound`, with no partly band.
    pub const fn at_least(bound: f64) -> Test {
        Test::AtLeast {
            bound,
            partly: bound,
        }
    }

    /// At most `bound`, with no partly band.
    pub const fn at_most(bound: f64) -> Test {
        Test::AtMost {
            bound,
            partly: bound,
        }
    }

    /// A direction in every condition; partly when at least `partly_share` hold.
    pub const fn holds(partly_share: f64) -> Test {
        Test::Holds {
            partly_share,
            margin: 0.0,
        }
    }

    /// A direction in every condition, each allowed to go `margin` (in the
    /// claim's unit) against it; partly when at least `partly_share` hold.
    pub const fn holds_within(margin: f64, partly_share: f64) -> Test {
        Test::Holds {
            partly_share,
            margin,
        }
    }

    /// The tolerance as a table cell reads it.
    fn describe(&self, unit: &str) -> String {
        match *self {
            Test::Near {
                paper,
                rel,
                partly_rel,
            } => format!(
                "within {:.0}% of {} (partly: {:.0}%)",
                rel * 100.0,
                format_value(paper, unit),
                partly_rel * 100.0
            ),
            Test::AtLeast { bound, partly } if partly == bound => {
                format!(">= {}", format_value(bound, unit))
            }
            Test::AtLeast { bound, partly } => format!(
                ">= {} (partly: >= {})",
                format_value(bound, unit),
                format_value(partly, unit)
            ),
            Test::AtMost { bound, partly } if partly == bound => {
                format!("<= {}", format_value(bound, unit))
            }
            Test::AtMost { bound, partly } => format!(
                "<= {} (partly: <= {})",
                format_value(bound, unit),
                format_value(partly, unit)
            ),
            Test::Holds {
                partly_share,
                margin,
            } => {
                let within = if margin > 0.0 {
                    format!(", each within {}", format_value(margin, unit))
                } else {
                    String::new()
                };
                if partly_share >= 1.0 {
                    format!("in every condition{within}")
                } else {
                    format!(
                        "in every condition{within} (partly: in {:.0}% of them)",
                        partly_share * 100.0
                    )
                }
            }
        }
    }
}

fn format_value(value: f64, unit: &str) -> String {
    match unit {
        "%" => format!("{:.2}%", value * 100.0),
        "x" => format!("{value:.2}x"),
        "" => format!("{value:.3}"),
        unit => format!("{value:.2} {unit}"),
    }
}

/// One claim of a paper, with everything that decides its verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    id: &'static str,
    paper: Paper,
    place: &'static str,
    statement: &'static str,
    about: &'static str,
    metric: &'static str,
    unit: &'static str,
    paper_says: &'static str,
    test: Test,
    tolerance_reason: &'static str,
    origin: Origin,
}

/// The parts of a claim's declaration, named, so a declaration reads as
/// what it says. Build a [`Claim`] from it with [`Claim::new`] in a
/// `static`.
pub struct Declaration {
    /// A stable id, `<suite>.<figure>.<what>`.
    pub id: &'static str,
    /// The paper.
    pub paper: Paper,
    /// Section, figure or table.
    pub place: &'static str,
    /// The claim in words.
    pub statement: &'static str,
    /// The controller (display name and spec) the claim is about.
    pub about: &'static str,
    /// What is measured (the metric and its condition).
    pub metric: &'static str,
    /// The metric's unit: "%" for ratios shown as percentages, "x" for
    /// factors, "" for plain numbers (Jain's index), else a unit name.
    pub unit: &'static str,
    /// The paper's number or direction, as the paper gives it.
    pub paper_says: &'static str,
    /// The test.
    pub test: Test,
    /// Why the tolerance is what it is.
    pub tolerance_reason: &'static str,
    /// Whether the bar is the paper's or the project's own.
    pub origin: Origin,
}

impl Claim {
    /// A claim from its declaration.
    pub const fn new(d: Declaration) -> Claim {
        Claim {
            id: d.id,
            paper: d.paper,
            place: d.place,
            statement: d.statement,
            about: d.about,
            metric: d.metric,
            unit: d.unit,
            paper_says: d.paper_says,
            test: d.test,
            tolerance_reason: d.tolerance_reason,
            origin: d.origin,
        }
    }

    /// The claim's id.
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// The claim in words.
    pub fn statement(&self) -> &'static str {
        self.statement
    }

    /// The margin of a direction claim (how far against the direction a
    /// condition may go and still hold, in the claim's unit); 0 for every
    /// other test. Analyses compare with it rather than with a constant of
    /// their own, so the tolerance stays in the declaration.
    pub fn margin(&self) -> f64 {
        match self.test {
            Test::Holds { margin, .. } => margin,
            _ => 0.0,
        }
    }

    /// Judges a measured number (or a count of conditions that hold).
    pub fn judge(&'static self, measured: Measured) -> Judged {
        let (verdict, ours) = match (&measured, self.test) {
            (Measured::NotRun(why), _) => (VerdictStatus::NotRun, format!("not run: {why}")),
            (Measured::Value(v), _) if !v.is_finite() => (
                VerdictStatus::NotRun,
                "no number (runs missing)".to_string(),
            ),
            (Measured::Value(v), test) => (value_verdict(*v, test), format_value(*v, self.unit)),
            (Measured::Conditions { held, total, .. }, _) if *total == 0 => {
                (VerdictStatus::NotRun, "no conditions measured".to_string())
            }
            (
                Measured::Conditions {
                    held,
                    total,
                    detail,
                },
                Test::Holds { partly_share, .. },
            ) => {
                let verdict = if held == total {
                    VerdictStatus::Reproduced
                } else if (*held as f64) >= partly_share * (*total as f64) && *held > 0 {
                    VerdictStatus::Partly
                } else {
                    VerdictStatus::Differs
                };
                let ours = if detail.is_empty() {
                    format!("holds in {held} of {total}")
                } else {
                    format!("holds in {held} of {total} ({detail})")
                };
                (verdict, ours)
            }
            (Measured::Conditions { .. }, _) => {
                // A declaration error, not a measurement: a number test
                // handed a count. Say so in the report rather than guess.
                (
                    VerdictStatus::NotRun,
                    "claim declares a number test but was measured by conditions".to_string(),
                )
            }
        };
        Judged {
            claim: self,
            ours,
            verdict,
        }
    }
}

fn value_verdict(v: f64, test: Test) -> VerdictStatus {
    let band = |inside: bool, inside_partly: bool| {
        if inside {
            VerdictStatus::Reproduced
        } else if inside_partly {
            VerdictStatus::Partly
        } else {
            VerdictStatus::Differs
        }
    };
    match test {
        Test::Near {
            paper,
            rel,
            partly_rel,
        } => {
            let off = (v - paper).abs();
            band(off <= rel * paper.abs(), off <= partly_rel * paper.abs())
        }
        Test::AtLeast { bound, partly } => band(v >= bound, v >= partly),
        Test::AtMost { bound, partly } => band(v <= bound, v <= partly),
        // A direction test handed a single number: positive means it holds.
        Test::Holds { .. } => band(v > 0.0, false),
    }
}

/// Every claim of `claims` judged "not run", for the same reason (an
/// experiment whose runs hold nothing to measure them on).
pub fn none_run(claims: &[&'static Claim], why: &str) -> Vec<Judged> {
    claims
        .iter()
        .map(|c| c.judge(Measured::NotRun(why.to_string())))
        .collect()
}

/// What an analysis measured for a claim.
#[derive(Clone, Debug, PartialEq)]
pub enum Measured {
    /// A number in the claim's unit (ratios as fractions: 0.05 is 5%).
    Value(f64),
    /// A direction checked in `total` conditions, `held` of which hold.
    Conditions {
        /// Conditions where it holds.
        held: usize,
        /// Conditions checked.
        total: usize,
        /// Which ones failed, briefly (may be empty).
        detail: String,
    },
    /// The experiment produced nothing to measure, and why.
    NotRun(String),
}

impl Measured {
    /// A direction over named conditions: `(condition, holds)`.
    /// Conditions are named by anything string-like (`&str`, `String`,
    /// `&String`), so a `Vec<(String, bool)>` of checks goes in as it is.
    pub fn conditions<S: AsRef<str>>(checks: impl IntoIterator<Item = (S, bool)>) -> Measured {
        let checks: Vec<(S, bool)> = checks.into_iter().collect();
        let failed: Vec<&str> = checks
            .iter()
            .filter(|(_, ok)| !ok)
            .map(|(c, _)| c.as_ref())
            .collect();
        Measured::Conditions {
            held: checks.len() - failed.len(),
            total: checks.len(),
            detail: if failed.is_empty() {
                String::new()
            } else {
                format!("not at {}", failed.join(", "))
            },
        }
    }
}

/// A claim with our number and its verdict.
#[derive(Clone, Debug)]
pub struct Judged {
    /// The claim.
    pub claim: &'static Claim,
    /// Our number, formatted in the claim's unit.
    pub ours: String,
    /// The verdict.
    pub verdict: VerdictStatus,
}

impl Judged {
    /// The claims.json / claims.csv record.
    pub fn record(&self) -> ClaimRecord {
        let c = self.claim;
        ClaimRecord {
            id: c.id,
            paper: c.paper,
            place: c.place,
            statement: c.statement,
            about: c.about,
            metric: c.metric,
            paper_says: c.paper_says,
            ours: self.ours.clone(),
            tolerance: c.test.describe(c.unit),
            tolerance_reason: c.tolerance_reason,
            origin: c.origin,
            verdict: self.verdict.label(),
        }
    }
}

/// One row of claims.json and claims.csv.
#[derive(Clone, Debug, Serialize)]
pub struct ClaimRecord {
    /// The claim's id.
    pub id: &'static str,
    /// The paper.
    pub paper: Paper,
    /// Section, figure or table.
    pub place: &'static str,
    /// The claim in words.
    pub statement: &'static str,
    /// The controller it is about.
    pub about: &'static str,
    /// What is measured.
    pub metric: &'static str,
    /// The paper's number or direction.
    pub paper_says: &'static str,
    /// Our number.
    pub ours: String,
    /// The tolerance.
    pub tolerance: String,
    /// Why the tolerance.
    pub tolerance_reason: &'static str,
    /// Whose bar.
    pub origin: Origin,
    /// The verdict's label.
    pub verdict: &'static str,
}

/// A section's verdict from its claims: every claim reproduced:
/// reproduced; none reproduced or partly: differs; none measured: not run;
/// anything else: partly.
pub fn section_verdict(judged: &[Judged]) -> VerdictStatus {
    let measured: Vec<_> = judged
        .iter()
        .filter(|j| j.verdict != VerdictStatus::NotRun)
        .collect();
    if measured.is_empty() {
        VerdictStatus::NotRun
    } else if measured.len() == judged.len()
        && measured
            .iter()
            .all(|j| j.verdict == VerdictStatus::Reproduced)
    {
        VerdictStatus::Reproduced
    } else if measured.iter().all(|j| j.verdict == VerdictStatus::Differs) {
        VerdictStatus::Differs
    } else {
        VerdictStatus::Partly
    }
}

/// The claims as a report table: claim, paper, ours, tolerance, verdict.
pub fn claims_table(judged: &[Judged]) -> Table {
    let mut table = Table::new(
        "Claims: the paper's number, ours, the tolerance fixed with the claim, and the verdict",
        ["claim", "about", "paper", "ours", "tolerance", "verdict"],
    );
    for j in judged {
        let c = j.claim;
        let origin = match c.origin {
            Origin::Paper => "",
            Origin::ProjectTarget => " (project target)",
        };
        table = table.row([
            Cell::text(format!("{} [{}]", c.statement, c.place)),
            Cell::text(c.about),
            Cell::text(c.paper_says),
            Cell::text(j.ours.clone()),
            Cell::text(format!(
                "{}{origin}: {}",
                c.test.describe(c.unit),
                c.tolerance_reason
            )),
            Cell::text(j.verdict.label()),
        ]);
    }
    table
}

/// The verdict's one line: `all_reproduced` when every claim holds, else
/// how many do and how the others fared (the claims table has each).
pub fn verdict_text(judged: &[Judged], all_reproduced: &str) -> String {
    let count = |v: VerdictStatus| judged.iter().filter(|j| j.verdict == v).count();
    let reproduced = count(VerdictStatus::Reproduced);
    if reproduced == judged.len() {
        return all_reproduced.to_string();
    }
    let others: Vec<String> = [
        VerdictStatus::Partly,
        VerdictStatus::Differs,
        VerdictStatus::NotRun,
    ]
    .into_iter()
    .map(|v| (v, count(v)))
    .filter(|(_, n)| *n > 0)
    .map(|(v, n)| format!("{n} {}", v.label().to_lowercase()))
    .collect();
    format!(
        "{reproduced} of {} claims reproduced; {} (claims table below)",
        judged.len(),
        others.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    static FIVE_FOLD: Claim = Claim::new(Declaration {
        id: "test.five-fold",
        paper: Paper::Obbr,
        place: "§5.1",
        statement: "oBBR retransmits at most a fifth of BBR's bytes",
        about: "oBBR (mu 0.5)",
        metric: "retransmission ratio, oBBR / BBR",
        unit: "x",
        paper_says: "up to 30x fewer",
        test: Test::AtMost {
            bound: 0.2,
            partly: 0.5,
        },
        tolerance_reason: "the paper's smallest cut over Fig. 7 is about 5x",
        origin: Origin::ProjectTarget,
    });

    static NEAR: Claim = Claim::new(Declaration {
        id: "test.near",
        paper: Paper::Obbr,
        place: "Fig. 7",
        statement: "CUBIC loses 94% of its goodput at 1% loss",
        about: "CUBIC",
        metric: "goodput drop at 1% loss",
        unit: "%",
        paper_says: "94%",
        test: Test::near(0.94, 0.05, 0.15),
        tolerance_reason: "testbed noise",
        origin: Origin::Paper,
    });

    static DIRECTION: Claim = Claim::new(Declaration {
        id: "test.direction",
        paper: Paper::Cws,
        place: "Fig. 13",
        statement: "BBR-CWS is fairer than BBR",
        about: "BBR-CWS",
        metric: "Jain's index",
        unit: "",
        paper_says: "at every buffer",
        test: Test::holds(0.5),
        tolerance_reason: "a direction",
        origin: Origin::Paper,
    });

    #[test]
    fn a_number_that_misses_its_tolerance_differs() {
        assert_eq!(
            FIVE_FOLD.judge(Measured::Value(0.15)).verdict,
            VerdictStatus::Reproduced
        );
        assert_eq!(
            FIVE_FOLD.judge(Measured::Value(0.2)).verdict,
            VerdictStatus::Reproduced
        );
        assert_eq!(
            FIVE_FOLD.judge(Measured::Value(0.33)).verdict,
            VerdictStatus::Partly
        );
        assert_eq!(
            FIVE_FOLD.judge(Measured::Value(0.6)).verdict,
            VerdictStatus::Differs
        );
        assert_eq!(
            NEAR.judge(Measured::Value(0.93)).verdict,
            VerdictStatus::Reproduced
        );
        assert_eq!(
            NEAR.judge(Measured::Value(0.85)).verdict,
            VerdictStatus::Partly
        );
        assert_eq!(
            NEAR.judge(Measured::Value(0.5)).verdict,
            VerdictStatus::Differs
        );
        assert_eq!(
            NEAR.judge(Measured::Value(f64::NAN)).verdict,
            VerdictStatus::NotRun
        );
    }

    #[test]
    fn directions_count_their_conditions() {
        let judged = DIRECTION.judge(Measured::conditions([("0.5", true), ("1", true)]));
        assert_eq!(judged.verdict, VerdictStatus::Reproduced);
        let judged = DIRECTION.judge(Measured::conditions([("0.5", true), ("1", false)]));
        assert_eq!(judged.verdict, VerdictStatus::Partly);
        assert_eq!(judged.ours, "holds in 1 of 2 (not at 1)");
        let judged = DIRECTION.judge(Measured::conditions([
            ("0.5", true),
            ("1", false),
            ("2", false),
        ]));
        assert_eq!(judged.verdict, VerdictStatus::Differs);
        assert_eq!(
            DIRECTION
                .judge(Measured::conditions(Vec::<(&str, bool)>::new()))
                .verdict,
            VerdictStatus::NotRun
        );
        // A count handed to a number test is not judged.
        assert_eq!(
            FIVE_FOLD.judge(Measured::conditions([("a", true)])).verdict,
            VerdictStatus::NotRun
        );
    }

    #[test]
    fn the_section_verdict_follows_its_claims() {
        let r = FIVE_FOLD.judge(Measured::Value(0.1));
        let p = FIVE_FOLD.judge(Measured::Value(0.3));
        let d = FIVE_FOLD.judge(Measured::Value(0.9));
        let n = FIVE_FOLD.judge(Measured::NotRun("no trace".into()));
        use VerdictStatus::*;
        assert_eq!(section_verdict(&[r.clone(), r.clone()]), Reproduced);
        assert_eq!(section_verdict(&[r.clone(), p.clone()]), Partly);
        assert_eq!(section_verdict(&[r.clone(), d.clone()]), Partly);
        assert_eq!(section_verdict(&[d.clone(), d.clone()]), Differs);
        assert_eq!(section_verdict(&[r.clone(), n.clone()]), Partly);
        assert_eq!(section_verdict(std::slice::from_ref(&n)), NotRun);
        assert_eq!(
            verdict_text(&[r.clone(), d, n.clone()], "all good"),
            "1 of 3 claims reproduced; 1 differs, 1 not run (claims table below)"
        );
        assert_eq!(verdict_text(&[r], "all good"), "all good");
    }

    static WITHIN: Claim = Claim::new(Declaration {
        id: "test.within",
        paper: Paper::Obbr,
        place: "Fig. 3",
        statement: "the share falls as the buffer grows",
        about: "BBR",
        metric: "share per step",
        unit: "%",
        paper_says: "falls",
        test: Test::holds_within(0.05, 0.5),
        tolerance_reason: "seed noise",
        origin: Origin::Paper,
    });

    #[test]
    fn a_direction_margin_is_declared_with_the_claim_and_shown() {
        assert_eq!(WITHIN.margin(), 0.05);
        assert_eq!(DIRECTION.margin(), 0.0);
        assert_eq!(FIVE_FOLD.margin(), 0.0);
        assert_eq!(
            WITHIN
                .judge(Measured::conditions([("a", true)]))
                .record()
                .tolerance,
            "in every condition, each within 5.00% (partly: in 50% of them)"
        );
    }

    #[test]
    fn records_carry_the_declared_tolerance_and_origin() {
        let rec = FIVE_FOLD.judge(Measured::Value(0.3)).record();
        assert_eq!(rec.tolerance, "<= 0.20x (partly: <= 0.50x)");
        assert_eq!(rec.origin, Origin::ProjectTarget);
        assert_eq!(rec.verdict, "Partly reproduced");
        let json = serde_json::to_value(&rec).unwrap();
        assert_eq!(json["origin"], "project target");
        assert_eq!(
            NEAR.judge(Measured::Value(0.9)).record().tolerance,
            "within 5% of 94.00% (partly: 15%)"
        );
    }
}
