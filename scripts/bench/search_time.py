"""Think time per decision: plain PIMC against the learned search bot, side by side.

    .venv/bin/python scripts/bench/search_time.py [--games wizard hoch_tief] [--decisions 200] \
        [--specs pimc 'pimc:worlds=24'] [--lab --specs pimc pimc:infer=0.5,worlds=10] \
        [--cores] [--clock cpu]

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
``--cores`` times each spec twice, on the compiled kernel's search where the game has one (the
spec as given) and on the Python loop (``kernel=0``), and prints the ratio: the kernel's
search must think at most a tenth of the loop's time (``taskset -c 0`` for one core).
``--clock cpu`` times the process's CPU time instead of the wall clock: on a shared machine a
sub-millisecond decision that loses the core for a time slice otherwise counts ~10 ms.
"""

from __future__ import annotations

import argparse
import time

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
    ap.add_argument("--cores", action="store_true",
                    help="time each spec on the kernel's search and on the Python loop "
                         "(kernel=0), with the ratio")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall time (default) or the process's CPU time (time.process_time)")
    args = ap.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.lab:
        import stichzoo.policies.lab  # noqa: F401
    print(f"{'game':16} {'policy':28} {'mean ms':>8} {'p50':>7} {'p95':>7}")
    for name in args.games:
        specs = [s.replace("{search}", learned_search(name)) for s in args.specs]
        if args.cores:
            specs = [x for s in specs for x in (s, _python_loop(s))]
        times = compare(name, specs, args.decisions, args.seed, clock)
        for spec, t in times.items():
            print(f"{name:16} {spec:28} {t['mean']:8.2f} {t['p50']:7.2f} {t['p95']:7.2f}",
                  flush=True)
        if args.cores:
            for kernel, loop in zip(specs[::2], specs[1::2]):
                k, p = times[kernel], times[loop]
                print(f"{name:16} {'loop / kernel ' + kernel:28} {p['mean'] / k['mean']:7.1f}x "
                      f"{p['p50'] / k['p50']:6.1f}x {p['p95'] / k['p95']:6.1f}x", flush=True)


def _python_loop(spec: str) -> str:
    """The spec with the kernel's search switched off (``kernel=0``): the Python loop."""
    return f"{spec},kernel=0" if ":" in spec else f"{spec}:kernel=0"


if __name__ == "__main__":
    main()
