"""The exact endgame's solve time in the kernel (``Kernel.solve``, max^n) by cards per hand left.

    .venv/bin/python scripts/bench/endgame_time.py [--game hoch_tief] [--players 4 3 6] \
        [--max-cards 6] [--positions 200] [--max-nodes 20000000] [--cpu 0] [--json out.json]

Positions: for each player count and k = 1..max-cards, ``--positions`` states of seeded
uniformly random games, stopped where the seat to act holds k cards, at a random point of
the trick (0..n-1 cards of it played), every hand known - what one sampled world of PIMC
is.  Each is turned into a kernel state (``envs.kernel.twin``, not timed) and solved once
for the seat to act; the time is the wall clock of the ``Kernel.solve`` call (its Python
call included, about a microsecond), in one process pinned to ``--cpu`` where given.
Reported per k: the median and the 95th percentile of the time (ms) and of the nodes, and
how many positions the node budget left unsolved (their time is the time to give up, so
percentiles over a budget-bound row are lower bounds; the row is marked).  Then the
largest k whose median, and whose p95, is within 1 ms a world.  A k whose median passes
``--stop-ms`` ends the player count's sweep.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time

from stichzoo import envs
from stichzoo.envs import kernel
from stichzoo.envs.core.cards import bit_list


def positions(game, k: int, count: int, seed: int):
    """Random games stopped in their first round's play where the seat to act holds k
    cards, at a random point of a trick (bids, a trump: random too)."""
    n = game.options.num_players
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = game.new_game(rng.randrange(1 << 30))
        while s.phase_name != "play":
            s.apply(rng.choice(s.legal_actions()))
        hand = s.hands[s.current_player].bit_count()
        for _ in range((hand - k) * n + rng.randrange(n)):
            s.apply(rng.choice(bit_list(s.legal_mask())))
        out.append(s)
    return out


def one_round(name: str, n: int):
    """The game with one round of the largest hand: Hoch & Tief's 15 cards; Wizard's 60 / n."""
    cls = envs.game_class(name)
    if name == "wizard":
        return cls(cls.Options(num_players=n, rounds=[60 // n]))
    return cls(cls.Options(num_players=n, rounds=1))


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="hoch_tief")
    ap.add_argument("--players", type=int, nargs="+", default=[4, 3, 6])
    ap.add_argument("--max-cards", type=int, default=6)
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--max-nodes", type=int, default=20_000_000)
    ap.add_argument("--stop-ms", type=float, default=200.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cpu", type=int, default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    if a.cpu is not None:
        os.sched_setaffinity(0, {a.cpu})
    rows = []
    for n in a.players:
        game = one_round(a.game, n)
        k_ = kernel.load(game, force=True)
        best_med = best_p95 = 0
        print(f"{a.game}, {n} players: ms a solve (median / p95), nodes (median / p95), unsolved")
        for k in range(1, a.max_cards + 1):
            times, nodes, unsolved = [], [], 0
            for s in positions(game, k, a.positions, a.seed * 1000 + 100 * n + k):
                st = kernel.twin(k_, s)
                assert st is not None
                t0 = time.perf_counter()
                got = k_.solve(st, 0, a.max_nodes)
                times.append((time.perf_counter() - t0) * 1e3)
                if got is None:
                    unsolved += 1
                    nodes.append(a.max_nodes)
                else:
                    nodes.append(got[1])
            row = {"game": a.game, "players": n, "cards": k, "positions": len(times),
                   "ms_median": statistics.median(times), "ms_p95": pct(times, 0.95),
                   "nodes_median": statistics.median(nodes), "nodes_p95": pct(nodes, 0.95),
                   "unsolved": unsolved}
            rows.append(row)
            mark = " (budget-bound)" if unsolved else ""
            print(f"  k={k}: {row['ms_median']:.4f} / {row['ms_p95']:.4f} ms, "
                  f"{row['nodes_median']:.0f} / {row['nodes_p95']:.0f} nodes, "
                  f"{unsolved}/{len(times)} unsolved{mark}", flush=True)
            if not unsolved and row["ms_median"] <= 1.0 and best_med == k - 1:
                best_med = k
            if not unsolved and row["ms_p95"] <= 1.0 and best_p95 == k - 1:
                best_p95 = k
            if row["ms_median"] > a.stop_ms or unsolved * 2 > len(times):
                break
        print(f"  largest k within 1 ms a world: median {best_med}, p95 {best_p95}")
        rows.append({"game": a.game, "players": n, "k_1ms_median": best_med, "k_1ms_p95": best_p95})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
