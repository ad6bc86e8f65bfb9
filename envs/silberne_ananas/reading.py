"""What a Silberne Ananas seat can read off the table, as observation pieces (version 1).

Every fact here follows from what the seat sees - its own hand, the trick
in play, the cards played, the suits others showed out of, who cannot hold
the Joker, tricks taken and totals (hand *sizes* are public) - by the rules
and the standing estimate of ``standing.py``; nothing reads another hand.
The raw pieces hold the same information, but the odd-one-out trick rule
(three of a suit: the middle card; two of a suit: the other card; three
suits: the odd colour) and the scoring (own tricks + 2 x the right
neighbour's; the middle score, then the middle total wins) are hard to learn
from raw cards, and the measurement says a network does not: a 256x256
network imitating the heuristic agreed with its card play on 0.738 of
held-out decisions, with its Joker gifts on 0.588, and lost 0.311 in win
rate to it; with these pieces 0.861, 1.000 and +0.019
(``scripts/probes/probe_imitation.py``, 300,000 decisions, 198 games).

- ``taker_values`` (:func:`taker_values`, which the heuristic bot steers by
  too): per relative seat, its value (chance-like, 0..1) of the trick in
  progress going to each relative seat - the tricks still to come split
  uniformly at random, then the exact result if the deal ends the game,
  else the match standing (``standing.py``).
- ``best_taker``: per relative seat, the taker it values most - where a
  Joker's player gives the trick.
- The seat to play only (all zero for the others and in the gift):
  ``card_takers``, per own legal card and relative seat, the chance that
  the seat takes the trick if the card is played now, and ``card_values``,
  per own legal card the resulting value for the seat (``taker_values``
  weighted by those chances), scaled so that the best legal card is 1 and
  the worst 0 (all 1 when equal).  Third to play it is exact (a Joker in
  the trick goes to its player's best taker).  Second to play: the last
  seat plays the legal card best for itself, its hand drawn by the
  constrained uniform dealing of ``game.determinize`` (forced cards, voids,
  the Joker) - exact under that dealing.  Leading: the second seat follows
  suit with the chance that it holds the led suit, playing one of its
  possible cards of it uniformly, else the Joker if it must, else an
  off-suit card uniformly; the last seat then replies as above - an
  approximation (the two hands are drawn independently).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from math import comb

import numpy as np

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import float_sum, win_share
from stichzoo.envs.silberne_ananas.rules import (
    CARD_SUIT,
    DECK_SIZE,
    GAME_OVER,
    HAND_SIZE,
    JOKER,
    MIDDLE_BONUS,
    NUM_PLAYERS,
    NUM_RANKS,
    NUM_SUITS,
    PLAY,
    SUIT_MASK,
    deal_scores,
    match_winners,
    middle_seat,
    trick_winner,
)
from stichzoo.envs.silberne_ananas.standing import standing


def multinomial(r: int) -> list[tuple[int, int, int, float]]:
    """Every split (a, b, c) of ``r`` tricks with its probability when each goes to 1 of 3."""
    out = []
    for a in range(r + 1):
        for b in range(r - a + 1):
            c = r - a - b
            p = math.factorial(r) / (math.factorial(a) * math.factorial(b) * math.factorial(c))
            out.append((a, b, c, p / 3**r))
    return out


_SPLITS = [multinomial(r) for r in range(HAND_SIZE + 1)]


_END_CACHE: dict = {}
_TAKER_CACHE: dict = {}


def deal_end_values(options, totals: tuple, tricks: tuple,
                    estimate: Callable = standing) -> tuple[float, ...]:
    """Per seat, the value of the deal ending with ``tricks`` from the ``totals`` before it.

    ``estimate(totals, target)`` values a standing the match goes on from:
    ``standing.py``'s by default (the observation and the heuristic); a
    search may pass its own (``policies/lab/standing.py``).
    """
    key = (options, totals, tricks, estimate)
    v = _END_CACHE.get(key)
    if v is not None:
        return v
    base = deal_scores(list(tricks))
    mid = middle_seat(base)
    if not options.match:
        v = tuple(1.0 if s == mid else 0.0 for s in range(NUM_PLAYERS))
    else:
        new = [totals[s] + base[s] + (MIDDLE_BONUS if s == mid else 0) for s in range(NUM_PLAYERS)]
        target = options.target_score
        if max(new) >= target:
            win = match_winners(new, target, options.alone_variant)
            v = tuple(win_share(win, NUM_PLAYERS))
        else:
            v = estimate(new, target)
    if len(_END_CACHE) > 200_000:
        _END_CACHE.clear()
    _END_CACHE[key] = v
    return v


def expected_end(options, totals: tuple, tricks, taker: int, splits,
                 estimate: Callable = standing) -> list[float]:
    """Per seat, the deal-end value expected when ``taker`` takes the trick in progress and
    the tricks after it fall as ``splits`` ((a, b, c, probability) per split) - the uniform
    ones here, a learned chance per seat in ``policies/runtimes/tricks_to_come.py``."""
    t0, t1, t2 = tricks
    b0 = t0 + (taker == 0)
    b1 = t1 + (taker == 1)
    b2 = t2 + (taker == 2)
    acc = [0.0, 0.0, 0.0]
    for a, b, c, p in splits:
        v = deal_end_values(options, totals, (b0 + a, b1 + b, b2 + c), estimate)
        acc[0] += p * v[0]
        acc[1] += p * v[1]
        acc[2] += p * v[2]
    return acc


def taker_values(state, estimate: Callable = standing) -> list[list[float]]:
    """``W[seat][taker]``: expected deal-end value for ``seat`` if ``taker`` takes this trick.

    The tricks after this one are split uniformly at random (multinomial);
    ``estimate`` values the standing after the deal (see :func:`deal_end_values`).
    """
    options = state.game.options
    totals = tuple(state.totals)
    tricks = tuple(state.tricks_won)
    key = (options, totals, tricks, estimate)
    w = _TAKER_CACHE.get(key)
    if w is not None:
        return w
    splits = _SPLITS[HAND_SIZE - sum(tricks) - 1]
    w = [[0.0] * NUM_PLAYERS for _ in range(NUM_PLAYERS)]
    for taker in range(NUM_PLAYERS):
        acc = expected_end(options, totals, tricks, taker, splits, estimate)
        for s in range(NUM_PLAYERS):
            w[s][taker] = acc[s]
    if len(_TAKER_CACHE) > 100_000:
        _TAKER_CACHE.clear()
    _TAKER_CACHE[key] = w
    return w


JOKER_BIT = 1 << JOKER
FULL = (1 << DECK_SIZE) - 1


def _bans(s, p: int) -> int:
    m = JOKER_BIT if s.no_joker[p] else 0
    v = s.voids[p]
    for su in range(NUM_SUITS):
        if v >> su & 1:
            m |= SUIT_MASK[su]
    return m


def reply_model(s, seat: int, p: int, lead: int) -> list[tuple[int, float]]:
    """(card, chance) for the card seat ``p`` plays to a trick led in suit ``lead``, as ``seat``
    sees it.  Off-suit cards stand for their suit by its 7 (only the suit matters then)."""
    other = 3 - seat - p
    pool = FULL & ~(s.hands[seat] | s.played)
    ban_p, ban_o = _bans(s, p), _bans(s, other)
    forced = pool & ban_o & ~ban_p
    free = pool & ~ban_p & ~ban_o
    m = s.hands[p].bit_count() - forced.bit_count()
    nf = free.bit_count()
    lmask = SUIT_MASK[lead]
    forced_l, free_l = forced & lmask, free & lmask
    u = free_l.bit_count()
    if forced_l:
        p_none = 0.0
    elif m <= 0 or nf == 0:
        p_none = 1.0
    else:
        p_none = comb(nf - u, m) / comb(nf, m)
    out: list[tuple[int, float]] = []
    follow = bit_list(forced_l | free_l)
    if follow and p_none < 1.0:
        share = (1.0 - p_none) / len(follow)
        out += [(c, share) for c in follow]
    if p_none > 0.0:
        if forced & JOKER_BIT:
            pj = 1.0
        elif free & JOKER_BIT and nf - u > 0:
            pj = min(1.0, m / (nf - u))
        else:
            pj = 0.0
        off = (forced | free) & ~lmask & ~JOKER_BIT
        counts = [(off & SUIT_MASK[su]).bit_count() for su in range(NUM_SUITS)]
        total = sum(counts)
        if not total:
            pj = 1.0 if (forced | free) & JOKER_BIT else 0.0
        if pj > 0.0:
            out.append((JOKER, p_none * pj))
        if total:
            for su in range(NUM_SUITS):
                if counts[su]:
                    out.append((su * NUM_RANKS, p_none * (1.0 - pj) * counts[su] / total))
    return out


def deal_model(s, seat: int, p: int, without: int = 0) -> tuple[int, int, int]:
    """How ``seat`` sees seat ``p``'s hand: (cards only p may hold, cards either other seat
    may hold, how many of those p holds) - the constrained uniform dealing of
    ``game.determinize``; ``without``: cards known not to be in p's hand."""
    other = 3 - seat - p
    pool = FULL & ~(s.hands[seat] | s.played | without)
    ban_p, ban_o = _bans(s, p), _bans(s, other)
    forced = pool & ban_o & ~ban_p
    free = pool & ~ban_p & ~ban_o
    return forced, free, s.hands[p].bit_count() - forced.bit_count()


def _avoid(mask: int, model) -> float:
    """The chance that the hand of ``model`` holds none of ``mask``."""
    forced, free, m = model
    if mask & forced:
        return 0.0
    nf = free.bit_count()
    if m <= 0:
        return 1.0
    return comb(nf - (mask & free).bit_count(), m) / comb(nf, m)


@cache
def third_takers(a: int, b: int) -> tuple[int, int, int]:
    """Per position in the trick (0, 1, 2), the mask of the third cards ``d`` (Joker-free)
    with which the trick ``a, b, d`` goes to that position - :func:`trick_winner` once per
    card and pair, so that :func:`best_reply` sorts a whole hand by taker in three ands."""
    masks = [0, 0, 0]
    for d in range(DECK_SIZE):
        if d != JOKER:
            masks[trick_winner([a, b, d])] |= 1 << d
    return masks[0], masks[1], masks[2]


def best_reply(model, lead: int, takers: tuple[int, int, int], first: int,
               pref) -> list[float]:
    """Per taker, the chance that the last seat (``model``), playing its legal card best
    for itself (takers in ``pref`` order; the Joker: its best taker), makes it take the
    trick; ``takers``: :func:`third_takers` of the trick's first two cards, led by the
    seat ``first``."""
    forced, free, _ = model
    poss = forced | free
    dist = [0.0] * NUM_PLAYERS
    avoided = 0
    follow = poss & SUIT_MASK[lead]
    off = poss & ~follow & ~JOKER_BIT
    for group in (follow, poss & JOKER_BIT, off):
        if not group:
            continue
        sets = [0] * NUM_PLAYERS
        if group == JOKER_BIT:
            sets[pref[0]] = group
        else:
            for pos in range(NUM_PLAYERS):
                sets[(first + pos) % NUM_PLAYERS] |= group & takers[pos]
        for t in pref:
            if sets[t]:
                before = _avoid(avoided, model)
                avoided |= sets[t]
                dist[t] += before - _avoid(avoided, model)
    return dist


def _best(row) -> int:
    return row.index(max(row))


def _pref(row) -> list[int]:
    return sorted(range(NUM_PLAYERS), key=lambda t: -row[t])


def card_takers(s, seat: int, w) -> dict[int, list[float]]:
    """Per legal card of ``seat`` (to play), the chance per absolute seat of taking the trick."""
    n = NUM_PLAYERS
    trick = s.trick
    cards = trick.cards
    leader = trick.leader
    k = len(cards)
    legal = bit_list(s.legal_mask())
    gift = [_best(w[p]) for p in range(n)]  # a Joker's player gives the trick to its best
    out: dict[int, list[float]] = {}

    def sure(t):
        d = [0.0] * n
        d[t] = 1.0
        return d

    if k and s.lead_suit < 0:  # the Joker led (last trick): its player decides
        return {c: sure(gift[leader]) for c in legal}
    for c in legal:
        if c == JOKER or JOKER in cards:
            out[c] = sure(gift[(leader + [*cards, c].index(JOKER)) % n])
    if k == 2:
        for c in legal:
            if c not in out:
                out[c] = sure((leader + trick_winner([*cards, c])) % n)
        return out
    if k == 1:
        last = (seat + 1) % n
        model = deal_model(s, seat, last)
        pref = _pref(w[last])
        c0 = cards[0]
        for c in legal:
            if c not in out:
                out[c] = best_reply(model, s.lead_suit, third_takers(c0, c), leader, pref)
        return out
    p2, p3 = (seat + 1) % n, (seat + 2) % n
    pref = _pref(w[p3])
    seconds: dict[int, list] = {}
    for c in legal:
        if c in out:
            continue
        lead = CARD_SUIT[c]
        if lead not in seconds:
            seconds[lead] = reply_model(s, seat, p2, lead)
        acc = [0.0] * n
        for d2, q2 in seconds[lead]:
            if d2 == JOKER:
                acc[gift[p2]] += q2
                continue
            without = (1 << d2) if CARD_SUIT[d2] == lead else 0
            dist = best_reply(deal_model(s, seat, p3, without), lead, third_takers(c, d2),
                              seat, pref)
            for t in range(n):
                acc[t] += q2 * dist[t]
        out[c] = acc
    return out


def write_reading(s, seat: int, out: np.ndarray, o: dict[str, int]) -> None:
    """Write ``seat``'s reading pieces into ``out`` at the offsets ``o`` (columns already 0)."""
    if s.phase == GAME_OVER:
        return
    n = NUM_PLAYERS
    w = taker_values(s)
    ov, ob = o["taker_values"], o["best_taker"]
    for r in range(n):
        row = w[(seat + r) % n]
        for t in range(n):
            out[ov + r * n + t] = row[(seat + t) % n]
        out[ob + r * n + (_best(row) - seat) % n] = 1.0
    if s.phase != PLAY or s.current_player != seat:
        return
    oc, ocv = o["card_takers"], o["card_values"]
    mine = w[seat]
    values = {}
    for c, dist in card_takers(s, seat, w).items():
        tot = float_sum(dist)
        v = 0.0
        for t in range(n):
            share = dist[t] / tot if tot > 0 else 0.0
            out[oc + ((t - seat) % n) * DECK_SIZE + c] = share
            v += share * mine[t]
        values[c] = v
    hi, lo = max(values.values()), min(values.values())
    for c, v in values.items():
        out[ocv + c] = (v - lo) / (hi - lo) if hi - lo > 1e-12 else 1.0
