#!/usr/bin/env bash
# The shipped Wizard bot's recipe (docs/levers.md "Wizard: expert iteration from the
# learned search"): configs/expert/wizard.yaml in generations, each from the last one's
# bot with its network guiding the search, the bids refitted by the trick pipeline after
# generations 6, 8, 10 and 11 (REFITS) and after the last, generations 11 on with PIMC in
# two seats of half their labelled games (OPPONENT, OPPONENT_FROM) -
# scripts/repro/expert_generations.sh for Wizard (about 3 minutes a generation, 3.7-4 with
# PIMC at the tables, a refit 6-7; 69 minutes in all on a quiet 2-core machine).
# scripts/repro/wizard_pipeline.sh runs it after the start, from nothing.
#   bash scripts/repro/wizard_expert.sh [GENERATIONS] [--ship]   (default 12, the shipped bot;
#   10: the ten-generation bot shipped before it)
generations=12
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then generations="$1"; shift; fi
export REFITS="${REFITS-6 8 10 11}"
export OPPONENT="${OPPONENT-pimc}"
export OPPONENT_FROM="${OPPONENT_FROM-11}"
exec bash "$(dirname "$0")/expert_generations.sh" wizard "$generations" "$@"
