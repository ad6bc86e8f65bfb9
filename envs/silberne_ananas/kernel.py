"""Silberne Ananas's options as the compiled kernel reads them.

The reader is ``sa_configure`` in ``envs/kernel/src/silberne_ananas.c``.  Kept
apart from the rules so that the rules core needs nothing of the kernel.
"""

from __future__ import annotations

from stichzoo.envs.silberne_ananas.rules import SilberneAnanasGame


def kernel_options(game: SilberneAnanasGame) -> list[int]:
    """The options in ``sa_configure``'s order.

    ``[num_players (3), match (0/1), target_score, alone_variant (0/1),
    first_dealer, max_deals]`` - ``max_deals`` being the deck orders a game
    draws (``game.max_deals``: 1 for a single deal), which the kernel checks
    against the options.
    """
    o = game.options
    return [o.num_players, int(o.match), o.target_score, int(o.alone_variant), o.first_dealer,
            game.max_deals]
