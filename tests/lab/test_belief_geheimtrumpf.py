"""Geheimtrumpf's belief model (issue 29, item 2): the trumps and task choices a seat cannot see.

- without a model PIMC draws exactly the worlds it always drew (pinned digests);
- honest: re-deal what the seat cannot see (other consistent trumps, other task
  choices; fixed seed) - the model's features and output and the belief search's
  decision stay the same;
- every world drawn from it keeps the hard constraints: the trumps agree with every
  announced row winner, each hidden choice is one of the chooser's unchecked tasks,
  the seat sees what it saw - and the world replays as a real game;
- the draw is a proper distribution over the allowed values; ``temper=0`` is the
  uniform sampler and its log-likelihood ``-log(#allowed)``;
- training the same config twice gives the same weights; the bundled model plays.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
import yaml

from stichzoo.envs.geheimtrumpf.reading import draw_index
from stichzoo.envs.geheimtrumpf.rules import NUM_TASKS, consistent_trumps
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision, encoder_for
from stichzoo.policies.lab.belief import BeliefInference, adapter
from stichzoo.policies.lab.belief_secrets import (
    DRAW_FEATURES,
    DRAWS,
    TASK_FEATURES,
    Secrets,
    SecretsInference,
    SecretsModel,
    distribution,
    log_likelihood,
)
from stichzoo.policies.search import PIMCPolicy
from stichzoo.policies.specs import build_policy
from stichzoo.training import fit
from stichzoo.training.lab import belief as training
from tests.lab.test_belief import assert_repeatable
from tests.policies.test_search_honesty import game_of, observe, redeal, replay, snapshot, states


def table(n: int = 4, rounds: int = 1):
    return game_of("geheimtrumpf", dict(num_players=n, round_limit=rounds))


def random_model(game, seed: int = 0, hidden: int = 16, width: int = 8) -> SecretsModel:
    """An untrained model with random weights: its output still depends on every input."""
    side = adapter(game)
    rng = np.random.default_rng(seed)

    def w(*shape):
        return rng.normal(0, 0.5, shape).astype(np.float32)

    arrays = {"c0w": w(side.context_size, hidden), "c0b": w(hidden),
              "th": w(hidden, width), "tf": w(DRAW_FEATURES, width), "tb": w(width),
              "tw": w(width), "tbias": w(len(DRAWS)),
              "kh": w(hidden, width), "kf": w(TASK_FEATURES, width), "kb": w(width),
              "kw": w(width), "kbias": w(NUM_TASKS)}
    meta = {"game": game.name, "num_players": game.num_players, "input": side.size,
            "context": side.context_size, "context_layers": 1}
    return SecretsModel(arrays, meta)


def secret_states(game, seeds, stride: int = 2, limit: int = 80):
    """States of random games (every ``stride``-th decision, every task choice); yielded
    while they are current - the caller must not keep them."""
    return itertools.chain(*(states(game, seed, stride, limit) for seed in seeds))


# -- without a model: the uniform draws of before --------------------------------------------


def _digest(n: int) -> tuple[str, list[int]]:
    game = table(n, rounds=2)
    h = hashlib.sha256()
    rng = random.Random(587)
    acts = []
    for s in states(game, 31, 3, 40):
        seat = s.current_player
        for _ in range(2):
            w = game.determinize(s, seat, rng)
            h.update(repr(snapshot(w)).encode())
            h.update(repr([tuple(o) for o in w.deck_orders]).encode())
        if len(s.legal_actions()) > 1:
            acts.append(make_policy("pimc", game, seed=3, worlds=3).act(Decision(game, s)))
    return h.hexdigest()[:16], acts


def test_without_a_model_pimc_draws_the_worlds_it_always_drew():
    """Pinned before the belief hook was added to ``determinize`` (trumps=, tasks=)."""
    digest, acts = _digest(4)
    assert digest == "2ee94a0de784cdc3"
    assert acts == [76, 72, 74, 74, 73, 77, 51, 52, 48, 67, 62, 70, 69, 40, 36, 87, 87, 86, 18,
                    17, 33, 21, 30, 15, 34, 51, 45, 43, 46, 55, 36]
    digest, acts = _digest(3)
    assert digest == "36b3b8c23c7b4208"
    assert acts == [73, 73, 73, 74, 46, 38, 41, 56, 62, 59, 53, 57, 61, 85, 83, 14, 27, 19, 1,
                    32, 53, 58, 59, 65, 70, 38, 42, 41, 62, 84, 83, 14, 1, 31, 21]


# -- honesty -----------------------------------------------------------------------------


def belief_pimc(game, model, seed: int = 5) -> PIMCPolicy:
    return PIMCPolicy(game, worlds=3, seed=seed, infer=SecretsInference(game, model))


def assert_honest(game, model, side, s, seat: int, rng: random.Random) -> bool:
    """Re-deal what ``seat`` cannot see: the features, the model's output and the belief
    search's action stay the same.  True if the re-deal changed a secret."""
    r = redeal(game, s, seat, rng)
    x, xr = side.features(s, seat), side.features(r, seat)
    assert np.array_equal(x, xr)
    for a, b in zip(model.logits(x), model.logits(xr)):
        assert np.array_equal(a, b)
    assert side.hidden(s, seat) == side.hidden(r, seat)
    want = belief_pimc(game, model).act(Decision(game, s))
    assert belief_pimc(game, model).act(Decision(game, r)) == want
    return (r.trumps != s.trumps) or r.chosen != s.chosen


@pytest.mark.parametrize("n", [4, 3])
def test_features_output_and_search_are_honest(n):
    game = table(n)
    model = random_model(game, seed=n)
    side = adapter(game)
    rng = random.Random(n)
    checks = changed = choices = 0
    for s in secret_states(game, (41, 42), stride=3, limit=40):
        seat = s.current_player
        if len(s.legal_actions()) < 2 or side.hidden(s, seat).empty():
            continue
        changed += assert_honest(game, model, side, s, seat, rng)
        choices += s.phase_name == "task_choice"
        checks += 1
    assert checks >= 12 and changed >= checks // 3 and choices >= 2


# -- the drawn worlds ------------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 3])
def test_drawn_worlds_keep_every_constraint(n):
    game = table(n, rounds=2)
    model = random_model(game, seed=10 + n)
    inference = SecretsInference(game, model, temper=2.0)
    side = inference.side
    enc = encoder_for(game)
    rng = random.Random(9)
    checks = trumps = tasks = 0
    for s in secret_states(game, (7, 8), stride=2, limit=60):
        seat = s.current_player
        secrets = side.hidden(s, seat)
        choice, chance = inference.draft(s, seat, rng)
        assert chance == 1.0 and (choice is None) == secrets.empty()
        w = inference.finish(s, seat, choice, rng)
        if secrets.draws:
            trumps += 1
            assert draw_index(w.trumps.suit, w.trumps.value) == choice[0] in secrets.draws
            assert (w.trumps.suit, w.trumps.value) in consistent_trumps(s)
        else:
            assert w.trumps == s.trumps
        for p in range(n):
            allowed = secrets.tasks[(p - seat) % n - 1] if p != seat else []
            if allowed:
                tasks += 1
                assert w.chosen[p] == choice[1][p] in allowed
                assert (w.held[p] & ~w.checked[p]) >> w.chosen[p] & 1
            else:
                assert w.chosen[p] == s.chosen[p]
        assert w.hands == s.hands and w.held == s.held and w.checked == s.checked
        assert np.array_equal(observe(enc, w, seat), observe(enc, s, seat))
        assert snapshot(replay(game, w)) == snapshot(w)
        checks += 1
    assert checks >= 60 and trumps >= 20 and tasks >= 4


def test_determinize_takes_the_chosen_secrets():
    game = table()
    s = next(x for x in states(game, 3, 1, 200)
             if x.phase_name == "card_draft" and len(x.draft_rows) >= 2)
    seat = (s.start + 1) % 4
    for key in consistent_trumps(s):
        w = game.determinize(s, seat, random.Random(0), trumps=key)
        assert (w.trumps.suit, w.trumps.value) == key
    w = game.determinize(s, s.start, random.Random(0), trumps=None)
    assert w.trumps == s.trumps  # the start player's own trumps are never re-drawn


# -- the draw is a distribution over the allowed values --------------------------------------


def test_the_draw_is_a_distribution_and_temper_zero_is_uniform():
    logits = np.random.default_rng(1).normal(0, 2, len(DRAWS))
    allowed = [0, 3, 17, 44, 49]
    p = distribution(logits, allowed)
    assert sum(p) == pytest.approx(1.0) and all(x > 0 for x in p)
    assert distribution(logits, allowed, 0.0) == pytest.approx([0.2] * 5)
    tasks = np.zeros((3, NUM_TASKS))
    secrets = Secrets(allowed, [[1, 4], [], [0, 5, 9]])
    truth = (17, [4, -1, 9])
    assert log_likelihood(logits, tasks, secrets, truth, 0.0) == pytest.approx(
        -math.log(5 * 2 * 3))
    assert log_likelihood(logits, tasks, secrets, truth) == pytest.approx(
        math.log(p[2]) - math.log(2) - math.log(3))
    # the search's draws follow the model's chances
    game = table()
    model = random_model(game, seed=2)
    inference = SecretsInference(game, model)
    s = next(x for x in states(game, 5, 1, 200)
             if x.phase_name == "card_draft" and len(x.draft_rows) >= 1)
    seat = (s.start + 1) % 4
    secrets, chances = inference.weights(s, seat)
    rng = random.Random(3)
    counts = Counter(inference.draft(s, seat, rng)[0][0] for _ in range(4000))
    for d, q in zip(secrets.draws, chances[0]):
        assert counts[d] / 4000 == pytest.approx(q, abs=0.03)


# -- training and the spec ---------------------------------------------------------------


def test_training_is_deterministic_and_the_model_loads(tmp_path):
    cfg = {"game": "geheimtrumpf", "options": {"num_players": 4, "round_limit": 1},
           "players": ["heuristic"], "train_games": 4, "test_games": 2, "test_seed": 9,
           "hidden": [16], "card_hidden": 8, "epochs": 1, "batch_size": 64}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    for i in range(2):
        report = fit.run("belief", training.load_config(str(path)), str(tmp_path / f"m{i}.npz"),
                         log=lambda *_: None)
        assert set(report["quality"]) == {"draft", "task choice", "all"}
    assert_repeatable(path, tmp_path, report)
    game = table()
    s = game.new_game(1)
    while s.phase_name != "card_draft" or s.current_player == s.start:
        s.apply(s.legal_actions()[0])
    spec = f"pimc:belief={tmp_path / 'm0.npz'},worlds=2"
    assert build_policy(spec, game, seed=0).act(Decision(game, s)) in s.legal_actions()
    assert isinstance(BeliefInference.of(game, str(tmp_path / "m0.npz")), SecretsInference)
    with pytest.raises(ValueError, match="not for this table"):
        SecretsInference(table(3), SecretsModel.load(tmp_path / "m0.npz"))


def test_the_bundled_model_plays():
    game = table()
    s = game.new_game(6)
    while s.phase_name != "card_draft" or s.current_player == s.start:
        s.apply(s.legal_actions()[0])
    policy = build_policy("pimc:belief=geheimtrumpf,worlds=2,temper=0.5", game, seed=0)
    assert policy.act(Decision(game, s)) in s.legal_actions()
