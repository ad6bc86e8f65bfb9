"""A stichzoo config as RLlib's ``PPOConfig`` (the key mapping: :mod:`.keys`, docs/cluster.md).

One shared learned module, ``learner``, plays every learner seat and is the
only one in ``policies_to_train``.  The league's frozen snapshots are modules
``snapshot_0..keep-1`` of the same class, never trained: the driver copies
the learner's weights into one of them every ``selfplay.snapshot_every``
learner samples and RLlib ships them to every env runner on every node, so
no snapshot file has to exist on another machine.  Rule bots (heuristic,
PIMC, random, shipped bots) are played inside the env
(:mod:`stichzoo.training.rllib.env` says why).

The loss is PPO's as the local trainers have it: clipped surrogate, value
loss without clipping (``vf_clip_param`` inf), entropy bonus, gradient norm
clipped, no KL penalty; the learner (:mod:`.learner`) also logs the update's
approximate KL and clip fraction, as the local trainers do.  One difference
stays: RLlib standardises advantages over the whole train batch, SB3 per
minibatch.
"""

from __future__ import annotations

from stichzoo.training.rllib import require_ray

require_ray()

from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402

from stichzoo.training.rllib.callbacks import StichzooMetrics  # noqa: E402
from stichzoo.training.rllib.env import (  # noqa: E402
    LEARNER,
    env_config,
    env_name,
    module_for_agent,
    observation_space,
    register_games,
    snapshot_module,
)
from stichzoo.training.rllib.keys import batch_per_learner  # noqa: E402
from stichzoo.training.rllib.learner import StichzooPPOLearner  # noqa: E402
from stichzoo.training.rllib.module import MaskedSB3Module  # noqa: E402


def module_ids(cfg: dict) -> list[str]:
    return [LEARNER] + [snapshot_module(k) for k in range(cfg["selfplay"]["keep"])]


def module_spec(cfg: dict, game) -> MultiRLModuleSpec:
    """The learner and its snapshot slots: one class, one network shape, spaces given."""
    import gymnasium as gym

    t = cfg["train"]
    model_config = {"game": cfg["game"], "options": dict(cfg["options"]),
                    "net_arch": list(t["net_arch"]), "heads": t["heads"]}
    spec = {mid: RLModuleSpec(module_class=MaskedSB3Module,
                              observation_space=observation_space(game),
                              action_space=gym.spaces.Discrete(game.num_actions),
                              model_config=model_config)
            for mid in module_ids(cfg)}
    return MultiRLModuleSpec(rl_module_specs=spec)


def ppo_config(cfg: dict) -> PPOConfig:
    """RLlib's multi-agent PPO with action masking for this (checked) config."""
    from stichzoo.training.config import game_of

    register_games()
    game = game_of(cfg)
    t, r = cfg["train"], cfg["rllib"]
    return (
        PPOConfig()
        # (RLlib's env check steps with unmasked random actions: the env ends such a
        # game with a penalty, as PettingZoo's classic envs do, so the check passes)
        .environment(env=env_name(cfg["game"]), env_config=env_config(cfg))
        .framework("torch")
        .env_runners(num_env_runners=r["num_env_runners"],
                     num_envs_per_env_runner=t["n_envs"],
                     rollout_fragment_length=t["n_steps"],
                     num_cpus_per_env_runner=r["num_cpus_per_env_runner"],
                     custom_resources_per_env_runner=dict(r["custom_resources_per_env_runner"]))
        .learners(num_learners=r["num_learners"],
                  num_gpus_per_learner=r["num_gpus_per_learner"])
        .training(lr=t["learning_rate"], train_batch_size_per_learner=batch_per_learner(cfg),
                  minibatch_size=t["batch_size"], num_epochs=t["n_epochs"], gamma=t["gamma"],
                  lambda_=t["gae_lambda"], clip_param=t["clip_range"],
                  entropy_coeff=t["ent_coef"], vf_loss_coeff=t["vf_coef"],
                  vf_clip_param=float("inf"), grad_clip=t["max_grad_norm"],
                  grad_clip_by="global_norm", use_kl_loss=False, kl_coeff=0.0,
                  learner_class=StichzooPPOLearner)
        .multi_agent(policies=set(module_ids(cfg)), policy_mapping_fn=module_for_agent,
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=module_spec(cfg, game))
        .callbacks(StichzooMetrics)
        .debugging(seed=cfg["seed"], log_level="ERROR")
    )


__all__ = ["module_ids", "module_spec", "ppo_config"]
