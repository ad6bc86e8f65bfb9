"""Gymnasium ids for the single-seat views: ``gymnasium.make("stichzoo/Wizard-v0")``.

One id per game, the game's name in CamelCase (the PettingZoo ids,
``stichzoo/wizard-v0`` in PettingZoo's own registry, stay lower case)::

    stichzoo/Wizard-v0          wizard
    stichzoo/WunderPunkt-v0     wunder_punkt
    stichzoo/SilberneAnanas-v1  silberne_ananas
    stichzoo/HochTief-v0        hoch_tief
    stichzoo/Geheimtrumpf-v4    geheimtrumpf

Each makes a :class:`~stichzoo.training.gym.single_seat.SingleSeatEnv`; the
keyword arguments of ``make`` (``options``, ``opponents``, ``reward``,
``reward_scale``, ``seat``, ``render_mode``, ``illegal``) pass through to it.
``gymnasium.make_vec(id, num_envs=N, ...)`` makes the same view of N games
on the batch engine, :class:`~stichzoo.training.gym.vector.SeatVectorEnv`
(Gymnasium's ``vector_entry_point``; keyword arguments ``options``,
``opponents``, ``reward``, ``reward_scale``, ``seat``);
``vectorization_mode="sync"`` or ``"async"`` wraps N single-seat views instead.
``import stichzoo`` registers them: entry points are strings, so
registering imports no game, no bot and nothing beyond gymnasium, which
``import stichzoo`` loads anyway (through PettingZoo).
"""

from __future__ import annotations

from stichzoo.envs.registry import GAMES, VERSIONS

ENTRY_POINT = "stichzoo.training.gym.single_seat:SingleSeatEnv"
VECTOR_ENTRY_POINT = "stichzoo.training.gym.vector:SeatVectorEnv"


def gym_id(game: str) -> str:
    """``wunder_punkt`` -> ``stichzoo/WunderPunkt-v0``."""
    return ("stichzoo/" + "".join(part.capitalize() for part in game.split("_"))
            + f"-v{VERSIONS[game]}")


#: game name -> Gymnasium id
GYM_IDS: dict[str, str] = {game: gym_id(game) for game in GAMES}


def register_with_gymnasium() -> None:
    """Register every game's single-seat view; a second call changes nothing."""
    from gymnasium.envs.registration import register, registry

    for game, env_id in GYM_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                     kwargs={"game": game})


__all__ = ["GYM_IDS", "gym_id", "register_with_gymnasium"]
