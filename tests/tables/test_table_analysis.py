"""After the game: each of the person's decisions beside the search's best (issue 33, item 5).

``GET /tables/ID/analysis`` is refused (409) while the game runs; at the end it
lists one entry per decision of the person that had a choice, in game order,
each the hint that decision would have got (the same search, the same seed):
the search's best, the move made, and the estimated loss - 0 when they are the
same, otherwise minus the made move's difference to the best (never below 0).
It is computed once per table, and at most ``max_analyses`` at once (503).
The analysis is honest: a second record in which everything the person's seat
could not see is re-dealt gives the same entries.
"""

from __future__ import annotations

import importlib
import random

import pytest

from stichzoo.envs.core.record import build_record, replay_steps
from stichzoo.policies.tables.hints import game_analysis
from stichzoo.policies.tables.table import Table, TableStore, build_game

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi import FastAPI
from fastapi.testclient import TestClient

from stichzoo.policies.serve.web_table import mount_web_table


@pytest.fixture()
def client():
    app = FastAPI()
    store = mount_web_table(app, TableStore(max_analyses=1))
    with TestClient(app, raise_server_exceptions=False) as c:
        c.store = store
        yield c


def _error(r, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text[:300])
    assert set(r.json()) == {"error"}
    return r.json()["error"]


@pytest.mark.parametrize("game, players, options", [
    ("wizard", 4, {"rounds": [1, 3]}), ("geheimtrumpf", 3, {"round_limit": 1})])
def test_the_analysis_is_each_decision_beside_the_search(client, game, players, options):
    body = {"game": game, "players": players, "options": options, "seat": 1,
            "opponents": ["heuristic", "random"], "seed": 11}
    v = client.post("/tables", json=body).json()
    tid = v["table_id"]
    rng = random.Random(2)
    hints, made = {}, {}
    while not v["over"]:
        assert "still running" in _error(client.get(f"/tables/{tid}/analysis"), 409)
        if len(v["moves"]) > 1:  # the hint this decision gets, to hold the analysis to
            hints[v["decisions"]] = client.post(f"/tables/{tid}/hint",
                                                json={"decisions": v["decisions"]}).json()
        move = rng.choice(v["moves"])["id"]
        made[v["decisions"]] = move
        v = client.post(f"/tables/{tid}/act", json={"move": move,
                                                    "decisions": v["decisions"]}).json()
    r = client.get(f"/tables/{tid}/analysis")
    assert r.status_code == 200, r.text
    answer = r.json()
    entries = answer["decisions"]
    assert [e["decision"] for e in entries] == sorted(hints) and answer["searched"] == len(hints)
    assert len(entries) >= 3
    for e in entries:
        hint = hints[e["decision"]]
        assert e["move"]["id"] == made[e["decision"]]
        assert e["best"]["id"] == hint["move"]["id"] and e["best"]["text"] == hint["move"]["text"]
        assert e["same"] == (e["move"]["id"] == e["best"]["id"])
        mine = next(x for x in hint["values"] if x["id"] == e["move"]["id"])
        if e["same"]:
            assert e["loss"] == 0
        else:
            assert e["loss"] >= 0 and e["loss"] == -mine["difference"]
            assert e["loss_stderr"] == mine["difference_stderr"]
        assert "_" not in e["move"]["text"]  # in the player's words (Geheimtrumpf's tasks)
    assert answer["total_loss"] == pytest.approx(sum(e["loss"] for e in entries), abs=0.02)
    assert any(not e["same"] for e in entries)  # a random player differs from the search
    assert client.get(f"/tables/{tid}/analysis").json() == answer  # kept, the same
    _error(client.get("/tables/nope/analysis"), 404)


def test_analyses_at_once_are_bounded(client):
    """Over ``max_analyses`` computing at once: 503 with Retry-After; a kept one is free."""
    store = client.store
    tid, table = store.create("hoch_tief", num_players=3, options={"rounds": 1},
                              opponents=["random"], seed=4)
    rng = random.Random(0)
    while not table.over:
        table.act(rng.choice(table.view()["moves"])["id"])
    assert store._analysing.acquire(blocking=False)  # another analysis is computing
    try:
        r = client.get(f"/tables/{tid}/analysis")
        assert "busy analysing" in _error(r, 503) and int(r.headers["Retry-After"]) >= 1
    finally:
        store._analysing.release()
    first = client.get(f"/tables/{tid}/analysis").json()
    assert store._analysing.acquire(blocking=False)
    try:  # computed already: no search, no refusal
        assert client.get(f"/tables/{tid}/analysis").json() == first
    finally:
        store._analysing.release()


def _finish(game, state, rng: random.Random):
    while not (state.over or state.truncated):
        state.step(rng.choice(state.legal_actions()))
    return build_record(game, state)


@pytest.mark.parametrize("name, players, options", [
    ("wizard", 4, {"rounds": [4]}), ("hoch_tief", 3, {"rounds": 1}),
    ("geheimtrumpf", 3, {"round_limit": 1})])
def test_the_analysis_uses_only_what_the_seat_could_see(name, players, options):
    """Re-deal what the seat cannot see at its last decision with a choice (the game's own
    ``determinize``), replay that world and play it on: the two records differ in hidden
    cards only up to there (the same move made there), and every entry up to there must be
    the same."""
    game = build_game(name, players, options)
    seat = 1
    record = _finish(game, game.new_game(seed=8, log=True), random.Random(8))
    last, at = None, None
    for state, decision in replay_steps(record):
        if decision["seat"] == seat and len(state.legal_actions()) > 1:
            last, at = state.clone(), len(state.history)
    world = game.determinize(last, seat, random.Random(3))
    again = game.new_state([list(o) for o in world.deck_orders], log=True)
    for seat_, a in world.history:
        assert again.current_player == seat_
        again.step(a)
    view = importlib.import_module(f"stichzoo.envs.{name}.view").to_view
    assert view(again, seat) == view(last, seat)  # the same seat view there
    again.step(record["decisions"][at]["action"])  # and the same move made
    other = _finish(game, again, random.Random(9))
    assert other["deck_orders"] != record["deck_orders"]  # the hidden cards moved
    seeds = lambda n: 1000 + n  # noqa: E731 - as a table seeds its hints
    mine = [e for e in game_analysis(record, seat, seeds) if e["decision"] <= at]
    theirs = [e for e in game_analysis(other, seat, seeds) if e["decision"] <= at]
    assert len(mine) >= 2 and mine == theirs


def test_a_table_analyses_at_the_end_only():
    table = Table("wunder_punkt", 3, options={"rounds": 1}, opponents=["random"], seed=2)
    with pytest.raises(ValueError, match="still running"):
        table.analysis()
    assert not table.analysed
