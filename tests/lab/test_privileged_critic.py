"""train.critic: privileged - the value network sees the whole deal, the actor never does.

A lab option (training/lab/privileged.py), plugged into the batch trainer through the
table of critics (training/trainers/critics.py); importing it here registers it.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th

from stichzoo.envs import BatchEnv
from stichzoo.training import config as config_mod
from stichzoo.training.lab.privileged import (
    PrivilegedCritic,
    build,
    privileged_features,
    privileged_size,
)
from tests.conftest import tiny_config
from tests.helpers import load_script
from tests.training.test_batch_ppo import _tiny_batch_config


def test_the_key_is_checked_and_refused_where_unsupported():
    cfg = _tiny_batch_config()
    assert cfg["train"]["critic"] == "observation"  # the default
    cfg["train"]["critic"] = "privileged"
    assert config_mod.validate(cfg)["train"]["critic"] == "privileged"
    cfg["train"]["critic"] = "oracle"
    with pytest.raises(ValueError, match=r"train\.critic='oracle'; choose one of"):
        config_mod.validate(cfg)
    sb3 = tiny_config("wizard")
    sb3["train"]["critic"] = "privileged"
    with pytest.raises(ValueError, match=r"train\.critic='privileged' .* needs algo: batch_ppo, "
                                         r"not maskable_ppo"):
        config_mod.validate(sb3)
    with pytest.raises(ValueError, match=r"train\.critic='privileged' has no meaning for "
                                         r"algo: rllib_ppo"):
        config_mod.validate({"game": "hoch_tief", "algo": "rllib_ppo",
                             "train": {"critic": "privileged"}})


def test_the_product_refuses_the_lab_critic_with_the_lab_command():
    """Without the lab imported no module registered ``privileged``: the config check names
    the command that has it (a fresh interpreter: this one imported the lab above)."""
    code = ("from stichzoo.training import config\n"
            "try:\n"
            "    config.validate({'game': 'hoch_tief', 'algo': 'batch_ppo',\n"
            "                     'train': {'critic': 'privileged'}})\n"
            "except ValueError as e:\n"
            "    print(e)\n"
            "import sys\n"
            "print(sorted(m for m in sys.modules if m.startswith('stichzoo.training.lab')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert ("train.critic='privileged' is a lab option (training/lab/privileged.py): run it "
            "as python -m stichzoo.training.lab train") in out
    assert out.splitlines()[-1] == "[]"  # the check imported no lab module


@pytest.mark.parametrize(("game", "options"), [("hoch_tief", {"num_players": 4}),
                                               ("wizard", {"num_players": 3}),
                                               ("silberne_ananas", {})])
def test_the_privileged_input_is_the_other_hands_in_relative_seat_order(game, options):
    engine = BatchEnv(game, 5, **options)
    engine.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(7):
        engine.step(engine.sample_legal(rng))
    g, n, size = engine.game, engine.num_players, engine.game.deck.size
    assert privileged_size(g) == (n - 1) * size
    feats = privileged_features(g, engine.states, engine.to_act)
    assert feats.shape == (5, (n - 1) * size) and feats.dtype == np.float32
    for row, (state, seat) in enumerate(zip(engine.states, engine.to_act)):
        for k in range(1, n):
            bits = feats[row, (k - 1) * size:k * size]
            hand = state.hands[(seat + k) % n]
            assert [c for c in range(size) if bits[c]] == [c for c in range(size) if hand >> c & 1]


def test_the_actor_reads_no_hidden_card_the_critic_does():
    """Re-deal what the seat cannot see: its observation, and so the actor's logits, stay
    identical; the privileged input changes, and with it the critic's value."""
    from stichzoo.training.trainers.ppo import build_network, logits_values

    cfg = config_mod.validate({"game": "hoch_tief", "algo": "batch_ppo",
                               "options": {"num_players": 4},
                               "train": {"critic": "privileged", "net_arch": [32]}})
    engine = BatchEnv("hoch_tief", 4, num_players=4)
    engine.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(9):
        engine.step(engine.sample_legal(rng))
    game = engine.game
    th.manual_seed(0)
    policy = build_network(cfg, game, "cpu")
    critic = PrivilegedCritic(engine.obs_size, privileged_size(game), [32])
    seats = engine.to_act.copy()
    worlds = [engine.states, [game.determinize(s, int(seat), random.Random(7))
                              for s, seat in zip(engine.states, seats)]]
    obs, hidden, logits, values = [], [], [], []
    for states in worlds:
        o = np.zeros((len(states), engine.obs_size), np.float32)
        for i, (s, seat) in enumerate(zip(states, seats)):
            engine.encoder.encode(s, int(seat), o[i])
        h = privileged_features(game, states, seats)
        with th.no_grad():
            lg, v = logits_values(policy, th.as_tensor(o), critic, th.as_tensor(h))
        obs.append(o), hidden.append(h), logits.append(lg), values.append(v)
    assert np.array_equal(obs[0], obs[1])  # the seat sees the same table
    assert (hidden[0] != hidden[1]).any(axis=1).all()  # every game's other hands re-dealt
    assert th.equal(logits[0], logits[1])  # the actor: bit for bit the same
    assert not th.equal(values[0], values[1])  # the critic: it reads the deal
    with th.no_grad():  # and the actor's logits are the observation critic's run's logits
        assert th.equal(logits[0], logits_values(policy, th.as_tensor(obs[0]))[0])


def test_the_warm_start_data_is_the_same_with_the_hidden_deal_beside_it():
    from stichzoo.training.trainers.labels import teacher_data

    cfg = config_mod.validate({**_tiny_batch_config(), "game": "hoch_tief",
                               "options": {"num_players": 4}})
    game = config_mod.game_of(cfg)
    critic = build(cfg, game, 10)
    plain = teacher_data(cfg, 120, seed=3, games=4)
    priv = teacher_data(cfg, 120, seed=3, games=4, critic=critic)
    assert set(priv) == {*plain, "critic_input"}
    for key in plain:
        assert np.array_equal(plain[key], priv[key]), key
    assert priv["critic_input"].shape == (120, privileged_size(game)) == (120, critic.width)
    # 15 cards a hand in a 4-player round: 45 hidden before the seat's first card
    assert priv["critic_input"].sum(axis=1).max() == 45


def _onnx_interface(path: str) -> dict:
    import json

    import onnxruntime as ort

    sess = ort.InferenceSession(os.path.join(path, "model.onnx"))
    with open(os.path.join(path, "manifest.json")) as f:
        manifest = json.load(f)
    return {"inputs": [(i.name, i.shape, i.type) for i in sess.get_inputs()],
            "outputs": [(o.name, o.shape, o.type) for o in sess.get_outputs()],
            "model": {k: manifest["model"][k] for k in ("inputs", "outputs")},
            "observation": manifest["observation"], "actions": manifest["actions"]}


def test_a_privileged_run_trains_resumes_and_exports_the_same_actor_interface(tmp_path):
    from stichzoo.policies import Decision
    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy
    from stichzoo.training.export import export_run
    from stichzoo.training.runs import RunPaths
    from stichzoo.training.train import train

    cfg = _tiny_batch_config()
    cfg["eval"]["every"] = 0
    runs = {}
    for critic in ("observation", "privileged"):
        cfg["train"]["critic"] = critic
        cfg["train"]["total_timesteps"] = 300
        cfg = config_mod.validate(cfg)
        runs[critic] = train(cfg, run_dir=str(tmp_path / critic), progress_bar=False,
                             verbose=False)
    run = runs["privileged"]
    paths = RunPaths(run)
    ckpts = sorted(os.listdir(paths.checkpoints))
    ckpt = th.load(os.path.join(paths.checkpoints, ckpts[-1]), weights_only=False)
    assert "critic" in ckpt and "critic" not in th.load(
        os.path.join(RunPaths(runs["observation"]).checkpoints,
                     sorted(os.listdir(RunPaths(runs["observation"]).checkpoints))[-1]),
        weights_only=False)
    # policy.pt is the actor's file as ever: the same keys as the observation run's
    saved = {k: th.load(os.path.join(r, "policy.pt"), weights_only=False)["state_dict"]
             for k, r in runs.items()}
    assert saved["privileged"].keys() == saved["observation"].keys()
    # the export: the same ONNX interface, and a bot that plays
    bots = {k: export_run(r, str(tmp_path / f"bot_{k}")) for k, r in runs.items()}
    assert _onnx_interface(bots["privileged"]) == _onnx_interface(bots["observation"])
    bot = OnnxPolicy.load(bots["privileged"])
    state = bot.game.new_game(seed=1)
    while not state.over:
        state.step(bot.act(Decision(bot.game, state)))
    # resume: the critic comes back from the checkpoint and trains on
    first = max(int(f[6:-3]) for f in ckpts)
    cfg["train"]["total_timesteps"] = 600
    train(cfg, run_dir=run, resume=True, progress_bar=False, verbose=False)
    last = max(int(f[6:-3]) for f in os.listdir(paths.checkpoints))
    assert last >= 600 > first
    resumed = th.load(os.path.join(paths.checkpoints, f"model_{last}.pt"), weights_only=False)
    assert any(not th.equal(ckpt["critic"][k], resumed["critic"][k]) for k in ckpt["critic"])
    # a resume under the other critic is refused by name
    cfg["train"].update(critic="observation", total_timesteps=900)
    with pytest.raises(ValueError, match=r"trained with train\.critic=privileged"):
        train(cfg, run_dir=run, resume=True, progress_bar=False, verbose=False)
    assert config_mod.load(os.path.join(run, "config.yaml"))["train"]["critic"] == "privileged"
    # scripts/probes/value_fit.py reads both runs: the TensorBoard means, the held-out fit
    import contextlib
    import io
    import sys

    module = load_script("scripts/probes/value_fit.py")
    out = io.StringIO()
    argv = sys.argv
    try:
        sys.argv = ["value_fit.py", runs["observation"], run, "--decisions", "40", "--seed", "3"]
        with contextlib.redirect_stdout(out):
            module.main()
    finally:
        sys.argv = argv
    text = out.getvalue()
    assert "| observation | losses/explained_variance |" in text
    assert "| privileged | privileged | 40 |" in text and "re-dealt" in text
