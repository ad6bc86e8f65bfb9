"""Bots load only when they fit, and a loaded bot never answers outside the legal mask.

Each broken folder of the issue is built from a copy of a shipped bot and
must be refused with one line naming the folder and the reason; ``serve``
starts with the good bots, lists the refused ones and logs one line each,
and refuses to start only when nothing at all can be served.  The runtime
guard is tested by feeding the network what no game reaches and by a
network that answers NaN.
"""

from __future__ import annotations

import json
import logging
import os
import shutil

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from stichzoo import envs
from stichzoo.policies import Decision
from stichzoo.policies.runtimes.onnx_policy import (
    InferenceError,
    OnnxPolicy,
    file_sha256,
    shipped_bot,
    verify_bot,
)
from stichzoo.policies.serve.registry import BotRegistry


def _copy(tmp_path, game: str, as_name: str | None = None):
    dst = tmp_path / (as_name or game)
    shutil.copytree(shipped_bot(game), dst)
    return dst


def _edit(folder, change) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def _refusal(folder) -> str:
    with pytest.raises(ValueError) as info:
        OnnxPolicy.load(str(folder))
    message = str(info.value)
    assert "\n" not in message and str(folder) in message, message
    return message


@pytest.mark.parametrize("game", list(envs.GAMES))
def test_shipped_bots_verify_and_declare_dtypes(game):
    manifest, built, session = verify_bot(shipped_bot(game))
    inputs = manifest["model"]["inputs"]
    assert inputs["observation"]["dtype"] == "float32"
    assert inputs["action_mask"]["dtype"] == "float32"
    assert inputs["action_mask"]["shape"] == ["batch", built.num_actions]
    assert {t.name: t.type for t in session.get_inputs()} == {
        "observation": "tensor(float)", "action_mask": "tensor(float)"}
    assert manifest["model"]["sha256"] == file_sha256(os.path.join(shipped_bot(game),
                                                                   "model.onnx"))


def test_hoch_tief_model_in_the_wizard_folder(tmp_path):
    folder = _copy(tmp_path, "wizard")
    shutil.copy(os.path.join(shipped_bot("hoch_tief"), "model.onnx"), folder / "model.onnx")
    assert "SHA-256" in _refusal(folder)
    # even with the manifest's hash fixed up, the graph's shapes give it away
    digest = file_sha256(str(folder / "model.onnx"))
    _edit(folder, lambda m: m["model"].__setitem__("sha256", digest))
    message = _refusal(folder)
    assert "shape" in message and "603" in message


@pytest.mark.parametrize("name", ["../../etc/hostname", "/etc/hostname", "..", ""])
def test_model_file_must_stay_inside_the_folder(tmp_path, name):
    folder = _copy(tmp_path, "wizard")
    _edit(folder, lambda m: m["model"].__setitem__("file", name))
    message = _refusal(folder)
    assert "model.file" in message


def test_truncated_model(tmp_path):
    folder = _copy(tmp_path, "wizard")
    data = (folder / "model.onnx").read_bytes()
    (folder / "model.onnx").write_bytes(data[: len(data) // 2])
    assert "SHA-256" in _refusal(folder)
    digest = file_sha256(str(folder / "model.onnx"))
    _edit(folder, lambda m: m["model"].__setitem__("sha256", digest))
    assert "onnxruntime cannot load" in _refusal(folder)


def test_wrong_sha256(tmp_path):
    folder = _copy(tmp_path, "hoch_tief")
    _edit(folder, lambda m: m["model"].__setitem__("sha256", "0" * 64))
    assert "SHA-256" in _refusal(folder)


@pytest.mark.parametrize("key", ["game", "encoder_version", "observation.size",
                                 "actions.labels", "model.file", "model.sha256",
                                 "model.inputs"])
def test_manifest_missing_a_key(tmp_path, key):
    folder = _copy(tmp_path, "wizard")

    def drop(m):
        *path, last = key.split(".")
        node = m
        for part in path:
            node = node[part]
        del node[last]

    _edit(folder, drop)
    assert f"lacks key {key!r}" in _refusal(folder)


@pytest.mark.parametrize("change,expect", [
    (lambda m: m.__setitem__("encoder_version", 7), "encoder_version"),
    (lambda m: m["observation"].__setitem__("size", 600), "observation.size"),
    (lambda m: m["actions"].__setitem__("size", 81), "actions.size"),
    (lambda m: m["model"]["inputs"]["action_mask"].__setitem__("dtype", "int8"), "dtype"),
    (lambda m: m["model"]["inputs"]["observation"].__setitem__("shape", ["batch", 9]),
     "shape"),
    (lambda m: m.__setitem__("game", "chess"), "chess"),
    (lambda m: m.__setitem__("schema", "other/9"), "schema"),
], ids=["encoder_version", "observation_size", "actions_size", "dtype", "input_shape",
        "unknown_game", "schema"])
def test_manifest_that_does_not_fit(tmp_path, change, expect):
    folder = _copy(tmp_path, "wizard")
    _edit(folder, change)
    assert expect in _refusal(folder)


def test_manifest_that_is_not_json(tmp_path):
    folder = _copy(tmp_path, "wizard")
    (folder / "manifest.json").write_text('{"schema": "stichzoo.bot/1", ')
    assert "not valid JSON" in _refusal(folder)


def test_first_manifest_form_still_loads(tmp_path):
    """Manifests exported before dtypes were written give shapes alone (meaning float32)."""
    folder = _copy(tmp_path, "wizard")

    def legacy(m):
        for side in ("inputs", "outputs"):
            m["model"][side] = {k: v["shape"] for k, v in m["model"][side].items()}

    _edit(folder, legacy)
    assert OnnxPolicy.load(str(folder)).game.name == "wizard"


def test_serve_starts_with_the_good_bots_and_lists_the_refused(tmp_path, caplog):
    root = tmp_path / "bots"
    root.mkdir()
    _copy(root, "hoch_tief")
    bad = _copy(root, "wizard", as_name="wizard_broken")
    _edit(bad, lambda m: m["model"].__setitem__("file", "../../etc/hostname"))
    (root / "empty").mkdir()
    with caplog.at_level(logging.WARNING, logger="stichzoo.serve"):
        registry = BotRegistry(str(root), levels=())
    assert set(registry.bots) == {"hoch_tief"}
    refused = {r["name"]: r["reason"] for r in registry.list()["refused"]}
    assert set(refused) == {"wizard_broken", "empty"}
    assert "outside the bot folder" in refused["wizard_broken"]
    assert "no manifest.json" in refused["empty"]
    lines = [r.getMessage() for r in caplog.records if r.name == "stichzoo.serve"]
    assert len(lines) == 2 and all("\n" not in line for line in lines)

    from fastapi.testclient import TestClient

    from stichzoo.policies.serve import create_app

    listed = TestClient(create_app(str(root), registry=registry)).get("/bots").json()
    assert [b["name"] for b in listed["bots"]] == ["hoch_tief"]
    assert {r["name"] for r in listed["refused"]} == {"wizard_broken", "empty"}


def test_serve_refuses_to_start_when_no_bot_loads(tmp_path, capsys):
    from stichzoo.training.cli import main

    root = tmp_path / "bots"
    root.mkdir()
    bad = _copy(root, "wizard")
    _edit(bad, lambda m: m["model"].__delitem__("sha256"))
    with pytest.raises(ValueError, match="no bot to serve"):
        BotRegistry(str(root), levels=())
    assert main(["serve", "--bots", str(root), "--levels", "--stdio"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("stichzoo: error: no bot to serve") and "lacks key" in err[-1]
    # with the rule-bot levels there is always something to serve
    assert "wizard-heuristic" in BotRegistry(str(root)).bots


# -- the runtime guard ----------------------------------------------------------------


@pytest.fixture(scope="module")
def wizard_bot():
    return OnnxPolicy.load(shipped_bot("wizard"))


def _bid_decision(bot):
    game = bot.game
    state = game.new_game(seed=3)
    while state.phase_name != "bid":
        state.step(state.legal_actions()[0])
    return Decision(game, state, encoder=bot.encoder)


def test_observation_outside_the_encoders_bounds_is_refused(wizard_bot):
    d = _bid_decision(wizard_bot)
    obs = d.observation.copy()
    layout = wizard_bot.encoder.layout
    obs[layout.slice("scores")][0] = 1e10  # totals of 10**12 points
    with pytest.raises(InferenceError, match="'scores'"):
        wizard_bot.probabilities(obs, d.action_mask)
    obs[layout.slice("scores")][0] = np.nan
    with pytest.raises(InferenceError, match="'scores'"):
        wizard_bot.probabilities(obs, d.action_mask)


def test_mask_without_a_legal_action_is_refused(wizard_bot):
    d = _bid_decision(wizard_bot)
    with pytest.raises(InferenceError, match="no legal action"):
        wizard_bot.probabilities(d.observation, np.zeros_like(d.action_mask))


class _NaNSession:
    """A network gone wrong: NaN probabilities (as unbounded inputs once produced)."""

    def __init__(self, session):
        self.session = session

    def run(self, names, feeds):
        n = feeds["action_mask"].shape[1]
        return [np.full((1, n), np.nan, np.float32), np.full((1, n), np.nan, np.float32)]


def test_nan_probabilities_never_become_an_action(wizard_bot, monkeypatch):
    d = _bid_decision(wizard_bot)
    monkeypatch.setattr(wizard_bot, "session", _NaNSession(wizard_bot.session))
    with pytest.raises(InferenceError, match="not finite"):
        wizard_bot.act(d)


def test_answers_stay_inside_the_mask(wizard_bot):
    game = wizard_bot.game
    rng = np.random.default_rng(0)
    state = game.new_game(seed=11)
    for _ in range(150):
        if state.over:
            break
        d = Decision(game, state, encoder=wizard_bot.encoder)
        p = wizard_bot.probabilities(d.observation, d.action_mask)
        assert np.all(p[d.action_mask == 0] == 0) and abs(p.sum() - 1) < 1e-9
        for sample in (False, True):
            a = wizard_bot.choose(p, d.action_mask, sample, rng)
            assert (state.legal_mask() >> a) & 1
        state.step(int(rng.choice(state.legal_actions())))


# -- the manifest's checksum covers its rule options (issue 31) ---------------------------


@pytest.mark.parametrize("game", list(envs.GAMES))
def test_shipped_manifests_carry_their_checksum(game):
    from stichzoo.policies.runtimes.onnx_policy import manifest_checksum, read_manifest

    manifest = read_manifest(shipped_bot(game))
    assert manifest["manifest_sha256"] == manifest_checksum(manifest)


@pytest.mark.parametrize("change", [
    lambda m: m["options"].__setitem__("dealer_bid_restriction", True),
    lambda m: m["options"].__setitem__("rounds", [1, 2]),
    lambda m: m["model"].__setitem__("opset", 99) or m.__setitem__("manifest_sha256", "0" * 64),
], ids=["option", "rounds", "stamp"])
def test_rule_options_edited_after_export_are_refused(tmp_path, change):
    folder = _copy(tmp_path, "wizard")
    _edit(folder, change)
    assert "manifest_sha256" in _refusal(folder) and "changed after export" in _refusal(folder)


def test_a_manifest_without_a_checksum_loads_with_a_warning(tmp_path, caplog):
    import subprocess
    import sys

    folder = _copy(tmp_path, "wizard")
    _edit(folder, lambda m: m.pop("manifest_sha256"))
    with caplog.at_level("WARNING", logger="stichzoo.bots"):
        OnnxPolicy.load(str(folder))
    assert "no manifest_sha256" in caplog.text and "scripts/bot_checksum.py" in caplog.text
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    script = os.path.join(root, "scripts", "bot_checksum.py")
    check = [sys.executable, str(script), "--check", str(folder)]
    assert subprocess.run(check, capture_output=True).returncode == 1
    subprocess.run([sys.executable, str(script), str(folder)], check=True, capture_output=True)
    assert subprocess.run(check, capture_output=True).returncode == 0
    assert OnnxPolicy.load(str(folder)).manifest["manifest_sha256"]
