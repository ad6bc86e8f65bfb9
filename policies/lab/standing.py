"""A learned match standing for Silberne Ananas' search (issue 29, item 4): ``pimc:standing=``.

Silberne Ananas' search plays each sampled world to the end of the deal and
values the end by how likely the seat is to end the match in the middle.
``envs/silberne_ananas/standing.py`` estimates that chance by letting every
total drift by independent normal noise; it ignores that the match ends at
the first deal reaching the target (so the last deal decides alone), that
one deal's three scores are tied together (they sum to 43) and who deals
next.  Late in a match, where a deal's end matters most, that estimate is
off: on 2,000 held-out heuristic matches its log-loss of the winner is
0.509 from 90 points on, where the shipped model's is 0.492.

This model learns only the distribution of one deal's tricks - per seat,
counted from the dealer - from self-play matches, and from it computes the
exact chance of each seat winning the match (a recursion over the totals:
after each deal the scores by the rules, the middle bonus, the end of the
match by the rules in force).  The totals a match can reach are few (every
deal adds 43 points), so the whole table is computed once per process.

It reads only totals (public), so a search that uses it is as honest as
plain PIMC.  The distribution is shipped as ``policies/models/<name>.json``
(``python -m stichzoo.training.lab fit standing silberne_ananas``, ``training/lab/standing.py``).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from stichzoo.envs.core.game import win_share
from stichzoo.envs.silberne_ananas.reading import multinomial
from stichzoo.envs.silberne_ananas.rules import (
    HAND_SIZE,
    MIDDLE_BONUS,
    NUM_PLAYERS,
    deal_scores,
    match_winners,
    middle_seat,
)
from stichzoo.policies.runtimes import model_files

FOLDER = Path(__file__).resolve().parent / "models"
#: points one deal adds to the three totals together (33 for the tricks, 10 the bonus)
DEAL_TOTAL = 3 * HAND_SIZE + MIDDLE_BONUS

#: one deal's tricks, counted from the dealer: (dealer + 1, dealer + 2, dealer)
Split = tuple[int, int, int]


def uniform() -> dict[Split, float]:
    """Every way 11 tricks can fall to three seats, with its chance when each trick goes to
    a seat uniformly at random (``reading.multinomial``, the heuristic's own assumption)."""
    return {(a, b, c): p for a, b, c, p in multinomial(HAND_SIZE)}


def splits() -> list[Split]:
    """Every way 11 tricks can fall to three seats."""
    return list(uniform())


def split_of(tricks: list[int], dealer: int) -> Split:
    """A deal's tricks per seat as a :data:`Split` (counted from ``dealer``; the inverse of
    :func:`deal_result`'s placing)."""
    a, b, c = (tricks[(dealer + 1 + j) % NUM_PLAYERS] for j in range(NUM_PLAYERS))
    return a, b, c


def deal_result(totals: tuple[int, ...], split: Split, dealer: int) -> tuple[int, ...]:
    """The totals after a deal whose tricks fell as ``split`` (counted from ``dealer``)."""
    tricks = [0] * NUM_PLAYERS
    for j, t in enumerate(split):
        tricks[(dealer + 1 + j) % NUM_PLAYERS] = t
    base = deal_scores(tricks)
    mid = middle_seat(base)
    return tuple(totals[s] + base[s] + (MIDDLE_BONUS if s == mid else 0)
                 for s in range(NUM_PLAYERS))


class StandingValue:
    """``value(totals, target)``: each seat's chance of winning the match from ``totals``.

    The callable's signature is ``standing.standing``'s, so the search's
    rollout player and its value read it in that one's place
    (``reading.taker_values(state, estimate)``).
    """

    def __init__(self, probs: dict[Split, float], target: int, first_dealer: int = 0,
                 alone_variant: bool = False):
        #: per dealer, each possible split's points for the three seats (with the bonus) and
        #: its chance
        self.gains = [[(deal_result((0, 0, 0), s, dealer), p) for s, p in probs.items() if p > 0]
                      for dealer in range(NUM_PLAYERS)]
        self.target = target
        self.first_dealer = first_dealer
        self.alone_variant = alone_variant
        self._memo: dict[tuple[tuple[int, ...], int], tuple[float, ...]] = {}
        # the whole table now, from the match's start (about 2 s), so that no decision pays it
        self.chances((0, 0, 0), first_dealer)

    def __call__(self, totals, target: int) -> tuple[float, ...]:
        if target != self.target:
            raise ValueError(f"standing: this model was built for target {self.target}, "
                             f"not {target}")
        totals = tuple(totals)
        deals = sum(totals) // DEAL_TOTAL  # deals played: the next dealer follows
        return self.chances(totals, (self.first_dealer + deals) % NUM_PLAYERS)

    def chances(self, totals: tuple[int, ...], dealer: int) -> tuple[float, ...]:
        """Win shares from ``totals`` with ``dealer`` to deal next (memoised recursion)."""
        key = (totals, dealer)
        v = self._memo.get(key)
        if v is not None:
            return v
        a0 = a1 = a2 = 0.0
        t0, t1, t2 = totals
        target = self.target
        nxt = (dealer + 1) % NUM_PLAYERS
        for (g0, g1, g2), p in self.gains[dealer]:
            new = (t0 + g0, t1 + g1, t2 + g2)
            if new[0] >= target or new[1] >= target or new[2] >= target:
                w = win_share(match_winners(list(new), self.target, self.alone_variant),
                              NUM_PLAYERS)
            else:
                w = self.chances(new, nxt)
            a0 += p * w[0]
            a1 += p * w[1]
            a2 += p * w[2]
        v = (a0, a1, a2)
        self._memo[key] = v
        return v


def load_splits(path: str | Path) -> dict[Split, float]:
    """A deal model file: ``{"splits": {"a,b,c": probability, ...}, ...}``."""
    data = json.loads(Path(path).read_text())
    probs = {tuple(int(x) for x in k.split(",")): float(v) for k, v in data["splits"].items()}
    if set(probs) != set(splits()) or abs(sum(probs.values()) - 1.0) > 1e-6:
        raise ValueError(f"standing: {path} must give every split of {HAND_SIZE} tricks a "
                         f"probability, summing to 1")
    return probs  # type: ignore[return-value]


def model_path(which: str, suffix: str = ".json", option: str = "standing",
               what: str = "deal model") -> Path:
    """A lab deal model (``policies/lab/models/<name><suffix>``) or a path to a model file."""
    return model_files.model_path(which, suffix, option, what, FOLDER)


@cache
def standing_value(which: str, target: int, first_dealer: int = 0,
                   alone_variant: bool = False) -> StandingValue:
    """One table per model and rules per process (the search's caches key on it)."""
    return StandingValue(load_splits(model_path(which)), target, first_dealer, alone_variant)


def estimate_of(game, which: str) -> StandingValue:
    """The learned standing a Silberne Ananas bot steers by (``heuristic:standing=<model>``),
    for the game's rules; single deals have no match standing."""
    opts = game.options
    if not opts.match:
        raise ValueError("standing= values a match standing; single deals have none")
    return standing_value(which, opts.target_score, opts.first_dealer, opts.alone_variant)


def standing_hooks(game, seed: int | None, which: str):
    """``pimc:standing=<model>``: the rollout player and the value with a learned standing in
    place of ``envs/silberne_ananas/standing.py``'s estimate - everything else as plain PIMC's."""
    from stichzoo.policies.games.silberne_ananas import FastRollout

    opts = game.options
    estimate = estimate_of(game, which)

    def value(root, end, seat: int) -> float:
        if end.over:
            return win_share(end.winners(), NUM_PLAYERS)[seat]
        return estimate(end.totals, opts.target_score)[seat]

    return FastRollout(game, seed, estimate=estimate), value
