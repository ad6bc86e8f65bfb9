"""Decision regret of searches against a deep reference search, position by position.

    .venv/bin/python scripts/probes/search_regret.py --games wizard hoch_tief \\
        --positions 400 --depth 8 --specs pimc 'pimc:guide=bot:{game}'

Where does the learned search's gain over plain PIMC come from (issue 29)?
Two mechanisms are possible: the guide's pruning buys each kept action
more worlds, so the search's choice is less noisy; or the network corrects
what PIMC's own evaluation (its worlds, its horizon, its rollout player)
gets wrong.  A tournament cannot tell them apart; this probe can measure
the first.  On positions of heuristic self-play (``training/evaluation/think_time.py``,
the positions the think-time benchmark times) a reference - plain PIMC with
``--depth`` times its default worlds, every legal action searched - values
each action; each spec's choice is charged the reference's value of the best
action minus that of the one it chose (its regret, in the game's measure:
points, Silberne Ananas' middle-ness, Geheimtrumpf's tasks).  A search whose
gain is less sampling noise has less regret than PIMC; a search that plays
otherwise than PIMC's evaluation would, on purpose, has more - however it
fares at the table.  For a guided spec the probe also reports how often the
reference's best action is among the guide's ``keep`` candidates.

Each spec's mean regret has a 95% interval over the positions, and every
spec after the first its paired difference to the first.  ``--split`` adds
each spec's regret per kind of decision (the phase; in play, how many cards
the trick already holds: 0 is the lead): where a network decides worse than
the search, the kind of decision says which reading it lacks.  Deterministic for
a seed; the think times (mean ms per position, the specs taking turns) are
not.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from stichzoo.envs.registry import game_class
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy
from stichzoo.training.evaluation.stats import mean_ci
from stichzoo.training.evaluation.think_time import TABLES, positions


def _interval(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% t-interval over the positions (``mean_ci``, as the
    tournaments report theirs); NaN below the fewest observations an interval is given for."""
    ci = mean_ci(xs)
    if ci["lo"] is None:
        return ci["mean"], float("nan")
    return ci["mean"], (ci["hi"] - ci["lo"]) / 2


def measure(name: str, specs: list[str], count: int, depth: int, seed: int) -> list[dict]:
    """Per spec: mean regret [95%], paired difference to the first, guide coverage, think ms."""
    cls = game_class(name)
    game = cls(cls.Options(**TABLES[name]))
    states = positions(game, count, seed)
    plain = build_policy("pimc", game, seed=seed, cache=False)
    reference = build_policy(f"pimc:worlds={plain.worlds * depth}", game, seed=seed + 1,
                             cache=False)
    specs = [spec.replace("{game}", name) for spec in specs]
    searches = [build_policy(spec, game, seed=seed + 2, cache=False) for spec in specs]
    kinds = [kind(s) for s in states]
    regret: list[list[float]] = [[] for _ in specs]
    think: list[list[float]] = [[] for _ in specs]
    covered: list[list[bool]] = [[] for _ in specs]
    for s in states:
        d = Decision(game, s)
        values = {v.action: v.value for v in reference.values(d).values}
        top = max(values.values())
        best = [a for a, v in values.items() if v == top]
        for i, search in enumerate(searches):
            decision = Decision(game, s)
            if getattr(search, "guide", None) is not None:
                kept, _ = search.candidates(decision, decision.legal_actions)
                covered[i].append(any(a in kept for a in best))
            t = time.perf_counter()
            action = search.act(decision)
            think[i].append((time.perf_counter() - t) * 1000)
            regret[i].append(top - values[action])
    rows = []
    for i, spec in enumerate(specs):
        mean, half = _interval(regret[i])
        row = {"game": name, "spec": spec, "positions": len(states), "regret": mean,
               "half": half, "think_ms": statistics.fmean(think[i]),
               "coverage": statistics.fmean(covered[i]) if covered[i] else None}
        if i:
            row["difference"] = _interval([a - b for a, b in zip(regret[i], regret[0])])
        row["by_kind"] = {}  # kind -> (mean, half-width, positions)
        for k in sorted(set(kinds)):
            mean, half = _interval([r for r, kk in zip(regret[i], kinds) if kk == k])
            row["by_kind"][k] = (mean, half, kinds.count(k))
        rows.append(row)
    return rows


def kind(state) -> str:
    """The kind of decision: the phase, and in play the cards already in the trick."""
    if state.phase_name == "play":
        return f"play, {len(state.trick.cards)} in the trick"
    return state.phase_name


def split_markdown(rows: list[dict], depth: int) -> str:
    """Per kind of decision (rows) and spec (columns): mean regret [95%]."""
    kinds = list(rows[0]["by_kind"])
    lines = ["| kind of decision | positions | "
             + " | ".join(f"`{r['spec']}` regret vs PIMC x{depth}" for r in rows) + " |",
             "|---|---:|" + "---|" * len(rows)]
    for k in kinds:
        cells = []
        for r in rows:
            mean, half, _ = r["by_kind"][k]
            cells.append(f"{mean:.3f}" + ("" if math.isnan(half) else  # too few for one
                                          f" [{mean - half:.3f}, {mean + half:.3f}]"))
        lines.append(f"| {k} | {rows[0]['by_kind'][k][2]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown(rows: list[dict], depth: int) -> str:
    lines = [f"| game | spec | positions | regret vs PIMC x{depth} [95%] | minus the first spec "
             f"[95%] | reference's best among the guide's candidates | think ms |",
             "|---|---|---:|---|---|---:|---:|"]
    for r in rows:
        diff = r.get("difference")
        diff = f"{diff[0]:+.3f} [{diff[0] - diff[1]:+.3f}, {diff[0] + diff[1]:+.3f}]" \
            if diff else "-"
        cover = "-" if r["coverage"] is None else f"{r['coverage']:.3f}"
        lines.append(f"| {r['game']} | `{r['spec']}` | {r['positions']} | {r['regret']:.3f} "
                     f"[{r['regret'] - r['half']:.3f}, {r['regret'] + r['half']:.3f}] | {diff} "
                     f"| {cover} | {r['think_ms']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--specs", nargs="+", default=["pimc", "pimc:guide=bot:{game}"],
                        help="searches to compare ({game}: the game's name); the first is the "
                             "one the others are paired with")
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--depth", type=int, default=8,
                        help="the reference's worlds, in multiples of plain PIMC's default")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--split", action="store_true",
                        help="also each spec's regret per kind of decision (phase, trick seat)")
    args = parser.parse_args(argv)
    if args.positions < 2 or args.depth < 1:
        parser.error("--positions must be at least 2 and --depth at least 1")
    rows = []
    for name in args.games:
        game_rows = measure(name, args.specs, args.positions, args.depth, args.seed)
        rows += game_rows
        if args.split:
            print(f"{name}:\n{split_markdown(game_rows, args.depth)}\n")
    print(markdown(rows, args.depth))


if __name__ == "__main__":
    main()
