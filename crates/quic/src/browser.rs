//! Headless Chromium as a real client in an emulated run: dash.js playing
//! a DASH session (`[flow.dash] player = "dashjs"`, [`crate::dashjs`]) or
//! a page receiving a live stream (`[flow.live] client = "chromium"`,
//! [`crate::live_browser`]), each fetching over HTTP/3 from the flow's
//! server through the emulator's relay.
//!
//! A [`Session`] runs `tests/browser/browser-session.mjs` (Debian's
//! Chromium driven by playwright-core): Chromium starts before the run (a
//! cold start takes seconds, which the run must not count), QUIC forced on
//! the relay's entry for the flow and the server's self-signed certificate
//! pinned by its SPKI hash ([`crate::tls::Identity::spki_pin`]). At the
//! flow's start ([`Session::go`]) it opens the page, which the script
//! answers itself (so only what the page fetches from the server crosses
//! the link); at the run's end, or when the page says it is finished, it
//! hands back the page's record ([`Session::finish`]), whose times are
//! `Date.now()` milliseconds, placed in the run's clock by [`epoch_ms`].

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The browser Chromium is, unless `BBRLAB_CHROMIUM` names another.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// What installs Chromium and the scripts' packages.
const SETUP: &str = "scripts/setup-browser.sh";
/// Chromium's start and the record's hand-over, at most.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

/// Where the browser and its scripts are.
#[derive(Clone, Debug)]
pub struct Browser {
    /// tests/browser (browser-session.mjs, player/, live/, node_modules/).
    pub dir: PathBuf,
    /// The Chromium executable.
    pub chromium: PathBuf,
}

impl Browser {
    /// The repository's tests/browser (or `BBRLAB_BROWSER_DIR`) and Chromium
    /// (or `BBRLAB_CHROMIUM`), checked.
    ///
    /// # Errors
    /// What is missing (Chromium, node, the npm packages), and the script
    /// that installs it.
    pub fn locate() -> Result<Browser, String> {
        let dir = std::env::var_os("BBRLAB_BROWSER_DIR").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/browser"),
            PathBuf::from,
        );
        let chromium = std::env::var_os("BBRLAB_CHROMIUM")
            .map_or_else(|| PathBuf::from(CHROMIUM), PathBuf::from);
        Browser::locate_in(dir, chromium)
    }

    /// The browser at `dir` (tests/browser) and `chromium`, checked as
    /// [`Browser::locate`] does.
    ///
    /// # Errors
    /// What is missing, and the script that installs it.
    pub fn locate_in(dir: PathBuf, chromium: PathBuf) -> Result<Browser, String> {
        let mut missing = Vec::new();
        if !chromium.is_file() {
            missing.push(format!("Chromium ({})", chromium.display()));
        }
        if Command::new("node")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_err()
        {
            missing.push("node (Node.js 20 or newer)".to_string());
        }
        for needed in [
            "browser-session.mjs",
            "player/index.html",
            "live/index.html",
            "node_modules/playwright-core",
            "node_modules/dashjs/dist/dash.all.min.js",
        ] {
            if !dir.join(needed).exists() {
                missing.push(dir.join(needed).display().to_string());
            }
        }
        if missing.is_empty() {
            Ok(Browser { dir, chromium })
        } else {
            Err(format!(
                "a flow's client is headless Chromium ([flow.dash] player = \"dashjs\" or \
                 [flow.live] client = \"chromium\"), but this is missing: {}; run {SETUP} \
                 (as root for Chromium)",
                missing.join(", ")
            ))
        }
    }
}

/// A page's browser, started and waiting for [`Session::go`].
pub struct Session {
    child: Child,
    /// The script's stdin: `go` is written to it, and closing it stops the
    /// session (a write to a script that has gone would be SIGPIPE).
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Session {
    /// Starts Chromium for a session at `origin` (the relay's entry),
    /// trusting the certificate of SPKI hash `pin`, to open `page`
    /// (`/player/index.html` or `/live/index.html`) with the query
    /// parameters `query` (a JSON object of strings), and waits until it
    /// is ready.
    ///
    /// # Errors
    /// The script or Chromium failed to start, with what they said.
    pub fn start(
        browser: &Browser,
        origin: SocketAddr,
        pin: &str,
        page: &str,
        query: &serde_json::Value,
    ) -> Result<Session, String> {
        let mut child = Command::new("node")
            .arg(browser.dir.join("browser-session.mjs"))
            .arg(origin.to_string())
            .arg(pin)
            .arg(page)
            .arg(query.to_string())
            .current_dir(&browser.dir)
            .env("BBRLAB_CHROMIUM", &browser.chromium)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start node for Chromium: {e}"))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let mut stderr_pipe = child.stderr.take().expect("piped");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr_pipe, &mut text);
            text
        });
        let mut session = Session {
            child,
            stdin: Some(stdin),
            lines,
            stderr: Some(stderr),
        };
        match session.lines.recv_timeout(BROWSER_TIMEOUT) {
            Ok(line) if line == "ready" => Ok(session),
            Ok(line) => Err(session.failure(&format!("said {line:?} instead of \"ready\""))),
            Err(_) => Err(session.failure("was not ready")),
        }
    }

    /// The script's end as an error, with its standard error.
    fn failure(&mut self, what: &str) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let text = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        format!("Chromium (browser-session.mjs) {what}: {}", text.trim())
    }

    /// Opens the page: the session begins.
    ///
    /// # Errors
    /// The script has gone.
    pub fn go(&mut self) -> Result<(), String> {
        if !matches!(self.child.try_wait(), Ok(None)) {
            return Err(self.failure("ended before the session"));
        }
        let stdin = self.stdin.as_mut().expect("open until finish");
        writeln!(stdin, "go").map_err(|e| self.failure(&format!("cannot be told to go: {e}")))
    }

    /// Ends the session (if the page has not finished) and returns the
    /// page's record.
    ///
    /// # Errors
    /// No record came back, or it is not JSON.
    pub fn finish(mut self) -> Result<serde_json::Value, String> {
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + BROWSER_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(json) = line.strip_prefix("record ") {
                        return serde_json::from_str(json)
                            .map_err(|e| format!("the page's record is not JSON: {e}"));
                    }
                }
                Err(_) => return Err(self.failure("gave no record")),
            }
        }
    }
}

/// A request's protocol as Resource Timing reports it.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Protocol {
    /// The URL.
    pub url: String,
    /// `nextHopProtocol` (`h3` for HTTP/3).
    pub protocol: String,
}

/// A page's record as `T`; the message names `what` page.
///
/// # Errors
/// The record lacks a field `T` needs, or has one of another type.
pub fn read_record<T: serde::de::DeserializeOwned>(
    raw: serde_json::Value,
    what: &str,
) -> Result<T, String> {
    serde_json::from_value(raw)
        .map_err(|e| format!("{what}'s record is not what was expected: {e}"))
}

/// Checks a page's session: no error, and every request whose URL
/// `fetched` picks (at least one) over HTTP/3.
///
/// # Errors
/// The page's first error, or a request not over `h3`; `what` names the page.
pub fn check_fetched(
    what: &str,
    errors: &[serde_json::Value],
    protocols: &[Protocol],
    fetched: impl Fn(&str) -> bool,
) -> Result<(), String> {
    if let Some(error) = errors.first() {
        return Err(format!("{what} failed: {error}"));
    }
    let fetched: Vec<&Protocol> = protocols.iter().filter(|p| fetched(&p.url)).collect();
    match fetched.iter().find(|p| p.protocol != "h3") {
        _ if fetched.is_empty() => Err(format!("{what} fetched nothing from the server")),
        Some(p) => Err(format!(
            "{what} fetched {} over {:?}, not HTTP/3 (h3)",
            p.url, p.protocol
        )),
        None => Ok(()),
    }
}

/// Milliseconds since the Unix epoch, as a browser's `Date.now()`.
pub fn epoch_ms(t: std::time::SystemTime) -> f64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_browser_names_what_and_the_setup_script() {
        let e = Browser::locate_in(
            PathBuf::from("/nonexistent/browser"),
            PathBuf::from("/nonexistent/chromium"),
        )
        .unwrap_err();
        assert!(e.contains("Chromium (/nonexistent/chromium)"), "{e}");
        assert!(
            e.contains("/nonexistent/browser/node_modules/playwright-core"),
            "{e}"
        );
        assert!(e.contains("scripts/setup-browser.sh"), "{e}");
    }
}
