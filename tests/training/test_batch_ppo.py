"""The all-seat self-play trainer: per-seat credit, GAE along seat chains, a run end to end."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th

from stichzoo.envs import BatchEnv
from stichzoo.training import config as config_mod
from stichzoo.training.trainers.ppo import LEARNER, League, Rollout, SelfPlay
from tests.conftest import tiny_config


def test_gae_runs_along_each_seats_chain():
    buf = Rollout.empty(8, 3, 2)
    # seat 0: j0 -> j2 (done); seat 1: j1 -> j3 (pending: its reward is not complete yet)
    buf.add(np.zeros((4, 3)), np.ones((4, 2), bool), np.zeros(4, np.int64), np.zeros(4),
            np.array([0.5, 0.2, 0.1, 0.4]), np.zeros(4, np.int64), np.array([0, 1, 0, 1]))
    buf.reward[:4] = [1.0, 2.0, 3.0, 9.0]
    buf.next[0], buf.next[1] = 2, 3
    buf.done[2] = True
    buf.pending[3] = True
    adv, ret = buf.advantages(gamma=1.0, lam=1.0)
    assert adv[2] == pytest.approx(3.0 - 0.1)
    assert adv[0] == pytest.approx(1.0 + 0.1 - 0.5 + adv[2])  # its own seat's future only
    assert adv[1] == pytest.approx(2.0 + 0.4 - 0.2)  # bootstraps from the pending value
    assert ret[0] == pytest.approx(4.0)  # 1 + 3: seat 0's rewards, never seat 1's
    half = buf.advantages(gamma=0.5, lam=0.5)[0]
    assert half[0] == pytest.approx(1.0 + 0.5 * 0.1 - 0.5 + 0.25 * half[2])


class RandomLearner:
    """Stands in for the network: all logits equal (uniform legal actions), value 0."""

    def __init__(self, num_actions: int):
        self.num_actions = num_actions

    def set_training_mode(self, mode: bool) -> None:
        pass

    def extract_features(self, obs):
        return obs

    def mlp_extractor(self, features):
        return features, features

    def action_net(self, latent):
        return th.zeros(len(latent), self.num_actions)

    def value_net(self, latent):
        return th.zeros(len(latent), 1)


def _selfplay(opponents, games=6, **options):
    cfg = config_mod.validate({"game": "wizard", "algo": "batch_ppo", "opponents": opponents,
                               "options": {"num_players": 4, **options}})
    from stichzoo.training.config import game_of

    game = game_of(cfg)
    engine = BatchEnv("wizard", games, reward_scale=0.5, **cfg["options"])
    return SelfPlay(engine, League(cfg, game, np.random.default_rng(1)), seed=3)


@pytest.mark.parametrize("opponents", [["learner"], ["heuristic", "random"],
                                       [{"policy": "learner", "weight": 1}, "heuristic"]])
def test_each_learner_seat_gets_exactly_what_it_earned(opponents):
    play = _selfplay(opponents, rounds=[1, 2])
    engine = play.engine
    earned = np.zeros((engine.num_envs, engine.num_players))
    episodes = np.zeros(engine.num_envs, np.int64)
    tables = []
    step = engine.step

    def spy(actions):
        tables.append(play.tables.copy())
        out = step(actions)
        earned[:] += np.where(tables[-1] == LEARNER, out[3], 0.0)
        episodes[:] += out[4]
        return out

    engine.step = spy
    policy = RandomLearner(engine.num_actions)
    credited = np.zeros_like(earned)
    dones = np.zeros_like(earned)
    for _ in range(3):
        buf, finished = play.rollout(policy, 40)
        ready = ~buf.pending[:buf.size]
        np.add.at(credited, (buf.game[:buf.size][ready], buf.seat[:buf.size][ready]),
                  buf.reward[:buf.size][ready])
        np.add.at(dones, (buf.game[:buf.size], buf.seat[:buf.size]), buf.done[:buf.size])
    _, pending = play.carried
    old = play.carried[0]
    np.add.at(credited, (old.game[pending], old.seat[pending]), old.reward[pending])
    assert np.allclose(credited, earned)  # every reward to a learner seat, nothing else
    assert episodes.sum() > 0 and len(finished["returns"]) > 0
    for r in range(engine.num_envs):
        assert all(dones[r, s] <= episodes[r] for s in range(engine.num_players))
    # opponents' seats never produce samples
    if "learner" not in str(opponents):
        assert all((t == LEARNER).sum(axis=1).max() == 1 for t in tables)


def test_league_always_seats_the_learner():
    play = _selfplay(["heuristic"])
    for _ in range(20):
        table = play.league.draw_table()
        assert table.count(LEARNER) == 1
    play = _selfplay([{"policy": "learner", "weight": 1}])
    assert play.league.draw_table() == [LEARNER] * 4


def test_learner_entry_needs_the_batch_trainer():
    with pytest.raises(ValueError, match=r"'learner'.*algo: batch_ppo"):
        config_mod.validate({"game": "wizard", "opponents": ["learner"]})


def _tiny_batch_config() -> dict:
    cfg = tiny_config("wizard")
    cfg["algo"] = "batch_ppo"
    cfg["options"]["rounds"] = [1, 2, 3]
    cfg["opponents"] = [{"policy": "learner", "weight": 2}, {"policy": "self", "weight": 1},
                        {"policy": "heuristic", "weight": 1}]
    cfg["batch"].update(games=12, rollout_steps=10)
    cfg["train"].update(total_timesteps=300, checkpoint_every=100, batch_size=64)
    cfg["selfplay"]["snapshot_every"] = 100
    cfg["eval"].update(every=150, games=8, workers=1)
    return config_mod.validate(cfg)


def test_a_short_run_trains_exports_and_resumes(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from stichzoo.policies import Decision
    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy
    from stichzoo.training.config import game_of
    from stichzoo.training.export import export_run
    from stichzoo.training.runs import RunPaths
    from stichzoo.training.train import train

    cfg = _tiny_batch_config()
    run = train(cfg, run_dir=str(tmp_path / "run"), progress_bar=False, verbose=False)
    paths = RunPaths(run)
    assert os.path.exists(paths.policy) and os.listdir(paths.snapshots)
    acc = EventAccumulator(os.path.join(paths.tb, "batch_ppo"), size_guidance={"scalars": 0})
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in ("losses/policy_loss", "losses/value_loss", "losses/entropy", "losses/approx_kl",
                "time/fps", "time/simulate_share", "time/infer_share", "time/update_share",
                "charts/episode_return", "charts/win_share", "pretrain/accuracy",
                "eval/vs_random/mean_score", "eval/vs_heuristic/score_diff",
                "wizard/train_bid_hit_rate"):
        assert tag in tags, tag
    bot = OnnxPolicy.load(export_run(run, str(tmp_path / "bot")))
    state = bot.game.new_game(seed=1)
    while not state.over:
        state.step(bot.act(Decision(bot.game, state)))
    assert bot.game.options == game_of(cfg).options

    # a checkpoint exports as the bot of the run at that point: the last one is policy.pt's
    import onnxruntime as ort

    from stichzoo.training.checkpoints import export_checkpoint, is_checkpoint

    last, _ = paths.latest_checkpoint(".pt")
    assert is_checkpoint(last) and not is_checkpoint(paths.policy)
    ckpt_bot = export_checkpoint(last, str(tmp_path / "ckpt_bot"))
    size = bot.manifest["observation"]["size"]
    feed = {"observation": np.random.default_rng(0).random((16, size), dtype=np.float32),
            "action_mask": np.ones((16, bot.game.num_actions), dtype=np.float32)}
    outs = [ort.InferenceSession(os.path.join(d, "model.onnx")).run(["logits"], feed)[0]
            for d in (str(tmp_path / "bot"), ckpt_bot)]
    np.testing.assert_allclose(outs[0], outs[1], rtol=0, atol=1e-6)
    lone = tmp_path / "lone" / "checkpoints"  # a checkpoint away from its run's config
    lone.mkdir(parents=True)
    name = os.path.basename(last)
    th.save(th.load(last, weights_only=False), lone / name)
    with pytest.raises(ValueError, match=r"config\.yaml is missing"):
        export_checkpoint(str(lone / name), str(tmp_path / "lone_bot"))

    cfg["train"]["total_timesteps"] = 600
    first = max(int(f[6:-3]) for f in os.listdir(paths.checkpoints))
    train(cfg, run_dir=run, resume=True, progress_bar=False, verbose=False)
    assert max(int(f[6:-3]) for f in os.listdir(paths.checkpoints)) >= 600 > first
    with pytest.raises(ValueError, match="already trained"):
        train(cfg, run_dir=run, resume=True, progress_bar=False, verbose=False)


def test_ppo_learning_rate_decays_over_whichever_budget_is_further_along():
    from stichzoo.training.trainers.ppo import ppo_learning_rate

    t = {"learning_rate": 1e-3, "max_minutes": 10, "lr_schedule": "constant",
         "lr_clock": "budget"}
    assert ppo_learning_rate(t, 9.0, 90, 100) == 1e-3
    t["lr_schedule"] = "linear"
    assert ppo_learning_rate(t, 0.0, 0, 100) == pytest.approx(1e-3)
    assert ppo_learning_rate(t, 5.0, 10, 100) == pytest.approx(5e-4)  # time leads
    assert ppo_learning_rate(t, 2.5, 75, 100) == pytest.approx(2.5e-4)  # samples lead
    assert ppo_learning_rate(t, 12.0, 0, 100) == 0.0  # past the budget: never negative
    t["lr_schedule"] = "cosine"
    assert ppo_learning_rate(t, 5.0, 0, 100) == pytest.approx(5e-4)
    assert ppo_learning_rate(t, 0.0, 25, 100) == pytest.approx(1e-3 * (2 + 2 ** 0.5) / 4)
    t["lr_clock"] = "samples"  # the wall clock no longer moves the step
    assert ppo_learning_rate(t, 5.0, 0, 100) == pytest.approx(1e-3)
    assert ppo_learning_rate(t, 12.0, 25, 100) == pytest.approx(1e-3 * (2 + 2 ** 0.5) / 4)
    assert ppo_learning_rate(t, 0.0, 130, 100) == 0.0


def test_the_logged_rate_decays_and_a_resume_takes_the_configs_rate(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from stichzoo.training.runs import RunPaths
    from stichzoo.training.train import train

    def rates(run):
        # Two legs in one second write files whose names sort as text (".10" before ".9"),
        # so read every file whole and order the points by step, not by file name.
        acc = EventAccumulator(os.path.join(RunPaths(run).tb, "batch_ppo"),
                               size_guidance={"scalars": 0}, purge_orphaned_data=False)
        acc.Reload()
        return [e.value for e in sorted(acc.Scalars("charts/learning_rate"),
                                        key=lambda e: e.step)]

    cfg = _tiny_batch_config()
    cfg["train"]["lr_schedule"] = "linear"
    cfg["eval"]["every"] = 0
    cfg = config_mod.validate(cfg)
    run = train(cfg, run_dir=str(tmp_path / "run"), progress_bar=False, verbose=False)
    first = rates(run)
    assert len(first) >= 2 and first[0] <= cfg["train"]["learning_rate"]
    assert all(b < a for a, b in itertools.pairwise(first))
    # the checkpoint's optimizer holds the decayed rate; the resumed run uses the config's
    cfg["train"].update(total_timesteps=600, learning_rate=2e-5, lr_schedule="constant")
    train(cfg, run_dir=run, resume=True, progress_bar=False, verbose=False)
    assert rates(run)[len(first):] == pytest.approx([2e-5] * (len(rates(run)) - len(first)))


def test_a_decaying_rate_needs_the_batch_trainer():
    cfg = tiny_config("wizard")
    cfg["train"]["lr_schedule"] = "linear"
    with pytest.raises(ValueError, match=r"train.lr_schedule='linear' .* needs algo: batch_ppo"):
        config_mod.validate(cfg)
    cfg["train"]["lr_schedule"] = "step"
    with pytest.raises(ValueError, match=r"train\.lr_schedule"):
        config_mod.validate(cfg)
    cfg["train"]["lr_schedule"] = "constant"
    cfg["train"]["lr_clock"] = "samples"  # a clock for a decay SB3 does not run
    with pytest.raises(ValueError, match=r"train.lr_clock='samples' .* needs algo: batch_ppo"):
        config_mod.validate(cfg)


def test_teacher_data_is_every_seat_of_finished_games_with_their_own_returns():
    """A one-round, one-card Wizard game pays each seat only at its end, so every decision's
    return-to-go is its seat's round score, scaled: 20 or 30 for a hit, -10 for a miss."""
    from stichzoo.training.trainers.labels import teacher_data

    cfg = tiny_config("wizard")
    cfg["options"]["rounds"] = [1]
    cfg = config_mod.validate({**cfg, "env": {"reward": "score", "reward_scale": 0.1}})
    data = teacher_data(cfg, 8 * 6, seed=3, games=6)
    assert data["obs"].shape == (48, data["obs"].shape[1]) and len(data["action"]) == 48
    assert data["mask"][np.arange(48), data["action"]].all()  # every action was legal
    scores = [round(float(r) * 10, 3) for r in data["return"]]
    assert set(scores) <= {-10, 20, 30} and len(set(scores)) > 1


def test_an_exported_bot_names_the_commands_that_reproduce_it(tmp_path, capsys):
    """The manifest's evaluation gives its seed and an eval command; run, it gives the same
    result with the exported bot (the ONNX network plays as the torch policy did)."""
    import json
    import shlex

    from stichzoo.training import cli
    from stichzoo.training.evaluation.run_eval import final_evaluation
    from stichzoo.training.export import export_run
    from stichzoo.training.train import train

    cfg = _tiny_batch_config()
    cfg["eval"].update(every=0, opponents=["heuristic"])
    run = train(cfg, run_dir=str(tmp_path / "run"), progress_bar=False, verbose=False)
    final_evaluation(run, games=8, workers=1, progress=False)
    out = str(tmp_path / "bot")
    export_run(run, out)
    with open(os.path.join(out, "manifest.json")) as f:
        provenance = json.load(f)["provenance"]
    assert provenance["train_command"] == f"stichzoo train {out}/config.yaml --final-eval"
    ev = provenance["evaluation"]["vs_heuristic"]
    assert ev["seed"] == cfg["seed"] + 104729 and ev["games"] == 8
    argv = shlex.split(ev["command"])
    assert argv[:2] == ["stichzoo", "eval"]
    capsys.readouterr()
    assert cli.main([*argv[1:], "--workers", "1", "--quiet"]) == 0
    printed = capsys.readouterr().out
    diff = ev["score_difference"]
    assert f"- heuristic: score {diff['mean']:+.2f}" in printed, printed  # 2 deals: no interval


def test_search_labels_split_over_workers_are_the_seeded_teachers_own_games():
    """Expert iteration's labels: two processes, each its own seed; the same labels again."""
    from stichzoo.training.trainers.labels import search_labels, teacher_data

    cfg = tiny_config("wizard")
    cfg["options"]["rounds"] = [1]
    cfg = config_mod.validate({**cfg, "algo": "batch_ppo",
                               "expert": {"teacher": "pimc:worlds=2", "steps": 40,
                                          "workers": 2, "games": 4}})
    data = search_labels(cfg, seed=11)
    assert len(data["action"]) == 40
    assert data["mask"][np.arange(40), data["action"]].all()
    again = search_labels(cfg, seed=11)
    for key in data:
        assert np.array_equal(data[key], again[key]), key
    first = teacher_data(cfg, 20, seed=11, games=4, teacher="pimc:worlds=2")
    assert np.array_equal(first["action"], data["action"][:20])  # worker 0's share first


def test_expert_iteration_runs_after_the_warm_start_and_is_logged(tmp_path):
    import yaml
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from stichzoo.training.runs import RunPaths
    from stichzoo.training.train import train

    cfg = _tiny_batch_config()
    cfg["expert"].update(teacher="pimc:worlds=2", steps=60, workers=1, games=4, epochs=1)
    cfg = config_mod.validate(cfg)
    run = train(cfg, run_dir=str(tmp_path / "run"), progress_bar=False, verbose=False)
    with open(os.path.join(run, "train_summary.yaml")) as f:
        summary = yaml.safe_load(f)
    assert summary["expert"]["samples"] == 60 and 0 <= summary["expert"]["accuracy"] <= 1
    acc = EventAccumulator(os.path.join(RunPaths(run).tb, "batch_ppo"),
                           size_guidance={"scalars": 0})
    acc.Reload()
    assert "expert/accuracy" in acc.Tags()["scalars"]


@pytest.mark.parametrize(("key", "value", "needle"), [
    ("steps", -1, "expert.steps=-1 is out of range"),
    ("workers", 0, "expert.workers=0 is out of range"),
    ("teacher", "pimcc", "unknown policy 'pimcc'"),
])
def test_bad_expert_keys_are_refused_by_name(key, value, needle):
    cfg = _tiny_batch_config()
    cfg["expert"].update(steps=10)
    cfg["expert"][key] = value
    with pytest.raises(ValueError, match=needle):
        config_mod.validate(cfg)


def test_expert_iteration_needs_the_batch_trainer():
    cfg = tiny_config("wizard")
    cfg["expert"] = {"steps": 10}
    with pytest.raises(ValueError, match=r"expert.steps=10 .* needs algo: batch_ppo"):
        config_mod.validate(cfg)


def _weights(run: str, name: str = "policy.pt") -> dict:
    """The network weights a run folder saved (``name``: policy.pt, or an expert iteration's)."""
    return th.load(os.path.join(run, name), weights_only=False)["state_dict"]


@pytest.mark.parametrize("schedule", ["constant", "linear"])
def test_the_same_config_trains_the_same_network(tmp_path, schedule):
    """The run's seed fixes the network's first weights too: two runs of one config end with
    the same weights, byte for byte (the games, the league and the minibatches are seeded) -
    also with a decaying step when its clock is the samples (the wall clock's minutes made
    two 5M-sample Wizard runs differ: docs/batch.md)."""
    from stichzoo.training.train import train

    cfg = _tiny_batch_config()
    cfg["eval"].update(every=0)
    cfg["selfplay"]["snapshot_every"] = 0
    cfg["train"].update(lr_schedule=schedule, lr_clock="samples")
    cfg = config_mod.validate(cfg)
    runs = [train(cfg, run_dir=str(tmp_path / f"run{k}"), progress_bar=False, verbose=False)
            for k in range(2)]
    first, second = (_weights(r) for r in runs)
    assert first.keys() == second.keys()
    assert all(th.equal(first[k], second[k]) for k in first)


def _scalar_tags(run: str) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from stichzoo.training.runs import RunPaths

    acc = EventAccumulator(os.path.join(RunPaths(run).tb, "batch_ppo"),
                           size_guidance={"scalars": 0})
    acc.Reload()
    return set(acc.Tags()["scalars"])


def test_the_evaluations_do_not_change_the_network(tmp_path):
    """A run without its periodic evaluations (``eval.every: 0``, no ``eval.opponents``)
    trains the same weights, byte for byte: the evaluations draw no random number the
    training draws, so a timed pipeline may leave them out (``NO_EVAL=1`` in
    scripts/repro) and still make the bot it makes with its curves."""
    from stichzoo.training.train import train

    cfg = _tiny_batch_config()
    cfg["train"].update(lr_schedule="linear", lr_clock="samples")
    measured = config_mod.validate({**cfg, "eval": {**cfg["eval"], "every": 100}})
    quiet = config_mod.validate({**cfg, "eval": {**cfg["eval"], "every": 0, "opponents": []}})
    runs = [train(c, run_dir=str(tmp_path / name), progress_bar=False, verbose=False)
            for name, c in (("measured", measured), ("quiet", quiet))]
    assert "eval/vs_heuristic/score_diff" in _scalar_tags(runs[0])  # it did evaluate
    assert not any(tag.startswith("eval/") for tag in _scalar_tags(runs[1]))
    first, second = (_weights(run) for run in runs)
    assert first.keys() == second.keys()
    assert all(th.equal(first[k], second[k]) for k in first)


def test_the_expert_iterations_evaluations_do_not_change_the_network(tmp_path):
    """Expert iteration evaluates every iteration's network against ``eval.opponents``;
    without them the iterations fit the same networks, byte for byte."""
    from stichzoo.training.train import train

    cfg = _tiny_batch_config()
    cfg["expert"].update(teacher="pimc:worlds=2", steps=40, workers=1, games=4, epochs=1,
                         iterations=2, positions="learner")
    runs = {}
    for name, opponents in (("measured", ["heuristic", "random"]), ("quiet", [])):
        c = config_mod.validate({**cfg, "eval": {**cfg["eval"], "every": 0,
                                                 "opponents": opponents}})
        runs[name] = train(c, run_dir=str(tmp_path / name), progress_bar=False, verbose=False)
    assert "expert_eval/vs_heuristic/score_diff" in _scalar_tags(runs["measured"])
    assert not any(tag.startswith("expert_eval/") for tag in _scalar_tags(runs["quiet"]))
    for k in (1, 2):
        first, second = (_weights(r, os.path.join("expert", f"iteration_{k}.pt"))
                         for r in runs.values())
        assert all(th.equal(first[key], second[key]) for key in first), k
    assert all(th.equal(a, b) for a, b in zip(_weights(runs["measured"]).values(),
                                              _weights(runs["quiet"]).values()))


def test_ppo_is_one_algorithm_and_the_pipeline_runs_the_stages_before_it():
    """training/trainers/ppo.py imports no other algorithm (warm start, expert iteration, a
    start bot, a fitted model) and nothing of the lab, not even inside a function: the
    pipeline (trainers/pipeline.py) chains them, and a critic of its own comes through the
    table of critics (trainers/critics.py)."""
    from pathlib import Path

    from tests.test_imports import imports_of, package_modules

    modules = package_modules()
    ppo = "stichzoo.training.trainers.ppo"
    targets = {e.target for e in imports_of(ppo, Path(modules[ppo]).read_text(), modules)}
    training = {t for t in targets if t.startswith("stichzoo.training.")}
    assert not {t for t in training if t.startswith(("stichzoo.training.lab",
                                                     "stichzoo.training.fit"))}
    assert {t for t in training if t.startswith("stichzoo.training.trainers.")} == {
        "stichzoo.training.trainers.critics"}
    pipeline = "stichzoo.training.trainers.pipeline"
    assert {"stichzoo.training.trainers.ppo", "stichzoo.training.trainers.expert",
            "stichzoo.training.trainers.pretrain", "stichzoo.training.trainers.labels",
            "stichzoo.training.trainers.from_bot"} <= {
        e.target for e in imports_of(pipeline, Path(modules[pipeline]).read_text(), modules)}


def test_a_run_without_stages_is_ppo_alone(tmp_path):
    """pretrain.steps: 0 and no expert: the pipeline goes straight to PPO; the summary still
    names both stages (None: not run)."""
    import yaml

    from stichzoo.training.trainers.pipeline import train_batch

    cfg = _tiny_batch_config()
    cfg["pretrain"]["steps"] = 0
    cfg["eval"].update(every=0, opponents=[])
    run = train_batch(config_mod.validate(cfg), run_dir=str(tmp_path / "run"),
                      progress_bar=False, verbose=False)
    with open(os.path.join(run, "train_summary.yaml")) as f:
        summary = yaml.safe_load(f)
    assert summary["pretrain"] is None and summary["expert"] is None
    assert summary["steps"] >= 300
    assert not any(tag.startswith(("pretrain/", "expert")) for tag in _scalar_tags(run))


def test_a_forward_does_not_depend_on_where_numpy_put_the_rows():
    """MKL's kernels for a few rows round differently with the input's address (a 2-row
    forward at 4-60 bytes past a 64-byte boundary); the trainer copies every batch into
    torch's own memory first (``_aligned``), so what the process allocated before - a
    periodic evaluation, say - cannot change the rollouts or the network."""
    from stichzoo.training.trainers.ppo import _aligned

    rng = np.random.default_rng(5)
    net = th.nn.Sequential(th.nn.Linear(700, 256), th.nn.Tanh(), th.nn.Linear(256, 256))
    for rows in (2, 3, 17):
        src = rng.standard_normal((rows, 700)).astype(np.float32)
        outs = []
        for offset in range(0, 64, 4):
            raw = np.empty(src.nbytes + 128, np.uint8)
            start = (-raw.ctypes.data) % 64 + offset
            x = raw[start:start + src.nbytes].view(np.float32).reshape(src.shape)
            x[:] = src
            with th.no_grad():
                outs.append(net(_aligned(x)))
        assert all(th.equal(outs[0], o) for o in outs[1:]), rows


@pytest.mark.parametrize("workers", [1, 2])
def test_an_evaluation_leaves_the_training_random_numbers_alone(tiny_run, workers):
    """The trainer's snapshot seats sample from torch's global generator; checking an
    evaluation's lineup loads the policy, whose construction draws from it. The periodic
    evaluation of the 5M-sample Wizard start moved it, and the run's network parted from
    the run without evaluations right after the first one (docs/lab/pipelines.md).
    ``evaluate_policy_file`` keeps its own copy of the state."""
    from stichzoo.training.evaluation.run_eval import evaluate_policy_file

    run = tiny_run("wizard")
    cfg = config_mod.load(str(run / "config.yaml"))
    th.manual_seed(3)
    before = th.random.get_rng_state()
    evaluate_policy_file(cfg, str(run / "policy.pt"), "heuristic", 4, seed=1, workers=workers)
    assert th.equal(before, th.random.get_rng_state())
