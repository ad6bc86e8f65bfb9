"""Host, Origin and Content-Type checks: a foreign web page cannot drive a local server.

- a body must be ``application/json`` (415): a ``text/plain`` cross-origin
  "simple" request creates no table;
- the Host header must be an IP address, localhost with the server's port or
  an ``--allowed-host`` name (403; 400 without one): a DNS-rebinding page is
  refused;
- a table change (POST, DELETE) from a page of a foreign origin is refused
  (403) before anything changes; the server's own page and ``--cors-origin``
  origins may; CORS covers every method the API has.
"""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
from stichzoo.policies.serve import create_app
from stichzoo.policies.serve.guard import host_allowed, served_hosts

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
BASE = "http://localhost:8000"
NEW = {"game": "wizard", "players": 3, "options": {"rounds": [1]}, "opponents": ["random"],
       "seed": 1}


def _app(**kwargs):
    return create_app(SHIPPED_BOTS, levels=("random",),
                      allowed_hosts=served_hosts("127.0.0.1", 8000, ["cards.example.org"]),
                      **kwargs)


@pytest.fixture(scope="module")
def app():
    return _app()


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app, base_url=BASE)


def _error(r, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    return r.json()["error"]


def test_host_must_name_this_server(client):
    assert client.get("/tables/options").status_code == 200
    for host in ("127.0.0.1:8000", "[::1]:8000", "LOCALHOST:8000", "192.168.1.5:8000",
                 "cards.example.org", "cards.example.org:443"):
        assert client.get("/tables/options", headers={"Host": host}).status_code == 200, host
    for host in ("evil.example:8000", "evil.example", "localhost:8001", "localhost.evil:8000",
                 "cards.example.org.evil"):
        message = _error(client.get("/bots", headers={"Host": host}), 403)
        assert "--allowed-host" in message and "DNS-rebinding" in message
        _error(client.post("/tables", json=NEW, headers={"Host": host}), 403)


def test_no_host_header_is_400(app):
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "GET", "path": "/bots", "raw_path": b"/bots", "query_string": b"",
             "headers": [], "client": ("t", 1), "server": ("t", 80), "scheme": "http",
             "root_path": ""}
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 400 and b"Host" in sent[1]["body"]


def test_host_rules():
    hosts = served_hosts("0.0.0.0", 8000, ["box.lan", "cards.example.org:443"])
    assert hosts == ["localhost:8000", "box.lan", "cards.example.org:443"]
    assert host_allowed("10.0.0.7:8000", hosts) and host_allowed("[fe80::1]:1", hosts)
    assert host_allowed("box.lan:8000", hosts) and host_allowed("cards.example.org:443", hosts)
    assert not host_allowed("cards.example.org", hosts)  # port 80, not 443
    assert not host_allowed("", hosts) and not host_allowed("box.lan.evil.example", hosts)
    assert served_hosts("myhost", 0) == ["localhost", "myhost"]
    with pytest.raises(ValueError, match="allowed-host"):
        served_hosts("127.0.0.1", 8000, ["http://box.lan/"])


def test_bodies_must_be_json(app, client):
    store = app.state.table_store
    before = len(store)
    for kind in ("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                 "multipart/form-data; boundary=x", None):
        headers = {"Content-Type": kind} if kind else {}
        r = client.post("/tables", content=json.dumps(NEW).encode(), headers=headers)
        message = _error(r, 415)
        assert "Content-Type: application/json" in message
        _error(client.post("/bots/wizard/act", content=b"{}", headers=headers), 415)
    assert len(store) == before  # no table was made
    r = client.post("/tables", content=json.dumps(NEW).encode(),
                    headers={"Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 201
    assert len(store) == before + 1


def test_foreign_origins_change_nothing(app, client):
    store = app.state.table_store
    view = client.post("/tables", json=NEW).json()
    tid, before = view["table_id"], len(store)
    move = {"move": view["moves"][0]["id"], "decisions": view["decisions"]}
    for origin in ("http://evil.example", "null", "http://localhost:8001",
                   "https://localhost:8000"):
        headers = {"Origin": origin}
        assert "may not change tables" in _error(
            client.post("/tables", json=NEW, headers=headers), 403)
        # the same page sending text/plain (no preflight in a browser): also refused
        _error(client.post("/tables", content=b"{}", headers={**headers,
                                                              "Content-Type": "text/plain"}),
               403)
        _error(client.post(f"/tables/{tid}/act", json=move, headers=headers), 403)
        _error(client.delete(f"/tables/{tid}", headers=headers), 403)
        assert client.get(f"/tables/{tid}", headers=headers).status_code == 200  # a read
    assert len(store) == before
    assert client.get(f"/tables/{tid}").json()["decisions"] == view["decisions"]
    # the server's own page may
    r = client.post("/tables", json=NEW, headers={"Origin": BASE})
    assert r.status_code == 201
    assert client.delete(f"/tables/{r.json()['table_id']}", headers={"Origin": BASE}).is_success


def test_cors_origins_may_change_tables_and_close_them():
    page = "http://localhost:5173"
    client = TestClient(_app(cors_origins=[page]), base_url=BASE)
    preflight = client.options("/tables/x", headers={
        "Origin": page, "Access-Control-Request-Method": "DELETE"})
    assert preflight.status_code == 200
    assert {"GET", "POST", "DELETE"} <= {
        m.strip() for m in preflight.headers["access-control-allow-methods"].split(",")}
    r = client.post("/tables", json=NEW, headers={"Origin": page})
    assert r.status_code == 201 and r.headers["access-control-allow-origin"] == page
    r = client.delete(f"/tables/{r.json()['table_id']}", headers={"Origin": page})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == page
    r = client.post("/tables", content=b"{}", headers={"Origin": page,
                                                       "Content-Type": "text/plain"})
    assert r.status_code == 415 and r.headers["access-control-allow-origin"] == page
    _error(client.post("/tables", json=NEW, headers={"Origin": "http://evil.example"}), 403)


def test_the_table_id_stays_a_secret(client):
    """The id is the capability: not in a Referer (the page says no-referrer), not in an error
    message, not in the server's log (no access log)."""
    from stichzoo.policies.serve import server_config

    page = client.get("/")
    assert page.headers["referrer-policy"] == "no-referrer"
    assert '<meta name="referrer" content="no-referrer">' in page.text
    assert client.get("/static/table.js").headers["referrer-policy"] == "no-referrer"
    view = client.post("/tables", json=NEW).json()
    tid = view["table_id"]
    answers = [
        client.get(f"/tables/{tid}/nothing"), client.post(f"/tables/{tid}/nothing", json={}),
        client.post(f"/tables/{tid}/act", json={"move": 999, "decisions": view["decisions"]}),
        client.post(f"/tables/{tid}/act", json={"move": 0, "decisions": 10**6}),
        client.post(f"/tables/{tid}/act", json={"move": 0}),
        client.get(f"/tables/{tid}/record"), client.put(f"/tables/{tid}", json={}),
        client.get(f"/tables/{tid}/events?after=x"),
        client.post(f"/tables/{tid}/act", content=b"{}", headers={"Content-Type": "text/plain"}),
        client.post(f"/tables/{tid}/act", json={}, headers={"Origin": "http://evil.example"}),
    ]
    for r in answers:
        assert r.status_code >= 400 and tid not in r.text and tid[:8] not in r.text, r.text
    assert server_config(client.app).access_log is False


def test_a_bug_is_a_500_in_the_one_shape_with_cors(monkeypatch):
    page = "http://localhost:5173"
    app = _app(cors_origins=[page])

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(app.state.registry, "act", broken)
    client = TestClient(app, base_url=BASE)  # raises if the exception got past the answer
    r = client.post("/bots/wizard-random/act", json={"game": "wizard"}, headers={"Origin": page})
    assert r.status_code == 500 and r.json() == {"error": "internal error (RuntimeError)"}
    assert r.headers["access-control-allow-origin"] == page
