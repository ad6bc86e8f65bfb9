"""Headroom probes: how much better PIMC plays with perfect inference, more worlds or another
rollout player - the ceilings every search lever is measured against (issue 29).

    .venv/bin/python scripts/probes/headroom.py [--games wizard hoch_tief] [--deals 48] \
        [--seed 424242] [--workers 2] [--worlds-factor 4] \
        [--variants true_deal worlds random heuristic] [--specs pimc:infer=1 ...] \
        [--markdown table.md] [--json results.json]

Per game one round (Silberne Ananas: one deal) is played in duplicate: every
deal once with PIMC at its defaults in every seat (the baseline), and once per
variant and seat with the variant in that seat (the probe seat) and PIMC at its
defaults in the others - the same deck orders, and the same search seeds in
the other seats.  Per deal, the variant's result minus the baseline's in the
same seat, averaged over the seats, is one observation; the table gives its
mean and 95% interval over the deals (``training.stats.paired_test``).

The variants of the probe seat:

* ``true deal`` - PIMC whose every world is the true state, cloned: perfect
  inference, the ceiling of any inference lever.  It **cheats** (it reads the
  hidden hands) and lives only here: no policy spec or ``make_policy`` name
  builds it.
* ``worlds xK`` - PIMC with K times its default worlds: the same uniform
  worlds, more of them.
* ``rollout: random`` / ``rollout: heuristic`` - PIMC whose rollouts are played
  by uniform random moves or by the game's full heuristic instead of the
  game's default rollout player (a variant equal to the default is left out).
  The shipped network (``bot:<game>``) as rollout player is not offered: its
  manifest pins the full game's rule options, so it refuses these one-round
  tables.

The measure per game: points per round (Wizard, Wunder Punkt, Hoch & Tief),
tasks checked in the round (Geheimtrumpf), win share of the deal under the
game's winner rule (Silberne Ananas, where the middle total wins).

Think time per decision (decisions with two or more legal actions; PIMC
answers a forced move at once) is measured in the same run: the probe seat's
for each variant, every seat's in the baseline games for PIMC at its
defaults, so a variant that is better only because it thinks longer shows.
Times are wall clock of one worker process and depend on the machine's load;
compare them within a run.  Results (not times) are deterministic for a seed
and a number of deals, whatever the number of workers.

The default seed, 424242, is used by no training config (they all use 0) and
by no other measurement in the project.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import stichzoo.policies.lab  # noqa: F401  (a lab probe: registers the lab's spec options)
from stichzoo.envs.core.game import Game, GameState, win_share
from stichzoo.envs.registry import game_class
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision, Policy
from stichzoo.policies.specs import build_policy, game_policy_module
from stichzoo.training.evaluation.report import format_interval
from stichzoo.training.evaluation.stats import paired_test

#: one round per game: the table and what is scored
TABLES = {
    "wizard": ({"num_players": 4, "rounds": [8]}, "points"),
    "wunder_punkt": ({"num_players": 4, "rounds": 1}, "points"),
    "silberne_ananas": ({"match": False}, "win share"),
    "hoch_tief": ({"num_players": 4, "rounds": 1}, "points"),
    "geheimtrumpf": ({"num_players": 4, "round_limit": 1}, "tasks"),
}
DEFAULT_SEED = 424242


def make_game(name: str) -> Game:
    cls = game_class(name)
    return cls(cls.Options(**TABLES[name][0]))


def derive(*parts: int) -> int:
    """A seed for one deal (and seat) of a run: deterministic, independent of the workers."""
    return random.Random("/".join(map(str, parts))).getrandbits(31)


def result(state: GameState, seat: int, measure: str) -> float:
    if measure == "win share":
        return win_share(state.winners(), state.num_players)[seat]
    return float(state.totals[seat])


# -- the variants ---------------------------------------------------------------------


def true_deal_pimc(game: Game, seed: int) -> Policy:
    """PIMC at its defaults whose every world is the true state: a CHEATING probe.

    The search gets a copy of the game whose ``determinize`` hands back the
    true state, cloned, instead of re-dealing what the seat cannot see; the
    number of worlds stays the default, so the rollouts' noise is averaged as
    in the baseline and only the inference differs - unless the rollout
    player is deterministic (Wunder Punkt's heuristic): then every world is
    played out alike, one line per action, and the probe is no ceiling
    (docs/lab/ceilings.md).  Never a bot: it reads the hidden hands.
    """
    policy = make_policy("pimc", game, seed=seed)
    seeing = copy.copy(game)
    seeing.determinize = lambda state, seat, rng: state.clone()
    policy.game = seeing
    policy.name = "pimc (true deal - cheating probe)"
    return policy


def _rollout_random(game: Game, seed: int) -> Policy:
    policy = make_policy("pimc", game, seed=seed)
    policy.rollout = None  # PIMC's own uniform random play-out
    return policy


def _rollout_heuristic(game: Game, seed: int) -> Policy:
    heuristic = game_policy_module(game.name).Heuristic(game, seed=seed)
    return make_policy("pimc", game, seed=seed, rollout=heuristic)


def default_rollout(game: Game) -> str:
    """Which player the game's PIMC rolls out with: random, heuristic or a rollout player."""
    module = game_policy_module(game.name)
    if not hasattr(module, "rollout_policy"):
        return "random"
    rollout = module.rollout_policy(game, 0)
    if type(rollout) is module.Heuristic:
        return "heuristic"
    return type(rollout).__name__


#: the variants' names on the command line (``--variants``), in the table's order
VARIANTS = ("true_deal", "worlds", "random", "heuristic")


def variants(game: Game, worlds_factor: int,
             chosen=VARIANTS) -> dict[str, Callable[[Game, int], Policy]]:
    """The ``chosen`` variants for ``game`` by their table label; a rollout player equal to the
    game's default is left out."""
    worlds = game_policy_module(game.name).SEARCH_DEFAULTS["worlds"]
    default = default_rollout(game)
    out: dict[str, Callable[[Game, int], Policy]] = {}
    if "true_deal" in chosen:
        out["true deal (cheating probe)"] = true_deal_pimc
    if "worlds" in chosen:
        out[f"worlds x{worlds_factor} ({worlds * worlds_factor})"] = \
            lambda g, s: make_policy("pimc", g, seed=s, worlds=worlds * worlds_factor)
    if "random" in chosen and default != "random":
        out["rollout: random"] = _rollout_random
    if "heuristic" in chosen and default != "heuristic":
        out["rollout: heuristic"] = _rollout_heuristic
    for spec in chosen:
        if ":" in spec:  # a policy spec of its own (--specs): e.g. pimc:infer=1
            out[spec] = lambda g, s, spec=spec: build_policy(spec, g, seed=s)
    return out


# -- playing ----------------------------------------------------------------------------


def play(game: Game, deck_orders, bots: list[Policy], timed: set[int],
         measure: str) -> tuple[list[float], list[float]]:
    """One round: each seat's result and the think times (ms) of the ``timed`` seats' decisions
    with two or more legal actions."""
    s = game.new_state(deck_orders)
    times: list[float] = []
    while not (s.over or s.truncated):
        seat = s.current_player
        decision = Decision(game, s)
        if seat in timed and s.legal_mask() & (s.legal_mask() - 1):
            t = time.perf_counter()
            action = bots[seat].act(decision)
            times.append((time.perf_counter() - t) * 1000)
        else:
            action = bots[seat].act(decision)
        s.apply(action)
    return [result(s, seat, measure) for seat in range(game.num_players)], times


def play_deal(task: tuple[str, int, int, int, tuple[str, ...]]) -> dict:
    """One deal of one game: the baseline round and every variant in every seat."""
    name, seed, deal, worlds_factor, chosen, *rest = task
    baseline = rest[0] if rest else "pimc"
    game = make_game(name)
    measure = TABLES[name][1]
    n = game.num_players
    deck_orders = game.deal(random.Random(derive(seed, deal)))
    seeds = [derive(seed, deal, seat) for seat in range(n)]

    def defaults() -> list[Policy]:  # --baseline: PIMC at its defaults unless told otherwise
        if baseline != "pimc":
            return [build_policy(baseline, game, seed=seeds[seat], cache=False)
                    for seat in range(n)]
        return [make_policy("pimc", game, seed=seeds[seat]) for seat in range(n)]

    base, base_times = play(game, deck_orders, defaults(), set(range(n)), measure)
    out = {"deal": deal, "baseline": base, "baseline_ms": base_times, "variants": {}}
    for label, build in variants(game, worlds_factor, chosen).items():
        diffs, times = [], []
        for seat in range(n):
            bots = defaults()
            bots[seat] = build(game, seeds[seat])
            results, ms = play(game, deck_orders, bots, {seat}, measure)
            diffs.append(results[seat] - base[seat])
            times += ms
        out["variants"][label] = {"diff": statistics.fmean(diffs), "ms": times}
    return out


def probe(name: str, deals: int, seed: int, workers: int, worlds_factor: int = 4,
          chosen: tuple[str, ...] = VARIANTS, baseline: str = "pimc") -> dict:
    """Every deal of one game (over ``workers`` processes), summarised per variant."""
    tasks = [(name, seed, d, worlds_factor, tuple(chosen), baseline) for d in range(deals)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            per_deal = list(pool.map(play_deal, tasks))
    else:
        per_deal = [play_deal(t) for t in tasks]
    game = make_game(name)
    measure = TABLES[name][1]
    bounds = (-1.0, 1.0) if measure == "win share" else None
    base_ms = [t for d in per_deal for t in d["baseline_ms"]]
    rows = []
    for label in per_deal[0]["variants"]:
        diffs = [d["variants"][label]["diff"] for d in per_deal]
        ms = [t for d in per_deal for t in d["variants"][label]["ms"]]
        rows.append({"variant": label, "difference": paired_test(diffs, bounds), "diffs": diffs,
                     "think_ms": statistics.fmean(ms) if ms else None, "decisions": len(ms)})
    baseline = [statistics.fmean(d["baseline"]) for d in per_deal]
    return {"game": name, "table": TABLES[name][0], "measure": measure, "deals": deals,
            "seats": game.num_players, "seed": seed, "worlds_factor": worlds_factor,
            "defaults": {**game_policy_module(name).SEARCH_DEFAULTS,
                         "rollout": default_rollout(game)}, "baseline_spec": baseline,
            "baseline": {"mean": statistics.fmean(baseline),
                         "think_ms": statistics.fmean(base_ms) if base_ms else None,
                         "decisions": len(base_ms)},
            "rows": rows}


# -- reporting --------------------------------------------------------------------------


def _fmt(measure: str) -> str:
    return "+.3f" if measure == "win share" else "+.2f"


def text_table(report: dict) -> list[str]:
    fmt = _fmt(report["measure"])
    base = report["baseline"]
    lines = [f"{report['game']} {report['table']}: {report['deals']} deals x "
             f"{report['seats']} seats, seed {report['seed']}; PIMC defaults "
             f"{report['defaults']}; baseline {report['measure']} per seat "
             f"{base['mean']:.3f}, think {base['think_ms']:.2f} ms/decision"]
    for row in report["rows"]:
        d = row["difference"]
        lines.append(f"  {row['variant']:36} {format_interval(d, fmt):28} {d['verdict']:16} "
                     f"{row['think_ms']:8.2f} ms ({row['think_ms'] / base['think_ms']:.2f}x)")
    return lines


def markdown_table(reports: list[dict]) -> list[str]:
    """One docs table for all games: a row per game and variant."""
    lines = ["| game (one round) | measure | variant vs PIMC at its defaults | difference "
             "[95% interval] | verdict | think ms/decision: variant / defaults |",
             "|---|---|---|---|---|---|"]
    for r in reports:
        fmt = _fmt(r["measure"])
        base_ms = r["baseline"]["think_ms"]
        for row in r["rows"]:
            d = row["difference"]
            lines.append(f"| {r['game']} ({r['deals']} deals x {r['seats']} seats) | "
                         f"{r['measure']} | {row['variant']} | {format_interval(d, fmt)} | "
                         f"{d['verdict']} | {row['think_ms']:.1f} / {base_ms:.1f} |")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(TABLES), choices=list(TABLES))
    ap.add_argument("--deals", type=int, default=48)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--workers", type=int, default=2, help="processes, one deal each at a time")
    ap.add_argument("--worlds-factor", type=int, default=4)
    ap.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=VARIANTS,
                    help="the probe seat's variants")
    ap.add_argument("--specs", nargs="+", default=[],
                    help="more variants of the probe seat, as policy specs (pimc:infer=1)")
    ap.add_argument("--markdown", help="write the docs table here")
    ap.add_argument("--json", help="write the full results here")
    ap.add_argument("--baseline", default="pimc",
                    help="the spec in the other seats and the baseline round (default: PIMC "
                         "at its defaults), e.g. pimc:worlds=24")
    args = ap.parse_args(argv)
    reports = []
    for name in args.games:
        t = time.perf_counter()
        report = probe(name, args.deals, args.seed, args.workers, args.worlds_factor,
                       tuple(args.variants) + tuple(args.specs), args.baseline)
        report["wall_s"] = round(time.perf_counter() - t, 1)
        reports.append(report)
        print("\n".join(text_table(report)) + f"\n  ({report['wall_s']} s)", flush=True)
        # written after every game, so a long run's finished games are kept
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write("\n".join(markdown_table(reports)) + "\n")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(reports, f, indent=1)


if __name__ == "__main__":
    main()
