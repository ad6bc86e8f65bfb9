#!/usr/bin/env bash
# Install everything the tests need, then run the whole suite: lint + pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
bash scripts/setup_browser.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest -q -n 2 "$@"
