"""The RLModule: the SB3 network every other trainer uses, with illegal actions masked.

Why wrap the SB3 policy instead of building RLlib's default MLP: the module
*is* a ``MaskableActorCriticPolicy`` (or the phase-trunk variant,
``train.heads: phase``) built by :func:`stichzoo.policies.runtimes.networks.policy_setup`,
so its weights are the weights of ``policy.pt`` - saved with
:func:`stichzoo.policies.runtimes.torch_policy.save_policy`, exported by ``stichzoo
export``, loaded by ``ppo:path=`` - with no name mapping that could drift.
The forward pass is the batch trainer's (:func:`~stichzoo.training.trainers.ppo.logits_values`);
illegal logits are filled with -1e8 (as there), so RLlib's categorical
distribution gives them probability 0 and a finite entropy.

Observations arrive as ``{"observations", "action_mask"}`` (the keys of
RLlib's own ``ActionMaskingTorchRLModule``).  ``model_config`` names the game
and its options (the phase trunk needs the observation layout), ``net_arch``
and ``heads``.
"""

from __future__ import annotations

from typing import Any

from stichzoo.training.rllib import require_ray

require_ray()

import torch as th  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI  # noqa: E402
from ray.rllib.core.rl_module.torch import TorchRLModule  # noqa: E402

from stichzoo.training.rllib.env import MASK_KEY, OBS_KEY  # noqa: E402

MASKED_LOGIT = -1e8


def sb3_policy(game_name: str, options: dict, net_arch: list[int], heads: str):
    """The SB3 policy module the local trainers train, for this game (CPU, fresh weights)."""
    from stichzoo.training.config import game_of
    from stichzoo.training.trainers.ppo import build_network

    cfg = {"game": game_name, "options": options,
           "train": {"heads": heads, "net_arch": list(net_arch), "learning_rate": 0.0}}
    return build_network(cfg, game_of(cfg), "cpu")


class MaskedSB3Module(TorchRLModule, ValueFunctionAPI):
    """PPO-ready RLModule around an SB3 ``MaskableActorCriticPolicy``: masked logits, values."""

    def setup(self) -> None:
        mc = self.model_config
        self.policy = sb3_policy(mc["game"], mc.get("options", {}), mc["net_arch"],
                                 mc.get("heads", "shared"))
        self.policy.optimizer = None  # RLlib's learner owns the optimizer; SB3's is unused

    def _heads(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        policy = self.policy
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
        return policy.action_net(latent_pi), latent_vf

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits, latent_vf = self._heads(obs[OBS_KEY])
        masked = logits.masked_fill(obs[MASK_KEY] == 0, MASKED_LOGIT)
        return {Columns.ACTION_DIST_INPUTS: masked, Columns.EMBEDDINGS: latent_vf}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> th.Tensor:
        if embeddings is None:
            policy = self.policy
            embeddings = policy.mlp_extractor.forward_critic(
                policy.extract_features(batch[Columns.OBS][OBS_KEY]))
        return self.policy.value_net(embeddings).squeeze(-1)


__all__ = ["MASKED_LOGIT", "MaskedSB3Module", "sb3_policy"]
