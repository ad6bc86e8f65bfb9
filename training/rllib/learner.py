"""RLlib's PPO learner, also logging what the other trainers log about each update.

RLlib's PPO reports the policy and value losses, the entropy and the
explained variance, but not the two numbers that say how far an update
moved the policy: ``approx_kl`` (the mean of ``(ratio - 1) - log ratio``,
the estimator SB3 and the batch trainer log) and ``clip_fraction`` (the share
of samples whose probability ratio left ``[1 - clip, 1 + clip]``).  This
learner computes both from the same forward pass, without gradients, so
``losses/approx_kl`` and ``losses/clip_fraction`` mean the same under every
trainer (docs/training.md).  The loss itself is RLlib's, unchanged.
"""

from __future__ import annotations

from typing import Any

from stichzoo.training.rllib import require_ray

require_ray()

import torch  # noqa: E402
from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

APPROX_KL = "approx_kl"
CLIP_FRACTION = "clip_fraction"


class StichzooPPOLearner(PPOTorchLearner):
    """PPO's torch learner plus ``approx_kl`` and ``clip_fraction`` per module."""

    def compute_loss_for_module(self, *, module_id: str, config: Any, batch: dict[str, Any],
                                fwd_out: dict[str, Any]) -> torch.Tensor:
        loss = super().compute_loss_for_module(module_id=module_id, config=config,
                                               batch=batch, fwd_out=fwd_out)
        with torch.no_grad():
            module = self.module[module_id].unwrapped()
            dist = module.get_train_action_dist_cls().from_logits(
                fwd_out[Columns.ACTION_DIST_INPUTS])
            log_ratio = dist.logp(batch[Columns.ACTIONS]) - batch[Columns.ACTION_LOGP]
            ratio = torch.exp(log_ratio)
            kl = (ratio - 1) - log_ratio
            clipped = ((ratio - 1).abs() > config.clip_param).float()
            if Columns.LOSS_MASK in batch:  # RLlib's padding rows count for nothing
                mask = batch[Columns.LOSS_MASK]
                kl, clipped = kl[mask], clipped[mask]
            self.metrics.log_dict({APPROX_KL: kl.mean(), CLIP_FRACTION: clipped.mean()},
                                  key=module_id, window=1)
        return loss


__all__ = ["APPROX_KL", "CLIP_FRACTION", "StichzooPPOLearner"]
