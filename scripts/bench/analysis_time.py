"""How long a table's game analysis takes: one whole game per game, then ``Table.analysis()``.

    .venv/bin/python scripts/bench/analysis_time.py [--seed 3] [--games wizard hoch_tief]

Each game is played at its default options against heuristic bots by a random
person (seeded), then analysed once as ``GET /tables/ID/analysis`` does: one
hint-sized search (the ``pimc`` level) per decision of the person with a choice.
docs/web_table.md ("Hints and the analysis") quotes these times.
"""

from __future__ import annotations

import argparse
import random
import time

from stichzoo.policies.tables.table import Table

#: the tables timed: (game, players)
TABLES = [("wizard", 4), ("wizard", 3), ("wunder_punkt", 4), ("silberne_ananas", 3),
          ("hoch_tief", 4), ("geheimtrumpf", 4)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3, help="the deal and the person's moves")
    parser.add_argument("--games", nargs="+", default=None, help="only these games")
    args = parser.parse_args()
    for game, players in TABLES:
        if args.games and game not in args.games:
            continue
        table = Table(game, players, opponents=["heuristic"], seed=args.seed)
        rng = random.Random(args.seed)
        while not table.over:
            table.act(rng.choice(table.view()["moves"])["id"])
        start = time.perf_counter()
        analysis = table.analysis()
        took = time.perf_counter() - start
        n = analysis["searched"]
        print(f"{game} {players}p: {n} decisions searched in {took:.2f} s "
              f"({1000 * took / max(n, 1):.0f} ms each)")


if __name__ == "__main__":
    main()
