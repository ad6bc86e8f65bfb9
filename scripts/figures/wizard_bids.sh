#!/usr/bin/env bash
# Reproduce docs/lab/bid_model.md "Wizard bids from a predicted trick distribution": the
# shipped Wizard bot (trick-model bids, policies/bots/wizard) against the bot it
# replaced (policy-head bids, extracted from git commit 4e07617 into
# runs/bots/wizard_policy_head), duplicate, 1,000 games each, on seeds no training
# used (the trick pipeline collected with seeds 7001-7003).  Reports land in
# runs/eval/wizard_bids/<match>/.
# Usage: bash scripts/figures/wizard_bids.sh [WORKERS]
set -euo pipefail
cd "$(dirname "$0")/../.."
workers="${1:-2}"
old=runs/bots/wizard_policy_head
mkdir -p "$old"
for f in model.onnx manifest.json; do
    git show "4e07617:policies/bots/wizard/$f" > "$old/$f"
done
new=policies/bots/wizard
out=runs/eval/wizard_bids
ev() { name="$1"; shift
    .venv/bin/stichzoo eval wizard --players 4 "$@" --workers "$workers" --quiet \
        --out "$out/$name"; }
for seed in 5 60606; do
    ev "selfplay_new_$seed" --lineup "onnx:path=$new" "onnx:path=$new" "onnx:path=$new" \
        "onnx:path=$new" --games 1000 --seed "$seed"
    ev "selfplay_old_$seed" --lineup "onnx:path=$old" "onnx:path=$old" "onnx:path=$old" \
        "onnx:path=$old" --games 1000 --seed "$seed"
done
ev new_vs_heuristic_104729 --policies "onnx:path=$new" heuristic --games 1000 --seed 104729
ev new_vs_random_104729 --policies "onnx:path=$new" random --games 1000 --seed 104729
for who in new old; do
    bot=$new; [ "$who" = old ] && bot=$old
    ev "${who}_vs_heuristic_31337" --policies "onnx:path=$bot" heuristic --games 1000 --seed 31337
done
ev new_vs_old_4242 --policies "onnx:path=$new" "onnx:path=$old" --games 1000 --seed 4242
ev old_vs_new_4242 --policies "onnx:path=$old" "onnx:path=$new" --games 1000 --seed 4242
