"""Learn Silberne Ananas' deal model (issue 29, item 4): ``stichzoo standing silberne_ananas``.

The learned standing (``policies/lab/standing.py``) needs one thing from data:
how one deal's 11 tricks fall, per seat counted from the dealer.  This
plays self-play matches of the config's player, counts the splits of every
deal, smooths the counts towards the split of uniformly random tricks
(``prior``: that many pseudo-deals) and writes them as JSON.

Quality, on held-out matches of their own seed: before every deal but the
first, how well each estimate predicts who wins the match (log-loss of each
seat's win share, lower is better) - the learned standing against
``envs/silberne_ananas/standing.py``'s estimate and against a constant 1/3,
overall and by the leader's total.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from stichzoo.envs.core.game import win_share
from stichzoo.envs.registry import game_class
from stichzoo.envs.silberne_ananas.standing import standing
from stichzoo.policies.base import Decision
from stichzoo.policies.lab.standing import Split, StandingValue, split_of, uniform
from stichzoo.policies.specs import build_policy
from stichzoo.training.config import load_flat

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
    cfg = load_flat(path, overrides, SCHEMA, "standing")
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


def make_game(cfg: dict):
    cls = game_class(cfg["game"])
    return cls(cls.Options(**cfg["options"]))


def play_match(cfg: dict, seed: int) -> dict:
    """One self-play match: per deal its dealer, the totals before it and its split (tricks
    counted from the dealer), and each seat's win share at the end."""
    game = make_game(cfg)
    rng = random.Random(seed)
    players = [build_policy(cfg["player"], game, seed=rng.getrandbits(31))
               for _ in range(game.num_players)]
    s = game.new_game(rng.getrandbits(31), log=True)
    while not s.over:
        s.apply(players[s.current_player].act(Decision(game, s)))
    deals, totals = [], [0, 0, 0]
    for rec, scores in zip(s.log, s.deal_scores, strict=True):
        dealer = rec["dealer"]
        split = split_of(rec["tricks_won"], dealer)
        deals.append({"dealer": dealer, "totals": totals[:], "split": list(split)})
        totals = [t + x for t, x in zip(totals, scores, strict=True)]
    return {"deals": deals, "share": list(win_share(s.winners(), 3))}


def _play(args: tuple[dict, list[int], Callable]) -> list:
    cfg, seeds, play = args
    return [play(cfg, seed) for seed in seeds]


def play_matches(cfg: dict, games: int, seed: int, play: Callable = play_match) -> list:
    """``games`` matches, the i-th seeded by (seed, i) whatever the number of workers;
    ``play(cfg, seed)`` plays one and returns what is kept of it (a module-level function,
    so that the workers can be handed it)."""
    seeds = [random.Random(seed * 1_000_003 + i).getrandbits(31) for i in range(games)]
    workers = min(cfg["workers"], games)
    if workers == 1:
        return _play((cfg, seeds, play))
    chunks = [seeds[w::workers] for w in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(_play, [(cfg, c, play) for c in chunks]))
    out: list = [None] * games
    for w, part in enumerate(parts):
        out[w::workers] = part
    return out


def fit(matches: list[dict], prior: float) -> dict[Split, float]:
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


def run(cfg: dict, out: str | None = None) -> dict:
    """Play, fit, measure and write the deal model; the report."""
    out = out or cfg["out"]
    if not out:
        raise ValueError("standing: no output file (--out or the config's out)")
    start = time.perf_counter()
    train = play_matches(cfg, cfg["train_games"], cfg["seed"])
    test = play_matches(cfg, cfg["test_games"], cfg["test_seed"])
    played = time.perf_counter() - start
    probs = fit(train, cfg["prior"])
    game = make_game(cfg)
    target = game.options.target_score
    learned = StandingValue(probs, target, game.options.first_dealer, game.options.alone_variant)
    report = {
        "deals": sum(len(m["deals"]) for m in train),
        "quality": quality(test, {
            "constant": lambda t, d: (1.0, 1.0, 1.0),
            "standing.py": lambda t, d: standing(t, target),
            "learned": learned.chances,
        }),
        "seconds": round(time.perf_counter() - start, 1),
        "seconds_playing": round(played, 1),
    }
    # the file holds no timings, so that the committed config rebuilds it byte for byte
    meta = {"config": cfg, "report": {k: v for k, v in report.items()
                                      if not k.startswith("seconds")}}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as f:
        json.dump({"splits": {",".join(map(str, k)): v for k, v in probs.items()},
                   "meta": meta}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(report, indent=1))
    return report
