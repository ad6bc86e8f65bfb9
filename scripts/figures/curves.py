"""Learning curves of a run: its saved policies against the heuristic and PIMC, with 95% intervals.

    .venv/bin/python scripts/figures/curves.py runs/wizard_batch_f --out docs/img/curve_wizard.png

A batch run keeps a policy file every ``selfplay.snapshot_every`` samples
(``snapshots/``, the league) and its final ``policy.pt``.  Each of them
plays a duplicate tournament against every opponent (``--opponents``, games
per opponent ``--games``, the seed ``--seed`` that training never uses), on
the game's own objective (Silberne Ananas: the win rate).  The results go

- into TensorBoard, under the run's ``tb/curve`` as ``curve/vs_<opp>/...``
  (the same tags and ``_lo``/``_hi`` intervals as ``eval/``), at the policy's
  sample count, so they sit beside the run's own curves;
- into ``<run>/eval/curve.json`` (measured points are not measured again);
- into the PNG: the difference against each opponent over learner samples,
  with the interval as a band, and the run's training minutes on top.

PIMC is costly (a search in every other seat), so ``--points`` thins its
curve to evenly spaced policies, the last always included.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re

from stichzoo.training import config as config_mod
from stichzoo.training.evaluation.ladder import objective
from stichzoo.training.evaluation.run_eval import evaluate_policy_file, evaluation_scalars
from stichzoo.training.runs import RunPaths


def policies_of(run_dir: str) -> list[tuple[int, str]]:
    """(samples, policy file) of every saved policy, in training order."""
    paths = RunPaths(run_dir)
    out = []
    for path in glob.glob(os.path.join(paths.snapshots, "step_*.pt")):
        out.append((int(re.search(r"step_(\d+)\.pt$", path).group(1)), path))
    summary = os.path.join(run_dir, "train_summary.yaml")
    if os.path.exists(paths.policy) and os.path.exists(summary):
        import yaml

        with open(summary) as f:
            out.append((int(yaml.safe_load(f)["steps"]), paths.policy))
    return sorted(set(out))


def thin(points: list, count: int) -> list:
    """``count`` evenly spaced points, the last always among them."""
    if count <= 0 or len(points) <= count:
        return points
    step = (len(points) - 1) / (count - 1) if count > 1 else 0
    picks = {round(len(points) - 1 - i * step) for i in range(count)}
    return [p for i, p in enumerate(points) if i in picks]


def minutes_at(run_dir: str) -> dict[int, float]:
    """Training minutes of the run (pretraining included) at each logged sample count.

    A resumed run has one event file per leg, written by a writer made when
    the leg's training began.  Each leg's minutes count from that file's
    creation; the legs are chained without the time between them (a resume
    may come days later); the first leg adds the warm start before its
    writer, from its ``pretrain/seconds`` and ``expert/seconds`` (logged at step 0).
    Exact to the second: an event file is named by the whole second it was made in.
    """
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    def created(path: str) -> float:
        return float(os.path.basename(path).split(".")[3])

    out: dict[int, float] = {}
    offset = 0.0
    pattern = os.path.join(run_dir, "tb", "batch_ppo", "events.out.tfevents.*")
    for path in sorted(glob.glob(pattern), key=created):
        acc = EventAccumulator(path, size_guidance={"scalars": 0})
        acc.Reload()
        if "time/fps" not in acc.Tags()["scalars"]:
            continue
        events = acc.Scalars("time/fps")
        start = created(path)
        if not out:  # the first leg: its warm start ran before the writer existed
            offset = sum(acc.Scalars(f"{stage}/seconds")[0].value / 60
                         for stage in ("pretrain", "expert")
                         if f"{stage}/seconds" in acc.Tags()["scalars"])
        for e in events:
            out[e.step] = offset + (e.wall_time - start) / 60
        offset = out[events[-1].step]
    return out


def measure(run_dir: str, opponents: list[str], games: list[int], points: list[int],
            seed: int, workers: int) -> dict:
    cfg = config_mod.load(os.path.join(run_dir, "config.yaml"))
    cache_path = os.path.join(RunPaths(run_dir).eval, "curve.json")
    cache = {}
    if os.path.exists(cache_path):
        with open(cache_path) as f:
            cache = json.load(f)
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(os.path.join(run_dir, "tb", "curve"))
    saved = policies_of(run_dir)
    for opp, n_games, n_points in zip(opponents, games, points):
        for samples, path in thin(saved, n_points):
            key = f"{opp}|{n_games}|{seed}|{samples}"
            if key not in cache:
                rep = evaluate_policy_file(cfg, path, opp, n_games, seed=seed, workers=workers)
                scalars = evaluation_scalars(rep, cfg["game"], opp, group="curve")
                cache[key] = {"opponent": opp, "samples": samples, "games": rep["games"],
                              "scalars": scalars}
                os.makedirs(os.path.dirname(cache_path), exist_ok=True)
                with open(cache_path, "w") as f:
                    json.dump(cache, f, indent=1, sort_keys=True)
                for tag, value in scalars.items():
                    writer.add_scalar(tag, value, samples)
                writer.flush()
                diff = scalars.get(f"curve/vs_{opp.split(':')[0]}/score_diff")
                print(f"{cfg['game']} {samples} vs {opp}: score diff {diff}", flush=True)
    writer.close()
    return {"game": cfg["game"], "points": [v for k, v in cache.items()
                                            if k.split("|")[0] in opponents]}


def plot(result: dict, run_dir: str, out: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    game = result["game"]
    stat = "win_rate_diff" if objective(game) == "win_rate_difference" else "score_diff"
    fig, ax = plt.subplots(figsize=(7, 4))
    for opp in dict.fromkeys(p["opponent"] for p in result["points"]):
        pts = sorted((p for p in result["points"] if p["opponent"] == opp),
                     key=lambda p: p["samples"])
        tag = f"curve/vs_{opp.split(':')[0]}/{stat}"
        pts = [p for p in pts if tag in p["scalars"]]
        if not pts:
            continue
        x = [p["samples"] / 1e6 for p in pts]
        y = [p["scalars"][tag] for p in pts]
        lo = [p["scalars"].get(tag + "_lo", v) for p, v in zip(pts, y)]
        hi = [p["scalars"].get(tag + "_hi", v) for p, v in zip(pts, y)]
        line, = ax.plot(x, y, marker="o", label=f"vs {opp} ({pts[-1]['games']} games/point)")
        ax.fill_between(x, lo, hi, alpha=0.2, color=line.get_color())
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("learner samples (millions)")
    ax.set_ylabel(stat.replace("_", " ") + " (95% interval)")
    ax.set_title(f"{game}: {os.path.basename(os.path.normpath(run_dir))}")
    ax.legend(loc="lower right", fontsize=8)
    minutes = minutes_at(run_dir)
    if minutes:
        steps = sorted(minutes)
        top = ax.secondary_xaxis(
            "top", functions=(lambda s: _interp(s * 1e6, steps, [minutes[k] for k in steps]),
                              lambda m: _interp(m, [minutes[k] for k in steps], steps) / 1e6))
        top.set_xlabel("training minutes (warm start included; resumed legs end to end)")
    fig.tight_layout()
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print(f"wrote {out}")


def _interp(x, xs: list[float], ys: list[float]):
    import numpy as np

    return np.interp(x, xs, ys)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--opponents", nargs="+", default=["heuristic", "pimc"])
    ap.add_argument("--games", nargs="+", type=int, default=[200, 80],
                    help="games per point, one per opponent")
    ap.add_argument("--points", nargs="+", type=int, default=[0, 3],
                    help="policies per opponent (0: all), one per opponent")
    ap.add_argument("--seed", type=int, default=3083)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not (len(args.opponents) == len(args.games) == len(args.points)):
        ap.error("--opponents, --games and --points need one value per opponent")
    result = measure(args.run, args.opponents, args.games, args.points, args.seed, args.workers)
    plot(result, args.run, args.out)


if __name__ == "__main__":
    main()
