//! `[[tree]]`: a classification tree fitted to a `decision_tree` measure's
//! runs, drawn node for node, and optionally a table of its leaves.

use report::Section;
use serde::Deserialize;

use super::*;
use crate::reproduce::data::Runs;

/// A classification tree drawn from a `decision_tree` measure's runs
/// (`[[tree]]`), and optionally a table of its leaves.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TreeSpec {
    /// The figure's title; `{conditions}` in it is the number of
    /// conditions the tree is fitted to.
    pub(super) title: String,
    /// A `named` measure of name `decision_tree`, whose parameters say
    /// what the tree is fitted to.
    pub(super) measure: String,
    /// The title of a table of the tree's leaves (none without it).
    #[serde(default)]
    pub(super) leaves: Option<String>,
    /// The title gets the seeds note.
    #[serde(default = "yes")]
    pub(super) seeds_note: bool,
}

impl ExperimentFile {
    /// `section` with the tree `t` (titled `title`) and its leaves' table.
    pub(super) fn tree(
        &self,
        runs: &Runs,
        t: &TreeSpec,
        title: &str,
        section: Section,
        problems: &mut Vec<String>,
    ) -> Section {
        let Some(Measure::Named { params, .. }) = self.measure(&t.measure) else {
            return section;
        };
        let leaves = t.leaves.as_deref().unwrap_or_default();
        match crate::reproduce::measures::decision_tree::tree_figure(runs, params, title, leaves) {
            Ok(Some((figure, table))) => {
                let section = section.figure(figure);
                match t.leaves {
                    Some(_) => section.table(table),
                    None => section,
                }
            }
            Ok(None) => {
                problems.push(format!("{}: fewer than two samples", t.measure));
                section
            }
            Err(e) => {
                problems.push(format!("{}: {e:#}", t.measure));
                section
            }
        }
    }
}
