"""A declarative JSON schema mini-language: one definition, three uses.

A schema is a tree of small specs - :class:`Int`, :class:`Seat`,
:class:`Bool`, :class:`Enum`, :class:`Card`, :class:`Cards`,
:class:`ListOf`, :class:`Nullable`, :class:`Const` and :class:`Obj` (an
object of :class:`Field` keys, each :func:`req` or :func:`opt`).  One
definition gives

- the *shape check* (:meth:`Spec.check`): types, bounds, lengths, exact card
  names, unknown and missing keys; it returns the parsed value (card names
  become card ids);
- the error messages, in JSON terms and naming the key path such as
  ``totals[0]`` or ``tricks[2].cards[1]`` (a :class:`ViewError`);
- the JSON Schema (draft 2020-12, :meth:`Spec.json_schema`) that the bot
  server publishes;
- and :meth:`Spec.diff`, the first place where a checked value differs from
  another (a derived key against the rules' own value).

What the specs promise, in every game:

- integers are JSON integers: ``true``/``false`` are never numbers or seats,
  ``4.0``, ``NaN`` and ``Infinity`` are not integers; every integer is
  bounded (:class:`Int` has no unbounded form);
- card names are exact: canonical spelling and case, no surrounding spaces;
- unknown keys are refused, naming them and the known keys;
- a message shows values as JSON (:func:`show`), never as a Python repr.

The player views (:mod:`stichzoo.envs.core.view`) are written in it.  Pure
Python, no third-party imports: the envs' core install stays numpy +
gymnasium + pettingzoo.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

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


__all__ = [
    "JSON_SCHEMA_DIALECT", "Any_", "Bool", "Card", "Cards", "Const", "Enum", "Field", "Int",
    "ListOf", "Nullable", "Obj", "Seat", "Spec", "ViewError", "opt", "req", "same", "show",
    "type_name",
]
