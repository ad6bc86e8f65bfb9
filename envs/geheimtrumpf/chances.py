"""Geheimtrumpf chance estimates: how likely a card wins a trick, a hand a task.

Rough, rule-derived numbers that the heuristic bot drafts, chooses and
plays by, and that the observation's draft reading (``reading.py``,
version 2) hands to a network: a network imitating the heuristic agreed
with its card draft on 0.774 of held-out decisions from the raw pieces,
0.836 with these (``scripts/probes/probe_imitation.py``, docs/lab/observation.md).
They read only what a seat may know - its view of the trumps (the true
draw once it knows them, else the average over every draw that agrees with
the announced row winners) and the public hands and rows.

* :data:`CARD_CHANCES`: per trump draw, each card's static chance to win a
  trick (Obertrumpf ~1, other trump-value cards, the trump suit by rank,
  plain cards by rank in their suit, damped by how many trumps exist) and
  to win the *last* trick; :func:`belief` is a seat's view of them.
* :func:`trick_dist`: a hand's trick count as a Poisson-binomial of its
  cards' chances; :func:`task_chance`: the chance to meet a task from it.
* :func:`projected_chance`: the chance to meet a task if the seat takes a
  row card now and drafts toward the task in the later rows.
"""

from __future__ import annotations

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import float_sum
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_VALUE,
    FEWEST_TRICKS,
    LAST_TRICK,
    MOST_TRICKS,
    NO_SUIT0,
    NO_TRICK,
    NUM_CARDS,
    ROWS,
    SUIT_MASK,
    THREE_TRICKS,
    TRUMPS,
    consistent_trumps,
)

_PLAIN = (0.9, 0.55, 0.3, 0.15, 0.08, 0.05, 0.03, 0.02, 0.02)


def _card_chances(t) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(chance to win a trick, chance to win the last trick) per card under trumps ``t``."""
    power = t.power
    n_trumps = t.mask.bit_count()
    damp = max(0.2, 1.0 - n_trumps / 14)
    win, last = [], []
    for c in range(NUM_CARDS):
        p = power[c]
        if p == 30:
            w, ll = 0.97, 0.95
        elif p == 20:
            w, ll = (0.8, 0.55) if t.suit >= 0 else (0.75, 0.45)
        elif p:
            above = sum(1 for d in range(NUM_CARDS) if 10 < power[d] < 20 and power[d] > p)
            w, ll = max(0.12, 0.75 - 0.1 * above), max(0.03, 0.5 - 0.1 * above)
        else:
            g = t.group[c]
            above = sum(1 for d in bit_list(g) if CARD_VALUE[d] > CARD_VALUE[c])
            w = _PLAIN[above] * damp
            ll = (0.3 if above == 0 else 0.05) if n_trumps == 0 else 0.02
        win.append(w)
        last.append(ll)
    scale = 9.0 / float_sum(win) * (NUM_CARDS / 36)
    return tuple(min(0.99, w * scale) for w in win), tuple(last)


#: per trump draw (suit, value): the chances of :func:`_card_chances`
CARD_CHANCES = {key: _card_chances(t) for key, t in TRUMPS.items()}

_belief_cache: dict = {}


def belief(s, seat: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Win / last-trick chance per card as ``seat`` sees it (averaged over unknown trumps)."""
    if s.trumps_known_to(seat):
        return CARD_CHANCES[(s.trumps.suit, s.trumps.value)]
    key = (s.num_players, s.start, tuple(s.draft_rows), tuple(s.row_winners))
    hit = _belief_cache.get(key)
    if hit is not None:
        return hit
    keys = consistent_trumps(s)
    k = len(keys)
    win = [0.0] * NUM_CARDS
    last = [0.0] * NUM_CARDS
    for key2 in keys:
        w, ll = CARD_CHANCES[key2]
        for c in range(NUM_CARDS):
            win[c] += w[c]
            last[c] += ll[c]
    out = (tuple(x / k for x in win), tuple(x / k for x in last))
    if len(_belief_cache) > 4096:
        _belief_cache.clear()
    _belief_cache[key] = out
    return out


def trick_dist(probs) -> list[float]:
    """Poisson-binomial: P(k tricks) for independent win chances ``probs``."""
    d = [1.0]
    for p in probs:
        q = 1.0 - p
        nd = [0.0] * (len(d) + 1)
        for k, x in enumerate(d):
            nd[k] += x * q
            nd[k + 1] += x * p
        d = nd
    return d


# chance to be strictly first / strictly last, by own trick count (rough, per table size)
_MOST = {3: (0, 0, 0.03, 0.2, 0.55, 0.85, 0.97, 1, 1, 1),
         4: (0, 0, 0.05, 0.35, 0.7, 0.95, 1, 1, 1, 1)}
_FEWEST = {3: (0.9, 0.6, 0.25, 0.05, 0, 0, 0, 0, 0, 0),
           4: (0.85, 0.45, 0.1, 0, 0, 0, 0, 0, 0, 0)}


def task_chance(task: int, dist: list[float], n: int, last: float = 0.0, suit_cards: int = 0,
                others: list[list[float]] | None = None) -> float:
    """Estimated chance to meet ``task`` with trick-count distribution ``dist``.

    ``last``: chance to win the last trick; ``suit_cards``: cards held of the
    suit a "no suit" task forbids; ``others``: the other players' trick
    distributions (for "most"/"fewest"; else rough chances per trick count).
    """
    if task <= THREE_TRICKS:
        return dist[task] if task < len(dist) else 0.0
    if task == LAST_TRICK:
        return last
    if task in (MOST_TRICKS, FEWEST_TRICKS):
        most = task == MOST_TRICKS
        if others is None:
            chances = (_MOST if most else _FEWEST)[n]
            return float_sum(x * chances[min(k, 9)] for k, x in enumerate(dist))
        total = 0.0
        for k, x in enumerate(dist):
            if x < 1e-6:
                continue
            pr = x
            for od in others:
                pr *= float_sum(od[:k]) if most else float_sum(od[k + 1:])
            total += pr
        return total
    # no cards of a suit: no trick, or tricks that happen to hold none of it
    a = max(0.05, 0.45 - 0.08 * suit_cards)
    p1 = dist[1] if len(dist) > 1 else 0.0
    p2 = dist[2] if len(dist) > 2 else 0.0
    return dist[0] + p1 * a + p2 * a * a


def draft_future(s, seat: int) -> list[tuple[list[int], int]]:
    """Per row after the one being drafted: its cards and ``seat``'s place in its choice
    (0: first, 1: any later - the second-best card is what it can expect there)."""
    n = s.num_players
    return [(bit_list(s.rows[r]), min((seat - s.row_first(r)) % n, 1))
            for r in range(s.draft_row + 1, ROWS)]


def projected_chance(t: int, hand: list[int], c: int, future: list[tuple[list[int], int]],
                     win, last, n: int) -> float:
    """Chance to meet task ``t`` if the seat takes ``c`` and later drafts toward ``t``.

    ``hand``: the cards it holds; ``future``: :func:`draft_future`; ``win``,
    ``last``: its :func:`belief`.  Each later row gives the card the task
    wants (low for "no trick" / "fewest" / "no suit" - no cards of the
    forbidden suit -, high for "most", a mix that lands on the count for
    "exactly k", one top trump for "last trick").
    """
    probs = [win[x] for x in hand]
    probs.append(win[c])
    if t >= NO_SUIT0:
        bad = SUIT_MASK[t - NO_SUIT0]
        suit_cards = sum(1 for x in hand if (bad >> x) & 1) + ((bad >> c) & 1)
        for cards, k in future:
            ranked = sorted(cards, key=lambda x: win[x] + (0.3 if (bad >> x) & 1 else 0))
            pick = ranked[min(k, len(ranked) - 1)]
            probs.append(win[pick])
            suit_cards += (bad >> pick) & 1
        return task_chance(t, trick_dist(probs), n, suit_cards=suit_cards)
    if t == LAST_TRICK:
        best_last = max([last[x] for x in hand] + [last[c]])
        for cards, k in future:
            ranked = sorted(cards, key=lambda x: -last[x])
            pick = ranked[min(k, len(ranked) - 1)]
            best_last = max(best_last, last[pick])
        return best_last
    if t == MOST_TRICKS:
        for cards, k in future:
            ranked = sorted((win[x] for x in cards), reverse=True)
            probs.append(ranked[min(k, len(ranked) - 1)])
        return task_chance(t, trick_dist(probs), n)
    if t in (NO_TRICK, FEWEST_TRICKS):
        for cards, k in future:
            ranked = sorted(win[x] for x in cards)
            probs.append(ranked[min(k, len(ranked) - 1)])
        return task_chance(t, trick_dist(probs), n)
    # exactly t tricks: all later rows low, then raise rows while the mean gets closer
    lows, gains = [], []
    for cards, k in future:
        ranked = sorted(win[x] for x in cards)
        lo = ranked[min(k, len(ranked) - 1)]
        hi = ranked[max(len(ranked) - 1 - k, 0)]
        lows.append(lo)
        gains.append(hi - lo)
    mean = float_sum(probs) + float_sum(lows)
    order = sorted(range(len(lows)), key=lambda i: -gains[i])
    for i in order:
        if abs(mean + gains[i] - t) < abs(mean - t):
            mean += gains[i]
            lows[i] += gains[i]
    probs.extend(lows)
    return task_chance(t, trick_dist(probs), n)


def row_chances(s, seat: int) -> tuple[tuple[float, ...], dict[int, dict[int, float]]]:
    """``seat``'s win chances (:func:`belief`) and, per card of the row being drafted and
    per open task, the :func:`projected_chance` of the task if the seat takes the card.

    The one table both the observation's draft reading and the heuristic's card draft
    read (the heuristic adds its hedge and tie-break on top), so the two cannot drift.
    """
    win, last = belief(s, seat)
    n = s.num_players
    hand = bit_list(s.hands[seat])
    tasks = bit_list(s.held[seat] & ~s.checked[seat])
    future = draft_future(s, seat)
    return win, {c: {t: projected_chance(t, hand, c, future, win, last, n) for t in tasks}
                 for c in bit_list(s.rows[s.draft_row] & s.layout)}
