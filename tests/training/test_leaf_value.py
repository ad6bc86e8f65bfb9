"""The leaf value (issue 29, item 4): its rules, its features, its training, its honesty.

- ``leaf.play`` is the rules core's card on bare bitmasks: on random rounds
  the position after every card equals the rules state's;
- the numpy features and forward pass are what the trainer fitted (the
  torch network on the same batch gives the same scores);
- the search with a leaf value is honest: on a re-deal of what the seat
  cannot see (fixed seed) it takes the same action, and it plays only legal
  cards;
- training is deterministic for a seed; a config is checked strictly;
  ``stichzoo fit leaf_value`` trains with its overrides and measures a saved model.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import yaml

from stichzoo.envs.registry import game_class
from stichzoo.policies.base import Decision
from stichzoo.policies.runtimes.leaf_value import LeafModel, LeafValue, over, play, position, scores
from stichzoo.policies.specs import build_policy
from stichzoo.training import fit
from stichzoo.training.fit import leaf_value as training
from tests.policies.test_search_honesty import honest_states, states


def hoch_tief(**opts):
    cls = game_class("hoch_tief")
    return cls(cls.Options(**{"num_players": 4, "rounds": 1, **opts}))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_play_is_the_rules_core(players):
    game = hoch_tief(num_players=players)
    rng = random.Random(players)
    cards = 0
    for seed in range(6):
        s = game.new_game(seed)
        pos = position(s)
        while not s.over:
            card = rng.choice(s.legal_actions())
            pos = play(pos, card, game.lookups)
            s.apply(card)
            cards += 1
            if s.over:
                assert over(pos) and scores(pos, game.lookups) == s.round_scores[-1]
            else:
                assert pos == position(s) and not over(pos)
    assert cards == 6 * 15 * players


def test_advance_is_the_rules_cores_uniform_play():
    """``leaf.advance`` draws what PIMC's own uniform play-out draws, card for card."""
    from stichzoo.envs.core.cards import bit_list
    from stichzoo.policies.runtimes.leaf_value import advance

    game = hoch_tief()
    checked = 0
    for seed in range(40):
        s = game.new_game(seed)
        r = random.Random(seed)
        for _ in range(r.randrange(56)):
            s.apply(r.choice(s.legal_actions()))
        tricks = r.randrange(1, 6)
        pos = advance(position(s), tricks, game.lookups, random.Random(seed))
        c, draw, done = s.clone(), random.Random(seed), 0
        while not c.over and done < tricks:
            done += len(c.trick.cards) == 3
            c.apply(draw.choice(bit_list(c.legal_mask())))
        assert (over(pos) and scores(pos, game.lookups) == c.round_scores[-1]) if c.over \
            else pos == position(c)
        checked += 1
    assert checked == 40


def _model(tmp_path, seed: int = 0):
    cfg = {"game": "hoch_tief", "options": {"num_players": 4}, "train_rounds": 12,
           "test_rounds": 2, "test_seed": 5, "hidden": [16], "epochs": 1, "batch_size": 64,
           "seed": seed}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    out = tmp_path / f"m{seed}.onnx"
    report = fit.run("leaf_value", training.load_config(str(path)), str(out),
                     log=lambda *_: None)
    return out, report, path


def test_training_is_deterministic_and_the_model_is_the_trained_one(tmp_path):
    out, report, config = _model(tmp_path)
    assert report["samples"] == 12 * 60
    assert set(report["quality"]) == {"positions", "margin_variance", "model",
                                      "one uniform play-out"}
    again = tmp_path / "again.onnx"
    fit.run("leaf_value", training.load_config(str(config)), str(again), log=lambda *_: None)
    assert out.read_bytes() == again.read_bytes()
    # --evaluate: the saved file's held-out quality is the one the fit reported
    measured = fit.measure("leaf_value", training.load_config(str(config)), str(out),
                           log=lambda *_: None)
    assert measured["quality"] == report["quality"]
    # the model's forward pass on the trainer's own batch: the torch layers, weights as saved
    import onnx
    import torch
    from onnx import numpy_helper

    game = hoch_tief()
    data = training.arrays(game, training.load_config(str(config)), 2, 99)
    x, _ = training.batch(data, np.arange(len(data["masks"])), (4, 5, 12), None)
    w = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
         for t in onnx.load(str(out)).graph.initializer}
    want = (torch.relu(torch.from_numpy(x) @ w["w0"] + w["b0"]) @ w["w1"] + w["b1"]).numpy()
    model = LeafModel.load(out)
    assert np.allclose(model.forward(x), want * 20.0, atol=1e-4)
    with pytest.raises(ValueError, match="unknown key"):
        training.load_config(str(config), {"epoch": 3})
    with pytest.raises(ValueError, match="leaf values exist for hoch_tief"):
        training.load_config(str(config), {"game": "wizard"})
    with pytest.raises(ValueError, match="not for this table"):
        LeafValue(hoch_tief(num_players=5), model)


def test_leaf_search_is_honest_and_legal(tmp_path):
    out, _, _ = _model(tmp_path)
    game = hoch_tief()
    spec = f"pimc:leaf={out},depth=2,worlds=4"
    checked = 0
    for s, want in honest_states(game, spec, 3, random.Random(4), states(game, 17, 3, 16)):
        values = build_policy(spec, game, seed=3).values(Decision(game, s))
        assert values.action == want and all(v.worlds == 4 for v in values.values)
        checked += 1
    assert checked >= 8


def test_leaf_spec_errors(tmp_path):
    game = hoch_tief()
    with pytest.raises(ValueError, match="no model file"):
        build_policy(f"pimc:leaf={tmp_path / 'none.onnx'}", game, seed=0)
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="no leaf value model"):
        build_policy(f"pimc:leaf={tmp_path / 'junk.onnx'}", game, seed=0)
    out, _, _ = _model(tmp_path)
    with pytest.raises(ValueError, match="no rollout player"):
        build_policy(f"pimc:leaf={out},rollout=heuristic", game, seed=0)
    with pytest.raises(ValueError, match="depth=99"):
        build_policy(f"pimc:leaf={out},depth=99", game, seed=0)
    with pytest.raises(ValueError, match="belongs to a leaf value"):
        build_policy("pimc:depth=2", game, seed=0)
    with pytest.raises(ValueError, match="rollouts=1"):
        build_policy(f"pimc:leaf={out},rollouts=2", game, seed=0)
    wizard = game_class("wizard")
    with pytest.raises(ValueError, match="no leaf value"):
        LeafValue(wizard(wizard.Options(num_players=4)), LeafModel.load(out))


def test_fit_command_trains_with_overrides(tmp_path, capsys):
    """``stichzoo fit leaf_value hoch_tief``; the old ``stichzoo leaf`` says the new spelling
    and runs it."""
    from stichzoo.training.cli import main

    _, _, config = _model(tmp_path)
    out = tmp_path / "cli.onnx"
    assert main(["fit", "leaf_value", "hoch_tief", "--config", str(config), "--out", str(out),
                 "--set", "label=playout", "--set", "train_rounds=10", "--quiet"]) == 0
    assert LeafModel.load(out).meta["train_rounds"] == 10
    assert main(["leaf", "hoch_tief", "--config", str(config), "--set", "label"]) == 2
    err = capsys.readouterr().err
    assert "stichzoo leaf is now: stichzoo fit leaf_value hoch_tief" in err
    assert "KEY=VALUE" in err
    assert main(["fit", "leaf_value", "wizard", "--config", str(config)]) == 2
    assert "leaf_value is fitted for hoch_tief, not wizard" in capsys.readouterr().err


def test_hoch_tief_search_spec_is_the_leaf_search():
    """``search`` (the served "hard" level, the ladder's learned-search rungs) builds Hoch &
    Tief's ``LEARNED_SEARCH`` with the bundled model; the other games keep the guided one."""
    from stichzoo.policies.games.hoch_tief import LEARNED_SEARCH
    from stichzoo.policies.specs import learned_search
    from stichzoo.training.evaluation.ladder import MATCHES

    game = hoch_tief()
    search = build_policy("search", game, seed=0, cache=False)
    assert search.leaf is not None and search.guide is None
    assert (search.worlds, search.leaf.depth) == (40, 4)
    assert build_policy("search:worlds=2", game, seed=0, cache=False).worlds == 2
    assert learned_search("hoch_tief") == LEARNED_SEARCH
    assert learned_search("wizard") == "pimc:guide=bot:wizard,follow=bid"
    assert learned_search("wunder_punkt") == "pimc:guide=bot:wunder_punkt"
    target = next(m for m in MATCHES if m.key == "search_target")
    assert target.specs("hoch_tief") == (LEARNED_SEARCH, "pimc")
    s = game.new_game(3)
    assert search.act(Decision(game, s)) in s.legal_actions()
