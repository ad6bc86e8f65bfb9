"""The compiled rules kernel: the five games' rules, masks and observations in C.

Why: every decision of the batch engine and every play-out of the search
stepped a Python rules state (about 5 us a decision); the same rules in C
cost a fraction of a microsecond.  The Python core (``envs/<game>/rules.py``)
stays the reference and the fallback: ``differential.py`` plays both side
by side and compares every mask, observation, reward and ending, and the
package works without the extension (no C compiler at install, or
``STICHZOO_KERNEL=python``).

    from stichzoo.envs import kernel
    kernel.core()                      # "c" or "python": which core the batch engine runs
    k = kernel.load(game)              # a Kernel for a rules Game, or None (python core)
    states = k.new_states(256)         # one row of bytes per game
    k.new_games(states, rows, seeds)   # deal (random.Random(seed)'s deal) and start

A state is a flat C struct in a numpy ``uint8`` row: copying the row clones
the game.  The C sources are in ``src/`` (``kz.h`` is the contract each
game's file fills).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from stichzoo.envs.core.game import Game, IllegalActionError


def _import_extension():
    """The extension: the built one, or the file ``STICHZOO_KERNEL_PATH`` names (the
    sanitizer build of ``scripts/checks/kernel_sanitize.sh``)."""
    path = os.environ.get("STICHZOO_KERNEL_PATH")
    if not path:
        from stichzoo.envs.kernel import _kernel as ext

        return ext
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("stichzoo.envs.kernel._kernel", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"STICHZOO_KERNEL_PATH={path!r} is no extension module")
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    sys.modules[spec.name] = ext
    return ext


try:  # the extension is optional: built by setup.py where a C compiler is
    _kernel = _import_extension()
except ImportError as _error:  # pragma: no cover - only without the extension
    _kernel = None
    _why = f"the compiled kernel is not built ({_error}); the Python core runs"
else:
    _kernel.set_errors(IllegalActionError)
    _why = ""

#: the flags ``Kernel.apply``/``step`` return (``kz.h``)
KZ_DELTAS, KZ_OVER, KZ_TRUNCATED = 1, 2, 4

#: the environment variable that forces the Python core (``python``) or the kernel (``c``)
ENV_VAR = "STICHZOO_KERNEL"


def compiled_games() -> list[str]:
    """The games compiled into the extension (none without it)."""
    return list(_kernel.games()) if _kernel is not None else []


def core(game: str | None = None) -> str:
    """Which core runs the batch engine (of ``game``, or of any game): "c" or "python".

    ``STICHZOO_KERNEL=python`` forces the Python core; without the extension
    (or without ``game`` in it) the Python core runs.
    """
    if os.environ.get(ENV_VAR, "").lower() == "python" or _kernel is None:
        return "python"
    if game is not None and game not in compiled_games():
        return "python"
    return "c"


def describe() -> str:
    """One line for ``stichzoo --version``: the core and why."""
    if os.environ.get(ENV_VAR, "").lower() == "python":
        return f"rules core: python ({ENV_VAR}=python)"
    if _kernel is None:
        return f"rules core: python - {_why}"
    return f"rules core: c (compiled kernel: {', '.join(compiled_games())})"


class Kernel(_kernel.Kernel if _kernel is not None else object):  # type: ignore[misc]
    """One game under fixed options in the compiled kernel (see the module docstring)."""

    KernelStateError = _kernel.KernelStateError if _kernel is not None else ValueError

    def new_states(self, n: int) -> np.ndarray:
        """``n`` zeroed state rows (start or new_games fills them)."""
        return np.zeros((n, self.state_size), np.uint8)

    def orders(self, seed: int) -> np.ndarray:
        """The deck orders ``Game.deal(random.Random(seed))`` draws, (num_orders, order_len)."""
        return np.frombuffer(self.deal(seed), np.uint8).reshape(self.num_orders, self.order_len)


def kernel_options(game: Game) -> list[int]:
    """The game's options as its C file's ``configure`` reads them (``envs/<game>/kernel.py``)."""
    import importlib

    mod = importlib.import_module(f"stichzoo.envs.{game.name}.kernel")
    return list(mod.kernel_options(game))


def load(game: Game, *, force: bool = False) -> Kernel | None:
    """The kernel of ``game`` (a rules ``Game``), or None where the Python core runs.

    ``force``: raise instead of returning None (tests of the kernel itself).
    """
    if core(game.name) != "c":
        if force:
            raise RuntimeError(f"{game.name}: {describe()}")
        return None
    try:
        return Kernel(game.name, kernel_options(game))
    except ValueError:  # options beyond the kernel's tables (a 337-round Wizard, say)
        if force:
            raise
        return None


def twin(k: Kernel, state: Any, states: np.ndarray | None = None,
         encoder: Any = None) -> np.ndarray | None:
    """The kernel's copy of a Python rules ``state`` (a one-row state array), or None.

    Rebuilt by replaying the state's history from its deck orders, then
    checked: the seat to act, phase, round, totals, legal mask and - with
    ``encoder`` - the observation of the seat to act must equal the Python
    state's.  A state that was not played from its deck orders (one set up
    by hand, say) fails the check and gets None: the caller keeps the
    Python core.
    """
    states = k.new_states(1) if states is None else states
    try:
        k.replay(states, 0, flat_orders(state.deck_orders),
                 bytes([a for _, a in state.history]))
    except (ValueError, TypeError):
        return None
    head = k.head(states, 0)
    if (head["current_player"], head["phase"], head["round_index"], head["totals"],
            head["over"]) != (state.current_player, state.phase, state.round_index,
                              tuple(state.totals), state.over):
        return None
    if k.legal(states, 0) != (0 if state.over else state.legal_mask()):
        return None
    if encoder is not None and state.current_player >= 0:
        if encoder.layout.size != k.obs_size:  # an encoder of another layout: no check
            return None
        want = np.zeros(k.obs_size, np.float32)
        got = np.zeros(k.obs_size, np.float32)
        encoder.encode(state, state.current_player, want)
        k.encode(states, 0, state.current_player, got)
        if want.tobytes() != got.tobytes():
            return None
    return states


_FLAT: tuple[Any, bytes] = (None, b"")


def flat_orders(deck_orders: Any) -> bytes:
    """A Python state's ``deck_orders`` as the flat bytes ``Kernel.start`` reads.

    A game's states share one ``deck_orders`` object from deal to end (clones
    too), so the last one's bytes are kept: a search asked at every decision
    of a game flattens its 900 Wizard cards once.
    """
    global _FLAT
    kept = _FLAT  # one read: another thread may replace it meanwhile
    if kept[0] is deck_orders:
        return kept[1]
    flat = b"".join(map(bytes, deck_orders))
    if isinstance(deck_orders, tuple) or all(isinstance(o, tuple) for o in deck_orders):
        _FLAT = (deck_orders, flat)  # only immutable orders are remembered
    return flat


__all__ = ["ENV_VAR", "KZ_DELTAS", "KZ_OVER", "KZ_TRUNCATED", "Kernel",
           "compiled_games", "core", "describe", "flat_orders", "load", "twin"]
