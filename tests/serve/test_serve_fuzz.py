"""Client input never gets a 500: bad strings in every string field of every endpoint.

Lone surrogates, control characters and invalid UTF-8 go into every string
of a player view (``POST /bots/{name}/act``, and the same views over JSON
lines), into every field of a new table and of a move, and into path and
query strings; every answer is a 4xx in the one error shape, written in
ASCII, and names no server folder.  The 413 for an oversized body reaches a
client that sends its whole body before reading (Python's urllib).
"""

from __future__ import annotations

import importlib
import io
import json
import os
import random
import urllib.error
import urllib.request

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("onnxruntime")

from fastapi.testclient import TestClient

from stichzoo import envs
from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
from stichzoo.policies.serve import create_app, serve_stdio

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
BAD = ["\udcff", "\x00\x1b[31m", "R7\ud800", "\u202e\ufffe"]
JSON = {"Content-Type": "application/json"}
PLAYERS = {"silberne_ananas": 3}


@pytest.fixture(scope="module")
def client():
    # entered: one event loop for the module's thousand requests, not a new one for each
    with TestClient(create_app(SHIPPED_BOTS, levels=("random",)),
                    raise_server_exceptions=False) as c:
        yield c


def _views(name: str, count: int = 6) -> list[dict]:
    cls = envs.game_class(name)
    game = cls(cls.Options(num_players=PLAYERS.get(name, 4)))
    module = importlib.import_module(f"stichzoo.envs.{name}.view")
    rng, state, out = random.Random(5), game.new_game(seed=5), []
    while len(out) < count and not state.over:
        out.append(module.to_view(state, state.current_player))
        for _ in range(3):
            if not state.over:
                state.step(rng.choice(state.legal_actions()))
    return out


def _string_places(value, place=()):
    """Every place of a string in ``value`` (keys of objects too, as ("key", k))."""
    if isinstance(value, str):
        yield place
    elif isinstance(value, dict):
        for k, v in value.items():
            yield (*place, ("key", k))
            yield from _string_places(v, (*place, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _string_places(v, (*place, i))


def _field_places(value):
    """The first place of each field of ``value``: places that differ only in list
    positions (the fifth card of a hand, the second seat's bid) are one field, read by one
    validator - every field gets every bad text, the same field at its next position adds
    no check (and was 2/3 of the module's requests: a Wunder Punkt view has 100+ cards)."""
    seen = set()
    for place in _string_places(value):
        field = tuple("[]" if isinstance(k, int) else k for k in place)
        if field not in seen:
            seen.add(field)
            yield place


def _put(value, place, text):
    value = json.loads(json.dumps(value))
    inner = value
    for k in place[:-1]:
        inner = inner[k]
    last = place[-1]
    if isinstance(last, tuple):  # a key: renamed
        inner[text] = inner.pop(last[1])
    else:
        inner[last] = text
    return value


def _bad_bodies(value):
    """``value`` with each field's string (and key) replaced by each bad text, as JSON
    bytes; and the same with invalid UTF-8 in place of the string."""
    for place in _field_places(value):
        for text in BAD:
            yield json.dumps(_put(value, place, text)).encode()
        marked = json.dumps(_put(value, place, "\x01MARK\x01")).encode()
        yield marked.replace(b"\\u0001MARK\\u0001", b"\xff\xfe\xed\xa0\x80")


def _is_4xx(r) -> None:
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:200])
    assert r.content.isascii(), r.content[:200]
    body = json.loads(r.content)
    assert isinstance(body.get("error"), str) and body["error"]
    assert os.getcwd() not in body["error"] and SHIPPED_BOTS not in body["error"]


@pytest.mark.parametrize("game", envs.GAMES)
def test_bad_strings_in_every_view_field(client, game):
    for view in _views(game)[::2]:
        for body in _bad_bodies(view):
            _is_4xx(client.post(f"/bots/{game}/act", content=body, headers=JSON))


def test_bad_strings_over_json_lines():
    game = "wizard"
    lines = []
    for view in _views(game, 2):
        request = {"id": 1, "bot": game, "view": view}
        lines += list(_bad_bodies(request))
    out = io.StringIO()
    serve_stdio(SHIPPED_BOTS, io.BytesIO(b"\n".join(lines) + b"\n"), out, levels=())
    answers = out.getvalue().splitlines()
    assert len(answers) == len(lines)
    for line in answers:
        assert line.isascii()
        answer = json.loads(line)
        if "error" in answer:  # a renamed id or bad sample may still be answered
            assert 400 <= answer["status"] < 500, answer


def test_bad_strings_in_the_table_api(client):
    create = {"game": "wizard", "players": 3, "options": {"rounds": [2]},
              "opponents": ["random"], "seat": 0, "seed": 1}
    for body in _bad_bodies(create):
        _is_4xx(client.post("/tables", content=body, headers=JSON))
    view = client.post("/tables", json=create).json()
    tid = view["table_id"]
    move = {"move": view["moves"][0]["label"], "decisions": view["decisions"]}
    for body in _bad_bodies(move):
        _is_4xx(client.post(f"/tables/{tid}/act", content=body, headers=JSON))
    for text in ["%ED%B3%BF", "%00%1B", "%FF%FE", "x%0D%0ASet-Cookie:a"]:
        _is_4xx(client.get(f"/tables/{text}"))
        _is_4xx(client.get(f"/tables/{tid}/events?after={text}"))
        _is_4xx(client.post(f"/tables/{text}/act", content=b"{}", headers=JSON))
        _is_4xx(client.delete(f"/tables/{text}"))
        _is_4xx(client.get(f"/bots/{text}"))
        _is_4xx(client.post(f"/bots/{text}/act", content=b"{}", headers=JSON))
        _is_4xx(client.post(f"/bots/wizard/act?seed={text}", content=b"{}", headers=JSON))
        _is_4xx(client.get(f"/static/{text}"))


def test_413_reaches_a_client_that_sends_the_whole_body_first():
    """urllib sends all of the body before it reads: the server answers, then drains."""
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    from test_serve_hardening import _serving

    app = create_app(SHIPPED_BOTS, levels=("random",), max_body_bytes=1000)
    with _serving(app) as (host, port):
        for size in (10**4, 4 * 10**6):
            request = urllib.request.Request(f"http://{host}:{port}/bots/wizard/act",
                                             data=b" " * size, headers=JSON)
            with pytest.raises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(request, timeout=30)
            assert caught.value.code == 413
            assert "limit" in json.loads(caught.value.read())["error"]
