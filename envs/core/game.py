"""What every rules core provides, and how options are checked.

A rules core (``envs/<game>/rules.py``) is plain Python: no numpy, no
gymnasium, no PettingZoo.  It knows seats, phases, the legal actions as a
bitmask over the game's flat action ids, how to apply one, when the game is
over and the scores.  Randomness enters only through the deck orders drawn
at the start (see :meth:`Game.deal`), so a state plus the same actions
always replays the same game, and a clone can be simulated forward without
touching any random generator.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, TypeVar

from stichzoo.envs.core.cards import Deck, bit_list
from stichzoo.envs.core.tricks import Trick


def shuffle(rng: random.Random, cards: list) -> None:
    """Shuffle ``cards`` in place exactly as ``rng.shuffle(cards)`` does, twice as fast.

    Every game draws all its deck orders when it starts (15 shuffles of 60
    cards for a Wizard game), and in the batch engine ``random.shuffle`` was
    a fifth of a step's time - mostly its per-card call of
    ``Random._randbelow``.  This is the same algorithm with that call
    inlined: CPython's Fisher-Yates from the top, ``getrandbits`` of
    ``(i + 1).bit_length()`` bits, rejected while too large.  Same draws in
    the same order, so the deck order and the generator's state afterwards
    are the same byte for byte (tests compare both over many seeds and
    lengths).  Other generator types use their own ``shuffle``.
    """
    if type(rng) is not random.Random:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def deal_hands(order: Sequence[int], num_players: int, dealer: int, count: int) -> list[int]:
    """The hands, as bitmasks, of the first ``count`` cards of a deck ``order``.

    Dealt as every rule book here says: one card at a time, clockwise,
    starting left of the ``dealer``.
    """
    hands = [0] * num_players
    for k in range(count):
        hands[(dealer + 1 + k) % num_players] |= 1 << order[k]
    return hands


def float_sum(values) -> float:
    """``values`` added left to right, as ``sum`` added floats up to Python 3.11.

    Python 3.12's ``sum`` compensates float rounding, which can change the
    last bit of a sum; the observations and heuristics that add chances use
    this instead, so they are the same on every Python the package supports
    and equal to the compiled kernel's (``envs/kernel``), which adds in this
    order too.
    """
    total = 0
    for v in values:
        total += v
    return total


def win_share(winners: Sequence[int], num_players: int) -> list[float]:
    """The +1 the winners share, per seat (the ``win`` reward, the win-rate tally)."""
    share = [0.0] * num_players
    for s in winners:
        share[s] = 1.0 / len(winners)
    return share


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state."""


_State = TypeVar("_State", bound="GameState")


class GameState:
    """Base of every rules core's state: the bookkeeping all five games keep alike.

    Shared fields (slots, so a state stays small and quick to copy):
    ``game``; ``num_players``; ``deck_orders`` (every shuffle, drawn up front
    and never changed, so clones share them); ``totals`` (the running game
    score per seat); ``history`` (every decision as ``(seat, action)``);
    ``log`` (the game record's rounds, or None); ``over`` and ``truncated``;
    ``last_deltas`` (the score change per seat caused by the last applied
    action, None when it changed none); ``phase`` (an index into the game's
    ``PHASE_NAMES``); ``current_player`` (-1 when nobody is to act); and
    ``trick`` (the trick being played).

    A game's state adds its own fields in its own ``__slots__``, sets them up
    after ``super().__init__`` and copies them in :meth:`_copy_own`; it
    implements :meth:`legal_mask` and :meth:`apply`.  What ends a round and
    what follows it is the game's; counting a round's scores
    (:meth:`count_scores`), dealing the next round (:meth:`next_round`) and
    ending the game (:meth:`end_game`) are written here once.
    """

    __slots__ = (
        "current_player",
        "deck_orders",
        "game",
        "history",
        "last_deltas",
        "log",
        "num_players",
        "over",
        "phase",
        "totals",
        "trick",
        "truncated",
    )

    game: Game
    num_players: int
    deck_orders: list
    totals: list
    history: list[tuple[int, int]]
    log: list[dict] | None
    over: bool
    truncated: bool
    last_deltas: list | None
    phase: int
    current_player: int
    trick: Trick
    #: the round being played (0-based); Silberne Ananas calls its rounds deals
    round_index: int

    #: the game's phase names, indexed by ``phase``; every game has "play" and "game_over"
    PHASE_NAMES: ClassVar[tuple[str, ...]]

    def __init__(self, game: Game, deck_orders: list, log: bool):
        """The shared bookkeeping of a game not yet dealt: no scores, no decisions."""
        self.game = game
        self.num_players = game.num_players
        self.deck_orders = deck_orders
        self.totals = [0] * game.num_players
        self.history = []
        self.log = [] if log else None
        self.over = False
        self.truncated = False
        self.last_deltas = None

    def legal_mask(self) -> int:  # pragma: no cover - abstract
        """Bitmask over action ids of the legal actions of ``current_player``."""
        raise NotImplementedError

    def apply(self, action: int) -> None:  # pragma: no cover - abstract
        """Apply a legal action of ``current_player`` (unchecked: the hot path)."""
        raise NotImplementedError

    def start_round(self, round_index: int) -> None:  # pragma: no cover - abstract
        """Deal round ``round_index`` and open it; totals and history stay."""
        raise NotImplementedError

    # -- copying ------------------------------------------------------------------

    def clone(self: _State) -> _State:
        """An independent copy for search; the copy keeps no game log.

        Search lives on this, so it is plain attribute copies, no generic
        copying: lists are copied, immutable values (the deck orders, the
        game) shared; the game copies its own fields in :meth:`_copy_own`.
        """
        cls = self.__class__
        c = cls.__new__(cls)
        c.game = self.game
        c.num_players = self.num_players
        c.deck_orders = self.deck_orders  # never changed: shared
        c.totals = self.totals[:]
        c.history = self.history[:]
        c.log = None
        c.over = self.over
        c.truncated = self.truncated
        c.last_deltas = self.last_deltas
        c.phase = self.phase
        c.current_player = self.current_player
        c.trick = self.trick.copy()
        self._copy_own(c)
        return c

    def _copy_own(self, c: GameState) -> None:  # pragma: no cover - abstract
        """Copy this game's own fields into its fresh clone ``c``."""
        raise NotImplementedError

    # -- the end of a round ----------------------------------------------------------

    def count_scores(self, scores: list[int]) -> None:
        """Add a finished round's ``scores`` to the totals: the reward of the action that ended it.

        The round's log entry gets the scores and the totals after them.
        """
        totals = self.totals
        for s in range(self.num_players):
            totals[s] += scores[s]
        self.last_deltas = scores
        if self.log is not None:
            rec = self.log[-1]
            rec["scores"] = scores
            rec["totals"] = totals[:]

    def next_round(self, rounds: int) -> None:
        """Deal the next round of a game of ``rounds`` rounds; after the last, the game is over."""
        if self.round_index + 1 < rounds:
            self.start_round(self.round_index + 1)
        else:
            self.end_game()

    def end_game(self, *, truncated: bool = False) -> None:
        """The game has ended (or was cut off at a limit, ``truncated``): nobody is to act."""
        if truncated:
            self.truncated = True
        else:
            self.over = True
        self.phase = self.PHASE_NAMES.index("game_over")
        self.current_player = -1

    # -- shared behaviour -------------------------------------------------

    def legal_actions(self) -> list[int]:
        return bit_list(self.legal_mask())

    def legal_cards(self) -> list[int]:
        """The cards ``current_player`` may play; none outside the play phase."""
        return bit_list(self.legal_mask()) if self.phase_name == "play" else []

    def step(self, action: int) -> None:
        """Apply ``action`` after checking it; an illegal one changes nothing."""
        if self.over or self.truncated:
            raise IllegalActionError(f"the game is over; no action {action!r} can be taken")
        legal = self.legal_mask()
        if not isinstance(action, int) or action < 0 or not (legal >> action) & 1:
            labels = ", ".join(f"{a} ({self.game.action_label(a)})" for a in bit_list(legal))
            what = (
                f"{action} ({self.game.action_label(action)})"
                if isinstance(action, int) and 0 <= action < self.game.num_actions
                else repr(action)
            )
            raise IllegalActionError(
                f"illegal action {what} for player_{self.current_player} in phase "
                f"{self.phase_name}; legal actions: {labels}"
            )
        self.apply(action)

    @property
    def phase_name(self) -> str:
        return self.PHASE_NAMES[self.phase]

    def winners(self) -> list[int]:
        """Seats with the highest total; equal totals share the win."""
        best = max(self.totals)
        return [s for s, t in enumerate(self.totals) if t == best]

    def placement(self) -> list[int]:
        """Each seat's place (0 first, equal places tied) by the game's own outcome.

        Ratings rank seats with it, so it must follow the winner rule, not
        the score: the winners share place 0, the others follow by total,
        highest first.  A game whose winner is not the highest total
        overrides this.
        """
        won = set(self.winners())
        rest = sorted({t for s, t in enumerate(self.totals) if s not in won}, reverse=True)
        first = 1 if won else 0
        return [0 if s in won else first + rest.index(t) for s, t in enumerate(self.totals)]


def build_options(cls: type, game: str, kwargs: dict[str, Any], extra_known=()):
    """Instantiate an options dataclass, naming unknown options clearly."""
    known = [f.name for f in fields(cls)] + list(extra_known)
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {game}; "
            f"known options: {', '.join(known)}"
        )
    return cls(**kwargs)


def check_int(game: str, name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{game}: option {name}={value!r} must be an integer in {lo}..{hi}")


@dataclass(frozen=True)
class Options:
    """Base of each game's options; frozen so a game cannot change under a state."""

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


class Game:
    """One game under fixed options: its deck, action layout and factory.

    The env, the bots and the record replayer all go through this object, so
    there is one place that says how many actions the game has and how a
    state is made.
    """

    name: ClassVar[str]
    version: ClassVar[int]
    deck: Deck
    num_actions: int
    num_players: int
    options: Options

    def deal(self, rng: random.Random) -> list[list[int]]:  # pragma: no cover - abstract
        """Every shuffle the game will need, drawn up front (one deck order each)."""
        raise NotImplementedError

    def new_state(self, deck_orders: list[list[int]], *, log: bool = False) -> GameState:
        raise NotImplementedError  # pragma: no cover - abstract

    @staticmethod
    def shuffles(rng: random.Random, count: int, cards: Sequence[int]) -> list[list[int]]:
        """``count`` independent shuffles of ``cards`` (one deck order each)."""
        orders = []
        for _ in range(count):
            order = list(cards)
            shuffle(rng, order)
            orders.append(order)
        return orders

    def checked_orders(self, deck_orders, count: int,
                       cards: Sequence[int]) -> list[tuple[int, ...]]:
        """``deck_orders`` as tuples, after checking they are ``count`` shuffles of ``cards``.

        Deck orders may come from outside (a record, a frontend), so a wrong
        one is refused here rather than dealt.
        """
        if len(deck_orders) != count:
            raise ValueError(f"{self.name}: {count} deck orders needed, got {len(deck_orders)}")
        want = sorted(cards)
        for order in deck_orders:
            if sorted(order) != want:
                raise ValueError(f"{self.name}: a deck order must hold each of the "
                                 f"{len(want)} cards in play once")
        return [tuple(o) for o in deck_orders]

    #: whether :meth:`standing` is offered (the env's ``reward="standing"`` needs it)
    has_standing: ClassVar[bool] = False

    def standing(self, totals: Sequence[int]) -> tuple[float, ...]:
        """Each seat's chance-like value of winning from these totals between rounds.

        Only a game whose aim is not simply the highest total needs one: the
        score margin already measures a standing where more is better.
        """
        raise NotImplementedError(f"{self.name} estimates no standing")

    def action_label(self, action: int) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def parse_action(self, label: str) -> int:
        """Inverse of :meth:`action_label`."""
        for a in range(self.num_actions):
            if self.action_label(a) == label:
                return a
        raise ValueError(f"{self.name}: unknown action {label!r}")

    def new_game(self, seed: int | None = None, *, log: bool = False) -> GameState:
        """A fresh state shuffled from ``seed`` (pure Python, no numpy)."""
        return self.new_state(self.deal(random.Random(seed)), log=log)

    @property
    def env_id(self) -> str:
        return f"{self.name}_v{self.version}"
