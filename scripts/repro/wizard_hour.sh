#!/usr/bin/env bash
# The shipped Wizard bot (docs/levers.md "Wizard: 5M samples with a decaying step"):
# PPO on configs/wizard.yaml given 5,000,000 learner samples (the 75-minute clock is
# only a cap; about 31 minutes on 2 cores) with the step decaying linearly to 0,
# its export (policy-head bids), then the trick pipeline on that actor
# (configs/tricks/wizard.yaml, about 12 minutes).  The bot lands in
# runs/tricks/wizard_hour/bot; pass --ship to copy it to policies/bots/wizard.
#   bash scripts/repro/wizard_hour.sh [--ship]
set -euo pipefail
cd "$(dirname "$0")/../.."
run=runs/wizard_hour
.venv/bin/stichzoo train configs/wizard.yaml --run-dir "$run" --set train.total_timesteps=5000000 \
    --set train.max_minutes=75 --set train.lr_schedule=linear --set train.torch_threads=1 --final-eval
.venv/bin/stichzoo export "$run" --out runs/bots/wizard_hour_head
.venv/bin/stichzoo tricks wizard --config configs/tricks/wizard.yaml --out runs/tricks/wizard_hour
if [ "${1:-}" = --ship ]; then
    cp runs/tricks/wizard_hour/bot/model.onnx runs/tricks/wizard_hour/bot/manifest.json \
        policies/bots/wizard/
fi
