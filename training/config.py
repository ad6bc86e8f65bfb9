"""Training configs: one YAML file per game, every knob in the file, checked strictly.

A typo in a config silently training with a default is the worst kind of
bug in RL, so every key is known here with its type and default; an
unknown key or a wrong type is an error that names the key.  Every number
has a range too (:data:`RANGES`: ``0 < gamma <= 1``, ``total_timesteps >= 1``,
``batch_size <= n_steps * n_envs``...), checked when the config is read, so a
config that could only train nothing, never stop or crash minutes in is
refused before a run folder exists.  CLI overrides
(``--set train.learning_rate=1e-4``) go through the same checks.  Every error
is a ``ValueError`` whose message is one line naming the key; ``stichzoo
train`` prints it as ``stichzoo: error: ...`` and exits with status 2.

A variant recipe says ``extends: <parent>`` and states only what differs
(:func:`read`): a copy of its parent with three values changed used to miss
every later fix to the parent, and hid the three values among fifty.
Mappings merge key by key, lists and numbers replace, and the strict checks
apply to the merged result, so a variant is checked exactly as if it were
written out in full.  The model configs' loaders (:func:`load_flat`,
training/fit/bid_model.py) read their files the same way.
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Callable
from typing import Any

import yaml

from stichzoo.envs.core.rewards import REWARD_MODES
from stichzoo.policies.runtimes.onnx_policy import bot_folder
from stichzoo.training.rllib.keys import REFUSED, RESERVED_RESOURCES, batch_per_learner

SEED_MAX = 2**31 - 1  # numpy and SB3 seed with 32-bit integers; evaluation adds offsets

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
        # algo batch_ppo: constant, or linear / cosine decay to 0 over this invocation's
        # budget (max_minutes or total_timesteps, whichever ends first; a resume decays anew)
        "lr_schedule": (str, "constant"),
        # what the decay's clock reads: budget (time or samples, whichever is further
        # along) or samples alone - the one that makes a run that ends by its samples
        # repeat to the last bit (the wall clock differs from run to run)
        "lr_clock": (str, "budget"),
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
        # algo batch_ppo: what the value network reads - the seat's observation, or also the
        # hidden part of the deal (privileged: training/lab/privileged.py); the actor never does
        "critic": (str, "observation"),
        "torch_threads": (int, 1),
        "checkpoint_every": (int, 50_000),
    },
    "pretrain": {  # imitate a teacher before PPO (training/trainers/pretrain.py); steps 0: off
        "teacher": (str, "heuristic"),
        "steps": (int, 0),
        "epochs": (int, 3),
        "batch_size": (int, 512),
        "learning_rate": ((int, float), 1e-3),
        # constant, or cosine: decay to 0 over the warm start (higher start rates fit better)
        "lr_schedule": (str, "constant"),
    },
    # algo batch_ppo only: expert iteration - after the warm start, imitate a search bot's
    # choices (labelled in parallel processes) before PPO; steps 0: off
    "expert": {
        "teacher": (str, "pimc"),
        "steps": (int, 0),  # labelled decisions, every seat of the teacher's own games
        "workers": (int, 2),  # labelling processes
        "games": (int, 8),  # games per process stepped together
        "epochs": (int, 4),
        "batch_size": (int, 512),
        "learning_rate": ((int, float), 1e-3),
        "lr_schedule": (str, "cosine"),
        # choice: the search's action one-hot; values: a soft target from its action values,
        # exp((v - best) / (temperature * the decision's standard error)); improve: the
        # network's own policy times that (training/trainers/distil.py)
        "targets": (str, "choice"),
        "temperature": ((int, float), 1.0),
        # rounds of label, aggregate, fit (training/trainers/expert.py); later rounds' games are
        # played by the teacher itself or by the learner (positions: learner - DAgger)
        "iterations": (int, 1),
        "positions": (str, "teacher"),
        # a bot (bot:<game> or a folder): start from its network (training/trainers/from_bot.py)
        "start": (str, ""),
        # targets: improve - whose policy the search improves: the network as it stands
        # (current) or the start's (start: a fixed anchor)
        "prior": (str, "current"),
        # targets: improve - the phases whose decisions the teacher labels (e.g. [card_draft]);
        # the others keep the prior's own policy as their target (an anchor, and no teacher
        # time spent on them); empty: every phase
        "phases": (list, []),
        # a policy spec: a share opponent_share of the labelled games seat it in opponent_seats
        # random seats, whose moves are neither labelled nor fitted - positions against a
        # table unlike the learner's own (training/trainers/labels.py); "": self-play tables only;
        # a list of specs: each such game seats one of them, drawn per game (a league)
        "opponent": ((str, list), ""),
        "opponent_seats": (int, 1),
        "opponent_share": ((int, float), 1.0),
    },
    "batch": {  # algo batch_ppo only (training/trainers/ppo.py)
        "games": (int, 128),  # games stepped together by the batch engine
        "rollout_steps": (int, 64),  # engine steps per rollout (each a decision in every game)
        "device": (str, "cpu"),  # cpu | cuda (the network; simulation stays on the CPU)
    },
    "rllib": {  # algo rllib_ppo only (training/rllib/, docs/cluster.md): what a Ray cluster runs
        "num_env_runners": (int, 2),  # sampling processes (anywhere in the cluster); 0: driver
        "num_learners": (int, 0),  # learner processes; 0: the learner runs in the driver
        "num_cpus_per_env_runner": ((int, float), 1),
        "num_gpus_per_learner": ((int, float), 0),
        "custom_resources_per_env_runner": (dict, {}),  # e.g. {sampler: 1}: only such nodes
    },
    "eval": {
        "every": (int, 50_000),  # steps between evaluations; 0: only at the end
        "games": (int, 200),
        "opponents": (list, ["random", "heuristic"]),
        "final_games": (int, 1000),
        "workers": (int, 0),
    },
}

#: the policies that rate every action (``values``): a soft target needs one
SEARCHES = ("pimc", "search")

CHOICES = {
    "algo": ("maskable_ppo", "batch_ppo", "rllib_ppo"),
    "batch.device": ("cpu", "cuda"),
    "env.reward": REWARD_MODES,
    "train.vec_env": ("subproc", "dummy"),
    "train.heads": ("shared", "phase"),
    "train.lr_schedule": ("constant", "linear", "cosine"),
    "train.lr_clock": ("budget", "samples"),
    "pretrain.lr_schedule": ("constant", "cosine"),
    "expert.lr_schedule": ("constant", "cosine"),
    "expert.targets": ("choice", "values", "improve"),
    "expert.positions": ("teacher", "learner"),
    "expert.prior": ("current", "start"),
}


def _finite(v: float) -> bool:
    return math.isfinite(v)


#: key -> (test, what the value must be).  Every number in the schema has a
#: range here, so a value that would train nothing (total_timesteps 0), never
#: stop (max_minutes inf) or blow up minutes later (gamma 2: NaN returns in the
#: warm start) is refused when the config is read, before any run folder exists.
RANGES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "seed": (lambda v: 0 <= v <= SEED_MAX, f"an integer in 0..{SEED_MAX}"),
    "env.reward_scale": (lambda v: _finite(v) and v > 0, "a finite number > 0"),
    "selfplay.snapshot_every": (lambda v: v >= 0, "an integer >= 0 (0: no snapshots)"),
    "selfplay.keep": (lambda v: v >= 1, "an integer >= 1 (snapshots kept in the pool)"),
    "train.total_timesteps": (lambda v: v >= 1, "an integer >= 1"),
    "train.max_minutes": (lambda v: _finite(v) and v > 0,
                          "a finite number of minutes > 0 (the run's time budget)"),
    "train.n_envs": (lambda v: v >= 1, "an integer >= 1"),
    "train.learning_rate": (lambda v: _finite(v) and v > 0, "a finite number > 0"),
    "train.n_steps": (lambda v: v >= 2, "an integer >= 2 (steps per env per rollout)"),
    "train.batch_size": (lambda v: v >= 2, "an integer >= 2 (PPO normalises advantages "
                                           "per minibatch)"),
    "train.n_epochs": (lambda v: v >= 1, "an integer >= 1"),
    "train.gamma": (lambda v: 0 < v <= 1, "a discount in (0, 1]"),
    "train.gae_lambda": (lambda v: 0 <= v <= 1, "a number in [0, 1]"),
    "train.clip_range": (lambda v: _finite(v) and v > 0, "a finite number > 0"),
    "train.ent_coef": (lambda v: _finite(v) and v >= 0, "a finite number >= 0"),
    "train.vf_coef": (lambda v: _finite(v) and v >= 0, "a finite number >= 0"),
    "train.max_grad_norm": (lambda v: _finite(v) and v > 0, "a finite number > 0"),
    "train.target_kl": (lambda v: v is None or (_finite(v) and v > 0),
                        "null (no early stop) or a finite number > 0"),
    "train.net_arch": (lambda v: all(isinstance(x, int) and not isinstance(x, bool) and x > 0
                                     for x in v), "a list of positive integers (layer sizes)"),
    "train.torch_threads": (lambda v: v >= 1, "an integer >= 1"),
    "train.checkpoint_every": (lambda v: v >= 1, "an integer >= 1 (steps between checkpoints)"),
    "pretrain.steps": (lambda v: v >= 0, "an integer >= 0 (0: no warm start)"),
    "pretrain.epochs": (lambda v: v >= 1, "an integer >= 1"),
    "pretrain.batch_size": (lambda v: v >= 1, "an integer >= 1"),
    "pretrain.learning_rate": (lambda v: _finite(v) and v > 0, "a finite number > 0"),
    "expert.steps": (lambda v: v >= 0, "an integer >= 0 (0: no expert iteration)"),
    "expert.workers": (lambda v: v >= 1, "an integer >= 1 (labelling processes)"),
    "expert.games": (lambda v: v >= 1, "an integer >= 1 (games per process)"),
    "expert.epochs": (lambda v: v >= 1, "an integer >= 1"),
    "expert.batch_size": (lambda v: v >= 1, "an integer >= 1"),
    "expert.learning_rate": (lambda v: _finite(v) and v > 0, "a finite number > 0"),
    "expert.temperature": (lambda v: _finite(v) and v > 0, "a finite number > 0"),
    "expert.iterations": (lambda v: v >= 1, "an integer >= 1"),
    "expert.opponent_seats": (lambda v: v >= 1, "an integer >= 1 (seats the opponent takes)"),
    "expert.opponent_share": (lambda v: 0 <= v <= 1, "a share in [0, 1] (of the games)"),
    "batch.games": (lambda v: v >= 1, "an integer >= 1 (games stepped together)"),
    "batch.rollout_steps": (lambda v: v >= 2, "an integer >= 2 (engine steps per rollout)"),
    "rllib.num_env_runners": (lambda v: v >= 0, "an integer >= 0 (0: sample in the driver)"),
    "rllib.num_learners": (lambda v: v >= 0, "an integer >= 0 (0: learn in the driver)"),
    "rllib.num_cpus_per_env_runner": (lambda v: _finite(v) and v > 0, "a finite number > 0"),
    "rllib.num_gpus_per_learner": (lambda v: _finite(v) and v >= 0, "a finite number >= 0"),
    "rllib.custom_resources_per_env_runner": (
        lambda v: all(isinstance(k, str) and not isinstance(x, bool) and isinstance(x, (int, float))
                      and _finite(x) and x > 0 for k, x in v.items()),
        "a mapping of Ray resource names to amounts > 0, e.g. {sampler: 1}"),
    "eval.every": (lambda v: v >= 0, "an integer >= 0 (0: no evaluation during training)"),
    "eval.games": (lambda v: v >= 1, "an integer >= 1"),
    "eval.opponents": (lambda v: all(isinstance(x, str) for x in v),
                       "a list of policy specs (strings, e.g. heuristic)"),
    "eval.final_games": (lambda v: v >= 1, "an integer >= 1"),
    "eval.workers": (lambda v: v >= 0, "an integer >= 0 (0: all cores)"),
}
#: checked only where the key is used: eval.games only with evaluations during training
_USED_WHEN: dict[str, Callable[[dict], bool]] = {
    "eval.games": lambda cfg: cfg["eval"]["every"] > 0,
}


def _defaults(schema: dict) -> dict:
    out = {}
    for key, spec in schema.items():
        out[key] = _defaults(spec) if isinstance(spec, dict) else copy.deepcopy(spec[1])
    return out


def _coerce(value: Any, types: tuple) -> Any:
    """Numbers YAML reads as strings (``1e-4``) or as floats (``3e6`` for an integer).

    PyYAML follows YAML 1.1, where ``1e-4`` (no dot) is a string and ``3e6``
    for ``total_timesteps`` a float; refusing those would punish the natural
    spelling.  Only exact conversions happen: ``2.5`` stays an error for an
    integer key, ``"many"`` for any number.
    """
    if isinstance(value, (bool, *types)):
        return value
    if isinstance(value, str) and (float in types or int in types):
        try:
            value = float(value)
        except ValueError:
            return value
        if float in types:
            return value
    if isinstance(value, float) and int in types and value.is_integer():
        return int(value)
    return value


def _check(data: Any, schema: dict, prefix: str = "") -> dict:
    if not isinstance(data, dict):
        where = f"section {prefix.rstrip('.')}" if prefix else "file"
        got = "null (an empty section)" if data is None else f"{type(data).__name__} {data!r}"
        raise ValueError(f"config: the {where} must be a mapping of keys, got {got}"
                         + ("; delete the line to use the defaults" if data is None and prefix
                            else ""))
    out = _defaults(schema)
    for key, value in data.items():
        path = f"{prefix}{key}"
        if key not in schema:
            raise ValueError(f"config: unknown key {path!r}; known keys here: "
                             f"{', '.join(schema)}")
        spec = schema[key]
        if isinstance(spec, dict):
            out[key] = _check(value, spec, prefix=f"{path}.")
            continue
        types = spec[0] if isinstance(spec[0], tuple) else (spec[0],)
        value = _coerce(value, types)
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


def lookup(cfg: dict, path: str) -> Any:
    """``cfg["train"]["batch_size"]`` for ``"train.batch_size"`` (a config or the schema)."""
    node = cfg
    for part in path.split("."):
        node = node[part]
    return node


def _check_ranges(cfg: dict) -> None:
    for path, (ok, must) in RANGES.items():
        if path in _USED_WHEN and not _USED_WHEN[path](cfg):
            continue
        value = lookup(cfg, path)
        if not ok(value):
            raise ValueError(f"config: {path}={value!r} is out of range; it must be {must}")
    t = cfg["train"]
    rollout = t["n_steps"] * t["n_envs"]
    if cfg["algo"] == "maskable_ppo" and t["batch_size"] > rollout:
        raise ValueError(f"config: train.batch_size={t['batch_size']} is larger than a rollout "
                         f"(train.n_steps * train.n_envs = {rollout}); it must be <= {rollout}")


def _check_opponents(opponents: list) -> None:
    """Each entry a policy name or {policy, weight}; some non-self entry can be drawn at once."""
    drawable = False
    for i, entry in enumerate(opponents):
        where = f"config: opponents[{i}]"
        if isinstance(entry, dict):
            name, weight = entry.get("policy"), entry.get("weight", 1.0)
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) \
                    or not math.isfinite(weight) or weight < 0:
                raise ValueError(f"{where}.weight={weight!r} must be a finite number >= 0")
        else:
            name, weight = entry, 1.0
        if not isinstance(name, str):
            raise ValueError(f"{where}: use a policy name or {{policy: NAME, weight: W}}, "
                             f"got {entry!r}")
        drawable = drawable or (name != "self" and weight > 0)
    if opponents and not drawable:
        raise ValueError("config: opponents needs an entry other than 'self' with weight > 0 "
                         "(the learner's snapshots exist only once training has run)")


def opponent_specs(opponent: str | list) -> list[str]:
    """``expert.opponent`` as a list of policy specs: one spec, or a league of them.

    A list must name at least one spec, each a string; a league's games each
    seat one of its specs, drawn per game (training/trainers/labels.py).
    """
    specs = [opponent] if isinstance(opponent, str) else list(opponent)
    if not specs or not all(isinstance(x, str) and x for x in specs):
        raise ValueError(f"config: expert.opponent={opponent!r}: a policy spec, or a list of "
                         f"policy specs (non-empty strings), e.g. [pimc, bot]")
    return specs


def _check_expert_phases(cfg: dict, phases: list) -> None:
    """``expert.phases``: phases of the config's game, with ``targets: improve`` (the other
    phases' targets are the prior's own policy, which only ``improve`` has)."""
    from stichzoo.policies.base import check_phases

    if cfg["expert"]["targets"] != "improve":
        raise ValueError(f"config: expert.phases={phases} needs expert.targets: improve (the "
                         f"other phases keep the prior's policy), not "
                         f"{cfg['expert']['targets']!r}")
    try:
        check_phases(game_of(cfg), phases)
    except ValueError as e:
        raise ValueError(f"config: expert.phases: {e}") from None


def validate(data: dict) -> dict:
    """A complete, checked config (defaults filled in) from a partial one.

    Everything a run would trip over later is checked here - types, choices,
    every number's range, the game's options and every policy spec - so a
    refused config fails in a second with one line naming the key, before
    a run folder, an env or a network exists.
    """
    cfg = _check(data, SCHEMA)
    if not cfg["game"]:
        raise ValueError("config: 'game' is required")
    from stichzoo import envs

    if cfg["game"] not in envs.GAMES:
        raise ValueError(f"config: game {cfg['game']!r} is unknown; known: {', '.join(envs.GAMES)}")
    _check_ranges(cfg)
    from stichzoo.envs.core.game import build_options

    cls = envs.game_class(cfg["game"])
    try:
        options = build_options(cls.Options, cfg["game"], cfg["options"])  # clear error if bad
    except (TypeError, ValueError) as e:
        raise ValueError(f"config: options: {e}") from None
    _check_opponents(cfg["opponents"])
    from stichzoo.training.gym.single_seat import OpponentPool

    OpponentPool(cfg["opponents"], keep=cfg["selfplay"]["keep"])  # clear error on a bad entry
    from stichzoo.policies.specs import parse_policy_spec

    for i, spec in enumerate(cfg["opponents"]):
        name = spec["policy"] if isinstance(spec, dict) else spec
        if name == "learner" and cfg["algo"] not in ("batch_ppo", "rllib_ppo"):
            raise ValueError(f"config: opponents[{i}] 'learner' (the learner in more seats) "
                             f"needs algo: batch_ppo or rllib_ppo")
        if name not in ("self", "learner"):
            parse_policy_spec(name)
    if cfg["pretrain"]["steps"] > 0:
        parse_policy_spec(cfg["pretrain"]["teacher"])
    if cfg["train"]["lr_schedule"] != "constant" and cfg["algo"] == "maskable_ppo":
        raise ValueError(f"config: train.lr_schedule={cfg['train']['lr_schedule']!r} (decay over "
                         f"the time budget) needs algo: batch_ppo, not maskable_ppo")
    if cfg["train"]["lr_clock"] != "budget" and cfg["algo"] == "maskable_ppo":
        raise ValueError(f"config: train.lr_clock={cfg['train']['lr_clock']!r} (what a decaying "
                         f"step counts) needs algo: batch_ppo, not maskable_ppo, whose step is "
                         f"constant")
    # train.critic: observation, or a critic a module registered (the lab's, when run as
    # python -m stichzoo.training.lab: training/trainers/critics.py)
    from stichzoo.training.trainers.critics import check_critic

    check_critic(cfg["train"]["critic"], cfg["algo"])
    if cfg["train"]["critic"] != "observation" and cfg["algo"] == "maskable_ppo":
        raise ValueError(f"config: train.critic={cfg['train']['critic']!r} (a value network that "
                         f"sees the whole deal) needs algo: batch_ppo, not maskable_ppo: SB3's "
                         f"policy has one input, the seat's observation")
    if cfg["expert"]["steps"] > 0:
        if cfg["algo"] == "maskable_ppo":  # rllib_ppo: refused below, as its other keys
            raise ValueError(f"config: expert.steps={cfg['expert']['steps']} (expert iteration) "
                             f"needs algo: batch_ppo, not {cfg['algo']}")
        teacher, _ = parse_policy_spec(cfg["expert"]["teacher"])
        phases = cfg["expert"]["phases"]
        if phases:
            _check_expert_phases(cfg, phases)
        if cfg["expert"]["opponent"]:
            for spec in opponent_specs(cfg["expert"]["opponent"]):
                parse_policy_spec(spec)
            seats = cfg["expert"]["opponent_seats"]
            players = options.num_players
            if seats >= players:
                raise ValueError(f"config: expert.opponent_seats={seats} leaves no seat to "
                                 f"label at a table of {players}; it must be 1 to "
                                 f"{players - 1}")
        # a rule bot rates no actions: it may teach only its choice, or improve named phases
        targets = cfg["expert"]["targets"]
        if teacher not in SEARCHES and (targets == "values"
                                        or (targets == "improve" and not phases)):
            raise ValueError(f"config: expert.targets={cfg['expert']['targets']} needs a "
                             f"search teacher "
                             f"({', '.join(SEARCHES)}), not {cfg['expert']['teacher']!r}: "
                             f"only a search rates every action (a rule bot may teach "
                             f"targets: improve in named expert.phases)")
    start = cfg["expert"]["start"]
    if start:
        if cfg["algo"] == "maskable_ppo":  # rllib_ppo: refused below, as its other keys
            raise ValueError(f"config: expert.start={start!r} needs algo: batch_ppo, "
                             f"not {cfg['algo']}")
        try:
            bot_folder(start)
        except ValueError as e:
            raise ValueError(f"config: expert.start: {e}") from None
    for spec in cfg["eval"]["opponents"]:
        parse_policy_spec(spec)
    if cfg["eval"]["every"] > 0 and not cfg["eval"]["opponents"]:
        raise ValueError("config: eval.opponents is empty but eval.every > 0; name at least "
                         "one opponent or set eval.every: 0")
    if cfg["algo"] == "rllib_ppo":  # keys RLlib cannot honour, refused by name (no Ray needed)
        check_rllib_config(cfg)
    return cfg


def check_rllib_config(cfg: dict) -> None:
    """Refuse, by name, what RLlib cannot honour (:data:`.rllib.keys.REFUSED`); one line each."""
    for path, why in REFUSED.items():
        value, default = lookup(cfg, path), lookup(SCHEMA, path)[1]
        if value != default:
            raise ValueError(f"config: {path}={value!r} has no meaning for algo: rllib_ppo "
                             f"({why}); remove it or set it to {default!r}")
    resources = cfg["rllib"]["custom_resources_per_env_runner"]
    reserved = [k for k in resources if k in RESERVED_RESOURCES]
    if reserved:
        raise ValueError(f"config: rllib.custom_resources_per_env_runner names Ray's own "
                         f"resource {reserved[0]!r}; use rllib.num_cpus_per_env_runner (or a "
                         f"custom resource given to `ray start --resources`)")
    per_learner = batch_per_learner(cfg)
    if cfg["train"]["batch_size"] > per_learner:
        raise ValueError(f"config: train.batch_size={cfg['train']['batch_size']} is larger than "
                         f"a learner's share of the rollout (train.n_steps * train.n_envs * "
                         f"max(1, rllib.num_env_runners) / max(1, rllib.num_learners) = "
                         f"{per_learner}); it must be <= {per_learner}")


def game_of(cfg: dict):
    """The game a (checked) config names, under its options."""
    from stichzoo import envs
    from stichzoo.envs.core.game import build_options

    cls = envs.game_class(cfg["game"])
    return cls(build_options(cls.Options, cfg["game"], cfg["options"]))


def load(path: str, overrides: list[str] | None = None) -> dict:
    """Read (``extends:`` merged in), override and validate a config file; every failure is
    one ``ValueError`` line."""
    data = read(path)
    for item in overrides or []:
        apply_override(data, item)
    return validate(data)


#: the key that names a config's parent (:func:`read`); no schema knows it
EXTENDS = "extends"


def read(path: str) -> dict:
    """The mapping the config file at ``path`` states, its ``extends:`` parents merged under it.

    ``extends: NAME`` names the parent: ``NAME.yaml`` (ending in ``.yaml``) is a file
    relative to this one's folder, any other name a packaged recipe (``wizard``,
    ``sb3/hoch_tief``, ``bid_model/wizard``: :func:`stichzoo.configs.recipe`), which still
    resolves when a script copies the file elsewhere.  The parent is read the same way
    (it may extend another), then this file merged over it by :func:`merge`.  A missing
    parent, a parent that is not a config and a cycle are errors naming the files;
    nothing is checked against a schema here - the caller checks the merged result.
    """
    return _read(path, [])


def parents(path: str) -> list[str]:
    """The files the config at ``path`` extends, nearest first (``[]``: it extends none).

    Errors as :func:`read`'s (which runs first): a missing parent or a cycle names the files.
    """
    read(path)
    out: list[str] = []
    while True:
        with open(path) as f:
            data = yaml.safe_load(f) or {}
        if EXTENDS not in data:
            return out
        path = _parent(path, data[EXTENDS])
        out.append(path)


def _read(path: str, chain: list[str]) -> dict:
    """:func:`read`, ``chain`` the files whose parent ``path`` is (the cycle check)."""
    where = f"config file {chain[-1]}: extends: " if chain else "config file "
    if any(os.path.realpath(p) == os.path.realpath(path) for p in chain):
        raise ValueError(f"config file {chain[0]}: extends: a cycle, "
                         f"{' -> '.join([*chain, path])}")
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        raise ValueError(f"{where}{path} does not exist") from None
    except OSError as e:
        raise ValueError(f"{where}{path}: {e.strerror or e}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ValueError(f"{where}{path} is not valid YAML: {_yaml_problem(e)}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"{where}{path} must be a mapping of keys (game: ..., train: ...), "
                         f"got {type(data).__name__}")
    if EXTENDS not in data:
        return data
    parent = data.pop(EXTENDS)
    return merge(_read(_parent(path, parent), [*chain, path]), data)


def _parent(path: str, name: Any) -> str:
    """The file ``extends: name`` in the config file ``path`` names (:func:`read`)."""
    from stichzoo import configs

    if not isinstance(name, str) or not name:
        raise ValueError(f"config file {path}: extends: {name!r}; name one config, a file "
                         f"relative to this one (base.yaml) or a packaged recipe (wizard)")
    if name.endswith(".yaml"):
        return os.path.normpath(os.path.join(os.path.dirname(path), name))
    packaged = configs.recipe(name)
    if packaged is None:
        raise ValueError(f"config file {path}: extends: {name!r} is no packaged recipe (a "
                         f"file relative to this one ends in .yaml); they are: "
                         f"{', '.join(configs.recipes())}")
    return str(packaged)


def merge(base: dict, over: dict) -> dict:
    """``over`` merged over ``base``: a mapping in both merges key by key, anything else in
    ``over`` (a list, a number, null) replaces the parent's value whole.

    Lists replace because a list is one value (an opponent pool, ``net_arch``): merging
    them item by item would make a variant's pool its parent's with pieces patched in.
    The parent's keys keep their order, new ones follow (a run folder's config.yaml
    keeps it).
    """
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _yaml_problem(e: yaml.YAMLError) -> str:
    """PyYAML's multi-line message as one line: what is wrong, and where."""
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    if mark is not None:
        return f"{problem} at line {mark.line + 1}, column {mark.column + 1}"
    return " ".join(str(e).split())


def apply_override(data: dict, item: str) -> None:
    """``train.learning_rate=1e-4`` (value parsed as YAML) into ``data``.

    Numbers that YAML reads as strings are converted by :func:`validate`,
    which knows each key's type, so ``--set pretrain.teacher=...`` stays a string.
    """
    key, eq, raw = item.partition("=")
    parts = key.split(".")
    if not eq or not all(parts):
        raise ValueError(f"override {item!r}: use KEY=VALUE, e.g. train.n_envs=2")
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError as e:
        raise ValueError(f"override {item!r}: the value is not valid YAML: "
                         f"{_yaml_problem(e)}") from None
    node = data
    for i, p in enumerate(parts[:-1]):
        node = node.setdefault(p, {})
        if not isinstance(node, dict):
            raise ValueError(f"override {item!r}: {'.'.join(parts[:i + 1])} is not a section "
                             f"(it is {node!r})")
    node[parts[-1]] = value


def dump(cfg: dict) -> str:
    """The config as YAML, in schema order, as a run folder's ``config.yaml`` keeps it."""
    return yaml.safe_dump(cfg, sort_keys=False)


def load_flat(path: str, overrides: dict | None, schema: dict[str, tuple[Any, Any]],
              what: str) -> dict:
    """A flat model config (``stichzoo fit``'s, the lab's fitters'): the file at ``path``
    with ``overrides``, every key checked against ``schema`` (key -> (type, default)) and
    the missing ones defaulted; ValueError naming an unknown or mistyped key.  The file
    may extend another (:func:`read`)."""
    raw = read(path)
    raw.update(overrides or {})
    cfg = {}
    for key, value in raw.items():
        if key not in schema:
            raise ValueError(f"{what} config: unknown key {key!r} (known: {', '.join(schema)})")
        kind, _ = schema[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ValueError(f"{what} config: {key}={value!r} has the wrong type")
        cfg[key] = value
    for key, (_, default) in schema.items():
        cfg.setdefault(key, default)
    return cfg
