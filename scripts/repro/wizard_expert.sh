#!/usr/bin/env bash
# The shipped Wizard bot's recipe (docs/levers.md "Wizard: expert iteration from the
# learned search"): configs/expert/wizard.yaml in generations, each from the last one's
# bot with its network guiding the search, then the bids refitted by the trick pipeline -
# scripts/repro/expert_generations.sh for Wizard (9-16 minutes a generation, the refit
# 9-12 on 2 cores).
#   bash scripts/repro/wizard_expert.sh [GENERATIONS] [--ship]      (default 6, the shipped bot)
generations=6
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then generations="$1"; shift; fi
exec bash "$(dirname "$0")/expert_generations.sh" wizard "$generations" "$@"
