"""The OpenSpiel games (envs/openspiel.py): OpenSpiel's own checks, and the same game as the env.

OpenSpiel tests its Python games with ``pyspiel.random_sim_test`` (random
games through the C++ API: legal actions, chance outcomes, clones, returns,
observations, serialization); here every game passes it.  Then each game is
played side by side with our PettingZoo env from the env's own deal: the same
seat to act, the same legal actions, the same observation for every seat at
every step, the same rewards.
"""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from stichzoo.envs import env_module  # noqa: E402
from stichzoo.envs import openspiel as sos  # noqa: E402

#: small variants, so a whole game is quick (parameters as OpenSpiel takes them)
SMALL = {
    "wizard": {"num_players": 3, "rounds": "[1;2]"},
    "wunder_punkt": {"num_players": 3, "rounds": 1},
    "silberne_ananas": {"match": False},
    "hoch_tief": {"num_players": 3, "rounds": 1},
    "geheimtrumpf": {"num_players": 3, "round_limit": 1},
}


def test_every_game_is_registered():
    names = {g.short_name for g in pyspiel.registered_games()}
    assert set(sos.SHORT_NAMES) <= names
    assert tuple(f"stichzoo_{name}" for name in SMALL) == sos.SHORT_NAMES


@pytest.mark.parametrize("name", list(SMALL))
@pytest.mark.parametrize("reward", ["score", "margin"])
def test_random_sim_test(name, reward):
    """OpenSpiel's standard game checks, serialization included."""
    game = sos.load(name, reward=reward, **SMALL[name])
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _env_options(params: dict) -> dict:
    return {k: [int(x) for x in v.strip("[]").split(";")] if isinstance(v, str) else v
            for k, v in params.items()}


@pytest.mark.parametrize(("name", "reward", "seed"),
                         [(n, "score", seed) for n in SMALL for seed in (3, 4)]
                         + [("wizard", "win", 3), ("silberne_ananas", "win", 3),
                            ("hoch_tief", "margin", 3), ("geheimtrumpf", "margin", 4)])
def test_same_game_as_the_env(name, reward, seed):
    """From the env's deal, the OpenSpiel state follows the env step for step."""
    env = env_module(name).env(reward=reward, **_env_options(SMALL[name]))
    env.reset(seed=seed)
    raw = env.unwrapped
    game = sos.load(name, reward=reward, **SMALL[name])
    orders = raw.rules_state.deck_orders
    state = sos.replay(game, [orders[d.order][d.position]
                              for d in sos.setup_of(game).deal.draws], [])
    assert not state.is_chance_node()
    rng = random.Random(seed)
    totals = np.zeros(game.num_players())
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert state.current_player() == raw.agent_name_mapping[agent]
        assert state.legal_actions() == np.flatnonzero(obs["action_mask"]).tolist()
        for other, seat in raw.agent_name_mapping.items():
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(seat), np.float32),
                                          env.observe(other)["observation"])
        action = rng.choice(state.legal_actions())
        env.step(action)
        state.apply_action(action)
        want = [float(raw.rewards[a]) for a in raw.possible_agents]
        assert state.rewards() == want
        totals += want
    assert state.is_terminal()
    assert state.returns() == totals.tolist()
    # somebody scored (one round of Geheimtrumpf may end with no task checked off)
    assert any(totals) or name == "geheimtrumpf"


def _midgame(game, seed: int, decisions: int):
    rng = random.Random(seed)
    state = game.new_initial_state()
    while state.is_chance_node() or decisions:
        if state.is_chance_node():
            state.apply_action(rng.choice([c for c, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions -= 1
    return state


@pytest.mark.parametrize("name", list(SMALL))
def test_resample_keeps_what_the_player_knows(name):
    """IS-MCTS's worlds: the player's information state and legal actions stay, hands change."""
    game = sos.load(name, **SMALL[name])
    state = _midgame(game, seed=1, decisions=5)
    seat = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hidden = set()
    for _ in range(6):
        world = state.resample_from_infostate(seat, sampler)
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.legal_actions() == state.legal_actions()
        assert len(world.history()) == len(state.history())
        hidden.add(world.information_state_string((seat + 1) % game.num_players()))
    if name != "geheimtrumpf":  # five decisions into Geheimtrumpf: the public task draft
        assert len(hidden) > 1  # the other seats' hands differ between worlds


def test_information_state_is_perfect_recall():
    """Same observation now, different pasts: different information states.

    Wizard, one round of two cards, seat 0 deals: seat 1 leads B5 and seat 2
    follows B7, or seat 1 leads B7 and seat 2 follows B5; seat 0 takes both
    tricks with B13.  Leading the second trick, seat 0 observes the same
    (the cards played, not who played which) but saw different tricks.
    """
    game = sos.load("wizard", num_players=3, rounds="[2]")
    b5, b7, b13, r1, r2, g1, n1 = 4, 6, 12, 13, 14, 26, 56
    bid0 = 60
    states = [sos.replay(game, [first, second, b13, r1, r2, n1, g1],
                         [bid0, bid0, bid0, first, second, b13])
              for first, second in ((b5, b7), (b7, b5))]
    for state in states:
        assert state.current_player() == 0
        assert state.legal_actions() == [n1]
    a, b = states
    assert a.observation_string(0) == b.observation_string(0)
    np.testing.assert_array_equal(a.observation_tensor(0), b.observation_tensor(0))
    assert a.information_state_string(0) != b.information_state_string(0)
    assert a.information_state_string(0).startswith(a.observation_string(0))
    # a state replayed from its history has the same information states
    history = a.full_history()
    again = sos.replay(game, [h.action for h in history if h.player < 0],
                       [h.action for h in history if h.player >= 0])
    for seat in range(3):
        assert again.information_state_string(seat) == a.information_state_string(seat)


def test_clone_is_independent():
    game = sos.load("wizard", **SMALL["wizard"])
    state = _midgame(game, seed=2, decisions=2)
    copy = state.clone()
    before = str(state)
    copy.apply_action(copy.legal_actions()[0])
    assert str(state) == before
    assert len(copy.history()) == len(state.history()) + 1
    assert copy.table.rules is not state.table.rules


def test_parameters():
    game = sos.load("wizard", num_players=3, rounds="[1]")
    assert "rounds=[1]" in str(game)
    assert pyspiel.load_game(str(game)).num_players() == 3
    assert sos.setup_of(game).rules.round_sizes == (1,)
    assert sos.setup_of(sos.load("wizard")).rules.round_sizes == tuple(range(1, 16))
    with pytest.raises(Exception, match="num_players"):
        sos.load("wizard", num_players=2)
    with pytest.raises(Exception, match="standing"):
        sos.load("wizard", reward="standing")
    win = sos.load("silberne_ananas", reward="win")
    assert (win.min_utility(), win.max_utility()) == (-1.0, 1.0)


def test_chance_draws_only_what_the_rules_read():
    """One chance node per card the rules deal; forced last cards are not asked."""
    game = sos.load("wizard", num_players=3, rounds="[1]")
    state = game.new_initial_state()
    draws = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 60 - draws
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[0][0])
        draws += 1
    assert draws == 3 + 1  # three hands of one card, the turned card
    full = sos.load("hoch_tief", num_players=3, rounds=1).new_initial_state()
    assert len(sos.setup_of(full.get_game()).deal.draws) == 45  # every card, one by one
    n = 0
    while full.is_chance_node():
        full.apply_action(full.chance_outcomes()[0][0])
        n += 1
    assert n == 44  # the last card is forced


def test_the_envs_never_import_pyspiel():
    code = ("import sys; from stichzoo.envs import wizard_v0; e = wizard_v0.env(); "
            "e.reset(seed=0); assert 'pyspiel' not in sys.modules, 'pyspiel imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_openspiel_rl_environment():
    """OpenSpiel's RL environment runs a game; its rewards add up to the state's returns."""
    from open_spiel.python import rl_environment

    game = sos.load("wizard", **SMALL["wizard"])
    env = rl_environment.Environment(game, seed=0)
    size = sos.setup_of(game).layout.size
    assert env.observation_spec()["info_state"] == (size,)
    rng = np.random.RandomState(0)
    step = env.reset()
    total = np.zeros(3)
    while not step.last():
        seat = step.observations["current_player"]
        assert len(step.observations["info_state"][seat]) == size
        step = env.step([rng.choice(step.observations["legal_actions"][seat])])
        total += step.rewards
    assert total.tolist() == env.get_state.returns()
