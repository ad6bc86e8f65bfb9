"""Wizard's options as the compiled kernel reads them (``envs/kernel/src/wizard.c``).

Kept apart from the rules so that the rules core needs nothing of the kernel.
"""

from __future__ import annotations

from stichzoo.envs.wizard.rules import WizardGame

#: hand sizes packed into one option int (5 bits each: 1..20 fit)
PACK = 12


def kernel_options(game: WizardGame) -> list[int]:
    """The options in ``wizard_configure``'s order.

    ``[num_players, dealer_bid_restriction (0/1), first_dealer, R, *sizes]``
    where R is the number of rounds (``len(game.round_sizes)``, the full
    game's 1..60/n when the option ``rounds`` is None) and ``sizes`` their
    hand sizes packed 12 to an int, round ``k`` in bits ``5 * (k % 12)`` of
    ``sizes[k // 12]`` (the kernel takes at most 32 ints: up to 336 rounds).
    """
    o, rs = game.options, game.round_sizes
    packed = [sum(r << 5 * j for j, r in enumerate(rs[i:i + PACK]))
              for i in range(0, len(rs), PACK)]
    return [o.num_players, int(o.dealer_bid_restriction), o.first_dealer, len(rs), *packed]
