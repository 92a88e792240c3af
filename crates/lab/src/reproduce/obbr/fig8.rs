//! obbr: helpers of the nginx-stack experiments: per-flow summary values
//! and their mean. Fig. 8 itself is the experiment file
//! `experiments/obbr/fig8-multi-flow.toml`.

use crate::reproduce::data::mean_sd;
use crate::store::RunRecord;

/// A summary field of every flow of a run (`/flows/<i>/<field>`), in flow
/// order; flows without the field are left out.
pub(super) fn per_flow(record: &RunRecord, field: &str) -> Vec<f64> {
    record
        .summary
        .pointer("/flows")
        .and_then(|f| f.as_array())
        .map(|flows| {
            flows
                .iter()
                .filter_map(|f| f.get(field).and_then(|v| v.as_f64()))
                .collect()
        })
        .unwrap_or_default()
}

/// The mean of some values, or `None` when there are none.
pub(super) fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| mean_sd(values).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(summary: serde_json::Value) -> RunRecord {
        RunRecord::new("x".into(), Vec::new(), String::new(), summary)
    }

    #[test]
    fn per_flow_reads_every_flow_and_skips_missing_fields() {
        let r = record(serde_json::json!({
            "flows": [
                {"goodput_bps": 1.0},
                {"goodput_bps": null},
                {"goodput_bps": 3.0}
            ]
        }));
        assert_eq!(per_flow(&r, "goodput_bps"), vec![1.0, 3.0]);
        assert_eq!(mean(&per_flow(&r, "goodput_bps")), Some(2.0));
        assert!(per_flow(&record(serde_json::json!({})), "goodput_bps").is_empty());
        assert_eq!(mean(&[]), None);
    }
}
