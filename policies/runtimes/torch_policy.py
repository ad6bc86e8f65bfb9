"""Trained policies (torch) behind the common Policy interface.

A policy file (``*.pt``) holds the network's weights and constructor
arguments as SB3 saves a policy, plus a ``stichzoo`` header: the game, its
options, the observation size and the action count.  Loading refuses a file
whose header does not match the game it is asked to play, so a Wizard 4p
bot is never silently asked to play a 5p game.

Importing this module needs torch (the ``train`` extra); nothing in
``stichzoo.envs`` or the other policies imports it.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import torch as th

from stichzoo.policies.base import Decision

#: where the network classes of policy files written before lived -> where they live now
#: (files name their class by path; a bot must not import training to read one)
MOVED_MODULES = {"stichzoo.training.networks": "stichzoo.policies.runtimes.networks",
                 "stichzoo.policies.networks": "stichzoo.policies.runtimes.networks"}


def _policy_class(path: str):
    """The network class a policy file names, also by a path it had before."""
    module, _, name = path.rpartition(".")
    if module.split(".")[0] in ("envs", "policies", "training"):
        module = f"stichzoo.{module}"  # a file written before the packages were namespaced
    module = MOVED_MODULES.get(module, module)
    return getattr(importlib.import_module(module), name)


def policy_header(game, obs_size: int) -> dict[str, Any]:
    return {"game": game.name, "env": game.env_id, "options": game.options.as_dict(),
            "obs_size": obs_size, "num_actions": game.num_actions}


def save_policy(sb3_policy, game, path: str, extra: dict | None = None) -> None:
    """Write an SB3 (Maskable) policy with its stichzoo header."""
    cls = type(sb3_policy)
    header = policy_header(game, int(sb3_policy.observation_space.shape[0]))
    header["policy_class"] = f"{cls.__module__}.{cls.__qualname__}"
    header.update(extra or {})
    th.save({"state_dict": sb3_policy.state_dict(),
             "data": sb3_policy._get_constructor_parameters(),
             "stichzoo": header}, path)


def check_header(header: dict, game, source: str) -> None:
    """Refuse a policy trained for another game, player count or layout."""
    want = policy_header(game, header.get("obs_size", -1))
    problems = []
    if header.get("game") != want["game"]:
        problems.append(f"it plays {header.get('game')!r}, not {want['game']!r}")
    elif header.get("options", {}).get("num_players") != game.num_players:
        problems.append(f"it was trained for {header.get('options', {}).get('num_players')} "
                        f"players, the table has {game.num_players}")
    if header.get("num_actions") != game.num_actions:
        problems.append(f"its action count {header.get('num_actions')} differs from the "
                        f"game's {game.num_actions}")
    if problems:
        raise ValueError(f"policy {source}: " + "; ".join(problems))


class NumpyForward:
    """The actor of an SB3 MLP policy as numpy matrices (inference only).

    One observation through a small MLP costs ~150 us in torch and ~20 us in
    numpy; self-play opponents and evaluation call it once per decision.
    Supports flatten features, ReLU/Tanh MLP trunks - shared or one per phase
    (:class:`stichzoo.policies.runtimes.networks.PhaseTrunkPolicy`) - and the linear action head.
    """

    def __init__(self, trunks: list[list[tuple]], head: tuple, phase: slice | None):
        self.trunks = trunks
        self.head = head
        self.phase = phase

    @classmethod
    def of(cls, policy) -> NumpyForward | None:
        from torch import nn

        def layers(seq) -> list[tuple] | None:
            out = []
            for m in seq:
                if isinstance(m, nn.Linear):
                    out.append(("linear", m.weight.detach().numpy().T.copy(),
                                m.bias.detach().numpy().copy()))
                elif isinstance(m, nn.ReLU):
                    out.append(("relu",))
                elif isinstance(m, nn.Tanh):
                    out.append(("tanh",))
                else:
                    return None
            return out

        if type(policy.features_extractor).__name__ != "FlattenExtractor":
            return None
        ext = policy.mlp_extractor
        phase = None
        if hasattr(ext, "policy_trunks"):
            trunks = [layers(t) for t in ext.policy_trunks]
            phase = ext.phase
        elif hasattr(ext, "policy_net"):
            trunks = [layers(ext.policy_net)]
        else:
            return None
        if any(t is None for t in trunks) or not isinstance(policy.action_net, nn.Linear):
            return None
        head = (policy.action_net.weight.detach().numpy().T.copy(),
                policy.action_net.bias.detach().numpy().copy())
        return cls(trunks, head, phase)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        x = np.asarray(observation, dtype=np.float32)
        if self.phase is None:
            h = self._trunk(self.trunks[0], x)
        else:  # as the torch module: the trunk of the phase that is set
            h = self._trunk(self.trunks[int(np.argmax(x[self.phase]))], x)
        return h @ self.head[0] + self.head[1]

    @staticmethod
    def _trunk(layers: list[tuple], x: np.ndarray) -> np.ndarray:
        for layer in layers:
            if layer[0] == "linear":
                x = x @ layer[1] + layer[2]
            elif layer[0] == "relu":
                x = np.maximum(x, 0)
            else:
                x = np.tanh(x)
        return x


class TorchPolicy:
    """A trained network as a :class:`~stichzoo.policies.base.Policy` (CPU, one thread)."""

    name = "ppo"

    def __init__(self, sb3_policy, game, deterministic: bool = True, seed: int | None = None,
                 source: str = "<memory>"):
        self.net = sb3_policy
        self.net.set_training_mode(False)
        self.game = game
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.source = source
        obs_size = int(sb3_policy.observation_space.shape[0])
        from stichzoo.policies.base import encoder_for

        self.encoder = encoder_for(game)
        if self.encoder.layout.size != obs_size:
            raise ValueError(f"policy {source}: observation size {obs_size} differs from the "
                             f"game's {self.encoder.layout.size}")
        self._numpy = NumpyForward.of(sb3_policy)

    @classmethod
    def load(cls, path: str, game, deterministic: bool = True,
             seed: int | None = None) -> TorchPolicy:
        saved = th.load(path, map_location="cpu", weights_only=False)
        header = saved.get("stichzoo")
        if header is None:
            raise ValueError(f"policy {path}: not a stichzoo policy file (no header)")
        check_header(header, game, path)
        net = _policy_class(header["policy_class"])(**saved["data"])
        net.load_state_dict(saved["state_dict"])
        return cls(net, game, deterministic=deterministic, seed=seed, source=path)

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits; numpy when the net is a plain MLP (5-10x faster than
        torch for one observation), torch otherwise."""
        if self._numpy is not None:
            return self._numpy(observation)
        with th.no_grad():
            obs = th.as_tensor(observation, dtype=th.float32).unsqueeze(0)
            return self.net.get_distribution(obs).distribution.logits[0].numpy()

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Action probabilities with illegal actions at exactly zero."""
        logits = self.logits(observation).astype(np.float64)
        legal = mask.astype(bool)
        logits = np.where(legal, logits, -np.inf)
        p = np.exp(logits - logits[legal].max())
        return p / p.sum()

    def act(self, decision: Decision) -> int:
        mask = decision.action_mask
        if mask.sum() == 1:
            return int(np.flatnonzero(mask)[0])
        if decision.encoder is None:
            decision.encoder = self.encoder
        p = self.probabilities(decision.observation, mask)
        if self.deterministic:
            return int(np.argmax(p))
        return int(self.rng.choice(len(p), p=p))
