"""Outside bots: a bot written elsewhere plays as a policy spec, seeing only its seat's view.

    python:mypkg.bots:MyBot            an object with act(decision) (optional reset, seed)
    python:path/to/bot.py:MyBot        the same, from a file
    cmd:node bot.js                    a process speaking the JSON-lines bot protocol
    http://127.0.0.1:8000/bots/wizard-heuristic/act    an HTTP service of the bot protocol
    openspiel:ismcts                   OpenSpiel's IS-MCTS through envs/openspiel.py

Arguments follow a ``|`` (a command runs without a shell, and a URL has no bare ``|``, so
the bar is free): ``cmd:node bot.js|deadline_ms=500,bot=wizard``.

Why a separate kind of policy: an outside bot is not trusted to behave.  It never gets the
rules state (which holds every hand) - only what :func:`decision_of` makes: the seat's player
view (``envs/<game>/view.py``, the frontend contract), the legal actions by label and a seed.
Each answer must come within ``deadline_ms``; a timeout, a crash, an answer that is not
JSON or not an action label, an error answer or an illegal action is a *forfeit*: the
seat's remaining decisions in that game are played by the ``fallback`` bot (random, seeded
like the seat), the game is played to its end and counted, and the forfeit is recorded on
the policy (:attr:`OutsidePolicy.forfeit`) for the tournament to report.  A duplicate
comparison thus stays paired - every deal is still played in every seat assignment - and a
bot that forfeits is rated together with its stand-in, which the report says in words.

A ``cmd:`` process is started once per process that plays (each tournament worker), reused
across games, and killed (its whole process group) when it times out, crashes or answers
garbage; the next game starts a fresh one.  A Python bot's call cannot be killed (a thread
cannot be stopped): its timed-out call is left running in a daemon thread and the bot
forfeits until it returns - run a bot you do not trust as ``cmd:``.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import importlib.util
import json
import os
import queue
import random
import shlex
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable
from typing import Any

from stichzoo.envs.registry import view_of
from stichzoo.policies.base import Decision, RandomPolicy

__all__ = ["DEFAULT_DEADLINE_MS", "FORFEIT_REASONS", "OUTSIDE_KINDS", "Forfeit",
           "OutsidePolicy", "decision_of", "parse_outside_spec"]

#: the spec kinds of outside bots (``https`` too: an HTTP service behind TLS)
OUTSIDE_KINDS = ("python", "cmd", "http", "https", "openspiel")
#: per-decision deadline unless the spec says ``deadline_ms=``
DEFAULT_DEADLINE_MS = 1000
#: a ``cmd:`` process's first answer may take this long (it starts: imports, loads models)
DEFAULT_START_MS = 30_000
#: an answer line or HTTP body longer than this is garbage (a view's answer is a few bytes)
MAX_ANSWER_BYTES = 1 << 16
#: why a game was forfeited, as the reports count them
FORFEIT_REASONS = ("timeout", "crash", "malformed", "error", "illegal")


class Forfeit(Exception):
    """An outside bot failed a decision: ``reason`` one of :data:`FORFEIT_REASONS`."""

    def __init__(self, reason: str, message: str):
        super().__init__(f"{reason}: {message}")
        self.reason, self.message = reason, message


# -- the spec -------------------------------------------------------------------------


def parse_outside_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"cmd:node bot.js|deadline_ms=500"`` -> ("cmd", {"target": "node bot.js",
    "deadline_ms": 500}); an ``http(s)`` target is the whole URL."""
    head, bar, args = spec.partition("|")
    kind, _, target = head.partition(":")
    if kind in ("http", "https"):
        target = head
    if not target.strip() or (kind in ("http", "https") and not target.startswith(
            f"{kind}://")):
        raise ValueError(f"policy {spec!r}: {_FORMS[kind]}")
    kwargs: dict[str, Any] = {"target": target.strip()}
    if bar:
        for item in args.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"policy {spec!r}: arguments after | look like key=value")
            try:
                kwargs[key.strip()] = json.loads(value)
            except json.JSONDecodeError:
                kwargs[key.strip()] = value
    return kind, kwargs


_FORMS = {"python": "write python:package.module:Class (or python:path/to/file.py:Class)",
          "cmd": "write cmd: followed by the command line (cmd:node bot.js)",
          "http": "write the bot endpoint's URL (http://host:port/bots/NAME/act)",
          "https": "write the bot endpoint's URL (https://host/bots/NAME/act)",
          "openspiel": "write openspiel:ismcts (arguments: simulations, uct_c, rollouts)"}


# -- what an outside bot is given -------------------------------------------------------


def decision_of(decision: Decision, seed: int) -> dict[str, Any]:
    """An outside bot's decision: ``{"seat", "view", "legal", "seed"}``, JSON-able.

    ``view`` is the seat's player view (``to_view(state, seat)``, the frontend contract);
    ``legal`` its legal actions by label (the view's ``legal``); ``seed`` an integer the bot
    may seed its own randomness with, so that a game replays.  Never the rules state.
    """
    view = view_of(decision.game.name).to_view(decision.state, decision.seat)
    return {"seat": decision.seat, "view": view, "legal": list(view["legal"]), "seed": seed}


def _within(seconds: float, call: Callable[[], Any], busy: list) -> Any:
    """``call()`` in a daemon thread, its result if it ends within ``seconds``, else a
    timeout forfeit (the thread is left to finish; ``busy`` holds it meanwhile)."""
    if busy and busy[0].is_alive():
        raise Forfeit("timeout", "still busy with a decision that ran past its deadline")
    box: list = []

    def run() -> None:
        try:
            box.append((True, call()))
        except BaseException as e:  # the bot's own error: reported as its crash
            box.append((False, e))

    thread = threading.Thread(target=run, daemon=True, name="outside-bot")
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        busy[:] = [thread]
        raise Forfeit("timeout", f"no answer within {seconds * 1000:.0f} ms")
    ok, value = box[0]
    if not ok:
        if isinstance(value, Forfeit):
            raise value
        raise Forfeit("crash", f"{type(value).__name__}: {_short(str(value))}")
    return value


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


# -- the bots -------------------------------------------------------------------------


class _PythonBot:
    """An object with ``act(decision) -> label`` (optional ``reset()``, ``seed(int)``),
    made once per process and spec and reset at each game."""

    _made: dict[str, Any] = {}

    def __init__(self, target: str, seed: int):
        obj = self._made.get(target)
        if obj is None:
            obj = self._made[target] = _load_class(target)()
        if not callable(getattr(obj, "act", None)):
            raise ValueError(f"policy 'python:{target}': the object has no act(decision)")
        self.obj = obj
        self.busy: list = []
        for method, args in (("reset", ()), ("seed", (seed,))):
            if callable(getattr(obj, method, None)):
                getattr(obj, method)(*args)

    def ask(self, decision: dict, seconds: float) -> Any:
        return _within(seconds, lambda: self.obj.act(decision), self.busy)


def _load_class(target: str):
    module_name, colon, attr = target.rpartition(":")
    if not colon or not module_name or not attr:
        raise ValueError(f"policy 'python:{target}': {_FORMS['python']}")
    try:
        if module_name.endswith(".py"):
            if not os.path.isfile(module_name):
                raise ValueError(f"policy 'python:{target}': no file {module_name}")
            name = "stichzoo_outside_" + os.path.splitext(os.path.basename(module_name))[0]
            loader = importlib.util.spec_from_file_location(name, module_name)
            module = importlib.util.module_from_spec(loader)
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except ValueError:
        raise
    except Exception as e:  # the bot's module failing to import is the bot's problem
        raise ValueError(f"policy 'python:{target}': cannot import {module_name} "
                         f"({type(e).__name__}: {_short(str(e))})") from None
    cls = getattr(module, attr, None)
    if cls is None:
        raise ValueError(f"policy 'python:{target}': {module_name} has no {attr}")
    return cls


_TOO_LONG = object()


class BotProcess:
    """One ``cmd:`` process: requests on its stdin, answer lines read by a thread."""

    def __init__(self, argv: list[str]):
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            raise ValueError(f"policy 'cmd:{shlex.join(argv)}' cannot start: {e}") from None
        self.argv = argv
        self.lines: queue.Queue = queue.Queue(maxsize=16)
        self.stderr: deque[str] = deque(maxlen=5)  # the last lines, for a crash's report
        self.fresh = True
        self.next_id = 0
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _put(self, item: Any) -> None:
        while not self.closed:
            try:
                self.lines.put(item, timeout=0.5)
                return
            except queue.Full:
                continue

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            line = out.readline(MAX_ANSWER_BYTES + 1)
            if not line:
                self._put(None)
                return
            if len(line) > MAX_ANSWER_BYTES and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):
                    line = out.readline(1 << 16)
                self._put(_TOO_LONG)
                continue
            self._put(line)

    def _read_stderr(self) -> None:
        for line in iter(lambda: self.proc.stderr.readline(4096), b""):
            self.stderr.append(line.decode("utf-8", "replace").rstrip())

    def ask(self, request: dict, seconds: float) -> dict:
        """Send ``request`` (its ``id`` set here) and read its answer object."""
        with self.lock:
            self.next_id += 1
            request = {"id": self.next_id, **request}
            if self.fresh:
                seconds = max(seconds, self.start_seconds)
                self.fresh = False
            try:
                self.proc.stdin.write(json.dumps(request).encode() + b"\n")
                self.proc.stdin.flush()
            except OSError:
                raise self._ended() from None
            deadline = time.monotonic() + seconds
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise Forfeit("timeout", f"no answer line within {seconds * 1000:.0f} ms; "
                                         f"the process was killed") from None
            if line is None:
                raise self._ended()
            if line is _TOO_LONG:
                raise Forfeit("malformed", f"an answer line over {MAX_ANSWER_BYTES} bytes")
            try:
                answer = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                raise Forfeit("malformed", f"not a JSON line: {_short(repr(line), 80)}"
                              ) from None
            if not isinstance(answer, dict) or answer.get("id") != request["id"]:
                got = _short(line.decode("utf-8", "replace"), 80)
                raise Forfeit("malformed", f"expected an answer object with id "
                                           f"{request['id']}, got {got}")
            return answer

    start_seconds = DEFAULT_START_MS / 1000

    def _ended(self) -> Forfeit:
        code = self.proc.wait(timeout=5) if self.proc.poll() is None else self.proc.returncode
        tail = " | ".join(self.stderr)
        return Forfeit("crash", f"the process ended (exit status {code})"
                                + (f"; stderr: {_short(tail)}" if tail else ""))

    def kill(self) -> None:
        """The whole process group, so a bot's own children go too."""
        self.closed = True
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL does not wait long
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()


#: the running ``cmd:`` processes of this process, one per command line
_PROCESSES: dict[tuple[str, ...], BotProcess] = {}
_PROCESS_LOCK = threading.Lock()


def _kill_all() -> None:
    for process in list(_PROCESSES.values()):
        process.kill()
    _PROCESSES.clear()


atexit.register(_kill_all)
try:  # a pool worker leaves through multiprocessing's own exit, which skips atexit
    from multiprocessing import util as _mp_util

    _mp_util.Finalize(None, _kill_all, exitpriority=100)
except ImportError:  # pragma: no cover - multiprocessing is in the standard library
    pass


class _CommandBot:
    """A ``cmd:`` bot: the JSON-lines request ``{"id", "bot", "view", "seed"}`` ->
    ``{"id", "action": LABEL}`` (or ``{"id", "error"}``), as ``stichzoo serve --stdio``."""

    def __init__(self, target: str, bot: str, start_ms: int):
        try:
            self.argv = shlex.split(target)
        except ValueError as e:
            raise ValueError(f"policy 'cmd:{target}': {e}") from None
        if not self.argv:
            raise ValueError(f"policy 'cmd:{target}': {_FORMS['cmd']}")
        self.bot, self.start_seconds = bot, start_ms / 1000
        self.process()  # start now: a command that cannot start fails the spec, not a game

    def process(self) -> BotProcess:
        key = tuple(self.argv)
        with _PROCESS_LOCK:
            process = _PROCESSES.get(key)
            if process is None or process.proc.poll() is not None:
                process = _PROCESSES[key] = BotProcess(self.argv)
                process.start_seconds = self.start_seconds
        return process

    def ask(self, decision: dict, seconds: float) -> Any:
        process = self.process()
        try:
            answer = process.ask({"bot": self.bot, "view": decision["view"],
                                  "seed": decision["seed"]}, seconds)
        except Forfeit:
            with _PROCESS_LOCK:  # out of step or hung: the next game starts a fresh one
                if _PROCESSES.get(tuple(self.argv)) is process:
                    del _PROCESSES[tuple(self.argv)]
            process.kill()
            raise
        if "error" in answer:
            raise Forfeit("error", _short(str(answer["error"])))
        return answer.get("action")


class _HttpBot:
    """An HTTP bot: the view POSTed to the URL (``?seed=N`` added), ``{"action": LABEL}``
    back, as ``stichzoo serve``'s ``POST /bots/{name}/act``."""

    def __init__(self, url: str):
        self.url = url
        self.busy: list = []

    def _post(self, decision: dict, seconds: float) -> Any:
        url = f"{self.url}{'&' if '?' in self.url else '?'}seed={decision['seed']}"
        body = json.dumps(decision["view"]).encode()
        request = urllib.request.Request(url, data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=seconds) as response:
                raw = response.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as e:
            detail = e.read(2000).decode("utf-8", "replace")
            with contextlib.suppress(ValueError, AttributeError):
                detail = json.loads(detail).get("error", detail)
            raise Forfeit("error", f"HTTP {e.code}: {_short(str(detail))}") from None
        except TimeoutError:
            raise Forfeit("timeout", f"no answer within {seconds * 1000:.0f} ms") from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            if isinstance(reason, TimeoutError):
                raise Forfeit("timeout", f"no answer within {seconds * 1000:.0f} ms") from None
            raise Forfeit("crash", f"cannot reach {self.url}: {_short(str(reason))}") from None
        if len(raw) > MAX_ANSWER_BYTES:
            raise Forfeit("malformed", f"an answer over {MAX_ANSWER_BYTES} bytes")
        try:
            answer = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise Forfeit("malformed", f"the answer is not JSON: {_short(repr(raw), 80)}"
                          ) from None
        if not isinstance(answer, dict):
            raise Forfeit("malformed", f"the answer is not an object: {_short(repr(raw), 80)}")
        return answer.get("action")

    def ask(self, decision: dict, seconds: float) -> Any:
        return _within(seconds, lambda: self._post(decision, seconds), self.busy)


class _OpenSpielBot:
    """OpenSpiel's IS-MCTS on the game's OpenSpiel twin (``envs/openspiel.py``).

    It is handed an OpenSpiel state of a world its seat cannot tell from the real one: the
    rules' own ``determinize`` re-deals everything hidden (as the adapter's
    ``resample_from_infostate`` does), so it never holds the true hidden cards.  It answers
    an action id, which is checked like any other answer.
    """

    def __init__(self, game, seed: int, algorithm: str, simulations: int, uct_c: float,
                 rollouts: int):
        try:
            import numpy as np
            from open_spiel.python.algorithms import ismcts, mcts

            from stichzoo.envs import openspiel as adapter
        except ImportError as e:
            raise ValueError(f"policy 'openspiel:{algorithm}' needs OpenSpiel: pip install "
                             f"'stichzoo[openspiel]' ({e})") from None
        if algorithm != "ismcts":
            raise ValueError(f"policy 'openspiel:{algorithm}': the OpenSpiel bot here is "
                             f"ismcts (openspiel:ismcts|simulations=50)")
        params = {k: (adapter._list_param(v) if isinstance(v, (list, tuple)) else v)
                  for k, v in game.options.as_dict().items() if v is not None}
        self.adapter, self.rules = adapter, game
        self.game = adapter.load(game.name, **params)
        self.rng = random.Random(seed)
        state = np.random.RandomState(seed % (1 << 32))
        self.bot = ismcts.ISMCTSBot(self.game, mcts.RandomRolloutEvaluator(rollouts, state),
                                    uct_c, simulations, random_state=state)
        self.busy: list = []

    def _step(self, state, seat: int) -> int:
        world = self.rules.determinize(state, seat, self.rng)
        deal = self.adapter.setup_of(self.game).deal
        cards = [world.deck_orders[d.order][d.position] for d in deal.draws]
        spiel_state = self.adapter.replay(self.game, cards, [a for _, a in world.history])
        return int(self.bot.step(spiel_state))

    def ask(self, decision: dict, seconds: float, state=None) -> Any:
        """``state``: the live rules state, re-dealt here before the bot sees a world."""
        world_of = state.clone()
        return _within(seconds, lambda: self._step(world_of, decision["seat"]), self.busy)


# -- the policy ------------------------------------------------------------------------


class OutsidePolicy:
    """An outside bot as a :class:`~stichzoo.policies.base.Policy`, with its deadline and
    forfeit (module docstring).  One per game, as every policy a tournament builds."""

    def __init__(self, name: str, game, seed: int | None, bot: Any, deadline_ms: float,
                 fallback: str = "random"):
        if isinstance(deadline_ms, bool) or not isinstance(deadline_ms, (int, float)) \
                or not 1 <= deadline_ms <= 600_000:
            raise ValueError(f"policy {name!r}: deadline_ms={deadline_ms!r}; give a number "
                             f"of milliseconds from 1 to 600000")
        if fallback not in ("random", "heuristic"):
            raise ValueError(f"policy {name!r}: fallback={fallback!r}; choose random or "
                             f"heuristic (who plays a forfeited seat's rest of the game)")
        self.name, self.game, self.bot = name, game, bot
        self.seconds = deadline_ms / 1000
        self.rng = random.Random(seed)
        if fallback == "random":
            self.fallback: Any = RandomPolicy(seed)
        else:  # the game's heuristic (policies/games/<game>.py), as the heuristic spec builds it
            games = importlib.import_module(f"stichzoo.policies.games.{game.name}")
            self.fallback = games.Heuristic(game, seed=seed)
        self.views = view_of(game.name)
        #: None, or what ended this game for the bot: {"reason", "message", "decision"}
        self.forfeit: dict[str, Any] | None = None
        #: the wall time (ms) of each decision the bot answered
        self.times_ms: list[float] = []
        self.decisions = 0

    def reset(self) -> None:
        """A new game for the same policy object: no forfeit yet."""
        self.forfeit = None

    def act(self, decision: Decision) -> int:
        self.decisions += 1
        if self.forfeit is None:
            try:
                return self._ask(decision)
            except Forfeit as f:
                self.forfeit = {"reason": f.reason, "message": f.message,
                                "decision": self.decisions}
        return self.fallback.act(decision)

    def _ask(self, decision: Decision) -> int:
        asked = decision_of(decision, self.rng.randrange(1 << 31))
        start = time.perf_counter()
        if isinstance(self.bot, _OpenSpielBot):
            answer = self.bot.ask(asked, self.seconds, decision.state)
        else:
            answer = self.bot.ask(asked, self.seconds)
        elapsed = time.perf_counter() - start
        action = self._action(answer, asked["legal"])
        self.times_ms.append(elapsed * 1000)
        if not (decision.state.legal_mask() >> action) & 1:
            raise Forfeit("illegal", f"{self.game.action_label(action)!r} is not legal here "
                                     f"(legal: {', '.join(asked['legal'])})")
        return action

    def _action(self, answer: Any, legal: list[str]) -> int:
        """An answer label (an OpenSpiel bot: an action id) -> the action id."""
        if isinstance(answer, int) and not isinstance(answer, bool) \
                and isinstance(self.bot, _OpenSpielBot):
            if not 0 <= answer < self.game.num_actions:
                raise Forfeit("illegal", f"action id {answer} is not an action of the game")
            return answer
        if not isinstance(answer, str):
            raise Forfeit("malformed", f"the answer must be an action label (one of the "
                                       f"decision's legal), got {_short(repr(answer), 80)}")
        if answer not in legal:
            raise Forfeit("illegal", f"{_short(repr(answer), 80)} is not among the legal "
                                     f"actions ({', '.join(legal)})")
        return self.views.action_from_label(self.game, answer)


def build_outside(kind: str, game, seed: int | None, kwargs: dict[str, Any]) -> OutsidePolicy:
    """The outside bot of a parsed spec (:func:`parse_outside_spec`'s ``kwargs``)."""
    kwargs = dict(kwargs)
    target = str(kwargs.pop("target"))
    deadline_ms = kwargs.pop("deadline_ms", DEFAULT_DEADLINE_MS)
    fallback = kwargs.pop("fallback", "random")
    seed = 0 if seed is None else seed
    if kind == "python":
        bot: Any = _PythonBot(target, seed)
        name = f"python:{target}"
    elif kind == "cmd":
        bot = _CommandBot(target, str(kwargs.pop("bot", game.name)),
                          int(kwargs.pop("start_ms", DEFAULT_START_MS)))
        name = f"cmd:{target}"
    elif kind in ("http", "https"):
        bot, name = _HttpBot(target), target
    else:
        bot = _OpenSpielBot(game, seed, target, int(kwargs.pop("simulations", 50)),
                            float(kwargs.pop("uct_c", 2.0)), int(kwargs.pop("rollouts", 1)))
        name = f"openspiel:{target}"
    if kwargs:
        raise ValueError(f"policy {name!r}: unknown argument(s) {', '.join(sorted(kwargs))} "
                         f"(outside bots take deadline_ms, fallback"
                         f"{', bot, start_ms' if kind == 'cmd' else ''}"
                         f"{', simulations, uct_c, rollouts' if kind == 'openspiel' else ''})")
    return OutsidePolicy(name, game, seed, bot, deadline_ms, fallback)


def forfeits_of(bots: list) -> list[dict[str, Any]]:
    """The forfeits of a finished game's bots: ``{"seat", **forfeit}`` per forfeiting seat."""
    return [{"seat": seat, **bot.forfeit} for seat, bot in enumerate(bots)
            if getattr(bot, "forfeit", None)]

