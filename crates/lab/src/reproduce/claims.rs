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
//! Verdicts: the claim's kind ([`Test`]: a point number, a factor, a bound,
//! a direction) sets its bands by one rule per kind, the same in every
//! suite ([`rules`]). `Reproduced` inside the first band, `Partly` inside
//! the second, `Differs` otherwise (and wherever a declared precondition
//! fails), `NotRun` when the experiment produced no number. A section's
//! verdict, and the one verdict of a claim judged in several experiments,
//! follow [`combined_verdict`]. Rows of [`Origin::Analysis`] are the
//! project's own analyses, counted apart from the papers' claims.

use report::{Cell, Table, VerdictStatus};
use serde::{Deserialize, Serialize};

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
    /// No paper: a hypothesis of the experiment file's author, such as one
    /// about a controller registered from outside bbrlab.
    #[serde(rename = "own hypothesis")]
    Own,
}

/// Who set the bar a claim is judged against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    /// The paper's own number or direction.
    #[serde(rename = "paper")]
    Paper,
    /// A threshold of this project's (e.g. "at least five-fold" where the
    /// paper reports one run's ratio), labelled so in every table.
    #[serde(rename = "project target")]
    ProjectTarget,
    /// The project's own analysis, not a reproduction: a paper's claim
    /// judged somewhere else than where the paper makes it, on another
    /// metric than the paper's, at the end of a bracket over a parameter
    /// the paper does not give, or an experiment of the project's own.
    /// Counted apart from the papers' claims.
    #[serde(rename = "project analysis")]
    Analysis,
}

impl Origin {
    /// The label a table puts after the tolerance ("" for the paper's own).
    pub fn label(self) -> &'static str {
        match self {
            Origin::Paper => "",
            Origin::ProjectTarget => " (project target)",
            Origin::Analysis => " (project analysis)",
        }
    }
}

/// The rules claims are judged by: one per kind of claim, the same in
/// every suite, so no bar is set where one run happens to land. A claim
/// declares its kind ([`Test`]) and the paper's number or the project's
/// bar; the bands follow from the kind alone. REPRODUCTION.md states them
/// at its top.
pub mod rules {
    /// A point number ("BBR retransmits 17.42%", "about 7 s"): reproduced
    /// within this relative distance of the paper's number. One testbed's
    /// number, often read off a plot, is not known better than this.
    pub const POINT_REL: f64 = 0.25;
    /// A point number: partly reproduced within this relative distance
    /// (the same regime, not the same number).
    pub const POINT_PARTLY_REL: f64 = 0.5;
    /// A factor ("up to 30x", "five-fold", "96% less"): reproduced when
    /// ours reaches the paper's factor raised to this power, i.e. three
    /// quarters of the paper's effect on a log scale (30x: 12.8x; 4x:
    /// 2.83x). Factors multiply, so their distance is measured in orders
    /// of magnitude; an "up to" is the largest of noisy small ratios.
    pub const FACTOR_EXPONENT: f64 = 0.75;
    /// A factor: partly reproduced at half the paper's effect on a log
    /// scale (30x: 5.5x; 4x: 2x), always in the paper's direction.
    pub const FACTOR_PARTLY_EXPONENT: f64 = 0.5;
    /// A bound (the paper's ">= 0.9", the project's reading of "most" as
    /// ">= 80%"): reproduced when it holds; partly when it misses by at
    /// most this share of the bound, so a partly never reaches the
    /// opposite of the claim.
    pub const BOUND_PARTLY_REL: f64 = 0.1;
    /// A direction over conditions: reproduced when it holds in every
    /// condition; partly when it holds in at least this share of them (and
    /// in at least one).
    pub const DIRECTION_PARTLY_SHARE: f64 = 0.5;
    /// A section, or a claim judged in several experiments: reproduced when
    /// every judged claim is; differs when the reproduced claims (a partly
    /// counting half) are fewer than this share of those judged; partly
    /// otherwise.
    pub const SECTION_PARTLY_SHARE: f64 = 0.5;
}

/// How a measured number is judged: the kind of claim. The bands of each
/// kind are the [`rules`]'; a declaration gives only the paper's number
/// (or the project's bar) and, for a direction, the noise margin its
/// measure allows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Test {
    /// A point number of the paper.
    Point {
        /// The paper's value.
        paper: f64,
    },
    /// A factor ("up to N", "N-fold", "N% less", "+N%"), in the form the
    /// analysis measures it.
    Factor {
        /// The paper's factor.
        paper: f64,
        /// How the analysis states it.
        form: FactorForm,
    },
    /// At least `bound`.
    AtLeast {
        /// The bound.
        bound: f64,
    },
    /// At most `bound`.
    AtMost {
        /// The bound.
        bound: f64,
    },
    /// A direction checked in several conditions.
    Holds {
        /// How far against the direction a condition may go and still
        /// hold, in the claim's unit (0: strictly): the seed noise of the
        /// measure, declared with the claim. The analysis reads it from
        /// the claim ([`Claim::margin`]).
        margin: f64,
    },
}

/// How a factor claim's number is stated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FactorForm {
    /// As the factor itself ("BBR / oBBR = 30x").
    Factor,
    /// As its inverse, a fraction ("oBBR / BBR = 0.2x" for five-fold).
    Fraction,
    /// As a cut ("96% less" is a factor of 25).
    Cut,
    /// As a gain ("+143%" is a factor of 2.43).
    Gain,
}

impl FactorForm {
    /// The factor a measured number in this form stands for.
    fn to_factor(self, v: f64) -> f64 {
        match self {
            FactorForm::Factor => v,
            FactorForm::Fraction => 1.0 / v,
            FactorForm::Cut => 1.0 / (1.0 - v),
            FactorForm::Gain => 1.0 + v,
        }
    }

    /// A factor back in this form.
    fn factor_back(self, f: f64) -> f64 {
        match self {
            FactorForm::Factor => f,
            FactorForm::Fraction => 1.0 / f,
            FactorForm::Cut => 1.0 - 1.0 / f,
            FactorForm::Gain => f - 1.0,
        }
    }
}

impl Test {
    /// A point number of the paper.
    pub const fn point(paper: f64) -> Test {
        Test::Point { paper }
    }

    /// A factor, stated as the factor (`paper` >= 1).
    pub const fn factor(paper: f64) -> Test {
        Test::Factor {
            paper,
            form: FactorForm::Factor,
        }
    }

    /// A factor `paper`, measured as its inverse (ours / theirs).
    pub const fn fraction(paper: f64) -> Test {
        Test::Factor {
            paper,
            form: FactorForm::Fraction,
        }
    }

    /// A cut by `paper` (a fraction: 0.96 is "96% less"), measured as a cut.
    pub const fn cut(paper: f64) -> Test {
        Test::Factor {
            paper,
            form: FactorForm::Cut,
        }
    }

    /// A gain by `paper` (a fraction: 1.43 is "+143%"), measured as a gain.
    pub const fn gain(paper: f64) -> Test {
        Test::Factor {
            paper,
            form: FactorForm::Gain,
        }
    }

    /// At least `bound`.
    pub const fn at_least(bound: f64) -> Test {
        Test::AtLeast { bound }
    }

    /// At most `bound`.
    pub const fn at_most(bound: f64) -> Test {
        Test::AtMost { bound }
    }

    /// A direction in every condition, strictly.
    pub const fn direction() -> Test {
        Test::Holds { margin: 0.0 }
    }

    /// A direction in every condition, each allowed to go `margin` (in the
    /// claim's unit) against it: the measure's seed noise.
    pub const fn direction_within(margin: f64) -> Test {
        Test::Holds { margin }
    }

    /// The paper's factor of a factor claim, as a factor.
    fn paper_factor(paper: f64, form: FactorForm) -> f64 {
        match form {
            FactorForm::Cut | FactorForm::Gain => form.to_factor(paper),
            FactorForm::Factor | FactorForm::Fraction => paper,
        }
    }

    /// The reproduced and partly thresholds of a factor claim, in its form.
    fn factor_bars(paper: f64, form: FactorForm) -> (f64, f64) {
        let f = Test::paper_factor(paper, form);
        (
            form.factor_back(f.powf(rules::FACTOR_EXPONENT)),
            form.factor_back(f.powf(rules::FACTOR_PARTLY_EXPONENT)),
        )
    }

    /// The tolerance as a table cell reads it.
    fn describe(&self, unit: &str) -> String {
        match *self {
            Test::Point { paper } => format!(
                "point: within {:.0}% of {} (partly: {:.0}%)",
                rules::POINT_REL * 100.0,
                format_value(paper, unit),
                rules::POINT_PARTLY_REL * 100.0
            ),
            Test::Factor { paper, form } => {
                let (bar, partly) = Test::factor_bars(paper, form);
                let sign = if form == FactorForm::Fraction {
                    "<="
                } else {
                    ">="
                };
                format!(
                    "factor: {sign} {} (partly: {sign} {})",
                    format_value(bar, unit),
                    format_value(partly, unit)
                )
            }
            Test::AtLeast { bound } => format!(
                "bound: >= {} (partly: >= {})",
                format_value(bound, unit),
                format_value(bound - rules::BOUND_PARTLY_REL * bound.abs(), unit)
            ),
            Test::AtMost { bound } => format!(
                "bound: <= {} (partly: <= {})",
                format_value(bound, unit),
                format_value(bound + rules::BOUND_PARTLY_REL * bound.abs(), unit)
            ),
            Test::Holds { margin } => {
                let within = if margin > 0.0 {
                    format!(", each within {}", format_value(margin, unit))
                } else {
                    String::new()
                };
                format!(
                    "direction: in every condition{within} (partly: in {:.0}% of them)",
                    rules::DIRECTION_PARTLY_SHARE * 100.0
                )
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
    precondition: Option<&'static str>,
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
            precondition: None,
        }
    }

    /// The same claim with a precondition: what must hold in the runs for
    /// the claim to mean anything (the flows it compares deliver, the
    /// samples it counts exist). The analysis checks it and says so with
    /// [`Claim::judge_given`]; a claim judged where its precondition fails
    /// differs from the paper, whatever its number: the paper's claim was
    /// made where it held.
    pub const fn requires(self, precondition: &'static str) -> Claim {
        Claim {
            precondition: Some(precondition),
            ..self
        }
    }

    /// The declared precondition, if any.
    pub fn precondition(&self) -> Option<&'static str> {
        self.precondition
    }

    /// Whose bar, or whether the row is the project's own analysis.
    pub fn origin(&self) -> Origin {
        self.origin
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
            Test::Holds { margin } => margin,
            _ => 0.0,
        }
    }

    /// Judges a measured number (or a count of conditions that hold) of a
    /// claim that declares no precondition. A claim that declares one is
    /// judged "not run" here: its analysis must check it
    /// ([`Claim::judge_given`]).
    pub fn judge(&'static self, measured: Measured) -> Judged {
        if let Some(pre) = self.precondition {
            if !matches!(measured, Measured::NotRun(_)) {
                return Judged {
                    claim: self,
                    ours: format!("precondition not checked by the analysis ({pre})"),
                    verdict: VerdictStatus::NotRun,
                };
            }
        }
        self.judge_measured(measured)
    }

    /// Judges a claim whose precondition the analysis checked: `held`
    /// says whether it holds, `detail` what was measured. Where it fails
    /// the claim differs, and the row says why beside our number.
    pub fn judge_given(&'static self, held: bool, detail: &str, measured: Measured) -> Judged {
        let judged = self.judge_measured(measured);
        if held || judged.verdict == VerdictStatus::NotRun {
            return judged;
        }
        Judged {
            ours: format!("{}; precondition unmet: {detail}", judged.ours),
            verdict: VerdictStatus::Differs,
            ..judged
        }
    }

    fn judge_measured(&'static self, measured: Measured) -> Judged {
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
                Test::Holds { .. },
            ) => {
                let verdict = if held == total {
                    VerdictStatus::Reproduced
                } else if (*held as f64) >= rules::DIRECTION_PARTLY_SHARE * (*total as f64)
                    && *held > 0
                {
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
        Test::Point { paper } => {
            let off = (v - paper).abs();
            band(
                off <= rules::POINT_REL * paper.abs(),
                off <= rules::POINT_PARTLY_REL * paper.abs(),
            )
        }
        Test::Factor { paper, form } => {
            let ours = form.to_factor(v);
            let theirs = Test::paper_factor(paper, form);
            // Compared as factors, so every form is judged alike; a factor
            // below 1 (or a cut of 100%, an infinite factor) is compared as
            // such.
            band(
                ours >= theirs.powf(rules::FACTOR_EXPONENT),
                ours >= theirs.powf(rules::FACTOR_PARTLY_EXPONENT),
            )
        }
        Test::AtLeast { bound } => band(
            v >= bound,
            v >= bound - rules::BOUND_PARTLY_REL * bound.abs(),
        ),
        Test::AtMost { bound } => band(
            v <= bound,
            v <= bound + rules::BOUND_PARTLY_REL * bound.abs(),
        ),
        // A direction test handed a single number: positive means it holds.
        Test::Holds { .. } => band(v > 0.0, false),
    }
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
            precondition: c.precondition,
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
    /// Whose bar, or the project's own analysis.
    pub origin: Origin,
    /// What must hold in the runs for the claim to mean anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precondition: Option<&'static str>,
    /// The verdict's label.
    pub verdict: &'static str,
}

/// The verdict of several judgements taken together (a section's claims,
/// or one claim judged in several experiments), by the rule stated at the
/// top of REPRODUCTION.md: every one reproduced: reproduced; none measured:
/// not run; the reproduced ones (a partly counting half) at least
/// [`rules::SECTION_PARTLY_SHARE`] of those measured: partly; otherwise
/// differs. A claim not run keeps the whole from "reproduced".
pub fn combined_verdict(verdicts: &[VerdictStatus]) -> VerdictStatus {
    let measured: Vec<_> = verdicts
        .iter()
        .filter(|v| **v != VerdictStatus::NotRun)
        .collect();
    if measured.is_empty() {
        return VerdictStatus::NotRun;
    }
    let reproduced = measured
        .iter()
        .filter(|v| ***v == VerdictStatus::Reproduced)
        .count();
    let partly = measured
        .iter()
        .filter(|v| ***v == VerdictStatus::Partly)
        .count();
    if reproduced == verdicts.len() {
        VerdictStatus::Reproduced
    } else if reproduced as f64 + 0.5 * partly as f64
        >= rules::SECTION_PARTLY_SHARE * measured.len() as f64
    {
        VerdictStatus::Partly
    } else {
        VerdictStatus::Differs
    }
}

/// A section's verdict from its claims: the papers' claims decide it
/// ([`combined_verdict`]); the project's own analyses decide it only in a
/// section that has nothing else.
pub fn section_verdict(judged: &[Judged]) -> VerdictStatus {
    let papers: Vec<VerdictStatus> = judged
        .iter()
        .filter(|j| j.claim.origin != Origin::Analysis)
        .map(|j| j.verdict)
        .collect();
    if papers.is_empty() {
        combined_verdict(&judged.iter().map(|j| j.verdict).collect::<Vec<_>>())
    } else {
        combined_verdict(&papers)
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
        let origin = c.origin.label();
        let precondition = match c.precondition {
            Some(pre) => format!(" (given: {pre})"),
            None => String::new(),
        };
        table = table.row([
            Cell::text(format!("{}{precondition} [{}]", c.statement, c.place)),
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

/// The verdict's one line: `all_reproduced` when every claim of the
/// paper holds, else how many do and how the others fared (the claims
/// table has each); the project's own analyses are counted apart.
pub fn verdict_text(judged: &[Judged], all_reproduced: &str) -> String {
    let (papers, analyses): (Vec<&Judged>, Vec<&Judged>) = judged
        .iter()
        .partition(|j| j.claim.origin != Origin::Analysis);
    let count = |of: &[&Judged], v: VerdictStatus| of.iter().filter(|j| j.verdict == v).count();
    let tally = |of: &[&Judged]| -> String {
        [
            VerdictStatus::Reproduced,
            VerdictStatus::Partly,
            VerdictStatus::Differs,
            VerdictStatus::NotRun,
        ]
        .into_iter()
        .map(|v| (v, count(of, v)))
        .filter(|(_, n)| *n > 0)
        .map(|(v, n)| format!("{n} {}", v.label().to_lowercase()))
        .collect::<Vec<_>>()
        .join(", ")
    };
    let beside = if analyses.is_empty() {
        String::new()
    } else {
        format!(
            "; beside them {} project analys{} ({})",
            analyses.len(),
            if analyses.len() == 1 { "is" } else { "es" },
            tally(&analyses)
        )
    };
    if papers.is_empty() {
        return format!("no claim of the paper here{beside}");
    }
    let reproduced = count(&papers, VerdictStatus::Reproduced);
    if reproduced == papers.len() && analyses.is_empty() {
        return all_reproduced.to_string();
    }
    let others: Vec<String> = [
        VerdictStatus::Partly,
        VerdictStatus::Differs,
        VerdictStatus::NotRun,
    ]
    .into_iter()
    .map(|v| (v, count(&papers, v)))
    .filter(|(_, n)| *n > 0)
    .map(|(v, n)| format!("{n} {}", v.label().to_lowercase()))
    .collect();
    let others = if others.is_empty() {
        String::new()
    } else {
        format!("; {}", others.join(", "))
    };
    format!(
        "{reproduced} of {} claims of the paper reproduced{others}{beside} (claims table below)",
        papers.len(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declare(id: &'static str, unit: &'static str, test: Test, origin: Origin) -> Claim {
        Claim::new(Declaration {
            id,
            paper: Paper::Obbr,
            place: "Fig. 7",
            statement: "s",
            about: "oBBR",
            metric: "m",
            unit,
            paper_says: "p",
            test,
            tolerance_reason: "r",
            origin,
        })
    }

    static FIVE_FOLD: Claim = Claim::new(Declaration {
        id: "test.five-fold",
        paper: Paper::Obbr,
        place: "§5.1",
        statement: "oBBR retransmits at most a fifth of BBR's bytes",
        about: "oBBR (mu 0.5)",
        metric: "retransmission ratio, oBBR / BBR",
        unit: "x",
        paper_says: "up to 30x fewer",
        test: Test::fraction(5.0),
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
        test: Test::point(0.94),
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
        test: Test::direction(),
        tolerance_reason: "a direction",
        origin: Origin::Paper,
    });

    static HOLLOW: Claim = Claim::new(Declaration {
        id: "test.hollow",
        paper: Paper::Bbr2,
        place: "Fig. 7",
        statement: "adaptive BBRv2 retransmits less than BBR",
        about: "adaptive BBRv2",
        metric: "retransmission ratio",
        unit: "",
        paper_says: "less",
        test: Test::direction(),
        tolerance_reason: "a direction",
        origin: Origin::Paper,
    })
    .requires("adaptive BBRv2 carries at least half of BBR's goodput");

    #[test]
    fn point_numbers_follow_one_rule() {
        use VerdictStatus::*;
        let judge = |v| NEAR.judge(Measured::Value(v)).verdict;
        assert_eq!(judge(0.94 * 1.25), Reproduced);
        assert_eq!(judge(0.94 * 0.76), Reproduced);
        assert_eq!(judge(0.94 * 0.74), Partly);
        assert_eq!(judge(0.94 * 0.51), Partly);
        assert_eq!(judge(0.94 * 0.49), Differs);
        assert_eq!(judge(f64::NAN), NotRun);
    }

    #[test]
    fn factors_are_judged_on_a_log_scale_in_every_form() {
        use VerdictStatus::*;
        static UP_TO_30X: Claim = Claim::new(Declaration {
            id: "test.30x",
            paper: Paper::Obbr,
            place: "§1",
            statement: "up to 30x",
            about: "oBBR",
            metric: "BBR / oBBR",
            unit: "x",
            paper_says: "30x",
            test: Test::factor(30.0),
            tolerance_reason: "r",
            origin: Origin::Paper,
        });
        // 30^0.75 = 12.82, 30^0.5 = 5.48.
        assert_eq!(UP_TO_30X.judge(Measured::Value(12.9)).verdict, Reproduced);
        assert_eq!(UP_TO_30X.judge(Measured::Value(12.7)).verdict, Partly);
        assert_eq!(UP_TO_30X.judge(Measured::Value(5.5)).verdict, Partly);
        assert_eq!(UP_TO_30X.judge(Measured::Value(5.4)).verdict, Differs);
        // Five-fold as a fraction: 5^-0.75 = 0.299, 5^-0.5 = 0.447.
        assert_eq!(FIVE_FOLD.judge(Measured::Value(0.29)).verdict, Reproduced);
        assert_eq!(FIVE_FOLD.judge(Measured::Value(0.31)).verdict, Partly);
        assert_eq!(FIVE_FOLD.judge(Measured::Value(0.46)).verdict, Differs);
        assert_eq!(FIVE_FOLD.judge(Measured::Value(0.0)).verdict, Reproduced);
        // A cut of 75% is a factor of 4: reproduced from 64.6%, partly from 50%.
        let cut = Box::leak(Box::new(declare(
            "t.cut",
            "%",
            Test::cut(0.75),
            Origin::Paper,
        )));
        assert_eq!(cut.judge(Measured::Value(0.65)).verdict, Reproduced);
        assert_eq!(cut.judge(Measured::Value(0.60)).verdict, Partly);
        assert_eq!(cut.judge(Measured::Value(0.49)).verdict, Differs);
        assert_eq!(
            cut.judge(Measured::Value(0.5)).record().tolerance,
            "factor: >= 64.64% (partly: >= 50.00%)"
        );
        // A gain of 143% is a factor of 2.43: reproduced from +94.5%, partly from +55.9%.
        let gain = Box::leak(Box::new(declare(
            "t.gain",
            "%",
            Test::gain(1.43),
            Origin::Paper,
        )));
        assert_eq!(gain.judge(Measured::Value(0.95)).verdict, Reproduced);
        assert_eq!(gain.judge(Measured::Value(0.56)).verdict, Partly);
        assert_eq!(gain.judge(Measured::Value(0.55)).verdict, Differs);
        assert_eq!(gain.judge(Measured::Value(-0.65)).verdict, Differs);
        // A small factor keeps its direction: 1.54x needs 1.38x, partly 1.24x.
        let small = Box::leak(Box::new(declare(
            "t.small",
            "x",
            Test::factor(1.54),
            Origin::Paper,
        )));
        assert_eq!(small.judge(Measured::Value(1.3)).verdict, Partly);
        assert_eq!(small.judge(Measured::Value(0.99)).verdict, Differs);
    }

    #[test]
    fn bounds_have_a_narrow_partly_band_that_never_reaches_the_opposite() {
        use VerdictStatus::*;
        let jain = Box::leak(Box::new(declare(
            "t.jain",
            "",
            Test::at_least(0.9),
            Origin::Paper,
        )));
        assert_eq!(jain.judge(Measured::Value(0.9)).verdict, Reproduced);
        assert_eq!(jain.judge(Measured::Value(0.82)).verdict, Partly);
        assert_eq!(jain.judge(Measured::Value(0.80)).verdict, Differs);
        let most = Box::leak(Box::new(declare(
            "t.hardly",
            "%",
            Test::at_most(0.25),
            Origin::ProjectTarget,
        )));
        assert_eq!(most.judge(Measured::Value(0.27)).verdict, Partly);
        // An even split is no "hardly competes", not even partly.
        assert_eq!(most.judge(Measured::Value(0.4767)).verdict, Differs);
        assert_eq!(
            most.judge(Measured::Value(0.3)).record().tolerance,
            "bound: <= 25.00% (partly: <= 27.50%)"
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
    fn a_precondition_must_be_checked_and_a_failed_one_differs() {
        use VerdictStatus::*;
        let holds = || Measured::conditions([("1%", true), ("2%", true)]);
        let unchecked = HOLLOW.judge(holds());
        assert_eq!(unchecked.verdict, NotRun);
        assert!(unchecked.ours.contains("precondition not checked"));
        assert_eq!(HOLLOW.judge_given(true, "", holds()).verdict, Reproduced);
        let hollow = HOLLOW.judge_given(false, "adaptive BBRv2 at 1% of BBR's goodput", holds());
        assert_eq!(hollow.verdict, Differs);
        assert_eq!(
            hollow.ours,
            "holds in 2 of 2; precondition unmet: adaptive BBRv2 at 1% of BBR's goodput"
        );
        assert_eq!(
            HOLLOW.judge(Measured::NotRun("no runs".into())).verdict,
            NotRun
        );
    }

    #[test]
    fn the_section_verdict_follows_its_claims_by_the_stated_rule() {
        let r = FIVE_FOLD.judge(Measured::Value(0.1));
        let p = FIVE_FOLD.judge(Measured::Value(0.35));
        let d = FIVE_FOLD.judge(Measured::Value(0.9));
        let n = FIVE_FOLD.judge(Measured::NotRun("no trace".into()));
        use VerdictStatus::*;
        assert_eq!(section_verdict(&[r.clone(), r.clone()]), Reproduced);
        assert_eq!(section_verdict(&[r.clone(), p.clone()]), Partly);
        assert_eq!(section_verdict(&[r.clone(), d.clone()]), Partly);
        assert_eq!(section_verdict(&[d.clone(), d.clone()]), Differs);
        assert_eq!(section_verdict(&[r.clone(), n.clone()]), Partly);
        assert_eq!(section_verdict(std::slice::from_ref(&n)), NotRun);
        // One reproduced claim of six is no "partly".
        let mut one_of_six = vec![r.clone()];
        one_of_six.extend(std::iter::repeat_n(d.clone(), 5));
        assert_eq!(section_verdict(&one_of_six), Differs);
        // Partly claims count half: one reproduced, one partly and one
        // differs make 1.5 of 3; two partly and one differs only 1 of 3.
        assert_eq!(section_verdict(&[r.clone(), p.clone(), d.clone()]), Partly);
        assert_eq!(section_verdict(&[p.clone(), p.clone(), d.clone()]), Differs);
        assert_eq!(
            verdict_text(&[r.clone(), d.clone(), n.clone()], "all good"),
            "1 of 3 claims of the paper reproduced; 1 differs, 1 not run (claims table below)"
        );
        assert_eq!(
            verdict_text(std::slice::from_ref(&r), "all good"),
            "all good"
        );
    }

    #[test]
    fn the_projects_analyses_are_counted_apart_and_do_not_decide_a_section() {
        use VerdictStatus::*;
        static ELSEWHERE: Claim = Claim::new(Declaration {
            id: "test.elsewhere",
            paper: Paper::Obbr,
            place: "§1 (judged on Fig. 8)",
            statement: "up to 30x, judged elsewhere",
            about: "oBBR",
            metric: "m",
            unit: "x",
            paper_says: "30x",
            test: Test::factor(30.0),
            tolerance_reason: "r",
            origin: Origin::Analysis,
        });
        let analysis = ELSEWHERE.judge(Measured::Value(40.0));
        let d = FIVE_FOLD.judge(Measured::Value(0.9));
        assert_eq!(analysis.verdict, Reproduced);
        assert_eq!(section_verdict(&[analysis.clone(), d.clone()]), Differs);
        assert_eq!(section_verdict(std::slice::from_ref(&analysis)), Reproduced);
        assert_eq!(
            verdict_text(&[analysis.clone(), d], "all good"),
            "0 of 1 claims of the paper reproduced; 1 differs; beside them 1 project analysis \
             (1 reproduced) (claims table below)"
        );
        let rec = analysis.record();
        assert_eq!(
            serde_json::to_value(&rec).unwrap()["origin"],
            "project analysis"
        );
        let table = claims_table(&[analysis]);
        assert!(format!("{table:?}").contains("(project analysis)"));
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
        test: Test::direction_within(0.05),
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
            "direction: in every condition, each within 5.00% (partly: in 50% of them)"
        );
    }

    #[test]
    fn records_carry_the_declared_tolerance_and_origin() {
        let rec = FIVE_FOLD.judge(Measured::Value(0.35)).record();
        assert_eq!(rec.tolerance, "factor: <= 0.30x (partly: <= 0.45x)");
        assert_eq!(rec.origin, Origin::ProjectTarget);
        assert_eq!(rec.verdict, "Partly reproduced");
        let json = serde_json::to_value(&rec).unwrap();
        assert_eq!(json["origin"], "project target");
        assert_eq!(
            NEAR.judge(Measured::Value(0.9)).record().tolerance,
            "point: within 25% of 94.00% (partly: 50%)"
        );
    }
}
