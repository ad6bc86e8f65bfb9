"""How far a fit moves a shipped network's play of one phase, and what that is worth.

Expert iteration with ``expert.phases`` (training/trainers/expert.py) labels one
phase's decisions with the search's values and keeps the prior's policy
on the others.  This probe makes those labels once (cached in ``--cache``),
then fits the start's network on them in several ways - epochs, step,
temperature, with or without the other phases' anchor rows - and reports
for each: on held-out labelled decisions, how often the fitted network plays
the target's favourite (also where that is not the start's choice: the
corrections) and the start's choice; and its strength against the
heuristic (duplicate, ``--games`` on ``--eval-seed``).  First it says how
often the start's choice is clearly worse than the teacher's best.

    .venv/bin/python scripts/probes/phase_fit.py configs/lab/expert/geheimtrumpf_draft.yaml \\
        --steps 80000 --cache runs/phase_fit/labels.npz \\
        --variant epochs=3,lr=0.0003 --variant epochs=10,lr=0.001 \\
        --variant epochs=10,lr=0.001,anchor=0
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from stichzoo.policies.runtimes.onnx_policy import bot_folder
from stichzoo.policies.runtimes.torch_policy import save_policy
from stichzoo.training import config as config_mod
from stichzoo.training.evaluation.run_eval import evaluate_policy_file, evaluation_line
from stichzoo.training.trainers.distil import improved_targets
from stichzoo.training.trainers.expert import masked_logits
from stichzoo.training.trainers.from_bot import load_bot_actor
from stichzoo.training.trainers.labels import search_labels
from stichzoo.training.trainers.ppo import build_network
from stichzoo.training.trainers.pretrain import behaviour_clone

DEFAULTS = {"epochs": 3, "lr": 3e-4, "T": None, "anchor": 1, "share": 1.0}


def parse_variant(text: str) -> dict:
    out = dict(DEFAULTS)
    for item in text.split(","):
        key, _, value = item.partition("=")
        if key not in out:
            raise SystemExit(f"--variant {text!r}: unknown key {key!r}; keys: {', '.join(out)}")
        out[key] = float(value) if key in ("lr", "T", "share") else int(value)
    return out


def start_policy(cfg: dict, game):
    policy = build_network(cfg, game, "cpu")
    load_bot_actor(policy, bot_folder(cfg["expert"]["start"]), game)
    return policy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--steps", type=int, default=80000, help="decisions labelled (all phases)")
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--cache", default="runs/phase_fit/labels.npz")
    ap.add_argument("--variant", action="append", default=[],
                    help="epochs=E,lr=R,T=temperature,anchor=0|1,share=S (the share of the "
                         "training decisions fitted; the config's expert values where left out)")
    ap.add_argument("--games", type=int, default=400, help="0: no games, the fit alone")
    ap.add_argument("--eval-seed", type=int, default=7919)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="runs/phase_fit")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a config override, as stichzoo train --set")
    args = ap.parse_args()

    cfg = config_mod.load(args.config, args.set)
    game = config_mod.game_of(cfg)
    e = cfg["expert"]
    os.makedirs(args.out, exist_ok=True)
    if os.path.exists(args.cache):
        data = dict(np.load(args.cache))
    else:
        t0 = time.time()
        player = f"onnx:path={bot_folder(e['start'])}"
        data = search_labels(cfg, seed=args.seed, player=player, steps=args.steps)
        np.savez(args.cache, **data)
        print(f"{args.steps} decisions ({int(data['labelled'].sum())} labelled by "
              f"{e['teacher']}) in {time.time() - t0:.0f} s", flush=True)
    n = len(data["action"])
    held = np.zeros(n, bool)
    held[int(n * 0.9):] = True
    start = start_policy(cfg, game)
    start_logits = masked_logits(start, data)
    lab = data["labelled"]
    test = {k: v[held & lab] for k, v in data.items()}
    start_choice = start_logits[held & lab].argmax(1)
    worse = data["advantage"][lab][np.arange(int(lab.sum())), start_logits[lab].argmax(1)]
    print(f"the start's choice at least 2 / 5 standard errors below the teacher's best: "
          f"{(worse <= -2).mean():.3f} / {(worse <= -5).mean():.3f} of the labelled decisions")
    print("| epochs | step | T | anchor rows | share fitted | fit accuracy | held out: target's "
          "favourite | where it is not the start's | start's choice | vs heuristic |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---|")
    draw = np.random.default_rng(0).random(n)  # share S fits the rows drawn below S: nested
    for k, text in enumerate(args.variant):
        v = parse_variant(text)
        temperature = e["temperature"] if v["T"] is None else v["T"]
        target = improved_targets(start_logits, data["advantage"], temperature)
        rows = ~held & (lab | bool(v["anchor"])) & (draw < v["share"])
        fit = {key: value[rows] for key, value in data.items()}
        fit["target"] = target[rows]
        policy = start_policy(cfg, game)
        stats = behaviour_clone(policy, fit, v["epochs"], e["batch_size"], v["lr"],
                                verbose=False, schedule=e["lr_schedule"])
        choice = masked_logits(policy, test).argmax(1)
        favourite = target[held & lab].argmax(1)
        moved = favourite != start_choice
        path = os.path.join(args.out, f"variant_{k}.pt")
        save_policy(policy, game, path, {"phase_fit": text})
        line = "-"
        if args.games:
            rep = evaluate_policy_file(cfg, path, "heuristic", args.games, seed=args.eval_seed,
                                       workers=args.workers)
            line = evaluation_line(rep, "heuristic")
        print(f"| {v['epochs']} | {v['lr']:g} | {temperature:g} | {'yes' if v['anchor'] else 'no'} "
              f"| {v['share']:g} | {stats['accuracy']:.3f} | {(choice == favourite).mean():.3f} | "
              f"{(choice[moved] == favourite[moved]).mean():.3f} ({int(moved.sum())}) | "
              f"{(choice == start_choice).mean():.3f} | {line} |", flush=True)


if __name__ == "__main__":
    main()
