"""What a frontend shows of a game: its display facts, declared once beside the game.

Each game has ``envs/<game>/display.py`` holding one :class:`GameDisplay`
(``DISPLAY``): its title, its suits with their names and colours, how to
read a card name and draw its face, which decisions are secret, what is
revealed, how the game is won, what each option means, and the game's own
lines of a table screen.  The terminal table, the browser table and the bot
server read them from there (:func:`stichzoo.envs.registry.display_of`; the
browser page through the server's JSON, docs/web_table.md), so a frontend
has no ``if game == ...`` of its own.

Pure data and small pure functions over player views and round-end events
(``docs/views/<game>.md``, ``docs/records.md``): nothing here draws, and
nothing imports a frontend.  Styles are rich's style names (``"bold"``,
``"red"``); a frontend without colour ignores them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: a column of a table screen: its title and one text per seat
Column = tuple[str, list[str]]


@dataclass(frozen=True)
class Suit:
    """A suit as a hand shows it: the key in card names, the name shown, the colour.

    A card face shows a card's rank with the suit's ``symbol`` (``7\u2665``), or the
    rank over the key when there is none; the cards of a suit named by ``card_name``
    (Wizard's Wizards and Jesters) show the key alone: their numbers only tell them apart.
    """

    key: str
    name: str
    colour: str
    #: the suit's sign on a card face (``"\u2665"``); empty: the key
    symbol: str = ""
    #: what each card of this suit is called when its number is no rank (``"Wizard"``)
    card_name: str = ""


@dataclass(frozen=True)
class Face:
    """How a card face reads: the big text, a small text beside it, the words for it."""

    text: str
    sub: str
    title: str


@dataclass(frozen=True)
class Note:
    """A line of text about the game in progress (trump, the Joker's gift, ...)."""

    text: str
    style: str = ""


@dataclass(frozen=True)
class Cards:
    """Cards in a cell, each after the seat that played it when ``seats`` is given."""

    cards: tuple[str, ...]
    seats: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Grid:
    """A small table of facts (Geheimtrumpf's draft rows, open hands); cells are text or cards."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str | Cards, ...], ...]


#: how every frontend names the person's own seat; texts about it use the second person
YOU = "You"

#: third person -> second person where dropping the "s" is not the answer
_IRREGULAR = {"has": "have", "is": "are", "was": "were", "does": "do", "goes": "go"}


def verb_for(who: str, verb: str) -> str:
    """``verb`` (third person singular, "takes") as it agrees with ``who``: "take" for
    :data:`YOU`.  Texts are built with seat names, and "You takes" is what a reader
    notices first."""
    if who != YOU:
        return verb
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith(("ches", "shes", "sses", "xes")):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") else verb


def agree(who: str, verb: str) -> str:
    """``who`` and ``verb`` in agreement: "Seat 2 takes", "You take" (:func:`verb_for`)."""
    return f"{who} {verb_for(who, verb)}"


def round_of(view: dict) -> str:
    """Where the game stands, for games played over a fixed number of rounds."""
    return f"round {view['round'] + 1} of {view['num_rounds']}"


#: a word a term may be: letters, digits and underscores
_TERM_RE = re.compile(r"\w+")


def _none(*_args: Any) -> list:
    return []


@dataclass(frozen=True)
class GameDisplay:
    """One game's display facts (see the module docstring)."""

    #: the game's name as people write it
    title: str
    #: the suits, in the order a hand shows them
    suits: tuple[Suit, ...]
    #: how the game is won, in words, for the end-of-game summary
    winner_rule: str
    #: True: a card is its suit's key then its number (``R7``); False: rank then suit (``10h``)
    suit_first: bool = False
    #: the ranks low to high, for cards written rank then suit
    ranks: tuple[str, ...] = ()
    #: cards that are a suit of their own (Silberne Ananas' ``Joker``)
    own_suit_cards: frozenset[str] = frozenset()
    #: action kinds a seat decides in secret: the others learn only that it chose
    secret_kinds: frozenset[str] = frozenset()
    #: the round-log fields revealed to everybody while a round runs
    reveal_keys: tuple[str, ...] = ()
    #: what each rule option means, for a page's form
    option_docs: Mapping[str, str] = field(default_factory=dict)
    #: options that make a game short, for a page's "short game" switch
    short_options: Mapping[str, Any] = field(default_factory=dict)
    #: the view -> where the game stands ("round 2 of 5")
    where: Callable[[dict], str] = round_of
    #: the view -> the game's columns of the scoreboard (one text per seat)
    seat_columns: Callable[[dict], list[Column]] = _none
    #: a round-end event -> the game's columns of the round summary
    round_columns: Callable[[dict], list[Column]] = _none
    #: the view and the seat names -> the lines only this game has
    notes: Callable[[dict, Sequence[str]], list[Note | Grid]] = _none
    #: a round-end event -> per seat, how its round score came about, in words, from the
    #: rules' own scoring ("bid 2, took 2: 20 + 2x10 = 40"); the points close the text
    score_reasons: Callable[[dict], list[str]] = _none
    #: the view -> the few facts a table shows as badges in its middle, each a short
    #: :class:`Note` (trump, the led suit, the bids against the tricks)
    badges: Callable[[dict], list[Note]] = _none
    #: the player's words for the ids a game's views and moves use (Geheimtrumpf's
    #: ``no_trick`` is "no trick"); an id without one is shown as it is
    terms: Mapping[str, str] = field(default_factory=dict)

    def term(self, word: str) -> str:
        """A view's or move's id in the player's words (``"no_trick"`` -> ``"no trick"``)."""
        return self.terms.get(word, word)

    def in_words(self, text: str) -> str:
        """A text with every id of :attr:`terms` in it replaced by its words."""
        if not self.terms:
            return text
        return _TERM_RE.sub(lambda m: self.terms.get(m.group(0), m.group(0)), text)

    def suit_of(self, card: str) -> str:
        """The suit key of a card name (Wizards, Jesters and the Joker are their own)."""
        if self.suit_first:
            return card[0]
        if card in self.own_suit_cards:
            return card
        return card[-1]

    def rank(self, card: str) -> int:
        """A card's place in its suit, low to high (0 for a card without one)."""
        try:
            if self.suit_first:
                return int(card[1:])
            return self.ranks.index(card[:-1])
        except ValueError:
            return 0

    def face(self, card: str) -> Face:
        """A card's face: ``7\u2665`` "7 of hearts (7h)", ``7`` over ``B`` "blue 7 (B7)"."""
        key = self.suit_of(card)
        suit = next((s for s in self.suits if s.key == key), None)
        if suit is None or key == card:  # a card that is a suit of its own (the Joker)
            return Face(card, "", card)
        if suit.card_name:
            return Face(key, "", f"{suit.card_name} ({card})")
        number = card[len(key):] if self.suit_first else card[:-len(key)]
        if suit.symbol:
            return Face(number + suit.symbol, "", f"{number} of {suit.name} ({card})")
        return Face(number, key, f"{suit.name} {number} ({card})")


__all__ = ["YOU", "Cards", "Column", "Face", "GameDisplay", "Grid", "Note", "Suit", "agree",
           "round_of", "verb_for"]
