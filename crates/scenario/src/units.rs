//! Parsers for the unit-carrying values of scenario files: rates, sizes,
//! buffer sizes, durations and probabilities.
//!
//! Every parser takes the text as written (`"40Mbit"`, `"0.25bdp"`, `"1%"`)
//! and returns either the typed value or a message saying what was expected
//! and what was found, e.g.
//! `expected a rate like "40Mbit" or "1.5Gbit" (units: ...), got "40" (a number needs a unit)`.
//! The scenario loader, the command line and sweep expansion all use them, so
//! a value means the same everywhere.
//!
//! Numbers are plain decimals and may be fractional (`"1.5Mbit"`,
//! `"0.25bdp"`); there is no exponent notation. Whitespace between the number
//! and its unit is allowed (`"40 Mbit"`). A bare `"0"` needs no unit. Values
//! are computed exactly (decimal arithmetic, rounded to the nearest bit, byte
//! or nanosecond), so `"1.5Mbit"` is exactly 1 500 000 bit/s.

use std::time::Duration;

use cc::{Bandwidth, Bytes};

/// What [`parse_rate`] expects (used in error messages).
pub const RATE_EXPECTED: &str =
    "a rate like \"40Mbit\" or \"1.5Gbit\" (units: bit, kbit, Mbit, Gbit, bps, kbps, Mbps, Gbps)";
/// What [`parse_size`] expects (used in error messages).
pub const SIZE_EXPECTED: &str =
    "a size like \"300KB\" or \"1.5MB\" (units: B, KB, MB, GB, KiB, MiB, GiB)";
/// What [`parse_buffer`] expects (used in error messages).
pub const BUFFER_EXPECTED: &str =
    "a buffer of at least one datagram, like \"300KB\", \"100pkt\" or \"0.25bdp\" (units: B, KB, MB, GB, KiB, MiB, GiB, pkt, bdp)";
/// What [`parse_duration`] expects (used in error messages).
pub const DURATION_EXPECTED: &str =
    "a duration like \"100ms\" or \"60s\" (units: ns, us, ms, s, min, h)";
/// What [`parse_probability`] expects (used in error messages).
pub const PROBABILITY_EXPECTED: &str = "a probability in [0, 1), like \"1%\" or 0.01";
/// What [`parse_fraction`] expects (used in error messages).
pub const FRACTION_EXPECTED: &str = "a probability in [0, 1], like \"100%\" or 0.5";

/// Rate units and their value in bit/s. A trailing `/s` is also accepted
/// after the `bit` units (`"40Mbit/s"`).
const RATE_UNITS: &[(&str, u128)] = &[
    ("bit", 1),
    ("bps", 1),
    ("kbit", 1_000),
    ("Kbit", 1_000),
    ("kbps", 1_000),
    ("Kbps", 1_000),
    ("Mbit", 1_000_000),
    ("mbit", 1_000_000),
    ("Mbps", 1_000_000),
    ("mbps", 1_000_000),
    ("Gbit", 1_000_000_000),
    ("gbit", 1_000_000_000),
    ("Gbps", 1_000_000_000),
    ("gbps", 1_000_000_000),
];

/// Size units and their value in bytes.
const SIZE_UNITS: &[(&str, u128)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// Duration units and their value in nanoseconds.
const DURATION_UNITS: &[(&str, u128)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("min", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// A buffer size as written: absolute, in packets, or relative to the BDP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferSize {
    /// An absolute size (`"300KB"`).
    Bytes(Bytes),
    /// A number of full-size datagrams (`"100pkt"`).
    Packets(u64),
    /// A multiple of the bandwidth-delay product (`"0.25bdp"`); the scenario
    /// decides which rate and RTT the BDP is taken from.
    Bdp(f64),
}

/// Why a value was rejected: what was expected, plus an optional hint on
/// what is wrong with the value given. Rendered with the value as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub expected: &'static str,
    pub hint: Option<String>,
}

impl Problem {
    fn new(expected: &'static str, hint: impl Into<Option<String>>) -> Problem {
        Problem {
            expected,
            hint: hint.into(),
        }
    }

    /// `expected <what>, got <got> (<hint>)`.
    pub(crate) fn render(&self, got: &str) -> String {
        match &self.hint {
            Some(h) => format!("expected {}, got {} ({})", self.expected, got, h),
            None => format!("expected {}, got {}", self.expected, got),
        }
    }
}

/// Shows a user-supplied string in a message: quoted, and cut short if long.
pub(crate) fn quote(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() > MAX {
        let cut: String = s.chars().take(MAX).collect();
        format!("{cut:?}...")
    } else {
        format!("{s:?}")
    }
}

/// A non-negative decimal number: `digits / 10^scale`.
#[derive(Clone, Copy, Debug)]
struct Decimal {
    digits: u128,
    scale: u32,
}

impl Decimal {
    fn is_zero(self) -> bool {
        self.digits == 0
    }

    /// `self * mult`, rounded to the nearest integer; `None` on overflow.
    fn times(self, mult: u128) -> Option<u128> {
        let num = self.digits.checked_mul(mult)?;
        let den = 10u128.checked_pow(self.scale)?;
        let q = num / den;
        let r = num % den;
        Some(if r >= den - r { q + 1 } else { q })
    }

    /// Whether the value is an integer.
    fn is_integer(self) -> bool {
        match 10u128.checked_pow(self.scale) {
            Some(den) => (self.digits / den) * den == self.digits,
            None => self.digits == 0,
        }
    }

    fn as_f64(self) -> f64 {
        self.digits as f64 / 10f64.powi(self.scale as i32)
    }
}

enum NumberError {
    Syntax,
    Negative,
    TooLong,
}

/// Parses `123`, `1.5`, `.5`, `5.`: digits with at most one dot.
fn parse_decimal(s: &str) -> Result<Decimal, NumberError> {
    if s.starts_with('-') {
        return Err(NumberError::Negative);
    }
    let mut digits: u128 = 0;
    let mut scale: u32 = 0;
    let mut seen_dot = false;
    let mut any_digit = false;
    for c in s.chars() {
        match c {
            '0'..='9' => {
                any_digit = true;
                digits = digits
                    .checked_mul(10)
                    .and_then(|d| d.checked_add(u128::from(c as u8 - b'0')))
                    .ok_or(NumberError::TooLong)?;
                if seen_dot {
                    scale += 1;
                    if scale > 30 {
                        return Err(NumberError::TooLong);
                    }
                }
            }
            '.' if !seen_dot => seen_dot = true,
            _ => return Err(NumberError::Syntax),
        }
    }
    if !any_digit {
        return Err(NumberError::Syntax);
    }
    Ok(Decimal { digits, scale })
}

/// Splits `"40 Mbit"` into the number `"40"` and the unit `"Mbit"`.
fn split_unit(s: &str) -> (&str, &str) {
    let s = s.trim();
    let body = s.strip_prefix('-').unwrap_or(s);
    let end = body
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(body.len());
    let end = end + (s.len() - body.len());
    (&s[..end], s[end..].trim_start())
}

/// A number with a unit from `units`; a bare zero is allowed.
fn quantity(
    s: &str,
    units: &[(&str, u128)],
    expected: &'static str,
) -> Result<(Decimal, u128), Problem> {
    let (number, unit) = split_unit(s);
    let value = number_or_problem(number, s, expected)?;
    if unit.is_empty() {
        if value.is_zero() {
            return Ok((value, 1));
        }
        return Err(Problem::new(expected, "a number needs a unit".to_string()));
    }
    match units.iter().find(|(name, _)| *name == unit) {
        Some(&(_, mult)) => Ok((value, mult)),
        None => Err(Problem::new(
            expected,
            format!("unknown unit {}", quote(unit)),
        )),
    }
}

fn number_or_problem(
    number: &str,
    whole: &str,
    expected: &'static str,
) -> Result<Decimal, Problem> {
    match parse_decimal(number) {
        Ok(d) => Ok(d),
        Err(NumberError::Negative) => {
            Err(Problem::new(expected, "must not be negative".to_string()))
        }
        Err(NumberError::TooLong) => Err(Problem::new(expected, "too many digits".to_string())),
        Err(NumberError::Syntax) if whole.trim().is_empty() => {
            Err(Problem::new(expected, "empty".to_string()))
        }
        Err(NumberError::Syntax) => Err(Problem::new(expected, None)),
    }
}

fn to_u64(v: Option<u128>, expected: &'static str) -> Result<u64, Problem> {
    v.and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| Problem::new(expected, "too large".to_string()))
}

pub(crate) fn rate_impl(s: &str, allow_zero: bool) -> Result<Bandwidth, Problem> {
    let trimmed = s.trim();
    let stripped = match trimmed.strip_suffix("/s") {
        Some(rest) if rest.ends_with("bit") => rest,
        _ => trimmed,
    };
    let (value, mult) = quantity(stripped, RATE_UNITS, RATE_EXPECTED)?;
    let bps = to_u64(value.times(mult), RATE_EXPECTED)?;
    if bps == 0 && !allow_zero {
        return Err(Problem::new(
            RATE_EXPECTED,
            "must be greater than zero".to_string(),
        ));
    }
    let rate = Bandwidth::from_bits_per_sec(bps);
    if rate > sim::link::MAX_RATE {
        return Err(Problem::new(
            RATE_EXPECTED,
            "too large: rates are at most 1Tbit (1000Gbit)".to_string(),
        ));
    }
    Ok(rate)
}

pub(crate) fn size_impl(s: &str) -> Result<Bytes, Problem> {
    let (value, mult) = quantity(s, SIZE_UNITS, SIZE_EXPECTED)?;
    Ok(Bytes(to_u64(value.times(mult), SIZE_EXPECTED)?))
}

pub(crate) fn buffer_impl(s: &str) -> Result<BufferSize, Problem> {
    const E: &str = BUFFER_EXPECTED;
    let too_small = || Problem::new(E, "a buffer must hold at least one datagram".to_string());
    let (number, unit) = split_unit(s);
    let value = number_or_problem(number, s, E)?;
    let size = match unit {
        "" if value.is_zero() => return Err(too_small()),
        "" => return Err(Problem::new(E, "a number needs a unit".to_string())),
        u if PACKET_UNITS.contains(&u) => {
            if !value.is_integer() {
                return Err(Problem::new(
                    E,
                    "a packet count must be a whole number".to_string(),
                ));
            }
            BufferSize::Packets(to_u64(value.times(1), E)?)
        }
        u if BDP_UNITS.contains(&u) => {
            let f = value.as_f64();
            if !f.is_finite() {
                return Err(Problem::new(E, "too large".to_string()));
            }
            BufferSize::Bdp(f)
        }
        _ => match SIZE_UNITS.iter().find(|(name, _)| *name == unit) {
            Some(&(_, mult)) => BufferSize::Bytes(Bytes(to_u64(value.times(mult), E)?)),
            None => return Err(Problem::new(E, format!("unknown unit {}", quote(unit)))),
        },
    };
    let zero = match size {
        BufferSize::Bytes(b) => b == Bytes::ZERO,
        BufferSize::Packets(p) => p == 0,
        BufferSize::Bdp(f) => f <= 0.0,
    };
    if zero {
        return Err(too_small());
    }
    Ok(size)
}

pub(crate) fn duration_impl(s: &str) -> Result<Duration, Problem> {
    let (value, mult) = quantity(s, DURATION_UNITS, DURATION_EXPECTED)?;
    Ok(Duration::from_nanos(to_u64(
        value.times(mult),
        DURATION_EXPECTED,
    )?))
}

pub(crate) fn probability_impl(s: &str, inclusive: bool) -> Result<f64, Problem> {
    let expected = if inclusive {
        FRACTION_EXPECTED
    } else {
        PROBABILITY_EXPECTED
    };
    let trimmed = s.trim();
    let (number, percent) = match trimmed.strip_suffix('%') {
        Some(n) => (n.trim_end(), true),
        None => (trimmed, false),
    };
    let value = number_or_problem(number, s, expected)?;
    let unit: u128 = if percent { 100 } else { 1 };
    // Exact range check on the decimal: value < 1 (or <= 1).
    let one = 10u128
        .checked_pow(value.scale)
        .and_then(|d| d.checked_mul(unit));
    let in_range = match one {
        Some(one) if inclusive => value.digits <= one,
        Some(one) => value.digits < one,
        None => true, // so many decimals that the value is tiny
    };
    if !in_range {
        let hint = if inclusive {
            "above 100%"
        } else {
            "must be below 100%"
        };
        return Err(Problem::new(expected, hint.to_string()));
    }
    Ok(value.as_f64() / unit as f64)
}

/// Checks a probability given as a TOML number rather than a string.
pub(crate) fn probability_from_f64(v: f64, inclusive: bool) -> Result<f64, Problem> {
    let expected = if inclusive {
        FRACTION_EXPECTED
    } else {
        PROBABILITY_EXPECTED
    };
    if v.is_nan() {
        return Err(Problem::new(expected, None));
    }
    if v < 0.0 {
        return Err(Problem::new(expected, "must not be negative".to_string()));
    }
    if v > 1.0 || (!inclusive && v >= 1.0) {
        let hint = if inclusive {
            "above 1"
        } else {
            "must be below 1"
        };
        return Err(Problem::new(expected, hint.to_string()));
    }
    Ok(v)
}

/// The spellings of a buffer's packet unit.
const PACKET_UNITS: [&str; 3] = ["pkt", "pkts", "packets"];
/// The spellings of a buffer's BDP unit.
const BDP_UNITS: [&str; 2] = ["bdp", "BDP"];

/// A value written as a plain decimal and one of the scenario units
/// (`"0.25bdp"`, `"40 ms"`, `"1%"`): the number as written and the unit's
/// one spelling (see [`canonical_unit`]); `None` for anything else (no
/// unit, an unknown one, a negative number, a controller spec).
pub(crate) fn number_and_unit(s: &str) -> Option<(f64, &'static str)> {
    let (number, unit) = split_unit(s);
    let value = parse_decimal(number).ok()?;
    Some((value.as_f64(), canonical_unit(unit)?))
}

/// The one spelling of a scenario unit: the first of its table with the
/// same value (rates in bit: `"Mbps"`, `"mbit"` and `"Mbit/s"` are all
/// `"Mbit"`; `"kB"` is `"KB"`, `"µs"` is `"us"`), `"pkt"`, `"bdp"` or `"%"`.
fn canonical_unit(unit: &str) -> Option<&'static str> {
    let first_alike = |table: &'static [(&'static str, u128)], unit: &str| {
        let (_, value) = table.iter().find(|(name, _)| *name == unit)?;
        table
            .iter()
            .find(|(_, v)| v == value)
            .map(|(name, _)| *name)
    };
    let rate = match unit.strip_suffix("/s") {
        Some(rest) if rest.ends_with("bit") => rest,
        _ => unit,
    };
    first_alike(RATE_UNITS, rate)
        .or_else(|| first_alike(SIZE_UNITS, unit))
        .or_else(|| first_alike(DURATION_UNITS, unit))
        .or_else(|| PACKET_UNITS.contains(&unit).then_some(PACKET_UNITS[0]))
        .or_else(|| BDP_UNITS.contains(&unit).then_some(BDP_UNITS[0]))
        .or_else(|| (unit == "%").then_some("%"))
}

/// Parses a positive rate: `"40Mbit"`, `"1.5Gbit"`, `"500kbps"`, `"40Mbit/s"`.
///
/// Units: `bit`, `kbit`, `Mbit`, `Gbit` and `bps`, `kbps` (or `Kbps`),
/// `Mbps`, `Gbps`; 1 kbit = 1000 bit. Lower-case `mbit`/`gbit` are accepted
/// as in tc. Zero is an error (see [`parse_rate_or_zero`]), and so is a
/// rate above [`sim::link::MAX_RATE`] (1 Tbit/s).
///
/// ```
/// use scenario::units::parse_rate;
/// assert_eq!(parse_rate("1.5Mbit").unwrap().bits_per_sec(), 1_500_000);
/// assert!(parse_rate("40").unwrap_err().contains("a number needs a unit"));
/// ```
pub fn parse_rate(s: &str) -> Result<Bandwidth, String> {
    rate_impl(s, false).map_err(|p| p.render(&quote(s)))
}

/// Like [`parse_rate`], but zero (`"0bit"`, `"0"`) is allowed: a link
/// outage in a rate schedule.
pub fn parse_rate_or_zero(s: &str) -> Result<Bandwidth, String> {
    rate_impl(s, true).map_err(|p| p.render(&quote(s)))
}

/// Parses a size in bytes: `"300KB"`, `"1.5MB"`, `"64KiB"`, `"1500B"`, or `"0"`.
///
/// Units: `B`, `KB` (or `kB`), `MB`, `GB` (powers of 1000) and `KiB`, `MiB`,
/// `GiB` (powers of 1024). Fractions round to the nearest byte.
///
/// ```
/// use scenario::units::parse_size;
/// assert_eq!(parse_size("1.5KB").unwrap().get(), 1500);
/// assert_eq!(parse_size("1KiB").unwrap().get(), 1024);
/// ```
pub fn parse_size(s: &str) -> Result<Bytes, String> {
    size_impl(s).map_err(|p| p.render(&quote(s)))
}

/// Parses a buffer size: a size as in [`parse_size`], a packet count
/// (`"100pkt"`), or a multiple of the bandwidth-delay product (`"0.25bdp"`).
/// Zero is an error: a buffer holds at least one datagram.
///
/// ```
/// use scenario::units::{parse_buffer, BufferSize};
/// assert_eq!(parse_buffer("100pkt").unwrap(), BufferSize::Packets(100));
/// assert_eq!(parse_buffer("0.25bdp").unwrap(), BufferSize::Bdp(0.25));
/// assert!(parse_buffer("0").is_err());
/// ```
pub fn parse_buffer(s: &str) -> Result<BufferSize, String> {
    buffer_impl(s).map_err(|p| p.render(&quote(s)))
}

/// Parses a duration: `"100ms"`, `"1.5s"`, `"2min"`, `"250us"`, or `"0"`.
///
/// Units: `ns`, `us` (or `µs`), `ms`, `s`, `min`, `h`. Fractions round to the
/// nearest nanosecond.
///
/// ```
/// use std::time::Duration;
/// use scenario::units::parse_duration;
/// assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
/// ```
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    duration_impl(s).map_err(|p| p.render(&quote(s)))
}

/// Parses a probability in `[0, 1)`: a percentage (`"1%"`, `"0.5%"`) or a
/// plain number (`"0.01"`). One (`"100%"`) is an error: a loss probability of
/// one would never deliver anything.
///
/// ```
/// use scenario::units::parse_probability;
/// assert_eq!(parse_probability("1%").unwrap(), 0.01);
/// assert_eq!(parse_probability("0.25").unwrap(), 0.25);
/// assert!(parse_probability("1").is_err());
/// ```
pub fn parse_probability(s: &str) -> Result<f64, String> {
    probability_impl(s, false).map_err(|p| p.render(&quote(s)))
}

/// Like [`parse_probability`] but one is allowed: a probability in `[0, 1]`
/// (e.g. the Gilbert-Elliott model's loss in the bad state, `"100%"`).
pub fn parse_fraction(s: &str) -> Result<f64, String> {
    probability_impl(s, true).map_err(|p| p.render(&quote(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_in_every_unit() {
        let bps = |s: &str| parse_rate(s).unwrap().bits_per_sec();
        assert_eq!(bps("40Mbit"), 40_000_000);
        assert_eq!(bps("40Mbps"), 40_000_000);
        assert_eq!(bps("40mbit"), 40_000_000);
        assert_eq!(bps("40 Mbit"), 40_000_000);
        assert_eq!(bps("40Mbit/s"), 40_000_000);
        assert_eq!(bps("1.5Mbit"), 1_500_000);
        assert_eq!(bps("1Gbit"), 1_000_000_000);
        assert_eq!(bps("100Gbps"), 100_000_000_000);
        assert_eq!(bps("500kbit"), 500_000);
        assert_eq!(bps("500Kbps"), 500_000);
        assert_eq!(bps("64kbps"), 64_000);
        assert_eq!(bps("1200bit"), 1200);
        assert_eq!(bps("1200bps"), 1200);
        assert_eq!(bps(".5Mbit"), 500_000);
    }

    #[test]
    fn bad_rates_say_what_was_expected() {
        let e = parse_rate("40").unwrap_err();
        assert!(e.contains("expected a rate like \"40Mbit\""), "{e}");
        assert!(e.contains("got \"40\" (a number needs a unit)"), "{e}");
        let e = parse_rate("-40Mbit").unwrap_err();
        assert!(e.contains("must not be negative"), "{e}");
        let e = parse_rate("40MB").unwrap_err();
        assert!(e.contains("unknown unit \"MB\""), "{e}");
        let e = parse_rate("0Mbit").unwrap_err();
        assert!(e.contains("greater than zero"), "{e}");
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("").unwrap_err().contains("empty"));
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("1.2.3Mbit").is_err());
        assert!(parse_rate("1e6bit").is_err());
        assert!(parse_rate("99999999999999Gbit")
            .unwrap_err()
            .contains("too large"));
        let e = parse_rate("1000.001Gbit").unwrap_err();
        assert!(e.contains("too large: rates are at most 1Tbit"), "{e}");
        assert_eq!(parse_rate("1000Gbit").unwrap(), sim::link::MAX_RATE);
        assert!(parse_rate_or_zero("2000Gbit").is_err());
        assert_eq!(parse_rate_or_zero("0bit").unwrap(), Bandwidth::ZERO);
        assert_eq!(parse_rate_or_zero("0").unwrap(), Bandwidth::ZERO);
    }

    #[test]
    fn sizes_in_every_unit() {
        let b = |s: &str| parse_size(s).unwrap().get();
        assert_eq!(b("1500B"), 1500);
        assert_eq!(b("300KB"), 300_000);
        assert_eq!(b("300kB"), 300_000);
        assert_eq!(b("1.5MB"), 1_500_000);
        assert_eq!(b("1GB"), 1_000_000_000);
        assert_eq!(b("1KiB"), 1024);
        assert_eq!(b("1MiB"), 1 << 20);
        assert_eq!(b("2GiB"), 2 << 30);
        assert_eq!(b("0"), 0);
        assert_eq!(b("0KB"), 0);
        assert!(parse_size("100")
            .unwrap_err()
            .contains("a number needs a unit"));
        assert!(parse_size("100pkt").unwrap_err().contains("unknown unit"));
        assert!(parse_size("-1KB").is_err());
    }

    #[test]
    fn buffers_in_bytes_packets_and_bdp() {
        assert_eq!(
            parse_buffer("300KB").unwrap(),
            BufferSize::Bytes(Bytes(300_000))
        );
        assert_eq!(parse_buffer("100pkt").unwrap(), BufferSize::Packets(100));
        assert_eq!(parse_buffer("0.25bdp").unwrap(), BufferSize::Bdp(0.25));
        assert_eq!(parse_buffer("2bdp").unwrap(), BufferSize::Bdp(2.0));
        for zero in ["0", "0KB", "0pkt", "0bdp", "0.0001B"] {
            let e = parse_buffer(zero).unwrap_err();
            assert!(e.contains("at least one datagram"), "{zero}: {e}");
        }
        assert!(parse_buffer("1.5pkt").unwrap_err().contains("whole number"));
        assert!(parse_buffer("100")
            .unwrap_err()
            .contains("a number needs a unit"));
        let e = parse_buffer("0").unwrap_err();
        assert!(e.contains("\"300KB\", \"100pkt\" or \"0.25bdp\""), "{e}");
    }

    #[test]
    fn durations_in_every_unit() {
        let d = |s: &str| parse_duration(s).unwrap();
        assert_eq!(d("100ms"), Duration::from_millis(100));
        assert_eq!(d("1.5s"), Duration::from_millis(1500));
        assert_eq!(d("2min"), Duration::from_secs(120));
        assert_eq!(d("1h"), Duration::from_secs(3600));
        assert_eq!(d("250us"), Duration::from_micros(250));
        assert_eq!(d("250µs"), Duration::from_micros(250));
        assert_eq!(d("7ns"), Duration::from_nanos(7));
        assert_eq!(d("0"), Duration::ZERO);
        assert_eq!(d("0.0000000004s"), Duration::ZERO);
        assert_eq!(d("0.0000000006s"), Duration::from_nanos(1));
        assert!(parse_duration("10")
            .unwrap_err()
            .contains("a number needs a unit"));
        assert!(parse_duration("10 sec")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(parse_duration("-1s").unwrap_err().contains("negative"));
        assert!(parse_duration("1000000000000h")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn probabilities_as_percent_or_fraction() {
        assert_eq!(parse_probability("1%").unwrap(), 0.01);
        assert_eq!(parse_probability("0.5%").unwrap(), 0.005);
        assert_eq!(parse_probability("0").unwrap(), 0.0);
        assert_eq!(parse_probability("0.999").unwrap(), 0.999);
        assert!(parse_probability("1").unwrap_err().contains("below 100%"));
        assert!(parse_probability("100%").is_err());
        assert!(parse_probability("150%").is_err());
        assert!(parse_probability("-1%").unwrap_err().contains("negative"));
        assert!(parse_probability("often").is_err());
        assert_eq!(parse_fraction("100%").unwrap(), 1.0);
        assert_eq!(parse_fraction("1").unwrap(), 1.0);
        assert!(parse_fraction("1.01").is_err());
        assert!(probability_from_f64(1.0, false).is_err());
        assert!(probability_from_f64(-0.1, true).is_err());
        assert!(probability_from_f64(f64::NAN, true).is_err());
        assert_eq!(probability_from_f64(1.0, true).unwrap(), 1.0);
    }

    #[test]
    fn rounding_is_to_nearest() {
        assert_eq!(parse_size("1.4B").unwrap().get(), 1);
        assert_eq!(parse_size("1.5B").unwrap().get(), 2);
        assert_eq!(parse_rate("0.0015kbit").unwrap().bits_per_sec(), 2);
    }
}
