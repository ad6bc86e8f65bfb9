"""Training: the single-seat view credits the right seat, configs are strict, a smoke run works."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from stichzoo import envs
from stichzoo.policies import Decision
from stichzoo.training import config as config_mod
from stichzoo.training.gym.single_seat import OpponentPool, SingleSeatEnv
from tests.conftest import copy_run, tiny_config, training_configs


def _run_episode(env: SingleSeatEnv, seed: int, rng: np.random.Generator):
    obs, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        mask = env.action_masks()
        assert mask.any() and env.observation_space.contains(obs)
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        steps += 1
        done = term or trunc
    return total, steps, info


@pytest.mark.parametrize("game", list(envs.GAMES))
def test_reward_credited_is_the_learners_own(game):
    """Summed rewards equal the learner's own final total - not any other seat's."""
    n = 3 if game == "silberne_ananas" else 4
    options = {"num_players": n}
    if game == "wizard":
        options["rounds"] = [1, 2, 3]
    env = SingleSeatEnv(game, options=options, opponents=["random"])
    rng = np.random.default_rng(0)
    distinct = 0
    for seed in range(6):
        total, _, info = _run_episode(env, seed, rng)
        totals = info["final_totals"]
        assert total == pytest.approx(totals[env.seat])
        if any(abs(t - totals[env.seat]) > 1e-9 for s, t in enumerate(totals) if s != env.seat):
            distinct += 1
    assert distinct > 0  # the check could tell the seats apart


def test_every_step_is_the_learners_decision():
    env = SingleSeatEnv("wizard", options={"num_players": 4, "rounds": [3]},
                        opponents=["random"], seat=2)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    done = False
    while not done:
        assert env.aec.state_.current_player == 2
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = term or trunc


def test_seat_is_drawn_per_episode_and_win_reward():
    env = SingleSeatEnv("hoch_tief", options={"num_players": 3, "rounds": 1},
                        opponents=["random"], reward="win")
    rng = np.random.default_rng(2)
    seats = set()
    for seed in range(12):
        total, _, info = _run_episode(env, seed, rng)
        seats.add(env.seat)
        assert total == pytest.approx(info["win_share"])
    assert seats == {0, 1, 2}


def test_opponent_pool_errors_and_fallback():
    with pytest.raises(ValueError, match="empty"):
        OpponentPool([])
    with pytest.raises(ValueError, match="unknown key"):
        OpponentPool([{"policy": "random", "colour": 1}])
    pool = OpponentPool([{"policy": "self", "weight": 5}, {"policy": "random", "weight": 1}])
    game = envs.game_class("hoch_tief")(envs.game_class("hoch_tief").Options(num_players=3))
    bot = pool.draw(np.random.default_rng(0), game, 1)  # no snapshot yet: never "self"
    assert bot.name == "random"


def test_config_errors_name_the_key(tmp_path):
    with pytest.raises(ValueError, match=r"unknown key 'train\.lerning_rate'"):
        config_mod.validate({"game": "wizard", "train": {"lerning_rate": 0.1}})
    with pytest.raises(ValueError, match=r"train\.n_steps must be an integer"):
        config_mod.validate({"game": "wizard", "train": {"n_steps": "many"}})
    with pytest.raises(ValueError, match=r"env\.reward"):
        config_mod.validate({"game": "wizard", "env": {"reward": "money"}})
    with pytest.raises(ValueError, match="unknown option"):
        config_mod.validate({"game": "wizard", "options": {"colour": 3}})
    with pytest.raises(ValueError, match="unknown policy"):
        config_mod.validate({"game": "wizard", "opponents": ["alphazero"]})
    with pytest.raises(ValueError, match="'game' is required"):
        config_mod.validate({})
    with pytest.raises(ValueError, match="seed must be an integer"):
        config_mod.validate({"game": "wizard", "seed": True})
    path = tmp_path / "c.yaml"
    path.write_text("game: wizard\ntrain: {n_envs: 1}\n")
    cfg = config_mod.load(str(path), ["train.learning_rate=1e-4"])
    assert cfg["train"]["learning_rate"] == 1e-4 and cfg["train"]["n_envs"] == 1


def test_every_config_is_valid():
    games = {config_mod.load(str(p))["game"] for p in training_configs()}
    assert games == set(envs.GAMES)


@pytest.mark.parametrize("game", list(envs.GAMES))
def test_smoke_training_every_game(game, tiny_run):
    """Every stage of a run - warm start, PPO, snapshots, checkpoints, logs - then a full game."""
    from stichzoo.policies import Decision, make_policy
    from stichzoo.training.runs import RunPaths

    paths = RunPaths(str(tiny_run(game)))
    assert os.path.exists(paths.policy) and paths.latest_checkpoint()
    assert os.listdir(paths.snapshots) and os.listdir(paths.tb)
    g = envs.game_class(game)
    game_obj = g(g.Options(**tiny_config(game)["options"]))
    bot = make_policy("ppo", game_obj, path=paths.policy)
    state = game_obj.new_game(seed=3)
    while not (state.over or state.truncated):
        state.step(bot.act(Decision(game_obj, state)))


def test_warm_start_imitates_the_teacher():
    """A few thousand heuristic decisions, cloned: the policy's choices move to the teacher's."""
    import torch as th
    from sb3_contrib import MaskablePPO

    from stichzoo.policies.base import encoder_for
    from stichzoo.policies.runtimes.networks import policy_setup
    from stichzoo.training.config import game_of
    from stichzoo.training.trainers.pretrain import collect, warm_start
    from stichzoo.training.trainers.sb3 import build_vec_env

    cfg = tiny_config("wizard")
    cfg["pretrain"].update(steps=3000, epochs=10)
    cfg["train"]["net_arch"] = [64]
    t = cfg["train"]
    cls, kwargs = policy_setup(t["heads"], t["net_arch"], encoder_for(game_of(cfg)).layout)
    vec = build_vec_env(cfg)
    model = MaskablePPO(cls, vec, n_steps=t["n_steps"], batch_size=t["batch_size"], seed=0,
                        policy_kwargs=kwargs, device="cpu")
    data = collect(cfg, 600, seed=99)  # held-out teacher decisions

    def agreement() -> float:
        with th.no_grad():
            dist = model.policy.get_distribution(th.as_tensor(data["obs"]),
                                                 action_masks=th.as_tensor(data["mask"]))
            chosen = dist.distribution.probs.argmax(-1).numpy()
        return float((chosen == data["action"]).mean())

    before = agreement()
    stats = warm_start(model, cfg, verbose=False)
    vec.close()
    assert stats["samples"] >= 3000
    assert agreement() > before + 0.1  # measured: 0.40 -> 0.57


def test_phase_heads_and_resume(tiny_run, tmp_path):
    from stichzoo.training.runs import RunPaths
    from stichzoo.training.train import train

    run = str(copy_run(tiny_run("wizard", "phase"), tmp_path / "w"))
    first = RunPaths(run).latest_checkpoint()[1]
    cfg = tiny_config("wizard", heads="phase")
    cfg["train"]["total_timesteps"] = 512
    train(cfg, run_dir=run, resume=True, progress_bar=False, verbose=False)
    assert RunPaths(run).latest_checkpoint()[1] > first


def test_policy_file_refuses_another_table(tiny_run):
    from stichzoo.policies.runtimes.torch_policy import TorchPolicy

    policy = str(tiny_run("hoch_tief") / "policy.pt")
    g = envs.game_class("hoch_tief")
    with pytest.raises(ValueError, match="trained for 4 players, the table has 5"):
        TorchPolicy.load(policy, g(g.Options(num_players=5)))
    w = envs.game_class("wizard")
    with pytest.raises(ValueError, match="plays 'hoch_tief', not 'wizard'"):
        TorchPolicy.load(policy, w(w.Options(num_players=4)))


@pytest.mark.parametrize("heads", ["shared", "phase"])
def test_numpy_inference_matches_torch(heads, tiny_run):
    """Self-play opponents and evaluation run the actor in numpy; it must equal torch."""
    import random

    import torch as th

    from stichzoo.policies import Decision
    from stichzoo.policies.runtimes.torch_policy import TorchPolicy

    run = tiny_run("wizard", heads)
    g = envs.game_class("wizard")
    game = g(g.Options(**tiny_config("wizard")["options"]))
    bot = TorchPolicy.load(str(run / "policy.pt"), game)
    assert bot._numpy is not None
    rng = random.Random(0)
    state = game.new_game(seed=0)
    for i in range(300):
        if state.over:
            state = game.new_game(seed=i)
        d = Decision(game, state)
        mask = d.action_mask.astype(bool)
        with th.no_grad():
            dist = bot.net.get_distribution(th.as_tensor(d.observation)[None],
                                            action_masks=mask[None])
            expected = dist.distribution.probs[0].numpy()
        assert np.abs(bot.probabilities(d.observation, d.action_mask) - expected).max() < 1e-5
        state.step(rng.choice(state.legal_actions()))


def test_policy_file_from_before_the_namespace_loads(tiny_run, tmp_path):
    """Policy files name their network class; ones saved as ``training.networks...`` still load."""
    import torch as th

    from stichzoo.policies.runtimes.torch_policy import TorchPolicy

    saved = th.load(tiny_run("wizard", "phase") / "policy.pt", weights_only=False)
    cls = saved["stichzoo"]["policy_class"]
    assert cls == "stichzoo.policies.runtimes.networks.PhaseTrunkPolicy"
    saved["stichzoo"]["policy_class"] = "training.networks.PhaseTrunkPolicy"
    th.save(saved, tmp_path / "old.pt")
    g = envs.game_class("wizard")
    game = g(g.Options(**tiny_config("wizard")["options"]))
    bot = TorchPolicy.load(str(tmp_path / "old.pt"), game)
    state = game.new_game(seed=1)
    assert bot.act(Decision(game, state)) in state.legal_actions()
