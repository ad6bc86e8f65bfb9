#!/usr/bin/env bash
# The shipped Hoch & Tief bot (policies/bots/hoch_tief): three 55-minute legs of
# configs/hoch_tief.yaml in one run folder - the hour, a second hour at the same PPO
# step, and a third hour whose step (1.5e-4) decays linearly to 0 (train.lr_schedule) -
# then the export.  About 3 hours on 2 cores; each leg's clock starts on --resume.
#   bash scripts/recipes/hoch_tief_3h.sh [RUN_DIR]     (default runs/hoch_tief_3h)
set -euo pipefail
cd "$(dirname "$0")/../.."
run=${1:-runs/hoch_tief_3h}
.venv/bin/stichzoo train configs/hoch_tief.yaml --run-dir "$run" --final-eval
.venv/bin/stichzoo train --resume "$run" --final-eval
.venv/bin/stichzoo train --resume "$run" --set train.lr_schedule=linear \
    --set train.total_timesteps=40000000 --final-eval
.venv/bin/stichzoo export "$run" --out policies/bots/hoch_tief
