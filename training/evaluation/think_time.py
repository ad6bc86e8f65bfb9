"""Think time per decision: searches side by side on the same positions, in one process.

A search is compared with another at equal think time (issue 29's rule), so
both must decide the same positions on the same machine at the same moment:
every decision with two or more legal actions from heuristic self-play games
(seeded), the specs taking turns position by position, so a change in the
machine's load hits them alike.  ``scripts/bench/search_time.py`` prints
these figures; the ladder's target match records them beside its result.
"""

from __future__ import annotations

import random
import statistics
import time

from stichzoo.envs.registry import GAMES, default_players, game_class
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy

#: the shipped bots' tables, on which the searches are timed
TABLES = {name: {"num_players": default_players(name)} for name in GAMES}


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


def think_ms(policies, game, states, clock=time.perf_counter) -> list[list[float]]:
    """Each policy's think time (ms) per state; the policies take turns on every state.

    ``clock``: wall time by default; ``time.process_time`` counts only the process's own CPU
    time, so a shared machine's preemptions (a whole time slice, ~10 ms, landing on a
    sub-millisecond decision) do not count."""
    times: list[list[float]] = [[] for _ in policies]
    for s in states:
        for policy, out in zip(policies, times):
            d = Decision(game, s)
            t = clock()
            policy.act(d)
            out.append((clock() - t) * 1000)
    return times


def compare(name: str, specs: list[str], decisions: int = 100,
            seed: int = 0, clock=time.perf_counter) -> dict[str, dict[str, float]]:
    """Each spec's mean, median and 95th percentile think time (ms) on ``decisions`` positions
    of game ``name`` (``{game}`` in a spec is the game's name; ``clock``: :func:`think_ms`)."""
    cls = game_class(name)
    game = cls(cls.Options(**TABLES[name]))
    states = positions(game, decisions, seed)
    specs = [spec.replace("{game}", name) for spec in specs]
    policies = [build_policy(spec, game, seed=seed, cache=False) for spec in specs]
    out = {}
    for spec, ms in zip(specs, think_ms(policies, game, states, clock)):
        ms = sorted(ms)
        out[spec] = {"mean": round(statistics.fmean(ms), 3),
                     "p50": round(statistics.median(ms), 3),
                     "p95": round(ms[int(0.95 * (len(ms) - 1))], 3)}
    return out
