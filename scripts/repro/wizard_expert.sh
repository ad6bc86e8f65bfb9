#!/usr/bin/env bash
# Wizard expert iteration in generations (docs/levers.md "Wizard: expert iteration from the
# learned search"): each generation runs configs/expert/wizard.yaml (4 iterations of
# 20,000 labels by the learned search, PIMC over the start's top 3, fitted as the start's
# policy improved by the search's values) from the previous generation's bot, whose
# network also guides that generation's search - the improved network guides the next
# search.  Generation 1 is the config as committed (seed 0, from bot:wizard/start);
# generation g > 1 uses seed g - 1.  The bids stay the first start's trick model through
# the generations (training/expert.py); at the end the trick pipeline (the recipe of
# configs/tricks/wizard.yaml) refits them on the last generation's actor.
# Each generation 11-14 minutes on 2 cores, the refit about 12.
#   bash scripts/repro/wizard_expert.sh [GENERATIONS] [--ship]      (default 4)
# Bots: runs/wizard_expert/gen_<g>/expert/iteration_4 (each generation's) and
# runs/wizard_expert/tricks/bot (the last one's actor with refitted bids).  --ship puts
# that bot in policies/bots/wizard (the bot it started from, if still there, in
# policies/bots/wizard/start) with the generations' commands and its evaluations against
# random and the heuristic (1,000 games, seed 104729) in its manifest.
set -euo pipefail
cd "$(dirname "$0")/../.."
generations="${1:-4}"
root=runs/wizard_expert
mkdir -p "$root"
start=""
for g in $(seq 1 "$generations"); do
    run="$root/gen_$g"
    if [ "$g" = 1 ]; then
        args=()
    else
        args=(--set seed=$((g - 1)) --set expert.start="$start"
              --set expert.teacher="pimc:guide=onnx:path=$start")
    fi
    SECONDS=0
    .venv/bin/stichzoo train configs/expert/wizard.yaml --run-dir "$run" "${args[@]}"
    echo "stichzoo train configs/expert/wizard.yaml --run-dir $run ${args[*]}" > "$run/command"
    echo "$SECONDS" > "$run/seconds"
    start="$run/expert/iteration_4"
done
sed "s|^bot: .*|bot: $start|" configs/tricks/wizard.yaml > "$root/tricks.yaml"
SECONDS=0
.venv/bin/stichzoo tricks wizard --config "$root/tricks.yaml" --out "$root/tricks"
echo "$SECONDS" > "$root/tricks/seconds"
[ "${2:-}" = --ship ] || exit 0
bot=policies/bots/wizard
if [ ! -d "$bot/start" ]; then   # the bot the generations started from
    mkdir "$bot/start"
    mv "$bot"/{model.onnx,manifest.json,config.yaml,tricks.yaml} "$bot/start/"
fi
cp "$root"/tricks/bot/{model.onnx,manifest.json,tricks.yaml} "$bot/"
for opp in random heuristic; do
    .venv/bin/stichzoo eval wizard --players 4 --policies "onnx:path=$bot" "$opp" \
        --games 1000 --seed 104729 --quiet --out "$root/ship/vs_$opp"
done
.venv/bin/python - "$bot" "$root" "$generations" <<'PY'
import json
import sys

from stichzoo.training import config as config_mod
from stichzoo.training.export import evaluation_entry
from stichzoo.training.runs import RunPaths

bot, root, generations = sys.argv[1], sys.argv[2], int(sys.argv[3])
cfg = config_mod.load("configs/expert/wizard.yaml")
with open(f"{bot}/config.yaml", "w") as f:
    f.write(config_mod.dump(cfg))
path = f"{bot}/manifest.json"
with open(path) as f:
    manifest = json.load(f)
prov = manifest["provenance"]
gens = []
for g in range(1, generations + 1):
    run = f"{root}/gen_{g}"
    with open(f"{run}/command") as f, open(f"{run}/seconds") as s:
        gens.append({"command": f.read().strip(), "minutes": round(int(s.read()) / 60, 1)})
with open(f"{root}/tricks/seconds") as f:
    refit = int(f.read())
last = RunPaths(f"{root}/gen_{generations}").read_summary()
prov["generations"] = gens
prov["config"] = cfg
prov["training"] = {**last, "algo": "expert iteration (batch_ppo)",
                    "wall_seconds": sum(g["minutes"] for g in gens) * 60 + refit}
prov["steps"] = last.get("steps", 0)
prov["train_command"] = f"bash scripts/repro/wizard_expert.sh {generations} --ship"
prov["evaluation"] = {}
for opp in ("random", "heuristic"):
    with open(f"{root}/ship/vs_{opp}/report.json") as f:
        report = json.load(f)
    prov["evaluation"][f"vs_{opp}"] = evaluation_entry(report, f"onnx:path={bot}", bot)
with open(path, "w") as f:
    json.dump(manifest, f, indent=1)
PY
