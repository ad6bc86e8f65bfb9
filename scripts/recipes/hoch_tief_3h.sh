#!/usr/bin/env bash
# Makes the start of the shipped Hoch & Tief bot: policies/bots/hoch_tief/start
# (bot:hoch_tief/start), the three-hour PPO bot shipped before expert iteration refined it
# (configs/expert/hoch_tief.yaml starts from it and made policies/bots/hoch_tief;
# scripts/recipes/hoch_tief_pipeline.sh chains both; docs/lab/ppo.md "A third hour, the
# step decaying to 0 (Hoch & Tief): kept, shipped").  Three 55-minute legs of
# configs/hoch_tief.yaml in one run folder (stichzoo train: the batch pipeline, warm start
# then PPO; --resume: PPO alone) - the hour, a second hour at the same PPO step, and a
# third hour whose step (1.5e-4) decays linearly to 0 (train.lr_schedule) - then the
# export to OUT.  About 3 hours on 2 cores; each leg's clock starts on --resume, so the
# clock, not the samples, ends each leg (the start's were 7.15M, 14.2M and 21.47M).
#   bash scripts/recipes/hoch_tief_3h.sh [RUN_DIR [OUT]]
#   (default runs/hoch_tief_3h, bot in RUN_DIR/bot - the shipped bots stay as they are)
set -euo pipefail
cd "$(dirname "$0")/../.."
run=${1:-runs/hoch_tief_3h}
out=${2:-$run/bot}
.venv/bin/stichzoo train configs/hoch_tief.yaml --run-dir "$run" --final-eval
.venv/bin/stichzoo train --resume "$run" --final-eval
.venv/bin/stichzoo train --resume "$run" --set train.lr_schedule=linear \
    --set train.total_timesteps=40000000 --final-eval
.venv/bin/stichzoo export "$run" --out "$out"
