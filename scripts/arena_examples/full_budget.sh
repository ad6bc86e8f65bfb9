#!/usr/bin/env bash
# The arena's worked examples on the docs' budget (docs/arena.md): each example bot rated
# against the Wizard ladder, every entry added to policies/arena_leaderboard.json (the docs'
# leaderboard page is made from it). Usage: bash scripts/arena_examples/full_budget.sh [GAMES]
# (games per rung, default 400; the OpenSpiel example plays half as many, on 3 rounds).
set -euo pipefail
cd "$(dirname "$0")/../.."
GAMES="${1:-400}"
BOARD=policies/arena_leaderboard.json
ARENA=(.venv/bin/stichzoo arena wizard --games "$GAMES" --workers 2 --quiet --leaderboard "$BOARD")

# 1. a ten-line Python bot, by file path
"${ARENA[@]}" 'python:scripts/arena_examples/ten_line_bot.py:Bot' --out runs/arena/python
# 2. a Node.js bot over JSON lines
"${ARENA[@]}" 'cmd:node scripts/arena_examples/bot.js' --out runs/arena/node
# 3. our own server over HTTP: the shipped Wizard network as served, a check of the protocol
#    (it should be level with the network rung)
PORT="${ARENA_PORT:-18735}"
.venv/bin/stichzoo serve --port "$PORT" --no-tables >runs/arena/serve.log 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 120); do
    curl -sf "http://127.0.0.1:$PORT/bots" >/dev/null && break
    sleep 1
done
"${ARENA[@]}" "http://127.0.0.1:$PORT/bots/wizard/act" --out runs/arena/http
# 3b. the same against PIMC at its think time (HTTP included): --match-think-time
"${ARENA[@]}" "http://127.0.0.1:$PORT/bots/wizard/act" --rungs pimc --match-think-time \
    --out runs/arena/http_matched
kill "$SERVER"
# 4. OpenSpiel's IS-MCTS (through envs/openspiel.py) on Wizard of 3 rounds: the full game takes
#    it ~0.2 s a decision at 20 simulations; the network's rungs cannot sit at this table
.venv/bin/stichzoo arena wizard 'openspiel:ismcts|simulations=50,deadline_ms=5000' \
    --option 'rounds=[1,2,3]' --games "$((GAMES / 2))" --workers 2 --quiet \
    --leaderboard "$BOARD" --out runs/arena/openspiel
