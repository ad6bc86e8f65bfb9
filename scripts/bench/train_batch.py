"""Batch PPO throughput: learner samples/s of ``train_ppo`` over a fixed sample budget.

    python scripts/bench/train_batch.py                  # configs/wizard.yaml, 200k samples
    python scripts/bench/train_batch.py --samples 100000 --set train.n_epochs=2
    python scripts/bench/train_batch.py --profile 25     # + the 25 costliest calls

Trains the config (``configs/wizard.yaml`` unless named; ``--set`` overrides as for
``stichzoo train``) with no warm start, no evaluation and no checkpoint until the end,
for ``--samples`` learner samples (the time guard off), and reports learner samples
per second of the PPO loop with the split the trainer records (simulate / infer /
update), and learner samples per CPU second of the whole call (all threads): the
figure a busy machine distorts least.  Both cores: ``train.torch_threads`` as the
config says.  Runs from scratch, so the tables' seats are those the config draws,
and a Wizard game's length does not depend on how it is played: the rate is the
config's, not the network's.  ``--warm N`` fits the warm start on N decisions first
(outside the measured loop).
A benchmark, not a test: the figure moves with the machine's load.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time

import yaml

from stichzoo.training import config as config_mod
from stichzoo.training.trainers.pipeline import train_batch


def run(cfg: dict, samples: int, folder: str, warm: int = 0,
        profile: cProfile.Profile | None = None) -> dict:
    cfg = config_mod.validate({**cfg, "algo": "batch_ppo",
                               "pretrain": {**cfg["pretrain"], "steps": warm},
                               "eval": {**cfg["eval"], "every": 0},
                               "expert": {**cfg["expert"], "steps": 0, "start": ""},
                               "train": {**cfg["train"], "max_minutes": 10**6,
                                         "total_timesteps": samples,
                                         "checkpoint_every": 10**9}})
    with contextlib.redirect_stdout(sys.stderr):
        if profile is not None:
            profile.enable()
        cpu = time.process_time()
        run_dir = train_batch(cfg, run_dir=folder, progress_bar=False, verbose=False)
        cpu = time.process_time() - cpu
        if profile is not None:
            profile.disable()
    with open(os.path.join(run_dir, "train_summary.yaml")) as f:
        return {**yaml.safe_load(f), "cpu_seconds": cpu}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("config", nargs="?", default="configs/wizard.yaml")
    p.add_argument("--samples", type=int, default=200_000, help="learner samples to train")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--warm", type=int, default=0, help="warm-start decisions (0: none)")
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="cProfile the run; print the N costliest calls (cumulative)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    cfg = config_mod.load(args.config, args.set)
    prof = cProfile.Profile() if args.profile else None
    with tempfile.TemporaryDirectory() as tmp:
        s = run(cfg, args.samples, os.path.join(tmp, "run"), args.warm, prof)
    result = {"config": args.config, "overrides": args.set, "samples": s["steps"],
              "samples_per_s": s["fps"],
              # all threads' CPU time of the whole call (start included): on a busy
              # machine, samples per CPU second tell what a quiet one would do better
              # than the wall clock (with train.torch_threads=1: one core's rate)
              "samples_per_cpu_s": s["steps"] / max(s["cpu_seconds"], 1e-9),
              **{k: s[f"{k}_share"] for k in ("simulate", "infer", "update")}}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{cfg['game']} {args.config} {' '.join(args.set)}: {s['steps']:,} learner "
              f"samples, {s['fps']:,.0f} samples/s, {result['samples_per_cpu_s']:,.0f} per CPU s "
              f"(simulate {result['simulate']:.0%}, "
              f"infer {result['infer']:.0%}, update {result['update']:.0%})")
    if prof is not None:
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.profile)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
