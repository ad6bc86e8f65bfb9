"""The batch engine: the AEC env's games, N at a time, byte for byte."""

from __future__ import annotations

import numpy as np
import pytest

from stichzoo import envs
from stichzoo.envs import BatchEnv
from stichzoo.envs.core.batch import episode_seed
from stichzoo.envs.core.game import IllegalActionError

PLAYERS = {"silberne_ananas": 3}
TABLES = [(g, {"num_players": PLAYERS.get(g, 4)}) for g in envs.GAMES] + [
    ("wizard", {"num_players": 3, "rounds": [1, 2]}),
    ("wunder_punkt", {"num_players": 6}),
    ("hoch_tief", {"num_players": 5}),
    ("geheimtrumpf", {"num_players": 3}),
]


def _ids(table):
    game, options = table
    return f"{game}-{options['num_players']}p" + ("-short" if "rounds" in options else "")


@pytest.mark.parametrize(("table", "reward"), [
    *[pytest.param(t, r, id=f"{r}-{_ids(t)}") for r in ("score", "win", "margin") for t in TABLES],
    pytest.param(("silberne_ananas", {"num_players": 3}), "standing", id="standing-sa"),
])
def test_same_games_as_the_aec_env(table, reward):
    """Every observation, mask, seat to act, reward and episode end equals the AEC env's."""
    game, options = table
    n_envs, seed = 5, 11
    batch = BatchEnv(game, n_envs, reward=reward, reward_scale=0.5, **options)
    obs, mask, to_act = batch.reset(seed=seed)
    module = envs.env_module(game)
    aecs = [module.raw_env(reward=reward, reward_scale=0.5, **options) for _ in range(n_envs)]
    episodes = [0] * n_envs
    for i, e in enumerate(aecs):
        e.reset(seed=episode_seed(seed, i, 0))
    rng = np.random.default_rng(0)
    for _ in range(600):
        for i, e in enumerate(aecs):
            agent = e.agent_selection
            seen = e.observe(agent)
            assert e.agent_name_mapping[agent] == to_act[i]
            assert seen["observation"].tobytes() == obs[i].tobytes()
            assert seen["action_mask"].tobytes() == mask[i].tobytes()
        actions = batch.sample_legal(rng)
        obs, mask, to_act, rewards, dones = batch.step(actions)
        for i, e in enumerate(aecs):
            e.step(int(actions[i]))
            want = np.array([e.rewards[a] for a in e.possible_agents], np.float32)
            assert want.tobytes() == rewards[i].tobytes()
            ended = all(e.terminations.values()) or all(e.truncations.values())
            assert ended == dones[i]
            if ended:
                assert list(batch.final_totals[i]) == list(e.rules_state.totals)
                assert batch.final_states[i].totals == e.rules_state.totals
                assert batch.final_states[i].over == e.rules_state.over
                assert batch.truncated[i] == all(e.truncations.values())
                episodes[i] += 1
                e.reset(seed=episode_seed(seed, i, episodes[i]))
    assert list(batch.episodes) == episodes


def test_deterministic_byte_for_byte():
    def run(seed: int) -> bytes:
        batch = BatchEnv("hoch_tief", 7, num_players=4)
        out = [batch.reset(seed=seed)[0].tobytes()]
        rng = np.random.default_rng(3)
        for _ in range(300):
            obs, mask, to_act, rewards, dones = batch.step(batch.sample_legal(rng))
            out += [obs.tobytes(), mask.tobytes(), to_act.tobytes(), rewards.tobytes(),
                    dones.tobytes()]
        return b"".join(out)

    assert run(5) == run(5)
    assert run(5) != run(6)


@pytest.mark.parametrize("game", list(envs.GAMES))
def test_each_seat_is_credited_its_own_score(game):
    """Score rewards summed per seat over an episode are that seat's final total, scaled."""
    batch = BatchEnv(game, 4, reward_scale=0.25, num_players=PLAYERS.get(game, 4))
    batch.reset(seed=2)
    rng = np.random.default_rng(1)
    sums = np.zeros((4, batch.num_players))
    checked = 0
    while checked < 4:
        _, _, _, rewards, dones = batch.step(batch.sample_legal(rng))
        sums += rewards
        for i in np.flatnonzero(dones):
            assert np.allclose(sums[i], batch.final_totals[i] * 0.25)
            checked += 1
            sums[i] = 0


def test_bad_input_is_refused_and_changes_nothing():
    batch = BatchEnv("wizard", 3, num_players=4)
    with pytest.raises(ValueError, match="reset"):
        batch.step(np.zeros(3, np.int64))
    obs, mask, _ = batch.reset(seed=0)
    before = obs.copy(), [s.clone().history for s in batch.states]
    illegal = np.array([int(np.flatnonzero(m == 0)[0]) for m in mask])
    with pytest.raises(IllegalActionError, match="game 0: illegal action"):
        batch.step(illegal)
    assert np.array_equal(batch.obs, before[0])
    assert [s.history for s in batch.states] == before[1]
    with pytest.raises(ValueError, match="3 integer action ids"):
        batch.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="3 integer action ids"):
        batch.step(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="num_envs"):
        BatchEnv("wizard", 0)
    with pytest.raises(ValueError, match="unknown option"):
        BatchEnv("wizard", 2, colour=1)
    with pytest.raises(ValueError, match="reward"):
        BatchEnv("wizard", 2, reward="money")
    with pytest.raises(ValueError, match="seed"):
        batch.reset(seed=-1)


@pytest.mark.parametrize("game", ["wizard", "silberne_ananas", "geheimtrumpf"])
def test_stepping_some_games_plays_the_same_games(game):
    """``step_games`` lets games run ahead of others; each game's decisions, rewards and
    episode ends are still exactly the AEC env's under its ``episode_seed``, and the games
    left out keep their pending decision untouched (also when the observations are written
    later, by ``observe``)."""
    n_envs, seed = 4, 7
    options = {"num_players": PLAYERS.get(game, 4)}
    batch = BatchEnv(game, n_envs, **options)
    obs, mask, to_act = batch.reset(seed=seed)
    module = envs.env_module(game)
    aecs = [module.raw_env(**options) for _ in range(n_envs)]
    episodes = [0] * n_envs
    for i, e in enumerate(aecs):
        e.reset(seed=episode_seed(seed, i, 0))
    rng = np.random.default_rng(2)
    for _ in range(500):
        games = np.flatnonzero(rng.random(n_envs) < 0.5)
        waiting = np.setdiff1d(np.arange(n_envs), games)
        before = obs[waiting].copy(), mask[waiting].copy(), to_act[waiting].copy()
        actions = batch.sample_legal(rng)[games]
        observe = bool(rng.random() < 0.5)  # else written later, by observe()
        obs, mask, to_act, rewards, dones = batch.step_games(games, actions, observe=observe)
        if not observe:  # masks and seats are written at once, observations on demand
            written = mask[games].copy(), to_act[games].copy()
            obs = batch.observe(games)[0]
            assert np.array_equal(mask[games], written[0])
            assert np.array_equal(to_act[games], written[1])
        assert np.array_equal(obs[waiting], before[0])
        assert np.array_equal(mask[waiting], before[1])
        assert np.array_equal(to_act[waiting], before[2])
        assert not rewards[waiting].any() and not dones[waiting].any()
        for i, a in zip(games.tolist(), actions.tolist()):
            e = aecs[i]
            e.step(a)
            want = np.array([e.rewards[p] for p in e.possible_agents], np.float32)
            assert want.tobytes() == rewards[i].tobytes()
            ended = all(e.terminations.values()) or all(e.truncations.values())
            assert ended == dones[i]
            if ended:
                episodes[i] += 1
                e.reset(seed=episode_seed(seed, i, episodes[i]))
            seen = e.observe(e.agent_selection)
            assert e.agent_name_mapping[e.agent_selection] == to_act[i]
            assert seen["observation"].tobytes() == obs[i].tobytes()
            assert seen["action_mask"].tobytes() == mask[i].tobytes()
    assert list(batch.episodes) == episodes
    with pytest.raises(ValueError, match="distinct game indices"):
        batch.step_games([1, 1], [0, 0])
    with pytest.raises(ValueError, match="distinct game indices"):
        batch.step_games([n_envs], [0])
    illegal = int(np.flatnonzero(mask[2] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 2: illegal action"):
        batch.step_games([2], [illegal])
