"""Statistics of duplicate tournaments: 95% intervals over deals, paired tests, ratings.

Every deal is played under every seat assignment (:mod:`stichzoo.training.evaluation.tournament`),
so the *deal* is the unit of sampling: per deal, each policy's mean score (and win
share) over all its seats and assignments is one observation.

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

Ratings follow the game's objective, deal by deal, as the paired test does.
Per deal, each policy's mean objective value over all its seats and seat
assignments - its mean score, or its win share where the win rate decides
(Silberne Ananas: the middle total wins) - is the paired test's observation.

* The *duplicate rating* of a policy is, over deals, the mean of its value
  less the mean value of the other policies at the table that deal, with
  the t-interval over deals.  Every policy sits in every deal, so two
  policies' ratings differ by a fixed multiple (k/(k-1), k policies) of
  their mean paired difference: the ratings order the policies as the
  paired tests do, by construction.  With two policies the rating is the
  paired difference itself (and its negative).
* The openskill (Plackett-Luce) rating plays one match per deal, ranking
  the policies by their mean that deal (equal means tied), and is averaged
  over ``OPENSKILL_ORDERS`` fixed orders of the deals, as an online rating
  depends on the order of its matches.  It counts deals won, not margins,
  so it agrees with the paired test when a bot wins most deals.

One candidate against a table of copies is one comparison per deal: the
candidate's mean against the copies' mean, whatever places its seat took.
(Ranking each policy by the mean *placement* of its seats, as before, rated
one candidate among three copies ahead only when it placed first or second:
a significantly stronger bot could rate below the heuristic.)
"""

from __future__ import annotations

import math
import random
import statistics

#: fewest deals from which a t-interval (and a verdict) is reported
MIN_DEALS = 20

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


#: how each number of a tournament report is estimated (the report's ``methods``)
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
    "ratings": "openskill Plackett-Luce, one match per deal: the deal ranks the policies by "
               "their mean objective over all their seats and seat assignments (score, or "
               "win share where the win rate decides); averaged over 16 fixed orders of the "
               "deals",
    "duplicate_ratings": f"per deal, the policy's mean objective less that of the other "
                         f"policies at the table; Student's t over deals, no interval below "
                         f"{MIN_DEALS} deals; orders the policies as the paired tests do",
}

#: fixed orders of the deals an openskill rating is averaged over
OPENSKILL_ORDERS = 16

#: what a rating compares: a seat's score, or its share of the win
OBJECTIVES = ("score", "win_rate")


def seat_values(game: dict, objective: str) -> list[float]:
    """Each seat's value of one game under ``objective``.

    ``win_rate``: the seat's share of the win (``winners``, or the seats placed first when a
    game states only its ``placement``); ``score``: its total.
    """
    if objective == "score":
        return [float(t) for t in game["totals"]]
    if objective != "win_rate":
        raise ValueError(f"objective {objective!r}: choose one of {', '.join(OBJECTIVES)}")
    winners = game.get("winners")
    if winners is None:
        winners = [s for s, place in enumerate(game["placement"]) if place == 0]
    return [1 / len(winners) if s in winners else 0.0 for s in range(len(game["assignment"]))]


def deal_means(games: list[dict], objective: str) -> dict[int, dict[str, float]]:
    """Per deal, each policy's mean value over all its seats and seat assignments.

    The paired test's observation; a game without ``deal`` is a deal of its own.
    """
    values: dict[int, dict[str, list[float]]] = {}
    for i, g in enumerate(games):
        per_policy = values.setdefault(g.get("deal", -1 - i), {})
        for spec, value in zip(g["assignment"], seat_values(g, objective), strict=True):
            per_policy.setdefault(spec, []).append(value)
    return {deal: {p: statistics.fmean(v) for p, v in per_policy.items()}
            for deal, per_policy in values.items()}


def duplicate_ratings(games: list[dict], policies: list[str],
                      objective: str = "win_rate") -> dict[str, dict]:
    """Each policy's mean margin over the rest of its table, per deal (module docstring).

    ``objective`` as for :func:`openskill_ratings`; the result per policy is a
    :func:`mean_ci` dict in the objective's units (points, or win share).
    """
    if len(policies) < 2:
        return {}  # self-play: nothing to rate
    margins: dict[str, list[float]] = {p: [] for p in policies}
    for _, means in sorted(deal_means(games, objective).items()):
        for p in policies:
            others = [v for q, v in means.items() if q != p]
            if p in means and others:
                margins[p].append(means[p] - statistics.fmean(others))
    return {p: mean_ci(m) for p, m in margins.items() if m}


def openskill_ratings(games: list[dict], policies: list[str],
                      objective: str = "win_rate") -> dict[str, dict[str, float]]:
    """Plackett-Luce ratings, one match per deal ranked by the game's objective.

    ``objective`` is what the tournament's paired test decides by (the report's
    ``objective``: ``score``, or ``win_rate`` where the win decides); the default,
    ``win_rate``, follows each game's winner rule.  ``mu`` and ``sigma`` are the means over
    ``OPENSKILL_ORDERS`` fixed orders of the deals (the first: deal order), ``ordinal``
    is ``mu - 3 sigma``.  See the module docstring.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}: choose one of {', '.join(OBJECTIVES)}")
    if len(policies) < 2:
        return {}  # self-play: nothing to rate
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # pragma: no cover - openskill is in the eval extra
        return {}
    matches = []
    for _, means in sorted(deal_means(games, objective).items()):
        at_table = [p for p in policies if p in means]
        if len(at_table) >= 2:
            order = sorted({means[p] for p in at_table}, reverse=True)
            matches.append((at_table, [order.index(means[p]) for p in at_table]))  # 0 best
    model = PlackettLuce()
    mu = dict.fromkeys(policies, 0.0)
    sigma = dict.fromkeys(policies, 0.0)
    for k in range(OPENSKILL_ORDERS):
        ordered = matches[:]
        if k:
            random.Random(k).shuffle(ordered)
        ratings = {p: model.rating(name=p) for p in policies}
        for at_table, ranks in ordered:
            new = model.rate([[ratings[p]] for p in at_table], ranks=ranks)
            for p, team in zip(at_table, new, strict=True):
                ratings[p] = team[0]
        for p, r in ratings.items():
            mu[p] += r.mu / OPENSKILL_ORDERS
            sigma[p] += r.sigma / OPENSKILL_ORDERS
    return {p: {"mu": mu[p], "sigma": sigma[p], "ordinal": mu[p] - 3 * sigma[p]}
            for p in policies}


__all__ = ["METHODS", "MIN_DEALS", "OBJECTIVES", "OPENSKILL_ORDERS", "Z95", "deal_means",
           "duplicate_ratings", "mean_ci", "openskill_ratings", "paired_test", "seat_values",
           "t_quantile", "wilson_interval"]
