"""Stamp a bot folder as shipped: how it was made, and how it plays.

The recipes that ship a bot (wizard_hour.sh, expert_generations.sh, geheimtrumpf_pipeline.sh)
end here, so that every shipped manifest records the same things the same
way: the command that made it (``train_command``), its legs or generations,
and its duplicate evaluations against random and the heuristic (1,000
games, seed 104729 - the final evaluation's deals, never used in training;
docs/results.md's table of shipped bots reads them).

    python scripts/recipes/stamp_bot.py BOT --command "bash scripts/recipes/..." \
        [--leg "stichzoo train ..."] [--generations runs/<game>_expert N --config FILE]
        [--after RUN/legs]

``--after`` names the PPO legs that followed the generations
(geheimtrumpf_pipeline.sh): a folder of ``command_<k>`` and ``seconds_<k>``
files inside the run they resumed, whose training summary is then the bot's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from stichzoo.training import config as config_mod
from stichzoo.training.export import evaluation_entry
from stichzoo.training.runs import RunPaths

GAMES, SEED = 1000, 104729


def evaluate(bot: str, manifest: dict, out: str) -> dict:
    """The bot against random and the heuristic, duplicate: the manifest's evaluation entries."""
    entries = {}
    for opp in ("random", "heuristic"):
        folder = os.path.join(out, f"vs_{opp}")
        subprocess.run([sys.executable, "-m", "stichzoo", "eval", manifest["game"],
                        "--players", str(manifest["num_players"]), "--policies",
                        f"onnx:path={bot}", opp, "--games", str(GAMES), "--seed", str(SEED),
                        "--quiet", "--out", folder], check=True)
        with open(os.path.join(folder, "report.json")) as f:
            entries[f"vs_{opp}"] = evaluation_entry(json.load(f), f"onnx:path={bot}", bot)
    return entries


def refit_seconds(folder: str) -> int:
    """The wall seconds of a bid refit folder (its ``seconds`` file)."""
    with open(os.path.join(folder, "seconds")) as f:
        return int(f.read())


def generations(root: str, count: int, config: str, prov: dict) -> None:
    """The generations of scripts/recipes/expert_generations.sh: each one's command and minutes
    (and those of a bid refit after it, REFITS), the recipe, and the last generation's
    training summary (plus the bid refits' time, if any)."""
    gens = []
    for g in range(1, count + 1):
        run = os.path.join(root, f"gen_{g}")
        with open(os.path.join(run, "command")) as f, open(os.path.join(run, "seconds")) as s:
            gens.append({"command": f.read().strip(), "minutes": round(int(s.read()) / 60, 1)})
    refit = 0  # the bid refits (a trick bidder): after the last generation, and REFITS's
    for g in [*range(1, count), None]:
        folder = os.path.join(root, "tricks" if g is None else f"tricks_{g}")
        if os.path.isfile(os.path.join(folder, "seconds")):
            refit += refit_seconds(folder)
            if g is not None:  # a refit after generation g: the next ones start from it
                gens[g - 1]["refit_minutes"] = round(refit_seconds(folder) / 60, 1)
    summary = RunPaths(os.path.join(root, f"gen_{count}")).read_summary()
    prov["generations"] = gens
    prov["config"] = config_mod.load(config)
    prov["training"] = {**summary, "algo": "expert iteration (batch_ppo)",
                        "wall_seconds": sum(x["minutes"] for x in gens) * 60 + refit}
    prov["steps"] = summary.get("steps", 0)


def after(folder: str, prov: dict) -> None:
    """The PPO legs after the generations: each one's command and minutes; the training
    summary becomes that of the run they resumed, its wall time the generations' and theirs."""
    legs, k = [], 1
    while os.path.isfile(os.path.join(folder, f"command_{k}")):
        with open(os.path.join(folder, f"command_{k}")) as f, \
                open(os.path.join(folder, f"seconds_{k}")) as s:
            legs.append({"command": f.read().strip(), "minutes": round(int(s.read()) / 60, 1)})
        k += 1
    if not legs:
        raise SystemExit(f"--after {folder}: no command_1 there")
    summary = RunPaths(os.path.dirname(os.path.normpath(folder))).read_summary()
    before = prov.get("training", {}).get("wall_seconds", 0)
    prov["legs_after"] = legs
    prov["training"] = {**summary, "algo": "expert iteration, then PPO (batch_ppo)",
                        "wall_seconds": before + sum(x["minutes"] for x in legs) * 60}
    prov["steps"] = summary.get("steps", 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bot", help="the bot folder to stamp (policies/bots/<game>[/start])")
    parser.add_argument("--command", required=True, help="the command that made it")
    parser.add_argument("--leg", help="its one PPO leg's command (wizard_hour.sh)")
    parser.add_argument("--generations", nargs=2, metavar=("ROOT", "COUNT"),
                        help="the run folder of expert_generations.sh and how many of its "
                             "generations made the bot")
    parser.add_argument("--config", help="with --generations: the recipe, also written to "
                                         "the bot's config.yaml")
    parser.add_argument("--after", help="with --generations: the folder of the PPO legs that "
                                        "followed them (command_<k>, seconds_<k>)")
    args = parser.parse_args()
    path = os.path.join(args.bot, "manifest.json")
    with open(path) as f:
        manifest = json.load(f)
    prov = manifest["provenance"]
    if args.leg:
        prov["legs"] = [{"command": args.leg, "samples_after": prov["steps"],
                         "minutes": round(prov["training"]["wall_seconds"] / 60, 1)}]
    if args.generations:
        generations(args.generations[0], int(args.generations[1]), args.config, prov)
        if args.after:
            after(args.after, prov)
        with open(os.path.join(args.bot, "config.yaml"), "w") as f:
            f.write(config_mod.dump(prov["config"]))
    prov["train_command"] = args.command
    prov["evaluation"] = evaluate(args.bot, manifest,
                                  os.path.join("runs", "eval", f"ship_{manifest['game']}"))
    with open(path, "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
