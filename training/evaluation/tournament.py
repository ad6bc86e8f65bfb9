"""Duplicate tournaments: any policies, any game, numbers you can trust.

Card luck dominates single games, so every deal is played once per seat
assignment of the lineup (duplicate play): with a lineup of one candidate
and three baselines at a 4-player table, each deal is played four times
with the candidate in each seat.  Luck then cancels inside a deal, and all
statistics treat the *deal* as the unit of sampling: per deal, each policy's
mean score (and win share) over all its seats and assignments is one
observation; means, 95% intervals and the paired test against the baseline
are taken over deals.  This keeps the intervals honest - the games of one
deal are not independent.

Games run on the raw rules core (no env wrappers) on all CPU cores; every
random choice is seeded from (tournament seed, deal, assignment, seat), so a
tournament is reproducible whatever the number of workers.

The report a tournament returns (:func:`summarise`) holds every number with
its 95% interval; :mod:`stichzoo.training.evaluation.stats` says how each is estimated
and :mod:`stichzoo.training.evaluation.report` prints and plots it.
"""

from __future__ import annotations

import itertools
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

from stichzoo import envs
from stichzoo.envs.core.game import build_options
from stichzoo.envs.core.record import build_record
from stichzoo.envs.registry import metrics_of
from stichzoo.policies import Decision
from stichzoo.policies.outside import forfeits_of
from stichzoo.policies.specs import build_policy
from stichzoo.training.evaluation.stats import (
    METHODS,
    duplicate_ratings,
    mean_ci,
    openskill_ratings,
    paired_test,
    wilson_interval,
)
from stichzoo.training.runs import is_terminal

MAX_ASSIGNMENTS = 24

@dataclass
class TournamentConfig:
    game: str
    players: int
    lineup: list[str]
    deals: int
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    baseline: str | None = None
    workers: int = 0  # 0: all CPU cores

    def __post_init__(self):
        cls = envs.game_class(self.game)
        opts = {**self.options, "num_players": self.players}
        game = cls(build_options(cls.Options, self.game, opts))  # a clear ValueError
        if len(self.lineup) != self.players:
            raise ValueError(f"lineup has {len(self.lineup)} seats, the game {self.players}")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int):
            raise ValueError(f"deals must be an integer, not {self.deals!r}")
        for spec in dict.fromkeys(self.lineup):
            build_policy(spec, game, seed=0, cache=False)  # fails here, not in a worker
        if self.deals < 1:
            raise ValueError("deals must be at least 1")
        if self.baseline is not None and self.baseline not in self.lineup:
            raise ValueError(f"baseline {self.baseline!r} is not in the lineup {self.lineup}")


def default_lineup(policies: list[str], players: int) -> list[str]:
    """The first policy in one seat, the others filling the rest in turn.

    ``[A, B]`` at four seats -> ``A B B B``: A is measured against a table of B.
    ``[A, B, C, D]`` -> ``A B C D``.
    """
    if not policies:
        raise ValueError("name at least one policy")
    if len(policies) > players:
        raise ValueError(f"{len(policies)} policies for {players} seats")
    rest = policies[1:] or policies
    return [policies[0]] + [rest[i % len(rest)] for i in range(players - 1)]


def seat_assignments(lineup: list[str]) -> list[tuple[str, ...]]:
    """Every distinct arrangement of the lineup over the seats (rotations if too many)."""
    distinct = sorted(set(itertools.permutations(lineup)))
    if len(distinct) <= MAX_ASSIGNMENTS:
        return distinct
    n = len(lineup)
    return [tuple(lineup[(i + r) % n] for i in range(n)) for r in range(n)]


def _mix(*parts: int) -> int:
    h = 0x9E3779B97F4A7C15
    for p in parts:
        h = (h ^ (p + 0x632BE59BD9B4E019 + (h << 6) + (h >> 2))) & ((1 << 63) - 1)
    return h


def play_out(game, state, bots: list, watch: Callable[[Any], object] | None = None) -> None:
    """Play ``state`` to its end, each seat's bot choosing its actions.

    The one game loop of stichzoo's games between bots: the tournament's, and the fitters'
    self-play (:mod:`stichzoo.training.fit.self_play`), whose ``watch`` sees the state before
    every decision (the state itself, live: what it keeps, it copies).
    """
    while not (state.over or state.truncated):
        if watch is not None:
            watch(state)
        seat = state.current_player
        state.step(bots[seat].act(Decision(game, state, seat)))


def play_game(cfg: TournamentConfig, deal: int, assignment_index: int,
              record: bool = False) -> dict:
    """Play one deal under one seat assignment; the game's result (and its ``record``,
    ``docs/records.md``, when asked: it replays, seed included, and converts to a dataset)."""
    cls = envs.game_class(cfg.game)
    game = cls(build_options(cls.Options, cfg.game, {**cfg.options, "num_players": cfg.players}))
    metrics_fn = _metrics_fn(cfg.game)
    assignment = seat_assignments(cfg.lineup)[assignment_index]
    deck_orders = game.deal(random.Random(_mix(cfg.seed, deal)))
    bots = [build_policy(spec, game, seed=_mix(cfg.seed, deal, assignment_index, seat))
            for seat, spec in enumerate(assignment)]
    state = game.new_state(deck_orders, log=True)
    start = time.perf_counter()
    play_out(game, state, bots)
    seconds = time.perf_counter() - start
    result = {
        "deal": deal, "assignment": list(assignment), "totals": list(state.totals),
        "winners": state.winners(), "placement": state.placement(),
        "truncated": state.truncated,
        "metrics": metrics_fn(state) if metrics_fn else None,
        "seconds": seconds,
        # an outside bot that timed out, crashed or answered wrong (policies/outside.py)
        "forfeits": [{**f, "policy": assignment[f["seat"]]} for f in forfeits_of(bots)],
    }
    if record:
        result["record"] = build_record(game, state, seed=_mix(cfg.seed, deal))
    return result


def play_deal(cfg: TournamentConfig, deal: int) -> list[dict]:
    """Play one deal under every seat assignment; one result per game."""
    return [play_game(cfg, deal, a) for a in range(len(seat_assignments(cfg.lineup)))]


def _metrics_module(game: str):
    try:
        return metrics_of(game)
    except ModuleNotFoundError:
        return None


def _metrics_fn(game: str):
    module = _metrics_module(game)
    return module.seat_metrics if module else None


def _play_games(args: tuple[TournamentConfig, list[tuple[int, int]], bool]) -> list[dict]:
    cfg, jobs, record = args
    if any(spec.startswith("ppo") for spec in cfg.lineup):
        import torch  # one thread per worker: the workers already use every core

        torch.set_num_threads(1)
    return [play_game(cfg, d, a, record) for d, a in jobs]


def run_tournament(cfg: TournamentConfig, progress: bool = True,
                   records: bool = False) -> dict:
    """Play ``cfg.deals`` deals in duplicate and return the report (see :func:`summarise`).

    With ``records`` the report's ``records`` holds every game's record, in the order of
    the games (deal, then seat assignment).
    """
    start = time.perf_counter()
    games = play_games(cfg, progress, records)
    report = summarise(cfg, games)
    if records:
        report["records"] = [g["record"] for g in games]
    report["wall_seconds"] = time.perf_counter() - start
    report["workers"] = cfg.workers or os.cpu_count() or 1
    return report


def play_games(cfg: TournamentConfig, progress: bool = True,
               records: bool = False) -> list[dict]:
    """Every game of the tournament: one result per deal and seat assignment, sorted.

    Games are handed to the workers in small batches and counted as they
    finish, so the progress bar (games, with an ETA) moves from the start.
    ``records``: each result also holds the game's record (:func:`play_game`).
    """
    workers = cfg.workers or os.cpu_count() or 1
    n_assign = len(seat_assignments(cfg.lineup))
    jobs = [(d, a) for d in range(cfg.deals) for a in range(n_assign)]
    games: list[dict] = []
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            # in a log file (not a terminal) a redraw every 30 s, not ten a second
            bar = tqdm(total=len(jobs), desc=f"{cfg.game} {cfg.players}p", unit="game",
                       dynamic_ncols=True, mininterval=0.1 if is_terminal(sys.stderr) else 30.0)
        except ImportError:  # pragma: no cover - tqdm is in the eval extra
            bar = None
    if workers == 1:
        for d, a in jobs:
            games.append(play_game(cfg, d, a, records))
            if bar:
                bar.update(1)
    else:
        import multiprocessing

        batch = max(1, min(4, len(jobs) // (workers * 8)))
        batches = [jobs[i:i + batch] for i in range(0, len(jobs), batch)]
        # forkserver: workers never inherit a parent's torch or onnxruntime threads
        context = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = [pool.submit(_play_games, (cfg, b, records)) for b in batches]
            for future in as_completed(futures):
                res = future.result()
                games.extend(res)
                if bar:
                    bar.update(len(res))
    if bar:
        bar.close()
    games.sort(key=lambda g: (g["deal"], g["assignment"]))
    return games



def _metric_interval(values: list[float], proportion: bool, trials: int) -> dict:
    return wilson_interval(values, trials=trials) if proportion else mean_ci(values)


def summarise(cfg: TournamentConfig, games: list[dict]) -> dict:
    policies = list(dict.fromkeys(cfg.lineup))
    per_deal_score: dict[str, dict[int, list[float]]] = {p: {} for p in policies}
    per_deal_win: dict[str, dict[int, list[float]]] = {p: {} for p in policies}
    per_deal_metric: dict[str, dict[str, dict[int, list[float]]]] = {p: {} for p in policies}
    for g in games:
        winners = g["winners"]
        for seat, spec in enumerate(g["assignment"]):
            per_deal_score[spec].setdefault(g["deal"], []).append(g["totals"][seat])
            share = 1 / len(winners) if seat in winners else 0.0
            per_deal_win[spec].setdefault(g["deal"], []).append(share)
            if g["metrics"]:
                for key, value in g["metrics"][seat].items():
                    per_deal_metric[spec].setdefault(key, {}).setdefault(g["deal"], []).append(
                        value)
    deals = sorted({g["deal"] for g in games})
    module = _metrics_module(cfg.game)
    proportions = set(getattr(module, "PROPORTIONS", ()))

    def by_deal(table: dict[int, list[float]]) -> list[float]:
        return [statistics.fmean(table[d]) for d in deals]

    summary: dict[str, Any] = {}
    for p in policies:
        self_play = len(policies) == 1
        seats = sum(len(v) for v in per_deal_score[p].values())
        summary[p] = {
            "score": mean_ci(by_deal(per_deal_score[p])),
            "win_rate": None if self_play else wilson_interval(by_deal(per_deal_win[p]),
                                                               trials=seats),
            "seats_played": seats,
            "metrics": {k: _metric_interval(by_deal(v), k in proportions, seats)
                        for k, v in per_deal_metric[p].items()},
        }
    objective = "win_rate" if getattr(module, "WIN_RATE_DECIDES", False) else "score"
    baseline = cfg.baseline or (cfg.lineup[-1] if len(policies) > 1 else None)
    versus = {}
    if baseline is not None:
        for p in policies:
            if p == baseline:
                continue
            diffs = [a - b for a, b in zip(by_deal(per_deal_score[p]),
                                           by_deal(per_deal_score[baseline]))]
            wdiffs = [a - b for a, b in zip(by_deal(per_deal_win[p]),
                                            by_deal(per_deal_win[baseline]))]
            versus[p] = {"score_difference": paired_test(diffs),
                         "win_rate_difference": paired_test(wdiffs, bounds=(-1.0, 1.0))}
    return {
        "config": asdict(cfg),
        "games": len(games),
        "deals": len(deals),
        "assignments": [list(a) for a in seat_assignments(cfg.lineup)],
        "policies": summary,
        "baseline": baseline,
        "versus_baseline": versus,
        "ratings": openskill_ratings(games, policies, objective),
        "duplicate_ratings": duplicate_ratings(games, policies, objective),
        "key_metric": getattr(module, "KEY_METRIC", None),
        "objective": objective,
        "methods": METHODS,
        "truncated_games": sum(g["truncated"] for g in games),
        "forfeits": forfeit_counts(games),
        "mean_game_seconds": statistics.fmean(g["seconds"] for g in games),
    }


def forfeit_counts(games: list[dict]) -> dict[str, dict]:
    """Per policy that forfeited: the games it forfeited, by reason, and the first message
    (an outside bot's forfeit, :mod:`stichzoo.policies.outside`)."""
    out: dict[str, dict] = {}
    for g in games:
        for f in g.get("forfeits", ()):
            entry = out.setdefault(f["policy"], {"games": 0, "reasons": {}, "first": None})
            entry["games"] += 1
            entry["reasons"][f["reason"]] = entry["reasons"].get(f["reason"], 0) + 1
            if entry["first"] is None:
                entry["first"] = (f"deal {g['deal']}, seat {f['seat']}, decision "
                                  f"{f['decision']}: {f['reason']}: {f['message']}")
    return out


__all__ = ["MAX_ASSIGNMENTS", "TournamentConfig", "default_lineup", "forfeit_counts", "play_deal",
           "play_game", "play_games", "play_out", "run_tournament", "seat_assignments", "summarise"]
