//! A TUN device: the kernel hands it the IP packets it routes to the
//! device, and takes the packets written to it as if they had arrived on
//! a wire. The device is not persistent, so it is gone when its file
//! descriptor closes, whatever ends the process.

use std::ffi::CStr;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

/// Where TUN devices are cloned from.
const CLONE_DEVICE: &str = "/dev/net/tun";
/// The device's transmit queue, in packets: what the kernel holds for the
/// shell between two reads. A full queue drops outside the link model, so
/// it is made long (TCP's small-queue limit does not apply: the TUN driver
/// releases each packet's socket memory as it queues it).
const TRANSMIT_QUEUE: i32 = 10_000;

/// An open TUN device (IPv4 packets, no packet-information header,
/// non-blocking).
#[derive(Debug)]
pub struct Tun {
    file: File,
    name: String,
}

impl Tun {
    /// Creates a device in the calling thread's network namespace, named
    /// from `pattern` (`%d` lets the kernel number it).
    ///
    /// # Errors
    /// The clone device is missing or not accessible, or the kernel
    /// refused the device (no CAP_NET_ADMIN); the message says which.
    pub fn create(pattern: &str) -> io::Result<Tun> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(CLONE_DEVICE)
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "cannot open {CLONE_DEVICE}: {e} (the shell needs the TUN driver \
                         and permission to use it: run as root or with CAP_NET_ADMIN)"
                    ),
                )
            })?;
        let mut request = interface_request(pattern)?;
        request.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: a valid descriptor and an ifreq the call reads and fills.
        if unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, &mut request) } < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(
                e.kind(),
                format!(
                    "cannot create a TUN device: {e} (creating one needs CAP_NET_ADMIN: \
                     run as root)"
                ),
            ));
        }
        // SAFETY: the kernel wrote a NUL-terminated name into ifr_name.
        let name = unsafe { CStr::from_ptr(request.ifr_name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        Ok(Tun { file, name })
    }

    /// The device's name in its namespace.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Gives the device `local` as its address and `peer` as the other end
    /// of its point-to-point link (the kernel routes `peer` through it),
    /// a long transmit queue, and brings it up. IPv6 is turned off on it,
    /// so the kernel's own IPv6 chatter does not cross the link.
    ///
    /// Must run in the device's namespace (the control socket is made in
    /// the calling thread's).
    ///
    /// # Errors
    /// The kernel refused a setting.
    pub fn configure(&self, local: Ipv4Addr, peer: Ipv4Addr) -> io::Result<()> {
        let control = control_socket()?;
        let fd = control.as_raw_fd();
        let mut request = interface_request(&self.name)?;
        request.ifr_ifru.ifru_addr = socket_address(local);
        ioctl(fd, libc::SIOCSIFADDR, &mut request, "set the address of")?;
        let mut request = interface_request(&self.name)?;
        request.ifr_ifru.ifru_dstaddr = socket_address(peer);
        ioctl(fd, libc::SIOCSIFDSTADDR, &mut request, "set the peer of")?;
        let mut request = interface_request(&self.name)?;
        request.ifr_ifru.ifru_metric = TRANSMIT_QUEUE;
        ioctl(
            fd,
            libc::SIOCSIFTXQLEN,
            &mut request,
            "set the queue length of",
        )?;
        // Best effort: a kernel without IPv6 has nothing to turn off.
        let _ = std::fs::write(
            format!("/proc/sys/net/ipv6/conf/{}/disable_ipv6", self.name),
            "1",
        );
        bring_up(fd, &self.name)
    }

    /// Reads one packet.
    ///
    /// # Errors
    /// `WouldBlock` when none is queued.
    pub fn read_packet(&self, buffer: &mut [u8]) -> io::Result<usize> {
        (&self.file).read(buffer)
    }

    /// Writes one packet (the kernel takes it as received).
    ///
    /// # Errors
    /// The kernel refused the packet.
    pub fn write_packet(&self, packet: &[u8]) -> io::Result<()> {
        (&self.file).write(packet).map(drop)
    }
}

impl AsRawFd for Tun {
    fn as_raw_fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }
}

/// Brings the loopback interface of the calling thread's namespace up (a
/// new namespace starts with it down).
///
/// # Errors
/// The kernel refused.
pub fn loopback_up() -> io::Result<()> {
    let control = control_socket()?;
    bring_up(control.as_raw_fd(), "lo")
}

fn bring_up(fd: RawFd, name: &str) -> io::Result<()> {
    let mut request = interface_request(name)?;
    ioctl(fd, libc::SIOCGIFFLAGS, &mut request, "read the flags of")?;
    // SAFETY: SIOCGIFFLAGS filled the flags member.
    let flags = unsafe { request.ifr_ifru.ifru_flags };
    request.ifr_ifru.ifru_flags = flags | (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    ioctl(fd, libc::SIOCSIFFLAGS, &mut request, "bring up")
}

fn control_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain socket creation; the descriptor is owned at once.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) })
}

fn ioctl(
    fd: RawFd,
    request_code: libc::Ioctl,
    request: &mut libc::ifreq,
    what: &str,
) -> io::Result<()> {
    // SAFETY: a valid socket and an ifreq of the size each of these
    // requests reads or writes.
    if unsafe { libc::ioctl(fd, request_code, request as *mut libc::ifreq) } < 0 {
        let e = io::Error::last_os_error();
        // SAFETY: interface_request wrote a NUL-terminated name.
        let name = unsafe { CStr::from_ptr(request.ifr_name.as_ptr()) }.to_string_lossy();
        return Err(io::Error::new(
            e.kind(),
            format!("cannot {what} {name}: {e}"),
        ));
    }
    Ok(())
}

fn interface_request(name: &str) -> io::Result<libc::ifreq> {
    // SAFETY: ifreq is plain old data; all zeros is a valid value.
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    if name.len() >= request.ifr_name.len() || name.contains('\0') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("interface name {name:?} is too long or malformed"),
        ));
    }
    for (slot, byte) in request.ifr_name.iter_mut().zip(name.bytes()) {
        *slot = byte as libc::c_char;
    }
    Ok(request)
}

fn socket_address(address: Ipv4Addr) -> libc::sockaddr {
    let inet = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: 0,
        sin_addr: libc::in_addr {
            s_addr: u32::from(address).to_be(),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: sockaddr_in and sockaddr have the same size on Linux, and a
    // sockaddr holding an AF_INET address is what the ioctls expect.
    unsafe { std::mem::transmute::<libc::sockaddr_in, libc::sockaddr>(inet) }
}
