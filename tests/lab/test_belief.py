"""The belief model (issue 29, item 2): honest, constraint-keeping, measured fairly.

- honest: re-deal what the seat cannot see (fixed seed) - the model's output and
  the belief search's decision stay the same;
- every world drawn from it keeps the hard constraints: the hand sizes, the voids,
  the seat's own hand, the played cards, the turned card - and replays as a real game;
- the walk is a proper distribution over exactly the deals that fit: on tiny cases,
  enumerated, its probabilities sum to 1, and with the flat model and no voids each
  deal has the uniform sampler's chance ``1 / #deals``;
- determinism: the same seed draws the same worlds; training the same config twice
  gives the same weights, and its played data kept in a file (``--data``) is read back.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
import yaml

from stichzoo.envs.registry import game_class
from stichzoo.envs.wizard.rules import DECK_SIZE, SUIT_MASK
from stichzoo.policies.base import Decision
from stichzoo.policies.lab.belief import (
    BeliefInference,
    BeliefModel,
    Hidden,
    adapter,
    flat,
    log_likelihood,
    ratios,
    walk,
)
from stichzoo.policies.search import PIMCPolicy
from stichzoo.policies.specs import build_policy
from stichzoo.training import fit
from stichzoo.training.lab import belief as training
from tests.policies.test_search_honesty import redeal, replay, snapshot, states


def assert_repeatable(config, folder, report: dict) -> None:
    """Training twice from ``config`` made ``folder``/m0.npz and m1.npz: the same arrays, and
    ``fit belief --evaluate`` of m0 gives the quality the run ``report``ed."""
    again = fit.measure("belief", training.load_config(str(config)), str(folder / "m0.npz"),
                        log=lambda *_: None)
    assert again["quality"] == report["quality"]
    with np.load(folder / "m0.npz") as a, np.load(folder / "m1.npz") as b:
        assert a.files == b.files
        assert all(np.array_equal(a[k], b[k]) for k in a.files)


def wizard(**opts):
    cls = game_class("wizard")
    return cls(cls.Options(**{"num_players": 4, "rounds": [6], **opts}))


def random_model(game, seed: int = 0, hidden: int = 32) -> BeliefModel:
    """An untrained model with random weights: its output still depends on every input."""
    side = adapter(game)
    rng = np.random.default_rng(seed)

    def w(*shape):
        return rng.normal(0, 0.3, shape).astype(np.float32)

    arrays = {"c0w": w(side.size, hidden), "c0b": w(hidden), "kh": w(hidden, 16),
              "kf": w(side.card_size, 16), "kb": w(16), "ow": w(16, side.locations),
              "ob": w(side.locations), "bias": w(side.deck, side.locations)}
    meta = {"game": game.name, "num_players": game.num_players, "input": side.size,
            "deck": side.deck, "locations": side.locations, "context_layers": 1}
    return BeliefModel(arrays, meta)


def belief_pimc(game, model, seed: int = 5) -> PIMCPolicy:
    return PIMCPolicy(game, worlds=3, seed=seed, infer=BeliefInference(game, model))


def assert_honest(game, model, side, s, seat: int, rng: random.Random) -> None:
    """Re-deal what ``seat`` cannot see: the model's output and the belief search's action
    stay the same."""
    r = redeal(game, s, seat, rng)
    x, xr = side.features(s, seat), side.features(r, seat)
    assert np.array_equal(model.probabilities(x, side.card_features(x)),
                          model.probabilities(xr, side.card_features(xr)))
    want = belief_pimc(game, model).act(Decision(game, s))
    assert belief_pimc(game, model).act(Decision(game, r)) == want


def test_belief_output_and_search_are_honest():
    game = wizard()
    model = random_model(game)
    side = adapter(game)
    rng = random.Random(3)
    checks = 0
    for s in states(game, 41, 2, 16):
        if len(s.legal_actions()) < 2:
            continue
        seat = s.current_player
        r = redeal(game, s, seat, rng)
        assert any(a != b for a, b in zip(r.hands, s.hands)) or s.phase_name != "bid"
        x, xr = side.features(s, seat), side.features(r, seat)
        probs = model.probabilities(x, side.card_features(x))
        assert np.array_equal(probs, model.probabilities(xr, side.card_features(xr)))
        want = belief_pimc(game, model).act(Decision(game, s))
        assert belief_pimc(game, model).act(Decision(game, r)) == want
        checks += 1
    assert checks >= 6


def test_drawn_worlds_keep_every_constraint():
    game = wizard(rounds=[8])
    model = random_model(game, seed=1)
    inference = BeliefInference(game, model, temper=2.0)  # sharp: pushes against the voids
    rng = random.Random(7)
    checks = voids = 0
    for s in states(game, 5, 2, 30):
        seat = s.current_player
        if seat < 0:
            continue
        for _ in range(3):
            locations, chance = inference.draft(s, seat, rng)
            assert chance == 1.0
            w = inference.finish(s, seat, locations, rng)
            assert w.hands[seat] == s.hands[seat]
            assert w.played == s.played and w.trump_card == s.trump_card
            for p in range(game.num_players):
                assert w.hands[p].bit_count() == s.hands[p].bit_count()
                for suit in range(4):
                    if s.voids[p] >> suit & 1:
                        voids += 1
                        assert not w.hands[p] & SUIT_MASK[suit]
                assert not w.hands[p] & s.played
            assert snapshot(replay(game, w)) == snapshot(w)
            checks += 1
    assert checks >= 45 and voids > 0


def test_hoch_tief_worlds_keep_every_constraint_and_the_search_is_honest():
    cls = game_class("hoch_tief")
    game = cls(cls.Options(num_players=4, rounds=1))
    model = random_model(game, seed=3)
    side = adapter(game)
    inference = BeliefInference(game, model, temper=2.0)
    rng = random.Random(2)
    checks = voids = 0
    for s in states(game, 8, 3, 20):
        seat = s.current_player
        locations, _ = inference.draft(s, seat, rng)
        w = inference.finish(s, seat, locations, rng)
        assert w.hands[seat] == s.hands[seat] and w.taken == s.taken
        for p in range(game.num_players):
            assert w.hands[p].bit_count() == s.hands[p].bit_count()
            for suit, mask in enumerate(game.lookups.suit_mask):
                if s.voids[p] >> suit & 1:
                    voids += 1
                    assert not w.hands[p] & mask
        assert snapshot(replay(game, w)) == snapshot(w)
        if checks % 4 == 0 and len(s.legal_actions()) > 1:
            assert_honest(game, model, side, s, seat, rng)
        checks += 1
    assert checks >= 18 and voids > 0


def test_silberne_ananas_worlds_keep_every_constraint_and_the_search_is_honest():
    cls = game_class("silberne_ananas")
    game = cls(cls.Options(match=False))
    model = random_model(game, seed=4)
    side = adapter(game)
    inference = BeliefInference(game, model, temper=2.0)
    rng = random.Random(6)
    checks = voids = jokers = 0
    for s in itertools.chain(*(states(game, seed, 2, 24) for seed in (12, 13))):
        seat = s.current_player
        hidden = side.hidden(s, seat)
        assert hidden.cards == sorted(hidden.cards) and len(hidden.sizes) == 2
        assert side.truth(s, seat, hidden) == [0 if s.hands[(seat + 1) % 3] >> c & 1 else 1
                                               for c in hidden.cards]
        locations, _ = inference.draft(s, seat, rng)
        w = inference.finish(s, seat, locations, rng)
        assert w.hands[seat] == s.hands[seat] and w.played == s.played
        for p in range(game.num_players):
            assert w.hands[p].bit_count() == s.hands[p].bit_count()
            for suit in range(4):
                if s.voids[p] >> suit & 1:
                    voids += 1
                    assert not w.hands[p] & (0xFF << 8 * suit)
            if s.no_joker[p] and p != seat:
                jokers += 1
                assert not w.hands[p] >> 32 & 1
        assert snapshot(replay(game, w)) == snapshot(w)
        if checks % 4 == 0 and len(s.legal_actions()) > 1:
            assert_honest(game, model, side, s, seat, rng)
        checks += 1
    assert checks >= 30 and voids > 0 and jokers > 0
    s = game.new_game(5)  # the bundled model (configs/lab/belief/silberne_ananas.yaml) plays
    assert build_policy("pimc:belief=silberne_ananas,worlds=2", game,
                        seed=0).act(Decision(game, s)) in s.legal_actions()


def test_wunder_punkt_worlds_keep_every_constraint_and_the_search_is_honest():
    cls = game_class("wunder_punkt")
    game = cls(cls.Options(num_players=4, rounds=1))
    model = random_model(game, seed=5)
    side = adapter(game)
    inference = BeliefInference(game, model, temper=2.0)
    rng = random.Random(8)
    checks = pending = 0
    for s in itertools.chain(*(states(game, seed, 3, 20) for seed in (14, 15))):
        seat = s.current_player
        hidden = side.hidden(s, seat)
        truth = side.truth(s, seat, hidden)
        for c, b in zip(hidden.cards, truth):  # a hand (0..2) or a face-down pick (3..5)
            p = (seat + b % 3 + 1) % 4
            assert (s.sore_cards[p] == c) if b >= 3 else (s.hands[p] >> c & 1)
        locations, _ = inference.draft(s, seat, rng)
        w = inference.finish(s, seat, locations, rng)
        assert w.hands[seat] == s.hands[seat] and w.sore_cards[seat] == s.sore_cards[seat]
        assert w.played == s.played
        for p in range(game.num_players):
            assert w.hands[p].bit_count() == s.hands[p].bit_count()
            assert (w.sore_cards[p] >= 0) == (s.sore_cards[p] >= 0)
            if s.phase_name != "sore" or p == seat:
                assert w.sore_cards[p] == s.sore_cards[p]  # revealed, or the seat's own
            elif s.sore_cards[p] >= 0:
                pending += 1
                assert not w.hands[p] >> w.sore_cards[p] & 1
        assert snapshot(replay(game, w)) == snapshot(w)
        if checks % 3 == 0 and len(s.legal_actions()) > 1:
            assert_honest(game, model, side, s, seat, rng)
        checks += 1
    assert checks >= 30 and pending > 0
    s = game.new_game(6)  # the bundled model (configs/lab/belief/wunder_punkt.yaml) plays
    assert build_policy("pimc:belief=wunder_punkt,worlds=2", game,
                        seed=0).act(Decision(game, s)) in s.legal_actions()


def _deals(hidden: Hidden):
    """Every assignment of the cards to locations that fits sizes and bans."""
    nb = len(hidden.sizes)
    for locs in itertools.product(range(nb), repeat=len(hidden.cards)):
        if [locs.count(b) for b in range(nb)] != list(hidden.sizes):
            continue
        if any(hidden.bans[b] >> c & 1 for c, b in zip(hidden.cards, locs)):
            continue
        yield list(locs)


def test_flat_walk_is_the_uniform_sampler_without_voids():
    hidden = Hidden([0, 3, 14, 30, 52, 57], [2, 1, 3], [0, 0, 0])
    deals = list(_deals(hidden))
    assert len(deals) == math.factorial(6) // (2 * 1 * 6)
    for d in deals:
        assert log_likelihood(flat(hidden), hidden, d) == pytest.approx(-math.log(len(deals)))


@pytest.mark.parametrize("bans", [[0, 0, 0], [SUIT_MASK[0], 0, 0],
                                  [SUIT_MASK[0] | SUIT_MASK[1], SUIT_MASK[2], 0]])
def test_walk_is_a_distribution_over_exactly_the_deals_that_fit(bans):
    hidden = Hidden([0, 1, 14, 27, 53, 58, 40], [2, 2, 3], bans)
    deals = list(_deals(hidden))
    rng = np.random.default_rng(4)
    weights = rng.uniform(0.1, 3.0, (len(hidden.cards), 3)).tolist()
    total = sum(math.exp(log_likelihood(weights, hidden, d)) for d in deals)
    assert total == pytest.approx(1.0)
    fits = {tuple(d) for d in deals}
    r = random.Random(0)
    for _ in range(200):
        locs, logp = walk(weights, hidden, r)
        assert tuple(locs) in fits
        assert logp == pytest.approx(log_likelihood(weights, hidden, locs))


def test_ratios_of_the_prior_are_flat():
    hidden = Hidden(list(range(10)), [3, 3, 4], [0, 0, 0])
    probs = np.tile(np.array([0.3, 0.3, 0.4]), (DECK_SIZE, 1))
    assert np.allclose(ratios(probs, hidden), 1.0)


def test_draws_are_deterministic_and_the_spec_builds():
    game = wizard()
    model = random_model(game, seed=2)
    s = next(x for x in states(game, 9, 1, 20) if x.phase_name == "play")
    seat = s.current_player
    a = [BeliefInference(game, model).draft(s, seat, random.Random(1))[0] for _ in range(2)]
    assert a[0] == a[1]
    with pytest.raises(ValueError, match="temper"):
        build_policy("pimc:temper=0.5", game, seed=0)
    with pytest.raises(ValueError, match="not both"):
        build_policy("pimc:belief=wizard,infer=1", game, seed=0)
    with pytest.raises(ValueError, match="no model file"):
        build_policy("pimc:belief=/nonexistent.npz", game, seed=0)


def test_training_is_deterministic_and_the_model_loads(tmp_path):
    cfg = {"game": "wizard", "options": {"num_players": 4, "rounds": [3]},
           "players": ["heuristic"], "train_games": 3, "test_games": 1, "test_seed": 9,
           "hidden": [16], "card_hidden": 8, "epochs": 1, "batch_size": 64}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    outs, said = [], []
    for i in range(2):  # the second fit reads the first one's played data back
        out = tmp_path / f"m{i}.npz"
        report = fit.run("belief", training.load_config(str(path)), str(out), log=said.append,
                         data=str(tmp_path / "data.npz"))
        assert set(report["quality"]) >= {"bid", "play early", "play late", "all"}
        outs.append(BeliefModel.load(out))
    assert f"data from {tmp_path / 'data.npz'}" in said
    assert_repeatable(path, tmp_path, report)
    game = wizard(rounds=[3])
    spec = f"pimc:belief={tmp_path / 'm0.npz'},worlds=2"
    s = game.new_game(1)
    assert build_policy(spec, game, seed=0).act(Decision(game, s)) in s.legal_actions()
    with pytest.raises(ValueError, match="not for this table"):
        BeliefInference(wizard(num_players=5, rounds=[3]), outs[0])
    with pytest.raises(ValueError, match="unknown key"):
        training.load_config(str(path), {"epoch": 3})
