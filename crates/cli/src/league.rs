//! `bbrlab league` and `bbrlab advise`: every registered controller over
//! the league's conditions, or over one user's path (see `lab::league`).

use std::path::PathBuf;

use lab::league::{self, advise, League, Weights};

use crate::progress::Bar;

/// Which controllers, seeds and weights; shared by both commands.
#[derive(clap::Args, Debug)]
pub struct FieldArgs {
    /// Only these algorithms (comma-separated names, each with its
    /// declared variants; a full spec such as obbr:mu=0.75 is taken as
    /// given) [default: every registered algorithm].
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    cc: Vec<String>,
    /// Add a controller spec to the field (repeatable), e.g. obbr:mu=0.75.
    #[arg(long, value_name = "SPEC")]
    add: Vec<String>,
    /// Seeds of every point: a count N (seeds 1 to N), a range A-B (e.g.
    /// 3-5, seeds held out from tuning) or a list 1,2,7; 1 to 100 seeds
    /// [default: 3, 1 with --fast].
    #[arg(long, value_name = "N|A-B|LIST", value_parser = parse_seeds)]
    seeds: Option<Seeds>,
    /// Weights of the scores in the indices, name=number,... (scores not
    /// named keep their default: 2 for goodput, frame_delay and qoe, 1 for
    /// retx, delay, jain, harm and startup).
    #[arg(long, value_name = "NAME=W,...")]
    weights: Option<Weights>,
    /// Parallel runs [default: all cores].
    #[arg(long, short)]
    jobs: Option<usize>,
}

/// The seeds `--seeds` names.
#[derive(Clone, Debug)]
pub struct Seeds(Vec<u64>);

fn parse_seeds(text: &str) -> Result<Seeds, String> {
    league::parse_seeds(text).map(Seeds)
}

#[derive(clap::Args, Debug)]
pub struct LeagueArgs {
    /// Output directory [default: out/league, out/league-fast with --fast].
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// The quick pass: each condition's [fast] table, one seed.
    #[arg(long)]
    fast: bool,
    /// The directory of condition files [default: <scenarios>/league].
    #[arg(long, value_name = "DIR")]
    conditions: Option<PathBuf>,
    /// A goal file (e.g. scenarios/league/goals/tempered-bbr.toml): its
    /// controller's goals, judged on the scores on the development seeds
    /// and on the held-out ones; the table goes into report.html,
    /// goals.json and goals.csv.
    #[arg(long, value_name = "FILE")]
    goals: Option<PathBuf>,
    #[command(flatten)]
    field: FieldArgs,
}

#[derive(clap::Args, Debug)]
pub struct AdviseArgs {
    /// A scenario file of the path (flow 0 is yours; its [league] table,
    /// if any, says otherwise); or give --trace or --rate.
    scenario: Option<PathBuf>,
    /// A capacity trace of the path: mahimahi (.down) or Irish 5G (.csv).
    #[arg(long, value_name = "FILE", conflicts_with = "scenario")]
    trace: Option<PathBuf>,
    /// The path's capacity, e.g. 40Mbit.
    #[arg(long, conflicts_with = "scenario")]
    rate: Option<String>,
    /// The base RTT.
    #[arg(long, default_value = "50ms")]
    rtt: String,
    /// The bottleneck buffer: a size (300KB), packets (100pkt) or BDP multiple (0.5bdp).
    #[arg(long, default_value = "1bdp")]
    buffer: String,
    /// Random loss, e.g. 1%.
    #[arg(long, default_value = "0")]
    loss: String,
    /// CUBIC flows sharing the path (0 to 100).
    #[arg(long, default_value_t = 0)]
    cubic: u32,
    /// What your flow carries: bulk, live (a 5.4 Mbit/s stream) or dash.
    #[arg(long, default_value = "bulk")]
    app: advise::App,
    /// BBR-Copilot padding on the live stream (with --app live).
    #[arg(long)]
    copilot: bool,
    /// Simulated time per run.
    #[arg(long, default_value = "30s")]
    duration: String,
    /// Output directory [default: out/advise].
    #[arg(long, short)]
    out: Option<PathBuf>,
    #[command(flatten)]
    field: FieldArgs,
}

impl FieldArgs {
    fn league(&self, conditions: Vec<league::Condition>, fast: bool) -> anyhow::Result<League> {
        Ok(League {
            conditions,
            controllers: league::controllers(&self.cc, &self.add)?,
            seeds: match &self.seeds {
                Some(Seeds(s)) => s.clone(),
                None => (1..=if fast { 1 } else { 3 }).collect(),
            },
            fast,
            record: Vec::new(),
        })
    }
}

pub fn league(args: LeagueArgs) -> anyhow::Result<()> {
    let clock = lab::provenance::Clock::start(Some(crate::command_line()), args.fast);
    let jobs = lab::sweep::jobs(args.field.jobs)?;
    let dir = match args.conditions {
        Some(d) => d,
        None => lab::reproduce::scenarios_dir(None)?.join("league"),
    };
    let conditions = league::condition::load_dir(&dir)?;
    let mut league = args.field.league(conditions, args.fast)?;
    let goals = match &args.goals {
        Some(file) => {
            let g = league::goals::GoalFile::load(file, &league.conditions, &league.controllers)?;
            league.record = g.scores();
            Some(g)
        }
        None => None,
    };
    let weights = args.field.weights.clone().unwrap_or_default();
    let out = args.out.unwrap_or_else(|| {
        PathBuf::from("out").join(if args.fast { "league-fast" } else { "league" })
    });
    let (rows, report) = league.run(&out, jobs, &Bar::default())?;
    lab::provenance::write(&out, &clock.finish(report.skipped))?;
    let title = if args.fast {
        "bbrlab league (--fast)"
    } else {
        "bbrlab league"
    };
    let verdicts = goals.map(|g| g.judge(&rows));
    if let Some(v) = &verdicts {
        v.write(&out)?;
    }
    let standings = league::write_outputs(&out, &league, &rows, &weights, title, |_| {
        verdicts.iter().map(|v| v.section()).collect()
    })?;
    println!("{:>4}  {:24}  {:>13}", "rank", "controller", "index");
    for st in &standings.overall {
        println!("{:>4}  {:24}  {:>13}", st.rank, st.cc, st.index.text(3));
    }
    if let Some(v) = &verdicts {
        for line in v.text() {
            println!("{line}");
        }
        println!("goals: {}", out.join("goals.csv").display());
    }
    println!(
        "league: {} runs ({} recorded before, {} run now) in {:.1} s; report: {}; scores: {}",
        report.total,
        report.skipped,
        report.ran,
        clock.elapsed_s(),
        out.join("report.html").display(),
        out.join("scores.csv").display()
    );
    Ok(())
}

pub fn advise(args: AdviseArgs) -> anyhow::Result<()> {
    let clock = lab::provenance::Clock::start(Some(crate::command_line()), false);
    let jobs = lab::sweep::jobs(args.field.jobs)?;
    let (condition, path) = match &args.scenario {
        Some(file) => (
            advise::condition_from_file(file)?,
            file.display().to_string(),
        ),
        None => {
            let flags = advise::PathFlags {
                rate: args.rate.clone(),
                trace: args.trace.clone(),
                rtt: args.rtt.clone(),
                buffer: args.buffer.clone(),
                loss: args.loss.clone(),
                cubic: args.cubic,
                app: args.app,
                copilot: args.copilot,
                duration: args.duration.clone(),
            };
            let what = match (&args.rate, &args.trace) {
                (Some(r), _) => r.clone(),
                (_, Some(t)) => format!("trace {}", t.display()),
                _ => String::new(),
            };
            let path = format!(
                "{what}, RTT {}, buffer {}, loss {}{}{}",
                args.rtt,
                args.buffer,
                args.loss,
                if args.cubic > 0 {
                    format!(", {} CUBIC flow(s)", args.cubic)
                } else {
                    String::new()
                },
                match args.app {
                    advise::App::Bulk => String::new(),
                    advise::App::Live if args.copilot => ", live stream with Copilot".to_string(),
                    advise::App::Live => ", live stream".to_string(),
                    advise::App::Dash => ", DASH session".to_string(),
                }
            );
            (flags.condition()?, path)
        }
    };
    let league = args.field.league(vec![condition], false)?;
    let weights = args.field.weights.clone().unwrap_or_default();
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("out").join("advise"));
    let (rows, report) = league.run(&out, jobs, &Bar::default())?;
    lab::provenance::write(&out, &clock.finish(report.skipped))?;
    let mut advice = None;
    league::write_outputs(
        &out,
        &league,
        &rows,
        &weights,
        "bbrlab advise",
        |standings| match advise::Advice::new(path.clone(), standings, &weights) {
            Ok(a) => {
                let section = a.section();
                advice = Some(a);
                vec![section]
            }
            Err(_) => Vec::new(),
        },
    )?;
    let advice =
        advice.ok_or_else(|| anyhow::anyhow!("no controller has an index on this path"))?;
    let json = out.join("advice.json");
    std::fs::write(&json, serde_json::to_string_pretty(&advice)? + "\n")
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", json.display()))?;
    println!("path: {path}");
    print!("{}", advice.text());
    println!(
        "{} runs ({} recorded before) in {:.1} s; report: {}; advice: {}",
        report.total,
        report.skipped,
        clock.elapsed_s(),
        out.join("report.html").display(),
        json.display()
    );
    Ok(())
}
