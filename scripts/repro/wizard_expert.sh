#!/usr/bin/env bash
# The shipped Wizard bot's recipe (docs/levers.md "Wizard: expert iteration from the
# learned search"): configs/expert/wizard.yaml in generations, each from the last one's
# bot with its network guiding the search, the bids refitted by the trick pipeline after
# generations 6 and 8 (REFITS) and after the last - scripts/repro/expert_generations.sh for
# Wizard (9-22 minutes a generation, a refit 9-14 on 2 cores).
#   bash scripts/repro/wizard_expert.sh [GENERATIONS] [--ship]   (default 10 with REFITS="6 8", the shipped bot)
generations=10
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then generations="$1"; shift; fi
export REFITS="${REFITS-6 8}"
exec bash "$(dirname "$0")/expert_generations.sh" wizard "$generations" "$@"
