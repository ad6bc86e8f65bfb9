#!/usr/bin/env bash
# Reproduce the baseline tables of docs/evaluation.md: in every game, the heuristic against
# random and the search bot (PIMC) against the heuristic, in duplicate
# tournaments on both cores.  Reports land in runs/eval/<game>_<a>_vs_<b>/.
# Usage: bash scripts/figures/baselines.sh [GAMES_HEURISTIC_VS_RANDOM] [GAMES_PIMC_VS_HEURISTIC]
set -euo pipefail
cd "$(dirname "$0")/../.."
n_hr="${1:-400}"
n_ph="${2:-200}"
for spec in wizard:4 wunder_punkt:4 silberne_ananas:3 hoch_tief:4 geheimtrumpf:4; do
    game="${spec%%:*}"
    players="${spec##*:}"
    .venv/bin/stichzoo eval "$game" --players "$players" --policies heuristic random \
        --games "$n_hr" --seed 1 --quiet --out "runs/eval/${game}_heuristic_vs_random"
    .venv/bin/stichzoo eval "$game" --players "$players" --policies pimc heuristic \
        --games "$n_ph" --seed 2 --quiet --out "runs/eval/${game}_pimc_vs_heuristic"
done
