#!/usr/bin/env bash
# Makes the two-leg Geheimtrumpf bot (v4, shipped before the six-leg one, not kept): the
# first two of the six legs of policies/bots/geheimtrumpf/start, the start of the shipped
# Geheimtrumpf bot (scripts/recipes/geheimtrumpf_legs.sh runs this script for them).
# configs/geheimtrumpf.yaml (stichzoo train: the batch pipeline; heuristic imitation on
# 400k decisions, then 806k PPO samples at a constant step of 1e-4), resumed in the same
# run folder for as many samples again with the step decaying linearly to 0
# (train.lr_schedule) - then the export.  About 31 minutes on the quiet 2-core machine
# (16.7 + 14.2 measured for the two-leg bot; 55 under load); the second leg's clock is
# raised so that the samples, not the clock, end it.
# Since the v3 bot with reward margin (docs/lab/reward.md "The margin reward"), leg 1 sets
# env.reward=margin and the resume keeps it; arguments after RUN_DIR go to leg 1 and win
# (--set env.reward=score: the recipe of every Geheimtrumpf bot before it).
#   bash scripts/recipes/geheimtrumpf_2legs.sh [RUN_DIR [--set KEY=VALUE ...]]
#   (default runs/geheimtrumpf_2legs; the bot goes to $BOT_OUT, default RUN_DIR/bot - the
#   shipped bots stay as they are)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/recipes/evals.sh   # NO_EVAL=1: no evaluations beside the training
run=${1:-runs/geheimtrumpf_2legs}
shift || true
.venv/bin/stichzoo train configs/geheimtrumpf.yaml --run-dir "$run" --set env.reward=margin \
    "${EVALS[@]}" "$@" "${FINAL_EVAL[@]}"
.venv/bin/stichzoo train --resume "$run" --set train.lr_schedule=linear \
    --set train.total_timesteps=1612232 --set train.max_minutes=100 \
    --set train.torch_threads=1 "${EVALS[@]}" "${FINAL_EVAL[@]}"
.venv/bin/stichzoo export "$run" --out "${BOT_OUT:-$run/bot}"
