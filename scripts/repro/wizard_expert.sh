#!/usr/bin/env bash
# Wizard expert iteration in generations (docs/levers.md "Wizard: expert iteration from the
# learned search"): each generation runs configs/expert/wizard.yaml (4 iterations of
# 20,000 labels by the learned search, PIMC over the start's top 3, fitted as the start's
# policy improved by the search's values) from the previous generation's bot, whose
# network also guides that generation's search - the improved network guides the next
# search.  Generation g uses seed g - 1.  The bids stay the first start's trick model
# through the generations (training/expert.py); at the end the trick pipeline
# (configs/tricks/wizard.yaml's recipe) refits them on the last generation's actor.
# Each generation about 12 minutes on 2 cores, the refit about 12.
#   bash scripts/repro/wizard_expert.sh [GENERATIONS]     (default 3; START=<bot> to begin elsewhere)
# Bots: runs/wizard_expert/gen_<g>/expert/iteration_4 (each generation's), and
# runs/wizard_expert/tricks/bot (the last one's actor with refitted bids).
set -euo pipefail
cd "$(dirname "$0")/../.."
generations="${1:-3}"
start="${START:-bot:wizard}"
guide="$start"
root=runs/wizard_expert
for g in $(seq 1 "$generations"); do
    run="$root/gen_$g"
    .venv/bin/stichzoo train configs/expert/wizard.yaml --run-dir "$run" --set seed=$((g - 1)) \
        --set expert.start="$start" --set expert.teacher="pimc:guide=$guide"
    start="$run/expert/iteration_4"
    guide="onnx:path=$start"
done
sed "s|^bot: .*|bot: $start|" configs/tricks/wizard.yaml > "$root/tricks.yaml"
.venv/bin/stichzoo tricks wizard --config "$root/tricks.yaml" --out "$root/tricks"
