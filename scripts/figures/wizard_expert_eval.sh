#!/usr/bin/env bash
# Reproduce docs/lab/expert_iteration.md "Wizard: expert iteration from the learned search": the shipped
# Wizard bot (policies/bots/wizard, scripts/recipes/wizard_expert.sh) against the bot it
# started from (policies/bots/wizard/start), duplicate, on seeds no training used (the
# generations labelled games of seeds 0-3 + 4242 ..., the bid refit collected 7001-7003).
# Reports: runs/eval/wizard_expert/<match>/.  About 5 minutes on 2 workers.
# Usage: bash scripts/figures/wizard_expert_eval.sh [WORKERS]
set -euo pipefail
cd "$(dirname "$0")/../.."
workers="${1:-2}"
new=${NEW:-policies/bots/wizard}   # NEW=<bot folder>: a candidate (a generation's bot)
old=policies/bots/wizard/start
out=runs/eval/wizard_expert
ev() { name="$1"; shift
    .venv/bin/stichzoo eval wizard --players 4 "$@" --workers "$workers" --quiet \
        --out "$out/$name"; }
four() { echo "onnx:path=$1 onnx:path=$1 onnx:path=$1 onnx:path=$1"; }
for seed in 5 60606; do
    # shellcheck disable=SC2046
    ev "selfplay_new_$seed" --lineup $(four "$new") --games 1000 --seed "$seed"
done
ev new_vs_old_24601 --policies "onnx:path=$new" "onnx:path=$old" --games 2000 --seed 24601
ev new_vs_heuristic_104729 --policies "onnx:path=$new" heuristic --games 1000 --seed 104729
