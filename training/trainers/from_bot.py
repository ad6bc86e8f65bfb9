"""A bot's network back into a trainable policy: its actor from ``model.onnx``.

The shipped bots are ONNX files (what a frontend runs); the torch runs that
made them are not in the repository.  Expert iteration improves the shipped
network rather than a fresh one, so it starts from the bot's own actor: the
export (training/export.py ``ActorForExport``) names its weights after the
policy's modules (``extractor.policy_net.k`` and ``head``), and loading them
back into a policy of the bot's own recipe (its ``config.yaml``) gives the
same probabilities, checked on random observations before the policy is
returned.  The critic is not in a bot: the value head starts fresh.

A Wizard bot that bids from a trick model (training/fit/bid_model.py) carries the
model beside the actor (``tricks.*`` weights) and its graph's bid logits are
the model's expected scores, not the actor's: the actor is read back as
always, and the check leaves out the positions where a bid is legal.
"""

from __future__ import annotations

import os

import numpy as np
import torch as th

#: exported weight name prefix -> the SB3 policy's own
_MODULES = {"extractor.": "mlp_extractor.", "head.": "action_net."}


def _policy_name(onnx_name: str) -> str | None:
    for exported, own in _MODULES.items():
        if onnx_name.startswith(exported):
            return own + onnx_name[len(exported):]
    return None


def load_bot_actor(policy, bot_dir: str, game, check: int = 64):
    """Put the bot's actor into ``policy`` (an SB3 policy of the bot's architecture, its own
    ``config.yaml``'s ``net_arch`` and ``heads``); returns the policy.

    Raises ValueError when the bot's weights do not fit the architecture or
    the loaded policy does not play as the bot does.
    """
    import onnx
    from onnx import numpy_helper

    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy

    own = policy.state_dict()
    model = onnx.load(os.path.join(bot_dir, "model.onnx"))
    loaded = set()
    for tensor in model.graph.initializer:
        name = _policy_name(tensor.name)
        if name is None:
            continue
        if name not in own or tuple(own[name].shape) != tuple(tensor.dims):
            raise ValueError(f"bot {bot_dir}: weight {tensor.name} {list(tensor.dims)} has no "
                             f"place in this policy (not the bot's net_arch and heads)")
        own[name] = th.as_tensor(numpy_helper.to_array(tensor).copy())
        loaded.add(name)
    actor = {k for k in own if k.startswith(("mlp_extractor.policy_net.", "action_net."))}
    if loaded != actor:
        raise ValueError(f"bot {bot_dir}: the actor's weights {sorted(actor - loaded)} are "
                         f"not in its model")
    policy.load_state_dict(own)
    policy.set_training_mode(False)
    _check_same_play(policy, OnnxPolicy.load(bot_dir, game), game, check,
                     skip_bids=_trick_weights(model))
    return policy


def has_trick_bids(bot_dir: str) -> bool:
    """Whether the bot's bids come from a trick model (training/fit/bid_model.py), not its actor."""
    import onnx

    return _trick_weights(onnx.load(os.path.join(bot_dir, "model.onnx")))


def _trick_weights(model) -> bool:
    """Whether an ONNX graph holds a trick model's weights (``tricks.*``)."""
    return any(t.name.startswith("tricks.") for t in model.graph.initializer)


def _check_same_play(policy, bot, game, positions: int, skip_bids: bool = False) -> None:
    """The loaded policy's probabilities equal the bot's on seeded random positions
    (8 games, each position after one more random move: every phase the games reach);
    ``skip_bids``: not where a bid is legal (a trick bidder's bids are not its actor's)."""
    from stichzoo.envs import BatchEnv

    engine = BatchEnv(game.name, 8, **game.options.as_dict())
    obs, mask, _ = engine.reset(seed=0)
    rng = np.random.default_rng(0)
    seen_obs, seen_mask = [], []
    while sum(len(o) for o in seen_obs) < positions:
        seen_obs.append(obs.copy())
        seen_mask.append(mask.astype(bool))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int64)
        obs, mask, *_ = engine.step(actions)
    obs, mask = np.concatenate(seen_obs), np.concatenate(seen_mask)
    if skip_bids:
        plays = ~mask[:, game.bid0:game.bid0 + game.max_hand + 1].any(1)
        obs, mask = obs[plays], mask[plays]
    with th.no_grad():
        dist = policy.get_distribution(th.as_tensor(obs), action_masks=mask)
        ours = dist.distribution.probs.numpy()
    theirs = np.stack([bot.probabilities(o, m) for o, m in zip(obs, mask, strict=True)])
    worst = float(np.abs(ours - theirs).max())
    if worst > 1e-4:
        raise ValueError(f"a policy loaded from the bot differs from it by {worst:.2g} in a "
                         f"probability: the architecture is not the bot's")
