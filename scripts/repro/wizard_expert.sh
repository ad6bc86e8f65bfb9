#!/usr/bin/env bash
# The shipped Wizard bot's recipe (docs/levers.md "Wizard: expert iteration from the
# learned search"): configs/expert/wizard.yaml in generations, each from the last one's
# bot with its network guiding the search, then the bids refitted by the trick pipeline -
# scripts/repro/expert_generations.sh for Wizard (11-16 minutes a generation, the refit
# about 12 on 2 cores).
#   bash scripts/repro/wizard_expert.sh [GENERATIONS] [--ship]      (default 4)
exec bash "$(dirname "$0")/expert_generations.sh" wizard "$@"
