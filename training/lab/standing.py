"""Fit Silberne Ananas' deal model (issue 29, item 4), a lab fitter:
``python -m stichzoo.training.lab fit standing silberne_ananas``.

The learned standing (``policies/lab/standing.py``) needs one thing from data:
how one deal's 11 tricks fall, per seat counted from the dealer.  This
plays self-play matches of the config's player, counts the splits of every
deal, smooths the counts towards the split of uniformly random tricks
(``prior``: that many pseudo-deals) and writes them as JSON.

Quality, on held-out matches of their own seed: before every deal but the
first, how well each estimate predicts who wins the match (log-loss of each
seat's win share, lower is better) - the learned standing against
``envs/silberne_ananas/standing.py``'s estimate and against a constant 1/3,
overall and by the leader's total.  The file keeps the config and that report, no
timings, so that the committed config rebuilds it byte for byte.  The steps of
``stichzoo fit`` (:mod:`stichzoo.training.fit`): :func:`collect`, :func:`fit`,
:func:`evaluate`, :func:`save`.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from stichzoo.envs.core.game import win_share
from stichzoo.envs.silberne_ananas.standing import standing
from stichzoo.policies.lab.standing import Split, StandingValue, load_splits, split_of, uniform
from stichzoo.training.config import game_of
from stichzoo.training.fit import read_config
from stichzoo.training.fit.self_play import Table, seeded_games

#: key -> (type, default): every key of a standing config, checked strictly
SCHEMA: dict[str, tuple[Any, Any]] = {
    "game": (str, None),
    "options": (dict, {}),
    "player": (str, "heuristic"),
    "seed": (int, 0),
    "train_games": (int, 4000),
    "test_games": (int, 2000),
    "test_seed": (int, 1),
    "prior": ((int, float), 78.0),
    "workers": (int, 1),
    "out": (str, None),
}

#: the leader's total where each quality bucket starts
BUCKETS = (0, 30, 60, 75, 90)


def load_config(path: str, overrides: dict | None = None) -> dict:
    """The config at ``path`` with ``overrides``; ValueError naming an unknown or mistyped key."""
    cfg = read_config(path, overrides, SCHEMA, "standing")
    if cfg["game"] != "silberne_ananas":
        raise ValueError(f"standing config: game={cfg['game']!r}; a learned standing exists "
                         f"for silberne_ananas")
    if cfg["options"].get("match") is False:
        raise ValueError("standing config: match=False plays single deals, which have no "
                         "standing")
    if cfg["train_games"] < 1 or cfg["test_games"] < 1 or cfg["workers"] < 1:
        raise ValueError("standing config: train_games, test_games and workers must be at "
                         "least 1")
    if cfg["prior"] < 0:
        raise ValueError(f"standing config: prior={cfg['prior']!r} pseudo-deals; at least 0")
    if cfg["seed"] == cfg["test_seed"]:
        raise ValueError("standing config: the held-out games need a seed of their own "
                         "(test_seed)")
    return cfg


def match_record(seen: list, s) -> dict:
    """One self-play match: per deal its dealer, the totals before it and its split (tricks
    counted from the dealer), and each seat's win share at the end."""
    deals, totals = [], [0, 0, 0]
    for rec, scores in zip(s.log, s.deal_scores, strict=True):
        dealer = rec["dealer"]
        split = split_of(rec["tricks_won"], dealer)
        deals.append({"dealer": dealer, "totals": totals[:], "split": list(split)})
        totals = [t + x for t, x in zip(totals, scores, strict=True)]
    return {"deals": deals, "share": list(win_share(s.winners(), 3))}


def play_matches(cfg: dict, games: int, seed: int) -> list[dict]:
    """``games`` self-play matches of the config's player, the ``i``-th seeded by
    ``(seed, i)`` whatever the number of workers: each one's :func:`match_record`."""
    table = Table(game_of(cfg), (cfg["player"],), log=True)
    return seeded_games(table, games, seed, match_record, workers=cfg["workers"])


def split_shares(matches: list[dict], prior: float) -> dict[Split, float]:
    """Each split's share of the deals, with ``prior`` pseudo-deals of uniformly random
    tricks (the multinomial) mixed in."""
    counts = Counter(tuple(d["split"]) for m in matches for d in m["deals"])
    n = sum(counts.values())
    return {split: (counts[split] + prior * p) / (n + prior) for split, p in uniform().items()}


def quality(matches: list[dict], estimates: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Per estimate: the log-loss of each seat's win share before every deal but the first,
    overall and by the leader's total (:data:`BUCKETS`)."""
    out: dict[str, dict[str, float]] = {}
    for name, fn in estimates.items():
        loss: Counter = Counter()
        count: Counter = Counter()
        for m in matches:
            for d in m["deals"][1:]:
                v = fn(tuple(d["totals"]), d["dealer"])
                bucket = max(b for b in BUCKETS if max(d["totals"]) >= b)
                for seat in range(3):
                    q = min(max(v[seat] / sum(v), 1e-6), 1 - 1e-6)
                    y = m["share"][seat]
                    x = -(y * math.log(q) + (1 - y) * math.log(1 - q))
                    for key in ("all", f"from {bucket}"):
                        loss[key] += x
                        count[key] += 1
        keys = ["all"] + [f"from {b}" for b in BUCKETS]
        out[name] = {k: round(loss[k] / count[k], 4) for k in keys if count[k]}
    return out


# -- the steps of ``fit standing`` ----------------------------------------------------


def collect(cfg: dict, log=print) -> tuple[int, list[dict]]:
    """The training matches (:func:`match_record`); the samples are their deals."""
    matches = play_matches(cfg, cfg["train_games"], cfg["seed"])
    return sum(len(m["deals"]) for m in matches), matches


def fit(cfg: dict, matches: list[dict], log=print) -> tuple[dict[Split, float], dict]:
    return split_shares(matches, cfg["prior"]), {}


def evaluate(cfg: dict, probs: dict[Split, float], log=print) -> dict[str, dict[str, float]]:
    """:func:`quality` on the held-out matches: the learned standing against the estimate
    of ``envs/silberne_ananas/standing.py`` and a constant 1/3."""
    game = game_of(cfg)
    target = game.options.target_score
    learned = StandingValue(probs, target, game.options.first_dealer, game.options.alone_variant)
    q = quality(play_matches(cfg, cfg["test_games"], cfg["test_seed"]), {
        "constant": lambda t, d: (1.0, 1.0, 1.0),
        "standing.py": lambda t, d: standing(t, target),
        "learned": learned.chances,
    })
    log(json.dumps(q, indent=1))
    return q


def load(path: str) -> dict[Split, float]:
    return load_splits(path)


def save(cfg: dict, probs: dict[Split, float], out: str, report: dict) -> None:
    """The deal model as JSON, with the config and the report (no timings) in its meta."""
    meta = {"config": cfg, "report": {"deals": report["samples"], "quality": report["quality"]}}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as f:
        json.dump({"splits": {",".join(map(str, k)): v for k, v in probs.items()},
                   "meta": meta}, f, indent=1, sort_keys=True)
        f.write("\n")
