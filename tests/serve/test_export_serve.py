"""Exported bots: ONNX parity with torch, manifest checks, the HTTP server and JSON-lines mode."""

from __future__ import annotations

import asyncio
import importlib
import io
import json
import os
import random
import socket
import threading
import time

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("fastapi")

from stichzoo import envs
from stichzoo.policies import Decision

PLAYERS = {"silberne_ananas": 3}


@pytest.fixture(scope="module")
def bots(tiny_run, tmp_path_factory):
    """A tiny trained and exported bot per game (Wizard's with per-phase trunks), in one folder."""
    from stichzoo.training.export import export_run

    root = tmp_path_factory.mktemp("bots")
    runs = {}
    for game in envs.GAMES:
        runs[game] = tiny_run(game, "phase" if game == "wizard" else "shared")
        export_run(str(runs[game]), str(root / game))
    return root, runs


def _game(name: str):
    cls = envs.game_class(name)
    return cls(cls.Options(num_players=PLAYERS.get(name, 4)))


def _random_states(game, count: int, seed: int):
    rng = random.Random(seed)
    state = game.new_game(seed=seed)
    out = []
    while len(out) < count:
        if state.over or state.truncated:
            state = game.new_game(seed=rng.randrange(1 << 30))
            continue
        out.append(state.clone())
        state.step(rng.choice(state.legal_actions()))
    return out


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_onnx_matches_torch_on_1000_observations(bots, name):
    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy
    from stichzoo.policies.runtimes.torch_policy import TorchPolicy

    root, runs = bots
    game = _game(name)
    onnx_bot = OnnxPolicy.load(str(root / name), game)
    torch_bot = TorchPolicy.load(str(runs[name] / "policy.pt"), game)
    for state in _random_states(game, 1000, seed=1):
        d = Decision(game, state)
        p_onnx = onnx_bot.probabilities(d.observation, d.action_mask)
        p_torch = torch_bot.probabilities(d.observation, d.action_mask)
        assert np.abs(p_onnx - p_torch).max() < 1e-5
        assert onnx_bot.act(d) == torch_bot.act(d)


def test_manifest_describes_the_bot(bots):
    root, _ = bots
    manifest = json.loads((root / "wizard" / "manifest.json").read_text())
    assert manifest["game"] == "wizard" and manifest["env"] == "wizard_v0"
    assert manifest["num_players"] == 4 and manifest["options"]["num_players"] == 4
    pieces = manifest["observation"]["pieces"]
    assert pieces[0]["name"] == "hand" and sum(p["size"] for p in pieces) == \
        manifest["observation"]["size"]
    assert manifest["actions"]["labels"][:2] == ["B1", "B2"]
    assert manifest["provenance"]["config"]["game"] == "wizard"
    assert len(manifest["model"]["sha256"]) == 64
    assert manifest["model"]["inputs"]["action_mask"] == {"shape": ["batch", 80],
                                                          "dtype": "float32"}
    assert manifest["model"]["inputs"]["observation"]["dtype"] == "float32"


def test_bot_refuses_another_table(bots):
    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy

    root, _ = bots
    cls = envs.game_class("wizard")
    with pytest.raises(ValueError, match="trained for 4 players, the table has 3"):
        OnnxPolicy.load(str(root / "wizard"), cls(cls.Options(num_players=3)))
    with pytest.raises(ValueError, match="dealer_bid_restriction"):
        OnnxPolicy.load(str(root / "wizard"),
                        cls(cls.Options(num_players=4, dealer_bid_restriction=True)))
    ht = envs.game_class("hoch_tief")
    with pytest.raises(ValueError, match="plays 'wizard', not 'hoch_tief'"):
        OnnxPolicy.load(str(root / "wizard"), ht(ht.Options(num_players=4)))


# -- the HTTP server ------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(bots):
    import uvicorn

    from stichzoo.policies.serve import create_app

    root, _ = bots
    port = _free_port()
    config = uvicorn.Config(create_app(str(root)), host="127.0.0.1", port=port,
                            log_level="error")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started:
        if time.time() > deadline:
            raise RuntimeError("server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


def _view(name: str, state, seat: int) -> dict:
    return importlib.import_module(f"stichzoo.envs.{name}.view").to_view(state, seat)


def test_server_lists_and_describes(server):
    import httpx

    listed = httpx.get(f"{server}/bots").json()  # trained bots and the rule-bot levels
    assert {b["name"] for b in listed["bots"] if b["kind"] == "trained"} == set(envs.GAMES)
    assert listed["refused"] == []
    info = httpx.get(f"{server}/bots/hoch_tief").json()
    assert info["game"] == "hoch_tief" and info["manifest"]["num_players"] == 4
    assert httpx.get(f"{server}/openapi.json").status_code == 200


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_server_answers_like_the_bot(server, bots, name):
    import httpx

    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy

    root, _ = bots
    game = _game(name)
    bot = OnnxPolicy.load(str(root / name), game)
    # one client for the 40 requests: httpx.post makes a client (and its TLS context) for
    # each, 20 ms of the test's time per request
    with httpx.Client(base_url=server) as client:
        for state in _random_states(game, 40, seed=7):
            seat = state.current_player
            r = client.post(f"/bots/{name}/act", json=_view(name, state, seat))
            assert r.status_code == 200, r.text
            answer = r.json()
            expected = bot.act(Decision(game, state))
            assert answer["action_id"] == expected
            assert answer["action"] == game.action_label(expected)
            assert 0 < answer["probability"] <= 1


def test_server_bad_requests_get_clear_errors(server):
    import httpx

    game = _game("wizard")
    state = _random_states(game, 30, seed=3)[-1]
    seat = state.current_player
    view = _view("wizard", state, seat)
    url = f"{server}/bots/wizard/act"

    r = httpx.post(url, content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "malformed JSON" in r.json()["error"]
    r = httpx.post(f"{server}/bots/chess/act", json=view)
    assert r.status_code == 404 and "unknown bot 'chess'" in r.json()["error"]
    r = httpx.post(url, json={**view, "hand": ["Z99"]})
    assert r.status_code == 422 and "Z99" in r.json()["error"]
    r = httpx.post(url, json={**view, "hand": [*view["hand"], view["hand"][0]]})
    assert r.status_code == 422 and view["hand"][0] in r.json()["error"]
    if state.played:  # a card already played cannot be in the hand
        played = game.deck.names[(state.played & -state.played).bit_length() - 1]
        r = httpx.post(url, json={**view, "hand": [*view["hand"][:-1], played]})
        assert r.status_code == 422 and played in r.json()["error"]
    r = httpx.post(url, json={**view, "game": "hoch_tief"})
    assert r.status_code == 422 and "plays wizard" in r.json()["error"]
    r = httpx.post(url, json=_view("wizard", state, (seat + 1) % 4))
    assert r.status_code == 422 and "not to act" in r.json()["error"]
    r = httpx.post(url, json=[1, 2, 3])
    assert r.status_code == 422
    # still serving
    assert httpx.post(url, json=view).status_code == 200


def test_server_handles_concurrent_requests(server):
    import httpx

    game = _game("hoch_tief")
    states = _random_states(game, 300, seed=11)
    requests = [_view("hoch_tief", s, s.current_player) for s in states]

    async def fire():
        async with httpx.AsyncClient(timeout=60) as client:
            return await asyncio.gather(*[client.post(f"{server}/bots/hoch_tief/act", json=v)
                                          for v in requests])

    responses = asyncio.run(fire())
    assert all(r.status_code == 200 for r in responses)
    for state, r in zip(states, responses):
        assert (state.legal_mask() >> r.json()["action_id"]) & 1


def test_stdio_mode(bots):
    from stichzoo.policies.serve import serve_stdio

    root, _ = bots
    game = _game("geheimtrumpf")
    state = _random_states(game, 10, seed=5)[-1]
    view = _view("geheimtrumpf", state, state.current_player)
    lines = [json.dumps({"id": 1, "bot": "geheimtrumpf", "view": view}), "{oops",
             json.dumps({"id": 3, "bot": "nobody", "view": view}),
             json.dumps({"id": 4, "view": view})]
    out = io.StringIO()
    serve_stdio(str(root), io.StringIO("\n".join(lines) + "\n"), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers[0]["id"] == 1 and "action" in answers[0]
    assert "malformed JSON" in answers[1]["error"]
    assert "unknown bot 'nobody'" in answers[2]["error"]
    assert "bot" in answers[3]["error"]


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_shipped_bot_plays_its_game(name):
    """One trained bot per game ships in policies/bots and plays a full game, torch-free."""
    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy, read_manifest, shipped_bot

    path = shipped_bot(name)
    assert os.path.samefile(path, os.path.join(os.path.dirname(__file__), "..", "..", "policies",
                                               "bots", name))
    manifest = read_manifest(path)
    assert manifest["game"] == name
    assert manifest["provenance"]["evaluation"], "a shipped bot carries its evaluation"
    bot = OnnxPolicy.load(path)
    game = bot.game
    state = game.new_game(seed=1)
    while not (state.over or state.truncated):
        state.step(bot.act(Decision(game, state)))


def test_unknown_shipped_bot_is_named():
    from stichzoo.policies.runtimes.onnx_policy import shipped_bot

    with pytest.raises(ValueError, match=r"no shipped bot for 'chess'; shipped bots: geheimtrumpf"):
        shipped_bot("chess")
