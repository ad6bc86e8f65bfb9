"""Hoch & Tief's options for the compiled kernel (envs/kernel/src/hoch_tief.c).

The C file's ``configure`` reads a plain list of ints; this says which.
"""

from __future__ import annotations


def kernel_options(game) -> list[int]:
    """``[num_players, rounds, first_dealer]`` of a :class:`HochTiefGame`.

    ``rounds`` is the game's resolved number of rounds (``options.rounds``,
    or one per player when that is None).
    """
    return [game.num_players, game.num_rounds, game.options.first_dealer]
