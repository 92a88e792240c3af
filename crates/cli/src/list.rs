//! `bbrlab list`.

use crate::ListWhat;

/// Prints the requested listing to stdout.
pub fn list(what: ListWhat) {
    match what {
        ListWhat::Algorithms => algorithms(),
        ListWhat::Suites => suites(),
    }
}

fn suites() {
    for s in lab::reproduce::suites() {
        println!("{:8}  {}", s.name, s.summary);
        for e in s.experiments {
            println!("{:8}    {} ({})", "", e.id(), e.scenario_label());
        }
    }
}

fn algorithms() {
    let width = cc::algorithms()
        .iter()
        .map(|a| a.name.len())
        .max()
        .unwrap_or(0);
    for info in cc::algorithms() {
        println!("{:width$}  {}", info.name, info.summary);
        for p in info.params {
            let kind = match p.kind {
                cc::ParamKind::Float { min, max } => format!("number in [{min}, {max}]"),
                cc::ParamKind::Int { min, max } => format!("integer in [{min}, {max}]"),
                cc::ParamKind::Bool => "true|false".to_string(),
            };
            println!(
                "{:width$}    {}={} ({kind}): {}",
                "", p.name, p.default, p.doc
            );
        }
    }
    println!();
    println!("Use as a spec string: name[:param=value,...], e.g. \"cubic:beta=0.7\".");
}
