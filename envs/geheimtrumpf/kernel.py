"""Geheimtrumpf's options for the compiled kernel (envs/kernel/src/geheimtrumpf.c).

The C file's ``configure`` reads a plain list of ints; this says which.
"""

from __future__ import annotations


def kernel_options(game) -> list[int]:
    """``[num_players, round_limit, first_start]`` of a :class:`GeheimtrumpfGame`.

    ``round_limit`` is also the number of deck orders a game deals (one per
    possible round).
    """
    o = game.options
    return [o.num_players, o.round_limit, o.first_start]
