"""Play an exported bot with numpy and onnxruntime only (no torch).

    from stichzoo.policies.onnx_bot import OnnxPolicy, shipped_bot
    bot = OnnxPolicy.load(shipped_bot("wizard"), game)   # game: the table it sits at
    action = bot.act(Decision(game, state))

The bot refuses a table its manifest does not describe (another game, env
version, player count, rule options or observation layout) with a message
that says what differs: a network fed a vector it was not trained on plays
nonsense without any error otherwise.
"""

from __future__ import annotations

import json
import os

import numpy as np

from stichzoo.policies.base import Decision, encoder_for

SCHEMA = "stichzoo.bot/1"

#: The bots shipped inside the package (``policies/bots/<game>`` in the
#: repository, ``stichzoo/policies/bots/<game>`` in an installed wheel).
SHIPPED_BOTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bots")


def shipped_bot(game_name: str) -> str:
    """The folder of the bot shipped for ``game_name``, wherever stichzoo is installed."""
    path = os.path.join(SHIPPED_BOTS, game_name)
    if not os.path.isfile(os.path.join(path, "manifest.json")):
        known = sorted(d for d in os.listdir(SHIPPED_BOTS)
                       if os.path.isfile(os.path.join(SHIPPED_BOTS, d, "manifest.json")))
        raise ValueError(f"no shipped bot for {game_name!r}; shipped bots: {', '.join(known)}")
    return path


def read_manifest(bot_dir: str) -> dict:
    path = os.path.join(bot_dir, "manifest.json")
    if not os.path.exists(path):
        raise ValueError(f"{bot_dir}: no manifest.json - not an exported stichzoo bot")
    with open(path) as f:
        manifest = json.load(f)
    if manifest.get("schema") != SCHEMA:
        raise ValueError(f"{bot_dir}: manifest schema {manifest.get('schema')!r}, "
                         f"expected {SCHEMA!r}")
    return manifest


def check_manifest(manifest: dict, game, source: str) -> None:
    """Raise ValueError naming every way ``manifest`` does not fit ``game``."""
    problems = []
    if manifest.get("game") != game.name:
        problems.append(f"it plays {manifest.get('game')!r}, not {game.name!r}")
    else:
        if manifest.get("env") != game.env_id:
            problems.append(f"it was built for {manifest.get('env')}, this is {game.env_id}")
        if manifest.get("num_players") != game.num_players:
            problems.append(f"it was trained for {manifest.get('num_players')} players, the "
                            f"table has {game.num_players}")
        else:
            theirs, ours = manifest.get("options", {}), game.options.as_dict()
            differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            if differ:
                problems.append("rule options differ: " + ", ".join(
                    f"{k} (bot {theirs.get(k)!r}, table {ours.get(k)!r})" for k in differ))
        encoder = encoder_for(game)
        if manifest.get("observation", {}).get("pieces") != encoder.layout.describe():
            problems.append("its observation layout differs from this encoder's")
        labels = [game.action_label(a) for a in range(game.num_actions)]
        if manifest.get("actions", {}).get("labels") != labels:
            problems.append("its action layout differs from this game's")
    if problems:
        raise ValueError(f"bot {source} refuses this table: " + "; ".join(problems))


class OnnxPolicy:
    """An exported bot as a :class:`~stichzoo.policies.base.Policy`."""

    name = "onnx"

    def __init__(self, session, manifest: dict, game, deterministic: bool = True,
                 seed: int | None = None, source: str = "<bot>"):
        self.session = session
        self.manifest = manifest
        self.game = game
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.source = source
        self.encoder = encoder_for(game)

    @classmethod
    def load(cls, bot_dir: str, game=None, deterministic: bool = True,
             seed: int | None = None) -> OnnxPolicy:
        """Load ``bot_dir``; with ``game=None`` the table is built from the manifest."""
        import onnxruntime as ort

        manifest = read_manifest(bot_dir)
        if game is None:
            from stichzoo import envs
            from stichzoo.envs.core.game import build_options

            cls_ = envs.game_class(manifest["game"])
            game = cls_(build_options(cls_.Options, manifest["game"], manifest["options"]))
        check_manifest(manifest, game, bot_dir)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(os.path.join(bot_dir, manifest["model"]["file"]),
                                       sess_options=options, providers=["CPUExecutionProvider"])
        return cls(session, manifest, game, deterministic, seed, source=bot_dir)

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        probs, _ = self.session.run(None, {
            "observation": np.asarray(observation, np.float32)[None],
            "action_mask": np.asarray(mask, np.float32)[None]})
        p = probs[0].astype(np.float64)
        p[np.asarray(mask) == 0] = 0.0
        return p / p.sum()

    def act(self, decision: Decision) -> int:
        mask = decision.action_mask
        if decision.encoder is None:
            decision.encoder = self.encoder
        p = self.probabilities(decision.observation, mask)
        if self.deterministic:
            return int(np.argmax(p))
        return int(self.rng.choice(len(p), p=p))
