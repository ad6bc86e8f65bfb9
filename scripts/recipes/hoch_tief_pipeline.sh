#!/usr/bin/env bash
# Makes a bot of Hoch & Tief's shipped recipe from nothing, budgeted by samples (issue 30's
# pipeline target: labels, training and export from one command; docs/lab/pipelines.md
# "Hoch & Tief's pipeline in one command, by samples": 92.3 minutes, its bot level with the
# shipped one head to head, so not shipped - policies/bots/hoch_tief is the clock-ended
# legs' start, scripts/recipes/hoch_tief_3h.sh, refined by configs/expert/hoch_tief.yaml).
# Every training step is stichzoo train (the batch pipeline): the three PPO legs of
# scripts/recipes/hoch_tief_3h.sh ended by the shipped start's sample counts instead of
# 55 minutes each (7.15M, 14.2M, then 21.47M with the step decaying linearly to 0 over
# the third leg), then the anchored expert iteration of configs/expert/hoch_tief.yaml
# from that start, then the export. Each stage's wall time goes to RUN_DIR/seconds.
# The clock ended the legs of the shipped run (about 2,200 samples/s on a busy machine);
# samples end these, so the recipe is the same however fast the machine is.
#   bash scripts/recipes/hoch_tief_pipeline.sh [RUN_DIR] [OUT]
#   (default runs/hoch_tief_pipeline, bot in RUN_DIR/bot)
set -euo pipefail
cd "$(dirname "$0")/../.."
run=${1:-runs/hoch_tief_pipeline}
out=${2:-$run/bot}
mkdir -p "$run"
: > "$run/seconds"
stage() {  # name, then the command; its wall seconds are appended to RUN_DIR/seconds
    local name=$1
    shift
    SECONDS=0
    "$@"
    echo "$name $SECONDS" | tee -a "$run/seconds"
}
ppo="$run/ppo"
long=(--set train.max_minutes=1000)   # samples end every leg, not the clock
stage leg1 .venv/bin/stichzoo train configs/hoch_tief.yaml --run-dir "$ppo" "${long[@]}" \
    --set train.total_timesteps=7150000 --set eval.every=0
stage leg2 .venv/bin/stichzoo train --resume "$ppo" "${long[@]}" \
    --set train.total_timesteps=14200000
stage leg3 .venv/bin/stichzoo train --resume "$ppo" "${long[@]}" \
    --set train.lr_schedule=linear --set train.total_timesteps=21470000
stage export_start .venv/bin/stichzoo export "$ppo" --out "$run/start"
stage expert .venv/bin/stichzoo train configs/expert/hoch_tief.yaml --run-dir "$run/expert" \
    --set expert.start="$run/start"
stage export .venv/bin/stichzoo export "$run/expert" --out "$out"
awk '{s += $2} END {printf "pipeline %d s (%.1f min)\n", s, s / 60}' "$run/seconds" \
    | tee -a "$run/seconds"
