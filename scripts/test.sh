#!/usr/bin/env bash
# Install everything the tests need, then run the whole suite: lint + pytest, then build
# the docs site strictly (a broken link or a missing page fails; bash scripts/docs.sh).
# Without arguments (CI), the RLlib backend's tests follow in their own venv, .venv-rllib:
# Ray pins gymnasium 1.2.2, the main venv has 1.4 (docs/cluster.md).  With arguments
# (bash scripts/test.sh tests/test_x.py -k y), only the main venv's pytest runs, with them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
bash scripts/setup_browser.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest -q -n 2 --durations=15 "$@"
bash scripts/docs.sh --quiet
if [ "$#" -eq 0 ]; then
    bash scripts/setup_rllib.sh
    .venv-rllib/bin/python -m pytest -q -p no:xdist tests/test_rllib.py tests/test_rllib_keys.py
fi
