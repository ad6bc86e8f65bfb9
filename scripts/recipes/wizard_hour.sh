#!/usr/bin/env bash
# Makes the start of the shipped Wizard bot: policies/bots/wizard/start (bot:wizard/start),
# the Wizard bot shipped before expert iteration improved it (scripts/recipes/wizard_expert.sh
# makes the shipped bot from it; docs/lab/ppo.md "Wizard: 5M samples with a decaying step").
# PPO on configs/wizard.yaml (stichzoo train: the batch pipeline, warm start then PPO)
# given 5,000,000 learner samples (the 75-minute clock is only a cap; about 31 minutes on
# 2 cores) with the step decaying linearly to 0 by the samples (train.lr_clock: every run
# the same network; the start as shipped was made with the wall clock in the decay, a
# network of its own), its export (policy-head bids), then the bid model on that actor
# (stichzoo fit bid_model wizard, configs/bid_model/wizard.yaml, about 12 minutes).  The
# bot lands in runs/tricks/wizard_hour/bot; the shipped bots stay as they are.  --ship
# copies it to policies/bots/wizard/start and stamps its manifest as shipped: the
# training command (provenance.legs, train_command) and the evaluations against random
# and the heuristic (1,000 games, seed 104729).
#   bash scripts/recipes/wizard_hour.sh [--ship]
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/recipes/evals.sh   # NO_EVAL=1: no evaluations beside the training
run=runs/wizard_hour
train=(stichzoo train configs/wizard.yaml --run-dir "$run" --set train.total_timesteps=5000000
       --set train.max_minutes=75 --set train.lr_schedule=linear --set train.lr_clock=samples
       --set train.torch_threads=1 "${EVALS[@]}" "${FINAL_EVAL[@]}")
.venv/bin/"${train[@]}"
.venv/bin/stichzoo export "$run" --out runs/bots/wizard_hour_head
# REFIT_WORKERS=<w>: the bid model's games are collected on w processes (scripts/recipes/expert_generations.sh)
refit_set=()
if [ -n "${REFIT_WORKERS:-}" ]; then refit_set=(--set "collect.workers=$REFIT_WORKERS"); fi
.venv/bin/stichzoo fit bid_model wizard --config configs/bid_model/wizard.yaml \
    --out runs/tricks/wizard_hour "${refit_set[@]}"
if [ "${1:-}" = --ship ]; then
    bot=policies/bots/wizard/start
    cp runs/tricks/wizard_hour/bot/{model.onnx,manifest.json,config.yaml} "$bot/"
    .venv/bin/python scripts/recipes/stamp_bot.py "$bot" --leg "${train[*]}" \
        --command "${REFIT_WORKERS:+REFIT_WORKERS=$REFIT_WORKERS }bash scripts/recipes/wizard_hour.sh --ship"
fi
