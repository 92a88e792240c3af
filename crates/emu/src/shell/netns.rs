//! A network namespace of the shell's own, held by a file descriptor only.
//!
//! The namespace is never named (nothing under /run/netns), so it lives
//! exactly as long as something refers to it: this descriptor, a thread
//! inside it, the command's processes. When bbrlab ends, however it ends,
//! its descriptor closes; the command is killed with it (its parent-death
//! signal), and the kernel frees the namespace with its devices.
//!
//! Namespaces belong to threads: a thread that enters one creates its
//! sockets and devices there, and a socket keeps its namespace whichever
//! thread uses it later.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};

/// A network namespace.
#[derive(Debug)]
pub struct Namespace {
    handle: File,
}

impl Namespace {
    /// Creates a namespace and runs `setup` inside it (on a thread of its
    /// own, which ends with it).
    ///
    /// # Errors
    /// The kernel refused a new namespace (no CAP_SYS_ADMIN), or `setup`
    /// failed.
    pub fn create<T: Send + 'static>(
        setup: impl FnOnce() -> io::Result<T> + Send + 'static,
    ) -> io::Result<(Namespace, T)> {
        on_thread("netns-create", move || {
            // SAFETY: unshare affects only the calling thread's namespaces
            // here (a network namespace), which this thread owns.
            if unsafe { libc::unshare(libc::CLONE_NEWNET) } < 0 {
                let e = io::Error::last_os_error();
                return Err(io::Error::new(
                    e.kind(),
                    format!(
                        "cannot create a network namespace: {e} (the shell needs \
                         CAP_SYS_ADMIN and CAP_NET_ADMIN: run as root)"
                    ),
                ));
            }
            let handle = File::open("/proc/thread-self/ns/net")?;
            let made = setup()?;
            Ok((Namespace { handle }, made))
        })?
    }

    /// Runs `f` on a new thread inside the namespace and returns what it
    /// returned.
    ///
    /// # Errors
    /// The thread could not be started or could not enter the namespace.
    pub fn run<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> io::Result<T> {
        let fd = self.handle.try_clone()?;
        on_thread("netns-run", move || {
            enter(fd.as_raw_fd())?;
            Ok(f())
        })?
    }

    /// The descriptor a process enters the namespace by (`setns`).
    pub fn fd(&self) -> RawFd {
        self.handle.as_raw_fd()
    }
}

/// Moves the calling thread into the network namespace `fd` refers to.
/// Safe to call between fork and exec (a single system call).
///
/// # Errors
/// The kernel refused (no CAP_SYS_ADMIN).
pub fn enter(fd: RawFd) -> io::Result<()> {
    // SAFETY: setns on a namespace descriptor changes only the calling
    // thread's network namespace.
    if unsafe { libc::setns(fd, libc::CLONE_NEWNET) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn on_thread<T: Send + 'static>(
    name: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> io::Result<T> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(f)?
        .join()
        .map_err(|_| io::Error::other(format!("the {name} thread panicked")))
}
