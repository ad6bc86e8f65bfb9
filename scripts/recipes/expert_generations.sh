#!/usr/bin/env bash
# Expert iteration in generations (docs/lab/expert_iteration.md "Wizard: expert iteration
# from the learned search"): the engine of the shipped Wizard bot's recipe
# (scripts/recipes/wizard_expert.sh) and of the shipped Geheimtrumpf bot's generations
# (scripts/recipes/geheimtrumpf_pipeline.sh); on its own it makes GAME's bot of
# configs/expert/<game>.yaml in generations (wizard, geheimtrumpf, hoch_tief), shipped only
# with --ship.  Each generation runs configs/expert/<game>.yaml (stichzoo train: the batch
# pipeline's start and expert iteration - labels by the learned search, fitted as the
# start's policy improved by the search's values) from the previous generation's bot, whose
# network also guides that generation's search - the improved network guides the next
# search.  Generation 1 is the config as committed (seed 0); generation g > 1 uses seed g - 1.
# A trick bidder's generations (Wizard) keep the first start's trick-model bids; at the end
# the bid model (stichzoo fit bid_model, the recipe of configs/bid_model/wizard.yaml) is
# refitted on the last generation's actor - and, with REFITS="G ...", also after generation
# G, the generations after it starting from the refitted bot (runs/<game>_expert/tricks_G).
# Other games' generations are exported as bots (stichzoo export).
#   bash scripts/recipes/expert_generations.sh GAME [GENERATIONS] [--ship]   (default 4)
# A generation already finished in runs/<game>_expert (its `seconds` file) is kept, and so
# is a bid refit of the same actor, so an interrupted run goes on where it stopped.  Bots:
# runs/<game>_expert/gen_<g>/bot (or, for a trick bidder, gen_<g>/expert/iteration_<k>) and
# runs/wizard_expert/tricks/bot.
# --ship puts the last bot in policies/bots/<game> (the bot it started from, if still
# there, in policies/bots/<game>/start) and stamps its manifest (scripts/recipes/stamp_bot.py:
# the generations' commands, its evaluations against random and the heuristic).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/recipes/evals.sh   # NO_EVAL=1: no evaluation of each iteration's network
game="$1"
generations="${2:-4}"
ship="${3:-}"
config="configs/expert/$game.yaml"
root="${ROOT:-runs/${game}_expert}"   # ROOT=<folder>: the generations' folder
first="${START:-}"   # START=<bot folder>: generation 1 starts from (and is guided by) this bot
                     # instead of the config's expert.start (a pipeline from nothing)
iterations=$(.venv/bin/python -c "import sys; from stichzoo.training import config
print(config.load(sys.argv[1])['expert']['iterations'])" "$config")
refits="${REFITS:-}"   # REFITS="6": also refit the bids after these generations (a trick bidder)
# OPPONENT="pimc": from generation OPPONENT_FROM (default 1) on, half the labelled games seat
# that policy in two seats, unlabelled (expert.opponent: positions at tables unlike its own)
opponent="${OPPONENT:-}"
opponent_from="${OPPONENT_FROM:-1}"
# GEN_<g>="--set KEY=VALUE ...": more settings for generation g alone, after all the others
# (so they win); REFIT_LAST=0: the last generation keeps the bids it started with (no refit)
refit_last="${REFIT_LAST:-1}"
# REFIT_WORKERS=<w>: each refit collects its games on w processes (collect.workers; default
# the config's one) - other games, so another bot, to be measured before it ships
refit_set=()
if [ -n "${REFIT_WORKERS:-}" ]; then refit_set=(--set "collect.workers=$REFIT_WORKERS"); fi
refit() {   # the bid model on $start's actor into folder $1; a finished refit of the same
            # actor and settings is kept (its `from` file names them)
    local out="$1" from="$start${refit_set[*]:+ ${refit_set[*]}}"
    if [ ! -f "$out/seconds" ] || [ "$(cat "$out/from" 2>/dev/null)" != "$from" ]; then
        rm -rf "$out"
        sed "s|^bot: .*|bot: $start|" "configs/bid_model/$game.yaml" > "$out.yaml"
        SECONDS=0
        .venv/bin/stichzoo fit bid_model "$game" --config "$out.yaml" --out "$out" \
            "${refit_set[@]}"
        echo "$SECONDS" > "$out/seconds"
        echo "$from" > "$out/from"
    fi
}
mkdir -p "$root"
start=""
for g in $(seq 1 "$generations"); do
    run="$root/gen_$g"
    if [ "$g" = 1 ]; then
        args=()
        if [ -n "$first" ]; then
            args=(--set expert.start="$first" --set expert.teacher="pimc:guide=onnx:path=$first")
        fi
    else
        args=(--set seed=$((g - 1)) --set expert.start="$start"
              --set expert.teacher="pimc:guide=onnx:path=$start")
    fi
    if [ -n "$opponent" ] && [ "$g" -ge "$opponent_from" ]; then
        args+=(--set expert.opponent="$opponent" --set expert.opponent_seats=2
               --set expert.opponent_share=0.5)
    fi
    args+=("${EVALS[@]}")
    own="GEN_$g"
    if [ -n "${!own:-}" ]; then
        read -r -a more <<< "${!own}"
        args+=("${more[@]}")
    fi
    if [ ! -f "$run/seconds" ]; then
        rm -rf "$run"
        SECONDS=0
        .venv/bin/stichzoo train "$config" --run-dir "$run" "${args[@]}"
        echo "stichzoo train $config --run-dir $run ${args[*]}" > "$run/command"
        if [ ! -d "$run/expert/iteration_$iterations" ]; then   # not a trick bidder
            .venv/bin/stichzoo export "$run" --out "$run/bot"
        fi
        echo "$SECONDS" > "$run/seconds"
    fi
    start="$run/bot"
    if [ -d "$run/expert/iteration_$iterations" ]; then
        start="$run/expert/iteration_$iterations"
        if [[ " $refits " == *" $g "* ]] && [ "$g" -lt "$generations" ]; then
            refit "$root/tricks_$g"   # the next generations start from (and bid as) this bot
            start="$root/tricks_$g/bot"
        fi
    fi
done
last="$start"
if [ -d "$root/gen_$generations/expert/iteration_$iterations" ] && [ "$refit_last" != 0 ]; then   # Wizard's bids
    refit "$root/tricks"
    last="$root/tricks/bot"
fi
[ "$ship" = --ship ] || exit 0
bot="policies/bots/$game"
if [ ! -d "$bot/start" ]; then   # the bot the generations started from
    mkdir "$bot/start"
    mv "$bot"/{model.onnx,manifest.json,config.yaml} "$bot/start/"
    if [ -f "$bot/tricks.yaml" ]; then mv "$bot/tricks.yaml" "$bot/start/"; fi
fi
cp "$last"/{model.onnx,manifest.json} "$bot/"
if [ -f "$last/tricks.yaml" ]; then cp "$last/tricks.yaml" "$bot/"; fi
.venv/bin/python scripts/recipes/stamp_bot.py "$bot" --generations "$root" "$generations" --config "$config" \
    --command "${REFIT_WORKERS:+REFIT_WORKERS=$REFIT_WORKERS }bash scripts/recipes/expert_generations.sh $game $generations --ship"
