"""Geheimtrumpf card play by the task: the heuristic's play, and a trick played ahead.

In the play phase every hand, the trumps and every chosen task are public,
so how a seat steers its cards toward its task is a function of the table
alone.  This module is that steering - the heuristic bot's card play
(``policies/games/geheimtrumpf.py`` plays by it) - and, built on it, the one
trick played ahead that the observation's trick reading (``reading.py``,
version 4) hands to a network: per legal card, who takes the trick when
the seats still to play answer as the heuristic would.

* :func:`target`: the task a seat plays for - its choice; the start
  player, who chose none, adopts the chosen task of another seat that its
  own hand meets best (it checks off a task when it meets one another
  player missed).
* :func:`play_for`: the card steering toward a task - win tricks while
  short of an exact count or for "most", duck otherwise (the highest card
  that cannot win, or the card most likely to be overtaken), keep the top
  trump for "last trick", shed cards of a "no suit" task's suit into
  others' tricks; winning leads use cards no other hand can beat.
* :func:`respond`: the trick's cards after a seat plays a card and the
  seats after it answer by :func:`play_for`.
"""

from __future__ import annotations

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.tricks import Trick, follow_mask
from stichzoo.envs.geheimtrumpf.chances import (
    CARD_CHANCES,
    belief,
    task_chance,
    trick_dist,
)
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_SUIT,
    CARD_VALUE,
    FEWEST_TRICKS,
    LAST_TRICK,
    MOST_TRICKS,
    NO_SUIT0,
    NO_TRICK,
    PLAY,
    ROWS,
    SUIT_MASK,
    THREE_TRICKS,
)


def task_chances(s, seat: int, tasks: list[int]) -> list[float]:
    """Estimated chance of each task for ``seat`` from its hand and tricks so far."""
    win, last = belief(s, seat)
    n = s.num_players
    dists = []
    for p in range(n):
        d = trick_dist([win[x] for x in bit_list(s.hands[p])])
        d = [0.0] * s.tricks_won[p] + d
        dists.append(d)
    mine = dists[seat]
    others = [dists[p] for p in range(n) if p != seat]
    hand = s.hands[seat]
    best_last = max((last[x] for x in bit_list(hand)), default=0.0)
    if s.phase == PLAY and s.tricks and len(s.tricks) == ROWS:
        best_last = 1.0 if s.last_winner == seat else 0.0
    out = []
    for t in tasks:
        if t >= NO_SUIT0:
            bad = SUIT_MASK[t - NO_SUIT0]
            if s.won_cards[seat] & bad:
                out.append(0.0)
                continue
            out.append(task_chance(t, mine, n, suit_cards=(hand & bad).bit_count()))
        elif t in (MOST_TRICKS, FEWEST_TRICKS):
            out.append(task_chance(t, mine, n, others=others))
        else:
            out.append(task_chance(t, mine, n, last=best_last))
    return out


def target(s, seat: int) -> int:
    """The task ``seat`` plays for: its choice, or for the start player the best other's."""
    t = s.chosen[seat]
    if t >= 0:
        return t
    cands = sorted({c for p, c in enumerate(s.chosen) if p != seat and c >= 0})
    if not cands:
        return NO_TRICK
    chances = task_chances(s, seat, cands)
    return cands[chances.index(max(chances))]


def play_for(s, seat: int, legal: list[int], task: int) -> int:
    """The card of ``legal`` that steers ``seat`` toward ``task``."""
    won = s.tricks_won[seat]
    avoid_suit = SUIT_MASK[task - NO_SUIT0] if task >= NO_SUIT0 else 0
    if task <= THREE_TRICKS:
        want = won < task
    elif task == MOST_TRICKS:
        want = True
    else:
        want = False
    if task == LAST_TRICK:
        return _play_last(s, seat, legal)
    return play_card(s, seat, legal, want, avoid_suit)


def _play_last(s, seat: int, legal: list[int]) -> int:
    power = s.trumps.power
    keep = max(bit_list(s.hands[seat]), key=lambda c: (power[c], CARD_VALUE[c]))
    rest = [c for c in legal if c != keep] or legal
    if len(s.tricks) == ROWS - 1:  # the last trick: try to win it
        return play_card(s, seat, legal, True, 0)
    return play_card(s, seat, rest, False, 0)


def _key(c: int, lead_suit: int, power) -> int:
    p = power[c]
    if p:
        return p
    return CARD_VALUE[c] if CARD_SUIT[c] == lead_suit else 0


def _beaters(s, key: int, follow: int, lead_suit: int, seats) -> int:
    """How many of ``seats`` could beat ``key`` (their legal cards under ``follow``)."""
    power = s.trumps.power
    count = 0
    for p in seats:
        for d in bit_list(follow_mask(s.hands[p], follow)):
            if _key(d, lead_suit, power) > key:
                count += 1
                break
    return count


def play_card(s, seat: int, legal: list[int], want: bool, avoid_suit: int) -> int:
    """Win (``want``) or duck the current trick; shed cards of ``avoid_suit`` when ducking."""
    t = s.trumps
    power = t.power
    group = t.group
    n = s.num_players
    cards = s.trick.cards
    win = CARD_CHANCES[(t.suit, t.value)][0]
    if not cards:  # leading
        others = [p for p in range(n) if p != seat]
        scored = []
        for c in legal:
            b = _beaters(s, _key(c, CARD_SUIT[c], power), group[c], CARD_SUIT[c], others)
            scored.append((b, c))
        if want:
            safe = [c for b, c in scored if b == 0]
            if safe:
                return min(safe, key=lambda c: win[c])
            return max(scored, key=lambda bc: (-bc[0], win[bc[1]]))[1]
        # duck: the card most players can beat, lowest first; avoid leading the bad suit
        return max(scored, key=lambda bc: (bc[0], -((avoid_suit >> bc[1]) & 1), -win[bc[1]]))[1]
    lead_suit = CARD_SUIT[cards[0]]
    best_key = max(_key(c, lead_suit, power) if i else (power[c] or CARD_VALUE[c])
                   for i, c in enumerate(cards))
    follow = s.follow
    later = later_seats(s, seat)
    winning = [c for c in legal if _key(c, lead_suit, power) > best_key]
    losing = [c for c in legal if _key(c, lead_suit, power) <= best_key]
    if want:
        if winning:
            safe = [c for c in winning
                    if not _beaters(s, _key(c, lead_suit, power), follow, lead_suit, later)]
            if safe:
                return min(safe, key=lambda c: win[c])
            return max(winning, key=lambda c: _key(c, lead_suit, power))
        return min(losing, key=lambda c: win[c])
    if avoid_suit and losing:
        bad = [c for c in losing if (avoid_suit >> c) & 1]
        if bad:
            return max(bad, key=lambda c: win[c])
    if losing:
        return max(losing, key=lambda c: win[c])
    # every card wins for now: one a later player can still beat, the lowest; else the biggest
    beatable = [c for c in winning
                if _beaters(s, _key(c, lead_suit, power), follow, lead_suit, later)]
    if avoid_suit:
        clean = [c for c in (beatable or winning) if not (avoid_suit >> c) & 1]
        if clean:
            beatable = clean if beatable else []
            winning = clean
    if beatable:
        return min(beatable, key=lambda c: _key(c, lead_suit, power))
    return max(winning, key=lambda c: win[c])


class _Ahead:
    """The fields :func:`play_for` reads, for a trick played ahead of the table."""

    __slots__ = ("follow", "hands", "num_players", "trick", "tricks", "tricks_won", "trumps")

    def __init__(self, s, cards: list[int], hands: list[int], follow: int):
        self.trumps = s.trumps
        self.num_players = s.num_players
        self.tricks = s.tricks
        self.tricks_won = s.tricks_won
        self.trick = Trick(s.trick.leader, s.num_players, cards)
        self.hands = hands
        self.follow = follow


def later_seats(s, seat: int) -> list[int]:
    """The seats still to play to the current trick after ``seat``, which plays next."""
    n = s.num_players
    return [(seat + i) % n for i in range(1, n - len(s.trick.cards))]


def respond(s, card: int, targets: dict[int, int]) -> list[int]:
    """The trick's cards after the seat to play plays ``card`` and each seat after it
    answers by :func:`play_for` toward its task in ``targets`` (all of it public)."""
    cards = [*s.trick.cards, card]
    hands = list(s.hands)
    hands[s.current_player] &= ~(1 << card)
    follow = s.follow or s.trumps.group[card]
    for p in later_seats(s, s.current_player):
        legal = bit_list(follow_mask(hands[p], follow))
        d = legal[0] if len(legal) == 1 else play_for(_Ahead(s, cards, hands, follow), p,
                                                      legal, targets[p])
        cards.append(d)
        hands[p] &= ~(1 << d)
    return cards
