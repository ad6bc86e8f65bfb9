"""What each YAML key means under RLlib, and the keys it cannot honour (no Ray needed).

The RLlib backend reads the same configs as the local trainers.  Every key of
the schema (:data:`stichzoo.training.config.SCHEMA`) is either mapped onto
RLlib (:data:`MAPPED`, with where it goes) or belongs to another trainer
(:data:`REFUSED`, with why).  A refused key is an error only when the config
sets it to something other than its default: a run folder's ``config.yaml``
holds every key with its default filled in, and ``train.vec_env: subproc``
restated in a file asks for nothing RLlib would silently drop, but
``train.vec_env: dummy`` does.  ``tests/test_rllib_keys.py`` checks that
the two tables cover the schema, so a new key cannot slip through unmapped,
and docs/cluster.md prints them.
"""

from __future__ import annotations

from typing import Any

#: key -> where it goes in RLlib's ``PPOConfig`` (or what the backend does with it)
MAPPED: dict[str, str] = {
    "game": "the env: `register_env('stichzoo/<game>-v0')`",
    "algo": "`rllib_ppo` (set by `--backend rllib`): RLlib's multi-agent PPO",
    "seed": "`debugging(seed=)`; env runners seed their envs from it",
    "options": "`env_config`: the game's rules, in every env",
    "env.reward": "`env_config`: per-seat reward, as in the AEC env",
    "env.reward_scale": "`env_config`",
    "opponents": "the seats beside the learner's, drawn per deal: `learner` and `self` "
                 "through the policy mapping, rule bots inside the env",
    "selfplay.snapshot_every": "learner samples between copies of the learner into a "
                               "frozen module (`snapshot_<k>`, not in `policies_to_train`)",
    "selfplay.keep": "frozen modules `snapshot_0..keep-1`, refilled in turn",
    "train.total_timesteps": "learner samples (decisions of the `learner` module)",
    "train.max_minutes": "wall-clock budget of the run (warm start included)",
    "train.n_envs": "`env_runners(num_envs_per_env_runner=)`",
    "train.n_steps": "`env_runners(rollout_fragment_length=)`; "
                     "`train_batch_size_per_learner` = n_steps x n_envs x "
                     "max(1, num_env_runners) / max(1, num_learners)",
    "train.learning_rate": "`training(lr=)`",
    "train.batch_size": "`training(minibatch_size=)`",
    "train.n_epochs": "`training(num_epochs=)`",
    "train.gamma": "`training(gamma=)`",
    "train.gae_lambda": "`training(lambda_=)`",
    "train.clip_range": "`training(clip_param=)`",
    "train.ent_coef": "`training(entropy_coeff=)`",
    "train.vf_coef": "`training(vf_loss_coeff=)`; `vf_clip_param` is off (inf), as in SB3",
    "train.max_grad_norm": "`training(grad_clip=, grad_clip_by='global_norm')`",
    "train.net_arch": "the RLModule's MLP: the same SB3 network, so `policy.pt` is 1:1",
    "train.heads": "the RLModule's MLP (`shared` or one policy trunk per `phase`)",
    "train.torch_threads": "torch threads of the driver (its learner and warm start)",
    "train.checkpoint_every": "learner samples between `algo.save_to_path(checkpoints/...)` "
                              "and `policy.pt`",
    "pretrain.teacher": "warm start in the driver before PPO (the teacher in every seat)",
    "pretrain.steps": "warm start: teacher decisions (0: none)",
    "pretrain.epochs": "warm start",
    "pretrain.batch_size": "warm start",
    "pretrain.learning_rate": "warm start",
    "pretrain.lr_schedule": "warm start",
    "rllib.num_env_runners": "`env_runners(num_env_runners=)`",
    "rllib.num_learners": "`learners(num_learners=)`",
    "rllib.num_cpus_per_env_runner": "`env_runners(num_cpus_per_env_runner=)`",
    "rllib.num_gpus_per_learner": "`learners(num_gpus_per_learner=)`",
    "rllib.custom_resources_per_env_runner": "`env_runners(custom_resources_per_env_runner=)`: "
                                             "env runners only on nodes with these resources",
    "eval.every": "learner samples between tournaments of `policy.pt` (in the driver)",
    "eval.games": "games per tournament",
    "eval.opponents": "tournament opponents",
    "eval.final_games": "`--final-eval` games, as for every trainer",
    "eval.workers": "tournament processes in the driver",
}

#: key -> why RLlib has no use for it (refused when set to anything but its default)
REFUSED: dict[str, str] = {
    "train.vec_env": "SB3's vector env; RLlib steps envs inside its env runners "
                     "(rllib.num_env_runners, train.n_envs)",
    "train.target_kl": "SB3's early stop of the epochs; RLlib's PPO has a KL penalty instead, "
                       "not the same thing",
    "train.lr_schedule": "the batch trainer's decay over the time budget; RLlib's PPO decays "
                         "by timesteps (its own `lr` schedule), not the same thing",
    "expert.teacher": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.steps": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.workers": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.games": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.epochs": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.batch_size": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.learning_rate": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.lr_schedule": "expert iteration is the batch trainer's (search labels before PPO)",
    "batch.games": "the batch trainer's; RLlib's rollout is train.n_steps x train.n_envs per "
                   "env runner",
    "batch.rollout_steps": "the batch trainer's; use train.n_steps",
    "batch.device": "the batch trainer's; use rllib.num_gpus_per_learner",
}

_RESERVED_RESOURCES = ("CPU", "GPU", "memory", "object_store_memory")


def _default(path: str) -> Any:
    from stichzoo.training.config import SCHEMA, lookup  # config imports this module

    return lookup(SCHEMA, path)[1]


def rollout_size(cfg: dict) -> int:
    """Env steps per training iteration (all learners together)."""
    t, r = cfg["train"], cfg["rllib"]
    return t["n_steps"] * t["n_envs"] * max(1, r["num_env_runners"])


def batch_per_learner(cfg: dict) -> int:
    """RLlib's ``train_batch_size_per_learner``: the rollout split over the learners."""
    return rollout_size(cfg) // max(1, cfg["rllib"]["num_learners"])


def check_rllib_config(cfg: dict) -> None:
    """Refuse, by name, what RLlib cannot honour; one ``ValueError`` line each."""
    from stichzoo.training.config import lookup

    for path, why in REFUSED.items():
        value, default = lookup(cfg, path), _default(path)
        if value != default:
            raise ValueError(f"config: {path}={value!r} has no meaning for algo: rllib_ppo "
                             f"({why}); remove it or set it to {default!r}")
    resources = cfg["rllib"]["custom_resources_per_env_runner"]
    reserved = [k for k in resources if k in _RESERVED_RESOURCES]
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


__all__ = ["MAPPED", "REFUSED", "batch_per_learner", "check_rllib_config", "rollout_size"]
