//! The HTML page: one self-contained file with inline CSS and inline SVG,
//! readable offline, without JavaScript, and printable.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::chart::render_svg_with;
use crate::colours::Colours;
use crate::format::format_with_unit;
use crate::model::{Cell, Figure, Report, Section, Table, Verdict, VerdictStatus};

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

const STYLE: &str = r#"
:root {
  --ink: #212529; --muted: #555b61; --rule: #dee2e6; --page: #f4f5f7;
  --reproduced: #1a7f37; --partly: #9a6700; --differs: #c62828; --not-run: #6e7781;
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--page); color: var(--ink);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
}
header.report-header { background: #1d2a38; color: #fff; padding: 28px 32px 24px; }
header.report-header h1 { margin: 0 0 4px; font-size: 1.8em; font-weight: 650; }
header.report-header p { margin: 0; color: #c9d1d9; }
main { max-width: 1480px; margin: 0 auto; padding: 8px 24px 40px; }
nav.toc, section.report-section, footer.notes {
  background: #fff; border: 1px solid var(--rule); border-radius: 8px;
  padding: 18px 26px; margin: 20px 0;
}
nav.toc h2, footer.notes h2 { margin: 0 0 8px; font-size: 1.15em; }
nav.toc ol { margin: 0; padding-left: 1.6em; columns: 2 360px; column-gap: 40px; }
nav.toc li { margin: 3px 0; break-inside: avoid; }
nav.toc a { color: #0b5cad; text-decoration: none; }
nav.toc a:hover { text-decoration: underline; }
p.summary { margin: 10px 0 0; color: var(--muted); }
section.report-section h2 { margin: 0 0 6px; font-size: 1.4em; }
p.verdict { margin: 6px 0 10px; }
p.description { margin: 6px 0; max-width: 75em; }
details.description { margin: 0 0 6px; max-width: 75em; }
details.description summary { cursor: pointer; color: #0b5cad; }
.badge {
  display: inline-block; padding: 1px 10px; margin-right: 8px; border-radius: 999px;
  color: #fff; font-size: 0.82em; font-weight: 650; letter-spacing: 0.02em; white-space: nowrap;
}
nav.toc .badge { font-size: 0.72em; margin: 0 0 0 8px; vertical-align: 1px; }
.verdict-reproduced { background: var(--reproduced); }
.verdict-partly { background: var(--partly); }
.verdict-differs { background: var(--differs); }
.verdict-not-run { background: var(--not-run); }
div.figures { display: flex; flex-wrap: wrap; gap: 18px; margin: 14px 0 6px; }
figure.figure { margin: 0; max-width: 100%; border: 1px solid #eceef0; border-radius: 6px; padding: 4px; }
figure.figure svg { display: block; max-width: 100%; height: auto; }
p.figure-error { color: var(--differs); font-weight: 600; }
table.data { border-collapse: collapse; margin: 0 0 8px; font-size: 0.95em; }
p.table-caption { font-weight: 600; margin: 16px 0 6px; }
table.data th, table.data td { padding: 4px 14px; border-bottom: 1px solid var(--rule); text-align: left; }
table.data th { background: #f6f8fa; border-bottom: 2px solid #c8ccd0; font-weight: 600; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.data tbody tr:nth-child(even) td { background: #fbfbfc; }
footer.notes ul { margin: 0; padding-left: 1.2em; }
dl.provenance { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 0; font-size: 0.9em; opacity: 0.85; }
dl.provenance dt { font-weight: 600; }
dl.provenance dd { margin: 0; overflow-wrap: anywhere; }
footer.notes li { margin: 4px 0; }
footer.generator { color: var(--muted); font-size: 0.85em; text-align: center; padding: 0 0 24px; }
@media print {
  body { background: #fff; }
  nav.toc, section.report-section { break-inside: avoid; border: none; }
}
"#;

/// Renders the report as one self-contained HTML5 page: inline CSS, every
/// figure as inline SVG, a table of contents linking the sections, and no
/// scripts or external resources, so the file can be mailed or archived.
///
/// All text from the model is escaped. A figure that cannot be drawn (see
/// [`render_svg`](crate::render_svg)) becomes a visible error message in place of the chart,
/// so the rest of the report still renders. The output is a pure function
/// of the input: no timestamps, no randomness.
///
/// Structure, relied on by the browser check in `tests/browser`: each section
/// is `<section id=".." class="report-section" data-figures="N">`, and each
/// of its N figures is a `<figure class="figure">` holding one `<svg>`.
pub fn render_html(report: &Report) -> String {
    let ids = section_ids(&report.sections);
    let mut html = String::with_capacity(64 * 1024);
    html.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(html, "<title>{}</title>", escape(&report.title));
    let _ = writeln!(html, "<style>{STYLE}</style>\n</head>\n<body>");

    html.push_str("<header class=\"report-header\">\n");
    let _ = writeln!(html, "<h1>{}</h1>", escape(&report.title));
    if !report.subtitle.is_empty() {
        let _ = writeln!(
            html,
            "<p class=\"subtitle\">{}</p>",
            escape(&report.subtitle)
        );
    }
    if !report.provenance.is_empty() {
        html.push_str("<dl class=\"provenance\">\n");
        for (key, value) in &report.provenance {
            let _ = writeln!(html, "<dt>{}</dt><dd>{}</dd>", escape(key), escape(value));
        }
        html.push_str("</dl>\n");
    }
    html.push_str("</header>\n<main>\n");

    write_toc(&mut html, report, &ids);
    let colours = Colours::for_report(report);
    for (section, id) in report.sections.iter().zip(&ids) {
        write_section(&mut html, section, id, &colours);
    }
    if !report.notes.is_empty() {
        html.push_str("<footer class=\"notes\">\n<h2>Notes</h2>\n<ul>\n");
        for note in &report.notes {
            let _ = writeln!(html, "<li>{}</li>", escape(note));
        }
        html.push_str("</ul>\n</footer>\n");
    }
    html.push_str("</main>\n<footer class=\"generator\">Generated by bbrlab-report.</footer>\n");
    html.push_str("</body>\n</html>\n");
    html
}

/// Anchors that are valid, unique and stable: the caller's id when usable.
fn section_ids(sections: &[Section]) -> Vec<String> {
    let mut seen = HashSet::new();
    sections
        .iter()
        .enumerate()
        .map(|(i, section)| {
            let cleaned: String = section
                .id
                .trim()
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect();
            let mut id = if cleaned.is_empty() {
                format!("section-{}", i + 1)
            } else {
                cleaned
            };
            let base = id.clone();
            let mut n = 2;
            while !seen.insert(id.clone()) {
                id = format!("{base}-{n}");
                n += 1;
            }
            id
        })
        .collect()
}

fn badge(status: VerdictStatus) -> String {
    format!(
        "<span class=\"badge verdict-{}\">{}</span>",
        status.slug(),
        escape(status.label())
    )
}

fn write_toc(html: &mut String, report: &Report, ids: &[String]) {
    html.push_str("<nav class=\"toc\">\n<h2>Contents</h2>\n");
    if report.sections.is_empty() {
        html.push_str("<p>This report has no sections.</p>\n</nav>\n");
        return;
    }
    html.push_str("<ol>\n");
    for (section, id) in report.sections.iter().zip(ids) {
        let _ = write!(
            html,
            "<li><a href=\"#{}\">{}</a>",
            escape(id),
            escape(&section.title)
        );
        if let Some(verdict) = &section.verdict {
            html.push_str(&badge(verdict.status));
        }
        html.push_str("</li>\n");
    }
    html.push_str("</ol>\n");
    // A one-line tally answers "how much of the paper holds?" at a glance.
    let counts: Vec<String> = VerdictStatus::ALL
        .iter()
        .filter_map(|&status| {
            let n = report
                .sections
                .iter()
                .filter(|s| s.verdict.as_ref().map(|v| v.status) == Some(status))
                .count();
            (n > 0).then(|| format!("{n} {}", status.label().to_lowercase()))
        })
        .collect();
    let sections = report.sections.len();
    let _ = write!(
        html,
        "<p class=\"summary\">{sections} section{}",
        if sections == 1 { "" } else { "s" }
    );
    if !counts.is_empty() {
        let _ = write!(html, ": {}", escape(&counts.join(", ")));
    }
    html.push_str(".</p>\n</nav>\n");
}

fn write_section(html: &mut String, section: &Section, id: &str, colours: &Colours) {
    let _ = writeln!(
        html,
        "<section id=\"{}\" class=\"report-section\" data-figures=\"{}\">",
        escape(id),
        section.figures.len()
    );
    let _ = writeln!(html, "<h2>{}</h2>", escape(&section.title));
    if let Some(Verdict { status, text }) = &section.verdict {
        let _ = writeln!(
            html,
            "<p class=\"verdict\">{}{}</p>",
            badge(*status),
            escape(text)
        );
    }
    write_description(html, &section.description);
    if !section.figures.is_empty() {
        html.push_str("<div class=\"figures\">\n");
        for figure in &section.figures {
            write_figure(html, figure, colours);
        }
        html.push_str("</div>\n");
    }
    for table in &section.tables {
        write_table(html, table);
    }
    html.push_str("</section>\n");
}

/// Descriptions longer than this many characters show their first
/// sentence and fold the rest.
const FOLD_DESCRIPTION: usize = 360;

/// A section's description after its verdict: short ones whole; long ones
/// by their first sentence, with the rest folded under "Details".
fn write_description(html: &mut String, description: &str) {
    let paragraphs: Vec<&str> = description
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let total: usize = paragraphs.iter().map(|p| p.len()).sum();
    if total <= FOLD_DESCRIPTION {
        for p in paragraphs {
            let _ = writeln!(html, "<p class=\"description\">{}</p>", escape(p));
        }
        return;
    }
    let first = paragraphs[0];
    let (lead, rest) = split_first_sentence(first);
    let _ = writeln!(html, "<p class=\"description\">{}</p>", escape(lead));
    html.push_str("<details class=\"description\"><summary>Details</summary>\n");
    if !rest.is_empty() {
        let _ = writeln!(html, "<p class=\"description\">{}</p>", escape(rest));
    }
    for p in &paragraphs[1..] {
        let _ = writeln!(html, "<p class=\"description\">{}</p>", escape(p));
    }
    html.push_str("</details>\n");
}

/// The first sentence of `text` (ending at ". " after at least 40
/// characters) and the rest.
fn split_first_sentence(text: &str) -> (&str, &str) {
    let from = text.char_indices().nth(40).map_or(text.len(), |(i, _)| i);
    match text[from..].find(". ") {
        Some(i) => {
            let end = from + i + 1;
            (&text[..end], text[end..].trim_start())
        }
        None => (text, ""),
    }
}

fn write_figure(html: &mut String, figure: &Figure, colours: &Colours) {
    match render_svg_with(figure, colours) {
        Ok(svg) => {
            // The width cap keeps the SVG's intrinsic size on wide screens
            // while `max-width: 100%` in the style sheet shrinks it on narrow ones.
            let _ = writeln!(
                html,
                "<figure class=\"figure\" style=\"width: {}px\" data-series-colours=\"{}\">\n{}</figure>",
                figure.width + 10,
                colours.key_colours(figure).join(" "),
                svg.trim_end()
            );
        }
        Err(error) => {
            let _ = writeln!(
                html,
                "<figure class=\"figure figure-failed\">\n<p class=\"figure-error\">Figure “{}” could not be drawn: {}</p>\n</figure>",
                escape(&figure.title),
                escape(&error.to_string())
            );
        }
    }
}

fn write_table(html: &mut String, table: &Table) {
    // The caption sits outside the table: a <caption> is only as wide as
    // the table and wraps awkwardly above narrow "paper vs ours" tables.
    if table.caption.is_empty() {
        html.push_str("<table class=\"data\">\n");
    } else {
        let caption = escape(&table.caption);
        let _ = writeln!(
            html,
            "<p class=\"table-caption\">{caption}</p>\n<table class=\"data\" aria-label=\"{caption}\">"
        );
    }
    let columns = table
        .rows
        .iter()
        .map(Vec::len)
        .chain(std::iter::once(table.header.len()))
        .max()
        .unwrap_or(0);
    if !table.header.is_empty() {
        html.push_str("<thead><tr>");
        for i in 0..columns {
            let heading = table.header.get(i).map(String::as_str).unwrap_or("");
            let _ = write!(html, "<th scope=\"col\">{}</th>", escape(heading));
        }
        html.push_str("</tr></thead>\n");
    }
    html.push_str("<tbody>\n");
    for row in &table.rows {
        html.push_str("<tr>");
        for i in 0..columns {
            match row.get(i).unwrap_or(&Cell::Empty) {
                Cell::Text(text) => {
                    let _ = write!(html, "<td>{}</td>", escape(text));
                }
                Cell::Number {
                    value,
                    format,
                    unit,
                } => {
                    let _ = write!(
                        html,
                        "<td class=\"num\">{}</td>",
                        escape(&format_with_unit(*value, *format, unit))
                    );
                }
                Cell::Empty => html.push_str("<td></td>"),
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_descriptions_fold_after_their_first_sentence() {
        let mut short = String::new();
        write_description(&mut short, "One short paragraph.");
        assert_eq!(short, "<p class=\"description\">One short paragraph.</p>\n");
        let long = format!(
            "The first sentence says what the experiment is about. {}\n\nA second paragraph.",
            "More detail follows here. ".repeat(20)
        );
        let mut html = String::new();
        write_description(&mut html, &long);
        assert!(html.starts_with(
            "<p class=\"description\">The first sentence says what the experiment is about.</p>\n<details"
        ));
        assert!(html.contains("<summary>Details</summary>"));
        assert!(html.contains("A second paragraph."));
        assert!(html.trim_end().ends_with("</details>"));
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn ids_are_sanitised_and_unique() {
        let sections = vec![
            Section::new("fig 3", "a"),
            Section::new("fig-3", "b"),
            Section::new("", "c"),
            Section::new("\"><script>", "d"),
        ];
        assert_eq!(
            section_ids(&sections),
            vec!["fig-3", "fig-3-2", "section-3", "---script-"]
        );
    }
}
