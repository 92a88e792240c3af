//! `converge_share`: the oBBR paper's Eq. 1 model at a sweep point: BBR's
//! occupied ratio `Q_r(p; g, R)` of a buffer of `R` BDP shared with
//! loss-based flows meets `1 - p`, the space they leave, at the converge
//! point `p* = (R - g + 1) / (g R)` ([`crate::model`]). The paper marks
//! `p*` on Fig. 3's bars as BBR's expected proportion, but only `1 - p*`
//! falls with `R` as the bars do; the measure gives either.
//!
//! `R` is read from the evaluation's context, the value of the buffer axis
//! (`"2bdp"`) a table row or a `per_value` fills in, so the model stands
//! beside the runs' numbers value by value. Why not a primitive: it is a
//! formula of the sweep's parameters, not a number of the runs.

use anyhow::Context;

use crate::model;
use crate::reproduce::data::Runs;
use crate::reproduce::file::{number_param, Value};

/// The named measure: parameters `g` (BBR's cwnd gain), `gives`
/// (`"share"`: `1 - p*`, the default; `"p"`: `p*`), `axis` (the buffer's
/// axis, default `"link.buffer"`, its values in BDP such as `"0.5bdp"`).
pub(crate) fn converge_share(
    _runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let g = number_param(params, "g", None).context("converge_share")?;
    let share = match params.get("gives").map(toml::Value::as_str) {
        None | Some(Some("share")) => true,
        Some(Some("p")) => false,
        _ => anyhow::bail!("converge_share: `gives` must be \"share\" or \"p\""),
    };
    let axis = match params.get("axis") {
        None => "link.buffer",
        Some(a) => a
            .as_str()
            .context("converge_share: `axis` must be an axis' name (a string)")?,
    };
    let value = context
        .iter()
        .find(|(k, _)| k == axis)
        .map(|(_, v)| v.as_str())
        .with_context(|| {
            format!(
                "converge_share: no value of `{axis}` here (take it by a table row or `per_value` \
                 over `{axis}`)"
            )
        })?;
    let r = scenario::AxisValue::parse(value)
        .number_in("bdp")
        .filter(|r| *r > 0.0)
        .with_context(|| {
            format!(
                "converge_share: `{axis} = {value:?}` is not a buffer in BDP (such as \"0.5bdp\")"
            )
        })?;
    let p = model::converge_point(g, r);
    Ok(Value::Number(if share { 1.0 - p } else { p }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_runs() -> Runs {
        Runs {
            points: Vec::new(),
            axes: Vec::new(),
            dir: std::path::PathBuf::new(),
            missing: 0,
            rejected: Vec::new(),
        }
    }

    fn at(params: &str, context: &[(&str, &str)]) -> anyhow::Result<f64> {
        let params: toml::Table = toml::from_str(params).unwrap();
        let context: Vec<(String, String)> = context
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        match converge_share(&no_runs(), &params, 0.0, &context)? {
            Value::Number(v) => Ok(v),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn the_converge_point_of_the_buffer_in_context() {
        // g = 2, R = 2: p* = (2 - 2 + 1) / 4.
        assert_eq!(at("g = 2", &[("link.buffer", "2bdp")]).unwrap(), 0.75);
        assert_eq!(
            at("g = 2\ngives = \"p\"", &[("link.buffer", "2bdp")]).unwrap(),
            0.25
        );
        // g = 1, R = 16: p* = 1; below R = g - 1 p* is clamped to 0.
        assert_eq!(at("g = 1", &[("link.buffer", "16bdp")]).unwrap(), 0.0);
        assert_eq!(
            at("g = 2\ngives = \"p\"", &[("link.buffer", "0.5bdp")]).unwrap(),
            0.0
        );
        assert_eq!(
            at(
                "g = 2\naxis = \"buffer\"",
                &[("buffer", "4bdp"), ("link.buffer", "1bdp")]
            )
            .unwrap(),
            1.0 - model::converge_point(2.0, 4.0)
        );
    }

    #[test]
    fn bad_parameters_and_a_missing_buffer_are_named() {
        let says = |params: &str, context: &[(&str, &str)], what: &str| {
            let e = at(params, context).unwrap_err();
            let e = format!("{e:#}");
            assert!(e.starts_with("converge_share") && e.contains(what), "{e}");
        };
        for (params, context, what) in [
            (
                "gives = \"p\"",
                ("link.buffer", "2bdp"),
                "`g` (a number) is required",
            ),
            (
                "g = \"two\"",
                ("link.buffer", "2bdp"),
                "`g` must be a number",
            ),
            (
                "g = 2\ngives = \"q\"",
                ("link.buffer", "2bdp"),
                "`gives` must be",
            ),
            ("g = 2\naxis = 3", ("link.buffer", "2bdp"), "`axis` must be"),
            ("g = 2", ("flow.0.cc", "bbr"), "no value of `link.buffer`"),
            ("g = 2", ("link.buffer", "200KB"), "is not a buffer in BDP"),
        ] {
            says(params, &[context], what);
        }
    }
}
