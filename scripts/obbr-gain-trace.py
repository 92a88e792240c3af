#!/usr/bin/env python3
"""Which losses cut oBBR's adaptive cwnd gain g in one two-flow run.

Reads a `bbrlab run ... --series-format csv` output directory whose flow 0
is oBBR (flow 1 its opponent), sampled finely (sample_interval = 10ms keeps
one loss episode per sample or so), and prints one JSON line:

- share: flow 0's goodput share (%), from summary.json;
- loss_acks / rescales: ACKs that revealed a loss, and how many of them set
  g from the RTT ratio (the rest were read as a deep buffer: paper mode's
  RTT_latest / RTprop >= g_max test);
- ratio_p10/p50/p90, frac_ratio_lt2: RTT_latest / RTprop on those ACKs;
- rtprop_p50: oBBR's RTprop estimate (ms) at those ACKs;
- mean_g, g_at_max_pct: g's time average and the share of samples with g at
  g_max (2; code mode's ProbeBW entry sets 2 as well);
- lift_pct: samples with g below 2 but a gain in force of at least 2 (code
  mode's "no loss for 3 s" probe);
- by_mode / opp / own_pg: rescales by oBBR's mode, by the opponent's mode and
  pacing gain, and by oBBR's own pacing gain, at the sample that saw them.

Usage: scripts/obbr-gain-trace.py RUN_DIR [--from SECONDS]
"""
import argparse
import csv
import json
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--from", dest="start", type=float, default=0.0,
                    help="ignore samples before this time (s)")
    a = ap.parse_args()
    ctl = defaultdict(dict)
    with open(f"{a.run}/series_controller.csv") as fh:
        for r in csv.DictReader(fh):
            if r["flow"] == "0":
                ctl[float(r["t_s"])][r["name"]] = float(r["value"])
    flows = defaultdict(dict)
    with open(f"{a.run}/series_flows.csv") as fh:
        for r in csv.DictReader(fh):
            flows[float(r["t_s"])][int(r["flow"])] = r
    ratios, rtprops = [], []
    by_mode, opp, own = defaultdict(int), defaultdict(int), defaultdict(int)
    loss_acks = rescales = 0
    gs, lifted = [], 0
    prev = None
    for t in sorted(ctl):
        x = ctl[t]
        if t >= a.start:
            gs.append(x["obbr_g"])
            if x["obbr_g"] < 1.999 and float(flows[t][0]["cwnd_gain"]) >= 2.0:
                lifted += 1
        if prev is not None and t >= a.start:
            dl = x["obbr_loss_acks"] - prev["obbr_loss_acks"]
            dr = x["obbr_g_rescales"] - prev["obbr_g_rescales"]
            loss_acks += dl
            rescales += dr
            if dl > 0:
                ratios.append(x["obbr_loss_ratio"])
                rtprops.append(float(flows[t][0]["min_rtt_ms"]))
            if dr > 0:
                me, other = flows[t][0], flows[t].get(1, {})
                by_mode[me["mode"]] += int(dr)
                pg = round(float(other.get("pacing_gain", 0)), 2)
                opp[f"{other.get('mode', '')}@{pg}"] += int(dr)
                own[str(round(float(me["pacing_gain"]), 2))] += int(dr)
        prev = x

    def q(v, p):
        return round(sorted(v)[int(p * (len(v) - 1))], 2) if v else None

    with open(f"{a.run}/summary.json") as fh:
        s = json.load(fh)
    g0, g1 = s["flows"][0]["goodput_bps"], s["flows"][1]["goodput_bps"]
    print(json.dumps({
        "share": round(100 * g0 / (g0 + g1), 1),
        "loss_acks": int(loss_acks),
        "rescales": int(rescales),
        "ratio_p10": q(ratios, 0.1),
        "ratio_p50": q(ratios, 0.5),
        "ratio_p90": q(ratios, 0.9),
        "frac_ratio_lt2": round(sum(r < 2 for r in ratios) / max(1, len(ratios)), 2),
        "rtprop_p50": q(rtprops, 0.5),
        "mean_g": round(sum(gs) / len(gs), 3),
        "g_at_max_pct": round(100 * sum(g >= 1.999 for g in gs) / len(gs), 1),
        "lift_pct": round(100 * lifted / len(gs), 1),
        "by_mode": by_mode,
        "opp": opp,
        "own_pg": own,
    }))


if __name__ == "__main__":
    main()
