//! Experiment files that share what they declare: a file that `extends`
//! another takes its measures, tables, figures and claims (a second sweep
//! of the same shape, judged the same way), a file may take another's
//! measures with an axis renamed (`[[measures_from]]`: a sweep over
//! another axis, measured the same way), and a file may judge claims
//! declared in others (`claims_from`), naming those it judges and their
//! order in `judge`. A claim or a measure is so declared once however many
//! experiments use it (docs/EXPERIMENTS.md, "Files that share").
//!
//! A suite's file (compiled in) refers to another suite file beside it; a
//! file read from disk to a file beside it on disk. The referring file's
//! hash covers the files it refers to, so a shared tolerance cannot change
//! unseen.

use std::path::Path;

use anyhow::Context;

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{key_error, ClaimSpec, ExperimentFile, Measure, MeasuresFrom, Spec};
use crate::reproduce::Entry;

/// How deep references may nest: a file, the file it refers to, and
/// that file's own references (a cycle ends here).
const DEEPEST: usize = 2;

/// `spec` (of file `name`, `text`, in `dir`) with what it takes from the
/// files it refers to, and the bytes its hash covers: its own followed by
/// those of each file it refers to.
pub(super) fn resolve(
    name: &str,
    text: &str,
    dir: Option<&Path>,
    depth: usize,
    mut spec: Spec,
) -> anyhow::Result<(Spec, Vec<u8>)> {
    let mut hashed = text.as_bytes().to_vec();
    let refers =
        spec.extends.is_some() || !spec.claims_from.is_empty() || !spec.measures_from.is_empty();
    if refers && depth >= DEEPEST {
        anyhow::bail!(
            "{name}: refers to other files {depth} references deep; files that share refer \
             at most {DEEPEST} deep (a cycle of references?)"
        );
    }
    // Taken measures come before the file's own, and an extended file's
    // before both.
    let mut taken: Vec<Measure> = Vec::new();
    let mut taken_from: Vec<u8> = Vec::new();
    for from in spec.measures_from.clone() {
        let (other, other_text) = referenced(name, text, dir, "measures_from.file", &from.file)?;
        ExperimentFile::parse_within(&other, &other_text, dir, depth + 1)
            .with_context(|| format!("{name}: measures_from `{}`", from.file))?;
        taken.extend(measures_taken(name, text, &other, &other_text, &from)?);
        taken_from.extend_from_slice(other_text.as_bytes());
    }
    taken.append(&mut spec.measures);
    spec.measures = taken;
    if let Some(base) = spec.extends.clone() {
        let (base_name, base_text) = referenced(name, text, dir, "extends", &base)?;
        let parsed = ExperimentFile::parse_within(&base_name, &base_text, dir, depth + 1)
            .with_context(|| format!("{name}: extends `{base}`"))?;
        if parsed.spec.extends.is_some() {
            return Err(key_error(
                name,
                text,
                "extends",
                &format!("\"{base}\""),
                format!("`{base}` extends another file itself; extend the file it extends"),
            ));
        }
        spec = extended(spec, parsed.spec);
        hashed.extend_from_slice(base_text.as_bytes());
    }
    hashed.append(&mut taken_from);
    let mut shared: Vec<ClaimSpec> = Vec::new();
    for file in spec.claims_from.clone() {
        let (other, other_text) = referenced(name, text, dir, "claims_from", &file)?;
        let parsed = ExperimentFile::parse_within(&other, &other_text, dir, depth + 1)
            .with_context(|| format!("{name}: claims_from `{file}`"))?;
        shared.extend(parsed.spec.claims);
        hashed.extend_from_slice(other_text.as_bytes());
    }
    match spec.judge.clone() {
        None if !spec.claims_from.is_empty() => {
            return Err(key_error(
                name,
                text,
                "claims_from",
                "claims_from",
                "`claims_from` needs `judge`: the ids of the claims judged here, in order".into(),
            ))
        }
        None => {}
        Some(ids) => {
            let mut judged: Vec<ClaimSpec> = Vec::new();
            for id in &ids {
                let needle = format!("\"{id}\"");
                if judged.iter().any(|c| &c.id == id) {
                    return Err(key_error(
                        name,
                        text,
                        "judge",
                        &needle,
                        format!("`{id}` is listed twice"),
                    ));
                }
                let Some(claim) = spec.claims.iter().chain(&shared).find(|c| &c.id == id) else {
                    return Err(key_error(
                        name,
                        text,
                        "judge",
                        &needle,
                        format!(
                            "no claim `{id}` in this file, the file it extends or its \
                             claims_from files"
                        ),
                    ));
                };
                judged.push(claim.clone());
            }
            spec.claims = judged;
        }
    }
    Ok((spec, hashed))
}

/// The measures `from.ids` of file `other` (text `other_text`), in that
/// order, with `from.axes` renamed; errors name file `name`'s key.
fn measures_taken(
    name: &str,
    text: &str,
    other: &str,
    other_text: &str,
    from: &MeasuresFrom,
) -> anyhow::Result<Vec<Measure>> {
    let table: toml::Table =
        toml::from_str(other_text).with_context(|| format!("{name}: measures_from `{other}`"))?;
    let written: Vec<&toml::Table> = table
        .get("measure")
        .and_then(toml::Value::as_array)
        .map(|a| a.iter().filter_map(toml::Value::as_table).collect())
        .unwrap_or_default();
    let mut renamed_any: BTreeMap<&str, bool> =
        from.axes.keys().map(|k| (k.as_str(), false)).collect();
    let mut taken = Vec::new();
    for id in &from.ids {
        let needle = format!("\"{id}\"");
        let Some(measure) = written
            .iter()
            .find(|m| m.get("id").and_then(toml::Value::as_str) == Some(id.as_str()))
        else {
            return Err(key_error(
                name,
                text,
                "measures_from.ids",
                &needle,
                format!("no measure `{id}` in `{}`", from.file),
            ));
        };
        let mut value = toml::Value::Table((*measure).clone());
        rename_axes(&mut value, &from.axes, &mut renamed_any);
        let measure = Measure::deserialize(value).map_err(|e| {
            key_error(
                name,
                text,
                "measures_from.ids",
                &needle,
                format!(
                    "measure `{id}` of `{}` with its axes renamed: {e}",
                    from.file
                ),
            )
        })?;
        taken.push(measure);
    }
    if let Some((axis, _)) = renamed_any.iter().find(|(_, renamed)| !**renamed) {
        return Err(key_error(
            name,
            text,
            "measures_from.axes",
            &format!("\"{axis}\""),
            format!(
                "no measure taken from `{}` names the axis `{axis}`",
                from.file
            ),
        ));
    }
    Ok(taken)
}

/// `value` with every axis name of `axes` replaced, as a table key or a
/// whole string; `renamed` notes which names occurred.
fn rename_axes<'a>(
    value: &mut toml::Value,
    axes: &'a BTreeMap<String, String>,
    renamed: &mut BTreeMap<&'a str, bool>,
) {
    match value {
        toml::Value::String(s) => {
            if let Some((from, to)) = axes.get_key_value(s.as_str()) {
                renamed.insert(from.as_str(), true);
                *s = to.clone();
            }
        }
        toml::Value::Array(items) => items.iter_mut().for_each(|v| rename_axes(v, axes, renamed)),
        toml::Value::Table(table) => {
            let entries = std::mem::take(table);
            for (key, mut v) in entries {
                rename_axes(&mut v, axes, renamed);
                let key = match axes.get_key_value(key.as_str()) {
                    Some((from, to)) => {
                        renamed.insert(from.as_str(), true);
                        to.clone()
                    }
                    None => key,
                };
                table.insert(key, v);
            }
        }
        _ => {}
    }
}

/// `own` extending `base`: `base`'s measures, tables, figures, timelines,
/// curves, trees and claims first, its labels unless `own` names the value too,
/// its series need, and its description, `judge_at` and verdict text
/// unless `own` gives them.
fn extended(mut own: Spec, base: Spec) -> Spec {
    fn first<T>(base: Vec<T>, own: Vec<T>) -> Vec<T> {
        base.into_iter().chain(own).collect()
    }
    let mut labels = base.labels;
    labels.append(&mut own.labels);
    own.labels = labels;
    own.series |= base.series;
    if own.description.is_empty() {
        own.description = base.description;
    }
    if own.all_reproduced.is_empty() {
        own.all_reproduced = base.all_reproduced;
    }
    own.judge_at = own.judge_at.or(base.judge_at);
    own.measures = first(base.measures, own.measures);
    own.tables = first(base.tables, own.tables);
    own.figures = first(base.figures, own.figures);
    own.timelines = first(base.timelines, own.timelines);
    own.curves = first(base.curves, own.curves);
    own.trees = first(base.trees, own.trees);
    own.claims = first(base.claims, own.claims);
    own
}

/// The name and text of `file`, which `key` of file `name` refers to:
/// beside it on disk (`dir`), or, for a suite's file, the suite file
/// compiled in beside it.
fn referenced(
    name: &str,
    text: &str,
    dir: Option<&Path>,
    key: &str,
    file: &str,
) -> anyhow::Result<(String, String)> {
    let needle = format!("\"{file}\"");
    match dir {
        Some(dir) => {
            let path = dir.join(file);
            std::fs::read_to_string(&path)
                .map(|t| (path.display().to_string(), t))
                .map_err(|e| {
                    key_error(
                        name,
                        text,
                        key,
                        &needle,
                        format!("cannot read `{}`: {e}", path.display()),
                    )
                })
        }
        None => {
            let path = match Path::new(name).parent() {
                Some(p) if !p.as_os_str().is_empty() => format!("{}/{file}", p.display()),
                _ => file.to_string(),
            };
            suite_file(&path)
                .map(|t| (path.clone(), t.to_string()))
                .ok_or_else(|| {
                    key_error(
                        name,
                        text,
                        key,
                        &needle,
                        format!(
                            "no suite's experiment file `{path}` (a suite's file refers to \
                             another suite file beside it)"
                        ),
                    )
                })
        }
    }
}

/// The text of the suites' experiment file at repository path `path`.
fn suite_file(path: &str) -> Option<&'static str> {
    crate::reproduce::suites()
        .iter()
        .flat_map(|s| s.experiments.iter())
        .find_map(|e| match e {
            Entry::File(f) if f.path == path => Some(f.text),
            Entry::FileOn(r) if r.file.path == path => Some(r.file.text),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::super::sha256_hex;
    use super::*;

    /// A claim `id` with test `test`, judged on measure `one`.
    fn claim(id: &str, test: &str) -> String {
        format!(
            "\n[[claim]]\nid = \"{id}\"\npaper = \"own\"\nplace = \"p\"\nstatement = \"s\"\n\
             about = \"a\"\nmetric = \"m\"\nunit = \"\"\npaper_says = \"p\"\ntest = {{ {test} }}\n\
             tolerance_reason = \"r\"\norigin = \"project analysis\"\nmeasure = \"one\"\n"
        )
    }

    /// The measure `one`: the goodput of controller `cc`.
    fn one(cc: &str) -> String {
        format!(
            "\n[[measure]]\nid = \"one\"\nkind = \"mean\"\nof = {{ metric = \"goodput_bps\" }}\n\
             at = {{ cc = \"{cc}\" }}\n"
        )
    }

    /// The file the others refer to: two claims on its measure `one`.
    fn base() -> String {
        format!(
            "id = \"base\"\ntitle = \"Base\"\nsweep = \"none.toml\"\ndescription = \"From the base.\"\n\
             \n[labels]\na = \"A\"\n{}{}{}",
            one("a"),
            claim("base.one", "kind = \"point\", paper = 5.0"),
            claim("base.two", "kind = \"at_least\", bound = 5.0"),
        )
    }

    /// A fresh directory `bbrlab-shared-NAME-PID` holding `files`.
    fn beside(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("bbrlab-shared-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (file, text) in files {
            std::fs::write(dir.join(file), text).unwrap();
        }
        dir
    }

    fn parse(dir: &Path, file: &str) -> anyhow::Result<ExperimentFile> {
        ExperimentFile::load(&dir.join(file))
    }

    fn judged(f: &ExperimentFile) -> Vec<&str> {
        f.claims.iter().map(|(c, _, _)| c.id()).collect()
    }

    #[test]
    fn a_file_extends_another_and_judges_claims_declared_elsewhere() {
        let second = "extends = \"base.toml\"\nid = \"second\"\ntitle = \"Second\"\n\
                      sweep = \"other.toml\"\njudge = [\"base.two\"]\n";
        let third = format!(
            "id = \"third\"\ntitle = \"Third\"\nsweep = \"none.toml\"\nclaims_from = [\"base.toml\"]\n\
             judge = [\"third.own\", \"base.one\"]\n{}{}",
            one("b"),
            claim("third.own", "kind = \"direction\""),
        );
        let base = base();
        let dir = beside(
            "extends",
            &[
                ("base.toml", base.as_str()),
                ("second.toml", second),
                ("third.toml", third.as_str()),
            ],
        );
        let parsed = parse(&dir, "base.toml").unwrap();
        assert_eq!(judged(&parsed), ["base.one", "base.two"]);
        assert_eq!(parsed.sha256, sha256_hex(base.as_bytes()));
        // The base's measures, labels, description and claims, judged as listed.
        let f = parse(&dir, "second.toml").unwrap();
        assert_eq!((f.id(), judged(&f)), ("second", vec!["base.two"]));
        assert!(f.measure("one").is_some());
        assert_eq!(f.spec.description, "From the base.");
        assert_eq!(f.label("cc", "a"), "A");
        assert!(f.scenario_label().ends_with("other.toml"));
        assert_eq!(f.sha256, sha256_hex(format!("{second}{base}").as_bytes()));
        // Claims declared in another file, judged on this file's measure of
        // the same id, in the order of `judge`.
        let f = parse(&dir, "third.toml").unwrap();
        assert_eq!(judged(&f), ["third.own", "base.one"]);
        assert_eq!(f.claims[1].1, "one");
        assert_eq!(f.sha256, sha256_hex(format!("{third}{base}").as_bytes()));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_file_takes_another_files_measures_with_an_axis_renamed() {
        let own = format!(
            "id = \"o\"\ntitle = \"O\"\nsweep = \"none.toml\"\n\n[[measures_from]]\n\
             file = \"base.toml\"\nids = [\"one\"]\naxes = {{ cc = \"flow.0.cc\" }}\n\n\
             [[measure]]\nid = \"two\"\nkind = \"mean\"\nof = {{ metric = \"goodput_bps\" }}\n"
        );
        let base = base();
        let dir = beside(
            "measures-from",
            &[("base.toml", base.as_str()), ("o.toml", &own)],
        );
        let f = parse(&dir, "o.toml").unwrap();
        let ids: Vec<&str> = f.spec.measures.iter().map(Measure::id).collect();
        assert_eq!(ids, ["one", "two"], "taken measures come first");
        let Some(Measure::Mean { at, .. }) = f.measure("one") else {
            panic!("{:?}", f.measure("one"))
        };
        let keys: Vec<&str> = at.keys().map(String::as_str).collect();
        assert_eq!(keys, ["flow.0.cc"]);
        assert_eq!(at["flow.0.cc"], "a", "values that are not the axis stay");
        // Nothing else of the other file comes along.
        assert!(judged(&f).is_empty());
        assert_eq!(f.sha256, sha256_hex(format!("{own}{base}").as_bytes()));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_suite_file_measures_by_buffer_as_the_loss_sweep_does() {
        let path = "experiments/obbr/fig7-buffers.toml";
        let text = suite_file(path).expect("the obbr suite lists the buffer sweep's file");
        let f = ExperimentFile::parse(path, text, None).unwrap();
        assert_eq!(
            f.measure("goodput").and_then(Measure::by),
            Some("link.buffer")
        );
        assert_eq!(f.measure("falls").map(Measure::id), Some("falls"));
    }

    #[test]
    fn an_extending_file_takes_the_base_files_trees_first() {
        let spec = |text: &str| -> Spec { toml::from_str(text).unwrap() };
        let base = spec("id = \"b\"\ntitle = \"B\"\n[[tree]]\ntitle = \"Base\"\nmeasure = \"m\"\n");
        let own = spec("id = \"o\"\ntitle = \"O\"\n[[tree]]\ntitle = \"Own\"\nmeasure = \"m\"\n");
        let titles: Vec<String> = extended(own, base)
            .trees
            .into_iter()
            .map(|t| t.title)
            .collect();
        assert_eq!(titles, ["Base", "Own"]);
    }

    #[test]
    fn a_suite_file_extends_the_suite_file_beside_it() {
        let path = "experiments/obbr/fig7-fast-link.toml";
        let text = suite_file(path).expect("the obbr suite lists the fast link's file");
        let f = ExperimentFile::parse(path, text, None).unwrap();
        let ids = judged(&f);
        assert_eq!(ids.len(), 14);
        assert!(!ids.contains(&"obbr.fig7.per-mu-numbers"), "{ids:?}");
        let e = ExperimentFile::parse(
            "experiments/obbr/x.toml",
            "id = \"x\"\ntitle = \"X\"\nscenario = \"s.toml\"\nextends = \"nothing.toml\"\n",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("experiments/obbr/x.toml: extends (line 4): no suite's experiment file `experiments/obbr/nothing.toml`"),
            "{e}"
        );
    }

    #[test]
    fn bad_references_are_named_by_file_line_and_key() {
        let head = "id = \"x\"\ntitle = \"X\"\nsweep = \"none.toml\"\n";
        let cases = [
            // (file text, the error's start, what it says)
            (
                format!(
                    "{head}claims_from = [\"base.toml\"]\njudge = [\"base.one\", \"nothing\"]\n"
                ),
                "x.toml: judge (line 5)",
                "no claim `nothing` in this file",
            ),
            (
                format!(
                    "{head}claims_from = [\"base.toml\"]\njudge = [\"base.two\", \"base.two\"]\n"
                ),
                "x.toml: judge (line 5)",
                "`base.two` is listed twice",
            ),
            (
                format!("{head}claims_from = [\"base.toml\"]\n"),
                "x.toml: claims_from (line 4)",
                "`claims_from` needs `judge`",
            ),
            (
                format!("{head}claims_from = [\"base.toml\"]\njudge = [\"base.one\"]\n"),
                "x.toml: claim.measure (line 5)",
                "no measure `one`",
            ),
            (
                format!("{head}extends = \"missing.toml\"\n"),
                "x.toml: extends (line 4)",
                "cannot read",
            ),
            (
                format!("{head}extends = \"second.toml\"\n"),
                "x.toml: extends (line 4)",
                "`second.toml` extends another file itself",
            ),
            (
                format!(
                    "{head}[[measures_from]]\nfile = \"base.toml\"\nids = [\"one\", \"none\"]\n"
                ),
                "x.toml: measures_from.ids (line 6)",
                "no measure `none` in `base.toml`",
            ),
            (
                format!(
                    "{head}[[measures_from]]\nfile = \"base.toml\"\nids = [\"one\"]\n\
                     axes = {{ \"link.loss\" = \"link.buffer\" }}\n"
                ),
                "x.toml: measures_from.axes (line 7)",
                "no measure taken from `base.toml` names the axis `link.loss`",
            ),
            (
                format!("{head}[[measures_from]]\nfile = \"missing.toml\"\nids = [\"one\"]\n"),
                "x.toml: measures_from.file (line 5)",
                "cannot read",
            ),
            (
                format!(
                    "{head}[[measures_from]]\nfile = \"base.toml\"\nids = [\"one\"]\n{}",
                    one("b")
                ),
                "x.toml: measure.id",
                "`one` is declared twice",
            ),
            (
                format!("{head}claims_from = [\"loop.toml\"]\njudge = []\n"),
                "x.toml: claims_from `loop.toml`",
                "references deep",
            ),
        ];
        let second = "extends = \"base.toml\"\nid = \"s\"\ntitle = \"S\"\nsweep = \"n.toml\"\n";
        let looping = "id = \"l\"\ntitle = \"L\"\nsweep = \"n.toml\"\nclaims_from = [\"x.toml\"]\njudge = []\n";
        for (i, (text, start, says)) in cases.iter().enumerate() {
            let dir = beside(
                &format!("bad-{i}"),
                &[
                    ("base.toml", base().as_str()),
                    ("second.toml", second),
                    ("loop.toml", looping),
                    ("x.toml", text),
                ],
            );
            let e = format!("{:#}", parse(&dir, "x.toml").unwrap_err());
            let e = e.replace(&format!("{}/", dir.display()), "");
            assert!(e.starts_with(start) && e.contains(says), "{i}: {e}");
            std::fs::remove_dir_all(dir).unwrap();
        }
    }
}
