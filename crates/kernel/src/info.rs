//! `TCP_INFO` and `TCP_CC_INFO` of a socket, read with `getsockopt`.

use std::io;
use std::mem::{offset_of, size_of};
use std::os::fd::RawFd;

/// The head of Linux's `struct tcp_info` (include/uapi/linux/tcp.h), up to
/// `tcpi_bytes_retrans`, the last field read here. The kernel copies at
/// most the length it is given and returns the length it filled, which
/// [`tcp_info`] checks covers every field used.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    /// `tcpi_snd_wscale : 4, tcpi_rcv_wscale : 4`.
    pub wscale: u8,
    /// `tcpi_delivery_rate_app_limited:1, tcpi_fastopen_client_fail:2`.
    pub app_limited_flags: u8,

    pub rto: u32,
    pub ato: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,

    /// Segments sent and not yet cumulatively acknowledged.
    pub unacked: u32,
    /// Segments SACKed.
    pub sacked: u32,
    /// Segments currently marked lost (a gauge, not a count of losses).
    pub lost: u32,
    /// Segments retransmitted and not yet acknowledged.
    pub retrans: u32,
    pub fackets: u32,

    pub last_data_sent: u32,
    pub last_ack_sent: u32,
    pub last_data_recv: u32,
    pub last_ack_recv: u32,

    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    /// Smoothed RTT, microseconds.
    pub rtt: u32,
    pub rttvar: u32,
    pub snd_ssthresh: u32,
    /// Congestion window, segments.
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,

    pub rcv_rtt: u32,
    pub rcv_space: u32,

    /// Segments retransmitted over the connection's life.
    pub total_retrans: u32,

    /// Bytes per second.
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    /// Bytes cumulatively acknowledged (RFC 4898 HCThruOctetsAcked).
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,

    pub notsent_bytes: u32,
    /// Minimum RTT seen, microseconds.
    pub min_rtt: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,

    /// Latest delivery-rate sample, bytes per second.
    pub delivery_rate: u64,

    pub busy_time: u64,
    pub rwnd_limited: u64,
    pub sndbuf_limited: u64,

    pub delivered: u32,
    pub delivered_ce: u32,

    /// Payload bytes sent, retransmissions included (RFC 4898 HCDataOctetsOut).
    pub bytes_sent: u64,
    /// Payload bytes retransmitted (RFC 4898 OctetsRetrans).
    pub bytes_retrans: u64,
}

/// The length the kernel must fill for every field of [`TcpInfo`]: Linux
/// 4.19 and later (`tcpi_bytes_retrans`).
pub const TCP_INFO_LEN: usize = offset_of!(TcpInfo, bytes_retrans) + size_of::<u64>();

/// Reads `TCP_INFO` of socket `fd`.
///
/// # Errors
/// `getsockopt` failed, or the kernel filled fewer bytes than
/// [`TCP_INFO_LEN`] (a kernel older than 4.19).
pub fn tcp_info(fd: RawFd) -> io::Result<TcpInfo> {
    let mut info = TcpInfo::default();
    let mut len = size_of::<TcpInfo>() as libc::socklen_t;
    // SAFETY: `info` is a plain repr(C) struct of `len` bytes the kernel
    // writes at most `len` bytes into.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut TcpInfo).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    if (len as usize) < TCP_INFO_LEN {
        return Err(io::Error::other(format!(
            "TCP_INFO returned {len} bytes, fewer than the {TCP_INFO_LEN} this reads \
             (tcpi_bytes_sent and tcpi_bytes_retrans need Linux 4.19 or later)"
        )));
    }
    Ok(info)
}

/// The kernel BBR's own state (`struct tcp_bbr_info`, `TCP_CC_INFO`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BbrInfo {
    /// Bandwidth estimate, bytes per second.
    pub bw: u64,
    /// Min-RTT estimate, microseconds.
    pub min_rtt_us: u32,
    /// Pacing gain (the kernel's `<< 8` fixed point, as a float).
    pub pacing_gain: f64,
    /// cwnd gain.
    pub cwnd_gain: f64,
}

/// Reads `TCP_CC_INFO` as BBR's `struct tcp_bbr_info`: `None` when the
/// kernel returns less than it (the socket's algorithm is not BBR).
pub fn bbr_info(fd: RawFd) -> Option<BbrInfo> {
    let mut raw = [0u32; 5];
    let mut len = size_of::<[u32; 5]>() as libc::socklen_t;
    // SAFETY: `raw` is 20 bytes and `len` says so.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CC_INFO,
            raw.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if rc != 0 || (len as usize) < size_of::<[u32; 5]>() {
        return None;
    }
    Some(BbrInfo {
        bw: u64::from(raw[0]) | (u64::from(raw[1]) << 32),
        min_rtt_us: raw[2],
        pacing_gain: f64::from(raw[3]) / 256.0,
        cwnd_gain: f64::from(raw[4]) / 256.0,
    })
}

/// Sets `TCP_CONGESTION` of socket `fd` to `name`.
pub fn set_congestion(fd: RawFd, name: &str) -> io::Result<()> {
    // SAFETY: the kernel reads `name.len()` bytes of `name`.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr().cast(),
            name.len() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Reads `TCP_CONGESTION` of socket `fd`.
pub fn congestion(fd: RawFd) -> io::Result<String> {
    let mut buf = [0u8; 16]; // TCP_CA_NAME_MAX
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: `buf` is `len` bytes.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    let end = buf[..len as usize]
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(len as usize);
    Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// The name of a `tcpi_ca_state` (include/net/tcp.h `enum tcp_ca_state`).
pub fn ca_state_name(state: u8) -> &'static str {
    match state {
        0 => "open",
        1 => "disorder",
        2 => "cwr",
        3 => "recovery",
        4 => "loss",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_the_kernels() {
        // Offsets from include/uapi/linux/tcp.h.
        assert_eq!(offset_of!(TcpInfo, rto), 8);
        assert_eq!(offset_of!(TcpInfo, total_retrans), 100);
        assert_eq!(offset_of!(TcpInfo, pacing_rate), 104);
        assert_eq!(offset_of!(TcpInfo, delivery_rate), 160);
        assert_eq!(offset_of!(TcpInfo, bytes_sent), 200);
        assert_eq!(TCP_INFO_LEN, 216);
    }
}
