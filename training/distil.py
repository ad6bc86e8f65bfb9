"""Soft targets for expert iteration: the search's values, not only its choice.

PIMC at its default budget often cannot tell its best action from the next
one: the two differ by less than the noise of a dozen sampled worlds, and
its argmax between them is a coin flip.  Imitating that argmax teaches the
coin flips (Hoch & Tief: a network fitted on 72k PIMC choices predicted
0.465 of held-out ones, docs/levers.md).  A *soft* target spreads the
probability over the actions the search cannot tell apart and away from
the ones it measured clearly worse:

    target(a) ∝ exp((v(a) - v(best)) / (temperature * noise))

where ``noise`` is the decision's typical standard error of an action's
difference to the best (the paired per-world differences the search
reports), so an action one standard error below the best keeps ``e**-1``
of the best's weight at ``temperature`` 1, and one ten errors below is
gone.  The temperature is set by the search's own noise, per decision:
a budget that measures sharply gives sharp targets, a noisy one soft
targets (Anthony et al. 2017 and Gumbel AlphaZero fit the search's whole
distribution for the same reason).  Actions the search did not play (a
guide's pruned candidates) get no weight; a forced move is one-hot.
"""

from __future__ import annotations

import math

import numpy as np

from stichzoo.policies.search import SearchValues

#: the smallest noise a temperature is scaled by (value units: points): a decision whose
#: every difference came out exact (identical rollouts) would otherwise divide by zero
MIN_NOISE = 1e-6


def decision_noise(values: SearchValues) -> float | None:
    """The root mean square standard error of the searched actions' differences to the best.

    None when there is nothing to measure it from (one world, or one searched action).
    """
    errors = [v.difference_stderr for v in values.values
              if v.value is not None and v.difference_stderr is not None
              and v.action != values.action]
    if not errors:
        return None
    return max(math.sqrt(sum(e * e for e in errors) / len(errors)), MIN_NOISE)


def soft_target(values: SearchValues, num_actions: int, temperature: float) -> np.ndarray:
    """The imitation target of one search: a distribution over all ``num_actions`` ids.

    ``temperature`` 0 is the search's choice one-hot (the old argmax target).
    """
    target = np.zeros(num_actions, np.float32)
    searched = [v for v in values.values if v.value is not None]
    noise = decision_noise(values)
    if temperature <= 0 or len(searched) < 2 or noise is None:
        target[values.action] = 1.0
        return target
    top = max(v.value for v in searched)
    scale = temperature * noise
    for v in searched:
        target[v.action] = math.exp((v.value - top) / scale)
    target /= target.sum()
    return target
