"""The bot server under bad input, big bodies, slow clients, browsers and load.

Every bad input of issue 17 gets a 4xx ``{"error": ...}`` over HTTP or an
error line on stdio, and the server (or the JSON-lines process) goes on
serving.  Bodies over the limit are refused before they are read, request
work runs off the event loop, half-sent requests are cut off, CORS is
opt-in, and a concurrent load of good and bad requests gets no 5xx and no
illegal answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import socket
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("onnxruntime")

from fastapi.testclient import TestClient

from stichzoo import envs
from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
from stichzoo.policies.serve import create_app, serve_stdio, server_config
from tests.helpers import decision_views, where_called

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
JSON = {"Content-Type": "application/json"}
PLAYERS = {"silberne_ananas": 3}
LIMIT = 256 * 1024  # over the 100,000-bracket body, so its parsing is what is tested


def _game(name: str):
    cls = envs.game_class(name)
    return cls(cls.Options(num_players=PLAYERS.get(name, 4)))


def _views(name: str, count: int, seed: int) -> list[tuple[object, dict]]:
    """(state, view of the seat to act) at ``count`` random decisions of ``name``."""
    return decision_views(_game(name), count, seed, least=1)


@pytest.fixture(scope="module")
def app():
    return create_app(SHIPPED_BOTS, levels=("random", "heuristic"), max_body_bytes=LIMIT)


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app, raise_server_exceptions=False)


@pytest.fixture(scope="module")
def bid_view():
    """A Wizard round-0 bid view (legal: bid 0, bid 1) - the issue's NaN case."""
    for state, view in _views("wizard", 40, seed=3):
        if view["phase"] == "bid":
            return state, view
    raise AssertionError("no bid view")


def _is_error(r, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"} and isinstance(body["error"], str) and body["error"]
    return body["error"]


# -- bad parameters and bodies ----------------------------------------------------------


@pytest.mark.parametrize("query,param", [
    ("sample=true&seed=-1", "seed"), ("seed=abc", "seed"), ("seed=1.5", "seed"),
    ("seed=99999999999999999999", "seed"), ("seed=", "seed"), ("sample=yes", "sample"),
    ("sample=1", "sample"), ("sample=False", "sample"),
])
def test_bad_query_parameters_are_named(client, bid_view, query, param):
    message = _is_error(client.post(f"/bots/wizard/act?{query}", json=bid_view[1]), 422)
    assert f"'{param}'" in message


def test_query_booleans_and_seeds_that_are_right(client, bid_view):
    for query in ("sample=true&seed=0", "sample=false", f"seed={2**63 - 1}"):
        assert client.post(f"/bots/wizard/act?{query}", json=bid_view[1]).status_code == 200


@pytest.mark.parametrize("body,status", [
    (b"[" * 100_000, 400),                       # deep nesting: RecursionError inside json
    (b'{"game": "wizard", "hand": ' + b"[" * 900 + b"]" * 900 + b"}", 422),  # parses, deep
    (b"1" * 5000, 422),                          # 5,000 digits: int conversion limit
    (b'{"game": "wizard", "seat": 1e400}', 422),  # a float overflow: inf
    (b"NaN", 400), (b'{"a": Infinity}', 400),    # not JSON
    (b"\xff\xfe{}", 400),                        # not UTF-8
    (b"", 400), (b"{not json", 400),
    (b"[1, 2, 3]", 422), (b'"a view"', 422),
])
def test_bad_bodies_get_4xx_and_the_server_goes_on(client, bid_view, body, status):
    url = "/bots/wizard/act"
    _is_error(client.post(url, content=body, headers={"content-type": "application/json"}),
              status)
    assert client.post(url, json=bid_view[1]).status_code == 200


def test_huge_totals_never_give_an_action(client, bid_view):
    """10**12 and 10**400 points: 422, never 200 with a card in the bidding phase."""
    _, view = bid_view
    for total in (10**12, 10**400):
        body = json.dumps({**view, "totals": [total, *view["totals"][1:]]})
        message = _is_error(client.post("/bots/wizard/act", content=body, headers=JSON), 422)
        assert "totals" in message or "scores" in message


def test_deep_nesting_inside_a_view_is_refused(client, bid_view):
    for key in ("hand", "bids", "trick"):
        deep = json.dumps(bid_view[1])[:-1] + f', "{key}": ' + "[" * 900 + "]" * 900 + "}"
        _is_error(client.post("/bots/wizard/act", content=deep, headers=JSON), 422)
        _is_error(client.post("/bots/wizard-heuristic/act", content=deep, headers=JSON), 422)


def test_nan_network_gives_422_not_an_action(app, client, bid_view, monkeypatch):
    import numpy as np

    policy = app.state.registry.bots["wizard"].policy

    class NaNSession:
        def run(self, names, feeds):
            n = feeds["action_mask"].shape[1]
            return [np.full((1, n), np.nan, np.float32)] * 2

    monkeypatch.setattr(policy, "session", NaNSession())
    message = _is_error(client.post("/bots/wizard/act", json=bid_view[1]), 422)
    assert "not finite" in message


def test_framework_errors_use_the_one_error_shape(client):
    assert "Not Found" in _is_error(client.get("/no/such/page"), 404)
    r = client.put("/bots/wizard/act")
    _is_error(r, 405)
    assert "POST" in r.headers["allow"]
    assert "unknown bot" in _is_error(client.post("/bots/chess/act", json={}), 404)
    assert "unknown bot" in _is_error(client.get("/bots/chess"), 404)


# -- the body limit -----------------------------------------------------------------------


def test_body_over_the_limit_is_413(client, bid_view):
    r = client.post("/bots/wizard/act", content=b" " * (LIMIT + 1), headers=JSON)
    assert "limit" in _is_error(r, 413) and r.headers["connection"] == "close"
    chunks = (b" " * 8192 for _ in range(LIMIT // 8192 + 2))  # no Content-Length: chunked
    assert "limit" in _is_error(client.post("/bots/wizard/act", content=chunks, headers=JSON), 413)
    padded = json.dumps(bid_view[1]) + " " * (LIMIT - len(json.dumps(bid_view[1])))
    assert client.post("/bots/wizard/act", content=padded, headers=JSON).status_code == 200


def _call(app, headers: list, chunks: list[bytes]) -> tuple[int, int]:
    """Run one raw ASGI request; returns (status, how many body chunks the app read)."""
    read, status = 0, []

    async def receive():
        nonlocal read
        if read < len(chunks):
            read += 1
            return {"type": "http.request", "body": chunks[read - 1],
                    "more_body": read < len(chunks)}
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "path": "/bots/wizard/act", "raw_path": b"/bots/wizard/act",
             "query_string": b"", "headers": headers, "client": ("t", 1),
             "server": ("t", 80), "scheme": "http", "root_path": ""}
    asyncio.run(app(scope, receive, send))
    return status[0], read


def test_limit_is_enforced_without_reading_the_rest(app):
    chunk = b" " * 16384
    kind = (b"content-type", b"application/json")
    status, read = _call(app, [kind, (b"content-length", str(100 * len(chunk)).encode())],
                         [chunk] * 100)
    assert (status, read) == (413, 0)
    status, read = _call(app, [kind, (b"transfer-encoding", b"chunked")], [chunk] * 100)
    assert status == 413 and read == LIMIT // len(chunk) + 1


def test_request_work_runs_off_the_event_loop(app, client, bid_view, monkeypatch):
    seen = where_called(monkeypatch, app.state.registry, "act")
    assert client.post("/bots/wizard/act", json=bid_view[1]).status_code == 200
    assert seen == ["worker thread"]


# -- CORS -------------------------------------------------------------------------------


PREFLIGHT = {"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "content-type"}


def test_cors_is_off_by_default(client, bid_view):
    r = client.options("/bots/wizard/act", headers=PREFLIGHT)
    assert r.status_code == 405 and "access-control-allow-origin" not in r.headers
    r = client.post("/bots/wizard/act", json=bid_view[1], headers={"Origin": PREFLIGHT["Origin"]})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_cors_origin_opt_in(bid_view):
    app = create_app(SHIPPED_BOTS, levels=(), cors_origins=["http://localhost:5173"])
    c = TestClient(app)
    r = c.options("/bots/wizard/act", headers=PREFLIGHT)
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "http://localhost:5173"
    assert "POST" in r.headers["access-control-allow-methods"]
    r = c.post("/bots/wizard/act", json=bid_view[1], headers={"Origin": PREFLIGHT["Origin"]})
    assert r.headers["access-control-allow-origin"] == "http://localhost:5173"
    r = c.post("/bots/chess/act", json={}, headers={"Origin": PREFLIGHT["Origin"]})
    assert r.status_code == 404 and r.headers["access-control-allow-origin"]  # errors too
    r = c.options("/bots/wizard/act", headers={**PREFLIGHT, "Origin": "http://evil.example"})
    assert r.headers.get("access-control-allow-origin") != "http://evil.example"
    with pytest.raises(ValueError, match="CORS origin"):
        create_app(SHIPPED_BOTS, levels=(), cors_origins=["localhost:5173/app"])


# -- JSON lines -------------------------------------------------------------------------


def _strict_json(line: str):
    def no_constant(name):
        raise AssertionError(f"{name} in an answer line: not JSON")

    return json.loads(line, parse_constant=no_constant)


def test_stdio_bad_lines_never_end_the_process(bid_view):
    view = bid_view[1]
    good = {"bot": "wizard", "view": view}
    lines = [
        json.dumps({"id": 1, **good}),
        json.dumps({"id": 2, **good, "seed": -1}),
        json.dumps({"id": 3, "bot": "wizard"}),             # no view: the id is echoed
        json.dumps({"id": 4, **good, "seed": "abc"}),
        json.dumps({"id": 5, **good, "seed": 1.5}),
        json.dumps({"id": 6, **good, "seed": True}),
        json.dumps({"id": 7, **good, "sample": "false"}),   # not true: an error
        "[" * 100_000, "1" * 5000,
        json.dumps({"id": 8, "bot": "wizard", "view": {**view, "totals": [10**400, 0, 0, 0]}}),
        '{"id": 9, "bot": "wizard", "view": {"seat": 1e400}}',
        json.dumps({"id": 10, **good, "seeed": 3}),
        json.dumps({"id": 11, "bot": 7, "view": view}),
        "{oops", "NaN",
        json.dumps({"id": 12, **good, "sample": True, "seed": 5}),
    ]
    out = io.StringIO()
    assert serve_stdio(SHIPPED_BOTS, io.StringIO("\n".join(lines) + "\n"), out, levels=()) == 0
    answers = [_strict_json(line) for line in out.getvalue().splitlines()]
    assert len(answers) == len(lines)
    assert answers[0]["id"] == 1 and answers[0]["action"] in ("bid 0", "bid 1")
    assert answers[-1]["id"] == 12 and answers[-1]["action"] in ("bid 0", "bid 1")
    for answer in answers[1:-1]:
        assert set(answer) == {"id", "error", "status"} and 400 <= answer["status"] < 500
    by_id = {a["id"]: a for a in answers if a["id"] is not None}
    assert set(by_id) == set(range(1, 13))
    assert "view" in by_id[3]["error"]
    assert "sample" in by_id[7]["error"]
    for i in (2, 4, 5, 6):
        assert "seed" in by_id[i]["error"]
    assert "seeed" in by_id[10]["error"]


def test_stdio_bad_bytes_and_long_lines(bid_view):
    good = json.dumps({"id": 1, "bot": "wizard", "view": bid_view[1]}).encode()
    data = b"\xff\xfe\n" + b"x" * (LIMIT + 10) + b"\n" + good + b"\n"
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    out = io.StringIO()
    serve_stdio(SHIPPED_BOTS, stdin, out, levels=(), max_line_bytes=LIMIT)
    answers = [_strict_json(line) for line in out.getvalue().splitlines()]
    assert [a.get("status") for a in answers] == [400, 413, None]
    assert "UTF-8" in answers[0]["error"] and answers[2]["action"] in ("bid 0", "bid 1")


def test_stdio_nan_network_gives_an_error_line(bid_view, monkeypatch):
    import numpy as np

    from stichzoo.policies.serve.registry import BotRegistry

    registry = BotRegistry(SHIPPED_BOTS, levels=())

    class NaNSession:
        def run(self, names, feeds):
            return [np.full((1, feeds["action_mask"].shape[1]), np.nan, np.float32)] * 2

    monkeypatch.setattr(registry.bots["wizard"].policy, "session", NaNSession())
    out = io.StringIO()
    line = json.dumps({"id": "x", "bot": "wizard", "view": bid_view[1], "sample": True})
    serve_stdio(SHIPPED_BOTS, io.StringIO(line + "\n"), out, registry=registry)
    answer = _strict_json(out.getvalue())
    assert answer["id"] == "x" and answer["status"] == 422 and "not finite" in answer["error"]


# -- a real server: timeouts, keep-alive after errors, load -------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _serving(app, **limits):
    """``stichzoo serve``'s uvicorn set-up in a thread, with these timeouts."""
    import uvicorn

    port = _free_port()
    srv = uvicorn.Server(server_config(app, "127.0.0.1", port, log_level="error", **limits))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started:
        assert time.time() < deadline, "server did not start"
        time.sleep(0.05)
    try:
        yield "127.0.0.1", port
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def server(app):
    """Timeouts of one second, so that the tests of them are quick."""
    with _serving(app, request_timeout=1.0, keep_alive=1) as address:
        yield address


@pytest.fixture(scope="module")
def served(app):
    """The default timeouts: under load, one second is less than a busy test machine needs
    to get a request through (the load test then saw connections closed mid-request)."""
    with _serving(app) as address:
        yield address


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


@pytest.mark.parametrize("sent", [
    b"",                                                          # opened, nothing sent
    b"POST /bots/wizard/act HTTP/1.1\r\nHost: x\r\n",             # half-sent headers
    b"POST /bots/wizard/act HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"ga",  # body
])
def test_idle_and_half_sent_connections_are_closed(server, sent):
    with socket.create_connection(server) as sock:
        if sent:
            sock.sendall(sent)
        assert _closed_within(sock, 5.0)


def test_keep_alive_survives_errors_and_load(served):
    import httpx

    host, port = served
    base = f"http://{host}:{port}"
    cases = []
    for name in ("hoch_tief", "wizard"):
        for state, view in _views(name, 30, seed=11):
            for bot in (name, f"{name}-random", f"{name}-heuristic"):
                cases.append((bot, state, view))
    bad = [("wizard", b"[" * 100_000), ("wizard", b"1" * 5000), ("chess", b"{}"),
           ("wizard", b"{oops"), ("wizard", b" " * (LIMIT + 1))]

    with httpx.Client(base_url=base) as c:  # one keep-alive connection: errors do not reset it
        for bot, body in bad[:4]:
            assert 400 <= c.post(f"/bots/{bot}/act", content=body, headers=JSON).status_code < 500
        bot, state, view = cases[0]
        assert c.post(f"/bots/{bot}/act", json=view).status_code == 200

    async def fire():
        limits = httpx.Limits(max_connections=64)
        async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as ac:
            good = [ac.post(f"/bots/{b}/act", json=v) for b, _, v in cases]
            worse = [ac.post(f"/bots/{b}/act", content=body, headers=JSON) for b, body in bad * 4]
            return await asyncio.gather(*good, *worse, return_exceptions=True)

    responses = asyncio.run(fire())
    good, worse = responses[:len(cases)], responses[len(cases):]
    for (bot, state, _view), r in zip(cases, good):
        assert not isinstance(r, Exception) and r.status_code == 200, (bot, r)
        assert (state.legal_mask() >> r.json()["action_id"]) & 1
    for r in worse:
        # a 413 closes the connection; a client may see that before the answer
        if not isinstance(r, Exception):
            assert 400 <= r.status_code < 500, r.text


def test_stdio_error_lines_name_no_server_folder(bid_view, tmp_path, monkeypatch):
    """A refusal that names a file of the server shows it as <server>, as over HTTP."""
    from stichzoo.policies.serve.registry import BotRegistry
    from stichzoo.policies.serve.requests import RequestError

    folder = str(tmp_path / "bots")
    os.makedirs(folder)

    def refuse(self, name, view, **kwargs):
        raise RequestError(f"cannot read {folder}/wizard/manifest.json", 422)

    monkeypatch.setattr(BotRegistry, "act", refuse)
    out = io.StringIO()
    line = json.dumps({"id": 1, "bot": "wizard", "view": bid_view[1]})
    assert serve_stdio(folder, io.StringIO(line + "\n"), out) == 0  # the rule-bot levels
    answer = _strict_json(out.getvalue())
    assert answer["status"] == 422 and folder not in answer["error"]
    assert "<server>/wizard/manifest.json" in answer["error"]
