"""How good a match standing is between deals: the chance of ending in the middle.

The middle total wins the match, so a total is neither good nor bad by its
size - only by where it sits between the other two with the deals still to
come.  ``match_value`` estimates that chance with every total drifting by a
normal noise of ``DEAL_SIGMA`` points per remaining deal (Gauss-Hermite
quadrature; the deals left are estimated from the leader's distance to the
target).  It is not a rule of the game but an estimate, and it serves two
readers: the heuristic bot steers by it, and the env's ``reward="standing"``
pays its change after every deal (potential-based shaping of the win
reward, so the best play is the same as under ``reward="win"``).
"""

from __future__ import annotations

import math

import numpy as np

#: spread of one seat's deal score around the others' (points per deal, rough)
DEAL_SIGMA = 8.0
#: points the leader gains per deal on average (to estimate the deals left)
LEADER_GAIN = 17.0


def _gauss_hermite(n: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Weights and nodes with sum(w * f(x)) ~ E[f(Z)], Z standard normal."""
    x, w = np.polynomial.hermite_e.hermegauss(n)
    return tuple(float(v) / math.sqrt(2 * math.pi) for v in w), tuple(float(v) for v in x)


_GH_W, _GH_X = _gauss_hermite(9)


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x * 0.7071067811865476))


def match_value(totals, seat: int, target: int = 100) -> float:
    """Chance-like value of ``seat`` finishing in the middle from these totals (game goes on)."""
    others = [totals[p] for p in range(len(totals)) if p != seat]
    deals_left = max(1.0, (target - max(totals)) / LEADER_GAIN)
    sigma = DEAL_SIGMA * math.sqrt(deals_left)
    me = totals[seat]
    ta, tb = others
    v = 0.0
    for w, z in zip(_GH_W, _GH_X, strict=True):
        x = me + sigma * z
        fa = _phi((x - ta) / sigma)
        fb = _phi((x - tb) / sigma)
        v += w * (fa * (1.0 - fb) + fb * (1.0 - fa))
    return v


def standing(totals, target: int) -> tuple[float, ...]:
    """Every seat's ``match_value`` from these totals."""
    return tuple(match_value(totals, s, target) for s in range(len(totals)))
