"""Policy-based inference for Wizard's PIMC (``pimc:policy=S``, issue 29 item 3).

The search draws candidate deals, weights each by the shipped network's
likelihood of the other seats' decisions this round (tempered by ``S``) and
resamples its worlds.  These tests hold it to what it promises:

- the likelihood of a decision is the network's probability of the action
  the player took, on the observation and legal mask that player had then
  (replayed from the public history, the hand taken from the world);
- the weights favour hands that explain the bids (a bid of 0 is unlikely
  with Wizards in hand; the true deal ranks above uniform ones);
- the spec parses, checks its arguments and is refused for other games;
- the search stays honest (re-dealing what the seat cannot see does not
  change its values) and deterministic (same seed, same values);
- the worlds are distinct candidates and show the seat what it sees.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from stichzoo.envs.registry import game_class
from stichzoo.envs.wizard.rules import JESTER0, PLAY, WIZARD0
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision, encoder_for
from stichzoo.policies.lab.policy_inference import FLOOR, PolicyInference
from stichzoo.policies.specs import build_policy
from tests.policies.test_search_honesty import observe, redeal, snapshot

pytest.importorskip("onnxruntime")  # the shipped network runs on it


def wizard(**opts):
    cls = game_class("wizard")
    return cls(cls.Options(**{"num_players": 4, **opts}))


def played_round(game, seed: int, until, record=None):
    """A round played by PIMC (few worlds) until ``until(state)``; with ``record`` (a list),
    every decision's (seat, observation, legal mask, action) is appended to it."""
    s = game.new_game(seed)
    bots = [make_policy("pimc", game, seed=seed * 4 + i, worlds=2) for i in range(4)]
    enc = encoder_for(game)
    while not until(s):
        seat = s.current_player
        a = bots[seat].act(Decision(game, s))
        if record is not None:
            mask = np.array([(s.legal_mask() >> b) & 1 for b in range(game.num_actions)],
                            np.float32)
            record.append((seat, observe(enc, s, seat), mask, a, s.phase))
        s.apply(a)
    return s


def test_the_likelihood_is_the_networks_probability_of_each_decision_then():
    """With the true hands, the log-likelihood is the sum over the other seats' bids and card
    plays of log p(action | the observation and mask that seat had), from the shipped bot."""
    game = wizard()  # the bot's own table: its observation unchanged
    record: list = []
    s = played_round(game, 3, lambda s: s.round_index == 3 and s.phase == PLAY
                     and s.played.bit_count() == 6, record)
    seat = s.current_player
    inference = PolicyInference(game, 1.0, plays=64)
    round_start = len(record) - (sum(b >= 0 for b in s.bids) + 6
                                 + (WIZARD0 <= s.trump_card < JESTER0))
    want = 0.0
    judged = 0
    for p, obs, mask, a, _ in record[round_start:]:
        if p == seat or a >= game.trump0:
            continue
        probs = inference.session.run(["probabilities"], {
            "observation": obs[None], "action_mask": mask[None]})[0][0]
        want += math.log(max(float(probs[a]), FLOOR))
        judged += 1
    decisions = inference.decisions(s, seat)
    assert len(decisions) == judged >= 3 + 4
    got = inference.log_likelihoods(decisions, [s.hands])[0]
    assert got == pytest.approx(want, abs=1e-4)
    # bids only (plays=0): just the bids
    assert len(PolicyInference(game, 1.0).decisions(s, seat)) == 3


def test_on_the_probe_table_round_progress_is_the_full_games():
    game = wizard(rounds=[8])
    s = played_round(game, 4, lambda s: s.phase == PLAY)
    decisions = PolicyInference(game, 1.0).decisions(s, s.current_player)
    progress = encoder_for(game).layout.offsets["round_progress"]
    assert len(decisions) == 3
    assert np.allclose(decisions.obs[:, progress], 7 / 15)


def test_a_bid_of_zero_is_unlikely_with_wizards_in_hand():
    """Seat 1 bid 0: candidate hands that give it two or more Wizards weigh far less than
    hands without one."""
    game = wizard(rounds=[6])
    for seed in range(100, 200):
        s = played_round(game, seed, lambda s: s.phase == PLAY)
        if s.bids[1] == 0:
            break
    assert s.bids[1] == 0
    inference = PolicyInference(game, 1.0)
    hands, _ = inference.candidate_hands(s, 0, random.Random(0), 400)
    logl = inference.log_likelihoods(inference.decisions(s, 0), hands)
    wizards = [x for h, x in zip(hands, logl) if (h[1] >> WIZARD0 & 0xF).bit_count() >= 2]
    none = [x for h, x in zip(hands, logl) if not h[1] >> WIZARD0 & 0xF]
    assert wizards and none
    assert np.mean(wizards) < np.mean(none) - 2.0


def test_the_true_deal_explains_the_bids_better_than_uniform_deals():
    """Over a few rounds of PIMC players, the true hands' bid likelihood ranks high among
    uniform candidates (measured: about the 92nd percentile, +3.5 nats over the mean)."""
    game = wizard(rounds=[8])
    inference = PolicyInference(game, 1.0)
    rng = random.Random(1)
    ranks, gaps = [], []
    for seed in range(6):
        s = played_round(game, 50 + seed, lambda s: s.phase == PLAY)
        seat = s.current_player
        hands, _ = inference.candidate_hands(s, seat, rng, 60)
        logl = inference.log_likelihoods(inference.decisions(s, seat), [s.hands, *hands])
        ranks.append(float(np.mean(logl[1:] < logl[0])))
        gaps.append(float(logl[0] - logl[1:].mean()))
    assert np.mean(ranks) > 0.7 and np.mean(gaps) > 1.0


def test_the_weights_are_the_tempered_likelihood():
    """The resampling keys are ``log(u) / w`` with ``w = (L / L_max) ** S``: with equal
    uniforms, the likelier candidate comes first, and S scales the log-weights."""
    game = wizard(rounds=[3])
    inference = PolicyInference(game, 0.5)
    logl = np.array([-1.0, -3.0, -2.0])
    keys = inference.keys(logl, [0.5, 0.5, 0.5])
    assert keys[0] > keys[2] > keys[1]
    assert keys[1] == pytest.approx(math.log(0.5) * math.exp(0.5 * 2.0))


def test_the_worlds_are_distinct_candidates_that_show_the_seat_what_it_sees():
    game = wizard(rounds=[8])
    s = played_round(game, 7, lambda s: s.phase == PLAY and s.played.bit_count() == 5)
    seat = s.current_player
    enc = encoder_for(game)
    want = observe(enc, s, seat)
    inference = PolicyInference(game, 1.0, candidates=30, plays=8)
    worlds = inference.sample(s, seat, random.Random(2), 10)
    assert len(worlds) == 10
    assert len({tuple(w.hands) for w in worlds}) == 10
    for w in worlds:
        assert np.array_equal(observe(enc, w, seat), want)
        assert w.legal_mask() == s.legal_mask()
        for p in range(4):
            assert w.hands[p].bit_count() == s.hands[p].bit_count()
            assert not any(w.hands[p] >> (13 * x) & 0x1FFF for x in range(4)
                           if s.voids[p] >> x & 1)


def test_before_any_other_bid_the_worlds_are_uniform_draws():
    """Nothing to explain (the first bidder): the worlds are ``determinize``'s, no candidates."""
    game = wizard(rounds=[5])
    s = game.new_game(9)
    seat = s.current_player
    inference = PolicyInference(game, 1.0)
    assert len(inference.decisions(s, seat)) == 0
    worlds = inference.sample(s, seat, random.Random(4), 3)
    rng = random.Random(4)
    assert [snapshot(w) for w in worlds] == [snapshot(game.determinize(s, seat, rng))
                                             for _ in range(3)]


def test_the_spec_parses_and_is_checked():
    game = wizard(rounds=[8])
    search = build_policy("pimc:policy=0.5,worlds=9,candidates=27,plays=4", game, seed=0)
    assert isinstance(search.infer, PolicyInference)
    assert (search.worlds, search.infer.strength, search.infer.candidates,
            search.infer.plays) == (9, 0.5, 27, 4)
    assert build_policy("pimc:policy=1", game, seed=0).infer.candidates is None
    for spec, match in [("pimc:policy=0", "strength"), ("pimc:policy=20", "strength"),
                        ("pimc:policy=1,candidates=0", "candidates"),
                        ("pimc:policy=1,plays=-1", "plays"),
                        ("pimc:candidates=20", "policy inference"),
                        ("pimc:plays=2", "policy inference"),
                        ("pimc:policy=1,infer=1", "choose one"),
                        ("pimc:policy=1,belief=wizard", "choose one")]:
        with pytest.raises(ValueError, match=match):
            build_policy(spec, game, seed=0)


@pytest.mark.parametrize("name", ["hoch_tief", "wunder_punkt", "silberne_ananas",
                                  "geheimtrumpf"])
def test_other_games_refuse_it_by_name(name):
    cls = game_class(name)
    game = cls(cls.Options())
    with pytest.raises(ValueError, match=f"{name} has no policy inference"):
        build_policy("pimc:policy=1", game, seed=0)


def test_other_player_counts_refuse_it():
    with pytest.raises(ValueError, match="4-player network"):
        build_policy("pimc:policy=1", wizard(num_players=3), seed=0)


@pytest.mark.parametrize("opts", [{}, {"rounds": [8]}], ids=["full game", "probe table"])
def test_the_search_is_honest_and_deterministic(opts):
    """Same seed, same values; a re-deal of what the seat cannot see changes nothing."""
    game = wizard(**opts)
    spec = "pimc:policy=0.5,worlds=3,candidates=9,plays=6"
    rng = random.Random(11)
    checks = 0
    s = played_round(game, 12, lambda s: s.hand_size >= 5)
    bots = [make_policy("pimc", game, seed=i, worlds=2) for i in range(4)]
    while not s.over and checks < 8:
        if len(s.legal_actions()) > 1 and s.bids.count(-1) < 3:
            want = build_policy(spec, game, seed=5).values(Decision(game, s))
            assert build_policy(spec, game, seed=5).values(Decision(game, s)) == want
            r = redeal(game, s, s.current_player, rng)
            assert snapshot(r) != snapshot(s)
            assert build_policy(spec, game, seed=5).values(Decision(game, r)) == want
            checks += 1
        s.apply(bots[s.current_player].act(Decision(game, s)))
    assert checks == 8
