"""The browser table's HTTP API (policies/serve/web_table.py), held to the bot protocol's bar.

Whole games of every game through the API with a random person, the view
checked against the engine's true state on every answer (no other seat's
hidden card anywhere in the JSON); every bad input - bad ids, unknown tables,
illegal and malformed moves, wrong types, unknown games, options and
opponents, malformed JSON, huge bodies - a 4xx ``{"error": "..."}``, never a
500; idle tables expire to a 404 with the documented message; a restarted
server (a new store) says so; concurrent tables on a real server stay
consistent with the same games played one at a time.
"""

from __future__ import annotations

import json
import random
import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from stichzoo.envs.core.display import Cards, Grid  # noqa: E402
from stichzoo.envs.core.record import replay  # noqa: E402
from stichzoo.envs.registry import display_of  # noqa: E402
from stichzoo.policies.serve.web_table import (  # noqa: E402
    STATIC_FILES,
    WEB_DIR,
    mount_web_table,
    table_options,
)
from stichzoo.policies.tables.table import NOT_FOUND, Table, TableStore  # noqa: E402
from tests.tables.test_table import _check_no_leak  # noqa: E402

JSON = {"Content-Type": "application/json"}
#: a short game of each, the person's seat, the bots
SHORT = {
    "wizard": ({"rounds": [1, 2]}, 4, 1, ["heuristic", "random"]),
    "wunder_punkt": ({"rounds": 1}, 3, 0, ["random"]),
    "silberne_ananas": ({"match": False}, 3, 2, ["heuristic", "random"]),
    "hoch_tief": ({"rounds": 1}, 3, 1, ["heuristic"]),
    "geheimtrumpf": ({"round_limit": 2}, 3, 0, ["random", "heuristic"]),
}
GAMES = list(SHORT)


def _app(store: TableStore | None = None) -> tuple[FastAPI, TableStore]:
    app = FastAPI()
    return app, mount_web_table(app, store)


@pytest.fixture()
def client():
    app, store = _app()
    with TestClient(app, raise_server_exceptions=False) as c:
        c.store = store
        yield c


def _create_body(game: str, seed: int = 3) -> dict:
    options, players, seat, opponents = SHORT[game]
    return {"game": game, "players": players, "options": options, "opponents": opponents,
            "seat": seat, "seed": seed}


def _error(r, status: int) -> str:
    """The answer is ``status`` with exactly ``{"error": <a line>}``."""
    assert r.status_code == status, (r.status_code, r.text[:300])
    body = r.json()
    assert set(body) == {"error"} and isinstance(body["error"], str) and body["error"], body
    assert "Traceback" not in body["error"]
    return body["error"]


def _public(v: dict) -> dict:
    """The HTTP view without the store's own tokens (random ids are no card names)."""
    return {k: x for k, x in v.items() if k not in ("table_id", "instance")}


def _columns(columns) -> list[dict]:
    return [{"title": title, "texts": texts} for title, texts in columns]


def _check_screen(v: dict) -> None:
    """The screen lines are the game's display functions on the seat's view, nothing else."""
    display = display_of(v["game"])
    names = ["You" if p["human"] else f"Seat {p['seat']}" for p in v["players"]]
    screen = v["screen"]
    assert set(screen) == {"where", "seat_columns", "notes", "badges"}
    assert screen["where"] == display.where(v["view"])
    assert screen["badges"] == [{"kind": "note", "text": b.text, "style": b.style}
                                for b in display.badges(v["view"])]
    # every move in the player's words: the label with the game's ids replaced
    assert [m["text"] for m in v["moves"]] == [display.in_words(m["label"]) for m in v["moves"]]
    assert screen["seat_columns"] == _columns(display.seat_columns(v["view"]))
    notes = display.notes(v["view"], names)
    assert len(screen["notes"]) == len(notes)
    for sent, note in zip(screen["notes"], notes):
        if isinstance(note, Grid):
            assert sent == {"kind": "grid", "title": note.title, "columns": list(note.columns),
                            "rows": [[{"cards": list(c.cards), "seats": None if c.seats is None
                                       else list(c.seats)} if isinstance(c, Cards) else c
                                      for c in row] for row in note.rows]}
        else:
            assert sent == {"kind": "note", "text": note.text, "style": note.style}
    for e in v["events"]:
        if e["type"] == "round_end":
            assert e["columns"] == _columns(display.round_columns(e))


# -- whole games ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_through_http(client, game):
    """Create, view, act to the end with a random person: never a hidden card, the end adds up."""
    r = client.post("/tables", json=_create_body(game))
    assert r.status_code == 201, r.text
    v = r.json()
    tid = v["table_id"]
    table = client.store.get(tid)
    _, players, seat, _ = SHORT[game]
    assert v["seat"] == seat and v["to_act"] == seat and len(v["players"]) == players
    assert v["instance"] == client.store.instance
    assert client.get(f"/tables/{tid}").json() == v | {"events": v["events"]}
    _error(client.get(f"/tables/{tid}/record"), 409)  # every hand is in it: the end only
    rng = random.Random(5)
    answers = 0
    while not v["over"]:
        _check_no_leak(table, _public(v))  # the screen lines included
        assert all(e.get("text") for e in v["events"])
        _check_screen(v)
        move = rng.choice(v["moves"])
        # half the moves by label, half by id: both are what the page may send
        r = client.post(f"/tables/{tid}/act",
                        json={"move": move["label"] if answers % 2 else move["id"],
                              "decisions": v["decisions"]})
        assert r.status_code == 200, r.text
        v = r.json()
        answers += 1
    assert v["to_act"] is None and v["moves"] == [] and v["summary"]
    _check_screen(v)
    _error(client.post(f"/tables/{tid}/act", json={"move": 0, "decisions": v["decisions"]}),
           409)
    record = client.get(f"/tables/{tid}/record").json()
    assert replay(record).totals == v["summary"]["totals"] == list(table._state.totals)
    assert record["decisions"][-1]["seat"] in range(players)
    events = client.get(f"/tables/{tid}/events", params={"after": -1}).json()["events"]
    assert [e["n"] for e in events] == list(range(len(events)))
    ends = [e for e in events if e["type"] == "round_end"]
    assert ends and all(e["columns"] == _columns(display_of(game).round_columns(e))
                        for e in ends)
    assert events[-1]["type"] == "game_over" and events[-1]["text"].startswith("Game over")
    assert client.delete(f"/tables/{tid}").json() == {"closed": tid}
    assert _error(client.get(f"/tables/{tid}"), 404) == NOT_FOUND


def test_the_same_seed_and_moves_give_the_same_game(client):
    """Determinism over HTTP: two tables, one seed, the same moves, the same views."""
    views = []
    for _ in range(2):
        v = client.post("/tables", json=_create_body("wizard", seed=11)).json()
        seq = [_public(v)]
        while not v["over"]:
            v = client.post(f"/tables/{v['table_id']}/act",
                            json={"move": v["moves"][0]["id"],
                                  "decisions": v["decisions"]}).json()
            seq.append(_public(v))
        views.append(seq)
    assert views[0] == views[1] and len(views[0]) > 2


def test_options_list_games_options_and_opponents(client):
    """What a page may choose: every game, its player counts, options and rated opponents."""
    r = client.get("/tables/options").json()
    assert set(r["games"]) == set(GAMES)
    assert r["instance"] == client.store.instance and r["idle_timeout"] == 1800
    wizard = r["games"]["wizard"]
    assert wizard["players"] == [3, 4, 5, 6] and wizard["default_players"] == 4
    assert r["games"]["silberne_ananas"]["players"] == [3]
    assert r["games"]["geheimtrumpf"]["players"] == [3, 4]
    assert {o["name"]: o["kind"] for o in wizard["options"]}["rounds"] == "int_list_or_null"
    for game, g in r["games"].items():
        levels = {o["spec"]: o["level"] for o in g["opponents"]}
        assert levels["random"] == "easy" and levels["heuristic"] == "medium"
        assert levels["pimc"] == "hard"
        Table(game, options=g["short_options"], opponents="random", seed=1)  # short: valid
        bots = [o for o in g["opponents"] if o["kind"] == "trained"]
        assert [o["spec"] for o in bots] == [f"bot:{game}"]  # every game ships a bot
        search = [o for o in g["opponents"] if o["kind"] == "search"]
        assert [o["spec"] for o in search] == ["search"] and levels["search"] == "hard"
        assert search[0]["num_players"] == bots[0]["num_players"]  # the bot's table only
    # a game's own table seats its shipped bot
    t = client.post("/tables", json={"game": "hoch_tief", "opponents": ["bot:hoch_tief"],
                                     "seed": 2})
    assert t.status_code == 201, t.text
    assert t.json()["players"][1]["policy"] == "bot:hoch_tief"
    # and the search it guides; elsewhere both are refused by name
    t = client.post("/tables", json={"game": "geheimtrumpf", "opponents": ["search"], "seed": 2})
    assert t.status_code == 201, t.text
    assert t.json()["players"][1]["policy"] == "search"
    t = client.post("/tables", json={"game": "geheimtrumpf", "players": 3,
                                     "opponents": ["search"], "seed": 2})
    assert t.status_code == 422 and "search" in t.json()["error"], t.text


# -- bad input -------------------------------------------------------------------------------

BAD_CREATE = [
    (b"{", 400), (b"", 400), (b"[]", 422), (b"null", 422), (b'"wizard"', 422), (b"7", 422),
    (b'{"game": NaN}', 400), (b'{"game": "wizard", "seed": Infinity}', 400),
    (b"\xff\xfe{}", 400), (b"[" * 5000 + b"]" * 5000, 400),
    (b'{"game": "wizard"} trailing', 400),
]
BAD_CREATE_JSON = [
    ({}, 422), ({"game": 5}, 422), ({"game": None}, 422), ({"game": ["wizard"]}, 422),
    ({"game": "chess"}, 422), ({"game": "Wizard"}, 422),
    ({"game": "wizard", "players": True}, 422), ({"game": "wizard", "players": "4"}, 422),
    ({"game": "wizard", "players": 4.0}, 422), ({"game": "wizard", "players": 2}, 422),
    ({"game": "wizard", "players": 99}, 422), ({"game": "wizard", "players": 10**30}, 422),
    ({"game": "silberne_ananas", "players": 4}, 422),
    ({"game": "wizard", "seat": -1}, 422), ({"game": "wizard", "seat": True}, 422),
    ({"game": "wizard", "seat": 4}, 422), ({"game": "wizard", "seat": "0"}, 422),
    ({"game": "wizard", "seed": -1}, 422), ({"game": "wizard", "seed": 1.5}, 422),
    ({"game": "wizard", "seed": 2**60}, 422), ({"game": "wizard", "seed": "7"}, 422),
    ({"game": "wizard", "seed": False}, 422),
    ({"game": "wizard", "options": []}, 422), ({"game": "wizard", "options": "rounds=1"}, 422),
    ({"game": "wizard", "options": {"nope": 1}}, 422),
    ({"game": "wizard", "options": {"rounds": "x"}}, 422),
    ({"game": "wizard", "options": {"rounds": [99]}}, 422),
    ({"game": "wizard", "options": {"rounds": []}}, 422),
    ({"game": "wizard", "options": {"rounds": [True]}}, 422),
    ({"game": "wizard", "options": {"rounds": {"a": 1}}}, 422),
    ({"game": "wizard", "options": {"num_players": 3}, "players": 4}, 422),
    ({"game": "wizard", "options": {"dealer_bid_restriction": 1}}, 422),
    ({"game": "wunder_punkt", "options": {"larger_hands": True}}, 422),
    ({"game": "geheimtrumpf", "options": {"round_limit": 0}}, 422),
    ({"game": "wizard", "opponents": []}, 422), ({"game": "wizard", "opponents": [1]}, 422),
    ({"game": "wizard", "opponents": {"a": 1}}, 422), ({"game": "wizard", "opponents": None},
                                                        422),
    ({"game": "wizard", "opponents": ["onnx:path=/etc"]}, 422),
    ({"game": "wizard", "opponents": ["ppo:path=/tmp/x.pt"]}, 422),
    ({"game": "wizard", "opponents": ["pimc:worlds=100000"]}, 422),
    ({"game": "wizard", "opponents": ["bot:hoch_tief"]}, 422),
    ({"game": "wizard", "opponents": ["nobody"]}, 422),
    ({"game": "wizard", "opponents": ["random"] * 4}, 422),
    ({"game": "wizard", "opponents": ["bot:wizard"], "options": {"rounds": [1]}}, 422),
    ({"game": "wizard", "opponents": ["bot:wizard"], "players": 3}, 422),
    ({"game": "wizard", "deck_orders": [[0]]}, 422), ({"game": "wizard", "human_seat": 0}, 422),
]


@pytest.mark.parametrize("raw,status", BAD_CREATE)
def test_malformed_create_bodies_are_refused(client, raw, status):
    _error(client.post("/tables", content=raw, headers={"Content-Type": "application/json"}),
           status)
    assert len(client.store) == 0


@pytest.mark.parametrize("body,status", BAD_CREATE_JSON)
def test_bad_create_arguments_are_refused(client, body, status):
    message = _error(client.post("/tables", json=body), status)
    assert len(client.store) == 0
    if body.get("game") == "chess":
        assert "wizard" in message  # names the choices
    if any("path=" in str(o) for o in body.get("opponents") or []):
        assert "choose from" in message


def test_bad_moves_and_ids_are_refused_and_change_nothing(client):
    v = client.post("/tables", json=_create_body("wizard")).json()
    tid = v["table_id"]
    before = client.get(f"/tables/{tid}").json()
    url = f"/tables/{tid}/act"
    illegal = next(a for a in range(60) if a not in {m["id"] for m in v["moves"]})
    now = {"decisions": v["decisions"]}
    legal = v["moves"][0]["id"]
    for body, status in [
        ({"move": legal}, 422), ({"move": legal, "decisions": v["decisions"] + 1}, 409),
        ({"move": legal, "decisions": True}, 422), ({"move": legal, "decisions": "1"}, 422),
        ({"move": legal, "decisions": -1}, 422), ({"move": legal, "decisions": None}, 422),
        ({"move": True}, 422), ({"move": False}, 422), ({"move": 1.5}, 422),
        ({"move": None}, 422), ({"move": [1]}, 422), ({"move": {"id": 1}}, 422),
        ({"move": 999}, 422), ({"move": -1}, 422), ({"move": 10**40}, 422),
        ({"move": illegal}, 422), ({"move": "zz"}, 422), ({"move": ""}, 422),
        ({"move": "x" * 5000}, 422), ({}, 422), ({"moves": 1}, 422),
        ({"move": v["moves"][0]["id"], "seat": 0}, 422), ([v["moves"][0]["id"]], 422),
    ]:
        if isinstance(body, dict) and "move" in body and body["move"] != legal:
            body = {**body, **now}  # the move itself is what is wrong
        message = _error(client.post(url, json=body), status)
        if body == {"move": legal}:
            assert '"decisions": N' in message and "played once" in message
        if isinstance(body, dict) and set(body) == {"move", "decisions"} and status == 422 \
                and type(body["decisions"]) is int and body["decisions"] == v["decisions"] \
                and type(body["move"]) in (int, str) \
                and len(str(body["move"])) <= 100:
            assert "legal moves" in message
    for raw in (b"{", b"", b'{"move": NaN}', b"\x80", b'{"move": 1}{"move": 2}'):
        _error(client.post(url, content=raw, headers=JSON), 400)
    _error(client.post(url, content=b'{"move": "' + b"a" * 40_000 + b'"}', headers=JSON), 413)
    _error(client.post(url, content=b"1",
                       headers={**JSON, "Content-Length": "99999999"}), 413)
    assert client.get(f"/tables/{tid}").json() == before  # nothing changed
    # unknown, malformed and absurd table ids: 404 with the documented message
    for bad in ("nope", "x" * 300, "%00", "a.b", "' OR 1=1 --", tid.upper() if tid.upper() != tid
                else tid + "x"):
        assert _error(client.get(f"/tables/{bad}"), 404) == NOT_FOUND
        assert _error(client.post(f"/tables/{bad}/act", json={"move": 1}), 404) == NOT_FOUND
        assert _error(client.get(f"/tables/{bad}/record"), 404) == NOT_FOUND
        assert _error(client.delete(f"/tables/{bad}"), 404) == NOT_FOUND
    # 404 before a byte of the body: even a huge one
    assert _error(client.post("/tables/nope/act", content=b"{" * 40_000, headers=JSON),
                  404) == NOT_FOUND
    # the other endpoints and methods answer in the same shape
    _error(client.get(f"/tables/{tid}/events", params={"after": "abc"}), 422)
    _error(client.get(f"/tables/{tid}/events", params={"after": "1" * 40}), 422)
    assert client.get(f"/tables/{tid}/events", params={"after": 10**6}).json()["events"] == []
    _error(client.get(f"/tables/{tid}/nope"), 404)
    _error(client.get("/tables"), 405)  # ids are never listed
    _error(client.put(f"/tables/{tid}"), 405)
    _error(client.post(f"/tables/{tid}"), 405)
    _error(client.get("/static/nope.js"), 404)
    _error(client.get("/static/..%2Fweb_table.py"), 404)
    _error(client.get("/static/..%2Fweb.py"), 404)  # the module beside static/
    assert client.get(f"/tables/{tid}").json() == before


def test_expired_tables_answer_404_with_the_documented_message():
    now = [0.0]
    store = TableStore(idle_timeout=60, clock=lambda: now[0])
    app, _ = _app(store)
    with TestClient(app, raise_server_exceptions=False) as c:
        keep = c.post("/tables", json=_create_body("hoch_tief")).json()["table_id"]
        old = c.post("/tables", json=_create_body("hoch_tief")).json()["table_id"]
        now[0] = 50.0
        assert c.get(f"/tables/{keep}").status_code == 200  # touched: its idle time restarts
        now[0] = 100.0
        assert _error(c.get(f"/tables/{old}"), 404) == NOT_FOUND
        assert _error(c.post(f"/tables/{old}/act", json={"move": 0}), 404) == NOT_FOUND
        assert c.get(f"/tables/{keep}").status_code == 200
        assert c.get("/tables/options").json()["idle_timeout"] == 60


def test_a_restarted_server_says_the_table_is_gone():
    """Tables live in memory: a new store (a restart) knows no old id, and its instance differs."""
    app1, store1 = _app()
    app2, store2 = _app()
    with TestClient(app1) as c1, TestClient(app2, raise_server_exceptions=False) as c2:
        v = c1.post("/tables", json=_create_body("wunder_punkt")).json()
        assert v["instance"] == store1.instance != store2.instance
        assert c2.get("/tables/options").json()["instance"] == store2.instance
        assert _error(c2.get(f"/tables/{v['table_id']}"), 404) == NOT_FOUND


def test_a_full_store_answers_503():
    app, _ = _app(TableStore(max_tables=1))
    with TestClient(app, raise_server_exceptions=False) as c:
        assert c.post("/tables", json=_create_body("hoch_tief")).status_code == 201
        assert "too many tables" in _error(c.post("/tables", json=_create_body("hoch_tief")),
                                           503)


def test_the_page_is_served_and_needs_nothing_from_outside(client):
    """/ and /static/* serve the page; no file names a host (no CDN, no web fonts)."""
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "/static/table.js" in r.text and "/static/table.css" in r.text
    for name, media in STATIC_FILES.items():
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and r.headers["content-type"] == media
        text = (Path(WEB_DIR) / name).read_text()
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text, re.I), name
        assert "@import" not in text and "@font-face" not in text
    js = (Path(WEB_DIR) / "table.js").read_text()
    assert "innerHTML" not in js  # the server's strings are text, never markup


def test_options_carry_each_games_cards_from_its_display_facts(client):
    """Suits and every card's suit, rank and face: what envs/<game>/display.py declares."""
    games = client.get("/tables/options").json()["games"]
    for game, g in games.items():
        display = display_of(game)
        assert g["title"] == display.title
        assert g["suits"] == [{"key": s.key, "name": s.name, "colour": s.colour}
                              for s in display.suits]
        table = Table(game, options=g["short_options"], opponents="random", seed=1)
        assert set(table.game.deck.names) <= set(g["cards"])
        for card, facts in g["cards"].items():
            face = display.face(card)
            assert facts == {"suit": display.suit_of(card), "rank": display.rank(card),
                             "text": face.text, "sub": face.sub, "title": face.title}
            assert card in facts["title"] and facts["text"]
    assert games["wizard"]["cards"]["W1"]["title"] == "Wizard (W1)"
    assert games["wizard"]["cards"]["B7"] == {"suit": "B", "rank": 7, "text": "7",
                                             "sub": "B", "title": "blue 7 (B7)"}
    assert games["wunder_punkt"]["cards"]["10h"]["text"] == "10\u2665"
    assert games["silberne_ananas"]["cards"]["Joker"]["suit"] == "Joker"


def test_table_options_reads_the_shipped_bots_only(tmp_path):
    """A bots folder without manifests offers the rule bots alone."""
    games = table_options(str(tmp_path))["games"]
    assert all([o["spec"] for o in g["opponents"]] == ["random", "heuristic", "pimc"]
               for g in games.values())


def test_mounts_beside_the_bot_server():
    """create_app mounts the table: both APIs and the page in one app (`stichzoo serve`)."""
    from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
    from stichzoo.policies.serve import create_app

    app = create_app(SHIPPED_BOTS)
    assert isinstance(app.state.table_store, TableStore)
    assert not hasattr(create_app(SHIPPED_BOTS, web_table=False).state, "table_store")
    with TestClient(app, raise_server_exceptions=False) as c:
        assert c.get("/bots").status_code == 200
        assert c.get("/").status_code == 200
        v = c.post("/tables", json=_create_body("geheimtrumpf")).json()
        assert v["to_act"] == 0
        assert _error(c.post(f"/tables/{v['table_id']}/act", json={"move": True}), 422)
        assert _error(c.post("/tables", content=b"{", headers=JSON), 400)


# -- many tables at once, on a real server ----------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def live_server():
    import uvicorn

    app, store = _app()
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", store
    server.should_exit = True
    thread.join(10)


def _play_http(base: str, game: str, seed: int) -> tuple[list, list]:
    """One table played to the end over HTTP (a random person seeded by ``seed``)."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base, timeout=30) as c:
        v = c.post("/tables", json=_create_body(game, seed)).json()
        moves = []
        while not v["over"]:
            m = rng.choice(v["moves"])["id"]
            moves.append(m)
            r = c.post(f"/tables/{v['table_id']}/act",
                       json={"move": m, "decisions": v["decisions"]})
            assert r.status_code == 200, r.text
            v = r.json()
        return moves, v["summary"]["totals"]


def test_concurrent_tables_stay_consistent(live_server):
    """Ten tables at once, five games: each ends as the same game played alone does."""
    base, _ = live_server
    jobs = [(game, seed) for seed in (1, 2) for game in GAMES]
    with ThreadPoolExecutor(len(jobs)) as pool:
        results = list(pool.map(lambda j: _play_http(base, *j), jobs))
    for (game, seed), (moves, totals) in zip(jobs, results):
        options, players, seat, opponents = SHORT[game]
        alone = Table(game, players, options=options, opponents=opponents, human_seat=seat,
                      seed=seed)
        for m in moves:
            alone.act(m)
        assert alone.over and alone.summary()["totals"] == totals, (game, seed)


def test_racing_moves_at_one_table_never_break_it(live_server):
    """Two clients send moves to one table at once: each answer is a view or a 4xx, and the
    table ends as a legal, replayable game."""
    base, _ = live_server
    with httpx.Client(base_url=base, timeout=30) as c:
        tid = c.post("/tables", json=_create_body("hoch_tief", 4)).json()["table_id"]

    def racer(k: int) -> list[int]:
        statuses = []
        rng = random.Random(k)
        with httpx.Client(base_url=base, timeout=30) as c:
            while True:
                v = c.get(f"/tables/{tid}").json()
                if v["over"]:
                    return statuses
                r = c.post(f"/tables/{tid}/act", json={"move": rng.choice(v["moves"])["id"],
                                                       "decisions": v["decisions"]})
                statuses.append(r.status_code)
                if r.status_code != 200:
                    _error(r, r.status_code)

    with ThreadPoolExecutor(2) as pool:
        statuses = [s for part in pool.map(racer, (1, 2)) for s in part]
    assert set(statuses) <= {200, 422, 409} and 200 in statuses
    with httpx.Client(base_url=base, timeout=30) as c:
        record = c.get(f"/tables/{tid}/record").json()
    assert replay(json.loads(json.dumps(record))).totals == record["totals"]


def test_bodies_that_are_not_json_are_refused_alike_by_both_apis():
    """One reader of request bodies (policies/serve/requests.py) for the bots and the tables."""
    from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
    from stichzoo.policies.serve import create_app

    app = create_app(SHIPPED_BOTS, levels=("random",))
    with TestClient(app, raise_server_exceptions=False) as c:
        for raw in (b"", b"  ", b"\xff\xfe{}", b"{", b"NaN", b'{"a": Infinity}', b"[" * 10_000,
                    b'{"move": 1}{"move": 2}'):
            bot = _error(c.post("/bots/wizard-random/act", content=raw, headers=JSON), 400)
            table = _error(c.post("/tables", content=raw, headers=JSON), 400)
            assert bot == table and bot.startswith("malformed JSON"), (raw[:20], bot, table)
        bot = _error(c.post("/bots/wizard-random/act", content=b"1" * 5000, headers=JSON), 422)
        assert bot == _error(c.post("/tables", content=b"1" * 5000, headers=JSON), 422)


def test_a_move_is_played_exactly_once(live_server):
    """Two different legal moves sent to one table at the same moment: exactly one lands, the
    other gets 409; a repeated move and a stale tab's move get 409 and play nothing."""
    base, store = live_server
    landed = 0
    with httpx.Client(base_url=base, timeout=30) as c:
        for seed in range(8):
            v = c.post("/tables", json=_create_body("hoch_tief", seed)).json()
            tid = v["table_id"]
            moves = v["moves"][:2] if len(v["moves"]) > 1 else v["moves"] * 2
            gate = threading.Barrier(2)

            def send(move, tid=tid, v=v, gate=gate):
                with httpx.Client(base_url=base, timeout=30) as own:
                    gate.wait()
                    return own.post(f"/tables/{tid}/act",
                                    json={"move": move["id"], "decisions": v["decisions"]})

            with ThreadPoolExecutor(2) as pool:
                answers = list(pool.map(send, moves))
            statuses = sorted(r.status_code for r in answers)
            assert statuses == [200, 409], [r.text for r in answers]
            stale = next(r for r in answers if r.status_code == 409)
            assert "nothing was played" in _error(stale, 409)
            after = c.get(f"/tables/{tid}").json()
            since = store.get(tid)._state.history[v["decisions"]:]
            assert [seat for seat, _ in since].count(v["seat"]) == 1  # one human move
            # the same move again (a double click, a retry): refused, the table unchanged
            again = c.post(f"/tables/{tid}/act",
                           json={"move": moves[0]["id"], "decisions": v["decisions"]})
            _error(again, 409)
            assert c.get(f"/tables/{tid}").json()["decisions"] == after["decisions"]
            landed += 1
    assert landed == 8


def test_the_version_follows_every_move_cheaply(client):
    """GET /tables/ID/version: what a polling page compares - the decisions and events so far,
    over, the instance - changes with every move (made in any tab) and is 404 once gone."""
    v = client.post("/tables", json=_create_body("wizard")).json()
    tid = v["table_id"]

    def version() -> dict:
        r = client.get(f"/tables/{tid}/version")
        assert r.status_code == 200, r.text
        return r.json()

    events = client.get(f"/tables/{tid}/events", params={"after": -1}).json()["events"]
    first = version()
    assert first == {"decisions": v["decisions"], "events": len(events), "over": False,
                     "instance": client.store.instance}
    assert version() == first  # asking changes nothing
    v = client.post(f"/tables/{tid}/act", json={"move": v["moves"][0]["id"],
                                                "decisions": v["decisions"]}).json()
    second = version()
    assert second["decisions"] == v["decisions"] > first["decisions"]
    assert second["events"] > first["events"]
    client.delete(f"/tables/{tid}")
    assert _error(client.get(f"/tables/{tid}/version"), 404) == NOT_FOUND


def test_a_hint_rates_every_legal_move_and_names_its_decision(client):
    """POST /tables/ID/hint: the search's move (legal), every legal move's value and difference
    to it (0 for it, none better), in the player's words; the same answer twice; a stale
    decision 409, a bad body 422, an unknown table 404; the table is unchanged."""
    for game in ("wizard", "geheimtrumpf"):
        v = client.post("/tables", json=_create_body(game)).json()
        tid = v["table_id"]
        body = {"decisions": v["decisions"]}
        r = client.post(f"/tables/{tid}/hint", json=body)
        assert r.status_code == 200, r.text
        hint = r.json()
        legal = {m["id"]: m for m in v["moves"]}
        assert hint["move"]["id"] in legal and hint["why"]
        assert sorted(x["id"] for x in hint["values"]) == sorted(legal)
        for x in hint["values"]:
            assert x["text"] == legal[x["id"]]["text"] and x["label"] == legal[x["id"]]["label"]
            if x["difference"] is not None:
                assert x["difference"] <= 0
        assert next(x for x in hint["values"] if x["id"] == hint["move"]["id"])["difference"] \
            in (0, None)
        assert client.post(f"/tables/{tid}/hint", json=body).json() == hint
        assert client.get(f"/tables/{tid}").json()["decisions"] == v["decisions"]
        _error(client.post(f"/tables/{tid}/hint", json={"decisions": v["decisions"] + 1}), 409)
        for bad in ({}, {"decisions": True}, {"decisions": -1}, {"decisions": 1, "x": 2}, [1]):
            _error(client.post(f"/tables/{tid}/hint", json=bad), 422)
    if game == "geheimtrumpf":  # tasks in words: "draft no trick", never "draft no_trick"
        assert all("_" not in x["text"] for x in hint["values"])
    _error(client.post("/tables/nope/hint", json={"decisions": 0}), 404)
