//! The `bbrlab` binary end to end: outputs, errors, determinism.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::browser::check_in_browser;
use common::run::{bbrlab, repo, stderr, summary, EMULATED_LINK};

fn example(name: &str) -> String {
    repo()
        .join("scenarios/examples")
        .join(name)
        .display()
        .to_string()
}

fn tempdir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bbrlab-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The quick tour's sections, in report order.
const QUICK_SECTIONS: [&str; 5] = [
    "buffer-share",
    "stable-links",
    "bandwidth-drop",
    "cws-fairness",
    "bbr2-loss",
];

#[test]
fn run_writes_summary_csv_and_series() {
    let out = tempdir("run");
    let o = bbrlab(&[
        "run",
        &example("cubic-vs-bbr.toml"),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "duration=20s",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains("goodput") && table.contains("cubic") && table.contains("bbr"),
        "{table}"
    );
    let s = summary(&out);
    for key in [
        "scenario",
        "seed",
        "sim_time_s",
        "wall_time_s",
        "jain_index",
    ] {
        assert!(s.get(key).is_some(), "summary.json lacks {key}");
    }
    assert!(s["link"]["utilization"].as_f64().unwrap() > 0.5);
    assert_eq!(s["link"]["capacity_bps"].as_f64().unwrap(), 20e6);
    let flows = s["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 2);
    for f in flows {
        for key in [
            "id",
            "cc",
            "goodput_bps",
            "retransmission_ratio",
            "loss_ratio",
            "bytes_delivered",
            "bytes_retransmitted",
            "completion_time_s",
        ] {
            assert!(f.get(key).is_some(), "flow lacks {key}");
        }
        for p in ["p50", "p95", "p99"] {
            assert!(f["rtt_ms"][p].as_f64().unwrap() >= 40.0);
        }
        assert!(
            f["completion_time_s"].is_null(),
            "unlimited flows never complete"
        );
    }
    let csv = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "header + 2 flows");
    // Time series are Parquet by default (see python/tests/test_parquet.py
    // for pandas, polars and DuckDB reading them); CSV on request.
    for stem in ["series_flows", "series_link", "series_controller"] {
        assert!(
            out.join(format!("{stem}.parquet")).is_file(),
            "{stem}.parquet"
        );
        assert!(
            !out.join(format!("{stem}.csv")).exists(),
            "no {stem}.csv by default"
        );
    }
    let parquet_bytes = std::fs::metadata(out.join("series_flows.parquet"))
        .unwrap()
        .len();
    let o = bbrlab(&[
        "run",
        &example("cubic-vs-bbr.toml"),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "duration=20s",
        "--series-format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !out.join("series_flows.parquet").exists(),
        "the earlier run's Parquet series are replaced, not left to be read instead"
    );
    let csv_bytes = std::fs::metadata(out.join("series_flows.csv"))
        .unwrap()
        .len();
    assert!(
        parquet_bytes * 3 < csv_bytes,
        "Parquet much smaller than CSV: {parquet_bytes} vs {csv_bytes} bytes"
    );
    let series = std::fs::read_to_string(out.join("series_flows.csv")).unwrap();
    assert!(series.lines().next().unwrap().contains("cwnd"));
    assert!(
        series.lines().count() > 2 * 1900,
        "10 ms samples of 2 flows over 20 s"
    );
    assert!(out.join("series_link.csv").exists());
    assert!(
        !out.join("series_dash.csv").exists(),
        "no DASH flow, no decision log"
    );
    let controller = std::fs::read_to_string(out.join("series_controller.csv")).unwrap();
    assert_eq!(controller.lines().next(), Some("t_s,flow,name,value"));
    assert!(
        controller
            .lines()
            .any(|l| l.contains(",ssthresh,") || l.contains(",max_bw,")),
        "controller state variables recorded: {}",
        controller.lines().take(3).collect::<Vec<_>>().join(" | ")
    );
    let effective = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(
        effective.contains("duration = \"20s\""),
        "overrides recorded: {effective}"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn same_seed_same_summary_other_seed_differs() {
    let dirs: Vec<PathBuf> = ["a", "b", "c"]
        .iter()
        .map(|t| tempdir(&format!("det-{t}")))
        .collect();
    for (dir, seed) in dirs.iter().zip(["7", "7", "8"]) {
        let o = bbrlab(&[
            "run",
            &example("bbr-shallow.toml"),
            "--out",
            dir.to_str().unwrap(),
            "--seed",
            seed,
            "--set",
            "duration=15s",
            "--set",
            "link.loss=0.5%",
            "--no-series",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let strip = |mut v: serde_json::Value| {
        v.as_object_mut().unwrap().remove("wall_time_s");
        v
    };
    let (a, b, c) = (
        strip(summary(&dirs[0])),
        strip(summary(&dirs[1])),
        strip(summary(&dirs[2])),
    );
    assert_eq!(a, b);
    assert_ne!(a["flows"], c["flows"]);
    for d in dirs {
        std::fs::remove_dir_all(d).ok();
    }
}

#[test]
fn missing_scenario_file_is_a_clear_error() {
    let o = bbrlab(&["run", "no/such/scenario.toml"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("no/such/scenario.toml") && e.contains("cannot read"),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn bad_override_names_the_key_and_what_was_expected() {
    let o = bbrlab(&[
        "run",
        &example("bbr-shallow.toml"),
        "--set",
        "link.buffer=0",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("link.buffer") && e.contains("expected"), "{e}");

    let o = bbrlab(&[
        "run",
        &example("bbr-shallow.toml"),
        "--set",
        "flow.0.cc=vegas",
    ]);
    let e = stderr(&o);
    assert!(
        e.contains("unknown algorithm `vegas`") && e.contains("cubic"),
        "{e}"
    );

    let o = bbrlab(&[
        "run",
        &example("bbr-shallow.toml"),
        "--set",
        "flow.0.cc=bbr:gain=3",
    ]);
    let e = stderr(&o);
    assert!(
        e.contains("no parameter `gain`") && e.contains("cwnd_gain"),
        "{e}"
    );
}

#[test]
fn malformed_flags_are_usage_errors() {
    for args in [
        vec!["run", "x.toml", "--set", "no-equals-sign"],
        vec!["run", "x.toml", "--seed", "minus"],
        vec!["run"],
        vec!["frobnicate"],
    ] {
        let o = bbrlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
}

#[test]
fn unwritable_output_directory_is_reported() {
    let file = tempdir("blocker");
    std::fs::write(&file, "a file, not a directory").unwrap();
    let o = bbrlab(&[
        "run",
        &example("bbr-shallow.toml"),
        "--out",
        file.join("sub").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot create output directory"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(file).ok();
}

#[test]
fn list_names_every_algorithm() {
    let o = bbrlab(&["list"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for info in cc::algorithms() {
        assert!(
            text.lines().any(|l| l.starts_with(info.name)),
            "{} missing from:\n{text}",
            info.name
        );
    }
}

#[test]
fn every_command_has_help() {
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["list", "--help"],
    ] {
        let o = bbrlab(&args);
        assert!(o.status.success(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("Usage"),
            "{args:?}"
        );
    }
}

fn sweep_file(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("sweep.toml");
    std::fs::write(
        &path,
        r#"
name = "tiny-sweep"
duration = "3s"
[link]
rate = "10Mbit"
rtt = "20ms"
buffer = "1bdp"
[[flow]]
cc = "bbr"
[sweep]
"flow.0.cc" = ["bbr", "cubic"]
seeds = [1, 2, 3]
"#,
    )
    .unwrap();
    path
}

fn csv_rows(path: &Path) -> Vec<String> {
    let mut rows: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(String::from)
        .collect();
    // Drop the wall-time column's variation: compare everything else.
    rows.iter_mut().for_each(|r| {
        let cells: Vec<&str> = r.split(',').collect();
        *r = cells[..cells.len() - 1].join(",");
    });
    rows.sort();
    rows
}

#[test]
fn sweep_runs_the_product_and_resumes_without_rerunning() {
    let dir = tempdir("sweep");
    let file = sweep_file(&dir);
    let out = dir.join("out");
    let o = bbrlab(&[
        "sweep",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("6 runs (0 already recorded, 6 run now, 0 failed)"),
        "{text}"
    );
    let header = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let header = header.lines().next().unwrap();
    assert!(header.starts_with("run_id,flow.0.cc,"), "{header}");
    assert_eq!(header.matches(",seed,").count(), 1, "{header}");
    assert_eq!(csv_rows(&out.join("results.csv")).len(), 6);
    // Rows follow the sweep's axes (cc, then seed), not the run ids.
    let table = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let columns: Vec<&str> = table.lines().next().unwrap().split(',').collect();
    let (cc, seed) = (
        columns.iter().position(|c| *c == "flow.0.cc").unwrap(),
        columns.iter().position(|c| *c == "seed").unwrap(),
    );
    let order: Vec<String> = table
        .lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            format!("{}/{}", cells[cc], cells[seed])
        })
        .collect();
    assert_eq!(
        order,
        ["bbr/1", "bbr/2", "bbr/3", "cubic/1", "cubic/2", "cubic/3"]
    );
    // The command prints the results table in the same order.
    let printed: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("bbr ") || l.starts_with("cubic "))
        .collect();
    assert_eq!(printed.len(), 6, "{text}");
    assert!(
        text.contains("goodput Mb/s") && text.contains("rtt p95 ms"),
        "{text}"
    );

    // Lose one record as a kill would (no record written): only it reruns.
    let runs: Vec<_> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    std::fs::remove_file(&runs[0]).unwrap();
    let o = bbrlab(&[
        "sweep",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("6 runs (5 already recorded, 1 run now, 0 failed)"),
        "{text}"
    );
    assert_eq!(csv_rows(&out.join("results.csv")).len(), 6);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweep_identity_ignores_comments_and_the_table_follows_the_file() {
    let dir = tempdir("sweep-edit");
    let file = sweep_file(&dir);
    let out = dir.join("out");
    let sweep = |file: &Path| {
        let o = bbrlab(&[
            "sweep",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    sweep(&file);
    let original = std::fs::read_to_string(&file).unwrap();

    // A comment and a reformatted list are the same runs.
    let commented = original.replace("[link]", "# the link\n[link]").replace(
        "seeds = [1, 2, 3]",
        "seeds = [\n  1, # first\n  2,\n  3,\n]",
    );
    std::fs::write(&file, &commented).unwrap();
    let text = sweep(&file);
    assert!(
        text.contains("6 runs (6 already recorded, 0 run now, 0 failed)"),
        "{text}"
    );

    // One more value on an axis runs only the new points.
    std::fs::write(
        &file,
        original.replace("seeds = [1, 2, 3]", "seeds = [1, 2, 3, 4]"),
    )
    .unwrap();
    let text = sweep(&file);
    assert!(
        text.contains("8 runs (6 already recorded, 2 run now, 0 failed)"),
        "{text}"
    );
    assert_eq!(csv_rows(&out.join("results.csv")).len(), 8);

    // A changed value reruns everything; the table lists only the new runs,
    // the old records stay on disk.
    std::fs::write(
        &file,
        original.replace("duration = \"3s\"", "duration = \"2s\""),
    )
    .unwrap();
    let text = sweep(&file);
    assert!(
        text.contains("6 runs (0 already recorded, 6 run now, 0 failed)"),
        "{text}"
    );
    assert_eq!(csv_rows(&out.join("results.csv")).len(), 6);
    let records = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    assert_eq!(records, 14);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweep_results_do_not_depend_on_the_thread_count() {
    let dir = tempdir("sweep-threads");
    let file = sweep_file(&dir);
    for jobs in ["1", "2"] {
        let out = dir.join(format!("out{jobs}"));
        let o = bbrlab(&[
            "sweep",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            jobs,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(
        csv_rows(&dir.join("out1/results.csv")),
        csv_rows(&dir.join("out2/results.csv"))
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweep_with_a_bad_point_fails_before_running() {
    let dir = tempdir("sweep-bad");
    let file = sweep_file(&dir);
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("\"cubic\"]", "\"vegas\"]");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("out");
    let o = bbrlab(&[
        "sweep",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("unknown algorithm `vegas`") && e.contains("flow.0.cc=vegas"),
        "{e}"
    );
    assert!(!out.join("runs").exists(), "nothing ran");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn set_or_seed_on_a_swept_key_is_refused_before_running() {
    let dir = tempdir("sweep-set-axis");
    let file = sweep_file(&dir);
    let out = dir.join("out");
    for (flag, value, axis, line, values) in [
        (
            "--set",
            "flow.0.cc=reno",
            "sweep.\"flow.0.cc\"",
            11,
            "bbr, cubic",
        ),
        ("--seed", "7", "sweep.\"seeds\"", 12, "1, 2, 3"),
    ] {
        let o = bbrlab(&[
            "sweep",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            flag,
            value,
        ]);
        assert_eq!(o.status.code(), Some(1), "{flag} {value}");
        let e = stderr(&o);
        assert!(
            e.contains(&format!(
                "sweep.toml: {axis} (line {line}): --set {}",
                if flag == "--seed" { "seed=7" } else { value }
            )) && e.contains(&format!("names an axis of the [sweep] (values {values})"))
                && e.contains("edit the axis or drop it from [sweep]"),
            "{e}"
        );
        assert!(!out.exists(), "nothing ran");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_on_a_sweep_file_points_to_sweep() {
    let dir = tempdir("run-sweep");
    let file = sweep_file(&dir);
    let o = bbrlab(&["run", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("has a [sweep] table (6 runs)"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn model_prints_converge_points_and_rejects_bad_gains() {
    let o = bbrlab(&["model", "--g", "2", "--r", "16"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    // p* = (16 - 2 + 1) / 32 = 0.469
    assert!(text.contains("0.469") && text.contains("0.531"), "{text}");
    let o = bbrlab(&["model", "--g", "0.5"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("expected gains >= 1"), "{}", stderr(&o));
    let o = bbrlab(&["model", "--r", "zero"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_closed_stdout_ends_the_program_quietly() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_bbrlab"))
        .args(["model", "--points", "100000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once
    let out = child.wait_with_output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn list_suites_names_the_quick_tour() {
    let o = bbrlab(&["list", "suites"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("quick") && text.contains("buffer-share"),
        "{text}"
    );
}

#[test]
fn unknown_suite_and_missing_report_dir_are_clear_errors() {
    let o = bbrlab(&["reproduce", "nosuch"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown suite `nosuch`; known suites: quick"),
        "{}",
        stderr(&o)
    );
    let o = bbrlab(&["report", "/no/such/dir"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("/no/such/dir: not a directory"),
        "{}",
        stderr(&o)
    );
}

/// The quick suite end to end at --fast: stores, report, a rebuild from
/// the stores alone, and the report in headless Chromium.
#[test]
fn reproduce_quick_writes_a_report_that_renders() {
    let out = tempdir("reproduce");
    let o = bbrlab(&[
        "reproduce",
        "quick",
        "--fast",
        "--out",
        out.to_str().unwrap(),
        "--scenarios",
        repo().join("scenarios").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for id in QUICK_SECTIONS {
        assert!(
            html.contains(&format!("id=\"{id}\"")),
            "section {id} missing"
        );
        assert!(out.join(id).join("results.csv").exists());
    }
    assert!(html.contains("<svg"));
    // Claims are data: claims.json lists each with the paper's number,
    // ours, the declared tolerance and the computed verdict.
    let claims: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("claims.json")).unwrap()).unwrap();
    let claims = claims.as_array().unwrap();
    let five_fold = claims
        .iter()
        .find(|c| c["id"] == "obbr.fig7.five-fold")
        .expect("the Fig. 7 five-fold claim is judged in quick");
    assert_eq!(five_fold["experiment"], "stable-links");
    assert_eq!(five_fold["about"], "oBBR mu 0.5 (paper's algorithm)");
    assert_eq!(five_fold["origin"], "project target");
    for key in [
        "paper_says",
        "ours",
        "tolerance",
        "tolerance_reason",
        "verdict",
    ] {
        assert!(
            five_fold[key].as_str().is_some_and(|v| !v.is_empty()),
            "{key}"
        );
    }
    let csv = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        claims.len() + 1,
        "one CSV row per claim"
    );
    // Every section's verdict comes from claims, and the quick tour judges
    // the full suites' own declarations: each of its claim ids is a row of
    // docs/REPRODUCTION.md, which the full suites generate.
    let doc = std::fs::read_to_string(repo().join("docs/REPRODUCTION.md")).unwrap();
    for id in QUICK_SECTIONS {
        assert!(
            claims.iter().any(|c| c["experiment"] == id),
            "section {id} judges no claim"
        );
    }
    for c in claims {
        let id = c["id"].as_str().unwrap();
        assert!(
            doc.contains(&format!("`{id}`")),
            "quick judges {id}, which no full suite declares"
        );
    }
    // A second run records nothing new; report rebuilds the same page.
    let o = bbrlab(&[
        "reproduce",
        "quick",
        "--fast",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("(15 recorded before)"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // The page records each invocation's provenance (date, wall time,
    // runs reused), so compare the rebuild with the second run's page.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("reused") && html.contains("commit"),
        "provenance shown"
    );
    std::fs::remove_file(out.join("report.html")).unwrap();
    let o = bbrlab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(out.join("report.html")).unwrap(),
        html,
        "deterministic rebuild"
    );
    // A store whose recorded scenarios directory is gone (copied to
    // another machine) is judged with this checkout's scenarios.
    let claims = std::fs::read_to_string(out.join("claims.json")).unwrap();
    let manifest = out.join("suite.json");
    let mut recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    recorded["scenarios"] = serde_json::json!(out.join("moved-away").to_str().unwrap());
    std::fs::write(&manifest, recorded.to_string()).unwrap();
    let o = bbrlab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(out.join("claims.json")).unwrap(),
        claims,
        "the same claims from this checkout's scenarios"
    );

    check_in_browser(&out.join("report.html"), "quick");
    std::fs::remove_dir_all(&out).ok();
}

/// A paper suite end to end at --fast: every experiment ran, wrote its
/// store and an analysed section (not "not run"), and the report renders.
fn reproduce_suite_fast(suite: &str) {
    let out = tempdir(&format!("reproduce-{suite}"));
    let o = bbrlab(&[
        "reproduce",
        suite,
        "--fast",
        "--out",
        out.to_str().unwrap(),
        "--scenarios",
        repo().join("scenarios").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let listing = bbrlab(&["list", "suites"]);
    let listing = String::from_utf8_lossy(&listing.stdout).to_string();
    let ids: Vec<&str> = listing
        .lines()
        .skip_while(|l| !l.starts_with(suite))
        .skip(1)
        .take_while(|l| l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(!ids.is_empty(), "no experiments listed for {suite}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for id in &ids {
        assert!(out.join(id).join("results.csv").exists(), "{id}: no store");
        let start = html
            .find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("section {id} missing"));
        let section = &html[start..];
        let section = &section[..section.find("</section>").unwrap_or(section.len())];
        assert!(
            !section.contains("verdict-not-run"),
            "{id}: the analysis found no runs"
        );
        assert!(section.contains("<svg"), "{id}: no plot");
    }
    check_in_browser(&out.join("report.html"), suite);
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn reproduce_obbr_fast_writes_every_section() {
    reproduce_suite_fast("obbr");
}

#[test]
fn reproduce_cws_fast_writes_every_section() {
    reproduce_suite_fast("cws");
}

#[test]
fn reproduce_bbr2_fast_writes_every_section() {
    reproduce_suite_fast("bbr2");
}

#[test]
fn reproduce_copilot_fast_writes_every_section() {
    reproduce_suite_fast("copilot");
}

/// Copies `scenarios/<suite>/` to a fresh scenarios directory under `root`.
fn copy_suite(suite: &str, root: &Path) -> PathBuf {
    let scenarios = root.join("scenarios");
    let dir = scenarios.join(suite);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(repo().join("scenarios").join(suite)).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    scenarios
}

#[test]
fn a_missing_trace_makes_its_experiment_not_run_and_the_others_run() {
    let root = tempdir("missing-trace");
    let scenarios = copy_suite("quick", &root);
    let drop = scenarios.join("quick/bandwidth-drop.toml");
    let text = std::fs::read_to_string(&drop).unwrap().replace(
        "schedule = [[\"0s\", \"20Mbit\"], [\"10s\", \"5Mbit\"]]",
        "trace = \"no-such-trace.down\"",
    );
    std::fs::write(&drop, text).unwrap();
    let out = root.join("out");
    let o = bbrlab(&[
        "reproduce",
        "quick",
        "--fast",
        "--out",
        out.to_str().unwrap(),
        "--scenarios",
        scenarios.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("bandwidth-drop: not run") && err.contains("no-such-trace.down"),
        "{err}"
    );
    assert!(
        err.contains("1 experiments not run (bandwidth-drop)"),
        "{err}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).expect("report written");
    let start = html.find("id=\"bandwidth-drop\"").expect("section present");
    let section = &html[start..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("verdict-not-run"), "{section}");
    assert!(section.contains("no-such-trace.down"), "{section}");
    for id in ["buffer-share", "stable-links", "cws-fairness", "bbr2-loss"] {
        assert!(out.join(id).join("results.csv").exists(), "{id} ran");
    }
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn jobs_out_of_range_are_refused() {
    let dir = tempdir("jobs");
    let file = sweep_file(&dir);
    for jobs in ["0", "100000"] {
        for args in [
            vec!["sweep", file.to_str().unwrap(), "--jobs", jobs],
            vec!["reproduce", "quick", "--jobs", jobs],
        ] {
            let started = std::time::Instant::now();
            let o = bbrlab(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).starts_with("error: --jobs: expected"),
                "{}",
                stderr(&o)
            );
            assert!(started.elapsed().as_secs() < 5, "{args:?} took too long");
        }
    }
    assert!(!dir.join("out").exists(), "nothing ran");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn model_refuses_more_points_than_it_can_print() {
    let started = std::time::Instant::now();
    let o = bbrlab(&["model", "--points", "100000000"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--points: expected 2 to 10001, got 100000000"),
        "{}",
        stderr(&o)
    );
    assert!(started.elapsed().as_secs() < 5);
}

/// Rates beyond 1 Tbit/s, in a trace row or in the scenario itself, are
/// refused with the file and line (or key), quickly, before any simulation.
#[test]
fn implausible_rates_are_refused_with_their_place() {
    let dir = tempdir("rates");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("huge.csv"),
        "Timestamp,DL_bitrate,State\n\
         2020.02.14_09.38.22,1000,D\n\
         2020.02.14_09.38.23,1e30,D\n",
    )
    .unwrap();
    let scenario = |link: &str| {
        format!("name = \"r\"\nduration = \"2s\"\n[link]\n{link}\nrtt = \"40ms\"\nbuffer = \"100KB\"\n[[flow]]\ncc = \"bbr\"\n")
    };
    std::fs::write(dir.join("trace.toml"), scenario("trace = \"huge.csv\"")).unwrap();
    std::fs::write(dir.join("rate.toml"), scenario("rate = \"5000Gbit\"")).unwrap();
    for (file, expected) in [
        (
            "trace.toml",
            "huge.csv:3: DL_bitrate \"1e30\" kbit/s is outside the plausible range",
        ),
        ("rate.toml", "too large: rates are at most 1Tbit"),
    ] {
        let started = std::time::Instant::now();
        let o = bbrlab(&[
            "run",
            dir.join(file).to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{file}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{file}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
        assert!(started.elapsed().as_secs() < 5);
    }
    assert!(!dir.join("out").exists(), "nothing ran");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn no_subcommand_says_what_bbrlab_is() {
    let o = bbrlab(&[]);
    assert_eq!(o.status.code(), Some(2));
    let help = stderr(&o);
    assert!(
        help.contains("A laboratory for BBR-family congestion control")
            && help.contains("reproduce")
            && help.contains("sweep"),
        "{help}"
    );
}

/// Every kind of unusable record in a suite's store is named on stderr and
/// in the report's section, and left out of the analysis.
#[test]
fn report_names_and_skips_bad_records() {
    let out = tempdir("bad-records");
    let o = bbrlab(&[
        "reproduce",
        "quick",
        "--fast",
        "--out",
        out.to_str().unwrap(),
        "--scenarios",
        repo().join("scenarios").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let records = |experiment: &str| -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(out.join(experiment).join("runs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        files
    };
    let edit = |path: &Path, f: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        f(&mut v);
        std::fs::write(path, serde_json::to_string(&v).unwrap()).unwrap();
    };
    let stable = records("stable-links");
    assert!(stable.len() >= 4, "{stable:?}");
    // NaN is written as null by serde; negative goodput; no flows; an id
    // that does not match its scenario.
    edit(&stable[0], &|v| {
        v["summary"]["flows"][0]["goodput_bps"] = serde_json::Value::Null
    });
    edit(&stable[1], &|v| {
        v["summary"]["flows"][0]["goodput_bps"] = (-5.0).into()
    });
    edit(&stable[2], &|v| {
        v["summary"]["flows"] = serde_json::json!([])
    });
    edit(&stable[3], &|v| {
        let doc = v["scenario"]
            .as_str()
            .unwrap()
            .replace("duration", "# edited\nduration");
        v["scenario"] = (doc + "\nwarmup = \"3s\"\n").into();
    });
    // A truncated time series in an experiment that reads them.
    let drop = records("bandwidth-drop");
    let id = drop[0].file_stem().unwrap().to_str().unwrap().to_string();
    let series = out
        .join("bandwidth-drop/runs")
        .join(&id)
        .join("series_flows.parquet");
    let bytes = std::fs::read(&series).unwrap();
    std::fs::write(&series, &bytes[..bytes.len() * 2 / 3]).unwrap();

    let o = bbrlab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for (file, why) in [
        (&stable[0], "flows[0].goodput_bps is null"),
        (&stable[1], "flows[0].goodput_bps is -5, expected >= 0"),
        (&stable[2], "holds no flows"),
        (&stable[3], "does not match its scenario"),
    ] {
        let name = file.display().to_string();
        assert!(
            err.lines().any(|l| l.contains(&name) && l.contains(why)),
            "{name}: {why}\n{err}"
        );
    }
    assert!(
        err.lines().any(|l| l.contains(series.to_str().unwrap())),
        "truncated series named\n{err}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("Left out 4 unusable run record(s)"),
        "stable-links"
    );
    assert!(
        html.contains("Left out 1 unusable run record(s)"),
        "bandwidth-drop"
    );

    // A record that is not JSON at all stops the report, naming the file.
    std::fs::write(&stable[0], "{ garbage").unwrap();
    let o = bbrlab(&["report", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&stable[0].display().to_string())
            && stderr(&o).contains("not a run record"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&out).ok();
}

/// `report` on a run and on a sweep, and `compare` on two runs: each page
/// has its figures and renders in Chromium; bad directories are named.
#[test]
fn report_and_compare_pages_for_runs_and_sweeps() {
    let dir = tempdir("pages");
    let runs: Vec<PathBuf> = ["bbr", "cubic"]
        .iter()
        .map(|cc| {
            let out = dir.join(format!("run-{cc}"));
            let o = bbrlab(&[
                "run",
                &example("bbr-shallow.toml"),
                "--out",
                out.to_str().unwrap(),
                "--set",
                &format!("flow.0.cc={cc}"),
                "--set",
                "duration=8s",
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            out
        })
        .collect();
    let o = bbrlab(&["report", runs[0].to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(runs[0].join("report.html")).unwrap();
    for figure in [
        "Goodput",
        "Congestion window",
        "Bandwidth estimate and link capacity",
        "Bottleneck queue",
        "Controller mode over time: flow 0 (bbr)",
    ] {
        assert!(html.contains(figure), "run page lacks {figure}");
    }
    // Provenance: the build, the date and the command that wrote the run.
    for row in [
        "<dt>date</dt>",
        "<dt>command</dt>",
        "flow.0.cc=bbr",
        "<dt>wall time</dt>",
    ] {
        assert!(html.contains(row), "run page lacks provenance {row}");
    }
    check_in_browser(&runs[0].join("report.html"), "run");

    let file = sweep_file(&dir);
    let sweep_out = dir.join("sweep");
    let o = bbrlab(&[
        "sweep",
        file.to_str().unwrap(),
        "--out",
        sweep_out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bbrlab(&["report", sweep_out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(sweep_out.join("report.html")).unwrap();
    assert!(
        html.contains("Results in the sweep&#39;s order")
            || html.contains("Results in the sweep's order")
    );
    assert!(html.contains("Throughput vs p95 delay"));
    assert!(html.contains("mean ± sd over the seeds"));
    for row in [
        "<dt>date</dt>",
        "<dt>command</dt>",
        "<dt>fidelity</dt>",
        "<dt>seeds</dt>",
    ] {
        assert!(html.contains(row), "sweep page lacks provenance {row}");
    }
    check_in_browser(&sweep_out.join("report.html"), "sweep");

    let cmp = dir.join("cmp");
    let o = bbrlab(&[
        "compare",
        runs[0].to_str().unwrap(),
        runs[1].to_str().unwrap(),
        "--out",
        cmp.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(cmp.join("compare.html")).unwrap();
    assert!(
        html.contains("B - A")
            && html.contains("A: flow 0 (bbr)")
            && html.contains("B: flow 0 (cubic)")
    );
    assert!(
        html.contains("<dt>page</dt>") && html.matches("bbrlab run ").count() >= 2,
        "the comparison names each run's command and its own build"
    );
    check_in_browser(&cmp.join("compare.html"), "compare");

    // Bad directories: named, with what was expected.
    let o = bbrlab(&["report", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not a bbrlab output directory"),
        "{}",
        stderr(&o)
    );
    let o = bbrlab(&[
        "compare",
        runs[0].to_str().unwrap(),
        sweep_out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not the output of `bbrlab run`"),
        "{}",
        stderr(&o)
    );
    std::fs::write(runs[1].join("invocation.json"), "{ truncated").unwrap();
    let o = bbrlab(&["report", runs[1].to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(runs[1].join("report.html")).unwrap();
    assert!(
        html.contains("invocation.json: not an invocation record"),
        "an unreadable invocation record is named on the page"
    );
    // A summary of another version (a field renamed): named, not a panic.
    let summary_json = runs[1].join("summary.json");
    let text = std::fs::read_to_string(&summary_json).unwrap();
    std::fs::write(
        &summary_json,
        text.replacen("\"jain_index\"", "\"jain\"", 1),
    )
    .unwrap();
    for command in [
        vec!["report", runs[1].to_str().unwrap()],
        vec![
            "compare",
            runs[0].to_str().unwrap(),
            runs[1].to_str().unwrap(),
        ],
    ] {
        let o = bbrlab(&command);
        assert_eq!(o.status.code(), Some(1), "{command:?}");
        assert!(
            stderr(&o).contains("summary.json: a run summary this version of bbrlab cannot read")
                && stderr(&o).contains("missing field `jain_index`"),
            "{}",
            stderr(&o)
        );
    }
    std::fs::write(runs[1].join("summary.json"), "{ truncated").unwrap();
    let o = bbrlab(&["report", runs[1].to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("summary.json: not a run summary"),
        "{}",
        stderr(&o)
    );
    // A series file cut in half: the report fails, naming it.
    let truncated_report = |series: &Path| {
        let bytes = std::fs::read(series).unwrap();
        std::fs::write(series, &bytes[..bytes.len() / 2]).unwrap();
        let o = bbrlab(&["report", runs[0].to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1));
        stderr(&o)
    };
    let series = runs[0].join("series_flows.parquet");
    let err = truncated_report(&series);
    assert!(
        err.contains("series_flows.parquet: not a Parquet file"),
        "a truncated Parquet series is named: {err}"
    );
    // The same run with CSV series: a truncated file names its line.
    let o = bbrlab(&[
        "run",
        &example("bbr-shallow.toml"),
        "--out",
        runs[0].to_str().unwrap(),
        "--set",
        "duration=8s",
        "--series-format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!series.exists(), "the Parquet series are replaced");
    let err = truncated_report(&runs[0].join("series_flows.csv"));
    assert!(
        err.contains("series_flows.csv: line"),
        "a truncated series names its line: {err}"
    );
    let o = bbrlab(&[
        "run",
        &example("bbr-shallow.toml"),
        "--series-format",
        "xlsx",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown table format \"xlsx\" (expected parquet or csv)"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Starts `bbrlab args` in the background and returns it with its first
/// line of output (where `emu` and `serve` say where they listen) and the
/// rest of its output.
fn spawn_announcing(
    args: &[&str],
) -> (
    std::process::Child,
    String,
    std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_bbrlab"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    (child, first, lines)
}

/// `bbrlab emu` relays a UDP exchange on loopback with the configured
/// delay, and stops after --duration.
#[test]
fn emu_relays_on_loopback_with_the_configured_delay() {
    use std::net::UdpSocket;
    use std::time::{Duration, Instant};
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (mut child, first, mut lines) = spawn_announcing(&[
        "emu",
        "--listen",
        "127.0.0.1:0",
        "--forward",
        &server.local_addr().unwrap().to_string(),
        "--rate",
        "20Mbit",
        "--rtt",
        "50ms",
        "--duration",
        "2s",
    ]);
    // "relaying 127.0.0.1:PORT -> ..."
    let listen = first.split_whitespace().nth(1).unwrap().to_string();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    server
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let started = Instant::now();
    client.send_to(b"ping", &listen).unwrap();
    let mut buf = [0u8; 16];
    let (n, relay) = server.recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"ping");
    server.send_to(b"pong", relay).unwrap();
    let n = client.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"pong");
    let rtt = started.elapsed();
    assert!(
        rtt >= Duration::from_millis(50) && rtt < Duration::from_millis(150),
        "{rtt:?} through a 50 ms path"
    );
    let status = child.wait().unwrap();
    assert!(status.success(), "stops by itself after --duration");
    assert!(
        lines.any(|l| l.unwrap().contains("up 1 datagrams")),
        "prints what it relayed"
    );
}

/// `bbrlab emu` serves several clients at one address, each through its
/// own server-facing port, like a NAT.
#[test]
fn emu_serves_several_clients_each_its_own_replies() {
    use std::net::UdpSocket;
    use std::time::Duration;
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (mut child, first, mut lines) = spawn_announcing(&[
        "emu",
        "--listen",
        "127.0.0.1:0",
        "--forward",
        &server.local_addr().unwrap().to_string(),
        "--rtt",
        "10ms",
        "--duration",
        "2s",
    ]);
    assert!(first.contains("up to 64 clients"), "{first}");
    let listen = first.split_whitespace().nth(1).unwrap().to_string();
    server
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let clients: Vec<UdpSocket> = (0..2)
        .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
        .collect();
    let mut relay_ports = Vec::new();
    let mut buf = [0u8; 16];
    for (i, client) in clients.iter().enumerate() {
        client
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        client.send_to(&[i as u8], &listen).unwrap();
        let (n, relay) = server.recv_from(&mut buf).unwrap();
        assert_eq!(&buf[..n], &[i as u8]);
        relay_ports.push(relay);
    }
    assert_ne!(
        relay_ports[0], relay_ports[1],
        "one server-facing port per client"
    );
    // Answer in the reverse order: each reply still reaches its own client.
    for (i, relay) in relay_ports.iter().enumerate().rev() {
        server.send_to(&[10 + i as u8], relay).unwrap();
    }
    for (i, client) in clients.iter().enumerate() {
        let n = client.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], &[10 + i as u8]);
    }
    assert!(child.wait().unwrap().success());
    assert!(
        lines.any(|l| l.unwrap().contains("clients 2")),
        "prints how many clients it serves"
    );
}

/// Bad `bbrlab emu` input: each names the option or file and what was expected.
#[test]
fn emu_rejects_bad_input_with_clear_errors() {
    let base = ["emu", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9"];
    let cases: [(&[&str], i32, &str); 7] = [
        (&["--rate", "fast"], 1, "--rate: expected a rate like"),
        (&["--uplink", "slow"], 1, "--uplink: expected a rate like"),
        (&["--loss", "200%"], 1, "--loss: expected a probability"),
        (&["--buffer", "lots"], 1, "--buffer:"),
        (&["--duration", "1x"], 1, "--duration: expected a duration"),
        (
            &["--scenario", "/nonexistent/emu.toml"],
            1,
            "/nonexistent/emu.toml: cannot read",
        ),
        (
            &["--scenario", "x.toml", "--rate", "1Mbit"],
            2,
            "cannot be used with",
        ),
    ];
    for (extra, code, message) in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let o = bbrlab(&args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
    // A good uplink rate is taken (it used to be refused as an unknown key).
    let o = bbrlab(&[
        "emu",
        "--listen",
        "127.0.0.1:0",
        "--forward",
        "127.0.0.1:9",
        "--uplink",
        "10Mbit",
        "--duration",
        "1s",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bbrlab(&["emu", "--listen", "localhost", "--forward", "127.0.0.1:9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("invalid value 'localhost' for '--listen <ADDR>'"));
    // An address this machine does not have cannot be bound.
    let o = bbrlab(&[
        "emu",
        "--listen",
        "192.0.2.1:4433",
        "--forward",
        "127.0.0.1:9",
        "--duration",
        "1s",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot start the relay on 192.0.2.1:4433"),
        "{}",
        stderr(&o)
    );
}

fn scenario_file(dir: &Path, name: &str, text: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn run_emulate_refuses_what_cannot_run_in_real_time() {
    let dir = tempdir("emulate-refused");
    for (name, text, expected) in [
        (
            "many.toml",
            EMULATED_LINK.replace("cc = \"bbr\"\n", "cc = \"bbr\"\ncount = 40\n"),
            "40 flows: an emulated run carries at most 16",
        ),
        (
            "fast.toml",
            EMULATED_LINK.replace("20Mbit", "10Gbit"),
            "link.rate peaks at 10000 Mbit/s",
        ),
        (
            "long.toml",
            EMULATED_LINK.replace("\"3s\"", "\"2h\""),
            "takes its duration in real time",
        ),
    ] {
        let file = scenario_file(&dir, name, &text);
        let o = bbrlab(&[
            "run",
            &file,
            "--emulate",
            "--out",
            dir.join("o").to_str().unwrap(),
        ]);
        assert!(!o.status.success(), "{name} ran");
        let err = stderr(&o);
        assert!(
            err.contains(expected) && err.contains(name),
            "{name}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dashjs_sessions_are_refused_where_they_cannot_play() {
    let dir = tempdir("dashjs-refused");
    let dash = |lines: &str| {
        EMULATED_LINK.replace(
            "cc = \"bbr\"\n",
            &format!("cc = \"bbr\"\napp = \"dash\"\n[flow.dash]\nvideo = \"8s\"\n{lines}"),
        )
    };
    let run = |name: &str, text: &str, emulate: bool, chromium: Option<&str>| {
        let file = scenario_file(&dir, name, text);
        let mut command = Command::new(env!("CARGO_BIN_EXE_bbrlab"));
        command.args(["run", &file, "--out", dir.join("o").to_str().unwrap()]);
        if emulate {
            command.arg("--emulate");
        }
        if let Some(path) = chromium {
            command.env("BBRLAB_CHROMIUM", path);
        }
        let o = command.output().expect("bbrlab runs");
        assert!(!o.status.success(), "{name} ran");
        stderr(&o)
    };
    // The simulator has only the model.
    let err = run("sim.toml", &dash("player = \"dashjs\"\n"), false, None);
    assert!(
        err.contains("flow[0].dash.player") && err.contains("only under --emulate"),
        "{err}"
    );
    // The emulator has only dash.js.
    let err = run("model.toml", &dash(""), true, None);
    assert!(
        err.contains("flow 0: app = \"dash\" with the model's player")
            && err.contains("player = \"dashjs\""),
        "{err}"
    );
    // dash.js decodes: the served video must be real H.264.
    let err = run(
        "segments.toml",
        &dash("player = \"dashjs\"\nsegment = \"2s\"\n"),
        true,
        None,
    );
    assert!(
        err.contains("decodes the video") && err.contains("4s segments"),
        "{err}"
    );
    // No browser: what is missing, and what installs it.
    let err = run(
        "nobrowser.toml",
        &dash("player = \"dashjs\"\n"),
        true,
        Some("/nonexistent/chromium"),
    );
    assert!(
        err.contains("Chromium (/nonexistent/chromium)")
            && err.contains("scripts/setup-browser.sh"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_simulated_run_writes_a_qlog_trace_per_flow_that_qvis_reads() {
    let dir = tempdir("qlog");
    let qlog = dir.join("traces");
    let o = bbrlab(&[
        "run",
        &example("bbr-shallow.toml"),
        "--set",
        "duration=2s",
        "--set",
        "warmup=0s",
        "--no-series",
        "--out",
        dir.join("out").to_str().unwrap(),
        "--qlog",
        qlog.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(qlog.join("flow-0.qlog")).unwrap();
    let mut records = text.split_inclusive('\n');
    let header: serde_json::Value =
        serde_json::from_str(records.next().unwrap().trim_start_matches('\x1e')).unwrap();
    assert_eq!(header["qlog_version"], "0.3");
    let names: std::collections::BTreeSet<String> = records
        .map(|r| {
            assert!(
                r.starts_with('\x1e') && r.ends_with('\n'),
                "unframed record {r:?}"
            );
            let v: serde_json::Value = serde_json::from_str(r.trim_start_matches('\x1e')).unwrap();
            v["name"].as_str().unwrap().to_string()
        })
        .collect();
    for name in [
        "transport:packet_sent",
        "transport:packet_received",
        "recovery:metrics_updated",
        "recovery:congestion_state_updated",
    ] {
        assert!(names.contains(name), "no {name} in {names:?}");
    }
    // An unwritable qlog directory is named.
    let blocker = dir.join("file");
    std::fs::write(&blocker, "").unwrap();
    let o = bbrlab(&[
        "run",
        &example("bbr-shallow.toml"),
        "--set",
        "duration=1s",
        "--set",
        "warmup=0s",
        "--out",
        dir.join("out2").to_str().unwrap(),
        "--qlog",
        blocker.join("sub").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("qlog directory"), "{}", stderr(&o));
}

#[test]
fn serve_and_get_transfer_over_quic_and_name_bad_input() {
    let dir = tempdir("serve");
    std::fs::create_dir_all(&dir).unwrap();
    let cert = dir.join("cert.pem");
    let (mut child, first, _) = spawn_announcing(&[
        "serve",
        "--cc",
        "obbr",
        "--listen",
        "127.0.0.1:0",
        "--cert-out",
        cert.to_str().unwrap(),
        "--duration",
        "20s",
    ]);
    let addr = first
        .strip_prefix("serving on ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("first line {first:?}"))
        .to_string();
    assert!(first.contains("ALPN bbrlab/1 and h3"), "{first}");
    let o = bbrlab(&[
        "get",
        &addr,
        "--size",
        "2MB",
        "--trust",
        cert.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["bytes"], 2_000_000);
    assert_eq!(report["complete"], true);
    let o = bbrlab(&[
        "get",
        &format!("quic://{addr}/"),
        "--live",
        "2Mbit",
        "--for",
        "2s",
        "--trust",
        cert.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(report["live"]["frames"].as_u64().unwrap() >= 50, "{report}");
    let _ = child.kill();
    let _ = child.wait();

    for (args, expected) in [
        (
            vec![
                "get",
                &addr,
                "--size",
                "lots",
                "--trust",
                cert.to_str().unwrap(),
            ],
            "--size",
        ),
        (
            vec![
                "get",
                &addr,
                "--live",
                "fast",
                "--trust",
                cert.to_str().unwrap(),
            ],
            "--live",
        ),
        (
            vec![
                "get",
                &addr,
                "--size",
                "1MB",
                "--trust",
                "/nonexistent/cert.pem",
            ],
            "--trust",
        ),
        (
            vec![
                "get",
                &addr,
                "--size",
                "1MB",
                "--receive-window",
                "1KB",
                "--trust",
                cert.to_str().unwrap(),
            ],
            "--receive-window: expected 3000 bytes",
        ),
        (
            vec![
                "get",
                &addr,
                "--size",
                "1MB",
                "--receive-window",
                "plenty",
                "--trust",
                cert.to_str().unwrap(),
            ],
            "--receive-window",
        ),
        (
            vec!["get", "not an address", "--size", "1MB"],
            "expected HOST:PORT",
        ),
        (
            vec!["serve", "--cc", "nonsense", "--duration", "1s"],
            "--cc",
        ),
        (
            vec!["serve", "--cc", "bbr", "--duration", "soon"],
            "--duration",
        ),
        (vec!["serve", "--cc", "bbr", "--cert", "x.pem"], "--key"),
        (
            vec!["serve", "--cc", "bbr", "--root", "/nonexistent/site"],
            "--root: /nonexistent/site is not a directory",
        ),
        (
            vec!["serve", "--cc", "bbr", "--root", cert.to_str().unwrap()],
            "is not a directory",
        ),
    ] {
        let o = bbrlab(&args);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(stderr(&o).contains(expected), "{args:?}: {}", stderr(&o));
    }
}

/// The worked example of docs/EXPERIMENTS.md: a hypothesis as one
/// experiment file, run shortened; its verdict lines and its hash.
#[test]
fn the_worked_experiment_file_runs_and_prints_its_verdicts_and_hash() {
    let file = repo().join("examples/experiments/my-variant-hypothesis.toml");
    let out = tempdir("experiment");
    let o = bbrlab(&[
        "experiment",
        &file.display().to_string(),
        "--fast",
        "--jobs",
        "1",
        "--out",
        &out.display().to_string(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let hash = lab::reproduce::file::sha256_hex(&std::fs::read(&file).unwrap());
    assert!(stdout.contains(&format!("sha256 {hash}")), "{stdout}");
    let verdict = |id: &str| {
        stdout
            .lines()
            .find(|l| l.contains(id))
            .unwrap_or_else(|| panic!("no line for {id}: {stdout}"))
            .to_string()
    };
    let half = verdict("mine.retransmits-half");
    assert!(half.starts_with("Partly reproduced"), "{half}");
    assert!(half.contains("holds in 1 of 2 (not at 0.1bdp)"), "{half}");
    let goodput = verdict("mine.keeps-goodput");
    assert!(goodput.starts_with("Reproduced"), "{goodput}");
    assert!(goodput.contains("holds in 3 of 3"), "{goodput}");
    let claims = std::fs::read_to_string(out.join("claims.json")).unwrap();
    assert!(
        claims.contains(&format!("\"experiment_sha256\": \"{hash}\"")),
        "{claims}"
    );
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(report.contains(&hash));
    // The report rebuilds from the store alone.
    let o = bbrlab(&["report", &out.display().to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_dash_run_writes_its_players_decision_log() {
    let dir = tempdir("dash-log");
    let scenario = repo().join("scenarios/dash-xval/fig14-path.toml");
    let o = bbrlab(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--series-format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut log = csv::Reader::from_path(dir.join("series_dash.csv")).expect("series_dash.csv");
    let header = log.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (rule, outcome, segment) = (column("rule"), column("outcome"), column("segment"));
    let rows: Vec<csv::StringRecord> = log.records().map(Result::unwrap).collect();
    let segments = summary(&dir)["flows"][0]["dash"]["segments"]
        .as_u64()
        .unwrap();
    let loaded: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|r| &r[outcome] == "loaded")
        .map(|r| &r[segment])
        .collect();
    assert_eq!(
        loaded.len() as u64,
        segments,
        "every segment's request is logged"
    );
    assert_eq!(
        &rows[0][rule], "kept",
        "the first segment: the initial bitrate's quality"
    );
    assert!(rows.iter().any(|r| &r[rule] == "throughput"));
    let _ = std::fs::remove_dir_all(&dir);
}
