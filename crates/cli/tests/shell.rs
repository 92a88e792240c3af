//! `bbrlab shell`: traffic crosses the link, errors are clear, and nothing
//! it made survives however it ends (normal exit, failing command, a
//! missing command, Ctrl-C, `kill -9`). Needs root, as the shell does.
//!
//! The tests run one at a time: each checks that the devices it saw are
//! gone, which a concurrent shell reusing the name would blur.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn bbrlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bbrlab"))
}

fn run(args: &[&str]) -> Output {
    bbrlab().args(args).output().expect("bbrlab runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The outer device named in the shell's banner.
fn outer_device(stderr: &str) -> String {
    let at = stderr.find("device ").expect("the banner names the device") + "device ".len();
    stderr[at..]
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap()
        .to_string()
}

fn device_exists(name: &str) -> bool {
    std::path::Path::new("/sys/class/net").join(name).exists()
}

/// Whether any process is still in the network namespace `id`
/// (`net:[inode]`, as /proc/PID/ns/net reads).
fn namespace_in_use(id: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read_link(entry.path().join("ns/net"))
            .is_ok_and(|link| link.to_string_lossy() == id)
    })
}

/// Waits up to two seconds for `gone` to hold (the kernel frees a
/// namespace and its devices asynchronously).
fn eventually(gone: impl Fn() -> bool) -> bool {
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        if gone() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    gone()
}

fn assert_cleaned_up(device: &str, namespace: Option<&str>) {
    assert!(
        eventually(|| !device_exists(device)),
        "device {device} is left over"
    );
    if let Some(id) = namespace {
        assert!(
            eventually(|| !namespace_in_use(id)),
            "namespace {id} is left over"
        );
    }
}

#[test]
fn a_tcp_connection_crosses_the_links_delay_and_rate() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let listener = TcpListener::bind("0.0.0.0:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // The server outside sends 1 MB to whoever connects.
    let server = std::thread::spawn(move || {
        let (mut connection, _) = listener.accept().unwrap();
        connection.write_all(&vec![7u8; 1_000_000]).unwrap();
    });
    // Inside: connect (one round trip), read everything, print the times.
    let script = format!(
        "import os, socket, time\n\
         t = time.monotonic()\n\
         s = socket.create_connection((os.environ['BBRLAB_BASE'], {port}))\n\
         c = time.monotonic() - t\n\
         n = 0\n\
         while True:\n\
         \x20   d = s.recv(65536)\n\
         \x20   if not d: break\n\
         \x20   n += len(d)\n\
         print(c, time.monotonic() - t, n, os.readlink('/proc/self/ns/net'))\n"
    );
    let out = run(&[
        "shell", "--rate", "20Mbit", "--rtt", "100ms", "--buffer", "1bdp", "--", "python3", "-c",
        &script,
    ]);
    server.join().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let fields: Vec<&str> = stdout.split_whitespace().collect();
    let connect: f64 = fields[0].parse().unwrap();
    let total: f64 = fields[1].parse().unwrap();
    assert_eq!(fields[2], "1000000", "every byte arrived");
    // The handshake takes one round trip of propagation (and a little more
    // for the packets' service time and the machine's latency).
    assert!(
        (0.100..0.130).contains(&connect),
        "connecting took {connect:.3} s through a 100 ms link"
    );
    // 1 MB is 8.3 Mbit with headers: at least 0.41 s at 20 Mbit/s, plus
    // slow start's round trips.
    assert!(
        (0.5..3.0).contains(&total),
        "1 MB took {total:.3} s at 20 Mbit/s, 100 ms"
    );
    assert!(
        stderr.contains("downlink: ") && stderr.contains("queueing delay p50"),
        "{stderr}"
    );
    assert_cleaned_up(&outer_device(&stderr), Some(fields[3]));
}

#[test]
fn the_commands_exit_status_is_the_shells_and_a_failure_leaves_nothing() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = run(&[
        "shell",
        "--rate",
        "10Mbit",
        "--",
        "sh",
        "-c",
        "readlink /proc/self/ns/net; exit 3",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let namespace = text(&out.stdout).trim().to_string();
    assert!(namespace.starts_with("net:["), "{namespace}");
    assert_ne!(
        namespace,
        std::fs::read_link("/proc/self/ns/net")
            .unwrap()
            .to_string_lossy(),
        "the command runs in a namespace of its own"
    );
    assert_cleaned_up(&outer_device(&text(&out.stderr)), Some(&namespace));
}

#[test]
fn a_missing_command_is_named_and_leaves_nothing() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = run(&["shell", "--", "no-such-command-bbrlab"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no-such-command-bbrlab: command not found"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_cleaned_up(&outer_device(&stderr), None);
}

/// Starts `bbrlab shell -- sh -c 'readlink ...; exec sleep 30'` in a
/// process group of its own, as a terminal's job, and returns it with its
/// namespace and outer device once the command runs.
fn start_sleeping_shell() -> (Child, String, String) {
    use std::os::unix::process::CommandExt;
    let mut child = bbrlab()
        .args([
            "shell",
            "--rate",
            "10Mbit",
            "--",
            "sh",
            "-c",
            "readlink /proc/self/ns/net; exec sleep 30",
        ])
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut namespace = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut namespace)
        .unwrap();
    let mut banner = String::new();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    stderr.read_line(&mut banner).unwrap();
    // Keep reading stderr in the background so the shell never blocks.
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
    });
    (child, namespace.trim().to_string(), outer_device(&banner))
}

#[test]
fn ctrl_c_ends_the_command_and_the_shell_cleans_up() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (mut child, namespace, device) = start_sleeping_shell();
    assert!(device_exists(&device));
    // A terminal's Ctrl-C: SIGINT to the whole foreground group.
    // SAFETY: signalling a process group this test created.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGINT), "{status:?}");
    assert_cleaned_up(&device, Some(&namespace));
}

#[test]
fn kill_9_of_bbrlab_takes_the_command_namespace_and_devices_with_it() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (mut child, namespace, device) = start_sleeping_shell();
    assert!(namespace_in_use(&namespace));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_cleaned_up(&device, Some(&namespace));
}

#[test]
fn without_privilege_the_error_says_what_is_missing() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // As nobody, with every capability dropped.
    let out = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            env!("CARGO_BIN_EXE_bbrlab"),
            "shell",
            "--",
            "true",
        ])
        .output()
        .expect("setpriv (util-linux) runs");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot start the shell")
            && (stderr.contains("run as root") || stderr.contains("CAP_NET_ADMIN")),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_link_too_fast_or_a_bad_option_is_refused_before_anything_is_made() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let cases: [(&[&str], &str); 4] = [
        (&["--rate", "5Gbit"], "peaks at 5000 Mbit/s"),
        (&["--rate", "fast"], "--rate"),
        (&["--uplink", "slow"], "--uplink"),
        (&["--trace", "no/such.trace"], "such.trace"),
    ];
    for (options, message) in cases {
        let args: Vec<&str> = ["shell"]
            .iter()
            .chain(options)
            .chain(&["--", "true"])
            .copied()
            .collect();
        let out = run(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    let out = run(&["shell", "--rate", "10Mbit"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "clap's usage error without a command"
    );
}
