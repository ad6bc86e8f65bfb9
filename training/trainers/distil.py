"""Soft targets for expert iteration: the search's values, not only its choice.

PIMC at its default budget often cannot tell its best action from the next
one: the two differ by less than the noise of a dozen sampled worlds, and
its argmax between them is a coin flip.  Imitating that argmax teaches the
coin flips (Hoch & Tief: a network fitted on 72k PIMC choices predicted
0.465 of held-out ones, docs/lab/imitation.md).  A *soft* target spreads the
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

``improved_targets`` is the other soft target: the network's own policy
reweighted by the same ``exp(advantage / temperature)`` - a policy
improvement step rather than a copy of the search.
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


#: the advantage of an action the target must not choose (not legal, not searched)
NEVER = -1e9


def advantage(values: SearchValues, num_actions: int) -> np.ndarray:
    """Each action's value minus the best, in standard errors (``decision_noise``): 0 for the
    best, :data:`NEVER` for actions without a value.  A decision without a measured noise
    (a forced move, one world) is the search's choice alone: 0 there, NEVER elsewhere."""
    adv = np.full(num_actions, NEVER, np.float32)
    searched = [v for v in values.values if v.value is not None]
    noise = decision_noise(values)
    if len(searched) < 2 or noise is None:
        adv[values.action] = 0.0
        return adv
    top = max(v.value for v in searched)
    for v in searched:
        adv[v.action] = (v.value - top) / noise
    return adv


def improved_targets(logits: np.ndarray, advantages: np.ndarray,
                     temperature: float) -> np.ndarray:
    """The network's own policy improved by the search: softmax(logits + advantage / T).

    Where the search cannot tell actions apart the network keeps its own
    preference (its PPO-learned play); where the search measured an action
    clearly worse, its weight falls by ``e`` per ``temperature`` standard
    errors.  Gumbel AlphaZero's policy target (softmax of the prior's logits
    plus a transform of the search's values) and MPO's improvement step
    (prior times exp(Q / T)) have this form; it never asks the network to
    copy the search's coin flips among near-ties.  ``logits`` are the
    network's masked logits before the fit (rows: decisions).
    """
    z = logits.astype(np.float64) + advantages.astype(np.float64) / temperature
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)


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
