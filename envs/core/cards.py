"""Cards as small ints, hands as int bitmasks, and a readable notation.

Every game numbers its cards ``0..len(deck)-1``.  A set of cards (a hand,
the cards played so far, a suit) is one Python ``int`` with bit ``c`` set
for card ``c``: membership, removal and "which of these may I play" are then
single bit operations, and a copy of a hand is free.

The notation is for people: tests, records, renders and the bot protocol
speak ``"R7"``, ``"W"``, ``"7h"``; the engine speaks ints.  A :class:`Deck`
translates both ways.  Games with identical copies of a card (Wizard's four
Wizards) give each copy its own canonical name (``"W1"`` .. ``"W4"``) and
register the bare name (``"W"``) as an alias that hands out the next unused
copy while parsing a list.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence


def bits(mask: int) -> Iterator[int]:
    """Yield the set bit positions of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def bit_list(mask: int) -> list[int]:
    """The set bit positions of ``mask`` as a sorted list."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    """The bitmask holding exactly ``cards``."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class Deck:
    """Names <-> ids for one game's cards.

    ``names[c]`` is the canonical name of card ``c``.  ``aliases`` maps a
    short name to the ids it may stand for, in order; parsing a list hands
    out the first copy not already used in that list.
    """

    def __init__(self, names: Sequence[str], aliases: dict[str, Sequence[int]] | None = None):
        self.names: tuple[str, ...] = tuple(names)
        self.size = len(self.names)
        self.full_mask = (1 << self.size) - 1
        self._ids: dict[str, tuple[int, ...]] = {n.upper(): (i,) for i, n in enumerate(self.names)}
        for alias, ids in (aliases or {}).items():
            self._ids[alias.upper()] = tuple(ids)
        if len(set(self.names)) != self.size:
            raise ValueError("card names must be unique")

    def name(self, card: int) -> str:
        return self.names[card]

    def parse_one(self, token: str, used: int = 0) -> int:
        """The id of ``token``; for an alias, the first copy not in ``used``."""
        ids = self._ids.get(token.strip().upper())
        if ids is None:
            raise ValueError(f"unknown card {token!r}")
        for c in ids:
            if not (used >> c) & 1:
                return c
        raise ValueError(f"card {token!r} used more often than the deck holds it")

    def parse(self, text: str | Iterable[str]) -> list[int]:
        """Ids of a space/comma separated string or of a list of names.

        A canonical name may appear only once: a card exists once.
        """
        tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
        used = 0
        out = []
        for t in tokens:
            c = self.parse_one(t, used)  # refuses a card used up already
            used |= 1 << c
            out.append(c)
        return out

    def mask(self, text: str | Iterable[str]) -> int:
        return mask_of(self.parse(text))

    def format(self, cards: Iterable[int]) -> list[str]:
        return [self.names[c] for c in cards]

    def format_mask(self, mask: int) -> list[str]:
        return [self.names[c] for c in bits(mask)]
