"""Wunder Punkt bots: a rule-based heuristic and the hints for the search bot.

The game in one line: every card taken is +1 except cards of your secret
sore suit, which cost their number; there is no follow rule and any card
off the led suit beats the led suit, highest number first.

Heuristic (reads only its own hand and pick and public facts):

* **Sore pick.**  For every suit in hand, the pick is its lowest card (an
  Ace costs nothing) and the suit's expected cost is the pick's number, plus
  a share of the numbers of the suit's cards that others hold (the table will
  dump them into tricks we win), plus a smaller share of our own remaining
  cards of the suit (we control when they are played, but high ones tend to
  win tricks).  The cheapest suit is chosen.
* **Card play.**  Every card in hand is scored by a one-trick look-ahead:
  the chance that the card ends up winning the trick (certain/impossible
  for the last player; otherwise estimated from the unseen cards that would
  beat it), times the trick's worth to us (+1 per card, minus the number of
  our sore cards, with an expectation for the cards still to come), plus
  the chance it loses times the damage to the likely winner (a high card of
  *their* revealed sore suit dumped on them is a gain for us, as the value is
  the score margin), minus what keeping the card is worth: high off-sore
  cards are future trick winners.  (A bonus for shedding our own high sore
  cards into lost tricks measured worse, so ``SHED_SORE`` is 0: the
  look-ahead already counts what they cost us or the taker.)  The best card
  is played; on ties the lowest card id.

Search hints: the same heuristic is the PIMC rollout policy (a fast,
sensible table makes far better rollouts than random play); the value is
the round's score margin (the default :func:`stichzoo.policies.search.score_gain`).
"""

from __future__ import annotations

import random

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.wunder_punkt.rules import (
    CARD_NUMBER,
    CARD_SUIT,
    DECK_SIZE,
    PLAY,
    RANKS,
    SORE,
    SUIT_MASK,
)
from stichzoo.policies.base import Decision
from stichzoo.policies.hooks import SearchHooks

#: PIMC budget (see tests and the module docstring for the measured cost)
#: ``world_cost``: a sampled world costs a fifth of a play-out by the rollout player
#: (profiled: 0.7 ms against 3.7 ms), so a guided search buys its extra worlds at that price
SEARCH_DEFAULTS = {"worlds": 4, "rollouts": 1, "horizon": "round", "world_cost": 0.2}
#: the learned search (``pimc:guide=bot:wunder_punkt``) asks its network only for the sore
#: card and plays the cards as plain PIMC: against plain PIMC, the guided search's sore picks
#: scored +9.89 [+5.49, +14.30] points per game, the network's alone +7.11 [+4.03, +10.18]
#: (200 games, seed 5150; docs/results.md, the bots); ``phases=none`` guides every phase again
GUIDE_DEFAULTS = {"phases": "sore"}


#: per number 0..13: the cards (all suits) with a higher number
HIGHER = tuple(sum(1 << c for c in range(DECK_SIZE) if CARD_NUMBER[c] > x) for x in range(14))
#: per 13-bit suit pattern: the sum of the numbers of its cards
_SUIT_NUMBER_SUM = tuple(sum(r + 1 for r in range(1, RANKS) if m >> r & 1)
                         for m in range(1 << RANKS))


def _number_sum(mask: int, suit: int) -> int:
    """Sum of the numbers of the cards in ``mask`` (all of ``suit``)."""
    return _SUIT_NUMBER_SUM[mask >> (suit * RANKS)]


class Heuristic:
    """Cheap sore pick in a suit we can keep out of our tricks; one-trick look-ahead play."""

    name = "heuristic"

    # sore pick: share of the others' cards / our own remaining cards of the suit we expect to pay
    W_OTHERS = 0.30
    W_OWN = 0.25
    # card play: keep-value per number of an off-sore card, liability per number of a sore card
    KEEP_HIGH = 0.2
    SHED_SORE = 0.0
    # chance a lead holds (somebody nearly always can throw an off-suit card on it)
    LEAD_HOLD = 0.08

    def __init__(self, game, seed: int | None = None):
        self.game = game
        self.rng = random.Random(seed)  # unused: the heuristic is deterministic

    def act(self, decision: Decision) -> int:
        s = decision.state
        seat = decision.seat
        if s.phase == SORE:
            return DECK_SIZE + self.pick(s, seat)
        if s.phase == PLAY:
            return self.play(s, seat)
        raise ValueError("wunder_punkt heuristic: nothing to decide in phase "
                         f"{s.phase_name}")

    # -- sore pick ------------------------------------------------------------

    def pick(self, s, seat: int) -> int:
        hand = s.hands[seat]
        used = self.game.used
        best = None
        for suit in range(4):
            mine = hand & SUIT_MASK[suit]
            if not mine:
                continue
            cards = bit_list(mine)
            pick = cards[0]  # lowest number (Ace first)
            own = sum(CARD_NUMBER[c] for c in cards[1:])
            others = sum(CARD_NUMBER[c] for c in bit_list(used & SUIT_MASK[suit] & ~mine))
            cost = CARD_NUMBER[pick] + self.W_OWN * own + self.W_OTHERS * others
            if best is None or cost < best[0]:
                best = (cost, pick)
        return best[1]

    # -- card play ---------------------------------------------------------

    def play(self, s, seat: int) -> int:
        n = s.num_players
        hand = s.hands[seat]
        cards = bit_list(hand)
        if len(cards) == 1:
            return cards[0]
        sores = [CARD_SUIT[c] for c in s.sore_cards]  # revealed in PLAY
        my_sore = sores[seat]
        trick = s.trick.cards
        k = len(trick)
        leader = s.trick.leader
        after = n - 1 - k  # players still to play after us
        # unseen cards: in the other hands
        unseen = self.game.used & ~hand & ~s.played
        for c in s.sore_cards:
            unseen &= ~(1 << c)
        u = unseen.bit_count() or 1
        # per seat: worth of the trick so far, plus the expected worth of the cards to come
        tmask = 0
        for c in trick:
            tmask |= 1 << c
        base = []
        for p in range(n):
            sp = sores[p]
            m = unseen & SUIT_MASK[sp]
            exp_val = (u - m.bit_count() - _number_sum(m, sp)) / u
            tm = tmask & SUIT_MASK[sp]
            base.append(k - tm.bit_count() - _number_sum(tm, sp) + after * exp_val)
        h_after = max(len(cards) - 1 if k else len(cards), 1)  # rough hand size of those after us
        led = CARD_SUIT[trick[0]] if k else -1
        # the current winner among the cards so far
        best_pos, best_num, best_off = -1, 0, False
        for i, c in enumerate(trick):
            num = CARD_NUMBER[c]
            if num == 0:
                continue
            off = CARD_SUIT[c] != led
            if (off and (not best_off or num > best_num)) or (not off and not best_off
                                                              and num > best_num):
                best_pos, best_num, best_off = i, num, off
        later = [(leader + i) % n for i in range(k + 1, n)]
        current = [(leader + best_pos) % n] if best_pos >= 0 else []
        not_led = ~SUIT_MASK[led] if k else 0
        keep_high, shed_sore, lead_hold = self.KEEP_HIGH, self.SHED_SORE, self.LEAD_HOLD
        best_score, best_card = None, cards[0]
        for c in cards:
            num = CARD_NUMBER[c]
            suit = CARD_SUIT[c]
            # does c take the lead of the trick?
            if k == 0:
                wins_now = num > 0
                off = False
            else:
                off = suit != led
                if num == 0:
                    wins_now = False
                elif off:
                    wins_now = not best_off or num > best_num
                else:
                    wins_now = not best_off and num > best_num
            if not wins_now:
                hold = 0.0
            elif after == 0:
                hold = 1.0
            elif not off:
                hold = lead_hold  # any off-suit card of the later players beats it
            else:
                beaters = (unseen & HIGHER[num] & not_led).bit_count()
                hold = (1.0 - beaters / u) ** (after * h_after) if beaters else 1.0
            win_val = base[seat] + (-num if suit == my_sore else 1)
            # who takes it when we do not: the current winner or a later player
            takers = current + later if not wins_now else later
            if hold < 1.0 and takers:  # no takers: an all-Ace trick nobody wins
                lose = 0.0
                for p in takers:
                    lose += base[p] + (-num if suit == sores[p] else 1)
                lose_val = -lose / (len(takers) * (n - 1))
            else:
                lose_val = 0.0
            keep = keep_high * num if suit != my_sore else -shed_sore * num
            score = hold * win_val + (1.0 - hold) * lose_val - keep
            if best_score is None or score > best_score:
                best_score, best_card = score, c
        return best_card


def rollout_policy(game, seed: int | None = None) -> Heuristic:
    """PIMC rollouts: the heuristic itself."""
    return Heuristic(game, seed=seed)


#: what PIMC needs of Wunder Punkt (policies/hooks.py)
SEARCH = SearchHooks(defaults=SEARCH_DEFAULTS, guided=GUIDE_DEFAULTS,
                     rollout_policy=rollout_policy)

__all__ = ["GUIDE_DEFAULTS", "SEARCH", "SEARCH_DEFAULTS", "Heuristic", "rollout_policy"]
