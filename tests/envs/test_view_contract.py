"""One player-view contract for all five games (issue 17, items 1 and 5).

Checked here across every game, from the one shared definition in
``envs/core/view.py``: every derived key may be left out; booleans are never
seats or numbers; card names are exact (no spaces, exact case); every
integer is bounded (``10**12``, a 5000-digit integer, ``Infinity``, ``NaN``
and ``4.0`` are refused, naming the key); messages speak JSON (no ``True``,
``None``, ``'<missing>'``); ``json_schema()`` is a valid draft 2020-12
schema that every ``to_view`` output validates against; and every view
round-trips through ``from_view`` to the same observation and legal mask.
"""

from __future__ import annotations

import importlib
import json
import random
import re

import numpy as np
import pytest

from stichzoo import envs
from stichzoo.envs.core.view import ListOf, Nullable, Obj, ViewError
from stichzoo.policies.base import Decision

jsonschema = pytest.importorskip("jsonschema")

GAMES = {
    "wizard": {"num_players": 4, "rounds": (1, 3, 5)},
    "hoch_tief": {"num_players": 3, "rounds": 1},
    "wunder_punkt": {"num_players": 4, "rounds": 1},
    "silberne_ananas": {"match": False},
    "geheimtrumpf": {"num_players": 3, "round_limit": 2},
}
BAD_NUMBERS = [10**12, -(10**12), 10**5000, float("inf"), float("nan"), 4.0, True]
PYTHON_WORDS = re.compile(r"\bTrue\b|\bFalse\b|\bNone\b|<missing>|<unknown>")


def _game(name: str):
    cls = envs.game_class(name)
    return cls(cls.Options(**GAMES[name]))


def _views(name: str):
    return importlib.import_module(f"stichzoo.envs.{name}.view")


def _states(game, seed: int, keep: int = 12) -> list:
    """``keep`` states of one random game, spread over it, the final one included."""
    rng = random.Random(seed)
    s = game.new_game(seed)
    all_states = [s.clone()]
    while not (s.over or s.truncated):
        s.step(rng.choice(s.legal_actions()))
        all_states.append(s.clone())
    step = max(1, len(all_states) // keep)
    return [*all_states[::step], all_states[-1]]


@pytest.fixture(scope="module", params=sorted(GAMES))
def table(request):
    name = request.param
    game = _game(name)
    states = _states(game, 5)
    mid = next(s for s in states[len(states) // 3:] if not s.over)
    return name, game, states, mid


def _obs_mask(game, state, seat):
    d = Decision(game, state, seat)
    return d.observation, state.legal_mask() if state.current_player == seat else None


def _round_trip(views, game, view, state, seat, rng=None):
    back = views.from_view(game, view, rng)
    o1, m1 = _obs_mask(game, back, seat)
    o2, m2 = _obs_mask(game, state, seat)
    assert np.array_equal(o1, o2), view
    assert m1 == m2
    return back


def _strip(spec, value):
    """``value`` with every optional (derived) key left out, at every depth."""
    if isinstance(spec, Nullable):
        return None if value is None else _strip(spec.inner, value)
    if isinstance(spec, Obj):
        return {k: _strip(f.spec, value[k]) for k, f in spec.fields.items()
                if k in value and f.required}
    if isinstance(spec, ListOf) and isinstance(value, list):
        return [_strip(spec.item, v) for v in value]
    return value


def test_schema_is_valid_and_every_view_validates_and_round_trips(table):
    name, game, states, _ = table
    views = _views(name)
    schema = views.json_schema(game)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    default = views.json_schema()
    jsonschema.Draft202012Validator.check_schema(default)
    assert default["$schema"].endswith("2020-12/schema")
    checked = 0
    for s in states:
        for seat in range(game.num_players):
            v = json.loads(json.dumps(views.to_view(s, seat)))
            validator.validate(v)
            back = _round_trip(views, game, v, s, seat, random.Random(checked))
            assert views.to_view(back, seat) == v
            checked += 1
    assert checked >= 12 * game.num_players


def test_every_derived_key_is_optional(table):
    name, game, states, _ = table
    views = _views(name)
    spec = views.SCHEMA.spec(game)
    optional = [k for k, f in spec.fields.items() if not f.required]
    assert "legal" in optional and "to_act" in optional and "env" in optional
    checked = 0
    for s in states:
        for seat in range(game.num_players):
            v = views.to_view(s, seat)
            bare = _strip(spec, v)
            assert set(bare) < set(v)
            for t, full in zip(bare.get("tricks", []), v.get("tricks", [])):
                if "gift" in full:  # Silberne Ananas: a Joker trick's gift is a fact, not derived
                    t["gift"] = full["gift"]
            _round_trip(views, game, bare, s, seat)
            _round_trip(views, game, {**v, "legal": []}, s, seat)  # [] = work it out
            for k in optional:  # each one alone, too
                _round_trip(views, game, {x: y for x, y in v.items() if x != k}, s, seat)
            checked += 1
    assert checked > 20


def _refused(views, game, view, path: str | None = None) -> str:
    with pytest.raises(ViewError) as e:
        views.from_view(game, view)
    msg = str(e.value)
    assert msg.startswith(f"{game.name} view: "), msg
    assert not PYTHON_WORDS.search(msg), msg
    if path is not None:
        assert e.value.path == path, msg
        assert not path or msg.startswith(f"{game.name} view: {path}: "), msg
    return msg


def _int_paths(value, path=""):
    """Paths (``totals[0]``, ``trick.leader``) of every integer in a view."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield path
    elif isinstance(value, dict):
        for k, v in value.items():
            if k != "options":
                yield from _int_paths(v, f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _int_paths(v, f"{path}[{i}]")


def _set(view, path, value):
    out = json.loads(json.dumps(view))
    keys = re.findall(r"[^.\[\]]+", path)
    node = out
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


def test_every_number_is_bounded_and_an_integer(table):
    name, game, states, mid = table
    views = _views(name)
    checked = 0
    for s in (mid, states[-1]):
        v = views.to_view(s, max(s.current_player, 0))
        paths = list(_int_paths(v))
        assert paths
        for path in paths:
            for bad in BAD_NUMBERS:
                _refused(views, game, _set(v, path, bad), path)
                checked += 1
    assert checked > 50


def test_booleans_are_not_seats(table):
    name, game, _, mid = table
    views = _views(name)
    v = views.to_view(mid, mid.current_player)
    for key in ("seat", "to_act"):
        for bad in (True, False):
            _refused(views, game, {**v, key: bad}, key)
    if isinstance(v.get("trick"), dict) and "leader" in v["trick"]:
        _refused(views, game, {**v, "trick": {**v["trick"], "leader": True}}, "trick.leader")


def test_card_names_are_exact(table):
    name, game, states, _ = table
    views = _views(name)
    s = next(x for x in states if not x.over and x.hands[x.current_player])
    v = views.to_view(s, s.current_player)
    card = v["hand"][0]
    for bad in (f" {card}", f"{card} ", card.swapcase() if card.swapcase() != card
                else card.lower() + "x"):
        hand = [bad, *v["hand"][1:]]
        msg = _refused(views, game, {**v, "hand": hand}, "hand[0]")
        assert "unknown card" in msg


def test_unknown_and_missing_keys_and_wrong_legal(table):
    name, game, _, mid = table
    views = _views(name)
    seat = mid.current_player
    v = views.to_view(mid, seat)
    assert "extra" in _refused(views, game, {**v, "extra": 1}, "")
    spec = views.SCHEMA.spec(game)
    for k, f in spec.fields.items():
        if f.required:
            assert "missing" in _refused(views, game, {x: y for x, y in v.items() if x != k})
    wrong = [a for a in views.SCHEMA.spec(game).fields["legal"].spec.item.values
             if a not in v["legal"]][:1]
    _refused(views, game, {**v, "legal": wrong}, "legal")
    other = views.to_view(mid, (seat + 1) % game.num_players)
    msg = _refused(views, game, {**other, "legal": v["legal"]}, "legal")
    assert "not to act" in msg
    _refused(views, game, [v])
    _refused(views, game, {**v, "options": {**v["options"], "bogus": None}}, "options")


def test_messages_show_json_not_python():
    from stichzoo.envs.core.view import show

    assert show(True) == "true" and show(None) == "null" and show([1, None]) == "[1, null]"
    assert "digits" in show(10**5000) and show(float("nan")) == "NaN"
    assert show(float("inf")) == "Infinity" and show({"a": False}) == '{"a": false}'
    assert len(show(list(range(1000)))) < 140
