"""How well a batch run's critic fitted: its value loss and explained variance over training.

    .venv/bin/python scripts/repro/value_fit.py runs/critic_obs runs/critic_priv

Reads each run's TensorBoard scalars (``tb/batch_ppo``: ``losses/value_loss``,
``losses/explained_variance`` - the rollout's own values against its GAE
returns, measured before the update - and ``charts/episode_return``) and
prints their mean over the first tenth, the last quarter and the whole run,
per rollout (every rollout weighs the same).
"""

from __future__ import annotations

import argparse
import os

import numpy as np

TAGS = ("losses/value_loss", "losses/explained_variance", "losses/policy_loss",
        "losses/entropy", "losses/approx_kl", "charts/episode_return")


def scalars(run: str) -> dict[str, np.ndarray]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(os.path.join(run, "tb", "batch_ppo"), size_guidance={"scalars": 0},
                           purge_orphaned_data=False)
    acc.Reload()
    have = set(acc.Tags()["scalars"])
    return {tag: np.array([e.value for e in sorted(acc.Scalars(tag), key=lambda e: e.step)])
            for tag in TAGS if tag in have}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    print("| run | tag | first 10% | last 25% | whole run | rollouts |")
    print("|---|---|---:|---:|---:|---:|")
    for run in args.runs:
        for tag, v in scalars(run).items():
            n = len(v)
            head, tail = v[:max(1, n // 10)], v[-max(1, n // 4):]
            print(f"| {os.path.basename(os.path.normpath(run))} | {tag} | {np.nanmean(head):.4f} "
                  f"| {np.nanmean(tail):.4f} | {np.nanmean(v):.4f} | {n} |")


if __name__ == "__main__":
    main()
