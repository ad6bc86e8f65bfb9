"""The shared part of player views: one declarative schema per game.

A *player view* is the JSON object a frontend sends: what one seat knows, in
card notation.  Every game's view is checked the same way, so the checking
lives here once and each ``envs/<game>/view.py`` only says what is that
game's:

- a schema, written in the spec language of :mod:`stichzoo.envs.core.schema`
  (which gives the shape check, the messages naming the key path and the
  JSON Schema the server publishes), with the keys every view shares from
  :func:`header`, :func:`trick_fields` and :func:`per_seat`, and the view's
  own specs :class:`Legal` and :class:`Options`;
- the rebuild of a rules state from the keys that are the source of truth
  (:class:`Seen`, :func:`deal_order`, :func:`replay`);
- :meth:`ViewSchema.check_derived`: every *derived* key the view gives
  (``legal``, hand sizes, tricks won, scores the rules compute ...) must
  equal what the rebuilt state's own view says; derived keys may always be
  left out.

The contract, the same in all five games (``docs/views/*.md``):

- required keys are the facts the server cannot work out; every derived key
  is optional and, when given, checked;
- ``"legal": []`` means "not given" (work it out); a non-empty ``legal`` must
  list exactly the rules' legal actions, in any order;
- unknown keys are refused, naming them;
- integers are JSON integers and card names are exact (see
  :mod:`stichzoo.envs.core.schema`);
- every problem is a :class:`ViewError` (a ``ValueError``) whose message
  starts ``"<game> view: <key path>: "`` and shows values as JSON.

The specs are importable from here too, as before the schema language had
its own module.  Pure Python, no third-party imports.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import IllegalActionError
from stichzoo.envs.core.schema import (
    JSON_SCHEMA_DIALECT,
    Any_,
    Bool,
    Card,
    Cards,
    Const,
    Enum,
    Field,
    Int,
    ListOf,
    Nullable,
    Obj,
    Seat,
    Spec,
    ViewError,
    opt,
    req,
    same,
    show,
    type_name,
)


class Legal(ListOf):
    """``legal``: action labels; ``[]`` means "work it out", else exactly the rules' set."""

    def __init__(self, labels: Sequence[str]):
        super().__init__(Enum(labels, "an action label of this game"), unique=True,
                         ordered=False)

    def diff(self, given: Any, canon: Any, path: str) -> tuple[str, Any, Any] | None:
        if not given or sorted(given) == sorted(canon):
            return None
        return path, given, canon


class Options(Spec):
    """The game options, ``game.options.as_dict()``; must equal the game's exactly."""

    def __init__(self, want: dict[str, Any]):
        self.want = want

    def check(self, x: Any, path: str) -> dict:
        if not isinstance(x, dict):
            raise ViewError(path, f"must be an object (the game options), got {type_name(x)}")
        if not same(x, self.want):
            bad = [k for k in [*self.want, *(k for k in x if k not in self.want)]
                   if k not in x or k not in self.want or not same(x[k], self.want[k])]
            parts = [f"{k}: view {show(x[k]) if k in x else '(missing)'}, game "
                     f"{show(self.want[k]) if k in self.want else '(no such option)'}"
                     for k in bad]
            raise ViewError(path, f"do not match the game's options ({'; '.join(parts)})")
        return x

    def schema(self) -> dict:
        return {"type": "object", "const": self.want}


# -- the game-facing helpers -------------------------------------------------------------


def header(game: Any, *, num_players: bool = False,
           phases: Sequence[str] | None = None) -> dict[str, Field]:
    """The keys every view starts with: ``game``, ``env``, ``options`` (+ ``num_players``),
    and with ``phases`` (the game's phase names) ``seat``, ``to_act`` and ``phase``."""
    out = {"game": req(Const(game.name), "The game's name."),
           "env": opt(Const(game.env_id), "The env id."),
           "options": req(Options(game.options.as_dict()),
                          "The game options (game.options.as_dict()); must equal the game's.")}
    if num_players:
        out["num_players"] = opt(Const(game.num_players), "Number of players.")
    if phases is not None:
        seat = Seat(game.num_players)
        out["seat"] = req(seat, "The seat whose view this is.")
        out["to_act"] = opt(Nullable(seat), "The seat to act; null at game over.")
        out["phase"] = req(Enum(phases), ", ".join(phases) + ".")
    return out


def trick_fields(seat: Spec, cards: Spec, n: int) -> dict[str, Field]:
    """A trick's keys: ``cards`` in play order; ``leader`` and ``seats`` (the rules fix them)."""
    return {"leader": opt(seat, "Who led it (the rules fix it)."),
            "cards": req(cards, "In play order."),
            "seats": opt(ListOf(seat, most=n), "Who played each card.")}


def per_seat(item: Spec, n: int) -> ListOf:
    """A list with one entry per seat."""
    return ListOf(item, n, what=" (one per seat)")


class ViewSchema:
    """One game's view schema, built once per option set (``build(game) -> Obj``)."""

    def __init__(self, name: str, build: Callable[[Any], Obj]):
        self.name, self.build = name, build
        self._cache: dict[str, Obj] = {}

    def spec(self, game: Any) -> Obj:
        key = json.dumps(game.options.as_dict(), sort_keys=True, default=str)
        s = self._cache.get(key)
        if s is None:
            s = self._cache[key] = self.build(game)
        return s

    def parse(self, game: Any, view: Any) -> dict:
        """The shape check of ``view``: its parsed values (card names -> ids), or ViewError."""
        if getattr(game, "name", None) != self.name:
            raise ViewError("", f"from_view needs a {self.name} game, got {type(game).__name__}",
                            self.name)
        if not isinstance(view, dict):
            raise ViewError("", f"a view is a JSON object, got {type_name(view)}", self.name)
        try:
            return self.spec(game).check(view, "")
        except ViewError as e:
            raise self.error(e.path, e.message) from None

    def error(self, path: str, message: str) -> ViewError:
        """A ViewError of this game (to ``raise``)."""
        return ViewError(path, message, self.name)

    def check_derived(self, game: Any, view: dict, canon: dict,
                      hints: dict[str, Callable[[Any, Any], str]] | None = None) -> None:
        """Every key ``view`` gives must equal the rebuilt state's view ``canon``.

        ``hints`` maps a top-level key to a message maker ``(given, canon) -> str``
        for a clearer word than the generic one.
        """
        d = self.spec(game).diff(view, canon, "")
        if d is None:
            return
        path, got, want = d
        top = path.split(".")[0].split("[")[0]
        if hints and top in hints and path == top:
            raise self.error(path, hints[top](got, want))
        if path == "to_act":
            raise self.error(path, f"is {show(got)}, but by the rules "
                                   f"{'nobody' if want is None else f'seat {want}'} is to act")
        if top == "legal":
            if not want:
                raise self.error(path, f"must be [] (or left out): seat {canon['seat']} is not "
                                       f"to act; got {show(got)}")
            raise self.error(path, f"is {show(got)}, but the rules' legal actions are "
                                   f"{show(want)} (any order; [] = work them out)")
        raise self.error(path, f"is {show(got)}, but the rest of the view gives {show(want)}")

    def json_schema(self, game: Any, title: str) -> dict:
        """The JSON Schema (draft 2020-12) of the view object."""
        return {"$schema": JSON_SCHEMA_DIALECT, "title": title, **self.spec(game).json_schema()}


# -- writing a view, and the answer format ------------------------------------------------


def check_seat(game: Any, seat: Any) -> int:
    """``seat`` as a seat of ``game`` (to write a view for), else ValueError."""
    n = game.num_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"{game.name} view: seat must be an integer in 0..{n - 1}, "
                         f"got {show(seat)}")
    return seat


def head(game: Any, *, num_players: bool = False) -> dict[str, Any]:
    """The first keys of every view (see :func:`header`)."""
    out = {"game": game.name, "env": game.env_id, "options": game.options.as_dict()}
    return {**out, "num_players": game.num_players} if num_players else out


def legal_labels(state: Any, seat: int) -> list[str]:
    """The labels of the legal actions when ``seat`` is to act, else ``[]``."""
    if state.over or state.current_player != seat:
        return []
    return [state.game.action_label(a) for a in bit_list(state.legal_mask())]


def trick_view(trick: Any, names: Sequence[str]) -> dict[str, Any]:
    """The trick on the table: ``leader``, ``cards`` in play order, ``seats`` of each card."""
    return {"leader": trick.leader, "cards": [names[c] for c in trick.cards],
            "seats": [trick.seat_of(i) for i in range(len(trick.cards))]}


def check_action(game: Any, action_id: Any) -> int:
    """``action_id`` as an action of ``game`` (for ``action_to_view``), else ValueError."""
    if (isinstance(action_id, bool) or not isinstance(action_id, int)
            or not 0 <= action_id < game.num_actions):
        raise ValueError(f"{game.name}: action id must be an integer in "
                         f"0..{game.num_actions - 1}, got {show(action_id)}")
    return action_id


_LABELS: dict[tuple, dict[str, int]] = {}


def labels(game: Any) -> dict[str, int]:
    """Every action label of ``game`` -> its action id (cached per game and options)."""
    key = (game.name, json.dumps(game.options.as_dict(), sort_keys=True, default=str))
    lookup = _LABELS.get(key)
    if lookup is None:
        lookup = _LABELS[key] = {game.action_label(a): a for a in range(game.num_actions)}
    return lookup


def label_action(game: Any, label: Any, parse: Callable[[str], int | None], what: str) -> int:
    """The action id of ``label``: an exact label, else ``parse(label)`` (aliases), else
    a ValueError that says what the labels look like (``what``)."""
    if not isinstance(label, str):
        raise ValueError(f"{game.name}: an action label must be a string, got {show(label)}")
    a = labels(game).get(label)
    if a is None:
        try:
            a = parse(label)
        except ValueError:
            a = None
    if a is None:
        raise ValueError(f"{game.name}: unknown action label {show(label)}; {what}")
    return a


# -- reading a view: the public cards, the hidden deal, the replay ---------------------------


class Seen:
    """Where each card of a view was seen, so that a card given twice is named."""

    def __init__(self, schema: ViewSchema, names: Sequence[str], allowed: int = -1):
        self.schema, self.names, self.allowed, self.where = schema, names, allowed, {}

    def take(self, cards: Iterable[int], where: str) -> list[int]:
        """``cards`` (seen at key ``where``), each refused if it was seen before (or if it is
        not among the ``allowed`` cards: the game's options leave it out)."""
        out = []
        for c in cards:
            if not self.allowed >> c & 1:
                raise self.schema.error(where, f"card {show(self.names[c])} is not in play "
                                               f"with these options")
            if c in self.where:
                raise self.schema.error(where, f"card {show(self.names[c])} appears twice "
                                               f"(also in {self.where[c]})")
            self.where[c] = where
            out.append(c)
        return out

    @property
    def mask(self) -> int:
        """Every card seen."""
        return sum(1 << c for c in self.where)


def deal_order(hands: Sequence[int], first: int, per_hand: int) -> list[int]:
    """A deck order that deals ``hands`` (bitmasks of ``per_hand`` cards each) one card at a
    time from seat ``first`` round the table, as every game here deals."""
    lists = [bit_list(h) for h in hands]
    n = len(hands)
    return [lists[(first + k) % n][k // n] for k in range(n * per_hand)]


def shuffled(cards: Iterable[int], rng: random.Random | None) -> list[int]:
    """``cards`` as a list, shuffled by ``rng`` (in card order when None)."""
    out = list(cards)
    if rng is not None:
        rng.shuffle(out)
    return out


def replay(schema: ViewSchema, state: Any, steps: Iterable[tuple[str, int]]) -> None:
    """Apply each ``(key path, action)`` through the rules' checked ``step``.

    A step the rules refuse is a :class:`ViewError` naming the key that holds it, so a
    game's view checks every public move by replaying it instead of by hand.
    """
    for path, action in steps:
        try:
            state.step(action)
        except IllegalActionError as e:
            raise schema.error(path, f"the rules refuse {show(state.game.action_label(action))} "
                                     f"here ({e})") from None


# the spec names come from stichzoo.envs.core.schema (their home) and stay importable here
__all__ = [
    "JSON_SCHEMA_DIALECT", "Any_", "Bool", "Card", "Cards", "Const", "Enum", "Field", "Int",
    "Legal", "ListOf", "Nullable", "Obj", "Options", "Seat", "Seen", "Spec", "ViewError",
    "ViewSchema", "check_action", "check_seat", "deal_order", "head", "header", "label_action",
    "labels", "legal_labels", "opt", "per_seat", "replay", "req", "same", "show", "shuffled",
    "trick_fields", "trick_view", "type_name",
]
