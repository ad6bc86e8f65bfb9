"""Network variants for MaskablePPO: one shared trunk, or one policy trunk per game phase.

Every game mixes decisions of different kinds in one action space (Wizard:
trump choice, bids, card play).  ``shared`` feeds all of them through one
MLP; ``phase`` gives the policy one MLP per phase and picks the right one
with the observation's ``phase`` one-hot (the value function stays shared),
so bidding and play cannot crowd each other out of the same hidden units.
Which is better is measured, not assumed (docs/lab/ppo.md).
"""

from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn


def _mlp(sizes: list[int], in_dim: int, activation) -> tuple[nn.Sequential, int]:
    layers: list[nn.Module] = []
    for size in sizes:
        layers += [nn.Linear(in_dim, size), activation()]
        in_dim = size
    return nn.Sequential(*layers), in_dim


class PhaseMlpExtractor(nn.Module):
    """Policy latent = the trunk of the current phase; value latent from a shared trunk."""

    def __init__(self, feature_dim: int, net_arch: list[int], activation_fn,
                 phase_offset: int, num_phases: int):
        super().__init__()
        self.phase = slice(phase_offset, phase_offset + num_phases)
        trunks = []
        for _ in range(num_phases):
            trunk, out = _mlp(net_arch, feature_dim, activation_fn)
            trunks.append(trunk)
        self.policy_trunks = nn.ModuleList(trunks)
        self.value_net, self.latent_dim_vf = _mlp(net_arch, feature_dim, activation_fn)
        self.latent_dim_pi = out

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        phase = features[:, self.phase].argmax(dim=1)
        if th.onnx.is_in_onnx_export() or th.jit.is_tracing():
            # a static graph for export: every trunk, selected by the one-hot phase
            onehot = th.nn.functional.one_hot(phase, len(self.policy_trunks)).to(features.dtype)
            return sum(onehot[:, k:k + 1] * trunk(features)
                       for k, trunk in enumerate(self.policy_trunks))
        # each row through its own phase's trunk only: as cheap as one shared trunk
        out = features.new_zeros(features.shape[0], self.latent_dim_pi)
        for k, trunk in enumerate(self.policy_trunks):
            rows = (phase == k).nonzero(as_tuple=True)[0]
            if rows.numel():
                out = out.index_copy(0, rows, trunk(features.index_select(0, rows)))
        return out

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features)

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class PhaseTrunkPolicy(MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy with :class:`PhaseMlpExtractor`."""

    def __init__(self, *args, phase_offset: int = 0, num_phases: int = 1, **kwargs):
        self.phase_offset = phase_offset
        self.num_phases = num_phases
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch if isinstance(self.net_arch, list) else self.net_arch["pi"]
        self.mlp_extractor = PhaseMlpExtractor(self.features_dim, arch, self.activation_fn,
                                               self.phase_offset, self.num_phases)

    def _get_constructor_parameters(self):
        data = super()._get_constructor_parameters()
        data.update(phase_offset=self.phase_offset, num_phases=self.num_phases)
        return data


def policy_setup(heads: str, net_arch: list[int], layout) -> tuple[type, dict]:
    """(policy class, policy_kwargs) for a config's ``train.heads`` choice."""
    kwargs = {"net_arch": list(net_arch), "activation_fn": nn.ReLU}
    if heads == "shared":
        return MaskableActorCriticPolicy, kwargs
    piece = layout.piece("phase")
    kwargs.update(phase_offset=layout.offsets["phase"], num_phases=piece.size)
    return PhaseTrunkPolicy, kwargs


__all__ = ["MlpExtractor", "PhaseMlpExtractor", "PhaseTrunkPolicy", "policy_setup"]
