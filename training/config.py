"""Training configs: one YAML file per game, every knob in the file, checked strictly.

A typo in a config silently training with a default is the worst kind of
bug in RL, so every key is known here with its type and default; an
unknown key or a wrong type is an error that names the key.  CLI overrides
(``--set train.learning_rate=1e-4``) go through the same checks.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import yaml

# key -> (type or tuple of types, default); nested dicts are sections
SCHEMA: dict[str, Any] = {
    "game": (str, None),
    "algo": (str, "maskable_ppo"),
    "seed": (int, 0),
    "options": (dict, {}),  # game options, checked by the game itself
    "env": {
        "reward": (str, "score"),
        "reward_scale": ((int, float), 1.0),
    },
    "opponents": (list, [{"policy": "random", "weight": 1.0}]),
    "selfplay": {
        "snapshot_every": (int, 0),  # steps between snapshots of the learner; 0: none
        "keep": (int, 5),
    },
    "train": {
        "total_timesteps": (int, 200_000),
        "max_minutes": ((int, float), 60.0),
        "n_envs": (int, 2),
        "vec_env": (str, "subproc"),  # subproc | dummy
        "learning_rate": ((int, float), 3e-4),
        "n_steps": (int, 1024),
        "batch_size": (int, 256),
        "n_epochs": (int, 4),
        "gamma": ((int, float), 1.0),
        "gae_lambda": ((int, float), 0.95),
        "clip_range": ((int, float), 0.2),
        "ent_coef": ((int, float), 0.01),
        "vf_coef": ((int, float), 0.5),
        "max_grad_norm": ((int, float), 0.5),
        "target_kl": ((int, float, type(None)), None),
        "net_arch": (list, [256, 256]),
        "heads": (str, "shared"),  # shared | phase (one policy trunk per game phase)
        "torch_threads": (int, 1),
        "checkpoint_every": (int, 50_000),
    },
    "pretrain": {  # imitate a teacher before PPO (training/pretrain.py); steps 0: off
        "teacher": (str, "heuristic"),
        "steps": (int, 0),
        "epochs": (int, 3),
        "batch_size": (int, 512),
        "learning_rate": ((int, float), 1e-3),
    },
    "eval": {
        "every": (int, 50_000),  # steps between evaluations; 0: only at the end
        "games": (int, 200),
        "opponents": (list, ["random", "heuristic"]),
        "final_games": (int, 1000),
        "workers": (int, 0),
    },
}

CHOICES = {
    "algo": ("maskable_ppo",),
    "env.reward": ("score", "win"),
    "train.vec_env": ("subproc", "dummy"),
    "train.heads": ("shared", "phase"),
}


def _defaults(schema: dict) -> dict:
    out = {}
    for key, spec in schema.items():
        out[key] = _defaults(spec) if isinstance(spec, dict) else copy.deepcopy(spec[1])
    return out


def _check(data: dict, schema: dict, prefix: str = "") -> dict:
    if not isinstance(data, dict):
        raise ValueError(f"config section {prefix.rstrip('.') or '<top>'} must be a mapping")
    out = _defaults(schema)
    for key, value in data.items():
        path = f"{prefix}{key}"
        if key not in schema:
            raise ValueError(f"config: unknown key {path!r}; known keys here: "
                             f"{', '.join(schema)}")
        spec = schema[key]
        if isinstance(spec, dict):
            out[key] = _check(value or {}, spec, prefix=f"{path}.")
            continue
        types = spec[0] if isinstance(spec[0], tuple) else (spec[0],)
        if isinstance(value, bool) and bool not in types:
            raise ValueError(f"config: {path} must be {_type_names(types)}, got {value!r}")
        if not isinstance(value, types):
            raise ValueError(f"config: {path} must be {_type_names(types)}, got "
                             f"{type(value).__name__} {value!r}")
        if path in CHOICES and value not in CHOICES[path]:
            raise ValueError(f"config: {path}={value!r}; choose one of {list(CHOICES[path])}")
        out[key] = value
    return out


def _type_names(types: tuple) -> str:
    names = {int: "an integer", float: "a number", str: "a string", list: "a list",
             dict: "a mapping", type(None): "null"}
    return " or ".join(names.get(t, t.__name__) for t in types)


def validate(data: dict) -> dict:
    """A complete, checked config (defaults filled in) from a partial one."""
    cfg = _check(data, SCHEMA)
    if not cfg["game"]:
        raise ValueError("config: 'game' is required")
    from stichzoo import envs

    if cfg["game"] not in envs.GAMES:
        raise ValueError(f"config: game {cfg['game']!r} is unknown; known: {', '.join(envs.GAMES)}")
    from stichzoo.envs.core.game import build_options

    cls = envs.game_class(cfg["game"])
    build_options(cls.Options, cfg["game"], cfg["options"])  # clear error on a bad option
    from stichzoo.training.single_seat import OpponentPool

    OpponentPool(cfg["opponents"])  # clear error on a bad entry
    for spec in cfg["opponents"]:
        name = spec["policy"] if isinstance(spec, dict) else spec
        if name != "self":
            from stichzoo.training.evaluate import parse_policy_spec

            parse_policy_spec(name)
    if cfg["pretrain"]["steps"] > 0:
        from stichzoo.training.evaluate import parse_policy_spec

        parse_policy_spec(cfg["pretrain"]["teacher"])
    t = cfg["train"]
    if t["n_envs"] < 1 or t["n_steps"] < 2 or t["batch_size"] < 2:
        raise ValueError("config: train.n_envs >= 1, n_steps >= 2 and batch_size >= 2 needed")
    if not all(isinstance(x, int) and x > 0 for x in t["net_arch"]):
        raise ValueError("config: train.net_arch must be a list of positive integers")
    return cfg


def load(path: str, overrides: list[str] | None = None) -> dict:
    with open(path) as f:
        data = yaml.safe_load(f) or {}
    for item in overrides or []:
        apply_override(data, item)
    return validate(data)


def apply_override(data: dict, item: str) -> None:
    """``train.learning_rate=1e-4`` (value parsed as YAML) into ``data``."""
    key, eq, raw = item.partition("=")
    if not eq or not key:
        raise ValueError(f"override {item!r}: use KEY=VALUE, e.g. train.n_envs=2")
    value = yaml.safe_load(raw)
    if isinstance(value, str):
        with contextlib.suppress(ValueError):  # YAML 1.1 reads "1e-4" as a string
            value = float(value)
    parts = key.split(".")
    node = data
    for p in parts[:-1]:
        node = node.setdefault(p, {})
        if not isinstance(node, dict):
            raise ValueError(f"override {item!r}: {p} is not a section")
    node[parts[-1]] = value


def dump(cfg: dict) -> str:
    return yaml.safe_dump(cfg, sort_keys=False)
