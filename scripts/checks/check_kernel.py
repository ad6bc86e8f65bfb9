"""The compiled kernel against the Python core on a million decisions per game and configuration.

    python scripts/checks/check_kernel.py                       # every configuration, 1M each
    python scripts/checks/check_kernel.py --game wizard --decisions 100000 --workers 2
    python scripts/checks/check_kernel.py --json build/check_kernel.json

Every configuration below (each game at every player count it supports and
each of its rule options) plays games in both cores through
``stichzoo.envs.kernel.differential.compare``: at every decision the seat to
act, phase, round, decision count, totals, legal mask, the observation of
the seat to act bit for bit, the score deltas, the game's end and win
shares; illegal ids mixed in (both cores must refuse them alike) and replays
(the kernel rebuilt from deck orders and actions must come out byte for
byte the same).  Play alternates uniformly random and extreme lines (first
or last legal id).  Exits 1 on the first difference, naming it; prints a
table of decisions checked per configuration.  tests/envs/kernel runs the
same comparison on fewer decisions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

#: (game, options): every player count and every rule option of the five games
CONFIGS: list[tuple[str, dict]] = [
    *[("wizard", {"num_players": n}) for n in (3, 4, 5, 6)],
    ("wizard", {"num_players": 4, "dealer_bid_restriction": True}),
    ("wizard", {"num_players": 5, "first_dealer": 3, "rounds": (1, 5, 12)}),
    *[("wunder_punkt", {"num_players": n}) for n in (3, 4, 5, 6)],
    ("wunder_punkt", {"num_players": 3, "larger_hands": True}),
    ("wunder_punkt", {"num_players": 3, "rounds": 2, "first_dealer": 2}),
    ("silberne_ananas", {}),
    ("silberne_ananas", {"match": False}),
    ("silberne_ananas", {"alone_variant": True, "target_score": 40, "first_dealer": 1}),
    *[("hoch_tief", {"num_players": n}) for n in (3, 4, 5, 6)],
    ("hoch_tief", {"num_players": 4, "rounds": 2, "first_dealer": 1}),
    ("geheimtrumpf", {"num_players": 3}),
    ("geheimtrumpf", {"num_players": 4}),
    ("geheimtrumpf", {"num_players": 4, "round_limit": 3, "first_start": 2}),
]


def run(game: str, options: dict, decisions: int, seed: int) -> dict:
    from stichzoo.envs.kernel.differential import compare

    done = games = observations = illegal = replays = 0
    start = time.perf_counter()
    chunk = 0
    while done < decisions:
        rep = compare(game, options, games=20, seed=seed * 1000 + chunk,
                      policy="mixed" if chunk % 2 else "random")
        done += rep.decisions
        games += rep.games
        observations += rep.observations
        illegal += rep.illegal_tries
        replays += rep.replays
        chunk += 1
    return {"game": game, "options": options, "decisions": done, "games": games,
            "observations": observations, "illegal_tries": illegal, "replays": replays,
            "mismatches": 0, "seconds": round(time.perf_counter() - start, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", action="append", help="only these games")
    ap.add_argument("--decisions", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", help="write the table here")
    args = ap.parse_args(argv)
    configs = [(g, o) for g, o in CONFIGS if not args.game or g in args.game]
    rows = []
    with ProcessPoolExecutor(args.workers) as pool:
        futures = [pool.submit(run, g, o, args.decisions, args.seed) for g, o in configs]
        for f in futures:
            try:
                row = f.result()
            except AssertionError as e:
                print(f"MISMATCH: {e}", file=sys.stderr)
                return 1
            rows.append(row)
            print(f"{row['game']:16} {json.dumps(row['options']):58} {row['decisions']:>10,} "
                  f"decisions, {row['games']:>6,} games, 0 mismatches ({row['seconds']} s)",
                  flush=True)
    total = sum(r["decisions"] for r in rows)
    print(f"{len(rows)} configurations, {total:,} decisions, 0 mismatches")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
