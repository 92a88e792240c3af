//! `my-bbr` in an experiment file: the crate's own file, run shortened
//! through `lab::reproduce::experiment` after registering the controller,
//! judges both claims and labels the controller by its display name.

use std::path::PathBuf;

fn file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("experiments/my-bbr-shallow.toml")
}

#[test]
fn the_experiment_file_runs_my_bbr_and_judges_its_claims() {
    my_controller::register();
    let out = std::env::temp_dir().join(format!("bbrlab-my-bbr-experiment-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let options = lab::reproduce::Options {
        out: Some(out.clone()),
        fast: true,
        jobs: Some(1),
        ..Default::default()
    };
    let done = lab::reproduce::experiment(&file(), &options, &lab::sweep::Silent).unwrap();
    assert_eq!(done.failed_runs, 0);
    assert!(done.not_run.is_empty(), "{:?}", done.not_run);

    let claims: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(out.join("claims.json")).unwrap()).unwrap();
    let ids: Vec<_> = claims.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["mine.fewer-retransmissions", "mine.keeps-goodput"]);
    let hash = lab::reproduce::file::sha256_hex(&std::fs::read(file()).unwrap());
    for c in &claims {
        assert_eq!(c["paper"], "own hypothesis", "{c}");
        assert_eq!(c["experiment_sha256"], hash.as_str(), "{c}");
        let verdict = c["verdict"].as_str().unwrap();
        assert!(
            ["Reproduced", "Partly reproduced", "Differs"].contains(&verdict),
            "a claim about my-bbr was not judged: {c}"
        );
    }
    // The report names the controller as it registered itself.
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(report.contains("My BBR"), "no display name in the report");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_binary_names_what_is_wrong_with_its_arguments() {
    let bin = env!("CARGO_BIN_EXE_bbrlab-example-my-controller");
    let cases: [(&[&str], &str); 4] = [
        (&["experiment"], "expected an experiment file"),
        (
            &["experiment", "x.toml", "--bogus"],
            "unknown option `--bogus`",
        ),
        (&["experiment", "no-such-file.toml"], "no-such-file.toml"),
        (&["ten"], "`ten`: expected the seconds to simulate"),
    ];
    for (args, expected) in cases {
        let o = std::process::Command::new(bin).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
