"""Export a trained policy as a bot directory other programs can run.

    stichzoo export runs/wizard__maskable_ppo__0__20261130-031500 --out policies/bots/wizard

A bot directory holds

- ``model.onnx``: the actor network.  Inputs ``observation`` (float32,
  ``[batch, obs_size]``) and ``action_mask`` (float32 0.0/1.0,
  ``[batch, num_actions]``); outputs ``probabilities`` (illegal actions
  exactly 0) and ``logits`` (illegal actions at -1e9), both float32.
- ``manifest.json``: what the network expects and where it came from - game
  and env version, rule options and player count, the observation layout
  (piece names, offsets, sizes, meanings), the action layout (every action
  id with its label), the encoder version, input/output names, shapes and
  dtypes, the file's SHA-256 and the training provenance (run, steps,
  config, evaluation).

The runtime (:class:`stichzoo.policies.runtimes.onnx_policy.OnnxPolicy`) needs only numpy and
onnxruntime and refuses a bot whose manifest does not match the game it is
asked to play.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings

import torch as th
from torch import nn

from stichzoo.policies.runtimes.onnx_policy import file_sha256, manifest_checksum

MANIFEST_SCHEMA = "stichzoo.bot/1"
INPUTS = ("observation", "action_mask")
OUTPUTS = ("probabilities", "logits")


class ActorForExport(nn.Module):
    """The policy's actor with the mask applied inside the graph."""

    def __init__(self, sb3_policy):
        super().__init__()
        self.features = sb3_policy.features_extractor
        self.extractor = sb3_policy.mlp_extractor
        self.head = sb3_policy.action_net

    def forward(self, observation: th.Tensor, action_mask: th.Tensor):
        latent = self.extractor.forward_actor(self.features(observation))
        return masked_outputs(self.head(latent), action_mask)


def masked_outputs(logits: th.Tensor, action_mask: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
    """A bot graph's two outputs: ``probabilities`` (illegal actions exactly 0) and
    ``logits`` (illegal actions at -1e9), from the network's logits and the mask."""
    masked = th.where(action_mask > 0.5, logits, th.full_like(logits, -1e9))
    return th.softmax(masked, dim=-1), masked


def _tensor(width: int) -> dict:
    """A manifest entry of ``model.inputs`` / ``model.outputs``: shape and dtype.

    Every input and output is float32 - the mask too (0.0 / 1.0): a runtime
    that feeds the env's int8 mask is refused by onnxruntime (``expected
    tensor(float)``), so the manifest says so instead of leaving it to the shape.
    """
    return {"shape": ["batch", width], "dtype": "float32"}


def export_bot(policy_path: str, out_dir: str, provenance: dict | None = None,
               opset: int = 17) -> str:
    """Write ``model.onnx`` and ``manifest.json`` for the policy file; returns ``out_dir``."""
    from stichzoo import envs
    from stichzoo.envs.core.game import build_options

    saved = th.load(policy_path, map_location="cpu", weights_only=False)
    header = saved.get("stichzoo")
    if header is None:
        raise ValueError(f"{policy_path}: not a stichzoo policy file (a batch run's checkpoint "
                         f"exports with training.checkpoints.export_checkpoint)")
    cls = envs.game_class(header["game"])
    game = cls(build_options(cls.Options, header["game"], header["options"]))
    from stichzoo.policies.runtimes.torch_policy import TorchPolicy

    policy = TorchPolicy.load(policy_path, game)
    provenance = {**{k: v for k, v in header.items() if k not in ("options", "policy_class")},
                  "policy_file": os.path.basename(policy_path), **(provenance or {})}
    return export_module(ActorForExport(policy.net).eval(), game, out_dir, provenance, opset)


def export_module(module: nn.Module, game, out_dir: str, provenance: dict,
                  opset: int = 17) -> str:
    """Write ``model.onnx`` (``module(observation, action_mask) -> (probabilities, logits)``)
    and ``manifest.json`` for ``game`` into ``out_dir``; returns ``out_dir``."""
    from stichzoo.policies.base import encoder_for

    encoder = encoder_for(game)
    os.makedirs(out_dir, exist_ok=True)
    model_path = os.path.join(out_dir, "model.onnx")
    obs = th.zeros(1, encoder.layout.size)
    mask = th.ones(1, game.num_actions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter announces its deprecation
        th.onnx.export(module, (obs, mask), model_path, input_names=list(INPUTS),
                       output_names=list(OUTPUTS), opset_version=opset, dynamo=False,
                       dynamic_axes={name: {0: "batch"} for name in INPUTS + OUTPUTS})
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "game": game.name,
        "env": game.env_id,
        "env_version": game.version,
        "encoder_version": game.version,
        "options": game.options.as_dict(),
        "num_players": game.num_players,
        "observation": {"size": encoder.layout.size, "dtype": "float32",
                        "pieces": encoder.layout.describe(),
                        "seats": "relative: 0 is the observer, 1 its left neighbour, ..."},
        "actions": {"size": game.num_actions,
                    "labels": [game.action_label(a) for a in range(game.num_actions)]},
        "model": {"file": "model.onnx", "sha256": file_sha256(model_path), "opset": opset,
                  "inputs": {"observation": _tensor(encoder.layout.size),
                             "action_mask": _tensor(game.num_actions)},
                  "outputs": {"probabilities": _tensor(game.num_actions),
                              "logits": _tensor(game.num_actions)}},
        "provenance": provenance,
    }
    manifest["manifest_sha256"] = manifest_checksum(manifest)  # covers the rule options
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return out_dir


def evaluation_entry(rep: dict, me: str, bot_dir: str) -> dict:
    """A manifest's record of one tournament of ``me``: results, seed, and the eval command
    that plays it again with the bot in ``bot_dir``."""
    cfg = rep.get("config", {})
    opponent = next((p for p in cfg.get("lineup", []) if p != me), None)
    return {
        "games": rep["games"],
        "seed": cfg.get("seed"),
        "command": " ".join([
            f"stichzoo eval {cfg.get('game')} --players {cfg.get('players')}",
            f"--policies onnx:path={bot_dir} {opponent}",
            *(f"--option {k}={json.dumps(v, separators=(',', ':'))}"
              for k, v in sorted(cfg.get("options", {}).items())),
            f"--games {rep['games']} --seed {cfg.get('seed')}"]),
        "score": rep["policies"][me]["score"],
        "win_rate": rep["policies"][me]["win_rate"],
        "score_difference": rep["versus_baseline"][me]["score_difference"],
        "win_rate_difference": rep["versus_baseline"][me].get("win_rate_difference"),
        "metrics": rep["policies"][me]["metrics"],
    }


def export_run(run_dir: str, out_dir: str) -> str:
    """Export a run's ``policy.pt`` with its config and final evaluation as provenance."""
    import yaml

    provenance: dict = {"run": os.path.basename(os.path.normpath(run_dir))}
    cfg_path = os.path.join(run_dir, "config.yaml")
    if os.path.exists(cfg_path):
        with open(cfg_path) as f:
            provenance["config"] = yaml.safe_load(f)
    summary = os.path.join(run_dir, "train_summary.yaml")
    if os.path.exists(summary):
        with open(summary) as f:
            provenance["training"] = yaml.safe_load(f)
    evaluation = {}
    eval_dir = os.path.join(run_dir, "eval")
    if os.path.isdir(eval_dir):
        for name in sorted(os.listdir(eval_dir)):
            report = os.path.join(eval_dir, name, "report.json")
            if name.startswith("final_vs_") and os.path.exists(report):
                with open(report) as f:
                    rep = json.load(f)
                me = next(p for p in rep["policies"] if p.startswith("ppo"))
                evaluation[name[len("final_"):]] = evaluation_entry(rep, me, out_dir)
    if evaluation:
        provenance["evaluation"] = evaluation
    if os.path.exists(cfg_path):  # the bot folder keeps the config: it retrains in one command
        provenance["train_command"] = (
            f"stichzoo train {os.path.join(out_dir, 'config.yaml')} --final-eval")
    out = export_bot(os.path.join(run_dir, "policy.pt"), out_dir, provenance)
    if os.path.exists(cfg_path):
        shutil.copy(cfg_path, os.path.join(out_dir, "config.yaml"))
    return out
