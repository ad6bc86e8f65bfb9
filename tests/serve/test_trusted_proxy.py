"""Behind a reverse proxy: the per-client limits count the forwarded client, and only when
the connection comes from a proxy the server was told to trust (never otherwise)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from stichzoo.policies.serve.clients import ClientAddress, forwarded_chain, trusted_networks
from stichzoo.policies.serve.web_table import mount_web_table
from stichzoo.policies.tables.table import TableStore

TABLE = {"game": "hoch_tief", "players": 4, "seat": 0, "opponents": ["random"]}


def _request(peer: str, **headers: str):
    return SimpleNamespace(client=SimpleNamespace(host=peer),
                           headers={k.lower().replace("_", "-"): v for k, v in headers.items()})


def test_headers_are_read_only_from_a_trusted_proxy():
    clients = ClientAddress(["10.0.0.0/8", "::1"])
    xff = {"x_forwarded_for": "198.51.100.7, 10.0.0.2"}
    assert clients.of(_request("10.0.0.1", **xff)) == "198.51.100.7"  # two trusted hops
    assert clients.of(_request("203.0.113.9", **xff)) == "203.0.113.9"  # anyone: ignored
    assert ClientAddress([]).of(_request("10.0.0.1", **xff)) == "10.0.0.1"  # none trusted
    # the rightmost untrusted address: what lies left of it the client could have written
    spoof = {"x_forwarded_for": "1.1.1.1, 198.51.100.7"}
    assert clients.of(_request("10.0.0.1", **spoof)) == "198.51.100.7"
    fwd = {"forwarded": 'for=192.0.2.60;proto=http, for="[2001:db8::17]:4711"'}
    assert clients.of(_request("::1", **fwd)) == "2001:db8::17"
    assert clients.of(_request("10.0.0.1", x_forwarded_for="unknown")) == "10.0.0.1"
    assert clients.of(_request("10.0.0.1")) == "10.0.0.1"  # a trusted peer, no header
    assert forwarded_chain({"forwarded": "for=1.2.3.4:80;by=x"}) == ["1.2.3.4:80"]


def test_a_trusted_proxy_that_is_no_address_is_refused_by_name():
    with pytest.raises(ValueError, match=r"'proxy\.example' is no IP address"):
        trusted_networks(["10.0.0.1,proxy.example"])
    from stichzoo.training.cli import build_parser

    args = build_parser().parse_args(["serve", "--trusted-proxy", "127.0.0.1", "10.0.0.0/8"])
    assert args.trusted_proxy == ["127.0.0.1", "10.0.0.0/8"]


def _app(trusted) -> FastAPI:
    app = FastAPI()
    mount_web_table(app, TableStore(max_tables_per_client=1, creations_per_minute=None),
                    trusted_proxies=trusted)
    return app


def test_each_forwarded_client_gets_its_own_limits_behind_a_trusted_proxy():
    with TestClient(_app(["10.0.0.1"]), client=("10.0.0.1", 5000)) as proxy:
        for person in ("198.51.100.1", "198.51.100.2"):
            r = proxy.post("/tables", json=TABLE, headers={"X-Forwarded-For": person})
            assert r.status_code == 201, r.text
        r = proxy.post("/tables", json=TABLE, headers={"X-Forwarded-For": "198.51.100.1"})
        assert r.status_code == 429  # that person's one live table is taken


def test_forwarded_headers_from_an_untrusted_connection_are_ignored():
    with TestClient(_app(["10.0.0.1"]), client=("203.0.113.5", 5000)) as anyone:
        r = anyone.post("/tables", json=TABLE, headers={"X-Forwarded-For": "198.51.100.1"})
        assert r.status_code == 201
        r = anyone.post("/tables", json=TABLE, headers={"X-Forwarded-For": "198.51.100.2"})
        assert r.status_code == 429  # still the one connection's address: one table
