"""The shared part of player views: one declarative schema per game.

A *player view* is the JSON object a frontend sends: what one seat knows, in
card notation.  Every game's view is checked the same way, so the checking
lives here once and each ``envs/<game>/view.py`` only says what is that
game's:

- a schema: an :class:`Obj` of fields, each a small spec (:class:`Int`,
  :class:`Seat`, :class:`Card`, :class:`Cards`, :class:`Enum`,
  :class:`ListOf`, :class:`Nullable`, nested :class:`Obj` ...).  One
  definition gives the *shape check* (types, bounds, lengths, exact card
  names, unknown and missing keys), the error messages (in JSON terms,
  naming the key path such as ``totals[0]`` or ``tricks[2].cards[1]``) and
  the JSON Schema (draft 2020-12) that the server publishes;
- the rebuild of a rules state from the keys that are the source of truth;
- :func:`check_derived`: every *derived* key the view gives (``legal``,
  hand sizes, tricks won, scores the rules compute ...) must equal what the
  rebuilt state's own view says; derived keys may always be left out.

The contract, the same in all five games (``docs/views/*.md``):

- required keys are the facts the server cannot work out; every derived key
  is optional and, when given, checked;
- ``"legal": []`` means "not given" (work it out); a non-empty ``legal`` must
  list exactly the rules' legal actions, in any order;
- unknown keys are refused, naming them;
- integers are JSON integers: ``true``/``false`` are never numbers or seats,
  ``4.0``, ``NaN`` and ``Infinity`` are not integers; every integer is
  bounded by what the game can reach;
- card names are exact: canonical spelling and case, no surrounding spaces;
- every problem is a :class:`ViewError` (a ``ValueError``) whose message
  starts ``"<game> view: <key path>: "`` and shows values as JSON.

Pure Python, no third-party imports: the envs' core install stays numpy +
gymnasium + pettingzoo.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import IllegalActionError

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class ViewError(ValueError):
    """A player view was refused; ``path`` names the key (``""``: the view as a whole)."""

    def __init__(self, path: str, message: str, game: str = ""):
        self.path, self.message, self.game = path, message, game
        where = f"{path}: " if path else ""
        super().__init__(f"{game + ' view: ' if game else ''}{where}{message}")


# -- values in JSON terms --------------------------------------------------------------


def type_name(x: Any) -> str:
    """The JSON name of a Python value's type (``object``, ``array``, ``boolean`` ...)."""
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "boolean"
    if isinstance(x, (int, float)):
        return "number"
    if isinstance(x, str):
        return "string"
    if isinstance(x, (list, tuple)):
        return "array"
    if isinstance(x, dict):
        return "object"
    return type(x).__name__


def show(x: Any, limit: int = 120) -> str:
    """``x`` as JSON text for a message, cut to about ``limit`` characters.

    Never fails and never prints a Python repr (``True``, ``None``); huge
    integers are described, not converted (Python refuses to write an int of
    more than 4300 digits).
    """
    out: list[str] = []
    budget = [limit]

    def put(s: str) -> bool:
        out.append(s)
        budget[0] -= len(s)
        return budget[0] > 0

    def walk(v: Any) -> bool:
        if v is None or isinstance(v, bool):
            return put("null" if v is None else ("true" if v else "false"))
        if isinstance(v, int):
            if v.bit_length() > 200:
                return put(f"<an integer of about {int(v.bit_length() * math.log10(2))} digits>")
            return put(str(v))
        if isinstance(v, float):
            if math.isnan(v):
                return put("NaN")
            if math.isinf(v):
                return put("Infinity" if v > 0 else "-Infinity")
            return put(repr(v))
        if isinstance(v, str):
            s = json.dumps(v[:60], ensure_ascii=False)
            return put(s if len(v) <= 60 else s[:-1] + '..."')
        if isinstance(v, (list, tuple)):
            put("[")
            for i, y in enumerate(v):
                if (i and not put(", ")) or not walk(y):
                    return put("...]") and False
            return put("]")
        if isinstance(v, dict):
            put("{")
            for i, (k, y) in enumerate(v.items()):
                if (i and not put(", ")) or not walk(str(k)) or not put(": ") or not walk(y):
                    return put("...}") and False
            return put("}")
        return put(f"<{type(v).__name__}>")

    walk(x)
    return "".join(out)


def same(a: Any, b: Any) -> bool:
    """JSON equality that tells ``1`` from ``true`` and ``4`` from ``4.0``."""
    if isinstance(b, dict):
        return (isinstance(a, dict) and a.keys() == b.keys()
                and all(same(a[k], b[k]) for k in b))
    if isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and len(a) == len(b)
                and all(same(x, y) for x, y in zip(a, b)))
    return type(a) is type(b) and a == b


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


# -- field specs ----------------------------------------------------------------------


class Spec:
    """One JSON value's rule: its check (returning the parsed value) and its JSON Schema."""

    doc = ""

    def check(self, x: Any, path: str) -> Any:
        raise NotImplementedError

    def schema(self) -> dict:
        raise NotImplementedError

    def json_schema(self) -> dict:
        s = self.schema()
        return {**s, "description": self.doc} if self.doc else s

    def diff(self, given: Any, canon: Any, path: str) -> tuple[str, Any, Any] | None:
        """The first place where an (already checked) given value differs from the rules'."""
        return None if same(given, canon) else (path, given, canon)


class Any_(Spec):
    """Anything (used only where the game checks the value itself)."""

    def check(self, x: Any, path: str) -> Any:
        return x

    def schema(self) -> dict:
        return {}


class Const(Spec):
    """Exactly one value (the game's name, its env id, its player count)."""

    def __init__(self, value: Any, what: str = ""):
        self.value, self.what = value, what

    def check(self, x: Any, path: str) -> Any:
        if not same(x, self.value):
            raise ViewError(path, f"must be {show(self.value)}{self.what}, got {show(x)}")
        return x

    def schema(self) -> dict:
        return {"const": self.value}


class Int(Spec):
    """A JSON integer in ``lo..hi`` (never a boolean, never ``4.0``)."""

    def __init__(self, lo: int, hi: int, what: str = "an integer"):
        self.lo, self.hi, self.what = lo, hi, what

    def check(self, x: Any, path: str) -> int:
        if isinstance(x, bool) or not isinstance(x, int) or not self.lo <= x <= self.hi:
            raise ViewError(path, f"must be {self.what} in {self.lo}..{self.hi}, got {show(x)}")
        return x

    def schema(self) -> dict:
        return {"type": "integer", "minimum": self.lo, "maximum": self.hi}


class Seat(Int):
    """A seat number ``0..n-1``."""

    def __init__(self, n: int):
        super().__init__(0, n - 1, "a seat number")


class Bool(Spec):
    def check(self, x: Any, path: str) -> bool:
        if not isinstance(x, bool):
            raise ViewError(path, f"must be true or false, got {show(x)}")
        return x

    def schema(self) -> dict:
        return {"type": "boolean"}


class Enum(Spec):
    """One of a fixed set of strings, matched exactly."""

    def __init__(self, values: Sequence[str], what: str = ""):
        self.values = tuple(values)
        self._set = frozenset(self.values)
        self.what = what or ", ".join(map(show, self.values))

    def check(self, x: Any, path: str) -> str:
        if not isinstance(x, str) or x not in self._set:
            raise ViewError(path, f"must be one of {self.what}; got {show(x)}")
        return x

    def schema(self) -> dict:
        return {"type": "string", "enum": list(self.values)}


class Card(Spec):
    """A card name, exactly as the game writes it; parsed to the card id."""

    def __init__(self, names: Sequence[str], hint: str):
        self.names = tuple(names)
        self.ids = {n: i for i, n in enumerate(self.names)}
        self.hint = hint

    def check(self, x: Any, path: str) -> int:
        if not isinstance(x, str):
            raise ViewError(path, f"a card is a name (string), got {show(x)}")
        c = self.ids.get(x)
        if c is None:
            why = (" (no spaces around card names)" if x.strip() in self.ids else
                   " (names are case-sensitive)" if x.strip().lower() in
                   {n.lower() for n in self.names} else "")
            raise ViewError(path, f"unknown card {show(x)}{why}; cards: {self.hint}")
        return c

    def schema(self) -> dict:
        return {"type": "string", "enum": list(self.names)}


class ListOf(Spec):
    """A JSON array of ``item``; ``length`` exact (int) or ``(min, max)``; ``ordered=False``
    means a set (compared as a set in :meth:`diff`; ``unique`` refuses repeats)."""

    def __init__(self, item: Spec, length: int | tuple[int, int] | None = None, *,
                 most: int | None = None, unique: bool = False, ordered: bool = True,
                 what: str = ""):
        self.item, self.unique, self.ordered, self.what = item, unique, ordered, what
        if isinstance(length, int):
            self.lo = self.hi = length
        elif length is not None:
            self.lo, self.hi = length
        else:
            self.lo, self.hi = 0, most

    def check(self, x: Any, path: str) -> list:
        if not isinstance(x, list):
            raise ViewError(path, f"must be an array, got {type_name(x)} {show(x, 40)}")
        n = len(x)
        if self.hi is not None and self.lo == self.hi and n != self.lo:
            raise ViewError(path, f"must have {self.lo} entries{self.what}, got {n}")
        if n < self.lo or (self.hi is not None and n > self.hi):
            raise ViewError(path, f"must have {self.lo}..{self.hi} entries, got {n}")
        out = [self.item.check(y, _join(path, i)) for i, y in enumerate(x)]
        if self.unique:
            seen: dict[Any, int] = {}
            for i, v in enumerate(out):
                if v in seen:
                    raise ViewError(_join(path, i), f"{show(x[i])} appears twice (also at "
                                                    f"{_join(path, seen[v])})")
                seen[v] = i
        return out

    def schema(self) -> dict:
        s: dict[str, Any] = {"type": "array", "items": self.item.json_schema()}
        if self.lo:
            s["minItems"] = self.lo
        if self.hi is not None:
            s["maxItems"] = self.hi
        if self.unique:
            s["uniqueItems"] = True
        return s

    def diff(self, given: Any, canon: Any, path: str) -> tuple[str, Any, Any] | None:
        if not self.ordered:
            key = self.item.check if isinstance(self.item, Card) else (lambda v, _p: v)
            if sorted(key(v, path) for v in given) == sorted(key(v, path) for v in canon):
                return None
            return path, given, canon
        if len(given) != len(canon):
            return path, given, canon
        for i, (a, b) in enumerate(zip(given, canon)):
            d = self.item.diff(a, b, _join(path, i))
            if d:
                return d
        return None


def Cards(names: Sequence[str], hint: str, *, most: int | None = None,
          ordered: bool = False) -> ListOf:
    """A list of card names, each at most once (a set unless ``ordered``)."""
    return ListOf(Card(names, hint), most=most, unique=True, ordered=ordered)


class Nullable(Spec):
    """``null`` or ``inner``."""

    def __init__(self, inner: Spec):
        self.inner = inner
        self.doc = inner.doc

    def check(self, x: Any, path: str) -> Any:
        return None if x is None else self.inner.check(x, path)

    def schema(self) -> dict:
        return {"anyOf": [self.inner.schema(), {"type": "null"}]}

    def diff(self, given: Any, canon: Any, path: str) -> tuple[str, Any, Any] | None:
        if given is None or canon is None:
            return None if given is canon else (path, given, canon)
        return self.inner.diff(given, canon, path)


class Field:
    """A key of an :class:`Obj`: its spec, whether it is required, what it means."""

    def __init__(self, spec: Spec, required: bool, doc: str):
        self.spec, self.required, self.doc = spec, required, doc


def req(spec: Spec, doc: str = "") -> Field:
    """A key the view must give: a fact the server cannot work out."""
    return Field(spec, True, doc)


def opt(spec: Spec, doc: str = "") -> Field:
    """A derived key: may be left out; checked against the rules when given."""
    return Field(spec, False, doc + (" Optional (derived): checked when given." if doc else ""))


class Obj(Spec):
    """A JSON object with known keys; unknown keys are refused.  Parses to a dict of the
    given keys' parsed values."""

    def __init__(self, fields: dict[str, Field], doc: str = ""):
        self.fields, self.doc = fields, doc

    def check(self, x: Any, path: str) -> dict:
        if not isinstance(x, dict):
            raise ViewError(path, f"must be an object with keys {', '.join(self.fields)}; "
                                  f"got {type_name(x)} {show(x, 40)}")
        unknown = [k for k in x if k not in self.fields]
        if unknown:
            raise ViewError(path, f"unknown key(s) {', '.join(show(k) for k in unknown)}; "
                                  f"known keys: {', '.join(self.fields)}")
        missing = [k for k, f in self.fields.items() if f.required and k not in x]
        if missing:
            raise ViewError(path, f"missing required key(s) {', '.join(map(show, missing))}")
        return {k: f.spec.check(x[k], _join(path, k)) for k, f in self.fields.items() if k in x}

    def schema(self) -> dict:
        props = {}
        for k, f in self.fields.items():
            s = f.spec.json_schema()
            props[k] = {**s, "description": f.doc} if f.doc else s
        return {"type": "object", "properties": props,
                "required": [k for k, f in self.fields.items() if f.required],
                "additionalProperties": False}

    def diff(self, given: Any, canon: Any, path: str) -> tuple[str, Any, Any] | None:
        for k, f in self.fields.items():
            if k in given:
                if k not in canon:
                    return _join(path, k), given[k], None
                d = f.spec.diff(given[k], canon[k], _join(path, k))
                if d:
                    return d
        return None


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
    table = _LABELS.get(key)
    if table is None:
        table = _LABELS[key] = {game.action_label(a): a for a in range(game.num_actions)}
    return table


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


__all__ = [
    "Bool", "Card", "Cards", "Const", "Enum", "Field", "Int", "Legal", "ListOf", "Nullable",
    "Obj", "Options", "Seat", "Seen", "Spec", "ViewError", "ViewSchema", "check_action",
    "check_seat", "deal_order", "head", "header", "label_action", "labels", "legal_labels",
    "opt", "per_seat", "replay", "req", "same", "show", "shuffled", "trick_fields", "trick_view",
    "type_name",
]
