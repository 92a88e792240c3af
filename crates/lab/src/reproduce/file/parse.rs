//! Reading a file: TOML errors with the line and key that caused them,
//! `extends` and `claims_from` resolved, every reference (measure ids,
//! axes, claims) checked before any run is read.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;

/// A TOML error of `name`, with its line and column.
///
/// A measure's fields are read through its `kind` tag, and the TOML parser
/// then places an unknown value at the start of the measure's table; the
/// error names instead the line that writes the value and its key
/// (`op = "power"`: `x.toml: op (line 14): unknown variant `power`, ...`).
pub(super) fn toml_error(name: &str, text: &str, e: &toml::de::Error) -> anyhow::Error {
    let message = e.message().trim();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let variant = message
                .strip_prefix("unknown variant `")
                .and_then(|rest| rest.split('`').next())
                .or_else(|| {
                    // A string where a number belongs: named by its key.
                    message
                        .strip_prefix("invalid type: string \"")
                        .and_then(|rest| rest.split('"').next())
                });
            if let Some(variant) = variant {
                let quoted = format!("\"{variant}\"");
                let at_span = text.lines().nth(line - 1).unwrap_or("");
                let written = text
                    .lines()
                    .enumerate()
                    .skip(line - 1)
                    .find(|(_, l)| l.contains(&quoted));
                if let (false, Some((i, l))) = (at_span.contains(&quoted), written) {
                    let lead = l[..l.find(&quoted).unwrap_or(0)].trim_end();
                    let lead = lead.strip_suffix('=').unwrap_or(lead).trim_end();
                    let key: String = lead
                        .chars()
                        .rev()
                        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '"'))
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    return anyhow::anyhow!("{name}: {key} (line {}): {message}", i + 1);
                }
            }
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            anyhow::anyhow!("{name} (line {line}, column {column}): {message}")
        }
        None => anyhow::anyhow!("{name}: {message}"),
    }
}

/// `name: key (line N): message`, the line the first where `needle` appears.
pub(super) fn key_error(
    name: &str,
    text: &str,
    key: &str,
    needle: &str,
    message: String,
) -> anyhow::Error {
    match text.lines().position(|l| l.contains(needle)) {
        Some(i) => anyhow::anyhow!("{name}: {key} (line {}): {message}", i + 1),
        None => anyhow::anyhow!("{name}: {key}: {message}"),
    }
}

/// The SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

impl ExperimentFile {
    /// [`ExperimentFile::parse`] of a file `depth` references deep (an
    /// extended file or one whose claims another judges).
    pub(super) fn parse_within(
        name: &str,
        text: &str,
        dir: Option<&Path>,
        depth: usize,
    ) -> anyhow::Result<ExperimentFile> {
        let spec: Spec = toml::from_str(text).map_err(|e| toml_error(name, text, &e))?;
        let (spec, hashed) = shared::resolve(name, text, dir, depth, spec)?;
        // An error at the line where `key` gives the quoted value `value`.
        let quoted_error = |key: &str, value: &str, message: String| {
            key_error(name, text, key, &format!("\"{value}\""), message)
        };
        let source = match (&spec.scenario, &spec.sweep) {
            (Some(s), None) => SweepSource::Scenarios(s.clone()),
            (None, Some(s)) => SweepSource::Beside(dir.unwrap_or(Path::new(".")).join(s)),
            _ => anyhow::bail!(
                "{name}: give exactly one of `scenario` (a sweep file under the scenarios directory) \
                 and `sweep` (a sweep file beside this one)"
            ),
        };
        let mut ids: BTreeMap<&str, &Measure> = BTreeMap::new();
        for m in &spec.measures {
            if ids.insert(m.id(), m).is_some() {
                return Err(quoted_error(
                    "measure.id",
                    m.id(),
                    format!("`{}` is declared twice", m.id()),
                ));
            }
            if let Measure::RunWindow {
                from_run,
                to_run,
                bin_s,
                ..
            } = m
            {
                if !(0.0 <= *from_run && from_run < to_run && *to_run <= 1.0) {
                    return Err(quoted_error(
                        "measure.from_run",
                        m.id(),
                        format!(
                            "`{}` needs 0 <= from_run < to_run <= 1 (fractions of the run), \
                             not {from_run} and {to_run}",
                            m.id()
                        ),
                    ));
                }
                if bin_s.is_some_and(|b| b.is_nan() || b <= 0.0) {
                    return Err(quoted_error(
                        "measure.bin_s",
                        m.id(),
                        format!("`{}` needs a positive bin_s (seconds)", m.id()),
                    ));
                }
            }
            if let Some(of) = m.refers_to() {
                let ok = ids.get(of).is_some_and(|o| o.by().is_some());
                if !ok {
                    return Err(quoted_error(
                        "measure.of",
                        m.id(),
                        format!(
                            "`{of}` must be a measure taken `by` an axis, declared before `{}`",
                            m.id()
                        ),
                    ));
                }
            }
            if let Measure::Across {
                of, by: Some(axis), ..
            } = m
            {
                if ids.get(of.as_str()).and_then(|o| o.by()) == Some(axis.as_str()) {
                    return Err(quoted_error(
                        "measure.by",
                        m.id(),
                        format!(
                            "`{of}` is taken along `{axis}` already; an across taken `by` an \
                             axis needs a measure along another one"
                        ),
                    ));
                }
            }
            // Taken `by` an axis, a ratio or difference sets that axis at
            // each value on both sides: a side that also fixes it would be
            // overridden without a word (BBR over BBR, 1.00x).
            if let Measure::Ratio {
                a,
                b,
                by: Some(axis),
                ..
            }
            | Measure::Difference {
                a,
                b,
                by: Some(axis),
                ..
            } = m
            {
                if let Some((side, value)) = [("a", a), ("b", b)]
                    .into_iter()
                    .find_map(|(side, at)| at.get(axis).map(|v| (side, v)))
                {
                    return Err(quoted_error(
                        "measure.by",
                        m.id(),
                        format!(
                            "`{}` is taken by `{axis}`, which sets `{axis}` on both sides at \
                             each value, but its `{side}` fixes `{axis} = {value:?}`: drop \
                             `{axis}` from `{side}`, or take it by another axis",
                            m.id()
                        ),
                    ));
                }
            }
            let one_numbers: Vec<&String> = match m {
                Measure::Least { of, .. } | Measure::Most { of, .. } => of.iter().collect(),
                Measure::Condition { a, b, .. } => vec![a, b],
                Measure::AcrossAxis { of, .. } => vec![of],
                _ => Vec::new(),
            };
            {
                for o in one_numbers {
                    let one_number = ids.get(o.as_str()).is_some_and(|o| o.by().is_none());
                    if !one_number {
                        return Err(quoted_error(
                            "measure.of",
                            m.id(),
                            format!(
                                "`{o}` must be a one-number measure declared before `{}`",
                                m.id()
                            ),
                        ));
                    }
                }
            }
            let of_conditions: Vec<&String> = match m {
                Measure::All { of, .. } => of.iter().collect(),
                Measure::Each { of, .. } | Measure::Held { of, .. } => vec![of],
                Measure::PerValue { of, .. } => vec![of],
                Measure::Relabel { of, .. } => vec![of],
                _ => Vec::new(),
            };
            {
                for o in of_conditions {
                    let conditions = ids.get(o.as_str()).is_some_and(|o| o.gives_conditions());
                    if !conditions {
                        return Err(quoted_error("measure.of", m.id(), format!(
                                "`{o}` must be a condition measure (compare, direction, count, \
                                 condition, all, each, per_value, near, relabel) declared before `{}`",
                                m.id()
                            ),
                        ));
                    }
                }
            }
            if let Measure::Named { name: n, .. } = m {
                if named(n).is_none() {
                    return Err(key_error(
                        name,
                        text,
                        "measure.name",
                        &format!("\"{n}\""),
                        format!("no named measure `{n}`; known: {}", NAMED.join(", ")),
                    ));
                }
            }
            if let Measure::Quantile { q, .. } = m {
                if !(0.0..=1.0).contains(q) {
                    return Err(quoted_error(
                        "measure.q",
                        m.id(),
                        format!("expected 0 <= q <= 1, got {q}"),
                    ));
                }
            }
            // `per` of the quantity and of every quantity it is `over`.
            let mut quantity = m.quantity();
            let mut key = "measure.of".to_string();
            while let Some(q) = quantity {
                if let Some(per) = q.per.filter(|p| !(p.is_finite() && *p > 0.0)) {
                    return Err(quoted_error(
                        &format!("{key}.per"),
                        m.id(),
                        format!("expected a positive number to divide by, got {per}"),
                    ));
                }
                quantity = q.over.as_deref();
                key.push_str(".over");
            }
            if m.series().iter().any(|s| s.is_link_controller()) {
                return Err(quoted_error(
                    "measure.series.source",
                    m.id(),
                    "`source = \"controller\"` needs a flow's index, not `\"link\"`".into(),
                ));
            }
            if let Measure::Arithmetic { a, b, by, .. } = m {
                for (key, operand) in [("measure.a", a), ("measure.b", b)] {
                    let Operand::Measure(o) = operand else {
                        continue;
                    };
                    let fits = ids.get(o.as_str()).is_some_and(|o| {
                        !o.gives_conditions() && (o.by().is_none() || o.by() == by.as_deref())
                    });
                    if !fits {
                        let what = match by {
                            Some(axis) => {
                                format!("a one-number measure or one taken `by = \"{axis}\"`")
                            }
                            None => "a one-number measure".to_string(),
                        };
                        return Err(quoted_error(
                            key,
                            m.id(),
                            format!("`{o}` must be {what}, declared before `{}`", m.id()),
                        ));
                    }
                }
            }
        }
        let by_axis = |id: &str| ids.get(id).map(|m| m.by().is_some());
        for t in &spec.tables {
            let needle = format!("\"{}\"", t.title);
            let table_error =
                |key: &str, message: String| Err(key_error(name, text, key, &needle, message));
            let rows_of_values = t.rows.is_some() || matches!(t.by, Some(Headers::Several(_)));
            match (&t.by, &t.rows) {
                (Some(Headers::One(_)), None) => {}
                (Some(Headers::Several(axes)), None) => {
                    if t.then.is_some() {
                        return table_error(
                            "table.then",
                            "`then` needs `by` to be one axis".into(),
                        );
                    }
                    if t.first.list().len() != axes.len() {
                        return table_error(
                            "table.first",
                            format!(
                                "{} header(s) in `first` for {} axes in `by`",
                                t.first.list().len(),
                                axes.len()
                            ),
                        );
                    }
                }
                (None, Some(rows)) => {
                    if t.then.is_some() {
                        return table_error("table.then", "`then` needs `by`, not `rows`".into());
                    }
                    let headers = t.first.list().len();
                    if let Some(r) = rows.iter().find(|r| r.cells.len() != headers) {
                        return table_error(
                            "table.rows.cells",
                            format!(
                                "a row has {} cells ({}) for {headers} header(s) in `first`",
                                r.cells.len(),
                                r.cells.join(", ")
                            ),
                        );
                    }
                }
                _ => {
                    return table_error(
                        "table.by",
                        "give exactly one of `by` (an axis) and `rows`".into(),
                    )
                }
            }
            for c in &t.columns {
                let (want, what) = if rows_of_values {
                    (
                        Some(false),
                        "a one-number measure (a table with `rows` or several axes `by`)",
                    )
                } else {
                    (Some(true), "a measure taken `by` an axis")
                };
                if by_axis(&c.measure) != want {
                    return Err(quoted_error(
                        "table.columns.measure",
                        &c.measure,
                        format!("`{}` must be {what}", c.measure),
                    ));
                }
                if c.minus.is_some() && rows_of_values {
                    return Err(quoted_error(
                        "table.columns.minus",
                        &c.measure,
                        "`minus` needs a table `by` one axis".into(),
                    ));
                }
            }
        }
        for f in &spec.figures {
            let ok = match &f.reference {
                None => true,
                Some(r) => match (&r.at, r.y, &r.measure) {
                    (Some(_), None, None) => f.groups.is_none(),
                    (None, Some(_), None) | (None, None, Some(_)) => true,
                    _ => false,
                },
            };
            if !ok {
                return Err(quoted_error(
                    "figure.reference",
                    &f.title,
                    "give exactly one of `at` (an axis value; not with `groups`), `y` (a value) \
                     and `measure` (a one-number measure)"
                        .into(),
                ));
            }
            if let Some(m) = f.reference.as_ref().and_then(|r| r.measure.as_ref()) {
                if !ids
                    .get(m.as_str())
                    .is_some_and(|m| m.by().is_none() && !m.gives_conditions())
                {
                    return Err(quoted_error(
                        "figure.reference.measure",
                        &f.title,
                        format!("`{m}` must be a one-number measure"),
                    ));
                }
            }
        }
        for t in &spec.timelines {
            let from = t.from_s.unwrap_or(f64::NEG_INFINITY);
            let to = t.to_s.unwrap_or(f64::INFINITY);
            if from.is_nan() || to.is_nan() || from >= to {
                return Err(quoted_error(
                    "timeline.to_s",
                    &t.title,
                    format!("expected from_s < to_s, got {from} and {to}"),
                ));
            }
            for l in &t.lines {
                if l.series.is_link_controller() {
                    return Err(quoted_error(
                        "timeline.lines.series.source",
                        &l.label,
                        "`source = \"controller\"` needs a flow's index, not `\"link\"`".into(),
                    ));
                }
                if l.rate_per_s.is_some_and(|r| r.is_nan() || r <= 0.0) {
                    return Err(quoted_error(
                        "timeline.lines.rate_per_s",
                        &l.label,
                        "expected a positive number of seconds".into(),
                    ));
                }
            }
        }
        let is_mean = |id: &str| {
            ids.get(id).is_some_and(|m| {
                matches!(
                    m,
                    Measure::Mean { by: Some(_), .. } | Measure::Recorded { by: Some(_), .. }
                )
            })
        };
        for t in spec.tables.iter().filter(|t| t.then.is_some()) {
            if let Some(c) = t.columns.iter().find(|c| !is_mean(&c.measure)) {
                return Err(quoted_error(
                    "table.columns.measure",
                    &c.measure,
                    format!(
                        "a table with `then` needs `mean` measures; `{}` is not one",
                        c.measure
                    ),
                ));
            }
        }
        for f in spec.figures.iter().filter(|f| f.groups.is_some()) {
            if !is_mean(&f.measure) {
                return Err(quoted_error(
                    "figure.measure",
                    &f.measure,
                    format!(
                        "a figure with `groups` needs a `mean` measure; `{}` is not one",
                        f.measure
                    ),
                ));
            }
        }
        for f in &spec.figures {
            if by_axis(&f.measure) != Some(true) {
                return Err(quoted_error(
                    "figure.measure",
                    &f.measure,
                    format!("`{}` must be a measure taken `by` an axis", f.measure),
                ));
            }
        }
        if let Some(c) = spec.curves.iter().find(|c| !is_mean(&c.measure)) {
            return Err(quoted_error(
                "curve.measure",
                &c.measure,
                format!(
                    "`{}` must be a `mean` measure taken `by` an axis",
                    c.measure
                ),
            ));
        }
        for t in &spec.trees {
            let tree = ids.get(t.measure.as_str()).is_some_and(
                |m| matches!(m, Measure::Named { name: n, .. } if n == "decision_tree"),
            );
            if !tree {
                return Err(quoted_error(
                    "tree.measure",
                    &t.title,
                    format!(
                        "`{}` must be a named measure of name \"decision_tree\"",
                        t.measure
                    ),
                ));
            }
        }
        let mut claims = Vec::new();
        for c in &spec.claims {
            if c.needs.is_some() {
                return Err(quoted_error(
                    "claim.needs",
                    &c.id,
                    format!(
                        "`{}`: an experiment file's claim is judged on its `measure`; a claim \
                         no experiment judges goes in the suite's claims-not-run file",
                        c.id
                    ),
                ));
            }
            if c.measure.is_empty() {
                return Err(quoted_error(
                    "claim.measure",
                    &c.id,
                    format!("`{}` needs `measure`: the measure it is judged on", c.id),
                ));
            }
            match by_axis(&c.measure) {
                None => {
                    return Err(quoted_error(
                        "claim.measure",
                        &c.id,
                        format!("no measure `{}`", c.measure),
                    ))
                }
                Some(true) => {
                    return Err(quoted_error(
                        "claim.measure",
                        &c.id,
                        format!(
                            "`{}` is taken along an axis; a claim needs one number or conditions",
                            c.measure
                        ),
                    ))
                }
                Some(false) => {}
            }
            if let Some(unmet) = c.precondition.as_ref().and_then(|p| p.unmet.as_ref()) {
                for id in placeholders(unmet) {
                    if !ids
                        .get(id)
                        .is_some_and(|m| m.by().is_none() && !m.gives_conditions())
                    {
                        return Err(key_error(
                            name,
                            text,
                            "claim.precondition.unmet",
                            &format!("{{{id}}}"),
                            format!("`{{{id}}}` must name a one-number measure"),
                        ));
                    }
                }
            }
            if let Some(p) = &c.precondition {
                let conditions = ids
                    .get(p.measure.as_str())
                    .is_some_and(|m| m.gives_conditions());
                if !conditions {
                    return Err(quoted_error(
                        "claim.precondition.measure",
                        &c.id,
                        format!(
                            "`{}` must be a condition measure (compare, direction, count, \
                             condition, all, each)",
                            p.measure
                        ),
                    ));
                }
            }
            claims.push((
                c.declare(),
                c.measure.clone(),
                c.precondition.as_ref().map(|p| p.measure.clone()),
            ));
        }
        let recorded = RecordedTable::load_all(name, text, &spec.measures)?;
        Ok(ExperimentFile {
            name: name.to_string(),
            sha256: sha256_hex(&hashed),
            spec,
            source,
            claims,
            recorded,
        })
    }
}
