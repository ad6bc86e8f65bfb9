"""The one interface every bot implements, so bots are interchangeable everywhere.

A :class:`Policy` is asked for an action with a :class:`Decision`: the game,
the seat to act, and what that seat knows - the encoded observation and
action mask (what learned policies read) and the rules state (what
rule-based and search bots read).

The rules state is the true game, so it holds more than the seat may know
(other hands, future deals).  A policy must read only what its seat can see:
its own hand, public cards and facts, and - for search - samples drawn by
``game.determinize(state, seat, rng)``, which re-deals everything hidden
from the seat consistently with what it has seen.  Each game's policy tests
check this the hard way: the action must not change when the hidden part of
the state is re-dealt.  The same contract lets a bot play from a frontend's
player view: any state consistent with the view gives the same action.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import numpy as np

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import Game, GameState
from stichzoo.envs.core.observation import mask_bits_into


class Decision:
    """One seat's turn: what it knows, computed lazily (encoding costs time)."""

    __slots__ = ("_mask", "_obs", "encoder", "game", "seat", "state")

    def __init__(self, game: Game, state: GameState, seat: int | None = None, encoder=None):
        self.game = game
        self.state = state
        self.seat = state.current_player if seat is None else seat
        self.encoder = encoder
        self._obs: np.ndarray | None = None
        self._mask: np.ndarray | None = None

    @property
    def legal_actions(self) -> list[int]:
        return bit_list(self.state.legal_mask())

    @property
    def observation(self) -> np.ndarray:
        if self._obs is None:
            if self.encoder is None:
                self.encoder = encoder_for(self.game)
            out = np.zeros(self.encoder.layout.size, np.float32)
            self.encoder.encode(self.state, self.seat, out)
            self._obs = out
        return self._obs

    @property
    def action_mask(self) -> np.ndarray:
        if self._mask is None:
            mask = np.zeros(self.game.num_actions, np.int8)
            mask_bits_into(mask, self.state.legal_mask())
            self._mask = mask
        return self._mask


class ArrayDecision(Decision):
    """A decision given by its observation and action mask alone, with no rules state.

    The batch engine on the compiled kernel holds no Python states, only
    each game's observation and mask rows; a policy that reads nothing
    else (a uniform random one, a network: ``ARRAY_POLICIES``) acts on
    this exactly as on a :class:`Decision` of the same position.
    """

    __slots__ = ()

    def __init__(self, game: Game, seat: int, observation: np.ndarray, mask: np.ndarray):
        self.game = game
        self.state = None
        self.seat = seat
        self.encoder = None
        self._obs = observation
        self._mask = mask

    @property
    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._mask).tolist()


@runtime_checkable
class Policy(Protocol):
    """Anything with a name that maps a decision to a legal action id."""

    name: str

    def act(self, decision: Decision) -> int: ...


def decision_phases(game: Game) -> list[str]:
    """The names of ``game``'s phases in which a seat decides (``game_over`` left out): what a
    per-phase setting (``mix:<phase>=``, ``pimc:phases=``/``follow=``) may name."""
    return [p for p in type(game.new_game(0)).PHASE_NAMES if p != "game_over"]


def check_phases(game: Game, names: Iterable[str], also: str = "", meaning: str = "") -> None:
    """Refuse by name a phase ``game`` does not have, listing the ones it has (``also``: one
    more word the caller accepts, e.g. ``else``, and ``meaning`` what it means) - one wording
    behind ``mix:``, ``pimc:phases=``, ``expert.phases`` and ``scripts/probes/phase_swap.py``;
    each caller prefixes its own setting."""
    known = decision_phases(game)
    unknown = [p for p in names if p not in known and p != also]
    if unknown:
        extra = f" (or {' '.join(filter(None, (also, meaning)))})" if also else ""
        raise ValueError(f"{game.name} has no phase {', '.join(map(repr, unknown))}; "
                         f"its phases are {', '.join(known)}{extra}")


def encoder_for(game: Game):
    """The observation encoder of ``game`` (the same one its env uses)."""
    from stichzoo import envs

    return envs.env_module(game.name).raw_env.encoder_cls(game)


class RandomPolicy:
    """Uniform over the legal actions; the floor every bot must clear."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def act(self, decision: Decision) -> int:
        return self.rng.choice(decision.legal_actions)
