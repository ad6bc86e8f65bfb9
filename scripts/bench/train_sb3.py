"""Training throughput: the batch trainer beside SB3's MaskablePPO, one after the other in one run.

    python scripts/bench/train_sb3.py                  # Wizard 4p, 90 s each, both cores
    python scripts/bench/train_sb3.py --seconds 60 --sb3 configs/sb3/wizard.yaml \
        --batch configs/wizard.yaml

Each trains its committed config (SB3: ``configs/sb3/wizard.yaml``, the batch
trainer: ``configs/wizard.yaml``; the same network and game) from
scratch - no warm start, no evaluation - for ``--seconds`` of wall clock
each, and reports learner
samples per second end to end (simulation, inference and updates), with
the split each path records: SB3's rollout / update shares, the batch
trainer's simulate / infer / update shares.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile

import yaml

from stichzoo.training import config as config_mod
from stichzoo.training.train import train


def run(cfg: dict, seconds: float, folder: str) -> dict:
    cfg = config_mod.validate({**cfg, "pretrain": {**cfg["pretrain"], "steps": 0},
                               "eval": {**cfg["eval"], "every": 0},
                               "train": {**cfg["train"], "max_minutes": seconds / 60,
                                         "total_timesteps": 10**9,
                                         "checkpoint_every": 10**9}})
    with contextlib.redirect_stdout(sys.stderr):  # the time guard's notice: stdout stays data
        run_dir = train(cfg, run_dir=folder, progress_bar=False, verbose=False)
    with open(os.path.join(run_dir, "train_summary.yaml")) as f:
        return yaml.safe_load(f)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sb3", default="configs/sb3/wizard.yaml", help="config of the SB3 run")
    p.add_argument("--batch", default="configs/wizard.yaml",
                   help="config of the batch_ppo run")
    p.add_argument("--seconds", type=float, default=90.0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    sb3_cfg, batch_cfg = config_mod.load(args.sb3), config_mod.load(args.batch)
    if sb3_cfg["game"] != batch_cfg["game"] or sb3_cfg["options"] != batch_cfg["options"]:
        raise SystemExit("train_sb3: the two configs must play the same game and options")
    game = sb3_cfg["game"]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        sb3 = run({**sb3_cfg, "algo": "maskable_ppo"}, args.seconds, os.path.join(tmp, "sb3"))
        results["maskable_ppo"] = {"samples_per_s": sb3["fps"],
                                   "rollout_share": sb3["rollout_share"],
                                   "update_share": 1 - sb3["rollout_share"]}
        batch = run({**batch_cfg, "algo": "batch_ppo"}, args.seconds,
                    os.path.join(tmp, "batch"))
        results["batch_ppo"] = {"samples_per_s": batch["fps"],
                                **{k: batch[f"{k}_share"]
                                   for k in ("simulate", "infer", "update")}}
    ratio = results["batch_ppo"]["samples_per_s"] / results["maskable_ppo"]["samples_per_s"]
    if args.json:
        print(json.dumps({"game": game, "results": results, "ratio": ratio}, indent=1))
        return 0
    s, b = results["maskable_ppo"], results["batch_ppo"]
    print(f"{game}, {args.seconds:.0f} s each, learner samples/s end to end:")
    print(f"  SB3 MaskablePPO (single-seat view): {s['samples_per_s']:,.0f} "
          f"(rollout {s['rollout_share']:.0%}, update {s['update_share']:.0%})")
    print(f"  batch_ppo (all-seat, batch engine): {b['samples_per_s']:,.0f} "
          f"(simulate {b['simulate']:.0%}, infer {b['infer']:.0%}, update {b['update']:.0%})")
    print(f"  ratio: {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
