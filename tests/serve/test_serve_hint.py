"""Hints: what a search bot would play for a player view, and how much worse each alternative is.

``POST /bots/{name}/hint`` (and a JSON-lines request with ``"hint": true``)
answers the move exactly as ``/act`` does for the same view and seed, plus
every legal action's value, standard error and difference to the move -
from the one search that chose it.  Only search bots have values; any other
bot is refused with a 422 naming the bots that can hint.  Bad input gets a
4xx, never a 500 or a traceback, and a hint keeps a move's limits (body
size, work off the event loop).  The OpenAPI side (schemathesis, the exact
answer schema) is in test_serve_openapi.py.
"""

from __future__ import annotations

import io
import json

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("onnxruntime")

from fastapi.testclient import TestClient

from stichzoo import envs
from stichzoo.envs.wizard.view import to_view
from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
from stichzoo.policies.serve import create_app, serve_stdio
from tests.helpers import decision_views, where_called

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
PLAYERS = {"silberne_ananas": 3}
#: levels at a small budget, for speed: the values need 2 worlds for a standard error
LEVELS = ("random", "pimc:worlds=3", "search:worlds=3")
LIMIT = 64 * 1024
VALUE_KEYS = {"action", "action_id", "kind", "value", "stderr", "worlds", "difference",
              "difference_stderr", "reason"}


def hint_views(name: str, count: int, seed: int, least: int = 3) -> list[tuple[object, dict]]:
    """(state, view of the seat to act) at ``count`` decisions with ``least`` legal actions."""
    cls = envs.game_class(name)
    return decision_views(cls(cls.Options(num_players=PLAYERS.get(name, 4))), count, seed, least)


@pytest.fixture(scope="module")
def app():
    return create_app(SHIPPED_BOTS, levels=LEVELS, max_body_bytes=LIMIT, web_table=False)


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app, raise_server_exceptions=False)


def _is_error(r, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"} and isinstance(body["error"], str) and body["error"]
    return body["error"]


def check_hint(answer: dict, state, bot: str) -> None:
    """A hint is the move plus every legal action's value, consistent with the move."""
    legal = state.legal_actions()
    assert answer["bot"] == bot and answer["seat"] == state.current_player
    assert answer["action_id"] in legal and answer["probability"] is None
    values = answer["values"]
    assert [v["action_id"] for v in values] == legal
    chosen = next(v for v in values if v["action_id"] == answer["action_id"])
    assert chosen["action"] == answer["action"] and chosen["kind"] == answer["kind"]
    if answer["why"].endswith("(follow)"):  # a phase the network decides alone: no values
        assert all(v["value"] is None and v["worlds"] == 0 and v["reason"].startswith(
            "not searched: the guide decides") for v in values)
        return
    assert chosen["difference"] == 0.0 and chosen["difference_stderr"] == 0.0
    for v in values:
        assert set(v) == VALUE_KEYS
        if v["value"] is None:
            assert v["worlds"] == 0 and v["reason"] and v["difference"] is None
            continue
        assert v["reason"] is None and v["worlds"] >= 3
        assert v["stderr"] >= 0 and v["difference_stderr"] >= 0
        assert v["difference"] == pytest.approx(v["value"] - chosen["value"])
        if answer["why"] == "the best value":
            assert v["value"] <= chosen["value"]


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_hint_over_http_is_the_move_and_its_values(client, name):
    for state, view in hint_views(name, 2, seed=7):
        for kind in ("pimc", "search"):
            bot = f"{name}-{kind}"
            r = client.post(f"/bots/{bot}/hint?seed=4", json=view)
            assert r.status_code == 200, r.text
            answer = r.json()
            check_hint(answer, state, bot)
            move = client.post(f"/bots/{bot}/act?seed=4", json=view).json()
            assert {k: answer[k] for k in move} == move  # the same move, the same keys
            if kind == "pimc":
                assert all(v["value"] is not None for v in answer["values"])
                assert answer["why"] == "the best value"


def test_the_learned_search_says_which_actions_it_did_not_search(client):
    state, view = next((s, v) for s, v in hint_views("wizard", 20, seed=8, least=5)
                       if s.phase_name == "play")  # Wizard's bids are the network's alone
    answer = client.post("/bots/wizard-search/hint", json=view).json()
    check_hint(answer, state, "wizard-search")
    missing = [v for v in answer["values"] if v["value"] is None]
    assert len(missing) == len(state.legal_actions()) - 3
    assert all(v["reason"] == "not searched: outside the guide's 3 candidates" for v in missing)


def test_a_forced_move_has_no_value(client):
    state, _ = hint_views("wizard", 1, seed=9, least=1)[0]
    while len(state.legal_actions()) != 1:
        state.step(state.legal_actions()[0])
    answer = client.post("/bots/wizard-pimc/hint", json=to_view(state, state.current_player))
    assert answer.status_code == 200
    assert answer.json()["why"] == "the only legal action"
    [only] = answer.json()["values"]
    assert only["value"] is None and only["reason"] == "the only legal action: not searched"


@pytest.mark.parametrize("bot", ["wizard", "wizard-random"])
def test_a_bot_without_values_is_refused_by_name(client, bot):
    _, view = hint_views("wizard", 1, seed=10)[0]
    message = _is_error(client.post(f"/bots/{bot}/hint", json=view), 422)
    assert f"bot {bot!r}" in message and "gives no values" in message
    assert "wizard-pimc" in message and "wizard-search" in message


def test_bad_hints_get_4xx_and_the_server_goes_on(client):
    state, view = hint_views("wizard", 1, seed=11)[0]
    other = hint_views("hoch_tief", 1, seed=11)[0][1]
    cases = [
        ("/bots/nobody/hint", json.dumps(view), 404, "unknown bot"),
        ("/bots/wizard-pimc/hint?seed=-1", json.dumps(view), 422, "seed"),
        ("/bots/wizard-pimc/hint?seed=abc", json.dumps(view), 422, "seed"),
        ("/bots/wizard-pimc/hint", "{oops", 400, "malformed JSON"),
        ("/bots/wizard-pimc/hint", "", 400, "empty"),
        ("/bots/wizard-pimc/hint", "[1, 2]", 422, "JSON object"),
        ("/bots/wizard-pimc/hint", json.dumps(other), 422, "plays wizard"),
        ("/bots/wizard-pimc/hint", json.dumps({**view, "seat": (view["seat"] + 1) % 4}), 422,
         "not to act"),
        ("/bots/wizard-pimc/hint", json.dumps({**view, "hand": ["Q9"]}), 422, "invalid view"),
        ("/bots/wizard-pimc/hint", json.dumps({**view, "totals": [10**400, 0, 0, 0]}), 422, ""),
        ("/bots/wizard-pimc/hint", "[" * 50_000, 400, "nested"),
        ("/bots/wizard-pimc/hint", " " * (LIMIT + 1), 413, "limit"),
    ]
    for url, body, status, text in cases:
        r = client.post(url, content=body, headers={"content-type": "application/json"})
        assert text in _is_error(r, status), url
    check_hint(client.post("/bots/wizard-pimc/hint", json=view).json(), state, "wizard-pimc")


def test_a_hint_runs_off_the_event_loop(app, client, monkeypatch):
    _, view = hint_views("geheimtrumpf", 1, seed=12)[0]
    seen = where_called(monkeypatch, app.state.registry, "hint")
    assert client.post("/bots/geheimtrumpf-pimc/hint", json=view).status_code == 200
    assert seen == ["worker thread"]


def test_hint_over_json_lines():
    state, view = hint_views("wunder_punkt", 1, seed=13)[0]
    good = {"bot": "wunder_punkt-pimc", "view": view}
    lines = [
        json.dumps({"id": 1, **good, "hint": True, "seed": 4}),
        json.dumps({"id": 2, **good, "seed": 4}),                     # the move, for comparison
        json.dumps({"id": 3, **good, "hint": "true"}),                # not a boolean
        json.dumps({"id": 4, "bot": "wunder_punkt-random", "view": view, "hint": True}),
        json.dumps({"id": 5, "bot": "nobody", "view": view, "hint": True}),
        json.dumps({"id": 6, **good, "hint": True, "seed": -1}),
        json.dumps({"id": 7, **good, "hint": True, "view": {**view, "seat": None}}),
        json.dumps({"id": 8, **good, "hint": False}),                 # a move
    ]
    out = io.StringIO()
    assert serve_stdio(SHIPPED_BOTS, io.StringIO("\n".join(lines) + "\n"), out,
                       levels=LEVELS) == 0
    answers = {a["id"]: a for a in map(json.loads, out.getvalue().splitlines())}
    assert set(answers) == set(range(1, 9))
    check_hint(answers[1], state, "wunder_punkt-pimc")
    move = {k: v for k, v in answers[2].items() if k != "id"}
    assert {k: answers[1][k] for k in move} == move  # the hint's move is the move
    assert "values" not in answers[8] and answers[8]["action_id"] in state.legal_actions()
    for i, status, text in [(3, 422, "hint must be true or false"), (4, 422, "gives no values"),
                            (5, 404, "unknown bot"), (6, 422, "seed"), (7, 422, "seat")]:
        assert set(answers[i]) == {"id", "error", "status"}, answers[i]
        assert answers[i]["status"] == status and text in answers[i]["error"], answers[i]
