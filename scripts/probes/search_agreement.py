"""How often two searches choose alike, against how often one agrees with itself.

    .venv/bin/python scripts/probes/search_agreement.py --game silberne_ananas --positions 300 \
        --specs pimc 'pimc:standing=silberne_ananas'

On the think-time benchmark's positions (``training.think_time.positions``,
heuristic self-play), position i is searched by the first spec and the
second with seed i (the same sampled worlds where both draw alike), and by
the first again with seed i + 10,000 (other worlds).  The first rate says
how many decisions the second search changes; the second, how many the
first spec's own sampling noise changes - where that is larger, most
decisions are near-ties.
"""

from __future__ import annotations

import argparse

import stichzoo.policies.lab  # noqa: F401  (a lab probe: registers the lab's spec options)
from stichzoo.envs.registry import game_class
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy
from stichzoo.training.evaluation.think_time import TABLES, positions

OTHER_WORLDS = 10_000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="silberne_ananas", choices=list(TABLES))
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0, help="the positions' seed")
    ap.add_argument("--specs", nargs=2, default=["pimc", "pimc:standing=silberne_ananas"])
    args = ap.parse_args()
    cls = game_class(args.game)
    game = cls(cls.Options(**TABLES[args.game]))
    first, second = args.specs
    alike = itself = 0
    states = positions(game, args.positions, args.seed)
    for i, s in enumerate(states):
        a = build_policy(first, game, seed=i, cache=False).act(Decision(game, s))
        alike += a == build_policy(second, game, seed=i, cache=False).act(Decision(game, s))
        again = build_policy(first, game, seed=i + OTHER_WORLDS, cache=False)
        itself += a == again.act(Decision(game, s))
    n = len(states)
    print(f"{args.game}, {n} positions: {second!r} plays {first!r}'s action in {alike / n:.3f}; "
          f"{first!r} with other worlds plays its own in {itself / n:.3f}")


if __name__ == "__main__":
    main()
