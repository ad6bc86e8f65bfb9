"""Silberne Ananas bots: a middle-seeking heuristic and the PIMC search hooks.

The aim is the middle: the middle deal score takes the +10 bonus and the
middle total wins the match - so being middle every deal is no plan either
(the bonus pushes a seat to the top).  Everything here steers by one value:

* ``match_value(totals, seat)`` (``envs/silberne_ananas/standing.py``, shared
  with the env's ``reward="standing"``): how good a standing is between deals - the
  chance that ``seat`` ends in the middle when every total still drifts by
  a normal noise of 8 points per remaining deal (Gauss-Hermite quadrature;
  the deals left are estimated from the leader's distance to the target).
  When the deal ends the game, the exact result (win share by the rules in
  force) is used instead; in single-deal play it is 1 for the middle score.
* ``taker_values`` (``envs/silberne_ananas/reading.py``, shared with the
  observation's reading pieces): for each seat and each possible taker of the current
  trick (self, left, right), the expected value of the deal's end when the
  tricks still to come fall uniformly at random (multinomial) - a seat's
  deal score is its own tricks + 2 x its right neighbour's tricks, so a
  trick for the left neighbour is +1 for them and +2 for the right one.
  Cached per (totals, tricks taken), so it is cheap inside search.

Heuristic decisions (reads only its own hand and public facts):

* Joker gift: give the trick to whichever seat gives the best taker value.
* Card play, last to play: exact - every legal card fixes the taker by the
  odd-one-out rule (three of a suit: the middle card; two of one suit: the
  other suit; three suits: the odd colour; a Joker in the trick: its player
  gives it by their own values); play the card with the best taker value.
* Card play, first or second: estimate - the unseen cards are re-dealt
  ``samples`` times respecting shown voids and Joker facts
  (``game.determinize``); in each sample a second player plays a random
  legal card and the last player the card best for themself; play the card
  with the best mean taker value.  Ties: the lowest card id.  (The samples
  use the seat's own seeded random generator; nothing hidden is read.)
* ``estimate``: the match standing the bot steers by (``envs/silberne_ananas/standing.py``'s
  by default); the lab's ``heuristic:standing=<model>`` passes a learned one
  (``policies/lab/standing.py``), measured level with the plain one.
* ``heuristic:future=silberne_ananas_future``: the same bot with the tricks
  to come split by a learned chance per seat (``policies/runtimes/tricks_to_come.py``, from
  the seat's own hand and public facts) instead of uniformly - once per
  card it could play, since the hand left after it is what the model reads.
  Measured stronger than the plain one (docs site, "the tricks to come");
  the heuristic everything is measured against stays the plain one, so
  that every earlier figure keeps its meaning.

PIMC hooks: ``search_value`` scores a rollout's end (end of the deal) by the
same value - the win share if the game is over, else ``match_value`` of the
totals - instead of the score margin, which is the wrong aim here; the
rollout policy (``FastRollout``) plays the same trick logic greedily with
perfect information in the sampled world: the last player takes the best
taker, the second player the card best against the last player's best
reply, the leader the lead best against both replies (``lead="random"``:
a random lead, about 3x cheaper).  ``SEARCH_DEFAULTS``: 16 worlds, one
rollout each, to the end of the deal - about 0.7 s of CPU for a whole match
with one search seat and two heuristic seats.

The lab's ``pimc:standing=silberne_ananas`` (``policies/lab/standing.py``) is the same PIMC
with a learned match standing in place of ``match_value``; measured level with plain PIMC
(600 games), so the learned search (the ``search`` spec) stays the guided one.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import win_share
from stichzoo.envs.silberne_ananas.reading import deal_end_values, taker_values  # noqa: F401
from stichzoo.envs.silberne_ananas.rules import (
    CARD_SUIT,
    GIVE,
    GIVE0,
    JOKER,
    NUM_PLAYERS,
    SUIT_MASK,
    trick_winner,
)
from stichzoo.envs.silberne_ananas.standing import match_value, standing
from stichzoo.policies.base import Decision
from stichzoo.policies.hooks import SearchHooks

#: ``world_cost``: a sampled world costs a fifth of a play-out by the rollout player
#: (profiled: 0.8 ms against 4.0 ms), so a guided search buys its extra worlds at that price
SEARCH_DEFAULTS = {"worlds": 16, "rollouts": 1, "horizon": "round", "world_cost": 0.2}
#: the learned search (the ``search`` spec): PIMC guided by the network it was measured with,
#: the bot shipped before the tricks to come (``policies/bots/silberne_ananas/start``; the
#: ladder's rows are its games) - a guide from today's bot is not measured yet
LEARNED_SEARCH = "pimc:guide=bot:silberne_ananas/start"


def _legal(hand: int, lead_suit: int, leading: bool) -> int:
    """The rules' legal cards for ``hand`` (as in ``SilberneAnanasState.legal_mask``)."""
    if leading:
        if hand & (1 << JOKER) and hand != 1 << JOKER:
            return hand ^ (1 << JOKER)
        return hand
    if lead_suit < 0:
        return hand
    same = hand & SUIT_MASK[lead_suit]
    if same:
        return same
    if hand & (1 << JOKER):
        return 1 << JOKER
    return hand


def _taker(leader: int, cards: list[int], w) -> int:
    """Who takes a complete trick; a Joker's player gives it by their own values."""
    if JOKER in cards:
        row = w[(leader + cards.index(JOKER)) % NUM_PLAYERS]
        return row.index(max(row))
    return (leader + trick_winner(cards)) % NUM_PLAYERS


def _best_last(leader: int, cards: list[int], legal: int, w) -> int:
    """The last player's best card: the one whose taker they value most (lowest id on ties)."""
    row = w[(leader + 2) % NUM_PLAYERS]
    if JOKER in cards:  # the trick's taker is decided by the Joker's player anyway
        return (legal & -legal).bit_length() - 1
    c0, c1 = cards
    best, best_v = -1, -1.0
    top = max(row)
    while legal:
        low = legal & -legal
        legal ^= low
        c = low.bit_length() - 1
        v = top if c == JOKER else row[(leader + trick_winner([c0, c1, c])) % NUM_PLAYERS]
        if v > best_v + 1e-12:
            best, best_v = c, v
            if v >= top:
                break
    return best


def _sample_hands(state, seat: int, rng: random.Random) -> list[int]:
    """The hands part of ``game.determinize`` (same constrained dealing), without the copy."""
    a, b = (seat + 1) % NUM_PLAYERS, (seat + 2) % NUM_PLAYERS
    hands = state.hands
    pool = hands[a] | hands[b]  # = the cards the seat has not seen
    bans = []
    for p in (a, b):
        m = (1 << JOKER) if state.no_joker[p] else 0
        v = state.voids[p]
        for suit in range(4):
            if (v >> suit) & 1:
                m |= SUIT_MASK[suit]
        bans.append(m)
    only_a = pool & bans[1]
    only_b = pool & bans[0]
    free = bit_list(pool & ~only_a & ~only_b)
    rng.shuffle(free)
    hand_a = only_a
    for c in free[: hands[a].bit_count() - only_a.bit_count()]:
        hand_a |= 1 << c
    out = [0] * NUM_PLAYERS
    out[seat] = hands[seat]
    out[a] = hand_a
    out[b] = pool ^ hand_a
    return out


def _lead_suit(cards: list[int]) -> int:
    return CARD_SUIT[cards[0]] if cards else -1


def _give(seat: int, w) -> int:
    row = w[seat]
    taker = row.index(max(row))
    return GIVE0 + (taker - seat) % NUM_PLAYERS


class Heuristic:
    """Aims for the middle; see the module docstring."""

    name = "heuristic"

    def __init__(self, game, seed: int | None = None, samples: int = 16,
                 estimate: Callable = standing, future: str | None = None):
        self.game = game
        self.samples = samples
        self.rng = random.Random(seed)
        self.estimate = estimate
        self.future = None
        if future is not None:
            from stichzoo.policies.runtimes.tricks_to_come import load_model

            self.future = load_model(future)

    def _values(self, state, seat: int, card: int | None) -> list[list[float]]:
        """The taker values the seat steers by once it has played ``card`` (None: it has):
        the uniform tricks to come, or with ``future=`` the learned ones, which read the
        hand left after the card."""
        if self.future is None:
            return taker_values(state, self.estimate)
        from stichzoo.policies.runtimes.tricks_to_come import taker_values as future_values

        hand = state.hands[seat]
        if card is not None:
            hand &= ~(1 << card)
        return future_values(state, seat, hand, self.future, self.estimate)

    def act(self, decision: Decision) -> int:
        state = decision.state
        seat = decision.seat
        legal = decision.legal_actions
        if state.phase == GIVE:
            return _give(seat, self._values(state, seat, None))
        if len(legal) == 1:
            return legal[0]
        trick = state.trick
        leader = trick.leader
        cards = trick.cards
        if self.future is None:
            w = taker_values(state, self.estimate)
            if len(cards) == NUM_PLAYERS - 1:
                return _best_last(leader, cards, state.legal_mask(), w)
            per_card = [w] * len(legal)
        else:
            per_card = [self._values(state, seat, c) for c in legal]
            if len(cards) == NUM_PLAYERS - 1:  # exact: each card fixes its taker
                scores = [wc[seat][_taker(leader, [*cards, c], wc)]
                          for c, wc in zip(legal, per_card, strict=True)]
                return legal[scores.index(max(scores))]
        values = [0.0] * len(legal)
        lead = _lead_suit(cards)
        for _ in range(self.samples):
            hands = _sample_hands(state, seat, self.rng)
            for i, c in enumerate(legal):
                w = per_card[i]
                mine = w[seat]
                if c == JOKER:
                    values[i] += max(mine)
                    continue
                played = [*cards, c]
                ls = lead if cards else CARD_SUIT[c]
                if len(played) == 1:  # the second player: a random legal card
                    p2 = (leader + 1) % NUM_PLAYERS
                    options2 = bit_list(_legal(hands[p2], ls, False))
                    played.append(self.rng.choice(options2))
                last = (leader + 2) % NUM_PLAYERS
                c3 = _best_last(leader, played, _legal(hands[last], ls, False), w)
                values[i] += mine[_taker(leader, [*played, c3], w)]
        best = max(values)
        return legal[values.index(best)]


class FastRollout:
    """Perfect-information playout policy for PIMC worlds (reads every hand of the world)."""

    name = "silberne_ananas_rollout"

    def __init__(self, game, seed: int | None = None, lead: str = "greedy",
                 estimate: Callable = standing):
        self.game = game
        self.rng = random.Random(seed)
        self.lead = lead
        self.estimate = estimate

    def act(self, decision: Decision) -> int:
        state = decision.state
        seat = state.current_player
        w = taker_values(state, self.estimate)
        if state.phase == GIVE:
            return _give(seat, w)
        legal_mask = state.legal_mask()
        if legal_mask & (legal_mask - 1) == 0:
            return legal_mask.bit_length() - 1
        trick = state.trick
        cards = trick.cards
        leader = trick.leader
        if len(cards) == 2:
            return _best_last(leader, cards, legal_mask, w)
        legal = bit_list(legal_mask)
        if not cards:
            if self.lead == "random":
                return self.rng.choice(legal)
            return self._lead(state, seat, legal, w)
        return _best_second(state, leader, cards, legal, w)

    @staticmethod
    def _lead(state, seat: int, legal: list[int], w) -> int:
        """The lead whose trick (the others replying greedily, perfect information) pays best."""
        mine = w[seat]
        hands = state.hands
        p2 = (seat + 1) % NUM_PLAYERS
        best, best_v = legal[0], -1.0
        for c in legal:
            suit = CARD_SUIT[c]
            second = _best_second_card(hands, seat, [c], _legal(hands[p2], suit, False), w)
            c3 = _best_last(seat, [c, second], _legal(hands[(seat + 2) % NUM_PLAYERS], suit,
                                                         False), w)
            v = mine[_taker(seat, [c, second, c3], w)]
            if v > best_v + 1e-12:
                best, best_v = c, v
        return best


def _best_second_card(hands, leader: int, cards: list[int], legal: int, w) -> int:
    """The second player's best card against the last player's best reply (perfect info)."""
    seat = (leader + 1) % NUM_PLAYERS
    row = w[seat]
    reply_legal = _legal(hands[(leader + 2) % NUM_PLAYERS], CARD_SUIT[cards[0]], False)
    best, best_v = -1, -1.0
    top = max(row)
    for c in bit_list(legal):
        if c == JOKER:
            v = top
        else:
            played = [*cards, c]
            c3 = _best_last(leader, played, reply_legal, w)
            v = row[_taker(leader, [*played, c3], w)]
        if v > best_v + 1e-12:
            best, best_v = c, v
            if v >= top:
                break
    return best


def _best_second(state, leader: int, cards: list[int], legal: list[int], w) -> int:
    mask = 0
    for c in legal:
        mask |= 1 << c
    return _best_second_card(state.hands, leader, cards, mask, w)


def rollout_policy(game, seed: int | None = None) -> FastRollout:
    return FastRollout(game, seed)


def search_value(root, end, seat: int) -> float:
    """Middle-ness after the rollout: the win share if the game ended, else ``match_value``."""
    options = end.game.options
    if end.over:
        return win_share(end.winners(), NUM_PLAYERS)[seat]
    return match_value(end.totals, seat, options.target_score)


#: what PIMC needs of Silberne Ananas (policies/hooks.py)
SEARCH = SearchHooks(defaults=SEARCH_DEFAULTS, learned_search=LEARNED_SEARCH,
                     rollout_policy=rollout_policy, value=search_value)

__all__ = ["LEARNED_SEARCH", "SEARCH", "SEARCH_DEFAULTS", "FastRollout", "Heuristic",
           "match_value", "rollout_policy", "search_value", "taker_values"]
