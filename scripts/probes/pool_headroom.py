"""Pool headroom probe runs: the per-deal differences of each variant over several ``--json`` files.

    .venv/bin/python scripts/probes/pool_headroom.py runs/a.json runs/b.json

Runs on different seeds are independent deals, so their per-deal
differences (``scripts/probes/headroom.py --json``: each row's ``diffs``)
join into one sample; the mean and 95% interval are the probe's
(``training.stats.paired_test``).  The think times are the runs' own, by
decisions, the baseline's from the same runs as the variant's.  A variant is
pooled over the files that hold it, per game.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

from stichzoo.training.evaluation.report import format_interval
from stichzoo.training.evaluation.stats import paired_test


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="headroom.py --json outputs")
    args = ap.parse_args(argv)
    diffs: dict[tuple[str, str], list[float]] = defaultdict(list)
    times: dict[tuple[str, str], list[tuple[float, int]]] = defaultdict(list)
    base: dict[tuple[str, str], list[tuple[float, int]]] = defaultdict(list)
    seeds: dict[tuple[str, str], list[int]] = defaultdict(list)
    measure: dict[str, str] = {}
    for path in args.files:
        with open(path) as f:
            for report in json.load(f):
                game = report["game"]
                measure[game] = report["measure"]
                b = report["baseline"]
                for row in report["rows"]:
                    key = (game, row["variant"])
                    diffs[key] += row["diffs"]
                    times[key].append((row["think_ms"], row["decisions"]))
                    base[key].append((b["think_ms"], b["decisions"]))
                    seeds[key].append(report["seed"])
    for (game, variant), d in diffs.items():
        win = measure[game] == "win share"
        test = paired_test(d, (-1.0, 1.0) if win else None)
        ms = sum(t * n for t, n in times[game, variant]) / sum(n for _, n in times[game, variant])
        bms = sum(t * n for t, n in base[game, variant]) / sum(n for _, n in base[game, variant])
        print(f"{game} {variant}: {format_interval(test, '+.3f' if win else '+.2f')} "
              f"({test['verdict']}), {len(d)} deals, seeds {seeds[game, variant]}; think "
              f"{ms:.2f} ms vs {bms:.2f} ms ({ms / bms:.2f}x)")


if __name__ == "__main__":
    main()
