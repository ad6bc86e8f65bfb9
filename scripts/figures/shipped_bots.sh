#!/usr/bin/env bash
# Reproduce the table of the shipped bots in docs/results.md (policies/bots/<game>, as
# bot:<game>): each against random and against the heuristic, 1,000 duplicate
# games on both cores, seed 104729 (the deals of the runs' final evaluation,
# never used in training).  Reports land in runs/eval/<game>_bot_vs_<opp>/.
# Usage: bash scripts/figures/shipped_bots.sh [GAMES] [SEED]
set -euo pipefail
cd "$(dirname "$0")/../.."
games="${1:-1000}"
seed="${2:-104729}"
for spec in wizard:4 wunder_punkt:4 silberne_ananas:3 hoch_tief:4 geheimtrumpf:4; do
    game="${spec%%:*}"
    players="${spec##*:}"
    for opp in random heuristic; do
        .venv/bin/stichzoo eval "$game" --players "$players" --policies "bot:$game" "$opp" \
            --games "$games" --seed "$seed" --quiet --out "runs/eval/${game}_bot_vs_${opp}"
    done
done
