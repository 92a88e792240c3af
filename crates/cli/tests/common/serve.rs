//! A `bbrlab serve` process for the HTTP/3 client tests: started with the
//! test's arguments, its address read from the line it announces, killed
//! when dropped (a failing test included).

use std::io::BufRead;
use std::process::{Command, Stdio};

/// A running `bbrlab serve`, killed when dropped.
pub struct Serve(std::process::Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `bbrlab serve ARGS`; the server and the address it announces
/// (`serving on ADDR ...`).
pub fn serve<I, S>(args: I) -> (Serve, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut child = Command::new(env!("CARGO_BIN_EXE_bbrlab"))
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let serve = Serve(child);
    let first = std::io::BufReader::new(stdout)
        .lines()
        .next()
        .expect("bbrlab serve announces where it listens")
        .unwrap();
    let addr = first
        .strip_prefix("serving on ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("first line {first:?}"))
        .to_string();
    (serve, addr)
}
