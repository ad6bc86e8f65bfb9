"""The RLlib backend's side of the YAML config and of the CLI - checked without Ray.

These run in the main venv (no Ray) and in .venv-rllib alike: which keys
RLlib honours and which it refuses by name is pure Python
(:mod:`stichzoo.training.rllib.keys`), and a user without Ray gets one line
saying how to install it, before any run folder exists.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from stichzoo.training import config as config_mod
from stichzoo.training.cli import main
from stichzoo.training.rllib import MISSING_RAY, keys
from tests.conftest import training_configs

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = training_configs()
#: a value other than the default, per refused key
NON_DEFAULT = {"train.vec_env": "dummy", "train.target_kl": 0.02, "batch.games": 64,
               "batch.rollout_steps": 32, "batch.device": "cuda", "expert.teacher": "heuristic",
               "expert.steps": 100, "expert.workers": 1, "expert.games": 4, "expert.epochs": 2,
               "expert.batch_size": 256, "expert.learning_rate": 0.01,
               "expert.lr_schedule": "constant", "train.lr_schedule": "linear",
               "train.lr_clock": "samples",
               "expert.targets": "values", "expert.temperature": 2.0, "expert.iterations": 2,
               "expert.positions": "learner", "expert.start": "bot:hoch_tief",
               "expert.prior": "start", "expert.phases": ["play"], "train.critic": "privileged",
               "expert.opponent": "heuristic", "expert.opponent_seats": 2,
               "expert.opponent_share": 0.5}


def _leaves(schema: dict, prefix: str = ""):
    for key, spec in schema.items():
        if isinstance(spec, dict):
            yield from _leaves(spec, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


def _rllib(**sections) -> dict:
    return {"game": "hoch_tief", "algo": "rllib_ppo", **sections}


def _with(path: str, value) -> dict:
    data = _rllib()
    section, _, key = path.rpartition(".")
    data.setdefault(section, {})[key] = value
    return data


def test_every_schema_key_is_mapped_or_refused():
    leaves = set(_leaves(config_mod.SCHEMA))
    assert set(keys.MAPPED) | set(keys.REFUSED) == leaves
    assert not set(keys.MAPPED) & set(keys.REFUSED)
    assert set(NON_DEFAULT) == set(keys.REFUSED)


@pytest.mark.parametrize("path", sorted(keys.REFUSED))
def test_a_refused_key_set_is_named(path):
    with pytest.raises(ValueError) as e:
        config_mod.validate(_with(path, NON_DEFAULT[path]))
    msg = str(e.value)
    assert f"config: {path}=" in msg and "has no meaning for algo: rllib_ppo" in msg
    assert "\n" not in msg


@pytest.mark.parametrize("path", sorted(keys.REFUSED))
def test_a_refused_key_at_its_default_is_fine(path):
    """A run folder's config.yaml restates every default; that asks RLlib for nothing."""
    default = config_mod.lookup(config_mod.SCHEMA, path)[1]
    assert config_mod.validate(_with(path, default))["algo"] == "rllib_ppo"


@pytest.mark.parametrize("config", CONFIGS,
                         ids=[str(c.relative_to(ROOT / "configs")) for c in CONFIGS])
def test_every_shipped_config_reads_under_rllib(config):
    """The same file trains on one machine or on a cluster: only the backend changes - or,
    where it sets a batch-trainer key (train.lr_schedule), RLlib refuses that key by name."""
    own = config_mod.load(str(config))
    batch_only = [k for k in keys.REFUSED
                  if config_mod.lookup(own, k) != config_mod.lookup(config_mod.SCHEMA, k)[1]]
    if batch_only:
        with pytest.raises(ValueError, match=re.escape(batch_only[0])):
            config_mod.load(str(config), ["algo=rllib_ppo"])
        return
    cfg = config_mod.load(str(config), ["algo=rllib_ppo"])
    assert keys.rollout_size(cfg) >= cfg["train"]["batch_size"]
    assert config_mod.validate(config_mod.load(str(config), ["algo=rllib_ppo"])) == cfg


def test_rollout_is_split_over_learners_and_checked():
    cfg = config_mod.validate(_rllib(train={"n_steps": 100, "n_envs": 2, "batch_size": 100},
                                     rllib={"num_env_runners": 3, "num_learners": 2}))
    assert keys.rollout_size(cfg) == 600 and keys.batch_per_learner(cfg) == 300
    with pytest.raises(ValueError, match=r"train\.batch_size=400 is larger than a learner's "
                                         r"share of the rollout .* = 300\)"):
        config_mod.validate(_rllib(train={"n_steps": 100, "n_envs": 2, "batch_size": 400},
                                   rllib={"num_env_runners": 3, "num_learners": 2}))


def test_rllib_section_is_checked():
    with pytest.raises(ValueError, match=r"rllib\.num_env_runners=-1 is out of range"):
        config_mod.validate(_with("rllib.num_env_runners", -1))
    with pytest.raises(ValueError, match=r"unknown key 'rllib\.num_workers'"):
        config_mod.validate(_with("rllib.num_workers", 2))
    with pytest.raises(ValueError, match=r"names Ray's own resource 'CPU'"):
        config_mod.validate(_with("rllib.custom_resources_per_env_runner", {"CPU": 1}))
    with pytest.raises(ValueError, match=r"custom_resources_per_env_runner=.* is out of range"):
        config_mod.validate(_with("rllib.custom_resources_per_env_runner", {"sampler": 0}))


def test_learner_seats_need_an_all_seat_trainer():
    opponents = [{"policy": "learner", "weight": 1}, "heuristic"]
    assert config_mod.validate(_rllib(opponents=opponents))["opponents"] == opponents
    with pytest.raises(ValueError, match="needs algo: batch_ppo or rllib_ppo"):
        config_mod.validate({"game": "hoch_tief", "opponents": opponents})


def test_cli_without_ray_says_how_to_install_it(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    monkeypatch.setitem(sys.modules, "ray.rllib", None)
    run = tmp_path / "run"
    code = main(["train", "--backend", "rllib", str(ROOT / "configs/sb3/wizard.yaml"),
                 "--run-dir", str(run)])
    err = capsys.readouterr().err
    assert code == 2 and err == f"stichzoo: error: {MISSING_RAY}\n"
    assert "pip install 'stichzoo[rllib]'" in err and "scripts/setup_rllib.sh" in err
    assert not run.exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--address", "127.0.0.1:6379"], "--address is a Ray cluster's; use it with --backend "
                                      "rllib"),
    (["--backend", "rllib", "--algo", "batch_ppo"], "--algo batch_ppo picks a local trainer"),
    (["--backend", "rllib", "--set", "train.vec_env=dummy"], "config: train.vec_env='dummy' "
                                                             "has no meaning for algo: "
                                                             "rllib_ppo"),
    (["--backend", "local", "--set", "algo=rllib_ppo"], "the config says algo: rllib_ppo"),
])
def test_cli_refusals_are_one_line(argv, message, capsys, tmp_path):
    run = tmp_path / "run"
    code = main(["train", str(ROOT / "configs/sb3/wizard.yaml"), "--run-dir", str(run), *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1
    assert not run.exists()


def test_docs_table_names_every_key():
    text = (ROOT / "docs/cluster.md").read_text()
    missing = [k for k in [*keys.MAPPED, *keys.REFUSED] if f"| `{k}` |" not in text]
    assert not missing, f"docs/cluster.md does not map {missing}"
