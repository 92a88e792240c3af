//! Series colours shared by every figure of a report.
//!
//! A reader follows a controller from figure to figure by its colour, so a
//! series keeps one colour wherever its key (its legend label, or the key a
//! [`Line`](crate::Line) names with `colour_of`) appears. Keys are given
//! colours in the order the report first shows them, each the palette
//! colour least used so far that no other key of the same figure holds;
//! inside a figure no two keys share a colour while the palette lasts, so
//! where two keys met different figures with the same colour, the later
//! figure gives one of them the next free colour instead.

use std::collections::HashMap;

use crate::chart::PALETTE;
use crate::model::{Figure, FigureKind, Report};

/// Palette indices by series key.
#[derive(Debug, Clone, Default)]
pub struct Colours {
    by_key: HashMap<String, usize>,
}

/// The colour keys of a figure's series, in drawing order: `None` for a
/// series without a label or key (it takes the next free colour).
pub(crate) fn figure_keys(figure: &Figure) -> Vec<Option<String>> {
    let key = |label: &str| (!label.is_empty()).then(|| label.to_string());
    match &figure.kind {
        FigureKind::Lines(lines) => lines
            .iter()
            .map(|l| l.colour_key.clone().or_else(|| key(&l.label)))
            .collect(),
        FigureKind::Cdf(distributions) => distributions.iter().map(|(l, _)| key(l)).collect(),
        FigureKind::Bars { groups, .. } => groups.iter().map(|g| key(&g.label)).collect(),
        FigureKind::Tree { classes, .. } => classes.iter().map(|c| key(c)).collect(),
    }
}

impl Colours {
    /// The colours of every series of `report`, figure by figure in report order.
    pub fn for_report(report: &Report) -> Colours {
        let mut colours = Colours::default();
        let mut uses = vec![0usize; PALETTE.len()];
        for figure in report.sections.iter().flat_map(|s| s.figures.iter()) {
            let keys = figure_keys(figure);
            let mut taken: Vec<usize> = keys
                .iter()
                .flatten()
                .filter_map(|k| colours.by_key.get(k).copied())
                .collect();
            for k in keys.iter().flatten() {
                if colours.by_key.contains_key(k) {
                    continue;
                }
                // Yellow, the faintest, only when a figure needs every colour.
                let faint = PALETTE.len() - 1;
                let free = |c: &usize| !taken.contains(c);
                let c = (0..faint)
                    .filter(free)
                    .min_by_key(|&c| (uses[c], c))
                    .or_else(|| free(&faint).then_some(faint))
                    .unwrap_or(colours.by_key.len() % PALETTE.len());
                colours.by_key.insert(k.clone(), c);
                uses[c] += 1;
                taken.push(c);
            }
        }
        colours
    }

    /// The colour of each distinct series key of `figure`, as `#rrggbb`, in
    /// drawing order: what the report's HTML records on each figure so a
    /// browser check can see that no two keys of a figure share a colour.
    pub(crate) fn key_colours(&self, figure: &Figure) -> Vec<String> {
        let keys = figure_keys(figure);
        let assigned = self.assign(&keys);
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for (k, c) in keys.iter().zip(assigned) {
            let Some(k) = k else { continue };
            if seen.contains(&k.as_str()) {
                continue;
            }
            seen.push(k);
            let (r, g, b) = PALETTE[c % PALETTE.len()];
            out.push(format!("#{r:02x}{g:02x}{b:02x}"));
        }
        out
    }

    /// Palette indices for one figure's series keys: each key's report
    /// colour unless another key of the figure holds it already; a series
    /// that repeats a key (a line and its whiskers) shares its colour.
    pub(crate) fn assign(&self, keys: &[Option<String>]) -> Vec<usize> {
        let mut local: HashMap<&str, usize> = HashMap::new();
        let mut used: Vec<usize> = Vec::new();
        let mut out = vec![usize::MAX; keys.len()];
        // Keys with their report colour first, in order, while it is free.
        for (i, k) in keys.iter().enumerate() {
            let Some(k) = k else { continue };
            if let Some(&c) = local.get(k.as_str()) {
                out[i] = c;
            } else if let Some(&c) = self.by_key.get(k).filter(|c| !used.contains(c)) {
                local.insert(k, c);
                used.push(c);
                out[i] = c;
            }
        }
        // Then every other series: its key's colour in this figure, or the
        // next free one.
        for (i, k) in keys.iter().enumerate() {
            if out[i] != usize::MAX {
                continue;
            }
            if let Some(&c) = k.as_deref().and_then(|k| local.get(k)) {
                out[i] = c;
                continue;
            }
            let c = (0..PALETTE.len())
                .find(|c| !used.contains(c))
                .unwrap_or(i % PALETTE.len());
            used.push(c);
            if let Some(k) = k {
                local.insert(k, c);
            }
            out[i] = c;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BarGroup, Line, Section};

    fn lines(labels: &[&str]) -> Figure {
        Figure::lines(
            "t",
            "x",
            "y",
            labels
                .iter()
                .map(|l| Line::new(*l, vec![(0.0, 1.0)]))
                .collect(),
        )
    }

    #[test]
    fn a_series_keeps_its_colour_across_figures() {
        let report = Report::new("r", "s").section(
            Section::new("a", "a")
                .figure(lines(&["BBR", "CUBIC"]))
                .figure(lines(&["CUBIC", "oBBR-0.5", "BBR"]))
                .figure(Figure::bars(
                    "b",
                    "x",
                    "y",
                    ["c"],
                    vec![
                        BarGroup::new("oBBR-0.5", vec![1.0]),
                        BarGroup::new("BBR", vec![2.0]),
                    ],
                )),
        );
        let colours = Colours::for_report(&report);
        let figures = &report.sections[0].figures;
        let first = colours.assign(&figure_keys(&figures[0]));
        let second = colours.assign(&figure_keys(&figures[1]));
        let third = colours.assign(&figure_keys(&figures[2]));
        assert_eq!(first, vec![0, 1]);
        assert_eq!(second, vec![1, 2, 0], "CUBIC and BBR keep theirs");
        assert_eq!(third, vec![2, 0]);
    }

    #[test]
    fn no_two_series_of_a_figure_share_a_colour() {
        let many: Vec<String> = (0..PALETTE.len()).map(|i| format!("s{i}")).collect();
        let labels: Vec<&str> = many.iter().map(String::as_str).collect();
        let report = Report::new("r", "s").section(Section::new("a", "a").figure(lines(&labels)));
        let colours = Colours::for_report(&report);
        let mut assigned = colours.assign(&figure_keys(&report.sections[0].figures[0]));
        assigned.sort_unstable();
        assigned.dedup();
        assert_eq!(assigned.len(), PALETTE.len());
    }

    #[test]
    fn the_palette_colours_are_far_apart() {
        // Euclidean distance in RGB: the closest pairs (reddish purple and
        // rose, purple and reddish purple) are about 62 apart; olive and a
        // lime (38) were too close to tell apart and the lime went.
        for (i, a) in PALETTE.iter().enumerate() {
            for b in &PALETTE[i + 1..] {
                let d = [(a.0, b.0), (a.1, b.1), (a.2, b.2)]
                    .iter()
                    .map(|&(x, y)| (x as f64 - y as f64).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!(d >= 60.0, "{a:?} and {b:?} are {d:.0} apart");
            }
        }
    }

    #[test]
    fn a_line_and_its_whiskers_share_a_colour() {
        let figure = Figure::lines(
            "t",
            "x",
            "y",
            vec![
                Line::new("BBR", vec![(0.0, 1.0)]),
                Line::new("CUBIC", vec![(0.0, 2.0)]),
                Line::new("", vec![(0.0, 0.9), (0.0, 1.1)]).colour_of("BBR"),
                Line::new("", vec![(0.0, 3.0)]),
            ],
        );
        let keys = figure_keys(&figure);
        let assigned = Colours::default().assign(&keys);
        assert_eq!(assigned[2], assigned[0]);
        assert_ne!(assigned[3], assigned[0]);
        assert_ne!(assigned[3], assigned[1]);
    }
}
