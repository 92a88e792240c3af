#!/bin/sh
# Tempered BBR's evaluation: the league over the controllers its goals
# compare, seeds 1-5, with its goal file, which judges the goals on the
# development seeds (1-2, those used for tuning) and on the held-out seeds
# (3-5) side by side and marks the held-out Irish 5G trace
# (docs/ALGORITHMS.md, "Tempered BBR"; docs/LEAGUE.md, "Goals").
# Tuning itself runs the development set: bbrlab sweep scenarios/own-dev/FILE.
# usage: scripts/tempered-eval.sh [OUT] [--fast]   (default out/league-goals)
set -eu
out=${1:-out/league-goals}
shift $(( $# > 0 ? 1 : 0 ))
bbrlab=${BBRLAB:-target/release/bbrlab}
nice -n 15 "$bbrlab" league --cc tempered-bbr,bbr,obbr,bbr2,bbr3,cubic --seeds 1-5 \
    --goals scenarios/league/goals/tempered-bbr.toml --out "$out" "$@"
