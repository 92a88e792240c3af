//! Number formatting for table cells and axis ticks.

use crate::model::NumberFormat;

/// Shown for NaN and infinities, which mean "no value" in a results table.
pub(crate) const MISSING: &str = "—";

/// SI prefixes from large to small. Values between 0.01 and 1000 get none:
/// "0.25" reads better than "250m" in a report.
const PREFIXES: [(f64, &str); 7] = [
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
    (1e-3, "m"),
    (1e-6, "µ"),
    (1e-9, "n"),
];

/// Formats `value` with three significant digits and an SI suffix glued to
/// the number: `12_500_000.0` → `"12.5M"`, `0.004` → `"4m"`, `0.25` → `"0.25"`.
/// NaN and infinities give `"—"`.
pub fn format_si(value: f64) -> String {
    match si_parts(value) {
        Some((mantissa, prefix)) => format!("{mantissa}{prefix}"),
        None => MISSING.to_string(),
    }
}

/// Formats a table value; NaN and infinities give `"—"`.
pub fn format_number(value: f64, format: NumberFormat) -> String {
    if !value.is_finite() {
        return MISSING.to_string();
    }
    match format {
        NumberFormat::Auto => format_auto(value),
        NumberFormat::Fixed(decimals) => fixed(value, decimals as usize),
        NumberFormat::Percent(decimals) => format!("{}%", fixed(value * 100.0, decimals as usize)),
        NumberFormat::Si => format_si(value),
    }
}

/// Formats a number and its unit for a table cell. With [`NumberFormat::Si`]
/// the prefix joins the unit ("12.5 Mbit/s"), as a reader expects.
pub(crate) fn format_with_unit(value: f64, format: NumberFormat, unit: &str) -> String {
    if !value.is_finite() {
        return MISSING.to_string();
    }
    let (number, prefix) = match format {
        NumberFormat::Si => si_parts(value).unwrap_or_else(|| (MISSING.to_string(), "")),
        other => (format_number(value, other), ""),
    };
    if prefix.is_empty() && unit.is_empty() {
        number
    } else {
        // No-break space: a value must not wrap away from its unit.
        format!("{number}\u{a0}{prefix}{unit}")
    }
}

/// Splits a value into a three-significant-digit mantissa and an SI prefix.
fn si_parts(value: f64) -> Option<(String, &'static str)> {
    if !value.is_finite() {
        return None;
    }
    let magnitude = value.abs();
    let (scale, prefix) = if magnitude == 0.0 || (1e-2..1e3).contains(&magnitude) {
        (1.0, "")
    } else {
        PREFIXES
            .iter()
            .copied()
            .find(|(scale, _)| magnitude >= *scale * (1.0 - 5e-4))
            .unwrap_or(PREFIXES[PREFIXES.len() - 1])
    };
    let mut mantissa = value / scale;
    let mut prefix = prefix;
    // Rounding to three digits can carry into the next prefix (999_999 → "1M").
    if mantissa.abs() >= 999.5 {
        if let Some(pos) = PREFIXES.iter().position(|(_, p)| *p == prefix) {
            if pos > 0 {
                let (bigger, bigger_prefix) = PREFIXES[pos - 1];
                mantissa = value / bigger;
                prefix = bigger_prefix;
            }
        } else if prefix.is_empty() {
            mantissa = value / 1e3;
            prefix = "k";
        }
    }
    Some((significant(mantissa, 3), prefix))
}

/// Up to `digits` significant digits, trailing zeros trimmed.
fn significant(value: f64, digits: i32) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    let exponent = value.abs().log10().floor() as i32;
    let decimals = (digits - 1 - exponent).clamp(0, 12) as usize;
    trim_zeros(&fixed(value, decimals))
}

fn format_auto(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-4..1e15).contains(&magnitude) {
        return format!("{value:.3e}");
    }
    if magnitude >= 1000.0 {
        // Integer digits are never dropped: 123456 stays 123456.
        return fixed(value, 0);
    }
    significant(value, 4)
}

/// `{:.N}` without the "-0" that rounding a tiny negative number produces.
fn fixed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

fn trim_zeros(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text.to_string()
    }
}

/// Tick labels for one linear axis: one SI prefix for the whole axis (so
/// "0, 2M, 4M" rather than "0, 2000k, 4M") and just enough decimals to tell
/// neighbouring ticks apart.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AxisFormat {
    scale: f64,
    prefix: &'static str,
    decimals: usize,
}

impl AxisFormat {
    /// For an axis spanning `lo..hi` with about `ticks` labels.
    pub(crate) fn new(lo: f64, hi: f64, ticks: usize) -> Self {
        let magnitude = lo.abs().max(hi.abs());
        let (scale, prefix) = if (1e-2..1e3).contains(&magnitude) || magnitude == 0.0 {
            (1.0, "")
        } else {
            PREFIXES
                .iter()
                .copied()
                .find(|(scale, _)| magnitude >= *scale)
                .unwrap_or(PREFIXES[PREFIXES.len() - 1])
        };
        let step = ((hi - lo).abs() / ticks.max(1) as f64) / scale;
        // One digit more than the step's magnitude, because the tick generator
        // may pick a finer step (0.25 where we guessed 0.5); zeros are trimmed.
        let decimals = if step > 0.0 && step.is_finite() {
            (1 - step.log10().floor() as i64).clamp(0, 9) as usize
        } else {
            2
        };
        AxisFormat {
            scale,
            prefix,
            decimals,
        }
    }

    /// The label of one tick.
    pub(crate) fn format(&self, value: f64) -> String {
        if !value.is_finite() {
            return String::new();
        }
        let number = trim_zeros(&fixed(value / self.scale, self.decimals));
        if number == "0" {
            number
        } else {
            format!("{number}{}", self.prefix)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_suffixes() {
        assert_eq!(format_si(0.0), "0");
        assert_eq!(format_si(12_500_000.0), "12.5M");
        assert_eq!(format_si(1_000.0), "1k");
        assert_eq!(format_si(999_999.0), "1M");
        assert_eq!(format_si(999.9), "1k");
        assert_eq!(format_si(-2.5e9), "-2.5G");
        assert_eq!(format_si(0.25), "0.25");
        assert_eq!(format_si(0.004), "4m");
        assert_eq!(format_si(3.5e-6), "3.5µ");
        assert_eq!(format_si(42.0), "42");
        assert_eq!(format_si(f64::NAN), MISSING);
        assert_eq!(format_si(f64::INFINITY), MISSING);
    }

    #[test]
    fn number_formats() {
        assert_eq!(format_number(0.1234, NumberFormat::Percent(1)), "12.3%");
        assert_eq!(format_number(2.0, NumberFormat::Fixed(2)), "2.00");
        assert_eq!(format_number(-0.0001, NumberFormat::Fixed(2)), "0.00");
        assert_eq!(format_number(123456.7, NumberFormat::Auto), "123457");
        assert_eq!(format_number(1.23456, NumberFormat::Auto), "1.235");
        assert_eq!(format_number(1e-7, NumberFormat::Auto), "1.000e-7");
        assert_eq!(format_number(f64::NAN, NumberFormat::Auto), MISSING);
        assert_eq!(
            format_with_unit(12.5e6, NumberFormat::Si, "bit/s"),
            "12.5\u{a0}Mbit/s"
        );
        assert_eq!(format_with_unit(12.0, NumberFormat::Fixed(1), ""), "12.0");
    }

    #[test]
    fn axis_ticks_share_a_prefix() {
        let axis = AxisFormat::new(0.0, 5e6, 5);
        assert_eq!(axis.format(0.0), "0");
        assert_eq!(axis.format(1e6), "1M");
        assert_eq!(axis.format(2.5e6), "2.5M");
        let fine = AxisFormat::new(1000.0, 1001.0, 5);
        assert_ne!(fine.format(1000.2), fine.format(1000.4));
        let small = AxisFormat::new(0.0, 0.005, 5);
        assert_eq!(small.format(0.002), "2m");
        let plain = AxisFormat::new(0.0, 1.0, 5);
        assert_eq!(plain.format(0.25), "0.25");
    }
}
