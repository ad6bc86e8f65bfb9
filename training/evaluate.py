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

Intervals (95%), chosen to stay valid at the bounds and for few deals:

* shares in [0, 1] - a policy's win rate, metrics that are rates - use the
  Wilson score interval, never outside [0, 1] and valid at its ends, with
  the effective sample size of the deal-clustered games (Kish's design
  effect: p(1 - p) over the observed variance of the mean over deals),
  kept between the number of deals and the number of seat-games;
* mean scores, score and win-rate differences use Student's t over deals,
  clipped to the quantity's range, and only from ``MIN_DEALS`` deals on
  (fewer: "not enough deals", no verdict).  When every deal gives the same
  difference the t-interval would collapse to a point; a bounded difference
  then gets the Wilson interval of its range instead, an unbounded one no
  interval ("no variation between deals") - never a significance claim
  from zero spread;
* a policy that fills every seat (self-play) has no win rate to estimate
  (it is 1/n by construction) and no rating.

Ratings (openskill Plackett-Luce) follow each game's own outcome: a game
ranks the policies at the table by the mean placement of their seats, the
placement by the game's winner rule (``GameState.placement``: in Silberne
Ananas the middle total wins), shared wins tied.

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
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

from stichzoo import envs
from stichzoo.envs.core.game import build_options
from stichzoo.policies import Decision

# re-exported: tournaments and their tests name specs from here too
from stichzoo.policies.specs import build_policy, parse_policy_spec  # noqa: F401

MAX_ASSIGNMENTS = 24
#: fewest deals from which a t-interval (and a verdict) is reported
MIN_DEALS = 20


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


def play_game(cfg: TournamentConfig, deal: int, assignment_index: int) -> dict:
    """Play one deal under one seat assignment; the game's result."""
    cls = envs.game_class(cfg.game)
    game = cls(build_options(cls.Options, cfg.game, {**cfg.options, "num_players": cfg.players}))
    metrics_fn = _metrics_fn(cfg.game)
    assignment = seat_assignments(cfg.lineup)[assignment_index]
    deck_orders = game.deal(random.Random(_mix(cfg.seed, deal)))
    bots = [build_policy(spec, game, seed=_mix(cfg.seed, deal, assignment_index, seat))
            for seat, spec in enumerate(assignment)]
    state = game.new_state(deck_orders, log=True)
    start = time.perf_counter()
    while not (state.over or state.truncated):
        seat = state.current_player
        state.step(bots[seat].act(Decision(game, state, seat)))
    return {
        "deal": deal, "assignment": list(assignment), "totals": list(state.totals),
        "winners": state.winners(), "placement": state.placement(),
        "truncated": state.truncated,
        "metrics": metrics_fn(state) if metrics_fn else None,
        "seconds": time.perf_counter() - start,
    }


def play_deal(cfg: TournamentConfig, deal: int) -> list[dict]:
    """Play one deal under every seat assignment; one result per game."""
    return [play_game(cfg, deal, a) for a in range(len(seat_assignments(cfg.lineup)))]


def _metrics_module(game: str):
    try:
        return importlib.import_module(f"stichzoo.envs.{game}.metrics")
    except ModuleNotFoundError:
        return None


def _metrics_fn(game: str):
    module = _metrics_module(game)
    return module.seat_metrics if module else None


def _play_games(args: tuple[TournamentConfig, list[tuple[int, int]]]) -> list[dict]:
    cfg, jobs = args
    if any(spec.startswith("ppo") for spec in cfg.lineup):
        import torch  # one thread per worker: the workers already use every core

        torch.set_num_threads(1)
    return [play_game(cfg, d, a) for d, a in jobs]


def run_tournament(cfg: TournamentConfig, progress: bool = True) -> dict:
    """Play ``cfg.deals`` deals in duplicate and return the report (see :func:`summarise`).

    Games are handed to the workers in small batches and counted as they
    finish, so the progress bar (games, with an ETA) moves from the start.
    """
    workers = cfg.workers or os.cpu_count() or 1
    start = time.perf_counter()
    n_assign = len(seat_assignments(cfg.lineup))
    jobs = [(d, a) for d in range(cfg.deals) for a in range(n_assign)]
    games: list[dict] = []
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(jobs), desc=f"{cfg.game} {cfg.players}p", unit="game",
                       dynamic_ncols=True)
        except ImportError:  # pragma: no cover - tqdm is in the eval extra
            bar = None
    if workers == 1:
        for d, a in jobs:
            games.append(play_game(cfg, d, a))
            if bar:
                bar.update(1)
    else:
        import multiprocessing

        batch = max(1, min(4, len(jobs) // (workers * 8)))
        batches = [jobs[i:i + batch] for i in range(0, len(jobs), batch)]
        # forkserver: workers never inherit a parent's torch or onnxruntime threads
        context = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = [pool.submit(_play_games, (cfg, b)) for b in batches]
            for future in as_completed(futures):
                res = future.result()
                games.extend(res)
                if bar:
                    bar.update(len(res))
    if bar:
        bar.close()
    games.sort(key=lambda g: (g["deal"], g["assignment"]))
    report = summarise(cfg, games)
    report["wall_seconds"] = time.perf_counter() - start
    report["workers"] = workers
    return report


# -- statistics ------------------------------------------------------------------------

Z95 = 1.959963984540054


def t_quantile(df: int) -> float:
    """Two-sided 97.5% quantile of Student's t (scipy if present, else a close series)."""
    try:
        from scipy.stats import t

        return float(t.ppf(0.975, df))
    except ImportError:  # pragma: no cover - scipy is in the eval extra
        z = Z95
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        return z + g1 / df + g2 / df**2


def _clip(x: float, bounds: tuple[float, float] | None) -> float:
    return x if bounds is None else min(max(x, bounds[0]), bounds[1])


def wilson_interval(values: list[float], bounds: tuple[float, float] = (0.0, 1.0),
                    trials: int | None = None) -> dict:
    """Mean of per-deal values in ``bounds`` and its 95% Wilson score interval.

    The sample size is the effective one of the deal-clustered design
    (Kish): ``p(1 - p)`` over the observed variance of the mean over deals,
    kept between the number of deals (every deal one Bernoulli draw: the
    largest variance a [0, 1] quantity can have) and ``trials`` (every
    seat-game independent).  Below ``MIN_DEALS`` deals, or without
    ``trials``, the number of deals is used.  The interval never leaves
    the range and stays valid at its ends.
    """
    n = len(values)
    mean = statistics.fmean(values)
    a, b = bounds
    p = min(max((mean - a) / (b - a), 0.0), 1.0)
    n_eff = float(n)
    if trials is not None and trials > n and n >= MIN_DEALS:
        var_mean = statistics.variance([(v - a) / (b - a) for v in values]) / n
        n_eff = trials if var_mean == 0 else min(max(p * (1 - p) / var_mean, n), trials)
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n_eff)) / (1 + z2 / n_eff)
    half = Z95 * math.sqrt(p * (1 - p) / n_eff + z2 / (4 * n_eff * n_eff)) / (1 + z2 / n_eff)
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    lo, hi = (0.0 if p == 0 else lo), (1.0 if p == 1 else hi)  # exact at the bounds
    return {"mean": mean, "lo": a + lo * (b - a), "hi": a + hi * (b - a), "n": n,
            "n_effective": round(n_eff, 1), "method": "wilson"}


def mean_ci(values: list[float], bounds: tuple[float, float] | None = None) -> dict:
    """Mean and 95% t-interval over independent observations (here: deals).

    Fewer than ``MIN_DEALS`` observations give no interval (``lo``/``hi``
    None), and the interval is clipped to ``bounds`` when the quantity has
    a range.
    """
    n = len(values)
    mean = statistics.fmean(values)
    if n < MIN_DEALS:
        return {"mean": mean, "lo": None, "hi": None, "n": n,
                "method": f"not enough deals (n < {MIN_DEALS})"}
    half = t_quantile(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return {"mean": mean, "lo": _clip(mean - half, bounds), "hi": _clip(mean + half, bounds),
            "n": n, "method": "t"}


def paired_test(diffs: list[float], bounds: tuple[float, float] | None = None) -> dict:
    """Mean paired difference, its 95% interval, the two-sided t-test and a verdict.

    See the module docstring for what happens with few deals or no spread.
    """
    out = mean_ci(diffs, bounds)
    out["p_value"] = None
    n = len(diffs)
    if out["lo"] is None:
        out["verdict"] = "not enough deals"
        return out
    sd = statistics.stdev(diffs)
    if sd == 0:
        if bounds is None:
            out.update(lo=None, hi=None, method="no variation between deals",
                       verdict="no variation between deals")
            return out
        w = wilson_interval(diffs, bounds)
        out.update(lo=w["lo"], hi=w["hi"], method="wilson (no variation between deals)")
    else:
        tstat = out["mean"] / (sd / math.sqrt(n))
        try:
            from scipy.stats import t

            out["p_value"] = float(2 * t.sf(abs(tstat), n - 1))
        except ImportError:  # pragma: no cover
            out["p_value"] = math.erfc(abs(tstat) / math.sqrt(2))
        out["t"] = tstat
    out["verdict"] = "significant" if out["lo"] > 0 or out["hi"] < 0 else "not significant"
    return out


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
        "ratings": openskill_ratings(games, policies),
        "key_metric": getattr(module, "KEY_METRIC", None),
        "objective": "win_rate" if getattr(module, "WIN_RATE_DECIDES", False) else "score",
        "methods": METHODS,
        "truncated_games": sum(g["truncated"] for g in games),
        "mean_game_seconds": statistics.fmean(g["seconds"] for g in games),
    }


METHODS = {
    "unit": "deal (every deal played under every seat assignment; its games are not "
            "independent)",
    "win_rate": "Wilson score interval; effective sample size p(1-p)/var(mean over deals), "
                "between the number of deals and of seat-games",
    "score": f"Student's t over deals; no interval below {MIN_DEALS} deals",
    "score_difference": f"paired t over deals; no interval below {MIN_DEALS} deals; none "
                        "when every deal gives the same difference",
    "win_rate_difference": f"paired t over deals, clipped to [-1, 1]; no interval below "
                           f"{MIN_DEALS} deals; Wilson over [-1, 1] when every deal gives "
                           "the same difference",
    "metrics": "rates: Wilson as the win rate; other metrics: t over deals",
    "ratings": "openskill Plackett-Luce; each game ranks the policies at the table by the "
               "mean placement of their seats under the game's winner rule",
}


def openskill_ratings(games: list[dict], policies: list[str]) -> dict[str, dict[str, float]]:
    """Plackett-Luce ratings from each game's placement (see the module docstring)."""
    if len(policies) < 2:
        return {}  # self-play: nothing to rate
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
        ranks = [statistics.fmean(g["placement"][s] for s, spec in enumerate(g["assignment"])
                                  if spec == p) for p in at_table]
        new = model.rate([[ratings[p]] for p in at_table], ranks=ranks)
        for p, team in zip(at_table, new):
            ratings[p] = team[0]
    return {p: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for p, r in ratings.items()}


# -- output --------------------------------------------------------------------------------


def format_interval(d: dict | None, fmt: str) -> str:
    """``mean [lo, hi]`` as the report prints it; ``[n/a]`` where no interval could be had."""
    if d is None:
        return "n/a"
    if d["lo"] is None:
        return f"{d['mean']:{fmt}} [n/a]"
    return f"{d['mean']:{fmt}} [{d['lo']:{fmt}}, {d['hi']:{fmt}}]"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Columns as wide as their widest cell: long policy names stay aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths)))
    return [fmt(header), *(fmt(r) for r in rows)]


def format_report(report: dict) -> str:
    cfg = report["config"]
    lines = [
        f"{cfg['game']} {cfg['players']}p: {report['games']} games = {report['deals']} deals x "
        f"{len(report['assignments'])} seat assignments, seed {cfg['seed']}, "
        f"{report['wall_seconds']:.0f} s on {report['workers']} workers",
    ]
    rows = []
    for p, s in report["policies"].items():
        rating = report["ratings"].get(p)
        rows.append([p, format_interval(s["score"], ".2f"),
                     format_interval(s["win_rate"], ".3f") if s["win_rate"] else "n/a (self-play)",
                     f"{rating['ordinal']:.2f}" if rating else "n/a"])
    lines += _table(["policy", "mean score [95% CI]", "win rate [95% CI]", "openskill"], rows)
    for p, v in report["versus_baseline"].items():
        for key, label, fmt in (("score_difference", "score", "+.2f"),
                                ("win_rate_difference", "win rate", "+.3f")):
            d = v[key]
            p_text = f", p = {d['p_value']:.2g}" if d.get("p_value") is not None else ""
            lines.append(f"{p} - {report['baseline']}: {label} {format_interval(d, fmt)}{p_text} "
                         f"({d['verdict']})")
    for p, s in report["policies"].items():
        if s["metrics"]:
            shown = ", ".join(f"{k} {format_interval(v, '.3f')}" for k, v in s["metrics"].items())
            lines.append(f"{p}: {shown}")
    if report.get("objective") == "win_rate":
        lines.append(f"{cfg['game']}: the win rate decides (the score is not the objective)")
    lines.append("intervals: 95%, over deals; win rates Wilson, means and differences t "
                 f"(none below {MIN_DEALS} deals) - see report.json 'methods'")
    return "\n".join(lines)


def write_outputs(report: dict, out_dir: str) -> list[str]:
    """``report.json`` and ``report.png``: the paired differences and the key metric."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, "report.json")]
    with open(paths[0], "w") as f:
        json.dump(report, f, indent=1, allow_nan=False)
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:  # pragma: no cover - matplotlib is in the eval extra
        return paths
    paths.append(os.path.join(out_dir, "report.png"))
    plot_report(report, paths[1])
    return paths


def _errorbars(ax, labels: list[str], stats: list[dict | None], title: str, zero: bool):
    """Horizontal points with 95% interval bars, one row per label; rows without one marked."""
    ys = list(range(len(labels)))[::-1]
    labels = [lab if len(lab) <= 32 else f"{lab[:14]}...{lab[-15:]}" for lab in labels]
    for y, d in zip(ys, stats):
        if d is None:
            continue
        colour = "#4c72b0"
        if d.get("lo") is not None:
            if zero and (d["lo"] > 0 or d["hi"] < 0):
                colour = "#2a9d4b" if d["lo"] > 0 else "#c44e52"
            ax.errorbar(d["mean"], y, xerr=[[d["mean"] - d["lo"]], [d["hi"] - d["mean"]]],
                        fmt="o", color=colour, capsize=5, lw=2)
            ax.annotate(f"{d['mean']:+.3g} [{d['lo']:+.3g}, {d['hi']:+.3g}]" if zero else
                        f"{d['mean']:.3g} [{d['lo']:.3g}, {d['hi']:.3g}]", (d["mean"], y),
                        textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
        else:
            ax.plot(d["mean"], y, "o", color="grey")
            ax.annotate(f"{d['mean']:.3g} ({d.get('method', 'no interval')})", (d["mean"], y),
                        textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
    if zero:
        ax.axvline(0, color="black", lw=0.8, ls="--")
    ax.set_yticks(ys, labels)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)


def plot_report(report: dict, path: str) -> None:
    """What the tournament tests: each policy's paired difference against the baseline
    (score and win rate, 95% intervals, the zero line), and the game's key metric."""
    import matplotlib.pyplot as plt

    cfg = report["config"]
    versus = report["versus_baseline"]
    names = list(report["policies"])
    key = report.get("key_metric")
    panels = 3 if versus else 2
    fig, axes = plt.subplots(1, panels, figsize=(4.6 * panels, 1.4 + 0.7 * len(names)),
                             squeeze=False)
    axes = axes[0]
    k = 0
    if versus:
        vs = list(versus)
        objective = report.get("objective")
        for metric, title in (("score_difference", "score"),
                              ("win_rate_difference", "win rate")):
            decides = " (decides)" if objective == metric.split("_difference")[0] else ""
            _errorbars(axes[k], vs, [versus[p][metric] for p in vs],
                       f"{title}: difference vs {report['baseline']}{decides}", zero=True)
            k += 1
    if key:
        _errorbars(axes[k], names, [report["policies"][p]["metrics"].get(key) for p in names],
                   key.replace("_", " "), zero=False)
    else:
        _errorbars(axes[k], names, [report["policies"][p]["score"] for p in names],
                   "mean game score", zero=False)
    fig.suptitle(f"{cfg['game']} {cfg['players']}p - {report['games']} games "
                 f"({report['deals']} deals, duplicate), 95% intervals over deals", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
