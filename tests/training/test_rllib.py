"""RLlib backend with a real Ray: env, module, a short run, export, eval, serve, a 2-node cluster.

Needs Ray's RLlib, which pins gymnasium 1.2.2 and so lives in its own venv:

    bash scripts/setup_rllib.sh
    .venv-rllib/bin/python -m pytest tests/training/test_rllib.py -p no:xdist

In the main venv (no Ray) the whole module is skipped; scripts/test.sh runs it
in .venv-rllib beside the main suite.  Every Ray this module starts has no
dashboard, token authentication with a token of this test session (nothing
is written to ``~/.ray``) and is stopped by its process ids at the end.  A
single-node Ray advertises 127.0.0.1 (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``,
Ray's own loopback mode); the two-node cluster cannot - Ray refuses a second
node in that mode and replaces a loopback ``--node-ip-address`` with the
machine's address - and Ray 2.60's GCS and raylet listen on every interface
whatever the node address, so there the token is what keeps others out.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray's RLlib is not installed in this venv (it pins "
                                        "gymnasium 1.2.2): bash scripts/setup_rllib.sh, then "
                                        ".venv-rllib/bin/python -m pytest "
                                        "tests/training/test_rllib.py")

import yaml

from stichzoo.training import config as config_mod

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
OPTIONS = {"num_players": 4, "rounds": [1, 2, 3]}  # Wizard, three short rounds: seconds a game
TINY = {
    "game": "wizard", "seed": 3, "options": OPTIONS,
    "env": {"reward": "score", "reward_scale": 0.01},
    "opponents": [{"policy": "learner", "weight": 1}, {"policy": "heuristic", "weight": 1},
                  {"policy": "self", "weight": 1}],
    "selfplay": {"snapshot_every": 400, "keep": 2},
    "train": {"total_timesteps": 1500, "n_steps": 200, "n_envs": 2, "batch_size": 100,
              "n_epochs": 2, "net_arch": [32, 32], "checkpoint_every": 800},
    "pretrain": {"steps": 1000, "epochs": 1, "batch_size": 100},
    "rllib": {"num_env_runners": 1},
    "eval": {"every": 0, "opponents": ["random"], "final_games": 24, "workers": 1},
}


def _cfg(**changes) -> dict:
    data = json.loads(json.dumps(TINY))
    data.update(changes)
    return config_mod.validate({**data, "algo": "rllib_ppo"})


#: token authentication for every Ray of this session, without touching ~/.ray/auth_token
RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
           "RAY_AUTH_TOKEN": secrets.token_hex(32)}
#: a single-node Ray in Ray's loopback mode: its node address is 127.0.0.1
LOCAL_RAY_ENV = {**RAY_ENV, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def _stichzoo(*args: str, timeout: int = 400, env: dict | None = None
              ) -> subprocess.CompletedProcess:
    out = subprocess.run([str(BIN / "stichzoo"), *args], capture_output=True, text=True,
                         timeout=timeout, cwd=ROOT,
                         env={**os.environ, **(LOCAL_RAY_ENV if env is None else env)})
    assert out.returncode == 0, f"stichzoo {' '.join(args)}:\n{out.stdout}\n{out.stderr}"
    return out


def _masked_random(obs: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


# -- the env and the module (no Ray runtime) --------------------------------------------------

def test_env_keys_league_and_per_seat_rewards():
    from stichzoo.training.rllib.env import StichzooMultiAgentEnv, env_config, module_for_agent

    cfg = _cfg()
    env = StichzooMultiAgentEnv({**env_config(cfg), "seed": 0})
    env.set_live_snapshots(1)
    rng = np.random.default_rng(0)
    seen: set[str] = set()
    for _ in range(12):
        obs, _ = env.reset()
        rewards: dict[str, float] = {}
        while True:
            (agent, o), = obs.items()
            assert set(o) == {"observations", "action_mask"}
            assert o["action_mask"].dtype == np.float32 and o["action_mask"].sum() >= 1
            obs, rew, term, trunc, infos = env.step({agent: _masked_random(o, rng)})
            for a, r in rew.items():
                rewards[a] = rewards.get(a, 0.0) + r
            if term["__all__"] or trunc["__all__"]:
                break
        state = env.aec.state_
        for a in env.agents:  # every seat RLlib sees earned exactly its own score change
            seat = int(a.partition("@")[0].split("_")[1])
            assert rewards[a] == pytest.approx(state.totals[seat] * 0.01)
        learners = [a for a in env.agents if module_for_agent(a) == "learner"]
        assert learners and all(infos[a]["win_share"] in (0.0, 0.5, 1.0, 1 / 3, 0.25)
                                for a in learners)
        assert {"bid_hit_rate", "mean_bid"} <= set(infos[learners[0]]["metrics"])
        seen.update(module_for_agent(a) for a in env.agents)
        assert len(env.agents) + sum(1 for s in env._table if not s) == 4
    assert seen == {"learner", "snapshot_0"}  # learner and snapshot seats; bots stay inside
    assert env.decisions["learner"] > 0 and env.decisions["snapshot_0"] > 0


def test_no_snapshot_seat_before_a_snapshot_exists():
    from stichzoo.training.rllib.env import StichzooMultiAgentEnv, env_config

    env = StichzooMultiAgentEnv({**env_config(_cfg()), "seed": 1})
    for _ in range(20):
        env.reset()
        assert all("@" not in a for a in env.agents)


def test_rllibs_own_masking_module_reads_our_observations():
    """The issue's KeyError: 'observations' - RLlib's example module now runs on our envs."""
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    from stichzoo.training.rllib.env import StichzooMultiAgentEnv, env_config

    env = StichzooMultiAgentEnv({**env_config(_cfg()), "seed": 2})
    obs, _ = env.reset()
    (agent, o), = obs.items()
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          observation_space=env.observation_spaces[agent],
                          action_space=env.action_spaces[agent],
                          model_config={"fcnet_hiddens": [16]}).build()
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in o.items()}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
    legal = o["action_mask"] > 0
    assert bool((logits[~torch.as_tensor(legal)] < -1e30).all())


def test_registered_envs_pass_rllibs_env_check():
    """Every game, as registered and with RLlib's default (empty) env_config, passes RLlib's
    own pre-check, which steps with unmasked random actions - mostly illegal ones."""
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments
    from ray.tune.registry import ENV_CREATOR, _global_registry

    from stichzoo.envs import GAMES
    from stichzoo.training.rllib.algo import ppo_config
    from stichzoo.training.rllib.env import env_name, register_games

    register_games()
    for game in GAMES:
        env = _global_registry.get(ENV_CREATOR, env_name(game))({})
        for _ in range(8):
            check_multiagent_environments(env)
        assert env.illegal_actions > 0  # the check did take illegal actions, and they ended
    assert not ppo_config(_cfg()).disable_env_checking  # our trainer runs the check too


def test_an_illegal_action_ends_the_deal_with_a_penalty_or_raises():
    from stichzoo.envs.core.game import IllegalActionError
    from stichzoo.training.rllib.env import MASK_KEY, StichzooMultiAgentEnv, env_config

    env = StichzooMultiAgentEnv({**env_config(_cfg()), "seed": 5})
    rng = np.random.default_rng(5)
    obs, _ = env.reset()
    for _ in range(6):  # a few legal decisions first: several seats have acted
        (agent, o), = obs.items()
        obs, *_ = env.step({agent: _masked_random(o, rng)})
    (agent, o), = obs.items()
    history = list(env.aec.state_.history)
    illegal = int(np.flatnonzero(o[MASK_KEY] == 0)[0])
    obs, rew, term, trunc, infos = env.step({agent: illegal})
    assert rew[agent] == -1.0 and all(r == 0.0 for a, r in rew.items() if a != agent)
    assert term["__all__"] and all(term[a] for a in obs) and not trunc["__all__"]
    assert set(obs) == set(rew) and agent in obs and obs[agent][MASK_KEY].sum() == 0
    assert infos[agent]["illegal_action"] == illegal and "illegal" in infos[agent]["illegal_reason"]
    assert env.illegal_actions == 1 and not env.aec.state_.over
    assert env.aec.state_.history == history  # the rules state is untouched
    strict = StichzooMultiAgentEnv({**env_config(_cfg()), "seed": 5, "illegal": "raise"})
    obs, _ = strict.reset()
    (agent, o), = obs.items()
    with pytest.raises(IllegalActionError):
        strict.step({agent: int(np.flatnonzero(o[MASK_KEY] == 0)[0])})
    with pytest.raises(ValueError, match="illegal='ignore'"):
        StichzooMultiAgentEnv({"game": "wizard", "illegal": "ignore"})


#: runs docs/cluster.md's own-config block (``{code}``) on a Ray of its own in this process
#: (no dashboard, 2 CPUs), then prints what the test checks as one JSON line
_USER_CONFIG_RUN = """
import json, math, ray
ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR")
try:
    exec(compile({code!r}, "docs/cluster.md", "exec"))
    def _count(runner):
        envs = getattr(getattr(runner, "env", None), "envs", None) or []
        return [(e.unwrapped.decisions.get("learner", 0), e.unwrapped.illegal_actions)
                for e in envs]
    counts = [c for per in algo.env_runner_group.foreach_env_runner(
        _count, local_env_runner=True) for c in per]
    print(json.dumps({{"check_off": bool(algo.config.disable_env_checking),
                      "policy_loss": float(result["learners"]["mine"]["policy_loss"]),
                      "env_steps": int(result["env_runners"]["num_env_steps_sampled"]),
                      "decisions": sum(d for d, _ in counts),
                      "illegal": sum(i for _, i in counts)}}))
    algo.stop()
finally:
    ray.shutdown()
"""


def test_a_users_config_with_the_stock_masking_module():
    """docs/cluster.md's own-config block, run as it stands: RLlib's stock
    ActionMaskingTorchRLModule trains on the registered env, env check on, no illegal action."""
    import math
    import re

    text = (ROOT / "docs" / "cluster.md").read_text()
    block = text.split("<!-- rllib-user-config -->")[1].split("<!-- /rllib-user-config -->")[0]
    code = re.search(r"```python[^\n]*\n(.*?)```", block, re.S).group(1)
    assert "disable_env_checking" not in code and "ActionMaskingTorchRLModule" in code
    out = subprocess.run([sys.executable, "-c", _USER_CONFIG_RUN.format(code=code)],
                         capture_output=True, text=True, timeout=400, cwd=ROOT,
                         env={**os.environ, **LOCAL_RAY_ENV})
    assert out.returncode == 0, f"{out.stdout}\n{out.stderr}"
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert not got["check_off"] and math.isfinite(got["policy_loss"])
    # every sampled step was a legal decision (an illegal one is no decision); the one
    # illegal action there may be is RLlib's env check's random one, before sampling
    assert got["env_steps"] >= 400 and got["decisions"] >= got["env_steps"]
    assert got["illegal"] <= 1


def test_module_is_the_policy_file_network(tmp_path):
    """Masked logits and values of the RLModule are the SB3 network's; policy.pt holds it."""
    import torch
    from ray.rllib.core.columns import Columns

    from stichzoo.policies.runtimes.torch_policy import TorchPolicy, save_policy
    from stichzoo.training.config import game_of
    from stichzoo.training.rllib.algo import module_spec
    from stichzoo.training.rllib.env import StichzooMultiAgentEnv, env_config
    from stichzoo.training.rllib.run import from_sb3, to_sb3

    cfg = _cfg(train={**TINY["train"], "heads": "phase"})
    game = game_of(cfg)
    module = module_spec(cfg, game).build()["learner"]
    env = StichzooMultiAgentEnv({**env_config(cfg), "seed": 4})
    rng = np.random.default_rng(4)
    rows = []
    obs, _ = env.reset()
    while len(rows) < 40:
        (agent, o), = obs.items()
        rows.append(o)
        obs, _, term, _, _ = env.step({agent: _masked_random(o, rng)})
        if term["__all__"]:
            obs, _ = env.reset()
    batch = {Columns.OBS: {k: torch.as_tensor(np.stack([r[k] for r in rows])) for k in rows[0]}}
    out = module.forward_train(batch)
    mask = batch[Columns.OBS]["action_mask"] > 0
    logits = out[Columns.ACTION_DIST_INPUTS]
    assert bool((logits[~mask] == -1e8).all())
    path = tmp_path / "policy.pt"
    weights = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    policy = to_sb3(cfg, weights)
    assert from_sb3(policy).keys() == weights.keys()
    save_policy(policy, game, str(path))
    loaded = TorchPolicy.load(str(path), game)
    expected = np.stack([loaded.logits(r["observations"]) for r in rows])
    assert np.allclose(logits.detach().numpy()[mask.numpy()], expected[mask.numpy()], atol=1e-5)
    values = module.compute_values(batch).detach().numpy()
    with torch.no_grad():
        ref = policy.predict_values(batch[Columns.OBS]["observations"]).numpy()[:, 0]
    assert np.allclose(values, ref, atol=1e-5)


# -- a short run on a local Ray, export, eval, serve, resume ----------------------------------

@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """``stichzoo train --backend rllib`` on a local Ray (2 CPUs), with --final-eval."""
    base = tmp_path_factory.mktemp("rllib")
    config = base / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    run_dir = base / "run"
    start = time.time()
    out = _stichzoo("train", "--backend", "rllib", str(config), "--run-dir", str(run_dir),
                    "--final-eval", "--quiet")
    print(f"local RLlib run: {time.time() - start:.0f} s\n{out.stdout}")
    return run_dir


def test_run_folder_is_every_trainers(run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from stichzoo.training.rllib.run import PROGRESS, latest_checkpoint

    summary = yaml.safe_load((run / "train_summary.yaml").read_text())
    assert summary["algo"] == "rllib_ppo" and summary["steps"] >= TINY["train"]["total_timesteps"]
    assert summary["pretrain"]["samples"] == 1000
    assert config_mod.load(str(run / "config.yaml"))["algo"] == "rllib_ppo"
    ckpt, steps = latest_checkpoint(str(run / "checkpoints"))
    assert steps == summary["steps"] and (Path(ckpt) / PROGRESS).exists()
    assert len(list((run / "checkpoints").glob("rllib_*"))) >= 2  # checkpoint_every, and the end
    assert len(list((run / "snapshots").glob("step_*.pt"))) >= 2
    decisions = {}
    for source in summary["sample_sources"]:
        for module, n in source["decisions"].items():
            decisions[module] = decisions.get(module, 0) + n
    assert decisions["learner"] >= 1000 and decisions.get("snapshot_0", 0) > 0
    events = EventAccumulator(str(run / "tb" / "rllib"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"charts/win_share", "charts/episode_return", "charts/win_share_seat0",
            "wizard/train_bid_hit_rate", "losses/policy_loss", "time/fps",
            "pretrain/accuracy"} <= tags
    assert not any("episode_return_mean" in t for t in tags)  # no summed-over-seats returns
    report = json.loads((run / "eval" / "final_vs_random" / "report.json").read_text())
    assert report["games"] >= 24


def test_rllib_logs_the_documented_tags_with_their_signs(run):
    """docs/training.md's table: every training tag marked for RLlib is logged (this run has
    no periodic evaluation), nothing undocumented is, and the signs are the table's."""
    from tests.tags_table import check_against_docs, logged_tags, scalars

    tb = run / "tb"
    check_against_docs(logged_tags(tb), "RLlib", "wizard", TINY["eval"]["opponents"],
                       required=("charts/", "losses/", "time/", "pretrain/", "<game>/train_"))
    assert all(v > 0 for v in scalars(tb, "losses/entropy"))  # +entropy, as the others
    assert all(v >= -1e-6 for v in scalars(tb, "losses/approx_kl"))
    assert all(0 <= v <= 1 for v in scalars(tb, "losses/clip_fraction"))
    assert all(0 <= v <= 1 for v in scalars(tb, "time/rollout_share"))
    assert all(v >= 1 for v in scalars(tb, "charts/episode_length"))


def test_snapshots_stay_frozen(run):
    """The snapshot module the checkpoint holds is the learner copy written to snapshots/."""
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    from stichzoo.training.rllib.run import latest_checkpoint

    ckpt, _ = latest_checkpoint(str(run / "checkpoints"))
    rl_modules = Path(ckpt) / "learner_group" / "learner" / "rl_module"
    snaps = sorted((run / "snapshots").glob("step_*.pt"))
    newest = {}
    for snap in snaps:  # the newest file per slot is what the slot holds now
        newest[torch.load(snap, weights_only=False)["stichzoo"]["module"]] = snap
    learner = RLModule.from_checkpoint(str(rl_modules / "learner")).state_dict()
    for slot, snap in newest.items():
        module = RLModule.from_checkpoint(str(rl_modules / slot)).state_dict()
        saved = torch.load(snap, weights_only=False)["state_dict"]
        assert all(torch.equal(module[f"policy.{k}"], v) for k, v in saved.items())
        assert not all(torch.equal(module[k], learner[k]) for k in learner)


def test_export_eval_and_serve(run, tmp_path):
    from fastapi.testclient import TestClient

    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy
    from stichzoo.policies.runtimes.torch_policy import TorchPolicy
    from stichzoo.policies.serve import create_app
    from stichzoo.training.config import game_of

    bots = tmp_path / "bots"
    _stichzoo("export", str(run), "--out", str(bots / "wizard"))
    game = game_of(_cfg())
    onnx = OnnxPolicy.load(str(bots / "wizard"), game)
    torch_policy = TorchPolicy.load(str(run / "policy.pt"), game)
    state = game.new_game(seed=5)
    rng = np.random.default_rng(5)
    from stichzoo.policies import Decision

    for _ in range(30):
        if state.over:
            state = game.new_game(seed=int(rng.integers(1 << 30)))
        d = Decision(game, state)
        assert onnx.act(d) == torch_policy.act(d)
        state.step(int(rng.choice(d.legal_actions)))
    out = _stichzoo("eval", "wizard", "--players", "4", "--option", "rounds=[1,2,3]",
                    "--policies", f"onnx:path={bots / 'wizard'}", "random", "--games", "24",
                    "--workers", "1", "--quiet")
    assert f"onnx:path={bots / 'wizard'}" in out.stdout and "bid_hit_rate" in out.stdout
    client = TestClient(create_app(str(bots), levels=[]))
    listed = client.get("/bots").json()
    assert [b["name"] for b in listed["bots"]] == ["wizard"] and listed["refused"] == []
    import importlib

    view = importlib.import_module("stichzoo.envs.wizard.view")
    state = game.new_game(seed=9)
    answer = client.post("/bots/wizard/act", json=view.to_view(state, state.current_player))
    assert answer.status_code == 200, answer.text
    assert answer.json()["action_id"] == onnx.act(Decision(game, state))


def test_resume_goes_on_from_the_last_checkpoint(run, tmp_path):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    before = yaml.safe_load((copy / "train_summary.yaml").read_text())["steps"]
    out = _stichzoo("train", "--resume", str(copy), "--set",
                    f"train.total_timesteps={before + 400}", "--quiet")
    assert f"resuming {copy}" in out.stdout
    after = yaml.safe_load((copy / "train_summary.yaml").read_text())
    assert after["steps"] >= before + 400 and after["iterations"] > 0


# -- a two-node cluster on this machine -------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalCluster:
    """``ray start --head`` plus ``ray start --address`` as a real cluster's nodes are started.

    Each node is a ``ray start --block`` in a process group of its own, ended
    by that group's id: nothing but this cluster's processes is touched.
    """

    def __init__(self, tmp: Path):
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.tmp = tmp
        self.procs: list[subprocess.Popen] = []

    def start_node(self, *args: str) -> None:
        with open(self.tmp / f"node{len(self.procs)}.log", "w") as log:
            self.procs.append(subprocess.Popen(
                [str(BIN / "ray"), "start", "--block", "--num-cpus=1", "--disable-usage-stats",
                 *args], stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **RAY_ENV},
                start_new_session=True))

    def wait_for_nodes(self, count: int, timeout: float = 90) -> list[dict]:
        code = (f"import json, ray; ray.init(address={self.address!r}, logging_level='ERROR'); "
                "print(json.dumps([{'id': n['NodeID'], 'resources': n['Resources']} "
                "for n in ray.nodes() if n['Alive']]))")
        deadline = time.time() + timeout
        while True:
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 timeout=60, env={**os.environ, **RAY_ENV})
            nodes = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 \
                else []
            if len(nodes) >= count:
                return nodes
            if time.time() > deadline:
                logs = "\n".join(p.read_text() for p in sorted(self.tmp.glob("node*.log")))
                raise RuntimeError(f"{len(nodes)} of {count} Ray nodes up:\n{out.stderr}\n{logs}")
            time.sleep(2)

    def stop(self) -> None:
        """SIGTERM each node's group (worker node first), then SIGKILL what is left of it.

        (Ray's idle workers start sessions of their own; they exit once their
        raylet is gone.)
        """
        for proc in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        # `ray start` wrote this cluster's address for `ray.init()` to find; it is gone now
        current = Path("/tmp/ray/ray_current_cluster")
        with contextlib.suppress(OSError):
            if current.read_text().strip().endswith(f":{self.port}"):
                current.unlink()


@pytest.fixture
def cluster(tmp_path):
    c = LocalCluster(tmp_path)
    try:
        c.start_node("--head", f"--port={c.port}", "--include-dashboard=false")
        c.wait_for_nodes(1)
        c.start_node(f"--address={c.address}", '--resources={"worker_node": 1}')
        yield c, c.wait_for_nodes(2)
    finally:
        c.stop()


def test_env_runners_on_the_second_node_sample(cluster, tmp_path):
    """The driver learns on the head; env runners go to the node with the custom resource."""
    c, nodes = cluster
    (worker,) = [n["id"] for n in nodes if "worker_node" in n["resources"]]
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY, "pretrain": {"steps": 0}, "selfplay": {}}))
    run_dir = tmp_path / "run"
    start = time.time()
    _stichzoo("train", "--backend", "rllib", str(config), "--address", c.address,
              "--run-dir", str(run_dir), "--quiet", "--set", "train.total_timesteps=600",
              "--set", "rllib.custom_resources_per_env_runner={worker_node: 1}", env=RAY_ENV)
    print(f"two-node RLlib run: {time.time() - start:.0f} s")
    summary = yaml.safe_load((run_dir / "train_summary.yaml").read_text())
    assert summary["ray"]["nodes"] == 2
    sources = summary["sample_sources"]
    assert [s["node_id"] for s in sources] == [worker]
    assert sources[0]["decisions"]["learner"] >= 600
    assert (run_dir / "policy.pt").exists()


def test_bench_script_measures_both(tmp_path):
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    out = subprocess.run([sys.executable, "scripts/bench/train_rllib.py", "--config", str(config),
                          "--seconds", "120", "--samples", "300", "--runners", "0",
                          "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, **LOCAL_RAY_ENV})
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    assert set(results) == {"batch_ppo", "rllib_ppo:0_env_runners"}
    assert all(r["samples_per_s"] > 0 for r in results.values())  # (the budget includes
    assert results["rllib_ppo:0_env_runners"]["iterations"] >= 1    # building the algorithm)
    assert json.loads(out.stdout)["samples"] == 300   # each run ended by its samples, not the
    assert all(r["samples"] >= 300 for r in results.values())   # clock (one iteration each)
