"""What a seat earns: the reward modes every front end of a game shares.

The AEC env (``envs/core/aec.py``), the batch engine (``envs/core/batch.py``)
and the game records (``envs/core/record.py``, which check a record's
``env_kwargs``) read the reward arguments from here, so the three agree on
what ``reward`` and ``reward_scale`` may be and what each mode pays.
"""

from __future__ import annotations

import numpy as np

from stichzoo.envs.core.game import Game, GameState, win_share

REWARD_MODES = ("score", "win", "standing", "margin")


def margin(gains: list[int] | list[float], seat: int) -> float:
    """``gains[seat]`` minus the mean of the other seats' gains: the ``margin`` reward, and
    the value the search plays for (``search.score_gain``)."""
    others = (sum(gains) - gains[seat]) / (len(gains) - 1)
    return gains[seat] - others


def check_reward_args(game_cls: type[Game], reward: str, reward_scale: float) -> None:
    """The env arguments every front end of a game shares (AEC env, batch engine)."""
    name = game_cls.name
    if reward not in REWARD_MODES:
        raise ValueError(f"{name}: reward={reward!r} is not allowed; choose one of "
                         f"{list(REWARD_MODES)}")
    if reward == "standing" and not game_cls.has_standing:
        raise ValueError(f"{name}: reward='standing' needs an estimate of the match standing "
                         f"between rounds, which this game does not have; choose 'score' or "
                         f"'win'")
    if isinstance(reward_scale, bool) or not isinstance(reward_scale, (int, float)) \
            or not np.isfinite(reward_scale) or reward_scale <= 0:
        raise ValueError(f"{name}: reward_scale={reward_scale!r} must be a positive number")


def step_rewards(state: GameState, mode: str, scale: float) -> list[float] | None:
    """What each seat earned by the step that led to ``state``; None when nobody earned.

    ``score``: the step's score changes (a round's end) x ``scale``.  ``margin``:
    each seat's score change less the mean change of the others, x ``scale`` -
    what the duplicate tournaments and the search (``search.score_gain``)
    measure; a round's margins sum to zero, so a move that costs every seat
    alike is worth nothing, and holding an opponent to a low score is worth
    as much as scoring.  ``win``:
    at the end only, the winners share +1.  ``standing``: after every round
    the change of each seat's standing (``Game.standing`` of the totals
    after it less that of the totals before it), and at the end the win
    share less the standing before the last round.  The standing rewards of
    a game sum to the win share less the (constant) standing of the start,
    so they are potential-based shaping of ``win``: the same best play, a
    signal every round instead of once a match.
    """
    deltas = state.last_deltas
    if mode == "score":
        return [d * scale for d in deltas] if deltas else None
    if mode == "margin":
        return [margin(deltas, i) * scale for i in range(len(deltas))] if deltas else None
    if mode == "win":
        if not state.over:
            return None
        return win_share(state.winners(), len(state.totals))
    if not deltas:
        return None
    game = state.game
    before = game.standing([t - d for t, d in zip(state.totals, deltas, strict=True)])
    after = win_share(state.winners(), len(state.totals)) if state.over \
        else game.standing(state.totals)
    return [a - b for a, b in zip(after, before, strict=True)]
