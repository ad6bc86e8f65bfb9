"""Training throughput: RLlib on a local Ray beside the batch trainer, one after the other.

    .venv-rllib/bin/python scripts/bench/train_rllib.py               # Wizard 4p, 60 s each
    .venv-rllib/bin/python scripts/bench/train_rllib.py --seconds 90 --runners 1 2 \
        --config configs/wizard.yaml --set train.n_envs=8

Both train the same config (default ``configs/wizard.yaml``: Wizard 4p,
the same network, the same league of learner / heuristic / snapshot seats)
from scratch - no warm start, no evaluation - for ``--seconds`` of wall clock
each, or until ``--samples`` learner samples if those come first, and report
learner samples per second (simulation, inference and updates; RLlib's from
its first iteration, Ray's start and the algorithm's build are reported
apart).  RLlib runs once per ``--runners`` value
(``rllib.num_env_runners``; 0 samples in the driver).  Needs the Ray venv
(``bash scripts/setup_rllib.sh``).  A benchmark, not a test: on a shared
machine the numbers move with whatever else runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time

import yaml

from stichzoo.training import config as config_mod


def _cfg(cfg: dict, algo: str, seconds: float, samples: int | None = None, **rllib) -> dict:
    return config_mod.validate({**cfg, "algo": algo,
                                "pretrain": {**cfg["pretrain"], "steps": 0},
                                "eval": {**cfg["eval"], "every": 0},
                                "rllib": {**cfg["rllib"], **rllib},
                                "train": {**cfg["train"], "max_minutes": seconds / 60,
                                          "total_timesteps": samples or 10**9,
                                          "checkpoint_every": 10**9}})


def _summary(run_dir: str) -> dict:
    with open(os.path.join(run_dir, "train_summary.yaml")) as f:
        return yaml.safe_load(f)


def bench_batch(cfg: dict, seconds: float, folder: str, samples: int | None = None) -> dict:
    from stichzoo.training.trainers.pipeline import train_batch

    with contextlib.redirect_stdout(sys.stderr):  # the time guard's notice: stdout stays data
        s = _summary(train_batch(_cfg(cfg, "batch_ppo", seconds, samples), run_dir=folder,
                                 progress_bar=False, verbose=False))
    return {"samples_per_s": s["fps"], "samples": s["steps"], "wall_s": s["wall_seconds"]}


def bench_rllib(cfg: dict, seconds: float, runners: int, folder: str,
                samples: int | None = None) -> dict:
    import ray

    from stichzoo.training.rllib.run import train_rllib

    start = time.time()
    ray.init(address="local", include_dashboard=False, logging_level="ERROR")
    up = time.time() - start
    try:
        with contextlib.redirect_stdout(sys.stderr):  # the guard's notice: stdout stays data
            s = _summary(train_rllib(_cfg(cfg, "rllib_ppo", seconds, samples,
                                          num_env_runners=runners),
                                     run_dir=folder, progress_bar=False, verbose=False))
    finally:
        ray.shutdown()
    return {"samples_per_s": s["fps"], "env_steps_per_s": s["env_steps_per_s"],
            "samples": s["steps"], "iterations": s["iterations"], "ray_start_s": up,
            "wall_s": time.time() - start}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", default="configs/wizard.yaml")
    p.add_argument("--seconds", type=float, default=60.0, help="training time of each run")
    p.add_argument("--samples", type=int, default=None,
                   help="also end each run at this many learner samples, whichever comes "
                        "first (a budget that does not move with the machine's load)")
    p.add_argument("--runners", type=int, nargs="+", default=[2],
                   help="rllib.num_env_runners values to measure")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="config override for both, e.g. train.n_envs=8 (as stichzoo train)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    cfg = config_mod.load(args.config, ["algo=batch_ppo", *args.set])  # (learner seats)
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["batch_ppo"] = bench_batch(cfg, args.seconds, os.path.join(tmp, "batch"),
                                         args.samples)
        for n in args.runners:
            results[f"rllib_ppo:{n}_env_runners"] = bench_rllib(
                cfg, args.seconds, n, os.path.join(tmp, f"rllib{n}"), args.samples)
    meta = {"game": cfg["game"], "players": cfg["options"].get("num_players"),
            "config": args.config, "seconds": args.seconds, "samples": args.samples,
            "cpus": os.cpu_count()}
    if args.json:
        json.dump({**meta, "results": results}, sys.stdout, indent=1)
        print()
        return 0
    print(f"{meta['game']} {meta['players']}p, {args.config}, {args.seconds:.0f} s each, "
          f"{meta['cpus']} CPUs: learner samples/s")
    for name, r in results.items():
        extra = (f", {r['env_steps_per_s']:.0f} env steps/s, Ray start {r['ray_start_s']:.0f} s"
                 if "env_steps_per_s" in r else "")
        print(f"  {name:28s} {r['samples_per_s']:7.0f}  ({r['samples']} samples{extra})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
