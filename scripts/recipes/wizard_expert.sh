#!/usr/bin/env bash
# Makes the shipped Wizard bot (policies/bots/wizard, bot:wizard) from its start
# (policies/bots/wizard/start, scripts/recipes/wizard_hour.sh): the recipe its manifest
# names (train_command; docs/lab/expert_iteration.md "Wizard: expert iteration from the
# learned search").  configs/expert/wizard.yaml in generations (stichzoo train: the batch
# pipeline's start and expert iteration), each from the last one's bot with its network
# guiding the search, the bids refitted by the bid model after generations 6, 8, 10, 11
# and 12 (REFITS), generations 11 and 12 with PIMC in two seats of half their labelled
# games (OPPONENT, OPPONENT_FROM), and generation 13 with every labelled game at a table of
# three PIMC seats, keeping the bids it started with (GEN_13, REFIT_LAST:
# docs/lab/expert_iteration.md "A generation at PIMC's tables: shipped") -
# scripts/recipes/expert_generations.sh for Wizard (about 3 minutes a generation, 3.7-4
# with PIMC at the tables, a refit 6-7, the last generation 18 on one labelling process;
# about 87 minutes in all on a quiet 2-core machine).  The shipped bot's generations ran
# one at a time with these settings (its manifest's provenance.generations, 228 minutes
# as run); this script chains them.  Without --ship the bot stays in runs/wizard_expert
# (gen_13/expert/iteration_4).  scripts/recipes/wizard_pipeline.sh runs it after the
# start, from nothing.
#   bash scripts/recipes/wizard_expert.sh [GENERATIONS] [--ship]   (default 13, the shipped bot;
#   12: the twelve-generation bot shipped before it, its bids refitted after the last)
generations=13
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then generations="$1"; shift; fi
export REFITS="${REFITS-6 8 10 11 12}"
export OPPONENT="${OPPONENT-pimc}"
export OPPONENT_FROM="${OPPONENT_FROM-11}"
# generation 13 as it was run and measured: its own seed, one labelling process and one
# torch thread (the run that made the shipped bot had a job beside it); GEN_13_WORKERS
# labels it on more processes (scripts/recipes/wizard_pipeline.sh: two)
export GEN_13="${GEN_13-"--set seed=650041 --set expert.opponent_seats=3 --set expert.opponent_share=1.0 --set expert.workers=${GEN_13_WORKERS:-1} --set train.torch_threads=1"}"
if [ "$generations" -ge 13 ]; then export REFIT_LAST="${REFIT_LAST-0}"; fi
exec bash "$(dirname "$0")/expert_generations.sh" wizard "$generations" "$@"
