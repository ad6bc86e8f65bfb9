"""The trick, written once for all five games.

A trick is a leader and the cards played after it, in seat order.  What
differs between the games is only (a) which cards a player must play - all
five are special cases of :func:`follow_mask` - and (b) who wins, which each
game keeps as one small pure function of the cards in play order.

Why one follow function fits all: each game says "if you hold a card of the
suit to follow, play one of those" and differs only in what counts as that
suit (Geheimtrumpf folds trump-suit and trump-value cards into one TRUMP
group; Wizard's suit to follow is the first non-Jester), which cards are
always allowed (Wizard's Wizards and Jesters) and which card is forced when
a player is void (the Silberne Ananas Joker).  The caller passes the suit as
a bitmask of cards, so the function never needs to know how suits are
defined.
"""

from __future__ import annotations


def follow_mask(hand: int, follow: int, free: int = 0, forced_if_void: int = 0) -> int:
    """The cards of ``hand`` that may be played to the current trick.

    ``follow``: the cards that count as the suit to follow (0 when nothing
    has to be followed - empty trick, a game without follow rule, a trick
    freed by a Wizard).  ``free``: cards that may always be played.
    ``forced_if_void``: cards that must be played when the player cannot
    follow (if held).
    """
    if follow:
        same = hand & follow
        if same:
            return same | (hand & free)
        forced = hand & forced_if_void
        if forced:
            return forced
    return hand


class Trick:
    """The leader and the cards played so far, in play order.

    ``seat_of(i)`` is the seat that played the ``i``-th card: play passes to
    the left, so it is ``(leader + i) % num_players``.
    """

    __slots__ = ("cards", "leader", "num_players")

    def __init__(self, leader: int, num_players: int, cards: list[int] | None = None):
        self.leader = leader
        self.num_players = num_players
        self.cards: list[int] = cards if cards is not None else []

    @property
    def complete(self) -> bool:
        return len(self.cards) == self.num_players

    @property
    def empty(self) -> bool:
        return not self.cards

    @property
    def next_seat(self) -> int:
        return (self.leader + len(self.cards)) % self.num_players

    def seat_of(self, position: int) -> int:
        return (self.leader + position) % self.num_players

    def card_of(self, seat: int) -> int | None:
        """The card ``seat`` played to this trick, or ``None``."""
        pos = (seat - self.leader) % self.num_players
        return self.cards[pos] if pos < len(self.cards) else None

    def play(self, card: int) -> None:
        self.cards.append(card)

    def copy(self) -> Trick:
        return Trick(self.leader, self.num_players, self.cards[:])

    def as_dict(self, names) -> dict:
        """Record form: leader, cards in play order with their seats."""
        return {
            "leader": self.leader,
            "cards": [names[c] for c in self.cards],
            "seats": [self.seat_of(i) for i in range(len(self.cards))],
        }


def plays_by_seat(history: list[tuple[int, int]], num_players: int, count: int,
                  deck: int) -> list[int]:
    """Each seat's last ``count`` card plays, as bitmasks: the history's actions below
    ``deck`` (the card ids; other actions - bids, choices - are skipped), newest first.

    What a seat played this round is its hand as dealt minus its hand now,
    which the state does not keep; the history does.
    """
    out = [0] * num_players
    i = len(history) - 1
    while count:
        p, a = history[i]
        if a < deck:
            out[p] |= 1 << a
            count -= 1
        i -= 1
    return out
