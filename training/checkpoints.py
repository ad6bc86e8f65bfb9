"""A batch run's checkpoints as bots: the run at an earlier point, measured afterwards.

The batch trainer keeps ``<run>/checkpoints/model_<samples>.pt`` - its training state
(network, optimizer, counts), no policy-file header - and only the last point as
``policy.pt``.  Rebuilding the network from the run's ``config.yaml`` turns any checkpoint
into the policy file the run would have saved there, and so into a bot; the checkpoint
at the run's end gives ``policy.pt``'s bot exactly.  (A module of its own: the exporter
cannot import the trainer, which imports the exporter through the trick bidder.)
"""

from __future__ import annotations

import os
import tempfile

import torch as th


def is_checkpoint(path: str) -> bool:
    """Whether ``path`` is a batch-trainer checkpoint (training state, no policy header)."""
    if not path.endswith(".pt") or not os.path.isfile(path):
        return False
    saved = th.load(path, map_location="cpu", weights_only=False)
    return (isinstance(saved, dict) and "stichzoo" not in saved and "policy" in saved
            and "samples" in saved)


def checkpoint_policy(checkpoint: str, policy_path: str) -> int:
    """Write the policy file of ``checkpoint`` as its run would have saved it at that point;
    returns its samples.  The run's ``config.yaml`` (two folders up) builds the network."""
    from stichzoo.policies.runtimes.torch_policy import save_policy
    from stichzoo.training import config as config_mod
    from stichzoo.training.trainers.ppo import build_network

    run_dir = os.path.dirname(os.path.dirname(os.path.abspath(checkpoint)))
    cfg_path = os.path.join(run_dir, "config.yaml")
    if not os.path.exists(cfg_path):
        raise ValueError(f"{checkpoint}: a checkpoint is read with its run's config.yaml, and "
                         f"{cfg_path} is missing")
    cfg = config_mod.load(cfg_path)
    game = config_mod.game_of(cfg)
    state = th.load(checkpoint, map_location="cpu", weights_only=False)
    policy = build_network(cfg, game, "cpu")
    policy.load_state_dict(state["policy"])
    samples = int(state["samples"])
    save_policy(policy, game, policy_path, {"steps": samples, "run": os.path.basename(run_dir)})
    return samples


def export_checkpoint(checkpoint: str, out_dir: str) -> str:
    """Export ``checkpoint`` as a bot folder (``model.onnx`` + ``manifest.json``)."""
    from stichzoo.training.export import export_bot

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "policy.pt")
        checkpoint_policy(checkpoint, path)
        return export_bot(path, out_dir, {"checkpoint": os.path.basename(checkpoint)})


__all__ = ["checkpoint_policy", "export_checkpoint", "is_checkpoint"]
