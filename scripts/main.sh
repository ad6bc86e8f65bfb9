#!/usr/bin/env bash
# Install, then run the suite's main job: train a Wizard agent for 6 minutes
# with the batch trainer (configs/wizard_quick.yaml), evaluate it against
# random and the heuristic in duplicate tournaments, and print the tables.
# Extra arguments go to `stichzoo train` (e.g. --set train.max_minutes=2).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
.venv/bin/stichzoo train configs/wizard_quick.yaml --final-eval "$@"
