//! Writes the demo report (every figure kind, a verdict of each status).
//!
//! `cargo run -p bbrlab-report --example demo -- /tmp/demo.html`

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: demo <output.html>");
        return ExitCode::from(2);
    };
    let html = report::render_html(&report::demo::demo_report());
    if let Err(error) = std::fs::write(&path, html) {
        eprintln!("error: cannot write {}: {error}", path.to_string_lossy());
        return ExitCode::FAILURE;
    }
    println!("wrote {}", path.to_string_lossy());
    ExitCode::SUCCESS
}
