#!/usr/bin/env bash
# Play against the bots in a browser: install what the table needs (once),
# then serve the shipped bots, the difficulty levels and the table at
# http://127.0.0.1:8000/ (PORT=... to change; extra arguments go to
# `stichzoo serve`).  Ctrl-C stops the server; its tables go with it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh serve,play
port="${PORT:-8000}"
echo "stichzoo: the table is at http://127.0.0.1:${port}/ - open it in a browser (Ctrl-C stops)"
exec .venv/bin/stichzoo serve --port "$port" "$@"
