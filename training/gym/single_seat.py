"""A Gymnasium single-seat view of any stichzoo AEC env, for single-agent RL.

The learner holds one seat, drawn per episode; every other seat is played
*inside* the view by opponents drawn from a pool (random, heuristic, search,
frozen snapshots of the learner).  Each ``step`` is therefore exactly one
decision of the learner, and its reward is the learner's own: what the AEC
env accumulated for the learner's agent (``_cumulative_rewards``) between
its previous decision and this one, including score changes caused by the
opponents' moves that closed a round.  (PettingZoo's SB3 tutorial trains one
model on every seat's transitions with the wrong seat's reward; here no
transition of another seat ever reaches the learner.)

``action_masks()`` lives on the view, so sb3-contrib's MaskablePPO finds it
through SubprocVecEnv and DummyVecEnv alike.

Illegal actions follow PettingZoo's convention for its classic games (the
``TerminateIllegalWrapper`` that ``env()`` applies): by default
(``illegal="terminate"``) an action the rules refuse ends the episode at
once - ``terminated=True``, reward :data:`ILLEGAL_REWARD` (-1, not scaled by
``reward_scale``) for the learner, the game state untouched, and the info
says why (``info["illegal_action"]``: the action id, ``info["illegal_reason"]``:
the rules' message).  That is what lets generic tools that step with
unmasked ``action_space.sample()`` - Gymnasium's and SB3's ``check_env``,
random-agent baselines - run the view.  ``illegal="raise"`` raises the
rules' :class:`~stichzoo.envs.core.game.IllegalActionError` instead, for
code that must never take one.  MaskablePPO takes only masked (legal)
actions, so training is the same under either.  An action outside
``action_space`` (not an integer id in ``0..n-1``) raises in both modes, as
PettingZoo's ``AssertOutOfBoundsWrapper`` does.

Gymnasium ids (registered by ``import stichzoo``, see
:mod:`stichzoo.training.gym.registry`), one per game::

    stichzoo/Wizard-v0  stichzoo/WunderPunkt-v0  stichzoo/SilberneAnanas-v1
    stichzoo/HochTief-v0  stichzoo/Geheimtrumpf-v4

    env = gymnasium.make("stichzoo/Wizard-v0", options={"num_players": 4},
                         opponents=["heuristic"], illegal="raise")

Keyword arguments of ``make`` are those of :class:`SingleSeatEnv`.  Through
``make``'s wrappers, reach the mask with ``env.unwrapped.action_masks()``
(or ``env.get_wrapper_attr("action_masks")()``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from stichzoo import envs
from stichzoo.envs.core.game import IllegalActionError
from stichzoo.envs.core.picture import table_picture
from stichzoo.envs.registry import metrics_of
from stichzoo.policies import Decision, make_policy

#: the learner's reward for an illegal action under ``illegal="terminate"``
#: (PettingZoo's ``TerminateIllegalWrapper(illegal_reward=-1)``, as ``env()`` uses)
ILLEGAL_REWARD = -1.0
ILLEGAL_MODES = ("terminate", "raise")


@dataclass(frozen=True)
class PoolEntry:
    policy: str  # a policy spec ("random", "heuristic", "pimc:worlds=2") or "self"
    weight: float = 1.0


class OpponentPool:
    """Weighted opponent specs; ``"self"`` draws a frozen snapshot of the learner.

    Snapshots are file paths of saved policies (see
    :class:`stichzoo.policies.runtimes.torch_policy.TorchPolicy`); the most recent ``keep`` are
    used.  Until the first snapshot exists, ``"self"`` falls back to the
    other entries.
    """

    def __init__(self, entries: list[PoolEntry | dict | str], keep: int = 5):
        self.entries = [self._entry(e) for e in entries]
        if not self.entries:
            raise ValueError("the opponent pool is empty")
        for e in self.entries:
            if e.weight < 0:
                raise ValueError(f"opponent {e.policy!r}: weight must be >= 0")
        self.keep = keep
        self.snapshots: list[str] = []
        self._loaded: dict[str, Any] = {}

    @staticmethod
    def _entry(e) -> PoolEntry:
        if isinstance(e, PoolEntry):
            return e
        if isinstance(e, str):
            return PoolEntry(e)
        if isinstance(e, dict):
            unknown = set(e) - {"policy", "weight"}
            if unknown:
                raise ValueError(f"opponent entry: unknown key(s) {sorted(unknown)}")
            return PoolEntry(str(e["policy"]), float(e.get("weight", 1.0)))
        raise ValueError(f"opponent entry {e!r}: use a policy name or {{policy, weight}}")

    def add_snapshot(self, path: str) -> None:
        self.snapshots.append(path)
        self.snapshots = self.snapshots[-self.keep:]
        for stale in set(self._loaded) - set(self.snapshots):
            del self._loaded[stale]

    def draw(self, rng: np.random.Generator, game, seed: int):
        entries = [e for e in self.entries if e.policy != "self" or self.snapshots]
        weights = np.array([e.weight for e in entries], dtype=float)
        if weights.sum() <= 0:
            raise ValueError("the opponent pool has no entry with positive weight")
        entry = entries[int(rng.choice(len(entries), p=weights / weights.sum()))]
        if entry.policy == "self":
            path = self.snapshots[int(rng.integers(len(self.snapshots)))]
            if path not in self._loaded:
                from stichzoo.policies.runtimes.torch_policy import TorchPolicy

                self._loaded[path] = TorchPolicy.load(path, game, deterministic=False)
            policy = self._loaded[path]
            policy.reseed(seed)
            return policy
        from stichzoo.policies.specs import build_policy

        return build_policy(entry.policy, game, seed)


class SingleSeatEnv(gym.Env):
    """One seat of a stichzoo game as a Gymnasium env with ``action_masks()``.

    ``illegal`` says what an illegal action of the learner does: ``"terminate"``
    (default) ends the episode with reward :data:`ILLEGAL_REWARD`, ``"raise"``
    raises :class:`~stichzoo.envs.core.game.IllegalActionError`; see the module
    docstring.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, game: str, options: dict | None = None,
                 opponents: OpponentPool | list | None = None, reward: str = "score",
                 reward_scale: float = 1.0, seat: int | None = None,
                 render_mode: str | None = None, illegal: str = "terminate"):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported; choose one of "
                             f"{self.metadata['render_modes']} or None")
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal={illegal!r}: choose one of {list(ILLEGAL_MODES)}")
        self.game_name = game
        # The view draws the table itself, from the learner's seat: the AEC env's own
        # "human" render would print every opponent's hand as that opponent moves.
        self.aec = envs.env_module(game).raw_env(
            reward=reward, reward_scale=reward_scale,
            render_mode=None if render_mode == "human" else render_mode, **(options or {}))
        self.game = self.aec.game
        n = self.game.num_players
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat={seat!r} must be an integer in 0..{n - 1} or None (drawn)")
        self.fixed_seat = seat
        self.illegal = illegal
        if opponents is None:
            opponents = ["random"]
        self.pool = opponents if isinstance(opponents, OpponentPool) else OpponentPool(opponents)
        space = self.aec.observation_space("player_0")
        self.observation_space = space["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.render_mode = render_mode
        self.seat = 0
        self.learner = "player_0"
        self._mask = np.zeros(self.game.num_actions, np.int8)
        self._opponents: dict[int, Any] = {}
        self._started = False  # reset() has run
        self._ended = False  # the episode is over (game end or an illegal action)

    # -- gymnasium API ---------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        self.aec.reset(seed=int(rng.integers(2**31 - 1)))
        n = self.game.num_players
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
        self.learner = f"player_{self.seat}"
        self._opponents = {s: self.pool.draw(rng, self.game, int(rng.integers(2**31 - 1)))
                           for s in range(n) if s != self.seat}
        self._started, self._ended = True, False
        self._advance()
        obs, _, _, _, info = self._view()
        self._show()
        return obs, info

    def step(self, action):
        if not self._started:
            raise gym.error.ResetNeeded("SingleSeatEnv.step() before reset(): call reset() first")
        if self._ended:
            raise gym.error.ResetNeeded("SingleSeatEnv.step() after the episode ended: "
                                        "call reset() first")
        a = self._action_id(action)
        try:
            self.aec.step(a)  # the learner's own move; an illegal one raises, changing nothing
        except IllegalActionError as e:
            if self.illegal == "raise":
                raise
            return self._illegal_end(a, e)
        self._advance()
        out = self._view()
        self._show()
        return out

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table from the learner's seat: the public table and the learner's hand.

        ``ansi`` (also without a render_mode): as text.  ``human``: that text
        printed; ``reset`` and every ``step`` print it by themselves, as Gymnasium's
        human mode does, and ``render()`` returns None.  ``rgb_array``: as a picture,
        an ``HxWx3`` uint8 array of a fixed size (:mod:`stichzoo.envs.core.picture`;
        needs Pillow, ``stichzoo[render]``) - what ``gymnasium.wrappers.RecordVideo``
        records.  Rendering changes nothing in the game.
        """
        if not self._started:
            raise gym.error.ResetNeeded("SingleSeatEnv.render() before reset(): there is no "
                                        "game to show yet; call reset() first")
        if self.render_mode == "rgb_array":
            return table_picture(self.game, self.aec.state_, self.seat)
        text = self.aec.encoder.render(self.aec.state_, self.seat, False)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _show(self) -> None:
        """Human mode: the table after every reset and step."""
        if self.render_mode == "human":
            self.render()

    # -- internals ----------------------------------------------------------------------

    def _advance(self) -> None:
        """Let the opponents act until the learner is to act or the game ends."""
        aec, state, game = self.aec, self.aec.state_, self.game
        while not (state.over or state.truncated) and state.current_player != self.seat:
            seat = state.current_player
            aec.step(self._opponents[seat].act(Decision(game, state, seat)))

    def _action_id(self, action: Any) -> int:
        """The action as a plain int; anything outside ``action_space`` is an error in any mode.

        (Gymnasium leaves actions outside the space undefined; PettingZoo's
        ``env()`` asserts them.  Only in-space actions the rules refuse are
        "illegal moves" that may end the episode.)
        """
        try:
            a = int(action)
            ok = a == action and 0 <= a < self.action_space.n
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise IllegalActionError(f"action {action!r} is not in the action space "
                                     f"Discrete({self.action_space.n})")
        return a

    def _illegal_end(self, action: int, error: IllegalActionError):
        """PettingZoo's TerminateIllegalWrapper for one seat: episode over, penalty, reason."""
        self._ended = True
        self._mask = np.zeros(self.game.num_actions, np.int8)  # nothing is legal any more
        obs = self.aec.observe(self.learner)["observation"]
        # Rewards earned before this decision were credited by the previous step.
        self.aec._cumulative_rewards[self.learner] = 0
        info: dict[str, Any] = {"seat": self.seat, "illegal_action": action,
                                "illegal_reason": str(error)}
        return obs, ILLEGAL_REWARD, True, False, info

    def _view(self):
        aec, state = self.aec, self.aec.state_
        obs = aec.observe(self.learner)
        self._mask = obs["action_mask"]
        reward = float(aec._cumulative_rewards[self.learner])
        aec._cumulative_rewards[self.learner] = 0  # credited now; not again
        terminated, truncated = bool(state.over), bool(state.truncated)
        info: dict[str, Any] = {"seat": self.seat}
        if terminated or truncated:
            self._ended = True
            winners = state.winners()
            info["final_totals"] = list(state.totals)
            info["win_share"] = (1 / len(winners)) if self.seat in winners else 0.0
            info["metrics"] = self._metrics()
        return obs["observation"], reward, terminated, truncated, info

    def _metrics(self) -> dict[str, float]:
        try:
            module = metrics_of(self.game_name)
        except ModuleNotFoundError:
            return {}
        return module.seat_metrics(self.aec.state_)[self.seat]

    # -- self-play league -------------------------------------------------------------

    def add_snapshot(self, path: str) -> None:
        self.pool.add_snapshot(path)


__all__ = ["ILLEGAL_REWARD", "OpponentPool", "PoolEntry", "SingleSeatEnv", "make_policy"]
