"""Play an exported bot with numpy and onnxruntime only (no torch).

    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy, shipped_bot
    bot = OnnxPolicy.load(shipped_bot("wizard"), game)   # game: the table it sits at
    action = bot.act(Decision(game, state))

Loading verifies the whole folder before the bot plays (:func:`verify_bot`):
the manifest's keys, the model file (inside the folder, its SHA-256), the
ONNX graph's input and output names, shapes and dtypes against the
manifest, the encoder and env versions, the observation size and action
count, and one dry run.  A bot refuses a game its manifest does not
describe (another game, env version, player count, rule options or
observation layout) with a message that says what differs: a network fed a
vector it was not trained on plays nonsense without any error otherwise.
Every refusal is one line, ``bot FOLDER: reason``.

At play time the runtime guards itself (:meth:`OnnxPolicy.probabilities`):
an observation outside the encoder's bounds, a mask with no legal action or
probabilities that are not finite raise :class:`InferenceError` - the
answer is a legal action or an error, never a NaN turned into an action.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import weakref
from typing import Any

import numpy as np

from stichzoo.policies.base import Decision, encoder_for

SCHEMA = "stichzoo.bot/1"
#: the network's inputs and outputs: name -> dtype (both inputs float32, the mask as 0.0/1.0)
INPUT_DTYPES = {"observation": "float32", "action_mask": "float32"}
OUTPUT_DTYPES = {"probabilities": "float32", "logits": "float32"}
#: manifest keys a bot cannot be checked without (dotted paths)
REQUIRED_KEYS = (
    "schema", "game", "env", "env_version", "encoder_version", "options", "num_players",
    "observation.size", "observation.pieces", "actions.size", "actions.labels",
    "model.file", "model.sha256", "model.inputs", "model.outputs",
)
_ORT_TYPES = {"float32": "tensor(float)"}
#: the manifest fields ``manifest_sha256`` covers: the game the bot plays (env id and
#: versions, rule options, players), how it reads and answers (the observation and action
#: layouts), and the model file's own checksum, which binds them to the network
CHECKSUM_KEYS = ("game", "env", "env_version", "encoder_version", "options", "num_players",
                 "observation", "actions", "model.sha256")

log = logging.getLogger("stichzoo.bots")
_UNSTAMPED_WARNED: set[str] = set()  # folders already warned about a missing manifest_sha256

#: The bots shipped inside the package (``policies/bots/<game>`` in the
#: repository, ``stichzoo/policies/bots/<game>`` in an installed wheel).
SHIPPED_BOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bots")


class InferenceError(ValueError):
    """The network cannot give a legal answer for this input (it is refused, not guessed)."""


def shipped_bot(game_name: str) -> str:
    """The folder of the bot shipped for ``game_name``, wherever stichzoo is installed."""
    path = os.path.join(SHIPPED_BOTS, game_name)
    if not os.path.isfile(os.path.join(path, "manifest.json")):
        known = sorted(d for d in os.listdir(SHIPPED_BOTS)
                       if os.path.isfile(os.path.join(SHIPPED_BOTS, d, "manifest.json")))
        raise ValueError(f"no shipped bot for {game_name!r}; shipped bots: {', '.join(known)}")
    return path


def bot_folder(where: str) -> str:
    """A bot folder named as a spec names it: ``bot:<game>`` (the shipped one, wherever
    stichzoo is installed) or a folder path; ValueError when it holds no bot."""
    path = shipped_bot(where[4:]) if where.startswith("bot:") else where
    if not (os.path.isfile(os.path.join(path, "model.onnx"))
            and os.path.isfile(os.path.join(path, "manifest.json"))):
        raise ValueError(f"{where!r} is not a bot folder (model.onnx + manifest.json)")
    return path


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_manifest(bot_dir: str) -> dict:
    """The folder's manifest.json, checked for its schema and every required key."""
    path = os.path.join(bot_dir, "manifest.json")
    if not os.path.isfile(path):
        raise ValueError(f"bot {bot_dir}: no manifest.json - not an exported stichzoo bot")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (ValueError, RecursionError) as e:  # JSONDecodeError, bad UTF-8, absurd nesting
        raise ValueError(f"bot {bot_dir}: manifest.json is not valid JSON "
                         f"({_one_line(e, 120)})") from None
    if not isinstance(manifest, dict):
        raise ValueError(f"bot {bot_dir}: manifest.json must hold a JSON object")
    if manifest.get("schema") != SCHEMA:
        raise ValueError(f"bot {bot_dir}: manifest schema {manifest.get('schema')!r}, "
                         f"expected {SCHEMA!r}")
    for key in REQUIRED_KEYS:
        node: Any = manifest
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                raise ValueError(f"bot {bot_dir}: manifest.json lacks key {key!r}")
            node = node[part]
    return manifest


def manifest_checksum(manifest: dict) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces, ASCII) of :data:`CHECKSUM_KEYS`."""
    covered = {}
    for key in CHECKSUM_KEYS:
        node: Any = manifest
        for part in key.split("."):
            node = node[part]
        covered[key] = node
    text = json.dumps(covered, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def check_manifest_checksum(manifest: dict, source: str) -> None:
    """``manifest_sha256`` matches the manifest's rule fields, else ValueError.

    A manifest without it (exported before it existed) loads, with one warning
    per folder: add it with ``python scripts/bot_checksum.py FOLDER`` (docs/bots.md).
    """
    stated = manifest.get("manifest_sha256")
    if stated is None:
        if source not in _UNSTAMPED_WARNED:
            _UNSTAMPED_WARNED.add(source)
            log.warning("bot %s: manifest.json has no manifest_sha256, so its rule options "
                        "are not covered by a checksum; add it with: python "
                        "scripts/bot_checksum.py %s", source, source)
        return
    try:
        actual = manifest_checksum(manifest)
    except (ValueError, TypeError):  # NaN or the like in the covered fields: nothing matches
        actual = "not hashable"
    if stated != actual:
        raise ValueError(f"bot {source}: manifest_sha256 is {str(stated)[:12]}..., the "
                         f"manifest's game, rule options, players and layouts hash to "
                         f"{actual[:12]}... - manifest.json was changed after export")


def check_manifest(manifest: dict, game, source: str) -> None:
    """Raise ValueError naming every way ``manifest`` does not fit ``game``."""
    problems = []
    if manifest.get("game") != game.name:
        problems.append(f"it plays {manifest.get('game')!r}, not {game.name!r}")
    else:
        if manifest.get("env") != game.env_id:
            problems.append(f"it was built for {manifest.get('env')}, this is {game.env_id}")
        for key in ("env_version", "encoder_version"):
            if key in manifest and manifest[key] != game.version:
                problems.append(f"its {key} is {manifest[key]!r}, this {game.env_id} is "
                                f"version {game.version}")
        if manifest.get("num_players") != game.num_players:
            problems.append(f"it was trained for {manifest.get('num_players')} players, the "
                            f"table has {game.num_players}")
        else:
            theirs, ours = manifest.get("options", {}), game.options.as_dict()
            if not isinstance(theirs, dict):
                theirs = {}
            differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            if differ:
                problems.append("rule options differ: " + ", ".join(
                    f"{k} (bot {theirs.get(k)!r}, table {ours.get(k)!r})" for k in differ))
        encoder = encoder_for(game)
        observation = manifest.get("observation", {})
        if observation.get("size", encoder.layout.size) != encoder.layout.size:
            problems.append(f"its observation.size is {observation.get('size')!r}, this "
                            f"encoder writes {encoder.layout.size}")
        if observation.get("pieces") != encoder.layout.describe():
            problems.append("its observation layout differs from this encoder's")
        actions = manifest.get("actions", {})
        if actions.get("size", game.num_actions) != game.num_actions:
            problems.append(f"its actions.size is {actions.get('size')!r}, this game has "
                            f"{game.num_actions} actions")
        labels = [game.action_label(a) for a in range(game.num_actions)]
        if actions.get("labels") != labels:
            problems.append("its action layout differs from this game's")
    if problems:
        raise ValueError(f"bot {source} refuses this table: " + "; ".join(problems))


def tensor_spec(spec: Any) -> tuple[list, str] | None:
    """(shape, dtype) of a manifest input/output entry; ``None`` if it is neither form.

    Current manifests write ``{"shape": ["batch", n], "dtype": "float32"}``;
    the first ones wrote the shape alone (a list), which meant float32.
    """
    if isinstance(spec, list):
        return spec, "float32"
    if isinstance(spec, dict) and isinstance(spec.get("shape"), list):
        return spec["shape"], spec.get("dtype")
    return None


def model_path(bot_dir: str, manifest: dict) -> str:
    """The model file named by the manifest, which must lie inside the bot folder."""
    name = manifest["model"]["file"]
    if not isinstance(name, str) or not name or os.path.isabs(name):
        raise ValueError(f"bot {bot_dir}: model.file {name!r} must be a file name relative "
                         f"to the bot folder")
    root = os.path.realpath(bot_dir)
    path = os.path.realpath(os.path.join(root, name))
    if os.path.commonpath([root, path]) != root or path == root:
        raise ValueError(f"bot {bot_dir}: model.file {name!r} points outside the bot folder")
    if not os.path.isfile(path):
        raise ValueError(f"bot {bot_dir}: model.file {name!r} does not exist")
    return path


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def _check_io(bot_dir: str, manifest: dict, game, session) -> None:
    """The graph's inputs and outputs agree with the manifest and with the game's sizes."""
    size = {"observation": encoder_for(game).layout.size}
    wanted = {"inputs": INPUT_DTYPES, "outputs": OUTPUT_DTYPES}
    graph = {"inputs": {t.name: t for t in session.get_inputs()},
             "outputs": {t.name: t for t in session.get_outputs()}}
    for side, names in wanted.items():
        declared = manifest["model"][side]
        if not isinstance(declared, dict):
            raise ValueError(f"bot {bot_dir}: model.{side} must be an object")
        for name, dtype in names.items():
            spec = tensor_spec(declared.get(name))
            if spec is None:
                raise ValueError(f"bot {bot_dir}: model.{side} lacks {name!r} (shape and dtype)")
            shape, declared_dtype = spec
            width = size.get(name, game.num_actions)
            if len(shape) != 2 or shape[1] != width:
                raise ValueError(f"bot {bot_dir}: model.{side}.{name} has shape {shape}, the "
                                 f"game needs [batch, {width}]")
            if declared_dtype != dtype:
                raise ValueError(f"bot {bot_dir}: model.{side}.{name} has dtype "
                                 f"{declared_dtype!r}, the runtime feeds {dtype}")
            node = graph[side].get(name)
            if node is None:
                raise ValueError(f"bot {bot_dir}: the model has no {side[:-1]} {name!r} "
                                 f"(it has {', '.join(graph[side]) or 'none'})")
            if node.type != _ORT_TYPES[dtype]:
                raise ValueError(f"bot {bot_dir}: the model's {side[:-1]} {name!r} is "
                                 f"{node.type}, the manifest says {dtype}")
            if len(node.shape) != 2 or node.shape[1] != width:
                raise ValueError(f"bot {bot_dir}: the model's {side[:-1]} {name!r} has shape "
                                 f"{node.shape}, the game needs [batch, {width}] - a model "
                                 f"of another game or table?")


def verify_bot(bot_dir: str, game=None):
    """Check everything about a bot folder; returns ``(manifest, game, session)``.

    Raises ValueError with one line, ``bot FOLDER: reason``, for the first
    problem found; with ``game=None`` the game is built from the manifest.
    """
    import onnxruntime as ort

    from stichzoo import envs
    from stichzoo.envs.core.game import build_options

    manifest = read_manifest(bot_dir)
    if game is None:
        try:
            cls = envs.game_class(manifest["game"])
            if not isinstance(manifest["options"], dict):
                raise ValueError("options must be an object")
            game = cls(build_options(cls.Options, manifest["game"], manifest["options"]))
        except (ValueError, TypeError) as e:
            raise ValueError(f"bot {bot_dir}: {_one_line(e)}") from None
    check_manifest(manifest, game, bot_dir)
    path = model_path(bot_dir, manifest)
    digest = file_sha256(path)
    if digest != manifest["model"]["sha256"]:
        raise ValueError(f"bot {bot_dir}: {os.path.basename(path)} has SHA-256 {digest[:12]}..., "
                         f"the manifest says {str(manifest['model']['sha256'])[:12]}... - the "
                         f"file was changed or truncated")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # a broken model is reported by us, in one line
    try:
        session = ort.InferenceSession(path, sess_options=options,
                                       providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own classes (InvalidProtobuf, Fail, ...)
        raise ValueError(f"bot {bot_dir}: onnxruntime cannot load {os.path.basename(path)} "
                         f"({_one_line(e, 160)})") from None
    _check_io(bot_dir, manifest, game, session)
    obs = np.zeros((1, encoder_for(game).layout.size), np.float32)
    mask = np.ones((1, game.num_actions), np.float32)
    try:
        probs = session.run(["probabilities"], {"observation": obs, "action_mask": mask})[0]
    except Exception as e:
        raise ValueError(f"bot {bot_dir}: the model fails on a dry run ({_one_line(e, 160)})"
                         ) from None
    if probs.shape != (1, game.num_actions) or not np.all(np.isfinite(probs)):
        raise ValueError(f"bot {bot_dir}: the model's dry run gives probabilities of shape "
                         f"{probs.shape} (finite: {bool(np.all(np.isfinite(probs)))})")
    check_manifest_checksum(manifest, bot_dir)  # last: every other refusal names its field
    return manifest, game, session


class LoadedModel:
    """One verified model: its manifest, the game it was checked against, its session.

    Shared by every :class:`OnnxPolicy` that plays the same model file, so a
    server with many tables holds one onnxruntime session per bot, not one
    per seat (``InferenceSession.run`` is thread-safe).  What differs per seat
    - the random generator for sampling - stays on the policy.
    """

    __slots__ = ("__weakref__", "game", "manifest", "session")

    def __init__(self, manifest: dict, game, session):
        self.manifest = manifest
        self.game = game
        self.session = session


#: the loaded models, held only while a policy plays them: a model whose last table
#: went is freed (no cache outlives its users)
_MODELS: weakref.WeakValueDictionary[tuple, LoadedModel] = weakref.WeakValueDictionary()
_MODELS_LOCK = threading.Lock()


def load_model(bot_dir: str, game=None) -> LoadedModel:
    """The bot folder's model, verified, shared with every other live policy that plays it.

    The first load runs :func:`verify_bot`; later loads of the same files
    (the same manifest and a model file with the same SHA-256 - hashed every
    time, so a changed file is never served from memory) only check that the
    manifest fits ``game``, with :func:`check_manifest`'s refusal.
    """
    manifest = read_manifest(bot_dir)
    path = model_path(bot_dir, manifest)
    key = (path, file_sha256(path), json.dumps(manifest, sort_keys=True))
    with _MODELS_LOCK:  # one load per model even when many tables start at once
        model = _MODELS.get(key)
        if model is not None:
            if game is not None:
                check_manifest(model.manifest, game, bot_dir)
            return model
        model = LoadedModel(*verify_bot(bot_dir, game))
        _MODELS[key] = model
        return model


def loaded_models() -> int:
    """How many distinct models are in memory now (shared by all the policies playing them)."""
    with _MODELS_LOCK:
        return len(_MODELS)


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
        self._model: LoadedModel | None = None  # set by load: the shared model it plays

    @classmethod
    def load(cls, bot_dir: str, game=None, deterministic: bool = True,
             seed: int | None = None) -> OnnxPolicy:
        """Load and verify ``bot_dir``; with ``game=None`` the game is built from the manifest.

        The session is shared (:func:`load_model`); the policy's own random
        generator is not.
        """
        model = load_model(bot_dir, game)
        policy = cls(model.session, model.manifest, model.game if game is None else game,
                     deterministic, seed, source=bot_dir)
        policy._model = model  # keeps the shared model alive while this policy plays
        return policy

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def _check_observation(self, obs: np.ndarray) -> None:
        layout = self.encoder.layout
        if obs.shape != (layout.size,):
            raise InferenceError(f"the observation has shape {obs.shape}, the bot reads "
                                 f"({layout.size},)")
        bad = ~np.isfinite(obs) | (obs < layout.low) | (obs > layout.high)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            piece = next(p for p in layout.pieces
                         if layout.offsets[p.name] <= i < layout.offsets[p.name] + p.size)
            raise InferenceError(f"observation piece {piece.name!r} holds {float(obs[i])!r}, "
                                 f"outside its range [{piece.low}, {piece.high}]: no game "
                                 f"reaches this state")

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The network's distribution over the legal actions (illegal ones exactly 0).

        Raises :class:`InferenceError` rather than return anything a caller
        could turn into an illegal action: an observation outside the
        encoder's bounds, no legal action, or probabilities that are not finite.
        """
        obs = np.asarray(observation, np.float32)
        self._check_observation(obs)
        legal = np.asarray(mask) != 0
        if legal.shape != (self.game.num_actions,) or not legal.any():
            raise InferenceError(f"the action mask has no legal action (shape {legal.shape})")
        probs, _ = self.session.run(None, {"observation": obs[None],
                                           "action_mask": legal.astype(np.float32)[None]})
        p = np.asarray(probs[0], np.float64)
        if p.shape != legal.shape or not np.all(np.isfinite(p[legal])) or (p[legal] < 0).any():
            raise InferenceError("the network's probabilities are not finite for this "
                                 "observation; no action is given")
        p[~legal] = 0.0
        total = p.sum()
        if not total > 0:
            raise InferenceError("the network gives every legal action probability 0")
        return p / total

    def choose(self, probs: np.ndarray, mask: np.ndarray, sample: bool,
               rng: np.random.Generator | None = None) -> int:
        """The most likely action, or one drawn from ``probs``; always inside ``mask``."""
        if sample:
            action = int((rng or self.rng).choice(len(probs), p=probs))
        else:
            action = int(np.argmax(probs))
        if not np.asarray(mask)[action]:
            raise InferenceError(f"action {action} is not legal here")  # unreachable: p[~legal]=0
        return action

    def act(self, decision: Decision) -> int:
        mask = decision.action_mask
        if decision.encoder is None:
            decision.encoder = self.encoder
        p = self.probabilities(decision.observation, mask)
        return self.choose(p, mask, sample=not self.deterministic)
