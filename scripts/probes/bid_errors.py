"""Where a Wizard bot misses its bids: tricks taken less the bid, per bid and per bidding turn.

A bot that hits its bids at its own tables but not at another's (the shipped
network: 0.60 in self-play, 0.57 among PIMC seats) misses them either because
its bids misread that table or because its card play cannot steer to them
there.  The split tells the two apart: a seat that bids first has seen no
other bid, so an error it shares with the later seats is not in the bids it
read (docs/lab/bid_model.md, "Wizard: expert iteration from the learned search").

Reads one tournament (``stichzoo eval wizard ... --records FILE --out OUT``) and
prints, for each policy, its rounds by bid (0, 1, 2, 3, 4 and more) - share,
hit rate, over (more tricks than the bid), under, mean round score - and the
mean of tricks less bid by bidding turn.

    python scripts/probes/bid_errors.py OUT RECORDS
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict


def rounds_by_policy(out: str, records: str) -> dict[str, list[dict]]:
    """Every round of every seat, keyed by the policy that sat there (its bid, its turn to
    bid, tricks taken, round score)."""
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    if report["config"]["game"] != "wizard":
        raise SystemExit(f"{out}: a {report['config']['game']} tournament; bids are Wizard's")
    assignments = report["assignments"]
    found: dict[str, list[dict]] = defaultdict(list)
    with open(records) as f:
        for i, line in enumerate(f):
            record = json.loads(line)
            seats = assignments[i % len(assignments)]
            for rnd in record["rounds"]:
                order = [b["seat"] for b in rnd["bids"]]
                for b in rnd["bids"]:
                    s = b["seat"]
                    found[seats[s]].append({"bid": b["bid"], "turn": order.index(s),
                                            "tricks": rnd["tricks_won"][s],
                                            "score": rnd["scores"][s]})
    return found


def table(rows: list[dict]) -> list[str]:
    """The lines of one policy's table."""
    out = ["| bid | share | hit | over | under | round score |", "|---|---:|---:|---:|---:|---:|"]
    for bid in range(5):
        mine = [r for r in rows if min(r["bid"], 4) == bid]
        if not mine:
            continue
        n = len(mine)
        over = sum(r["tricks"] > r["bid"] for r in mine) / n
        under = sum(r["tricks"] < r["bid"] for r in mine) / n
        out.append(f"| {bid}{'+' if bid == 4 else ''} | {n / len(rows):.3f} | "
                   f"{1 - over - under:.3f} | {over:.3f} | {under:.3f} | "
                   f"{sum(r['score'] for r in mine) / n:.2f} |")
    turns = sorted({r["turn"] for r in rows})
    means = []
    for t in turns:
        mine = [r["tricks"] - r["bid"] for r in rows if r["turn"] == t]
        means.append(f"{t + 1}: {sum(mine) / len(mine):+.3f}")
    mean = sum(r["tricks"] - r["bid"] for r in rows) / len(rows)
    out.append(f"tricks less bid by bidding turn - {', '.join(means)}; all {mean:+.3f} over "
               f"{len(rows)} rounds")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the tournament's --out folder")
    parser.add_argument("records", help="its --records file")
    args = parser.parse_args()
    for policy, rows in rounds_by_policy(args.out, args.records).items():
        print(f"\n{policy}")
        print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
