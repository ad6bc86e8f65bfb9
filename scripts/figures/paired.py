"""Two bots measured against the same opponent on the same deals, compared per deal.

Two tournaments of one seed (``stichzoo eval ... --records FILE``), each a
bot against the same baseline (e.g. ``--policies bot:wizard pimc``), deal the
same cards; each deal's margin - the bot's mean objective over its seats and
seat assignments, less the baseline's - is paired across the two, and the
difference gets the paired t-interval over deals that the tournaments use
(training/evaluation/stats.py).  This is the test of "is bot A better than bot B against
this opponent" when A and B never sat at one table (docs/lab/expert_iteration.md, the
PIMC-table generation's confirmation).

    python scripts/figures/paired.py OUT_A RECORDS_A OUT_B RECORDS_B
"""

from __future__ import annotations

import argparse
import json
import os

from stichzoo.training.evaluation.stats import deal_means, paired_test


def margins(out: str, records: str) -> tuple[str, dict[int, float]]:
    """The tournament's bot and, per deal, its margin over the baseline on the objective."""
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    assignments, baseline = report["assignments"], report["baseline"]
    bots = [p for p in report["policies"] if p != baseline]
    if baseline is None or len(bots) != 1:
        raise SystemExit(f"{out}: needs one bot against one baseline (--policies BOT BASELINE)")
    with open(records) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    if len(recs) != report["games"]:
        raise SystemExit(f"{records}: {len(recs)} records for {report['games']} games")
    games = [{"deal": i // len(assignments), "assignment": assignments[i % len(assignments)],
              "totals": r["totals"], "winners": r["winners"]} for i, r in enumerate(recs)]
    per_deal = deal_means(games, report["objective"])
    return bots[0], {d: m[bots[0]] - m[baseline] for d, m in per_deal.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for side in ("a", "b"):
        parser.add_argument(f"out_{side}", help="the tournament's --out folder")
        parser.add_argument(f"records_{side}", help="its --records file")
    args = parser.parse_args()
    bot_a, a = margins(args.out_a, args.records_a)
    bot_b, b = margins(args.out_b, args.records_b)
    if a.keys() != b.keys():
        raise SystemExit("the two tournaments did not play the same deals")
    for name, m in ((bot_a, a), (bot_b, b)):
        print(f"{name} vs the baseline: {_interval(paired_test(list(m.values())))}")
    r = paired_test([a[d] - b[d] for d in sorted(a)])
    print(f"{bot_a} - {bot_b}, paired over {r['n']} deals: {_interval(r)} ({r['verdict']})")


def _interval(r: dict) -> str:
    if r["lo"] is None:  # too few deals, or no spread
        return f"{r['mean']:+.2f}"
    return f"{r['mean']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]"


if __name__ == "__main__":
    main()
