#!/usr/bin/env bash
# Makes the start of the shipped Geheimtrumpf bot (policies/bots/geheimtrumpf/start,
# bot:geheimtrumpf/start; stichzoo train: the batch pipeline, then PPO legs): the two legs of
# scripts/recipes/geheimtrumpf_2legs.sh (heuristic imitation, 806,116 PPO samples at a constant
# step, as many again with the step decaying to 0; their bot goes to RUN_DIR/leg2_bot), then
# SELFPLAY more legs of as many samples again, each with the step decaying from 1e-4 to 0
# once more and no heuristic seats: the learner and its frozen snapshots fill the table
# (docs/lab/ppo.md "Geheimtrumpf: legs without the heuristic (shipped)"); then the export, to
# $LEGS_BOT (default RUN_DIR/bot).  Its bot is the six-leg bot shipped until 2026-12-06,
# now policies/bots/geheimtrumpf/start: the start of scripts/recipes/geheimtrumpf_pipeline.sh,
# which makes the shipped bot from it.  A leg
# without rule-bot seats is the fastest (about 9.5 minutes on the quiet 2-core machine; the
# two legs before it 19.1 + 13.8; the sixth, 8.2).
#   bash scripts/recipes/geheimtrumpf_legs.sh [RUN_DIR [SELFPLAY [--set KEY=VALUE ...]]]
#   (default runs/geheimtrumpf_legs and the shipped bot's count; --sets go to leg 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/recipes/evals.sh   # NO_EVAL=1: no evaluations beside the training
run=${1:-runs/geheimtrumpf_legs}
selfplay=${2:-4}
shift $(( $# < 2 ? $# : 2 ))
leg=806116   # learner samples per leg: the v0 bot's 15 minutes
BOT_OUT="$run/leg2_bot" bash scripts/recipes/geheimtrumpf_2legs.sh "$run" "$@"
for k in $(seq 3 $((selfplay + 2))); do
    .venv/bin/stichzoo train --resume "$run" --set train.lr_schedule=linear \
        --set train.total_timesteps=$((k * leg)) --set train.max_minutes=100 \
        --set train.torch_threads=2 \
        --set 'opponents=[{policy: learner, weight: 1}, {policy: self, weight: 1}]' \
        "${EVALS[@]}" "${FINAL_EVAL[@]}"
done
.venv/bin/stichzoo export "$run" --out "${LEGS_BOT:-$run/bot}"
