#!/usr/bin/env bash
# Install, then run the suite's main job: train a Wizard agent with the batch
# trainer (configs/quick/wizard.yaml), evaluate it against random and the
# heuristic in duplicate tournaments, and print the ladder - the shipped bots,
# the rule bots and the learned search (policies/ladder.json) with this run's
# agent beside them.  Extra arguments go to `stichzoo train`
# (e.g. --set train.total_timesteps=200000).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${STICHZOO_NO_SETUP:-}" ] || bash scripts/setup.sh dev   # the tests set it: the venv is in use
run="${STICHZOO_RUN_DIR:-runs/main_$(date +%Y%m%d-%H%M%S)}"
.venv/bin/stichzoo train configs/quick/wizard.yaml --final-eval --run-dir "$run" "$@"
.venv/bin/stichzoo ladder --run "$run"
