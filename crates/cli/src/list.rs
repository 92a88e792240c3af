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
    let all = cc::algorithms();
    let width = all.iter().map(|a| a.name.len()).max().unwrap_or(0);
    for info in all {
        let display = if info.display_name == info.name {
            String::new()
        } else {
            format!(" [shown as {}]", info.display_name)
        };
        println!("{:width$}  {}{display}", info.name, info.summary);
        for p in &info.params {
            println!(
                "{:width$}    {}={} ({}): {}",
                "",
                p.name,
                p.default_text(),
                p.kind,
                p.doc
            );
        }
        for v in &info.variants {
            println!(
                "{:width$}    variant {}:{}: {}",
                "", info.name, v.params, v.doc
            );
        }
    }
    println!();
    println!("Use as a spec string: name[:param=value,...], e.g. \"cubic:beta=0.7\".");
}
