"""Bid inference for Wizard's PIMC (``pimc:infer=<strength>``): worlds kept by how well the
sampled hands explain the other seats' bids.

A lab lever (docs/lab/index.md): no shipped bot, ladder rung or bot level uses it.  It was
measured against plain PIMC and not shipped; it stays here so that its figures can be re-run:
``python -m stichzoo.training.lab eval wizard --policies pimc:infer=1 pimc``.
"""

from __future__ import annotations

import math
import random

from stichzoo.envs.wizard.rules import HiddenDeal, WizardState, played_this_round
from stichzoo.policies.games.wizard import ALL, estimate_tricks, trump_of

#: the spread of a bid around :func:`estimate_tricks` of the bidder's hand, by hand size:
#: sigma = BID_SPREAD[0] + BID_SPREAD[1] * cards (PIMC bidders in 4-player self-play, 360 bids:
#: 0.2 at one card, 0.7 at eight, about 1.5 at fifteen; scripts/probes/inference_signal.py)
BID_SPREAD = (0.25, 0.09)


class BidInference:
    """PIMC's inference in Wizard (``pimc:infer=<strength>``): how well hands explain the bids.

    A bid says how many tricks its player expects; the bidder's hand in a
    world is its hidden cards plus what it has played this round, and
    :func:`estimate_tricks` of that hand (from the bidder's view when it
    bid: its own cards and the turned card seen) is what a sensible player
    holding it would bid.  The chance that a world is kept is
    ``exp(-strength * sum(d^2 / (2 sigma^2)))`` over the other seats' bids,
    ``d`` = bid - estimate and ``sigma`` the spread of real bids around the
    estimate (:data:`BID_SPREAD`); ``strength`` below 1 tempers it, so that a
    bid no world explains does not decide the search alone.  It reads only
    the world - the seat's own hand, public facts and sampled hands.
    """

    def __init__(self, game, strength: float = 1.0):
        if not 0 < strength <= 10:
            raise ValueError(f"wizard inference: strength={strength!r}; a number in (0, 10]")
        self.game = game
        self.strength = strength

    def __call__(self, world: WizardState, seat: int) -> float:
        return self.chance(world, seat, world.hands)

    def chance(self, state: WizardState, seat: int, hands: list[int]) -> float:
        """The keep chance of ``hands`` (every seat's) in ``state``'s round, for ``seat``."""
        n = state.num_players
        if state.bids.count(-1) == n:  # nobody has bid yet: nothing to explain
            return 1.0
        played_by = played_this_round(state)
        turned = 1 << state.trump_card if state.trump_card >= 0 else 0
        trump = trump_of(state)
        sigma = BID_SPREAD[0] + BID_SPREAD[1] * state.hand_size
        misfit = 0.0
        for p in range(n):
            bid = state.bids[p]
            if p == seat or bid < 0:
                continue
            hand = hands[p] | played_by[p]
            d = bid - estimate_tricks(hand, ALL & ~(hand | turned), trump, n)
            misfit += d * d
        return math.exp(-self.strength * misfit / (2 * sigma * sigma))

    def draft(self, root: WizardState, seat: int, rng: random.Random) -> tuple[HiddenDeal, float]:
        """A re-deal of the hidden hands and its keep chance, before any world is built: the
        search's sampler builds a world (:meth:`finish`) only for the deal it keeps."""
        deal = self.game.deal_others(root, seat, rng)
        return deal, self.chance(root, seat, deal.hands)

    def finish(self, root: WizardState, seat: int, deal: HiddenDeal,
               rng: random.Random) -> WizardState:
        """The world of a kept :meth:`draft`."""
        return self.game.world_of(root, seat, deal, rng)


def inference(game, strength: float = 1.0) -> BidInference:
    """PIMC's inference for ``pimc:infer=<strength>``: :class:`BidInference`."""
    return BidInference(game, strength)


__all__ = ["BID_SPREAD", "BidInference", "inference"]
