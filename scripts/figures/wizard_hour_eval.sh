#!/usr/bin/env bash
# Reproduce docs/lab/ppo.md "Wizard: 5M samples, decaying step": the shipped Wizard bot
# (policies/bots/wizard/start since the expert bot shipped: the 5M-sample actor of configs/wizard.yaml with
# trick-model bids) against the bot it replaced (the 2.3M-sample actor with
# trick-model bids, taken from git commit 4ce5ee3 into runs/bots/wizard_15min),
# duplicate, 1,000 games a match (2,000 head to head), on seeds no training used
# (the trick pipelines collected with seeds 7001-7003).  Reports: runs/eval/wizard_hour/.
# Usage: bash scripts/figures/wizard_hour_eval.sh [WORKERS]
set -euo pipefail
cd "$(dirname "$0")/../.."
workers="${1:-2}"
old=runs/bots/wizard_15min
mkdir -p "$old"
for f in model.onnx manifest.json; do
    git show "4ce5ee3:policies/bots/wizard/$f" > "$old/$f"
done
new=${NEW:-policies/bots/wizard/start}   # NEW=<bot folder>: a candidate before it ships
out=runs/eval/wizard_hour
ev() { name="$1"; shift
    .venv/bin/stichzoo eval wizard --players 4 "$@" --workers "$workers" --quiet \
        --out "$out/$name"; }
four() { echo "onnx:path=$1 onnx:path=$1 onnx:path=$1 onnx:path=$1"; }
for seed in 5 60606; do
    # shellcheck disable=SC2046
    ev "selfplay_new_$seed" --lineup $(four "$new") --games 1000 --seed "$seed"
    # shellcheck disable=SC2046
    ev "selfplay_old_$seed" --lineup $(four "$old") --games 1000 --seed "$seed"
done
for seed in 104729 31337; do
    ev "new_vs_heuristic_$seed" --policies "onnx:path=$new" heuristic --games 1000 --seed "$seed"
    ev "old_vs_heuristic_$seed" --policies "onnx:path=$old" heuristic --games 1000 --seed "$seed"
done
ev new_vs_random_104729 --policies "onnx:path=$new" random --games 1000 --seed 104729
ev new_vs_old_4242 --policies "onnx:path=$new" "onnx:path=$old" --games 1000 --seed 4242
ev old_vs_new_4242 --policies "onnx:path=$old" "onnx:path=$new" --games 1000 --seed 4242
ev new_vs_old_8675309 --policies "onnx:path=$new" "onnx:path=$old" --games 2000 --seed 8675309
