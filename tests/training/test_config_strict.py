"""Training configs are checked - every range of every key - before any work starts.

A config that could only train nothing, never stop, or crash minutes in
(NaN returns from gamma 2, an optimizer with a negative rate) must fail when
it is read, with one line naming the key, and ``stichzoo train`` must then
exit 2 without creating a run folder.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

pytest.importorskip("yaml")

import itertools

from stichzoo.training import config as config_mod
from stichzoo.training.cli import main
from stichzoo.training.lab import belief

BASE = {"game": "hoch_tief"}


def _with(path: str, value) -> dict:
    """BASE with ``path`` (``train.gamma``) set to ``value``."""
    data: dict = {**BASE}
    node = data
    *sections, key = path.split(".")
    for s in sections:
        node = node.setdefault(s, {})
    node[key] = value
    return data


BAD = [
    ("train.total_timesteps", -5), ("train.total_timesteps", 0),
    ("train.max_minutes", -1), ("train.max_minutes", math.inf), ("train.max_minutes", 0),
    ("pretrain.steps", -100),
    ("train.checkpoint_every", -1), ("train.checkpoint_every", 0),
    ("eval.every", -1),
    ("train.n_epochs", 0),
    ("selfplay.keep", 0), ("selfplay.snapshot_every", -1),
    ("train.gamma", 2.0), ("train.gamma", 0.0), ("train.gamma", math.nan),
    ("train.gae_lambda", 1.5), ("train.gae_lambda", -0.1),
    ("train.learning_rate", -1e-4), ("train.learning_rate", math.nan),
    ("train.learning_rate", 0), ("train.learning_rate", math.inf),
    ("pretrain.learning_rate", 0), ("pretrain.epochs", 0), ("pretrain.batch_size", 0),
    ("train.torch_threads", 0),
    ("train.clip_range", 0), ("train.ent_coef", -0.01), ("train.vf_coef", math.inf),
    ("train.max_grad_norm", 0), ("train.target_kl", 0), ("train.target_kl", math.nan),
    ("train.n_envs", 0), ("train.n_steps", 1), ("train.batch_size", 1),
    ("train.net_arch", [0]), ("train.net_arch", [True]),
    ("seed", -1), ("env.reward_scale", 0), ("env.reward_scale", math.nan),
    ("eval.final_games", 0), ("eval.workers", -1),
]


@pytest.mark.parametrize(("key", "value"), BAD, ids=[f"{k}={v}" for k, v in BAD])
def test_out_of_range_is_refused_naming_the_key(key, value):
    with pytest.raises(ValueError) as e:
        config_mod.validate(_with(key, value))
    msg = str(e.value)
    assert f"config: {key}=" in msg and "out of range" in msg and "\n" not in msg


def test_every_number_in_the_schema_has_a_range():
    def numeric(schema, prefix=""):
        for key, spec in schema.items():
            if isinstance(spec, dict):
                yield from numeric(spec, f"{prefix}{key}.")
            elif int in (spec[0] if isinstance(spec[0], tuple) else (spec[0],)):
                yield f"{prefix}{key}"

    assert set(numeric(config_mod.SCHEMA)) <= set(config_mod.RANGES)
    assert "train.net_arch" in config_mod.RANGES and "eval.opponents" in config_mod.RANGES


def test_batch_size_cannot_exceed_a_rollout():
    with pytest.raises(ValueError, match=r"train\.batch_size=1000000 is larger than a rollout "
                                         r"\(train\.n_steps \* train\.n_envs = 2048\)"):
        config_mod.validate(_with("train.batch_size", 1_000_000))
    cfg = config_mod.validate({"game": "hoch_tief", "train": {"n_steps": 64, "n_envs": 2,
                                                               "batch_size": 128}})
    assert cfg["train"]["batch_size"] == 128  # exactly one rollout is fine


def test_eval_games_checked_when_used():
    with pytest.raises(ValueError, match=r"eval\.games=-10 is out of range"):
        config_mod.validate(_with("eval.games", -10))
    # with no evaluation during training, eval.games is never read
    config_mod.validate({"game": "hoch_tief", "eval": {"every": 0, "games": 0}})
    with pytest.raises(ValueError, match=r"eval\.opponents is empty but eval\.every > 0"):
        config_mod.validate({"game": "hoch_tief", "eval": {"opponents": []}})
    with pytest.raises(ValueError, match="unknown policy 'alphazero'"):
        config_mod.validate({"game": "hoch_tief", "eval": {"opponents": ["alphazero"]}})
    with pytest.raises(ValueError, match=r"eval\.opponents=\[3\] is out of range"):
        config_mod.validate({"game": "hoch_tief", "eval": {"opponents": [3]}})


@pytest.mark.parametrize("section", ["train", "env", "selfplay", "pretrain", "eval"])
def test_sections_must_be_mappings_not_null(section):
    with pytest.raises(ValueError, match=rf"the section {section} must be a mapping of keys, "
                                         r"got null"):
        config_mod.validate({"game": "hoch_tief", section: None})
    with pytest.raises(ValueError, match=rf"the section {section} must be a mapping"):
        config_mod.validate({"game": "hoch_tief", section: [1, 2]})


def test_opponent_weights_are_checked():
    with pytest.raises(ValueError, match=r"opponents\[0\]\.weight=nan must be a finite number"):
        config_mod.validate({"game": "hoch_tief", "opponents": [{"policy": "random",
                                                                 "weight": math.nan}]})
    with pytest.raises(ValueError, match=r"opponents\[1\]\.weight='heavy'"):
        config_mod.validate({"game": "hoch_tief", "opponents": [
            "random", {"policy": "heuristic", "weight": "heavy"}]})
    with pytest.raises(ValueError, match="needs an entry other than 'self' with weight > 0"):
        config_mod.validate({"game": "hoch_tief", "opponents": [
            {"policy": "self"}, {"policy": "random", "weight": 0}]})


def test_numbers_spelled_the_yaml_1_1_way_are_read_exactly(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("game: hoch_tief\ntrain: {learning_rate: 1e-4, total_timesteps: 3e6}\n")
    cfg = config_mod.load(str(path))
    assert cfg["train"]["learning_rate"] == 1e-4
    assert cfg["train"]["total_timesteps"] == 3_000_000
    assert type(cfg["train"]["total_timesteps"]) is int
    with pytest.raises(ValueError, match=r"train\.n_steps must be an integer, got float 2\.5"):
        config_mod.validate(_with("train.n_steps", 2.5))
    with pytest.raises(ValueError, match=r"pretrain\.teacher must be a string"):
        config_mod.validate(_with("pretrain.teacher", 3))
    cfg = config_mod.load(str(path), ["train.learning_rate=2e-5", "pretrain.teacher=1e3"])
    assert cfg["train"]["learning_rate"] == 2e-5  # a number key: the string becomes a number
    assert cfg["pretrain"]["teacher"] == "1e3"  # a string key keeps its string


def test_file_errors_are_one_line(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("game: hoch_tief\ntrain: {n_envs: 2\n")
    with pytest.raises(ValueError, match=r"broken\.yaml is not valid YAML: .* at line \d+") as e:
        config_mod.load(str(broken))
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match=r"config file .*nope\.yaml does not exist"):
        config_mod.load(str(tmp_path / "nope.yaml"))
    with pytest.raises(ValueError, match=r"config file .* must be a mapping of keys"):
        (tmp_path / "list.yaml").write_text("- game\n")
        config_mod.load(str(tmp_path / "list.yaml"))
    with pytest.raises(ValueError, match=r"override 'train\.gamma=\[': the value is not valid"):
        (tmp_path / "ok.yaml").write_text("game: hoch_tief\n")
        config_mod.load(str(tmp_path / "ok.yaml"), ["train.gamma=["])


def test_committed_configs_pass():
    """Every committed config passes its strict loader: the model configs theirs (the Wizard
    bid model's, the leaf value's and the tricks to come's, ``stichzoo fit``; the lab's belief
    and deal models', ``python -m stichzoo.training.lab fit``), the rest the training
    configs'."""
    from stichzoo.training.fit import bid_model as tricks
    from stichzoo.training.fit import leaf_value as leaf
    from stichzoo.training.fit import tricks_to_come as future
    from stichzoo.training.lab import standing

    root = Path(__file__).resolve().parents[2] / "configs"
    beliefs = 0
    for path in sorted(root.rglob("*.yaml")):
        if path.parent.name == "belief":
            belief.load_config(str(path))
            beliefs += 1
        elif path.parent.name == "bid_model":
            tricks.load_config(str(path))
        elif path.parent.name == "leaf_value":
            leaf.load_config(str(path))
        elif path.parent.name == "standing":
            standing.load_config(str(path))
        elif path.parent.name == "tricks_to_come":
            future.load_config(str(path))
        else:
            config_mod.load(str(path))
    assert beliefs >= 2


@pytest.mark.parametrize("game", ["geheimtrumpf", "hoch_tief", "silberne_ananas", "wizard",
                                  "wunder_punkt"])
def test_top_level_config_is_the_shipped_bots_recipe(game):
    """configs/<game>.yaml is what made policies/bots/<game>: its config.yaml, once the
    ``--set`` overrides of the manifest's legs (the first's, and a bot trained in several
    legs those of the later ones) are applied.
    A bot refined by expert iteration (``expert.start``) was made by configs/expert/<game>.yaml
    from the bot in its ``start/`` folder, to which the same check then applies."""
    import json
    import shlex

    root = Path(__file__).resolve().parents[2]
    bot = root / "policies" / "bots" / game
    shipped = config_mod.load(str(bot / "config.yaml"))
    if shipped["expert"].get("start"):
        committed = config_mod.load(str(root / "configs" / "expert" / f"{game}.yaml"))
        # the fits' thread count is how fast the recipe runs on a machine, not what it makes
        # (Wizard's fits took two threads after its bot was shipped with one)
        for config in (shipped, committed):
            config["train"].pop("torch_threads")
        assert shipped == committed
        assert shipped["expert"]["start"] == f"bot:{game}/start"
        bot = bot / "start"
    provenance = json.loads((bot / "manifest.json").read_text())["provenance"]
    overrides: list[str] = []
    if "legs" in provenance:
        first, *later = (shlex.split(leg["command"]) for leg in provenance["legs"])
        assert first[:3] == ["stichzoo", "train", f"configs/{game}.yaml"], first
        for words in (first, *later):
            overrides += [v for k, v in itertools.pairwise(words) if k == "--set"]
    assert config_mod.load(str(root / "configs" / f"{game}.yaml"), overrides) == \
        config_mod.load(str(bot / "config.yaml"))


# -- through the CLI: exit 2, one line on stderr, no run folder ------------------------------


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """A tmp cwd, so a default run folder (runs/...) would show up here."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text("game: hoch_tief\ntrain: {n_envs: 1, vec_env: dummy}\n")
    return tmp_path


def _refused(capsys, argv: list[str], message: str, workdir: Path) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("stichzoo: error: ") and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (workdir / "runs").exists() and not (workdir / "run").exists()


@pytest.mark.parametrize(("setting", "message"), [
    ("train.total_timesteps=0", "train.total_timesteps=0 is out of range"),
    ("train.total_timesteps=-5", "train.total_timesteps=-5 is out of range"),
    ("train.gamma=2.0", "train.gamma=2.0 is out of range"),
    ("train.learning_rate=nan", "train.learning_rate=nan is out of range"),
    ("train.learning_rate=-0.001", "train.learning_rate=-0.001 is out of range"),
    ("train.torch_threads=0", "train.torch_threads=0 is out of range"),
    ("train.max_minutes=.inf", "train.max_minutes=inf is out of range"),
    ("train.batch_size=1000000", "train.batch_size=1000000 is larger than a rollout"),
    ("selfplay.keep=0", "selfplay.keep=0 is out of range"),
])
def test_cli_refuses_before_any_run_folder(capsys, workdir, setting, message):
    _refused(capsys, ["train", "c.yaml", "--set", setting, "--quiet"], message, workdir)
    _refused(capsys, ["train", "c.yaml", "--set", setting, "--run-dir", "run", "--quiet"],
             message, workdir)


def test_cli_file_and_folder_errors(capsys, workdir):
    (workdir / "null.yaml").write_text("game: hoch_tief\ntrain: null\n")
    _refused(capsys, ["train", "null.yaml"], "the section train must be a mapping of keys, "
                                             "got null", workdir)
    (workdir / "broken.yaml").write_text("game: [hoch_tief\n")
    _refused(capsys, ["train", "broken.yaml"], "broken.yaml is not valid YAML", workdir)
    _refused(capsys, ["train", "missing.yaml"], "config file missing.yaml does not exist",
             workdir)
    _refused(capsys, ["train", "--resume", "runs/nothing"], "--resume runs/nothing: no such "
                                                            "run folder", workdir)
    (workdir / "notarun").mkdir()
    _refused(capsys, ["train", "--resume", "notarun"], "not a run folder (it has no "
                                                       "config.yaml)", workdir)
    _refused(capsys, ["train", "c.yaml", "--final-games", "0"], "--final-games 0", workdir)
    _refused(capsys, ["train"], "name a config file", workdir)


def test_cli_resume_refuses_a_finished_run(capsys, workdir):
    run = workdir / "old"
    (run / "checkpoints").mkdir(parents=True)
    cfg = config_mod.validate({"game": "hoch_tief", "train": {"total_timesteps": 256}})
    (run / "config.yaml").write_text(config_mod.dump(cfg))
    (run / "checkpoints" / "model_256.zip").write_bytes(b"")
    before = sorted(os.listdir(run))
    _refused(capsys, ["train", "--resume", "old"], "the run has trained 256 steps", workdir)
    _refused(capsys, ["train", "--resume", "old", "--set", "train.gamma=2"],
             "train.gamma=2 is out of range", workdir)
    assert sorted(os.listdir(run)) == before


def test_warm_start_schedule_is_a_choice():
    assert config_mod.validate(_with("pretrain.lr_schedule", "cosine"))["pretrain"][
        "lr_schedule"] == "cosine"
    with pytest.raises(ValueError, match=r"pretrain.lr_schedule='linear'; choose one of"):
        config_mod.validate(_with("pretrain.lr_schedule", "linear"))


def test_cosine_warm_start_decays_the_rate_to_zero():
    import numpy as np
    import torch as th

    from stichzoo.training.trainers.pretrain import behaviour_clone

    class Tiny(th.nn.Module):
        """Just enough of an SB3 policy for behaviour_clone: evaluate_actions and a distribution."""

        def __init__(self):
            super().__init__()
            self.lin = th.nn.Linear(3, 2)
            self.rates = []

        def set_training_mode(self, mode):
            self.train(mode)

        def _dist(self, obs):
            return th.distributions.Categorical(logits=self.lin(obs))

        def evaluate_actions(self, obs, actions, action_masks=None):
            d = self._dist(obs)
            return self.lin(obs)[:, :1], d.log_prob(actions), d.entropy()

        def get_distribution(self, obs, action_masks=None):
            return type("D", (), {"distribution": self._dist(obs)})()

    data = {"obs": np.random.default_rng(0).random((40, 3), dtype=np.float32),
            "mask": np.ones((40, 2), bool), "action": np.zeros(40, np.int64),
            "return": np.zeros(40, np.float32)}
    policy = Tiny()
    rates = []
    orig = th.optim.Adam.step

    def spy(self, *a, **k):
        rates.append(self.param_groups[0]["lr"])
        return orig(self, *a, **k)

    th.optim.Adam.step = spy
    try:
        behaviour_clone(policy, data, epochs=2, batch_size=10, lr=0.01, verbose=False,
                        schedule="cosine")
    finally:
        th.optim.Adam.step = orig
    assert len(rates) == 8 and rates[0] == 0.01
    assert all(a > b for a, b in itertools.pairwise(rates)) and rates[-1] < 0.001
