"""One PettingZoo AEC adapter that turns any rules core into an env.

A game plugs in two objects: its :class:`~stichzoo.envs.core.game.Game` (pure rules)
and an encoder (observation, global state, text render).  Everything the
PettingZoo API asks of an env - agent names, spaces, the action mask,
reward accumulation, terminations, dead steps, seeding, rendering - is
done here once, so the five games cannot drift apart in API behaviour.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import Game, GameState, IllegalActionError, build_options
from stichzoo.envs.core.observation import mask_bits_into
from stichzoo.envs.core.picture import table_picture
from stichzoo.envs.core.record import build_record
from stichzoo.envs.core.rewards import REWARD_MODES as REWARD_MODES  # re-export
from stichzoo.envs.core.rewards import check_reward_args, step_rewards

ENV_KWARGS = ("render_mode", "show_all_hands", "reward", "reward_scale")


_SPACES: dict[tuple, tuple[spaces.Space, spaces.Space]] = {}


class ResetNeededError(ResetNeeded, ValueError):
    """The env was used before ``reset()``.

    Gymnasium's error for this mistake, and a ``ValueError`` like every other
    user mistake in stichzoo, so one ``except ValueError`` catches them all.
    """


def _shared_spaces(game: Game, encoder) -> tuple[spaces.Space, spaces.Space]:
    """Observation and state spaces, one pair per game and options for all env instances.

    Their Box bounds are the bulk of an env's memory (thousands of floats);
    envs of the same game and options share them.  (Action spaces stay per env: users
    seed and sample them.)
    """
    key = (type(game), repr(sorted(game.options.as_dict().items())))
    if key not in _SPACES:
        layout, slayout = encoder.layout, encoder.state_layout
        obs = spaces.Dict({
            "observation": spaces.Box(layout.low, layout.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
        })
        _SPACES[key] = (obs, spaces.Box(slayout.low, slayout.high, dtype=np.float32))
    return _SPACES[key]


class CardGameEnv(AECEnv):
    """Generic AEC env over a rules core; subclasses name the game."""

    game_cls: ClassVar[type[Game]]
    encoder_cls: ClassVar[type]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human", "rgb_array"],
                                          "render_fps": 1}

    def __init__(
        self,
        render_mode: str | None = None,
        show_all_hands: bool = False,
        reward: str = "score",
        reward_scale: float = 1.0,
        **options: Any,
    ):
        super().__init__()
        name = self.game_cls.name
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"{name}: render_mode={render_mode!r} is not supported; "
                f"choose one of {self.metadata['render_modes']} or None"
            )
        check_reward_args(self.game_cls, reward, reward_scale)
        opts = build_options(self.game_cls.Options, name, options, extra_known=ENV_KWARGS)
        self.game: Game = self.game_cls(opts)
        self.encoder = self.encoder_cls(self.game)
        self.render_mode = render_mode
        self.show_all_hands = bool(show_all_hands)
        self.reward_mode = reward
        self.reward_scale = float(reward_scale)

        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space, self.state_space = _shared_spaces(self.game, self.encoder)
        act_space = ActionSpace(self.game.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._obs_buffer = np.zeros(self.encoder.layout.size, np.float32)
        self.state_: GameState | None = None
        self.seed_: int | None = None
        self._construction_args = frozenset(ENV_KWARGS).union(opts.as_dict())

    # -- spaces -------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- lifecycle ------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game.

        ``reset`` has no options of its own.  A game option or env argument
        (``num_players``, ``reward``, ...) passed in ``options`` is refused by
        name: it is fixed when the env is made, and ignoring it would play a
        different game than the one asked for.  Other keys are ignored, as
        PettingZoo's API expects of every env (its ``api_test`` resets with
        ``options={"options": 1}``).
        """
        if options is not None:
            if not isinstance(options, dict):
                raise ValueError(f"{self.game.env_id}: reset(options=...) must be a dict or "
                                 f"None, not {type(options).__name__}")
            fixed = [k for k in options if k in self._construction_args]
            if fixed:
                raise ValueError(
                    f"{self.game.env_id}: {', '.join(map(repr, fixed))} cannot be set by "
                    f"reset(options=...); pass it when making the env, e.g. "
                    f"env({fixed[0]}=...)")
        self.np_random, _ = seeding.np_random(seed)
        # The rules core shuffles with a pure-Python RNG seeded from the env's
        # generator: same seed -> same deck orders, independent of numpy.
        self.seed_ = int(self.np_random.integers(2**63 - 1))
        self.state_ = self.game.new_state(self.game.deal(random.Random(self.seed_)), log=True)
        self.agents = self.possible_agents[:]
        self._no_rewards = dict.fromkeys(self.agents, 0)  # shared while nobody scores
        self.rewards = self._no_rewards
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.agents[self.state_.current_player]

    def _started(self, call: str) -> GameState:
        """The rules state; a clear error instead of an AttributeError before ``reset()``."""
        if self.state_ is None:
            raise ResetNeededError(f"{self.game.env_id}: reset() must be called before {call}()")
        return self.state_

    def last(self, observe: bool = True):
        self._started("last")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63):
        self._started("agent_iter")
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._started("observe")
        seat = self.agent_name_mapping[agent]
        buf = self._obs_buffer
        self.encoder.encode(state, seat, buf)
        mask = np.zeros(self.game.num_actions, np.int8)
        if seat == state.current_player and not (state.over or state.truncated):
            mask_bits_into(mask, state.legal_mask())
        return {"observation": buf.copy(), "action_mask": mask}

    def step(self, action: Any) -> None:
        state = self._started("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        state.step(self._action_id(action, agent))  # an illegal one raises, changes nothing

        self._cumulative_rewards[agent] = 0
        ended = state.over or state.truncated
        gains = step_rewards(state, self.reward_mode, self.reward_scale)
        if gains is not None:
            mapping = self.agent_name_mapping
            self.rewards = {a: gains[mapping[a]] for a in self.agents}
            self._accumulate_rewards()
        else:
            # Nobody scored: skip building and accumulating an all-zero dict.
            self.rewards = self._no_rewards
        if ended:
            if state.over:
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def _action_id(self, action: Any, agent: str) -> int:
        """``action`` as a plain int; bools and floats are refused, not rounded.

        ``True`` is an int to Python and ``60.0 == 60``, but neither is an
        action id: taking them would play a move nobody chose.  Numpy integers
        (and 0-d integer arrays) are what RL libraries pass, so they count.
        """
        if type(action) is int:
            return action
        integer = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        scalar_array = (isinstance(action, np.ndarray) and action.shape == ()
                        and action.dtype.kind in "iu")
        if integer or scalar_array:
            return int(action)
        legal = ", ".join(f"{a} ({self.game.action_label(a)})"
                          for a in bit_list(self.state_.legal_mask()))
        raise IllegalActionError(
            f"illegal action {action!r} for {agent}: not an integer action id (got "
            f"{type(action).__name__}); legal actions: {legal}")

    def state(self) -> np.ndarray:
        """Global state (every hand included) for centralised critics; not an observation."""
        out = np.zeros(self.encoder.state_layout.size, np.float32)
        self.encoder.encode_state(self._started("state"), out)
        return out

    def render(self) -> str | np.ndarray | None:
        """The table from the seat to act (every hand with ``show_all_hands``).

        ``ansi``: as text; ``human``: that text printed (also after every step);
        ``rgb_array``: as a picture, an ``HxWx3`` uint8 array
        (:mod:`stichzoo.envs.core.picture`; needs Pillow, ``stichzoo[render]``).
        Rendering reads the game and changes nothing in it.
        """
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode")
            return None
        seat = self._started("render").current_player
        if self.render_mode == "rgb_array":
            return table_picture(self.game, self.state_, seat, self.show_all_hands)
        text = self.encoder.render(self.state_, seat, self.show_all_hands)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # -- stichzoo extras --------------------------------------------------

    @property
    def rules_state(self) -> GameState:
        """The pure rules state behind the env (for bots, tests and tools)."""
        return self.state_

    def legal_actions(self, agent: str | None = None) -> list[int]:
        state = self._started("legal_actions")
        agent = agent or self.agent_selection
        if self.agent_name_mapping[agent] != state.current_player:
            return []
        return bit_list(state.legal_mask())

    def record(self) -> dict:
        """The game so far as a JSON-ready record (see docs/records.md)."""
        return build_record(self.game, self._started("record"), seed=self.seed_, env_kwargs={
            "reward": self.reward_mode, "reward_scale": self.reward_scale})


# -- PettingZoo's standard wrappers, with direct attribute forwarding ------------------
#
# PettingZoo's BaseWrapper forwards every attribute read (agent_selection,
# rewards, terminations, ...) through ``__getattr__``, once per wrapper layer;
# profiling showed that forwarding to be the largest single cost of a step
# through ``env()``.  The subclasses below keep the wrappers' behaviour and
# checks and only turn the hot attributes into properties that read the raw
# env directly.

_HOT = ("agent_selection", "rewards", "terminations", "truncations", "infos", "agents",
        "_cumulative_rewards", "possible_agents")
_CHECKED_BEFORE_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection",
                         "agents"}


def _forward(name: str, order_enforcing: bool) -> property:
    check = order_enforcing and name in _CHECKED_BEFORE_RESET

    def get(self):
        if check and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    def set_(self, value):
        setattr(self._raw, name, value)

    return property(get, set_)


def _fast(cls: type, order_enforcing: bool = False) -> type:
    attrs = {name: _forward(name, order_enforcing) for name in _HOT}
    attrs["__doc__"] = f"{cls.__doc__}\n\n(stichzoo: hot attributes read the raw env directly.)"
    return type(cls.__name__, (cls,), attrs)


_TerminateIllegal = _fast(wrappers.TerminateIllegalWrapper)
_AssertOutOfBounds = _fast(wrappers.AssertOutOfBoundsWrapper)
_OrderEnforcing = _fast(wrappers.OrderEnforcingWrapper, order_enforcing=True)


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` with a fast membership test for plain ints.

    PettingZoo's AssertOutOfBoundsWrapper asks ``contains`` on every step;
    gymnasium's general version (dtype introspection) cost more than the
    rules.  Other inputs take gymnasium's path unchanged.
    """

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return self.start <= x < self.start + self.n
        if isinstance(x, (bool, np.bool_)):
            return False  # gymnasium counts True as 1; no action id is a bool
        return super().contains(x)


def wrap(raw: CardGameEnv) -> AECEnv:
    """PettingZoo's standard wrappers, as classic envs use them.

    An illegal action under the wrapped env ends the game with -1 for the
    offender and a warning (TerminateIllegalWrapper); out-of-range actions
    are asserted; call order is enforced.
    """
    env = _TerminateIllegal.__new__(_TerminateIllegal)
    env._raw = raw
    _TerminateIllegal.__init__(env, raw, illegal_reward=-1)
    outer = _AssertOutOfBounds.__new__(_AssertOutOfBounds)
    outer._raw = raw
    _AssertOutOfBounds.__init__(outer, env)
    top = _OrderEnforcing.__new__(_OrderEnforcing)
    top._raw = raw
    _OrderEnforcing.__init__(top, outer)
    return top
