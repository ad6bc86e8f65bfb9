"""Wunder Punkt's options as the compiled kernel reads them (envs/kernel/src/wunder_punkt.c).

Why: the C ``configure`` takes a flat list of ints, not the options
dataclass; this is the one place that spells out their order.
"""

from __future__ import annotations

from stichzoo.envs.wunder_punkt.rules import WunderPunktGame


def kernel_options(game: WunderPunktGame) -> list[int]:
    """``[num_players, larger_hands (0/1), num_rounds, first_dealer]``.

    ``num_rounds`` is the number of rounds actually played (the ``rounds``
    option, or one per player when it is None).
    """
    o = game.options
    return [game.num_players, int(o.larger_hands), game.num_rounds, o.first_dealer]
