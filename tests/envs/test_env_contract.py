"""The env contract, once over all five games: what every env promises through the PettingZoo API.

PettingZoo's api and seed tests, registration, the spaces, same seed same
game, records that replay and refuse tampering, illegal moves, option
errors, and whole games run through the AEC loop.  Each table below lists
the games' cases; what only one game does stays in its
``tests/envs/test_<game>_env.py``.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pettingzoo
import pytest

from stichzoo import envs
from stichzoo.envs.core.game import IllegalActionError
from stichzoo.envs.core.record import replay, to_json
from stichzoo.envs.registry import VERSIONS, env_id
from tests.helpers import play_env, strict_api_test

GAMES = list(envs.GAMES)


def case_id(case) -> str:
    """``wizard-num_players=3`` - readable test ids for (game, options, ...) cases."""
    game, opts = case[0], case[1]
    return "-".join([game, *(f"{k}={v}" for k, v in opts.items())])


# -- PettingZoo's api and seed tests ---------------------------------------------------------------

#: (game, env options, cycles): every table size, and a short game under the win reward
API_CASES = [
    *[("wizard", {"num_players": n}, 600) for n in (3, 4, 5, 6)],
    ("wizard", {"num_players": 4, "rounds": [5], "reward": "win"}, 200),
    *[("wunder_punkt", {"num_players": n}, 300) for n in (3, 4, 5, 6)],
    ("wunder_punkt", {"num_players": 3, "larger_hands": True}, 300),
    ("silberne_ananas", {}, 300),
    ("silberne_ananas", {"match": False, "reward": "win"}, 100),
    ("silberne_ananas", {"reward": "standing"}, 100),
    *[("hoch_tief", {"num_players": n}, 600) for n in (3, 4, 5, 6)],
    ("hoch_tief", {"num_players": 4, "rounds": 1, "reward": "win"}, 200),
    *[("geheimtrumpf", {"num_players": n}, 400) for n in (3, 4)],
    ("geheimtrumpf", {"num_players": 3, "round_limit": 1, "reward": "win"}, 300),
]


@pytest.mark.parametrize("case", API_CASES, ids=case_id)
def test_api_and_seed(case):
    game, opts, cycles = case
    module = envs.env_module(game)
    strict_api_test(lambda: module.env(**opts), env_id(game), num_cycles=cycles)


# -- registration and spaces -----------------------------------------------------------------------

#: options for pettingzoo.make, and the player count they give
MAKE_OPTIONS = {
    "wizard": ({"num_players": 5}, 5),
    "wunder_punkt": ({"num_players": 6}, 6),
    "silberne_ananas": ({"match": False}, 3),
    "hoch_tief": ({"num_players": 5}, 5),
    "geheimtrumpf": ({"num_players": 3}, 3),
}


@pytest.mark.parametrize("game", GAMES)
def test_registered_with_pettingzoo(game):
    name = env_id(game)
    module = envs.env_module(game)
    assert name in envs.ENV_IDS
    assert envs.game_class(game).name == game
    assert envs.game_class(game).version == VERSIONS[game]  # the registry and the rules agree
    assert module.raw_env.metadata["name"] == name
    assert "Observation Space" in module.__doc__
    opts, players = MAKE_OPTIONS[game]
    made = pettingzoo.make("aec", f"stichzoo/{game}-v{VERSIONS[game]}", **opts)
    made.reset(seed=0)
    assert made.num_agents == players and str(made.unwrapped) == name
    assert isinstance(made.unwrapped, module.raw_env)


#: (game, options): the table sizes the spaces are checked at
SPACE_CASES = [
    ("wizard", {"num_players": 4}),
    ("wunder_punkt", {"num_players": 5}),
    ("silberne_ananas", {}),
    ("hoch_tief", {"num_players": 3}),
    ("hoch_tief", {"num_players": 6}),
    ("geheimtrumpf", {"num_players": 4}),
]


@pytest.mark.parametrize("case", SPACE_CASES, ids=case_id)
def test_spaces(case):
    """float32 observations of the encoder's size, int8 masks, one action id per game action."""
    game, opts = case
    env = envs.env_module(game).env(**opts)
    env.reset(seed=0)
    raw = env.unwrapped
    obs_space = env.observation_space("player_0")
    assert obs_space["observation"].dtype == np.float32
    assert obs_space["observation"].shape == (raw.encoder.layout.size,)
    assert obs_space["action_mask"].dtype == np.int8
    assert env.action_space("player_0").n == raw.game.num_actions
    obs = env.observe("player_0")
    assert obs["observation"].shape == obs_space["observation"].shape
    assert obs_space.contains(obs)
    assert obs_space.contains(env.last()[0])  # the agent to act
    assert raw.state().shape == raw.state_space.shape


# -- same seed, same game --------------------------------------------------------------------------

#: options of the game played twice from one seed
SEED_OPTIONS = {
    "wizard": {"num_players": 5},
    "wunder_punkt": {"num_players": 5},
    "silberne_ananas": {},
    "hoch_tief": {"num_players": 5},
    "geheimtrumpf": {"num_players": 4},
}


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_game_byte_for_byte(game):
    def record(seed: int) -> str:
        env = envs.env_module(game).env(**SEED_OPTIONS[game])
        play_env(env, seed=seed, rng=random.Random(5))
        return json.dumps(env.unwrapped.record(), sort_keys=True)

    first = record(99)
    assert record(99) == first
    assert record(100) != first


# -- records ---------------------------------------------------------------------------------------

#: (game, env options, seed) of the games whose records must replay
RECORD_CASES = [
    *[("wizard", {"num_players": n, "dealer_bid_restriction": True}, seed)
      for n, seed in ((3, 1), (4, 2), (6, 3))],
    *[("wunder_punkt", opts, 11) for opts in (
        {"num_players": 3}, {"num_players": 4}, {"num_players": 5}, {"num_players": 6},
        {"num_players": 3, "larger_hands": True})],
    ("silberne_ananas", {}, 8),
    ("silberne_ananas", {"match": False, "first_dealer": 2}, 8),
    *[("hoch_tief", {"num_players": n, "first_dealer": 1}, seed)
      for n, seed in ((3, 1), (4, 2), (6, 3))],
    ("geheimtrumpf", {"num_players": 3}, 1),
    ("geheimtrumpf", {"num_players": 4}, 2),
    ("geheimtrumpf", {"num_players": 4, "round_limit": 2, "first_start": 2}, 3),
]

#: the only game with a round limit, so the only one whose game may end truncated
CAN_TRUNCATE = {"geheimtrumpf"}


def played_record(game: str, opts: dict, seed: int) -> tuple[dict, object]:
    """A whole random game's record, through JSON and back, and the env that played it."""
    env = envs.env_module(game).env(**opts)
    play_env(env, seed=seed)
    return json.loads(to_json(env.unwrapped.record())), env.unwrapped


@pytest.mark.parametrize("case", RECORD_CASES, ids=case_id)
def test_record_replays_the_game(case):
    game, opts, seed = case
    record, raw = played_record(game, opts, seed)
    assert record["game"] == game and record["env"] == env_id(game)
    state = replay(record)
    played = raw.state_
    assert state.history == played.history
    assert state.totals == played.totals == record["totals"]
    assert state.log == played.log == record["rounds"]
    assert state.over == record["over"] and state.truncated == record["truncated"]
    assert state.over if game not in CAN_TRUNCATE else state.over or state.truncated
    assert record["winners"] == state.winners() == played.winners()


#: options of a short game whose record is tampered with
TAMPER_OPTIONS = {
    "wizard": {"num_players": 4, "rounds": [2]},
    "wunder_punkt": {"num_players": 3},
    "silberne_ananas": {"match": False},
    "hoch_tief": {"num_players": 4, "rounds": 1},
    "geheimtrumpf": {"num_players": 4, "round_limit": 1},
}


@pytest.mark.parametrize("game", GAMES)
def test_replay_rejects_a_tampered_record(game):
    env = envs.env_module(game).env(**TAMPER_OPTIONS[game])
    play_env(env, seed=1)
    record = env.unwrapped.record()
    record["totals"][0] += 1
    with pytest.raises(ValueError, match=r"totals.*differ"):
        replay(record)
    record = env.unwrapped.record()
    record["decisions"][0]["seat"] = 3 if record["decisions"][0]["seat"] != 3 else 2
    with pytest.raises(ValueError, match="decision 0"):
        replay(record)


# -- illegal moves ---------------------------------------------------------------------------------

#: (options, seed, phase, cards led) of the position an illegal move is tried in: the
#: phase is reached by always taking the last legal action, then cards are led
ILLEGAL_POSITIONS = {
    "wizard": ({"num_players": 4, "rounds": [4]}, 11, "play", 0),
    "wunder_punkt": ({"num_players": 4}, 5, "sore", 0),
    "silberne_ananas": ({}, 1, "play", 0),
    "hoch_tief": ({"num_players": 4, "rounds": 1}, 11, "play", 1),  # the follow rule applies
    "geheimtrumpf": ({"num_players": 4}, 11, "card_draft", 0),
}


def state_snapshot(s) -> dict:
    """Every field of a rules state (the trick's cards and leader included), as a text."""
    fields = [f for cls in type(s).__mro__ for f in getattr(cls, "__slots__", ())]
    out = {f: repr(getattr(s, f)) for f in fields if f not in ("trick", "game")}
    out["trick"] = repr((s.trick.leader, s.trick.cards))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_raises_and_changes_nothing(game):
    """Every illegal action id is refused, naming the action, the agent and every legal one."""
    opts, seed, phase, led = ILLEGAL_POSITIONS[game]
    raw = envs.env_module(game).raw_env(**opts)
    raw.reset(seed=seed)
    s = raw.state_
    while s.phase_name != phase:
        raw.step(s.legal_actions()[-1])
    for _ in range(led):
        raw.step(s.legal_actions()[0])
    agent = raw.agent_selection
    before = json.dumps(raw.record(), sort_keys=True)
    state_before = state_snapshot(s)
    obs_before = raw.observe(agent)["observation"]
    legal = s.legal_actions()
    label = raw.game.action_label
    illegal = [a for a in range(raw.game.num_actions) if a not in legal]
    assert illegal
    for a in illegal:
        with pytest.raises(IllegalActionError) as e:
            raw.step(a)
        msg = str(e.value)
        assert msg.startswith(f"illegal action {a} ({label(a)}) for {agent} in phase ")
        assert msg.endswith("legal actions: " + ", ".join(f"{b} ({label(b)})" for b in legal))
    with pytest.raises(IllegalActionError, match="illegal action"):
        raw.step(10_000)
    for bad in ("R7", 1.5):
        with pytest.raises(IllegalActionError, match="not an integer"):
            raw.step(bad)
    assert json.dumps(raw.record(), sort_keys=True) == before
    assert state_snapshot(raw.state_) == state_before and raw.state_ is s
    assert np.array_equal(raw.observe(agent)["observation"], obs_before)
    assert raw.agent_selection == agent and raw.state_.legal_actions() == legal


#: a short game each, for the illegal move under PettingZoo's wrappers
OFFENDER_OPTIONS = {
    "wizard": {"num_players": 3, "rounds": [3]},
    "wunder_punkt": {"num_players": 3, "rounds": 1},
    "silberne_ananas": {"match": False},
    "hoch_tief": {"num_players": 3, "rounds": 1},
    "geheimtrumpf": {"num_players": 3},
}


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_under_env_ends_game_for_offender(game, caplog):
    env = envs.env_module(game).env(**OFFENDER_OPTIONS[game])
    env.reset(seed=0)
    agent = env.agent_selection
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    assert "illegal move" in caplog.text.lower()  # PettingZoo's warning, via its logger
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1


# -- options ---------------------------------------------------------------------------------------

#: (game, options, what the error must say)
BAD_OPTIONS = [
    ("wizard", {"num_players": 2}, "num_players"),
    ("wizard", {"num_players": 7}, "num_players"),
    ("wizard", {"players": 4}, "unknown option.*'players'"),
    ("wizard", {"reward": "points"}, "reward"),
    ("wizard", {"reward_scale": -1}, "reward_scale"),
    ("wizard", {"render_mode": "rgb_array_list"}, "render_mode"),
    ("wizard", {"rounds": [99]}, "rounds"),
    ("wunder_punkt", {"num_players": 2}, "num_players"),
    ("wunder_punkt", {"num_players": 7}, "num_players"),
    ("wunder_punkt", {"num_players": 4, "larger_hands": True}, "larger_hands"),
    ("wunder_punkt", {"rounds": 0}, "rounds"),
    ("wunder_punkt", {"rounds": 101}, "rounds"),
    ("wunder_punkt", {"num_players": 4, "first_dealer": 4}, "first_dealer"),
    ("wunder_punkt", {"sore_suits": 2}, "unknown option.*'sore_suits'"),
    ("wunder_punkt", {"reward": "points"}, "reward"),
    ("wunder_punkt", {"reward_scale": 0}, "reward_scale"),
    ("wunder_punkt", {"render_mode": "rgb_array_list"}, "render_mode"),
    ("silberne_ananas", {"num_players": 4}, "exactly 3 players"),
    ("silberne_ananas", {"target_score": 5000}, "target_score"),
    ("silberne_ananas", {"colour": "red"}, "unknown option"),
    ("silberne_ananas", {"reward": "points"}, "reward"),
    ("silberne_ananas", {"match": False, "alone_variant": True}, "needs match=True"),
    ("hoch_tief", {"num_players": 2}, "num_players"),
    ("hoch_tief", {"num_players": 7}, "num_players"),
    ("hoch_tief", {"players": 4}, "unknown option.*'players'"),
    ("hoch_tief", {"rounds": 0}, "rounds"),
    ("hoch_tief", {"rounds": 51}, "rounds"),
    ("hoch_tief", {"first_dealer": 4}, "first_dealer"),
    ("hoch_tief", {"reward": "points"}, "reward"),
    ("hoch_tief", {"reward_scale": 0}, "reward_scale"),
    ("hoch_tief", {"render_mode": "rgb_array_list"}, "render_mode"),
    ("geheimtrumpf", {"num_players": 2}, "num_players"),
    ("geheimtrumpf", {"num_players": 5}, "num_players"),
    ("geheimtrumpf", {"players": 4}, "unknown option.*'players'"),
    ("geheimtrumpf", {"round_limit": 0}, "round_limit"),
    ("geheimtrumpf", {"round_limit": 2.5}, "round_limit"),
    ("geheimtrumpf", {"first_start": 3, "num_players": 3}, "first_start"),
    ("geheimtrumpf", {"reward": "points"}, "reward"),
    ("geheimtrumpf", {"reward_scale": 0}, "reward_scale"),
    ("geheimtrumpf", {"render_mode": "rgb_array_list"}, "render_mode"),
]


@pytest.mark.parametrize("case", BAD_OPTIONS, ids=case_id)
def test_bad_options_raise_clear_errors(case):
    game, opts, msg = case
    with pytest.raises(ValueError, match=msg):
        envs.env_module(game).env(**opts)


# -- rewards ---------------------------------------------------------------------------------------

#: (game, env options, seed) of the games whose score rewards must add up to the totals
SCORE_CASES = [
    ("wizard", {"num_players": 4}, 7),
    ("wizard", {"num_players": 3, "rounds": [2, 3], "reward_scale": 0.01}, 4),
    *[("wunder_punkt", {**opts, "reward_scale": 0.5}, 7) for opts in (
        {"num_players": 3}, {"num_players": 4}, {"num_players": 5}, {"num_players": 6},
        {"num_players": 3, "larger_hands": True})],
    ("silberne_ananas", {}, 4),
    ("silberne_ananas", {"match": False, "reward_scale": 0.01}, 4),
    ("hoch_tief", {"num_players": 4}, 7),
    ("hoch_tief", {"num_players": 3, "rounds": 2, "reward_scale": 0.01}, 4),
    ("geheimtrumpf", {"num_players": 3}, 7),
    ("geheimtrumpf", {"num_players": 4}, 8),
    ("geheimtrumpf", {"num_players": 3, "reward_scale": 0.25}, 4),
]


@pytest.mark.parametrize("case", SCORE_CASES, ids=case_id)
def test_score_rewards_sum_to_the_totals(case):
    """A whole game's score rewards are its totals (times ``reward_scale``), exactly when 1."""
    game, opts, seed = case
    env = envs.env_module(game).env(**opts)
    total = play_env(env, seed=seed)
    s = env.unwrapped.state_
    assert s.over if game not in CAN_TRUNCATE else s.over or s.truncated
    rewards = [total[f"player_{i}"] for i in range(s.num_players)]
    scale = opts.get("reward_scale", 1)
    if scale == 1:
        assert rewards == s.totals
    else:
        assert rewards == pytest.approx([scale * t for t in s.totals])


@pytest.mark.parametrize("case", SCORE_CASES, ids=case_id)
def test_margin_rewards_are_the_score_less_the_others_mean(case):
    """``reward="margin"`` pays, step for step, each seat's score reward less the mean of
    the others' - the same deals and actions as ``score`` - so every step's margins sum to
    zero and a whole game's are the totals' margins."""
    game, opts, seed = case
    per_step = {}
    for mode in ("score", "margin"):
        env = envs.env_module(game).raw_env(reward=mode, **opts)
        env.reset(seed=seed)
        rng, steps = random.Random(seed), []
        while not (all(env.terminations.values()) or all(env.truncations.values())):
            env.step(rng.choice(env.rules_state.legal_actions()))
            steps.append(dict(env.rewards))
        per_step[mode] = steps
    assert len(per_step["score"]) == len(per_step["margin"])
    paid = 0
    for score, margin in zip(per_step["score"], per_step["margin"], strict=True):
        n, total = len(score), sum(score.values())
        assert margin == pytest.approx({a: r - (total - r) / (n - 1) for a, r in score.items()})
        assert sum(margin.values()) == pytest.approx(0.0, abs=1e-9)
        paid += any(margin.values())
    assert paid


#: (game, env options, seed) of the games whose win reward must go to the winners
WIN_CASES = [
    ("wizard", {"num_players": 3, "rounds": [2, 3]}, 4),
    *[("wunder_punkt", {"num_players": 4}, seed) for seed in range(5)],
    *[("silberne_ananas", opts, seed)
      for opts in ({}, {"match": False}, {"alone_variant": True}) for seed in range(3)],
    ("hoch_tief", {"num_players": 3, "rounds": 2}, 4),
    ("geheimtrumpf", {"num_players": 4}, 4),
]


@pytest.mark.parametrize("case", WIN_CASES, ids=lambda c: f"{case_id(c)}-seed={c[2]}")
def test_win_rewards_go_to_the_winners(case):
    """The +1 of a won game, shared equally by the winners; nothing to anybody else."""
    game, opts, seed = case
    env = envs.env_module(game).env(reward="win", **opts)
    total = play_env(env, seed=seed)
    s = env.unwrapped.state_
    win = s.winners()
    assert s.over and win
    assert total == {f"player_{i}": (1.0 / len(win) if i in win else 0.0)
                     for i in range(s.num_players)}
    assert sum(total.values()) == pytest.approx(1.0)


# -- whole games -----------------------------------------------------------------------------------

#: every player count a game allows
PLAYER_COUNTS = {
    "wizard": (3, 4, 5, 6),
    "wunder_punkt": (3, 4, 5, 6),
    "silberne_ananas": (3,),
    "hoch_tief": (3, 4, 5, 6),
    "geheimtrumpf": (3, 4),
}


@pytest.mark.parametrize("game", GAMES)
def test_random_games_run_through_aec_api(game):
    module = envs.env_module(game)
    for n in PLAYER_COUNTS[game]:
        env = module.env(num_players=n)
        play_env(env, seed=n)
        s = env.unwrapped.state_
        assert s.over if game not in CAN_TRUNCATE else s.over or s.truncated
        assert s.phase_name == "game_over" and s.current_player == -1
        assert env.agents == []
