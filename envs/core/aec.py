"""One PettingZoo AEC adapter that turns any rules core into an env.

A game plugs in two objects: its :class:`~envs.core.game.Game` (pure rules)
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
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core.cards import bit_list
from envs.core.game import Game, GameState, IllegalActionError, build_options
from envs.core.observation import mask_bits_into
from envs.core.record import build_record

REWARD_MODES = ("score", "win")
ENV_KWARGS = ("render_mode", "show_all_hands", "reward", "reward_scale")


class CardGameEnv(AECEnv):
    """Generic AEC env over a rules core; subclasses name the game."""

    game_cls: ClassVar[type[Game]]
    encoder_cls: ClassVar[type]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"]}

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
        if reward not in REWARD_MODES:
            raise ValueError(f"{name}: reward={reward!r} is not allowed; choose one of "
                             f"{list(REWARD_MODES)}")
        if isinstance(reward_scale, bool) or not isinstance(reward_scale, (int, float)) \
                or not np.isfinite(reward_scale) or reward_scale <= 0:
            raise ValueError(f"{name}: reward_scale={reward_scale!r} must be a positive number")
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
        layout = self.encoder.layout
        obs_space = spaces.Dict({
            "observation": spaces.Box(layout.low, layout.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(self.game.num_actions,), dtype=np.int8),
        })
        act_space = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        slayout = self.encoder.state_layout
        self.state_space = spaces.Box(slayout.low, slayout.high, dtype=np.float32)
        self._obs_buffer = np.zeros(layout.size, np.float32)
        self.state_: GameState | None = None
        self.seed_: int | None = None

    # -- spaces -------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- lifecycle ------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.np_random, _ = seeding.np_random(seed)
        # The rules core shuffles with a pure-Python RNG seeded from the env's
        # generator: same seed -> same deck orders, independent of numpy.
        self.seed_ = int(self.np_random.integers(2**63 - 1))
        self.state_ = self.game.new_state(self.game.deal(random.Random(self.seed_)), log=True)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.agents[self.state_.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.state_
        seat = self.agent_name_mapping[agent]
        buf = self._obs_buffer
        self.encoder.encode(state, seat, buf)
        mask = np.zeros(self.game.num_actions, np.int8)
        if seat == state.current_player and not (state.over or state.truncated):
            mask_bits_into(mask, state.legal_mask())
        return {"observation": buf.copy(), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_
        seat = self.agent_name_mapping[agent]
        try:
            a = int(action)
            if a != action:
                raise TypeError
        except (TypeError, ValueError):
            raise IllegalActionError(
                f"action {action!r} for {agent} is not an integer action id") from None
        state.step(a)  # raises IllegalActionError (a ValueError) and changes nothing

        self._cumulative_rewards[agent] = 0
        rewards = dict.fromkeys(self.agents, 0.0)
        if self.reward_mode == "score":
            deltas = state.last_deltas
            if deltas:
                for s, d in enumerate(deltas):
                    if d:
                        rewards[self.possible_agents[s]] = d * self.reward_scale
        if state.over:
            if self.reward_mode == "win":
                win = state.winners()
                for s in win:
                    rewards[self.possible_agents[s]] = 1.0 / len(win)
            self.terminations = dict.fromkeys(self.agents, True)
        elif state.truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = rewards
        if state.over or state.truncated:
            self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def state(self) -> np.ndarray:
        """Global state (every hand included) for centralised critics; not an observation."""
        out = np.zeros(self.encoder.state_layout.size, np.float32)
        self.encoder.encode_state(self.state_, out)
        return out

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode")
            return None
        seat = self.state_.current_player
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
        agent = agent or self.agent_selection
        if self.agent_name_mapping[agent] != self.state_.current_player:
            return []
        return bit_list(self.state_.legal_mask())

    def record(self) -> dict:
        """The game so far as a JSON-ready record (see docs/records.md)."""
        return build_record(self.game, self.state_, seed=self.seed_, env_kwargs={
            "reward": self.reward_mode, "reward_scale": self.reward_scale})


def wrap(raw: CardGameEnv) -> AECEnv:
    """PettingZoo's standard wrappers, as classic envs use them.

    An illegal action under the wrapped env ends the game with -1 for the
    offender and a warning (TerminateIllegalWrapper); out-of-range actions
    are asserted; call order is enforced.
    """
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    env = wrappers.OrderEnforcingWrapper(env)
    return env
