#!/bin/sh
# Tempered BBR's evaluation: the development set (scenarios/own-dev, seeds
# 1-2, used for tuning) and the held-out set (scenarios/own-holdout, seeds
# 3-5 and an Irish 5G trace, never used for tuning), then the goal table.
# usage: scripts/tempered-eval.sh [OUT]   (default out/tempered; a few minutes on 2 cores)
set -eu
out=${1:-out/tempered}
bbrlab=${BBRLAB:-target/release/bbrlab}
for set in own-dev own-holdout; do
    for f in scenarios/$set/*.toml; do
        name=$(basename "$f" .toml)
        if [ "$name" = rtt-fair ]; then
            for cc in tempered-bbr bbr obbr bbr2 bbr3 cubic; do
                nice -n 15 "$bbrlab" sweep "$f" --set flow.0.cc=$cc --set flow.1.cc=$cc \
                    --out "$out/$set/rtt-fair-$cc" >/dev/null
            done
        else
            nice -n 15 "$bbrlab" sweep "$f" --out "$out/$set/$name" >/dev/null
        fi
    done
done
python3 scripts/tempered-goals.py "$out/own-dev" "$out/own-holdout"
