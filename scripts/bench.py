"""Step throughput of every env: random legal play, through the AEC API and on the raw core.

    python scripts/bench.py                       # every game at its usual table size
    python scripts/bench.py --game wizard --players 3 4 5 6 --seconds 10
    python scripts/bench.py --json > bench.json

Per game and player count, two loops of uniformly random legal play:

- ``aec``: exactly as a user drives the env - ``env()`` with PettingZoo's
  wrappers, ``agent_iter``, ``last()``, sample from ``action_mask``, ``step``;
- ``core``: the pure rules state - ``legal_actions()``, a random choice,
  ``apply()`` - no observation, no wrappers.

Each loop runs whole games for ``--seconds`` and is repeated ``--repeats``
times; the median run is reported (games/s and decisions/s).  A benchmark,
not a test: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

import numpy as np

import envs

USUAL_PLAYERS = {"silberne_ananas": 3}


def valid_player_counts(game: str) -> list[int]:
    cls = envs.game_class(game)
    counts = []
    for n in range(2, 9):
        try:
            cls.Options(num_players=n)
        except ValueError:
            continue
        counts.append(n)
    return counts


def run_aec(game: str, players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    env = envs.env_module(game).env(num_players=players)
    rng = np.random.default_rng(seed)
    games = decisions = 0
    start = time.perf_counter()
    while True:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games, decisions, elapsed


def run_core(game: str, players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    cls = envs.game_class(game)
    g = cls(cls.Options(num_players=players))
    rng = random.Random(seed)
    choice = rng.choice
    games = decisions = 0
    start = time.perf_counter()
    while True:
        s = g.new_game(seed=seed + games)
        while not (s.over or s.truncated):
            s.apply(choice(s.legal_actions()))
            decisions += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games, decisions, elapsed


def measure(fn, game: str, players: int, seconds: float, repeats: int) -> dict:
    runs = []
    for r in range(repeats):
        games, decisions, elapsed = fn(game, players, seconds, seed=1000 * r)
        runs.append({"games_per_s": games / elapsed, "decisions_per_s": decisions / elapsed,
                     "decisions_per_game": decisions / games})
    median = statistics.median(run["decisions_per_s"] for run in runs)
    best = min(runs, key=lambda run: abs(run["decisions_per_s"] - median))
    return {**best, "runs": runs}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", nargs="*", default=list(envs.GAMES), choices=list(envs.GAMES))
    p.add_argument("--players", nargs="*", type=int, help="player counts (default: usual)")
    p.add_argument("--seconds", type=float, default=3.0, help="length of one run")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", action="store_true", help="print JSON only")
    args = p.parse_args(argv)
    results = []
    for game in args.game:
        counts = valid_player_counts(game)
        wanted = args.players or [USUAL_PLAYERS.get(game, 4)]
        for n in wanted:
            if n not in counts:
                if not args.json:
                    print(f"{game}: {n} players not allowed (allowed: {counts}); skipped",
                          file=sys.stderr)
                continue
            row = {"game": game, "players": n}
            for loop, fn in (("aec", run_aec), ("core", run_core)):
                if not args.json:
                    print(f"  measuring {game} {n}p {loop} ({args.repeats} x {args.seconds:g} s)",
                          file=sys.stderr, flush=True)
                row[loop] = measure(fn, game, n, args.seconds, args.repeats)
            results.append(row)
    if args.json:
        print(json.dumps({"seconds": args.seconds, "repeats": args.repeats, "results": results},
                         indent=1))
        return 0
    print(f"\nmedian of {args.repeats} runs of {args.seconds:g} s, random legal play")
    print(f"{'game':<16}{'n':>3}{'AEC games/s':>14}{'AEC dec/s':>12}"
          f"{'core games/s':>14}{'core dec/s':>12}")
    for row in results:
        a, c = row["aec"], row["core"]
        print(f"{row['game']:<16}{row['players']:>3}{a['games_per_s']:>14.1f}"
              f"{a['decisions_per_s']:>12.0f}{c['games_per_s']:>14.1f}{c['decisions_per_s']:>12.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
