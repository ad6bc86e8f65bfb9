#!/usr/bin/env bash
# The shipped Geheimtrumpf bot (policies/bots/geheimtrumpf): the two legs of
# scripts/repro/geheimtrumpf_2legs.sh (heuristic imitation, 806k PPO samples at a constant
# step, as many again with the step decaying to 0; their bot goes to RUN_DIR/leg2_bot), then
# a third leg of as many samples again, the step decaying from 1e-4 to 0 once more, with no
# heuristic seats: the learner and its frozen snapshots fill the table (docs/levers.md
# "Geheimtrumpf: a third leg without the heuristic"); then the export.  About 45 minutes on
# the quiet 2-core machine (19.1 + 13.8 + 9.5 measured; the third leg is the fastest, its
# tables have no rule-bot seats to simulate).
#   bash scripts/repro/geheimtrumpf_3legs.sh [RUN_DIR [--set KEY=VALUE ...]]
#   (default runs/geheimtrumpf_3legs; arguments after RUN_DIR go to leg 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
run=${1:-runs/geheimtrumpf_3legs}
shift || true
BOT_OUT="$run/leg2_bot" bash scripts/repro/geheimtrumpf_2legs.sh "$run" "$@"
.venv/bin/stichzoo train --resume "$run" --set train.lr_schedule=linear \
    --set train.total_timesteps=2418348 --set train.max_minutes=100 \
    --set train.torch_threads=2 --set 'opponents=[{policy: learner, weight: 1}, {policy: self, weight: 1}]' \
    --final-eval
.venv/bin/stichzoo export "$run" --out policies/bots/geheimtrumpf
