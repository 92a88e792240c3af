//! Scenario files for bbrlab: a TOML description of a bottleneck link and
//! the flows crossing it, validated into a [`sim::SimConfig`].
//!
//! ```toml
//! name = "bbr-shallow"
//! duration = "60s"
//! [link]
//! rate = "40Mbit"
//! rtt = "100ms"
//! buffer = "0.25bdp"
//! [[flow]]
//! cc = "bbr"
//! ```
//!
//! - [`load`] reads a file, [`from_str`] a string; both apply `--set`
//!   [`Override`]s to the parsed document first, so an overridden value is
//!   validated exactly like one written in the file.
//! - Every bad value is a [`ScenarioError`] naming the file, the key as a
//!   dotted path (`link.buffer`, `flow[1].cc`), the line when it is known,
//!   and what was expected.
//! - [`units`] holds the parsers for rates, sizes, durations and
//!   probabilities, shared with the command line and sweeps.
//! - A sweep's points carry their values parsed ([`AxisValue`]: a number
//!   with its unit, a boolean or text), beside the label that identifies
//!   them.
//!
//! The full format is described in `docs/SCENARIOS.md`.
//!
//! ```
//! use std::path::Path;
//! let text = r#"
//! name = "demo"
//! duration = "10s"
//! [link]
//! rate = "20Mbit"
//! rtt = "40ms"
//! buffer = "1bdp"
//! [[flow]]
//! cc = "bbr"
//! "#;
//! let s = scenario::from_str(text, Path::new("demo.toml"), &[]).unwrap();
//! assert_eq!(s.config.flows.len(), 1);
//!
//! let over = ["flow.0.cc=cubic".parse().unwrap()];
//! let s = scenario::from_str(text, Path::new("demo.toml"), &over).unwrap();
//! assert_eq!(s.config.flows[0].cc.name(), "cubic");
//!
//! let err = scenario::from_str(&text.replace("1bdp", "0"), Path::new("demo.toml"), &[]).unwrap_err();
//! assert_eq!(err.key.as_deref(), Some("link.buffer"));
//! assert_eq!(err.line, Some(7));
//! ```

#![warn(missing_docs)]

mod convert;
pub use convert::MAX_SERIES_ROWS;
mod error;
mod locate;
mod overrides;
mod raw;
mod sweep;
pub mod units;
mod value;

use std::path::{Path, PathBuf};

use serde_path_to_error::Segment;
use toml_edit::{DocumentMut, ImDocument};

pub use error::ScenarioError;
pub use overrides::{Override, ParseOverrideError};
pub use sweep::{load_sweep, sweep_from_str, Axis, Sweep, SweepPoint, MAX_RUNS};
pub use value::{AxisValue, Meaning};

use convert::Ctx;
use error::{KeyPath, Seg};
use locate::Locator;
use raw::RawScenario;

/// A loaded, validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The scenario's `name`.
    pub name: String,
    /// The file it was loaded from (or the origin given to [`from_str`]).
    pub source: PathBuf,
    /// The simulator configuration it describes.
    pub config: sim::SimConfig,
    /// The effective TOML document after overrides, to record with results
    /// (comments and layout of the file are kept).
    pub document: String,
    /// Why the simulator cannot run it (a kernel TCP flow, a DASH session
    /// dash.js plays), naming the key.
    not_simulable: Option<Box<ScenarioError>>,
}

impl Scenario {
    /// Whether the simulator can run this scenario: every flow one of the
    /// project's controllers, every DASH session the model's. A flow with
    /// `cc = "linux:NAME"` is the kernel's TCP, and `[flow.dash] player =
    /// "dashjs"` is dash.js in a browser, which only an emulated run carries.
    ///
    /// # Errors
    /// The first kernel flow, with the file, its `flow[N].cc` key and line;
    /// else the first dash.js session's `flow[N].dash.player`.
    pub fn check_simulable(&self) -> Result<(), ScenarioError> {
        match &self.not_simulable {
            Some(e) => Err((**e).clone()),
            None => Ok(()),
        }
    }

    /// Whether any flow is the kernel's TCP (`cc = "linux:NAME"`).
    pub fn has_kernel_flows(&self) -> bool {
        self.config.flows.iter().any(|f| f.kernel.is_some())
    }
}

/// Reads, overrides and validates the scenario file at `path`.
///
/// Relative trace paths in the file are resolved from the file's directory.
pub fn load(path: &Path, overrides: &[Override]) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ScenarioError::file_error(path, format!("cannot read scenario file: {e}")))?;
    from_str(&text, path, overrides)
}

/// Parses, overrides and validates a scenario given as text.
///
/// `origin` names the scenario in error messages and is where relative trace
/// paths start (its parent directory; use e.g. `Path::new("<string>")` for
/// the current directory).
pub fn from_str(
    text: &str,
    origin: &Path,
    overrides: &[Override],
) -> Result<Scenario, ScenarioError> {
    let original =
        ImDocument::parse(text.to_string()).map_err(|e| syntax_error(origin, text, &e))?;
    let mut doc: DocumentMut = original.clone().into_mut();

    let mut applied = Vec::with_capacity(overrides.len());
    for ov in overrides {
        let path = overrides::apply(&mut doc, ov).map_err(|m| ScenarioError {
            file: origin.to_path_buf(),
            key: Some(ov.key.clone()),
            line: None,
            column: None,
            message: format!("cannot apply --set {ov}: {m}"),
        })?;
        applied.push((path, ov.clone()));
    }
    let document = doc.to_string();

    let locator = Locator::new(Some(original));
    let ctx = Ctx {
        file: origin,
        base_dir: origin.parent().map(Path::to_path_buf).unwrap_or_default(),
        locator: &locator,
        overridden: &applied,
    };
    let raw: RawScenario = serde_path_to_error::deserialize(toml::Deserializer::new(&document))
        .map_err(|e| serde_error(&ctx, &document, &e))?;
    let config = convert::convert(&raw, &ctx)?;
    let not_simulable = convert::simulator_refusal(&ctx, &config).map(Box::new);
    Ok(Scenario {
        name: config.name.clone(),
        source: origin.to_path_buf(),
        config,
        document,
        not_simulable,
    })
}

fn syntax_error(origin: &Path, text: &str, e: &toml_edit::TomlError) -> ScenarioError {
    let (line, column) = match e.span() {
        Some(s) => (
            Some(Locator::line_of_offset(text, s.start)),
            Some(Locator::column_of_offset(text, s.start)),
        ),
        None => (None, None),
    };
    ScenarioError {
        file: origin.to_path_buf(),
        key: None,
        line,
        column,
        message: format!("TOML syntax error: {}", e.message().trim()),
    }
}

/// Turns a structural error (unknown key, a value where a table belongs)
/// into a [`ScenarioError`] with its key path.
fn serde_error(
    ctx: &Ctx<'_>,
    document: &str,
    e: &serde_path_to_error::Error<toml::de::Error>,
) -> ScenarioError {
    let mut key = KeyPath::root();
    for seg in e.path().iter() {
        match seg {
            Segment::Map { key: k } => key.0.push(Seg::Key(k.clone())),
            Segment::Seq { index } => key.0.push(Seg::Index(*index)),
            Segment::Enum { variant } => key.0.push(Seg::Key(variant.clone())),
            Segment::Unknown => break,
        }
    }
    let inner = e.inner();
    let msg = inner.message().trim().to_string();
    let message = if let Some(rest) = msg.strip_prefix("unknown field `") {
        // serde_path_to_error usually ends the path with the unknown key
        // already; add it when it does not.
        if let Some(field) = rest.split('`').next() {
            if key.0.last() != Some(&Seg::Key(field.to_string())) {
                key = key.key(field);
            }
        }
        msg.replacen("unknown field", "unknown key", 1)
    } else if key == KeyPath::root().key("flow") && msg.contains("expected a sequence") {
        "expected one or more [[flow]] tables (an array of tables); write [[flow]], not [flow]"
            .to_string()
    } else {
        msg
    };
    let mut err = ctx.err(&key, message);
    if err.line.is_none() && ctx.overridden.is_empty() {
        err.line = inner
            .span()
            .map(|s| Locator::line_of_offset(document, s.start));
    }
    err
}
