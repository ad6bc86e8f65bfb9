"""What a game tells the search: one declared record per game, not module attributes.

PIMC (:mod:`stichzoo.policies.search`) plays every game with the same loop; what
differs per game - how many worlds it affords, how a world's play-out is valued,
which player plays the other seats inside a world, a faster play-out on bare bitmasks
where the game has one, and what the game's learned search is - is declared once,
in ``policies/games/<game>.py``, as ``SEARCH = SearchHooks(...)``.  The spec builder
(:mod:`stichzoo.policies.specs`) reads that record and nothing else, so a new lever
adds a field here, not a branch there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from stichzoo.policies.search import Playout, ValueFn


def _frozen(mapping: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class SearchHooks:
    """A game's search settings and hooks; every field has a game-free default.

    - ``defaults``: PIMC's settings for the game (``worlds``, ``rollouts``, ``horizon``,
      ``world_cost``), measured per game; a spec's own arguments override them.
    - ``guided``: the settings a *guided* search adds (``phases=``: the guide prunes only
      there; ``follow=``: the network decides alone there); plain PIMC ignores them.
    - ``learned_search``: the spec the ``search`` policy spells out; None means PIMC
      guided by the game's shipped network, ``pimc:guide=bot:<game>``.
    - ``rollout_policy``: ``(game, seed) -> policy`` that plays the other seats inside
      a world; None means uniform random play-outs.
    - ``value``: the value of a world's end (:data:`ValueFn`); None means the seat's
      score margin over the rest of the round.
    - ``uniform_playout`` / ``rollout_playout``: the game's own play-out of a world with
      uniform random players / with its rollout player, on bare bitmasks - the same cards
      and draws as the rules-core loop, sooner (``pimc:playout=rules`` turns them off).
    - ``endgame``: ``(world, actions, seat) -> values``, the rest of the round in a world
      solved exactly, each action's value for ``seat`` (the value the play-outs estimate);
      the lab's ``pimc:endgame=K`` uses it from ``K`` cards in the hand of the seat to act
      on.  None: the game has no exact endgame.  Its state keeps ``hands`` as bitmasks.
    - ``endgame_phases``: the phases where ``endgame`` solves (Wizard's bids too).
    """

    defaults: Mapping[str, Any] = field(default_factory=_frozen)
    guided: Mapping[str, Any] = field(default_factory=_frozen)
    learned_search: str | None = None
    rollout_policy: Callable[..., Any] | None = None
    value: ValueFn | None = None
    uniform_playout: Playout | None = None
    rollout_playout: Playout | None = None
    endgame: Callable[..., list[float]] | None = None
    endgame_phases: tuple[str, ...] = ("play",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "defaults", _frozen(self.defaults))
        object.__setattr__(self, "guided", _frozen(self.guided))


__all__ = ["SearchHooks"]
