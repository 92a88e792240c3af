//! A progress bar on stderr for sweeps and reproductions, and the lines a
//! reproduction prints as its experiments finish.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use lab::sweep::SweepReport;

/// Draws one bar per sweep (hidden when stderr is not a terminal).
#[derive(Default)]
pub struct Bar {
    bar: Mutex<Option<ProgressBar>>,
    failed: Mutex<usize>,
}

impl lab::sweep::Progress for Bar {
    fn start(&self, total: usize, skipped: usize) {
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs, ETA {eta} {msg}")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar.set_position(skipped as u64);
        *self.failed.lock().expect("progress") = 0;
        *self.bar.lock().expect("progress") = Some(bar);
    }

    fn finished(&self, failure: Option<&str>) {
        if let Some(bar) = self.bar.lock().expect("progress").as_ref() {
            if failure.is_some() {
                let mut failed = self.failed.lock().expect("progress");
                *failed += 1;
                bar.set_message(format!("({failed} failed)"));
            }
            bar.inc(1);
        }
    }

    fn done(&self) {
        if let Some(bar) = self.bar.lock().expect("progress").take() {
            bar.finish_and_clear();
        }
    }
}

impl lab::reproduce::Observer for Bar {
    fn experiment_done(&self, id: &str, report: &SweepReport, seconds: f64) {
        for f in &report.failures {
            eprintln!("{id}: failed: {f}");
        }
        println!(
            "{:16} {:3} runs ({} recorded before) in {:.1} s",
            id, report.total, report.skipped, seconds
        );
    }

    fn experiment_not_run(&self, id: &str, reason: &str) {
        eprintln!("{id}: not run: {reason}");
    }
}
