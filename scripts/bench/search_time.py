"""Think time per decision: plain PIMC against the learned search bot, side by side.

    .venv/bin/python scripts/bench/search_time.py [--games wizard hoch_tief] [--decisions 200] \
        [--specs pimc pimc:infer=0.5,worlds=10]

The learned search bot (``pimc:guide=bot:<game>``) must not think longer
than plain PIMC at its default budget.  Both decide the same positions -
every decision with two or more legal actions from heuristic self-play
games (seeded), on the shipped bots' tables - one after the other in one
process, so the machine's speed cancels out: the specs take turns, position by
position, so a change in the machine's load hits them alike.  ``--specs`` compares
any searches (``{game}`` in a spec is the game's name); the default is plain PIMC and the
learned search.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from stichzoo.envs.registry import game_class
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy

TABLES = {"wizard": {"num_players": 4}, "wunder_punkt": {"num_players": 4},
          "silberne_ananas": {}, "hoch_tief": {"num_players": 4},
          "geheimtrumpf": {"num_players": 4}}


def positions(game, count: int, seed: int) -> list:
    """``count`` decision states (two or more legal actions) of heuristic self-play games."""
    rng = random.Random(seed)
    bot = make_policy("heuristic", game, seed=seed)
    out = []
    while len(out) < count:
        s = game.new_game(rng.randrange(1 << 30))
        while not (s.over or s.truncated) and len(out) < count:
            if len(s.legal_actions()) > 1 and rng.random() < 0.25:
                out.append(s.clone())
            s.apply(bot.act(Decision(game, s)))
    return out


def think_ms(policies, game, states) -> list[list[float]]:
    """Each policy's think time (ms) per state; the policies take turns on every state."""
    times: list[list[float]] = [[] for _ in policies]
    for s in states:
        for policy, out in zip(policies, times):
            d = Decision(game, s)
            t = time.perf_counter()
            policy.act(d)
            out.append((time.perf_counter() - t) * 1000)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(TABLES), choices=list(TABLES))
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--specs", nargs="+", default=["pimc", "pimc:guide=bot:{game}"],
                    help="the searches to time ({game}: the game's name)")
    args = ap.parse_args()
    print(f"{'game':16} {'policy':28} {'mean ms':>8} {'p50':>7} {'p95':>7}")
    for name in args.games:
        cls = game_class(name)
        game = cls(cls.Options(**TABLES[name]))
        states = positions(game, args.decisions, args.seed)
        specs = [spec.replace("{game}", name) for spec in args.specs]
        policies = [build_policy(spec, game, seed=args.seed, cache=False) for spec in specs]
        for spec, ms in zip(specs, think_ms(policies, game, states)):
            ms = sorted(ms)
            p95 = ms[int(0.95 * (len(ms) - 1))]
            print(f"{name:16} {spec:28} {statistics.fmean(ms):8.2f} "
                  f"{statistics.median(ms):7.2f} {p95:7.2f}", flush=True)


if __name__ == "__main__":
    main()
