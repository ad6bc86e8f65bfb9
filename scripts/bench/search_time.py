"""Think time per decision: plain PIMC against the learned search bot, side by side.

    .venv/bin/python scripts/bench/search_time.py [--games wizard hoch_tief] [--decisions 200] \
        [--specs pimc 'pimc:worlds=24'] [--lab --specs pimc pimc:infer=0.5,worlds=10]

The learned search bot (the ``search`` spec: ``pimc:guide=bot:<game>``, in Hoch &
Tief PIMC with a leaf value) must not think longer than plain PIMC at its default
budget.  Both decide the same positions -
every decision with two or more legal actions from heuristic self-play
games (seeded), on the shipped bots' tables - one after the other in one
process, so the machine's speed cancels out (``stichzoo.training.evaluation.think_time``).
``--specs`` compares any searches (``{game}`` in a spec is the game's name,
``{search}`` its learned search spelled out); the default is plain PIMC and the
learned search.  ``--lab`` registers the lab's options first (``pimc:infer=``,
``pimc:belief=``, ``pimc:standing=``...: policies/lab/), to time a lever on the lab pages.
"""

from __future__ import annotations

import argparse

from stichzoo.policies.specs import learned_search
from stichzoo.training.evaluation.think_time import TABLES, compare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(TABLES), choices=list(TABLES))
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--specs", nargs="+", default=["pimc", "{search}"],
                    help="the searches to time ({game}: the game's name, {search}: its "
                         "learned search)")
    ap.add_argument("--lab", action="store_true",
                    help="register the lab's spec options (policies/lab) before building")
    args = ap.parse_args()
    if args.lab:
        import stichzoo.policies.lab  # noqa: F401
    print(f"{'game':16} {'policy':28} {'mean ms':>8} {'p50':>7} {'p95':>7}")
    for name in args.games:
        specs = [s.replace("{search}", learned_search(name)) for s in args.specs]
        for spec, t in compare(name, specs, args.decisions, args.seed).items():
            print(f"{name:16} {spec:28} {t['mean']:8.2f} {t['p50']:7.2f} {t['p95']:7.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
