#!/usr/bin/env bash
# Create .venv (once) and install stichzoo with the given extras (default: dev).
# Idempotent: re-running installs nothing new.  torch is pinned to 2.13.0 and
# installed first, so no extra can pull a multi-GB CUDA build of torch.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-dev}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" "torch==2.13.0"
"${pip[@]}" -e ".[${extras}]"
