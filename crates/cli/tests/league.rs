//! `bbrlab league` and `bbrlab advise` end to end on tiny conditions:
//! outputs, sanity of the scores, determinism, resumption, errors.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::browser::check_in_browser;
use common::run::{bbrlab, repo};

fn tempdir(tag: &str) -> PathBuf {
    common::run::tempdir("league", tag)
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Two tiny conditions: a lossy shallow path with a two-point sweep, and
/// a path shared with CUBIC (scoring Jain's index and harm).
fn conditions(dir: &Path) -> PathBuf {
    let c = dir.join("conditions");
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(
        c.join("lossy.toml"),
        "name = \"lossy\"\nduration = \"3s\"\nwarmup = \"1s\"\nsample_interval = \"100ms\"\n\
         [link]\nrate = \"10Mbit\"\nrtt = \"40ms\"\nbuffer = \"0.5bdp\"\n[[flow]]\ncc = \"bbr\"\n\
         [sweep]\n\"link.loss\" = [\"0\", \"1%\"]\n[fast]\nduration = \"2s\"\n\
         [league]\ntitle = \"lossy\"\ngroup = \"alone\"\nsource = \"a test\"\nscores = [\"goodput\", \"retx\", \"delay\"]\n",
    )
    .unwrap();
    std::fs::write(
        c.join("shared.toml"),
        "name = \"shared\"\nduration = \"3s\"\nwarmup = \"1s\"\nsample_interval = \"100ms\"\n\
         [link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\nbuffer = \"2bdp\"\n[[flow]]\ncc = \"bbr\"\n[[flow]]\ncc = \"cubic\"\n\
         [league]\ntitle = \"shared\"\ngroup = \"beside CUBIC\"\nsource = \"a test\"\nsubject = [0]\n\
         scores = [\"jain\", \"harm\", \"retx\"]\n",
    )
    .unwrap();
    c
}

/// `bbrlab league` on `conditions` into `out`, with `extra` flags.
fn league_with(conditions: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "league",
        "--conditions",
        conditions.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    bbrlab(&args)
}

/// The tiny league: BBRv1 and CUBIC, two seeds.
fn league(conditions: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--cc", "bbr,cubic", "--seeds", "2"];
    args.extend_from_slice(extra);
    league_with(conditions, out, &args)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn league_scores_ranks_resumes_and_is_deterministic() {
    let dir = tempdir("run");
    let c = conditions(&dir);
    let out = dir.join("a");
    let o = league(&c, &out, &["--jobs", "2"]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    // (2 points + 1 point) x 2 controllers x 2 seeds, and the CUBIC flow
    // alone for harm at each of the 2 seeds.
    assert!(
        stdout.contains("league: 14 runs (0 recorded before, 14 run now)"),
        "{stdout}"
    );
    assert!(stdout.contains("rank") && stdout.contains("bbr") && stdout.contains("cubic"));
    for f in [
        "report.html",
        "scores.csv",
        "scores.parquet",
        "aggregate.csv",
        "aggregate.parquet",
    ] {
        assert!(out.join(f).is_file(), "{f} written");
    }
    let mut reader = csv::Reader::from_path(out.join("scores.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(
        rows.len(),
        12,
        "one row per condition point x controller x seed"
    );
    for r in &rows {
        let num = |name: &str| r[col(name)].parse::<f64>();
        match &r[col("condition")] {
            "lossy" => {
                // A share of capacity: above 0, at most 1 (plus rounding);
                // without loss both controllers fill most of the link.
                let g = num("goodput").unwrap();
                assert!(g > 0.0 && g <= 1.0 + 1e-9, "goodput share {g}");
                if &r[col("point")] == "link.loss=0" {
                    assert!(g > 0.6, "goodput share {g} on a clean link");
                }
                assert!(num("retx").unwrap() >= 0.0);
                assert!(num("delay").unwrap() >= 0.0);
                assert!(r[col("jain")].is_empty(), "jain does not apply alone");
            }
            "shared" => {
                let j = num("jain").unwrap();
                assert!(j > 0.5 && j <= 1.0, "jain {j}");
                let h = num("harm").unwrap();
                assert!((0.0..=1.0).contains(&h), "harm {h}");
                assert!(r[col("goodput")].is_empty());
            }
            other => panic!("unexpected condition {other}"),
        }
    }
    let scores = read(&out.join("scores.csv"));
    let aggregate = read(&out.join("aggregate.csv"));
    assert!(aggregate.starts_with("group,cc,rank,index,index_sd,seeds,goodput,goodput_sd"));
    assert!(aggregate.lines().any(|l| l.starts_with("overall,")));

    // Resumed: nothing reruns, the same scores.
    let o = league(&c, &out, &[]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains("(14 recorded before, 0 run now)"),
        "{stdout}"
    );
    assert_eq!(read(&out.join("scores.csv")), scores);

    // Deterministic: another directory, one thread, identical scores.
    let other = dir.join("b");
    let o = league(&c, &other, &["--jobs", "1"]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert_eq!(read(&other.join("scores.csv")), scores);
    assert_eq!(read(&other.join("aggregate.csv")), aggregate);

    // Weights change the indices, not the scores, and rerun nothing.
    let o = league(&c, &out, &["--weights", "retx=5"]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert_eq!(read(&out.join("scores.csv")), scores);
    assert_ne!(read(&out.join("aggregate.csv")), aggregate);
    assert!(read(&out.join("report.html")).contains("retx=5"));

    // `bbrlab report` does not replace the league's page with a sweep's.
    let o = bbrlab(&["report", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("the output of `bbrlab league`"),
        "{}",
        text(&o).1
    );

    check_in_browser(&out.join("report.html"), "league");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn league_fast_uses_each_conditions_fast_table() {
    let dir = tempdir("fast");
    let c = conditions(&dir);
    let out = dir.join("fast");
    let o = league_with(&c, &out, &["--fast", "--cc", "bbr"]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    // One seed at --fast: 3 points + the CUBIC flow alone.
    assert!(stdout.contains("league: 4 runs"), "{stdout}");
    let html = read(&out.join("report.html"));
    assert!(html.contains("bbrlab league (--fast)"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A goal file for BBRv1 on the tiny conditions: tuned on seed 1.
fn goal_file(dir: &Path, condition: &str) -> PathBuf {
    let f = dir.join("goals.toml");
    std::fs::write(
        &f,
        format!(
            "controller = \"bbr\"\ntitle = \"BBRv1's goals\"\ndevelopment_seeds = [1]\n\
             [[goal]]\nname = \"1\"\ntitle = \"half the link\"\ntest = \"at-least\"\nscore = \"goodput\"\nbound = 0.5\n\
             at = [{{ condition = \"{condition}\", points = [\"link.loss=1%\"] }}]\n\
             [[goal]]\nname = \"2\"\ntitle = \"front\"\ntest = \"pareto\"\nscores = [\"goodput\", \"retx\"]\nversus = [\"cubic\"]\n\
             ties = {{ goodput = \"1%\", retx = 0.05 }}\nat = [{{ condition = \"lossy\" }}]\n\
             [[goal]]\nname = \"3\"\ntitle = \"fair\"\ntest = \"at-least\"\nscore = \"jain\"\nbound = 0.5\nat = [{{ condition = \"shared\" }}]\n"
        ),
    )
    .unwrap();
    f
}

#[test]
fn goals_are_judged_on_development_and_held_out_seeds() {
    let dir = tempdir("goals");
    let c = conditions(&dir);
    let out = dir.join("out");
    let goals = goal_file(&dir, "lossy");
    let args = [
        "--cc",
        "bbr,cubic",
        "--seeds",
        "1-2",
        "--goals",
        goals.to_str().unwrap(),
    ];
    let o = league_with(&c, &out, &args);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("development seeds 1"), "{stdout}");
    assert!(stdout.contains("held-out seeds 2"), "{stdout}");
    let j: serde_json::Value = serde_json::from_str(&read(&out.join("goals.json"))).unwrap();
    assert_eq!(j["sets"][0]["seeds"], serde_json::json!([1]));
    assert_eq!(j["sets"][1]["seeds"], serde_json::json!([2]));
    for g in j["goals"].as_array().unwrap() {
        for s in g["sets"].as_array().unwrap() {
            assert!(s["points"].as_u64().unwrap() > 0, "{g}");
        }
    }
    // Goal 1 at the lossy point only: one point per seed set; BBRv1
    // keeps more than half of a 10 Mbit/s link at 1 % loss.
    assert_eq!(j["goals"][0]["sets"][0]["points"], 1);
    assert_eq!(j["goals"][0]["sets"][0]["met"], 1, "{}", j["goals"][0]);
    let csv = read(&out.join("goals.csv"));
    assert!(
        csv.starts_with(
            "goal,set,seeds,condition,point,held_out_point,value,bound,margin,met,detail\n"
        ),
        "{csv}"
    );
    let html = read(&out.join("report.html"));
    assert!(html.contains("Goals of bbr") && html.contains("held-out seeds 2"));
    // The goals read goodput beside CUBIC, which the condition does not rank: recorded, not ranked.
    let scores = read(&out.join("scores.csv"));
    assert!(scores.lines().next().unwrap().contains("share"), "{scores}");
    // Deterministic: the same league run afresh elsewhere judges alike.
    let again = dir.join("again");
    assert!(league_with(&c, &again, &args).status.success());
    assert_eq!(read(&again.join("goals.csv")), csv);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_goal_file_is_refused_before_anything_runs() {
    let dir = tempdir("badgoals");
    let c = conditions(&dir);
    let out = dir.join("out");
    for (condition, field, want) in [
        (
            "nosuch",
            "bbr,cubic",
            "goals.toml: goal[0].at[0].condition (line 10): unknown condition `nosuch`",
        ),
        // A controller outside the field.
        (
            "lossy",
            "bbr",
            "goal[1].versus (line 16): controller `cubic` is not in the league's field",
        ),
    ] {
        let goals = goal_file(&dir, condition);
        let o = league_with(
            &c,
            &out,
            &["--cc", field, "--goals", goals.to_str().unwrap()],
        );
        let (_, stderr) = text(&o);
        assert!(!o.status.success());
        assert!(stderr.contains(want), "{stderr}");
    }
    assert!(!out.join("runs").exists(), "nothing ran");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_weights_controllers_and_condition_files_are_named() {
    let dir = tempdir("bad");
    let c = conditions(&dir);
    let out = dir.join("out");
    for (args, want) in [
        (vec!["--weights", "latency=1"], "unknown score `latency`"),
        (
            vec!["--weights", "goodput=-1"],
            "expected a finite number at least 0, got `-1`",
        ),
        (vec!["--weights", "goodput"], "expected name=number"),
        (vec!["--cc", "vegas"], "--cc: unknown algorithm `vegas`"),
        (vec!["--add", "obbr:mu=9"], "--add obbr:mu=9"),
        (vec!["--seeds", "0"], "--seeds"),
        (vec!["--seeds", "5-3"], "the range ends before it starts"),
        (vec!["--seeds", "1,x"], "`x` is not a seed number"),
    ] {
        let o = league_with(&c, &out, &args);
        let (_, stderr) = text(&o);
        assert!(!o.status.success(), "{args:?} accepted");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
    std::fs::write(
        c.join("typo.toml"),
        "name = \"typo\"\n[link]\nrate = \"10Mbit\"\nrtt = \"40ms\"\nbuffer = \"1bdp\"\n[[flow]]\ncc = \"bbr\"\n\
         [league]\ntitle = \"t\"\ngroup = \"g\"\nsource = \"s\"\nscore = [\"goodput\"]\n",
    )
    .unwrap();
    let o = league_with(&c, &out, &[]);
    let (_, stderr) = text(&o);
    assert!(!o.status.success());
    assert!(
        stderr.contains("typo.toml: league.score (line 12): unknown key `score`"),
        "{stderr}"
    );
    assert!(!out.join("runs").exists(), "nothing ran");
    std::fs::remove_dir_all(&dir).ok();
}

fn advice(out: &Path) -> serde_json::Value {
    serde_json::from_str(&read(&out.join("advice.json"))).expect("advice.json is JSON")
}

#[test]
fn advise_recommends_on_a_rate_path_and_on_a_trace() {
    let dir = tempdir("advise");
    let out = dir.join("rate");
    let o = bbrlab(&[
        "advise",
        "--rate",
        "20Mbit",
        "--rtt",
        "40ms",
        "--buffer",
        "0.5bdp",
        "--loss",
        "1%",
        "--duration",
        "4s",
        "--seeds",
        "2",
        "--cc",
        "bbr,bbr2,cubic",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains("path: 20Mbit, RTT 40ms, buffer 0.5bdp, loss 1%"),
        "{stdout}"
    );
    assert!(
        stdout.contains("recommended: ") && stdout.contains("runner-up:"),
        "{stdout}"
    );
    assert!(
        stdout.contains("goodput (share of capacity)") && stdout.contains("retransmissions (%)")
    );
    let a = advice(&out);
    let ranking = a["ranking"].as_array().unwrap();
    assert_eq!(ranking.len(), 3);
    assert_eq!(a["recommended"]["cc"], ranking[0]["cc"]);
    assert_eq!(a["runner_up"]["cc"], ranking[1]["cc"]);
    let best = a["recommended"]["index"].as_f64().unwrap();
    assert!(ranking.iter().all(|e| e["index"].as_f64().unwrap() <= best));
    assert!(
        a["recommended"]["scores"]["goodput"]["mean"]
            .as_f64()
            .unwrap()
            > 0.2
    );
    assert!(a["close"].is_boolean() && a["margin"].as_f64().unwrap() >= 0.0);
    assert!(read(&out.join("report.html")).contains("Recommendation"));

    let out = dir.join("trace");
    let trace = repo().join("data/traces/mahimahi/TMobile-LTE-short.down");
    let o = bbrlab(&[
        "advise",
        "--trace",
        trace.to_str().unwrap(),
        "--rtt",
        "80ms",
        "--buffer",
        "0.5bdp",
        "--cubic",
        "1",
        "--duration",
        "4s",
        "--seeds",
        "1",
        "--cc",
        "bbr,cubic",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains("1 CUBIC flow(s)") && stdout.contains("recommended: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("harm to cross traffic") && stdout.contains("Jain's index"),
        "{stdout}"
    );
    let a = advice(&out);
    assert!(a["recommended"]["scores"]["harm"]["mean"].is_number());
    check_in_browser(&out.join("report.html"), "advise");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn advise_refuses_bad_flags_with_the_flag_named() {
    for (args, want) in [
        (vec!["--rate", "40"], "--rate: "),
        (vec!["--rate", "40Mbit", "--loss", "150%"], "--loss: "),
        (vec!["--rate", "40Mbit", "--rtt", "fast"], "--rtt: "),
        (vec!["--rate", "40Mbit", "--buffer", "lots"], "--buffer: "),
        (vec!["--rate", "40Mbit", "--copilot"], "--copilot: "),
        (
            vec!["--rate", "40Mbit", "--trace", "x.down"],
            "--rate and --trace",
        ),
        (
            vec!["--trace", "no/such.down"],
            "--trace no/such.down: cannot open the trace",
        ),
        (vec!["--rtt", "50ms"], "expected a path"),
        (
            vec!["--rate", "40Mbit", "--app", "game"],
            "unknown application `game`",
        ),
        (
            vec!["--rate", "40Mbit", "--weights", "x=1"],
            "unknown score `x`",
        ),
    ] {
        let mut all = vec!["advise", "--out", "/nonexistent/never-written"];
        all.extend(args.iter());
        let o = bbrlab(&all);
        let (_, stderr) = text(&o);
        assert!(!o.status.success(), "{args:?} accepted");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}

/// The declared conditions of scenarios/league at --fast, for a small
/// field: every condition runs, every group has its section with its
/// rankings, the groups that score goodput their two Pareto plots, and
/// the page renders in Chromium.
#[test]
fn league_fast_on_the_declared_conditions_writes_every_group() {
    let dir = tempdir("declared");
    let out = dir.join("out");
    let conditions = repo().join("scenarios/league");
    let o = league_with(&conditions, &out, &["--fast", "--cc", "bbr,obbr"]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains("obbr:code=true"),
        "the declared variant runs: {stdout}"
    );
    let html = read(&out.join("report.html"));
    let mut groups = std::collections::BTreeSet::new();
    for file in std::fs::read_dir(&conditions).unwrap() {
        let path = file.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue; // goals/
        }
        let text = read(&path);
        let group = text
            .lines()
            .find_map(|l| l.strip_prefix("group = \""))
            .and_then(|g| g.strip_suffix('"'))
            .expect("a group")
            .to_string();
        let scores_goodput = text
            .lines()
            .any(|l| l.starts_with("scores = [") && l.contains("\"goodput\""));
        groups.insert((group, scores_goodput));
    }
    assert!(groups.len() >= 8, "{groups:?}");
    for (group, goodput) in &groups {
        let start = html
            .find(&format!("<h2>Group: {group}</h2>"))
            .unwrap_or_else(|| panic!("no section for {group}"));
        let section = &html[start..];
        let section = &section[..section.find("</section>").unwrap_or(section.len())];
        assert!(section.contains("obbr:code=true"), "{group}: ranking");
        if *goodput {
            assert_eq!(
                section.matches("<svg").count(),
                2,
                "{group}: two Pareto plots"
            );
        }
    }
    // (points per condition at --fast) x 3 controllers x 1 seed.
    let rows = read(&out.join("scores.csv")).lines().count() - 1;
    assert_eq!(rows % 3, 0, "{rows}");
    check_in_browser(&out.join("report.html"), "league-fast");
    std::fs::remove_dir_all(&dir).ok();
}
