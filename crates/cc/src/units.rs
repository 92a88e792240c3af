//! Typed units: [`Bytes`], [`Bandwidth`], [`Instant`] (and `std::time::Duration`).
//!
//! Every public signature in bbrlab speaks in these types, so a rate can never
//! be passed where a volume is expected. Arithmetic is 64-bit (128-bit where a
//! product could overflow), which keeps every value exact from 1 kbit/s to
//! 100 Gbit/s and from microseconds to hours.

use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};
use std::time::Duration;

const NANOS_PER_SEC: u128 = 1_000_000_000;

/// `n / d` in 64 bits when both fit, as they do for every rate and
/// interval a run meets: the 128-bit division is a library call an order
/// of magnitude slower, and the quotient is the same.
#[inline]
fn div(n: u128, d: u128) -> u128 {
    match (u64::try_from(n), u64::try_from(d)) {
        (Ok(n), Ok(d)) => u128::from(n / d),
        _ => n / d,
    }
}

/// `n.div_ceil(d)`, as [`div`].
#[inline]
fn div_ceil(n: u128, d: u128) -> u128 {
    match (u64::try_from(n), u64::try_from(d)) {
        (Ok(n), Ok(d)) => u128::from(n.div_ceil(d)),
        _ => n.div_ceil(d),
    }
}

/// A volume of data in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl Bytes {
    /// No data.
    pub const ZERO: Bytes = Bytes(0);
    /// The largest representable volume (used as "unlimited").
    pub const MAX: Bytes = Bytes(u64::MAX);

    /// The raw byte count.
    #[inline]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// `self - other`, or zero if `other` is larger.
    #[inline]
    pub fn saturating_sub(self, other: Bytes) -> Bytes {
        Bytes(self.0.saturating_sub(other.0))
    }

    /// `self + other`, saturating at [`Bytes::MAX`].
    #[inline]
    pub fn saturating_add(self, other: Bytes) -> Bytes {
        Bytes(self.0.saturating_add(other.0))
    }

    /// Scales by a non-negative real factor, rounding down; saturates instead
    /// of overflowing and maps NaN/negative factors to zero.
    #[inline]
    pub fn mul_f64(self, factor: f64) -> Bytes {
        let v = self.0 as f64 * factor;
        if v.is_nan() || v <= 0.0 {
            Bytes::ZERO
        } else if v >= u64::MAX as f64 {
            Bytes::MAX
        } else {
            Bytes(v as u64)
        }
    }

    /// The volume as a float (for ratios and reports).
    #[inline]
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }

    /// The rate at which this volume crosses in `interval`; `None` for a zero interval.
    #[inline]
    pub fn per(self, interval: Duration) -> Option<Bandwidth> {
        self.per_nanos(interval.as_nanos())
    }

    /// [`Bytes::per`] an interval of `nanos` nanoseconds, for a caller that
    /// has the interval in nanoseconds already (no `Duration` built and
    /// taken apart again).
    #[inline]
    pub(crate) fn per_nanos(self, nanos: u128) -> Option<Bandwidth> {
        if nanos == 0 {
            return None;
        }
        let bps = div(self.0 as u128 * 8 * NANOS_PER_SEC, nanos);
        Some(Bandwidth(bps.min(u64::MAX as u128) as u64))
    }
}

impl Add for Bytes {
    type Output = Bytes;
    #[inline]
    fn add(self, rhs: Bytes) -> Bytes {
        Bytes(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for Bytes {
    #[inline]
    fn add_assign(&mut self, rhs: Bytes) {
        *self = *self + rhs;
    }
}
impl Sub for Bytes {
    type Output = Bytes;
    /// Saturating: volumes never go negative.
    #[inline]
    fn sub(self, rhs: Bytes) -> Bytes {
        self.saturating_sub(rhs)
    }
}
impl SubAssign for Bytes {
    #[inline]
    fn sub_assign(&mut self, rhs: Bytes) {
        *self = *self - rhs;
    }
}
impl Mul<u64> for Bytes {
    type Output = Bytes;
    #[inline]
    fn mul(self, rhs: u64) -> Bytes {
        Bytes(self.0.saturating_mul(rhs))
    }
}
impl Div<u64> for Bytes {
    type Output = Bytes;
    #[inline]
    fn div(self, rhs: u64) -> Bytes {
        Bytes(self.0.checked_div(rhs).unwrap_or(0))
    }
}
impl std::iter::Sum for Bytes {
    #[inline]
    fn sum<I: Iterator<Item = Bytes>>(iter: I) -> Bytes {
        iter.fold(Bytes::ZERO, |a, b| a + b)
    }
}
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as f64;
        if b >= 1e9 {
            write!(f, "{:.2}GB", b / 1e9)
        } else if b >= 1e6 {
            write!(f, "{:.2}MB", b / 1e6)
        } else if b >= 1e3 {
            write!(f, "{:.1}KB", b / 1e3)
        } else {
            write!(f, "{}B", self.0)
        }
    }
}

/// A data rate, held in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bandwidth(u64);

impl Bandwidth {
    /// No throughput.
    pub const ZERO: Bandwidth = Bandwidth(0);
    /// The largest representable rate (used as "unpaced").
    pub const MAX: Bandwidth = Bandwidth(u64::MAX);

    /// A rate of `bps` bits per second.
    #[inline]
    pub const fn from_bits_per_sec(bps: u64) -> Bandwidth {
        Bandwidth(bps)
    }
    /// A rate of `kbps` kilobits (1000 bits) per second.
    #[inline]
    pub const fn from_kbps(kbps: u64) -> Bandwidth {
        Bandwidth(kbps * 1_000)
    }
    /// A rate of `mbps` megabits per second.
    #[inline]
    pub const fn from_mbps(mbps: u64) -> Bandwidth {
        Bandwidth(mbps * 1_000_000)
    }
    /// A rate from a float of bits per second (clamped to the representable range).
    #[inline]
    pub fn from_bps_f64(bps: f64) -> Bandwidth {
        if bps.is_nan() || bps <= 0.0 {
            Bandwidth::ZERO
        } else if bps >= u64::MAX as f64 {
            Bandwidth::MAX
        } else {
            Bandwidth(bps as u64)
        }
    }
    /// Bits per second.
    #[inline]
    pub const fn bits_per_sec(self) -> u64 {
        self.0
    }
    /// Bits per second as a float.
    #[inline]
    pub fn as_bps_f64(self) -> f64 {
        self.0 as f64
    }
    /// Megabits per second as a float (for reports).
    #[inline]
    pub fn as_mbps_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Scales by a real gain (pacing gains, filters); saturating.
    #[inline]
    pub fn mul_f64(self, gain: f64) -> Bandwidth {
        Bandwidth::from_bps_f64(self.0 as f64 * gain)
    }
    /// The volume this rate delivers in `interval` (rounded down).
    #[inline]
    pub fn bytes_in(self, interval: Duration) -> Bytes {
        let bytes = div(self.0 as u128 * interval.as_nanos(), 8 * NANOS_PER_SEC);
        Bytes(bytes.min(u64::MAX as u128) as u64)
    }
    /// The time this rate needs to send `bytes`; `None` at zero rate.
    #[inline]
    pub fn time_to_send(self, bytes: Bytes) -> Option<Duration> {
        if self.0 == 0 {
            return None;
        }
        let nanos = div_ceil(bytes.0 as u128 * 8 * NANOS_PER_SEC, self.0 as u128);
        Some(Duration::from_nanos(nanos.min(u64::MAX as u128) as u64))
    }
}

impl Add for Bandwidth {
    type Output = Bandwidth;
    #[inline]
    fn add(self, rhs: Bandwidth) -> Bandwidth {
        Bandwidth(self.0.saturating_add(rhs.0))
    }
}
impl Sub for Bandwidth {
    type Output = Bandwidth;
    #[inline]
    fn sub(self, rhs: Bandwidth) -> Bandwidth {
        Bandwidth(self.0.saturating_sub(rhs.0))
    }
}
impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as f64;
        if b >= 1e9 {
            write!(f, "{:.2}Gbit/s", b / 1e9)
        } else if b >= 1e6 {
            write!(f, "{:.2}Mbit/s", b / 1e6)
        } else if b >= 1e3 {
            write!(f, "{:.1}kbit/s", b / 1e3)
        } else {
            write!(f, "{}bit/s", self.0)
        }
    }
}

/// A point in (simulated or real) time: nanoseconds since an arbitrary epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

impl Instant {
    /// The epoch (simulation start).
    pub const ZERO: Instant = Instant(0);
    /// Far future (used for "never").
    pub const MAX: Instant = Instant(u64::MAX);

    /// The instant `nanos` nanoseconds after the epoch.
    #[inline]
    pub const fn from_nanos(nanos: u64) -> Instant {
        Instant(nanos)
    }
    /// Nanoseconds since the epoch.
    #[inline]
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Time since the epoch.
    #[inline]
    pub fn since_epoch(self) -> Duration {
        Duration::from_nanos(self.0)
    }
    /// Seconds since the epoch as a float (for reports).
    #[inline]
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// `self - earlier`, or zero when `earlier` is later.
    #[inline]
    pub fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration::from_nanos(self.saturating_nanos_since(earlier))
    }
    /// `self - earlier` in nanoseconds, or zero when `earlier` is later:
    /// for arithmetic on the hot path that needs no `Duration`.
    #[inline]
    pub const fn saturating_nanos_since(self, earlier: Instant) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    #[inline]
    fn add(self, rhs: Duration) -> Instant {
        let n = rhs.as_nanos().min(u64::MAX as u128) as u64;
        Instant(self.0.saturating_add(n))
    }
}
impl AddAssign<Duration> for Instant {
    #[inline]
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}
impl Sub<Duration> for Instant {
    type Output = Instant;
    #[inline]
    fn sub(self, rhs: Duration) -> Instant {
        let n = rhs.as_nanos().min(u64::MAX as u128) as u64;
        Instant(self.0.saturating_sub(n))
    }
}
impl Sub for Instant {
    type Output = Duration;
    /// Saturating: an earlier minus a later instant is zero.
    #[inline]
    fn sub(self, rhs: Instant) -> Duration {
        self.saturating_duration_since(rhs)
    }
}
impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

/// Multiplies a duration by a real factor, saturating and mapping NaN/negative to zero.
pub fn scale_duration(d: Duration, factor: f64) -> Duration {
    let n = d.as_nanos() as f64 * factor;
    if n.is_nan() || n <= 0.0 {
        Duration::ZERO
    } else if n >= u64::MAX as f64 {
        Duration::from_nanos(u64::MAX)
    } else {
        Duration::from_nanos(n as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bdp_round_trips_through_rate_and_time() {
        let rate = Bandwidth::from_mbps(40);
        let bdp = rate.bytes_in(Duration::from_millis(100));
        assert_eq!(bdp, Bytes(500_000));
        assert_eq!(bdp.per(Duration::from_millis(100)), Some(rate));
        assert_eq!(
            rate.time_to_send(Bytes(1500)),
            Some(Duration::from_micros(300))
        );
    }

    #[test]
    fn extreme_rates_do_not_overflow() {
        let fast = Bandwidth::from_mbps(100_000);
        assert_eq!(
            fast.bytes_in(Duration::from_secs(3600)),
            Bytes(45_000_000_000_000)
        );
        let slow = Bandwidth::from_kbps(1);
        assert_eq!(slow.bytes_in(Duration::from_secs(10)), Bytes(1250));
        assert_eq!(
            Bytes::MAX.per(Duration::from_nanos(1)),
            Some(Bandwidth::MAX)
        );
        assert_eq!(Bandwidth::ZERO.time_to_send(Bytes(1)), None);
    }

    #[test]
    fn volumes_saturate_instead_of_wrapping() {
        assert_eq!(Bytes(3) - Bytes(5), Bytes::ZERO);
        assert_eq!(Bytes::MAX + Bytes(1), Bytes::MAX);
        assert_eq!(Bytes(1000).mul_f64(-1.0), Bytes::ZERO);
        assert_eq!(Bytes(1000).mul_f64(f64::NAN), Bytes::ZERO);
        assert_eq!(
            Instant::from_nanos(5) - Instant::from_nanos(9),
            Duration::ZERO
        );
    }
}
