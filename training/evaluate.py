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
"""

from __future__ import annotations

import importlib
import itertools
import json
import math
import os
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from stichzoo import envs
from stichzoo.envs.core.game import build_options
from stichzoo.policies import POLICY_NAMES, Decision, make_policy

MAX_ASSIGNMENTS = 24


# -- policy specs ------------------------------------------------------------------


def parse_policy_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=8,rollouts=2"`` -> ("pimc", {"worlds": 8, "rollouts": 2})."""
    name, _, args = spec.partition(":")
    kwargs: dict[str, Any] = {}
    if args:
        for item in args.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise ValueError(f"policy {spec!r}: arguments must look like key=value")
            try:
                kwargs[key] = json.loads(value)
            except json.JSONDecodeError:
                kwargs[key] = value
    if name not in POLICY_NAMES:
        raise ValueError(f"unknown policy {name!r}; known policies: {', '.join(POLICY_NAMES)}")
    return name, kwargs


_LOADED: dict[tuple, Any] = {}


def build_policy(spec: str, game, seed: int):
    """A fresh policy for ``spec``; trained networks are loaded once per process and reseeded."""
    name, kwargs = parse_policy_spec(spec)
    key = (spec, game.name, game.num_players)
    if name == "ppo" and key in _LOADED:
        policy = _LOADED[key]
        policy.reseed(seed)
        return policy
    try:
        policy = make_policy(name, game, seed=seed, **kwargs)
    except TypeError as e:
        raise ValueError(f"policy {spec!r}: {e}") from None
    if name == "ppo":
        _LOADED[key] = policy
    return policy


# -- the tournament ------------------------------------------------------------------


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
        build_options(cls.Options, self.game, opts)  # raises a clear ValueError
        if len(self.lineup) != self.players:
            raise ValueError(f"lineup has {len(self.lineup)} seats, the game {self.players}")
        for spec in self.lineup:
            parse_policy_spec(spec)
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


def play_deal(cfg: TournamentConfig, deal: int) -> list[dict]:
    """Play one deal under every seat assignment; one result per game."""
    cls = envs.game_class(cfg.game)
    game = cls(build_options(cls.Options, cfg.game, {**cfg.options, "num_players": cfg.players}))
    metrics_fn = _metrics_fn(cfg.game)
    deck_orders = game.deal(random.Random(_mix(cfg.seed, deal)))
    results = []
    for a, assignment in enumerate(seat_assignments(cfg.lineup)):
        bots = [build_policy(spec, game, seed=_mix(cfg.seed, deal, a, seat))
                for seat, spec in enumerate(assignment)]
        state = game.new_state(deck_orders, log=True)
        start = time.perf_counter()
        while not (state.over or state.truncated):
            seat = state.current_player
            action = bots[seat].act(Decision(game, state, seat))
            state.step(action)
        winners = state.winners()
        results.append({
            "deal": deal, "assignment": list(assignment), "totals": list(state.totals),
            "winners": winners, "truncated": state.truncated,
            "metrics": metrics_fn(state) if metrics_fn else None,
            "seconds": time.perf_counter() - start,
        })
    return results


def _metrics_fn(game: str):
    try:
        module = importlib.import_module(f"stichzoo.envs.{game}.metrics")
    except ModuleNotFoundError:
        return None
    return module.seat_metrics


def _play_chunk(args: tuple[TournamentConfig, list[int]]) -> list[dict]:
    cfg, deals = args
    if any(spec.startswith("ppo") for spec in cfg.lineup):
        import torch  # one thread per worker: the workers already use every core

        torch.set_num_threads(1)
    out = []
    for d in deals:
        out.extend(play_deal(cfg, d))
    return out


def run_tournament(cfg: TournamentConfig, progress: bool = True) -> dict:
    """Play ``cfg.deals`` deals in duplicate and return the report (see :func:`summarise`)."""
    workers = cfg.workers or os.cpu_count() or 1
    start = time.perf_counter()
    games: list[dict] = []
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=cfg.deals, desc=f"{cfg.game} {cfg.players}p", unit="deal")
        except ImportError:  # pragma: no cover - tqdm is in the eval extra
            bar = None
    if workers == 1:
        for d in range(cfg.deals):
            games.extend(play_deal(cfg, d))
            if bar:
                bar.update(1)
    else:
        chunk = max(1, min(8, cfg.deals // (workers * 4) or 1))
        jobs = [(cfg, list(range(i, min(i + chunk, cfg.deals))))
                for i in range(0, cfg.deals, chunk)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for res in pool.map(_play_chunk, jobs):
                games.extend(res)
                if bar:
                    bar.update(len({g["deal"] for g in res}))
    if bar:
        bar.close()
    games.sort(key=lambda g: (g["deal"], g["assignment"]))
    report = summarise(cfg, games)
    report["wall_seconds"] = time.perf_counter() - start
    report["workers"] = workers
    return report


# -- statistics ------------------------------------------------------------------------


def t_quantile(df: int) -> float:
    """Two-sided 97.5% quantile of Student's t (scipy if present, else a close series)."""
    try:
        from scipy.stats import t

        return float(t.ppf(0.975, df))
    except ImportError:  # pragma: no cover - scipy is in the eval extra
        z = 1.959963984540054
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        return z + g1 / df + g2 / df**2


def mean_ci(values: list[float]) -> dict[str, float]:
    """Mean and 95% t-interval over independent observations (here: deals)."""
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return {"mean": mean, "lo": float("nan"), "hi": float("nan"), "n": n}
    half = t_quantile(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": n}


def paired_test(diffs: list[float]) -> dict[str, float]:
    """Mean paired difference, its 95% interval and the two-sided t-test p-value."""
    out = mean_ci(diffs)
    n = len(diffs)
    sd = statistics.stdev(diffs) if n > 1 else 0.0
    if n < 2 or sd == 0:
        out["p_value"] = 0.0 if (n > 1 and out["mean"] != 0) else 1.0
        return out
    tstat = out["mean"] / (sd / math.sqrt(n))
    try:
        from scipy.stats import t

        out["p_value"] = float(2 * t.sf(abs(tstat), n - 1))
    except ImportError:  # pragma: no cover
        out["p_value"] = math.erfc(abs(tstat) / math.sqrt(2))
    out["t"] = tstat
    return out


def summarise(cfg: TournamentConfig, games: list[dict]) -> dict:
    policies = list(dict.fromkeys(cfg.lineup))
    per_deal_score: dict[str, dict[int, list[float]]] = {p: {} for p in policies}
    per_deal_win: dict[str, dict[int, list[float]]] = {p: {} for p in policies}
    metric_sums: dict[str, dict[str, list[float]]] = {p: {} for p in policies}
    for g in games:
        winners = g["winners"]
        for seat, spec in enumerate(g["assignment"]):
            per_deal_score[spec].setdefault(g["deal"], []).append(g["totals"][seat])
            share = 1 / len(winners) if seat in winners else 0.0
            per_deal_win[spec].setdefault(g["deal"], []).append(share)
            if g["metrics"]:
                for key, value in g["metrics"][seat].items():
                    metric_sums[spec].setdefault(key, []).append(value)
    deals = sorted({g["deal"] for g in games})
    summary: dict[str, Any] = {}
    for p in policies:
        scores = [statistics.fmean(per_deal_score[p][d]) for d in deals]
        wins = [statistics.fmean(per_deal_win[p][d]) for d in deals]
        summary[p] = {
            "score": mean_ci(scores),
            "win_rate": mean_ci(wins),
            "seats_played": sum(len(v) for v in per_deal_score[p].values()),
            "metrics": {k: statistics.fmean(v) for k, v in metric_sums[p].items()},
        }
    baseline = cfg.baseline or (cfg.lineup[-1] if len(policies) > 1 else None)
    versus = {}
    if baseline is not None:
        for p in policies:
            if p == baseline:
                continue
            diffs = [statistics.fmean(per_deal_score[p][d])
                     - statistics.fmean(per_deal_score[baseline][d]) for d in deals]
            wdiffs = [statistics.fmean(per_deal_win[p][d])
                      - statistics.fmean(per_deal_win[baseline][d]) for d in deals]
            versus[p] = {"score_difference": paired_test(diffs),
                         "win_rate_difference": paired_test(wdiffs)}
    return {
        "config": asdict(cfg),
        "games": len(games),
        "deals": len(deals),
        "assignments": [list(a) for a in seat_assignments(cfg.lineup)],
        "policies": summary,
        "baseline": baseline,
        "versus_baseline": versus,
        "ratings": openskill_ratings(games, policies),
        "truncated_games": sum(g["truncated"] for g in games),
        "mean_game_seconds": statistics.fmean(g["seconds"] for g in games),
    }


def openskill_ratings(games: list[dict], policies: list[str]) -> dict[str, dict[str, float]]:
    """Plackett-Luce ratings: each game ranks the policies at the table by mean seat score."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # pragma: no cover - openskill is in the eval extra
        return {}
    model = PlackettLuce()
    ratings = {p: model.rating(name=p) for p in policies}
    for g in games:
        at_table = list(dict.fromkeys(g["assignment"]))
        if len(at_table) < 2:
            continue
        scores = [statistics.fmean(g["totals"][s] for s, spec in enumerate(g["assignment"])
                                   if spec == p) for p in at_table]
        new = model.rate([[ratings[p]] for p in at_table], scores=scores)
        for p, team in zip(at_table, new):
            ratings[p] = team[0]
    return {p: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for p, r in ratings.items()}


# -- output --------------------------------------------------------------------------------


def format_report(report: dict) -> str:
    cfg = report["config"]
    lines = [
        f"{cfg['game']} {cfg['players']}p: {report['games']} games = {report['deals']} deals x "
        f"{len(report['assignments'])} seat assignments, seed {cfg['seed']}, "
        f"{report['wall_seconds']:.0f} s on {report['workers']} workers",
        f"{'policy':<28}{'mean score [95% CI]':>30}{'win rate [95% CI]':>26}{'openskill':>11}",
    ]
    for p, s in report["policies"].items():
        sc, wr = s["score"], s["win_rate"]
        rating = report["ratings"].get(p, {}).get("ordinal", float("nan"))
        lines.append(f"{p:<28}{sc['mean']:>10.2f} [{sc['lo']:>8.2f},{sc['hi']:>8.2f}]"
                     f"{wr['mean']:>8.3f} [{wr['lo']:.3f},{wr['hi']:.3f}]{rating:>11.2f}")
    for p, v in report["versus_baseline"].items():
        for key, label, fmt in (("score_difference", "score", "+.2f"),
                                ("win_rate_difference", "win rate", "+.3f")):
            d = v[key]
            verdict = "significant" if d["lo"] > 0 or d["hi"] < 0 else "not significant"
            lines.append(f"{p} - {report['baseline']}: {label} {d['mean']:{fmt}} "
                         f"[{d['lo']:{fmt}}, {d['hi']:{fmt}}], p = {d['p_value']:.2g} "
                         f"({verdict})")
    for p, s in report["policies"].items():
        if s["metrics"]:
            shown = ", ".join(f"{k} {v:.3f}" for k, v in s["metrics"].items())
            lines.append(f"{p}: {shown}")
    return "\n".join(lines)


def write_outputs(report: dict, out_dir: str) -> list[str]:
    """``report.json`` and ``report.png`` (mean score and win rate with 95% intervals)."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, "report.json")]
    with open(paths[0], "w") as f:
        json.dump(report, f, indent=1)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is in the eval extra
        return paths
    names = list(report["policies"])
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, key, title in ((axes[0], "score", "mean game score"),
                           (axes[1], "win_rate", "win rate")):
        vals = [report["policies"][p][key] for p in names]
        means = [v["mean"] for v in vals]
        errs = [[v["mean"] - v["lo"] for v in vals], [v["hi"] - v["mean"] for v in vals]]
        ax.bar(names, means, yerr=errs, capsize=6, color="#4c72b0")
        ax.set_title(f"{title} (95% CI)")
        ax.tick_params(axis="x", rotation=20)
    cfg = report["config"]
    fig.suptitle(f"{cfg['game']} {cfg['players']}p - {report['games']} games "
                 f"({report['deals']} deals, duplicate)")
    fig.tight_layout()
    paths.append(os.path.join(out_dir, "report.png"))
    fig.savefig(paths[1], dpi=110)
    plt.close(fig)
    return paths
