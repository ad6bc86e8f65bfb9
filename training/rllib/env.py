"""Each game as an RLlib ``MultiAgentEnv``, registered with Ray as ``stichzoo/<game>-v<N>``.

Why not RLlib's ``PettingZooEnv`` around our AEC env: RLlib's action masking
expects ``{"observations", "action_mask"}`` (the AEC env says ``observation``),
and a competitive table needs opponents that are not the learner.  So this
env wraps the same AEC env (same rules, encoder, per-seat rewards) and:

- draws a table per deal exactly as the batch trainer's league does
  (:class:`stichzoo.training.trainers.ppo.League`): one seat is the learner, each
  other seat an ``opponents`` entry - ``learner`` (the shared policy again),
  ``self`` (a frozen snapshot; until one exists its weight counts as 0) or a
  policy spec;
- names each seat RLlib sees after the module that plays it: ``player_<s>``
  for the learner, ``player_<s>@snapshot_<k>`` for a snapshot, so the policy
  mapping (:func:`module_for_agent`) is a pure function of the agent id and
  the env and the mapping can never disagree about who sits where;
- plays rule-bot seats (heuristic, PIMC, random, shipped bots) itself.  They
  read the true rules state through :class:`~stichzoo.policies.Decision`
  (the heuristic its own hand, PIMC the re-dealt worlds), which an RLModule,
  seeing only the encoded observation, never gets;
- credits every seat RLlib sees with what *that seat* earned since its last
  decision (the AEC env's per-seat accumulated rewards), and reports at the
  end each learner seat's return, decisions, win share and the game's own
  metrics (``envs/<game>/metrics.py``, the code the other trainers log from);
- ends the deal on an illegal action, as PettingZoo's classic envs do
  (``TerminateIllegalWrapper``) and as the single-seat view does
  (:mod:`stichzoo.training.gym.single_seat`): the seat that took it gets
  :data:`~stichzoo.training.gym.single_seat.ILLEGAL_REWARD` (-1, not scaled), every
  seat RLlib has seen is terminated, the rules state is untouched, and that
  seat's info says why (``illegal_action``: the action id, ``illegal_reason``:
  the rules' message).  So RLlib's own env check, which steps with unmasked
  ``action_space.sample()`` actions, passes on the env as registered.  A
  masked module (ours, or RLlib's ``ActionMaskingTorchRLModule``) never takes
  one.  ``env_config={"illegal": "raise"}`` raises the rules'
  :class:`~stichzoo.envs.core.game.IllegalActionError` instead.  The AEC env
  itself always raises: only these training views turn an illegal action
  into an end.
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np

from stichzoo.envs.registry import metrics_of
from stichzoo.training.rllib import require_ray

require_ray()

from ray.rllib.env.multi_agent_env import MultiAgentEnv  # noqa: E402
from ray.tune.registry import register_env  # noqa: E402

from stichzoo import envs  # noqa: E402
from stichzoo.envs.core.game import IllegalActionError  # noqa: E402
from stichzoo.envs.registry import VERSIONS  # noqa: E402
from stichzoo.policies import Decision  # noqa: E402
from stichzoo.training.gym.single_seat import ILLEGAL_MODES, ILLEGAL_REWARD  # noqa: E402

LEARNER = "learner"
OBS_KEY = "observations"  # RLlib's action-masking RLModule reads these two keys
MASK_KEY = "action_mask"


def env_name(game: str) -> str:
    return f"stichzoo/{game}-v{VERSIONS[game]}"


def snapshot_module(k: int) -> str:
    return f"snapshot_{k}"


def module_for_agent(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """RLlib's policy mapping: the module is named in the agent id (``player_2@snapshot_1``)."""
    return agent_id.partition("@")[2] or LEARNER


def seat_of(agent_id: str) -> int:
    """The table position of an agent id (``player_2@snapshot_1`` -> 2)."""
    return int(agent_id.partition("@")[0].rpartition("_")[2])


def observation_space(game) -> gym.spaces.Dict:
    """``{"observations": Box, "action_mask": Box(0.0, 1.0)}``, per seat.

    The mask is float32 0.0/1.0, as RLlib's ``ActionMaskingTorchRLModule`` takes
    its log (and as the exported ONNX bots take it).
    """
    from stichzoo.policies.base import encoder_for

    layout = encoder_for(game).layout
    return gym.spaces.Dict({
        OBS_KEY: gym.spaces.Box(layout.low, layout.high, dtype=np.float32),
        MASK_KEY: gym.spaces.Box(0.0, 1.0, shape=(game.num_actions,), dtype=np.float32),
    })


class StichzooMultiAgentEnv(MultiAgentEnv):
    """One table of a game; ``config`` is RLlib's ``env_config`` (see :func:`env_config`)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        self.game_name = config["game"]
        self.aec = envs.env_module(self.game_name).raw_env(
            reward=config.get("reward", "score"),
            reward_scale=float(config.get("reward_scale", 1.0)), **config.get("options", {}))
        self.game = self.aec.game
        n = self.game.num_players
        entries = [e if isinstance(e, dict) else {"policy": e}
                   for e in config.get("opponents", ["random"])]
        self.names = [e["policy"] for e in entries]
        self.weights = np.array([float(e.get("weight", 1.0)) for e in entries])
        self.keep = int(config.get("keep", 5))
        self.illegal = config.get("illegal", "terminate")
        if self.illegal not in ILLEGAL_MODES:
            raise ValueError(f"env_config illegal={self.illegal!r}: choose one of "
                             f"{list(ILLEGAL_MODES)}")
        self.live_snapshots = 0  # snapshot modules that hold a copy of the learner
        seats = [f"player_{s}" for s in range(n)]
        self.possible_agents = seats + [f"{a}@{snapshot_module(k)}"
                                        for a in seats for k in range(self.keep)]
        obs_space = observation_space(self.game)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: gym.spaces.Discrete(self.game.num_actions)
                              for a in self.possible_agents}
        self.agents = []
        self._rng = np.random.default_rng(config.get("seed"))
        self._bots: dict[str, Any] = {}
        self._table: list[str] = []  # per seat: agent id, or "" for a rule-bot seat
        self._seat_bots: dict[int, Any] = {}  # rule-bot seats of this deal
        self._acted: set[str] = set()
        self._pending: dict[str, float] = {}
        self._returns: dict[str, float] = {}
        self._lengths: dict[str, int] = {}  # each seat's decisions this deal
        #: decisions served to RLlib, per module (tests read where samples came from)
        self.decisions: dict[str, int] = {}
        self.illegal_actions = 0  #: deals an illegal action ended (a masked module: none)
        # the game's own per-seat metrics (every game has them), as the other trainers log
        self._seat_metrics = metrics_of(self.game_name).seat_metrics

    # -- the league -------------------------------------------------------------------

    def set_live_snapshots(self, count: int) -> None:
        """How many snapshot modules hold a learner copy (the driver says so after each)."""
        self.live_snapshots = min(int(count), self.keep)

    def _bot(self, spec: str):
        if spec not in self._bots:
            from stichzoo.policies.specs import build_policy

            self._bots[spec] = build_policy(spec, self.game,
                                            seed=int(self._rng.integers(2**31 - 1)))
        return self._bots[spec]

    def _draw_table(self) -> list[str]:
        """Per seat the agent id RLlib sees, or "" where a rule bot sits (as League.draw_table)."""
        n, names = self.game.num_players, self.names
        weights = self.weights.copy()
        if not self.live_snapshots:
            weights[[i for i, name in enumerate(names) if name == "self"]] = 0.0
        p = weights / weights.sum()
        learner_seat = int(self._rng.integers(n))
        table = []
        for s in range(n):
            name = LEARNER if s == learner_seat else names[int(self._rng.choice(len(names), p=p))]
            if name == LEARNER:
                table.append(f"player_{s}")
            elif name == "self":
                k = int(self._rng.integers(self.live_snapshots))
                table.append(f"player_{s}@{snapshot_module(k)}")
            else:
                self._seat_bots[s] = self._bot(name)
                table.append("")
        return table

    # -- MultiAgentEnv API ------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        while True:
            self.aec.reset(seed=int(self._rng.integers(2**31 - 1)))
            table = self._draw_table()
            self._table = table
            self.agents = [a for a in table if a]
            self._pending = dict.fromkeys(self.agents, 0.0)
            self._returns = dict.fromkeys(self.agents, 0.0)
            self._lengths = dict.fromkeys(self.agents, 0)
            self._acted = set()
            self._advance()
            state = self.aec.state_
            if not (state.over or state.truncated):  # (a deal only bots played: deal again)
                break
        agent = self._table[state.current_player]
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict: dict):
        state = self.aec.state_
        agent = self._table[state.current_player]
        action = int(action_dict[agent])
        try:
            self.aec.step(action)  # an illegal action raises and changes nothing
        except IllegalActionError as e:
            if self.illegal == "raise":
                raise
            return self._illegal_end(agent, action, e)
        self._acted.add(agent)
        self._lengths[agent] += 1
        module = module_for_agent(agent)
        self.decisions[module] = self.decisions.get(module, 0) + 1
        self._advance()
        rewards = self._collect_rewards()
        if state.over or state.truncated:
            done = {a: True for a in self._acted}
            obs = {a: self._observe(a) for a in self._acted}
            infos = {a: self._final_info(a) for a in self._acted}
            over = bool(state.over)
            return (obs, rewards, {**(done if over else {}), "__all__": over},
                    {**({} if over else done), "__all__": not over}, infos)
        nxt = self._table[state.current_player]
        return ({nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False},
                {nxt: {}})

    # -- internals --------------------------------------------------------------------

    def _advance(self) -> None:
        """Rule-bot seats act until a seat RLlib plays is to act, or the game ends."""
        aec, game = self.aec, self.game
        state = aec.state_
        while not (state.over or state.truncated) and not self._table[state.current_player]:
            seat = state.current_player
            aec.step(self._seat_bots[seat].act(Decision(game, state, seat)))

    def _illegal_end(self, agent: str, action: int, error: IllegalActionError):
        """The deal ends: -1 for ``agent``, every seat seen terminated (TerminateIllegalWrapper)."""
        self.illegal_actions += 1
        self._acted.add(agent)
        rewards = {a: 0.0 for a in self._acted}
        rewards[agent] = ILLEGAL_REWARD  # what it earned before was credited when earned
        self._returns[agent] += ILLEGAL_REWARD
        obs = {a: self._observe(a) for a in self._acted}
        obs[agent][MASK_KEY][:] = 0.0  # nothing is legal any more
        infos = {a: {"seat": seat_of(a)} for a in self._acted}
        infos[agent].update(illegal_action=action, illegal_reason=str(error))
        done = {a: True for a in self._acted}
        return obs, rewards, {**done, "__all__": True}, {"__all__": False}, infos

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.aec.observe(agent.partition("@")[0])
        return {OBS_KEY: raw["observation"], MASK_KEY: raw["action_mask"].astype(np.float32)}

    def _collect_rewards(self) -> dict[str, float]:
        """What each RLlib seat earned since the last step (AEC accumulation), credited once.

        A seat is credited only once it has acted: a reward before its first
        decision belongs to no action of it (it waits in ``_pending``).
        """
        cumulative = self.aec._cumulative_rewards
        out = {}
        for agent in self.agents:
            name = agent.partition("@")[0]
            self._pending[agent] += float(cumulative[name])
            cumulative[name] = 0
            if agent in self._acted:
                out[agent] = self._pending[agent]
                self._returns[agent] += self._pending[agent]
                self._pending[agent] = 0.0
        return out

    def _final_info(self, agent: str) -> dict[str, Any]:
        seat = seat_of(agent)
        if module_for_agent(agent) != LEARNER:
            return {"seat": seat}
        state = self.aec.state_
        winners = state.winners() if state.over else []
        metrics = self._seat_metrics(state)[seat]
        return {"seat": seat, "return": self._returns[agent], "length": self._lengths[agent],
                "win_share": (1 / len(winners)) if seat in winners else 0.0,
                "metrics": dict(metrics),
                "learner_seats": sum(1 for a in self.agents if module_for_agent(a) == LEARNER)}


def env_config(cfg: dict) -> dict:
    """RLlib's ``env_config`` for a stichzoo config: rules, rewards, league."""
    return {"game": cfg["game"], "options": dict(cfg["options"]),
            "reward": cfg["env"]["reward"], "reward_scale": float(cfg["env"]["reward_scale"]),
            "opponents": list(cfg["opponents"]), "keep": cfg["selfplay"]["keep"]}


def _make(env_ctx: dict, game: str) -> StichzooMultiAgentEnv:
    # (RLlib seeds each env's first reset from debugging(seed=), per env runner and env)
    return StichzooMultiAgentEnv({**dict(env_ctx), "game": game})


def register_games() -> list[str]:
    """``register_env`` every game as ``stichzoo/<game>-v<N>``; returns the names."""
    names = []
    for game in envs.GAMES:
        register_env(env_name(game), functools.partial(_make, game=game))
        names.append(env_name(game))
    return names


__all__ = ["LEARNER", "MASK_KEY", "OBS_KEY", "StichzooMultiAgentEnv", "env_config", "env_name",
           "module_for_agent", "observation_space", "register_games", "seat_of",
           "snapshot_module"]
