"""What each YAML key means under RLlib, and the keys it cannot honour (no Ray needed).

The RLlib backend reads the same configs as the local trainers.  Every key of
the schema (:data:`stichzoo.training.config.SCHEMA`) is either mapped onto
RLlib (:data:`MAPPED`, with where it goes) or belongs to another trainer
(:data:`REFUSED`, with why).  A refused key is an error only when the config
sets it to something other than its default: a run folder's ``config.yaml``
holds every key with its default filled in, and ``train.vec_env: subproc``
restated in a file asks for nothing RLlib would silently drop, but
``train.vec_env: dummy`` does (:func:`stichzoo.training.config.check_rllib_config`
refuses it by name).  ``tests/training/test_rllib_keys.py`` checks that the two tables
cover the schema, so a new key cannot slip through unmapped, and
docs/cluster.md prints them.
"""

from __future__ import annotations

#: key -> where it goes in RLlib's ``PPOConfig`` (or what the backend does with it)
MAPPED: dict[str, str] = {
    "game": "the env: `register_env('stichzoo/<game>-v<N>')`",
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
    "train.critic": "the batch trainer's privileged critic (the value network reads the true "
                    "deal from its engine); RLlib's module has one input, the observation",
    "train.vec_env": "SB3's vector env; RLlib steps envs inside its env runners "
                     "(rllib.num_env_runners, train.n_envs)",
    "train.target_kl": "SB3's early stop of the epochs; RLlib's PPO has a KL penalty instead, "
                       "not the same thing",
    "train.lr_schedule": "the batch trainer's decay over the time budget; RLlib's PPO decays "
                         "by timesteps (its own `lr` schedule), not the same thing",
    "train.lr_clock": "the clock of the batch trainer's decay (train.lr_schedule)",
    "expert.teacher": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.steps": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.workers": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.games": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.epochs": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.batch_size": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.learning_rate": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.lr_schedule": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.targets": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.temperature": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.iterations": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.positions": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.start": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.prior": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.phases": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.opponent": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.opponent_seats": "expert iteration is the batch trainer's (search labels before PPO)",
    "expert.opponent_share": "expert iteration is the batch trainer's (search labels before PPO)",
    "batch.games": "the batch trainer's; RLlib's rollout is train.n_steps x train.n_envs per "
                   "env runner",
    "batch.rollout_steps": "the batch trainer's; use train.n_steps",
    "batch.device": "the batch trainer's; use rllib.num_gpus_per_learner",
}

#: Ray's own resources, which ``rllib.custom_resources_per_env_runner`` may not name
RESERVED_RESOURCES = ("CPU", "GPU", "memory", "object_store_memory")


def rollout_size(cfg: dict) -> int:
    """Env steps per training iteration (all learners together)."""
    t, r = cfg["train"], cfg["rllib"]
    return t["n_steps"] * t["n_envs"] * max(1, r["num_env_runners"])


def batch_per_learner(cfg: dict) -> int:
    """RLlib's ``train_batch_size_per_learner``: the rollout split over the learners."""
    return rollout_size(cfg) // max(1, cfg["rllib"]["num_learners"])


def __getattr__(name: str):
    if name == "check_rllib_config":  # validation lives with the rest of the config's checks
        raise ImportError("check_rllib_config moved to stichzoo.training.config.check_rllib_config")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MAPPED", "REFUSED", "RESERVED_RESOURCES", "batch_per_learner", "rollout_size"]
