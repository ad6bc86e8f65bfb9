#!/usr/bin/env bash
# Install, then run the suite's main job: at this stage, random Wizard games
# through the AEC API, with scores and throughput (see scripts/play.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
.venv/bin/python scripts/play.py "$@"
