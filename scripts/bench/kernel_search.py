"""PIMC's think time with its worlds and play-outs in the kernel against the Python loop.

    .venv/bin/python scripts/bench/kernel_search.py [--games hoch_tief] [--decisions 200] \
        [--players 4] [--args worlds=24,rollouts=2] [--cpu 0]

Both searches decide the same positions (``think_time.positions``: decisions with two or
more legal actions from seeded heuristic games), taking turns position by position in one
process pinned to one core, so the machine's load hits them alike: ``pimc`` (the game's own
play-out, searched by the kernel, ``kz_search.pimc``) and ``pimc:kernel=0`` (the Python
loop).  Times are the thread's CPU time (``time.thread_time``: a loaded machine's
preemptions stay out); ``wall`` is the ratio of the mean wall-clock times.  Both draw the
same worlds and play-outs from the same seed, so every chosen action must agree (counted
as ``differ``; it should be 0).  The kernel's time is split into the root's twin
(``envs.kernel.twin``: replaying the history into a kernel state and checking mask and
observation), the kernel's search itself (``Kernel.pimc`` with the generator's state in
and out) and the rest (Python's sums and action values).  Games without a search in the
kernel are refused.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.kernel import load, twin
from stichzoo.envs.registry import env_module, game_class
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy
from stichzoo.training.evaluation.think_time import TABLES, positions


def _spec(args: str, kernel: bool) -> str:
    parts = [a for a in args.split(",") if a] + ([] if kernel else ["kernel=0"])
    return "pimc" + (":" + ",".join(parts) if parts else "")


def bench(name: str, players: int | None, decisions: int, seed: int, args: str) -> dict:
    cls = game_class(name)
    table = dict(TABLES[name])
    if players is not None:
        table["num_players"] = players
    game = cls(cls.Options(**table))
    k = load(game)
    if k is None or not k.has_search:
        raise SystemExit(f"{name}: no search in the kernel (or the kernel is off)")
    states = positions(game, decisions, seed)
    fast = build_policy(_spec(args, True), game, seed=seed, cache=False)
    slow = build_policy(_spec(args, False), game, seed=seed, cache=False)
    if fast._kernel is None or slow._kernel is not None:
        raise SystemExit(f"{name}: the spec did not pick the kernel's search")
    ms = {"python": [], "kernel": []}  # CPU time of this thread
    wall = {"python": [], "kernel": []}
    differ = 0
    for s in states:  # taking turns, position by position
        chosen = []
        for key, policy in (("python", slow), ("kernel", fast)):
            d = Decision(game, s)
            w, t = time.perf_counter(), time.thread_time()
            chosen.append(policy.act(d))
            ms[key].append((time.thread_time() - t) * 1000)
            wall[key].append((time.perf_counter() - w) * 1000)
        differ += chosen[0] != chosen[1]
    # where the kernel's time goes: the same calls as PIMCPolicy._kernel_values, timed apart
    encoder = env_module(game.name).raw_env.encoder_cls(game)
    rows = k.new_states(1)
    twin_ms, pimc_ms = [], []
    rng = fast.rng
    worlds, rollouts = fast.worlds, fast.rollouts
    for s in states:
        t = time.thread_time()
        ok = twin(k, s, rows, encoder) is not None
        twin_ms.append((time.thread_time() - t) * 1000)
        if not ok:
            raise SystemExit(f"{name}: a position has no kernel twin")
        acts = np.array(bit_list(s.legal_mask()), np.int32)
        t = time.thread_time()
        version, internal, gauss = rng.getstate()
        _, internal = k.pimc(rows, 0, s.current_player, acts, worlds, rollouts, internal)
        rng.setstate((version, internal, gauss))
        pimc_ms.append((time.thread_time() - t) * 1000)
    py, kz = statistics.fmean(ms["python"]), statistics.fmean(ms["kernel"])
    tw, pc = statistics.fmean(twin_ms), statistics.fmean(pimc_ms)
    return {"game": name, "players": game.num_players, "decisions": len(states),
            "worlds": worlds, "rollouts": rollouts, "python_ms": py, "kernel_ms": kz,
            "ratio": py / kz, "differ": differ, "twin_ms": tw, "pimc_ms": pc,
            "rest_ms": max(kz - tw - pc, 0.0),
            "python_p50": statistics.median(ms["python"]),
            "kernel_p50": statistics.median(ms["kernel"]),
            "wall_ratio": statistics.fmean(wall["python"]) / statistics.fmean(wall["kernel"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["hoch_tief"])
    ap.add_argument("--players", nargs="+", type=int, default=[None],
                    help="player counts (default: the shipped bots' table)")
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--args", default="", help="PIMC arguments for both, e.g. worlds=24")
    ap.add_argument("--cpu", type=int, default=None,
                    help="the core to pin to (default: the first this process may use)")
    a = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        cpu = a.cpu if a.cpu is not None else min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    print(f"{'game':10} {'n':>2} {'worlds':>6} {'roll':>4} {'python ms':>10} {'kernel ms':>10} "
          f"{'ratio':>6} {'p50 py':>7} {'p50 kz':>7} {'twin':>6} {'pimc':>6} {'rest':>6} "
          f"{'wall':>6} {'differ':>6}")
    for name in a.games:
        for players in a.players:
            r = bench(name, players, a.decisions, a.seed, a.args)
            print(f"{r['game']:10} {r['players']:>2} {r['worlds']:>6} {r['rollouts']:>4} "
                  f"{r['python_ms']:10.2f} {r['kernel_ms']:10.3f} {r['ratio']:5.1f}x "
                  f"{r['python_p50']:7.2f} {r['kernel_p50']:7.3f} {r['twin_ms']:6.3f} "
                  f"{r['pimc_ms']:6.3f} {r['rest_ms']:6.3f} {r['wall_ratio']:5.1f}x "
                  f"{r['differ']:>6}", flush=True)


if __name__ == "__main__":
    main()
