#!/usr/bin/env bash
# Install everything the tests need, then run the whole suite: lint + pytest, then build
# the docs site strictly (a broken link or a missing page fails; bash scripts/docs.sh).
# Without arguments (CI), the RLlib backend's tests run in their own venv, .venv-rllib
# (Ray pins gymnasium 1.2.2, the main venv has 1.4: docs/cluster.md), beside the main
# pytest: they wait on Ray's start-up for most of their 95 s (46 s of CPU), so on two cores
# they overlap the main suite instead of following it; their output (build/rllib-tests.log)
# is printed after it, and either failing fails the run.  With arguments
# (bash scripts/test.sh tests/test_x.py -k y), only the main venv's pytest runs, with them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
bash scripts/setup_browser.sh
.venv/bin/ruff check .
rllib=""
if [ "$#" -eq 0 ]; then
    bash scripts/setup_rllib.sh
    mkdir -p build
    .venv-rllib/bin/python -m pytest -q -p no:xdist tests/test_rllib.py tests/test_rllib_keys.py \
        > build/rllib-tests.log 2>&1 &
    rllib=$!
    trap 'kill "$rllib" 2>/dev/null || true' EXIT   # a failing main suite stops it too
fi
.venv/bin/python -m pytest -q -n 2 --durations=15 "$@"
bash scripts/docs.sh --quiet
if [ -n "$rllib" ]; then
    status=0
    wait "$rllib" || status=$?
    trap - EXIT
    echo "--- RLlib tests (.venv-rllib):"
    cat build/rllib-tests.log
    exit "$status"
fi
