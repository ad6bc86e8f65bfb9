#!/usr/bin/env bash
# Create .venv-rllib (once) and install stichzoo with Ray's RLlib (the rllib extra) into it.
# A venv of its own: ray[rllib] pins gymnasium 1.2.2, the main .venv keeps gymnasium 1.4.
# torch is installed first as torch==2.13.0 (the CPU build), so Ray can pull no CUDA torch;
# the serve extra and pytest are there for tests/training/test_rllib.py.  Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
if [ ! -x .venv-rllib/bin/python ]; then
    "$python" -m venv .venv-rllib
fi
pip=(.venv-rllib/bin/python -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" "torch==2.13.0"
"${pip[@]}" -e ".[rllib,serve]" "pytest>=8" "httpx>=0.27"
.venv-rllib/bin/python - <<'PY'
import gymnasium, ray, torch
assert torch.__version__.split("+")[0] == "2.13.0", f"torch {torch.__version__}, not 2.13.0"
print(f"ray {ray.__version__}, torch {torch.__version__}, gymnasium {gymnasium.__version__}")
PY
