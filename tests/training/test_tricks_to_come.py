"""Silberne Ananas' tricks to come (issue 30): the model, its taker values, its heuristic.

- with every share a third, the learned taker values are the reading's
  uniform ones exactly (the multinomial is the same), so the model changes
  only the split;
- the taker values and the heuristic that steers by them read nothing hidden
  (a re-deal of what the seat cannot see changes neither) and stay legal;
- the features say what their docs say; training is deterministic (the same
  config writes the same file, whatever the number of workers); the config,
  the spec and the command name their errors.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import yaml

from stichzoo.envs.registry import game_class
from stichzoo.envs.silberne_ananas.reading import taker_values as uniform_values
from stichzoo.envs.silberne_ananas.rules import GIVE, HAND_SIZE, JOKER
from stichzoo.policies.base import Decision
from stichzoo.policies.runtimes.tricks_to_come import (
    FEATURES,
    FULL,
    FutureModel,
    features,
    load_model,
    taker_values,
)
from stichzoo.policies.specs import build_policy
from stichzoo.training import fit
from stichzoo.training.fit import tricks_to_come as training
from tests.policies.test_search_honesty import honest_states, redeal, states

SHIPPED = "silberne_ananas_future"


def ananas(**opts):
    cls = game_class("silberne_ananas")
    return cls(cls.Options(**opts))


def flat_model() -> FutureModel:
    """A model whose every share is a third: the uniform split."""
    return FutureModel([(np.ones((FEATURES, 4), np.float32), np.zeros(4, np.float32)),
                        (np.zeros((4, 3), np.float32), np.zeros(3, np.float32))])


@pytest.mark.parametrize("match", [True, False])
def test_a_uniform_model_gives_the_readings_taker_values(match):
    game = ananas(match=match)
    model = flat_model()
    checked = 0
    for s in states(game, 41 + match, 1, 60):
        seat = s.current_player
        w = taker_values(s, seat, s.hands[seat], model)
        assert np.allclose(w, uniform_values(s), rtol=0, atol=1e-12)
        checked += 1
    assert checked >= 30


def test_the_features_say_what_their_docs_say():
    hand = (1 << 0) | (1 << 9) | (1 << JOKER)  # a card of the first two suits, the Joker
    unseen = FULL & ~hand & ~(1 << 1)  # one card played
    x = features(hand, unseen, [2, 0, 1], 2, 4)
    assert x.shape == (FEATURES,) and x[0] == x[9] == x[JOKER] == 1.0 and x[1] == 0.0
    o = 33
    assert list(x[o:o + 4]) == [1 / 8, 1 / 8, 0.0, 0.0]  # own suit lengths, the Joker apart
    assert list(x[o + 4:o + 8]) == [6 / 8, 7 / 8, 1.0, 1.0]  # unseen: 8 less own, played
    assert x[o + 8] == 0.0  # the Joker is the seat's own, not unseen
    assert list(x[o + 9:o + 12]) == pytest.approx([2 / HAND_SIZE, 0.0, 1 / HAND_SIZE])
    assert list(x[o + 12:o + 15]) == [0.0, 0.0, 1.0]  # the right neighbour leads
    assert x[o + 15 + 3] == 1.0 and x[o + 15:].sum() == 1.0  # four tricks left


def test_the_shipped_model_predicts_shares_and_reads_nothing_hidden():
    game = ananas()
    model = load_model(SHIPPED)
    assert model.meta["config"]["player"] == "heuristic"
    quality = model.meta["report"]["quality"]
    assert quality["log_likelihood_model"] > quality["log_likelihood_uniform"]
    rng = random.Random(5)
    checked = 0
    for s in states(game, 43, 3, 40):
        seat = s.current_player
        w = taker_values(s, seat, s.hands[seat], model)
        assert all(0.0 <= v <= 1.0 + 1e-9 for row in w for v in row)
        r = redeal(game, s, seat, rng)
        assert taker_values(r, seat, r.hands[seat], model) == w
        checked += 1
    assert checked == 40


def test_the_heuristic_steers_by_the_tricks_to_come_when_asked():
    game = ananas()
    spec = f"heuristic:future={SHIPPED}"
    found = list(honest_states(game, spec, 5, random.Random(8), states(game, 47, 2, 30)))
    assert len(found) >= 10
    plain = [build_policy("heuristic", game, seed=5).act(Decision(game, s)) for s, _ in found]
    assert plain != [want for _, want in found]  # it decides otherwise somewhere
    s = game.new_game(3)
    moves = []
    while not s.over and len(moves) < 60:
        bot = build_policy(spec, game, seed=len(moves))
        a = bot.act(Decision(game, s))
        assert a in s.legal_actions()
        moves.append(a)
        if s.phase == GIVE:
            assert a == build_policy(spec, game, seed=99).act(Decision(game, s))
        s.apply(a)
    with pytest.raises(ValueError, match="no such model of the tricks to come"):
        build_policy("heuristic:future=nothing_here", game, seed=0)


def _config(tmp_path):
    path = tmp_path / "future.yaml"
    path.write_text(yaml.safe_dump({
        "game": "silberne_ananas", "seed": 3, "test_seed": 4, "train_games": 3,
        "test_games": 2, "hidden": [8], "epochs": 2, "batch_size": 64, "torch_threads": 1,
        "out": str(tmp_path / "future.npz")}))
    return path


def _fit(cfg: dict, out) -> dict:
    return fit.run("tricks_to_come", cfg, str(out), log=lambda *_: None)


def test_training_is_deterministic_for_any_number_of_workers(tmp_path):
    path = _config(tmp_path)
    a = _fit(training.load_config(str(path)), tmp_path / "a.npz")
    b = _fit(training.load_config(str(path), {"workers": 2}), tmp_path / "b.npz")
    assert a["quality"] == b["quality"] and a["samples"] == b["samples"] >= 3 * 11 * 3
    model, other = FutureModel.load(tmp_path / "a.npz"), FutureModel.load(tmp_path / "b.npz")
    for (wa, ba), (wb, bb) in zip(model.layers, other.layers, strict=True):
        assert np.array_equal(wa, wb) and np.array_equal(ba, bb)
    again = _fit(training.load_config(str(path)), tmp_path / "c.npz")
    assert again["quality"] == a["quality"]
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "c.npz").read_bytes()
    assert model.meta["config"]["train_games"] == 3
    assert model.meta["report"] == {"train_views": a["samples"], "quality": a["quality"]}
    shares = model.shares(np.stack([features(FULL >> 22, FULL & ~(FULL >> 22), [0, 0, 0], 0,
                                             HAND_SIZE)]))
    assert shares.sum() == pytest.approx(1.0) and (shares > 0).all()
    for bad, match in [({"test_seed": 3}, "seed of their own"), ({"game": "wizard"},
                       "silberne_ananas"), ({"hidden": [0]}, "layer widths"),
                       ({"epochs": 0}, "at least 1"), ({"learning_rate": 0.0}, "above 0"),
                       ({"games": 3}, "unknown key")]:
        with pytest.raises(ValueError, match=match):
            training.load_config(str(path), bad)


def test_fit_command_writes_the_model(tmp_path, capsys):
    """``stichzoo fit tricks_to_come``; the old ``stichzoo future`` says the new spelling."""
    import json

    from stichzoo.training.cli import main

    path = _config(tmp_path)
    out = tmp_path / "cli.npz"
    assert main(["fit", "tricks_to_come", "silberne_ananas", "--config", str(path), "--out",
                 str(out), "--set", "train_games=2", "--report", str(tmp_path / "r.json"),
                 "--quiet"]) == 0
    assert FutureModel.load(out).meta["config"]["train_games"] == 2
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["out"] == str(out) and report["quality"]["views"] > 0
    assert main(["future", "silberne_ananas", "--config", str(path), "--set", "epochs"]) == 2
    err = capsys.readouterr().err
    assert "stichzoo future is now: stichzoo fit tricks_to_come silberne_ananas" in err
    assert "KEY=VALUE" in err
