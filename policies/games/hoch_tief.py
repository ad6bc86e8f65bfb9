"""Hoch & Tief bots: a suit-count heuristic and the hooks for PIMC search.

The only decision is which card to play.  What a trick does to a seat is
all in the per-suit counts of its face-up cards: one or two cards of a suit
score their numbers, three or more score one point each.  So two high
cards of a suit are worth a lot and a third ruins them, while in a suit
where a seat already holds three or more every further card is +1.

Heuristic (:class:`Heuristic`), per legal card:

- *Last to play*: the outcome is known exactly - who plays the highest card
  (takes the rest) and who the lowest (takes the highest card).  The card
  with the best score change for the seat minus the mean change of the
  others is played (so it also dumps a third card of a suit on a rival
  sitting on two high ones).
- *Otherwise*: the seat estimates the chance that its card ends up the
  highest and the lowest of the trick - each later player is assumed to
  play a random unseen card of the led suit (any unseen card once known
  void) - and the value of each outcome for its own counts: as the highest
  it takes the trick's other cards (the cards already played plus about
  one led-suit card per later follower); as the lowest it takes the top
  card (the highest so far, or a high led-suit card from a later player).
  Taking a card is worth its number while the seat holds 0 or 1 of its
  suit, costs ``3 - (sum of the two)`` when the seat holds 2 (stop at two
  of a high suit) and is worth +1 in a suit with 3 or more (dump into and
  take from those).  The card with the best expected value is played;
  ties go to the higher card (high cards are the liability in this game:
  they take the rest; breaking ties toward the lower card measured -14
  points per game against this rule).

The heuristic reads only the seat's hand and public facts (the trick, the
taken cards, the voids, the played cards).

Search hooks: no ``rollout_policy`` - PIMC plays its sampled worlds out
with uniformly random cards, which measured best per unit of time (4
players, 1 PIMC seat vs 3 heuristics, duplicate: random rollouts with 24
worlds +23 to +25 points per game, a greedy rollout - exact when last,
else the lowest card - with 12 worlds +19 at the same cost, this heuristic
as rollout with 4 worlds +15 at 4x the cost).  ``search_value`` is the
default score margin over the rest of the round.  ``uniform_playout``
plays a world's round out on bare bitmasks with exactly the draws of the
rules-core loop, 1.5x sooner; ``SEARCH_DEFAULTS`` spends that on 36 worlds
(24 before), the think time the search had with the old loop - measured
better than 24 worlds by +1.16 [+0.23, +2.08] points per round (one round,
4 players, 240 deals x 4 seats; the docs' search re-tuning table).
With the bitmask play-outs a sampled world (``determinize``) costs about
two play-outs, so a guided search (``pimc:guide=``) prices it so
(``world_cost``): at one it thought 1.05-1.08x plain PIMC's time.
"""

from __future__ import annotations

import random

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.rewards import margin
from stichzoo.envs.hoch_tief.rules import NUM_SUITS, HochTiefGame, high_low, score_taken
from stichzoo.policies.base import Decision
from stichzoo.policies.hooks import SearchHooks
from stichzoo.policies.search import score_gain

SEARCH_DEFAULTS = {"worlds": 36, "rollouts": 1, "horizon": "round", "world_cost": 2}
#: the learned search (the ``search`` spec, the ladder's learned-search rungs, the served
#: "hard" level): PIMC whose worlds are valued by the leaf value after four tricks of uniform
#: play (``policies/runtimes/leaf_value.py``), 40 worlds - within plain PIMC's think time
#: (measured in the docs' search probes).  The guided search (``pimc:guide=bot:hoch_tief``)
#: was level with PIMC.
LEARNED_SEARCH = "pimc:leaf=hoch_tief,depth=4,worlds=40"


class _Lookups:
    """Per-game lookups: numbers, suits, suit masks, per-card suit score helpers."""

    def __init__(self, game: HochTiefGame):
        t = game.lookups
        self.n = game.num_players
        self.m = t.numbers
        self.size = t.size
        self.number = t.number
        self.suit = t.suit
        self.suit_mask = t.suit_mask
        self.full = (1 << t.size) - 1


def suit_score(cards: int, number) -> int:
    """Score of one suit's taken cards (bitmask): numbers for 1-2 cards, else the count."""
    k = cards.bit_count()
    if k >= 3:
        return k
    total = 0
    while cards:
        low = cards & -cards
        total += number[low.bit_length() - 1]
        cards ^= low
    return total


def gain(taken: int, add: int, tb: _Lookups) -> int:
    """Score change when the cards ``add`` join the face-up cards ``taken``."""
    d = 0
    number = tb.number
    for sm in tb.suit_mask:
        a = add & sm
        if a:
            t = taken & sm
            d += suit_score(t | a, number) - suit_score(t, number)
    return d


def one_card_gain(taken_suit: int, w: float, number) -> float:
    """Score change for one more card of number ``w`` in a suit holding ``taken_suit``."""
    k = taken_suit.bit_count()
    if k <= 1:
        return w
    if k == 2:
        return 3 - suit_score(taken_suit, number)
    return 1


def exact_last(state, seat: int, legal: list[int], tb: _Lookups) -> list[float]:
    """Margin change of each legal card for the seat that completes the trick."""
    trick = state.trick
    cards = trick.cards
    n = tb.n
    number = tb.number
    taken = state.taken
    leader = trick.leader
    nums = [number[c] for c in cards]
    rest0 = 0
    for c in cards:
        rest0 |= 1 << c
    out = []
    for c in legal:
        hi, lo = high_low([*nums, number[c]])
        allc = [*cards, c]
        high_card = allc[hi]
        hs = (leader + hi) % n
        ls = (leader + lo) % n
        rest = (rest0 | 1 << c) ^ (1 << high_card)
        if hs == ls:
            d = gain(taken[hs], rest | 1 << high_card, tb)
            dh, dl = d, 0
        else:
            dh = gain(taken[hs], rest, tb)
            dl = gain(taken[ls], 1 << high_card, tb)
        mine = (dh if hs == seat else 0) + (dl if ls == seat else 0)
        others = dh + dl - mine
        out.append(mine - others / (n - 1))
    return out


def _frac_ge(nums: list[int], v: int) -> float:
    return sum(1 for x in nums if x >= v) / len(nums)


def _frac_le(nums: list[int], v: int) -> float:
    return sum(1 for x in nums if x <= v) / len(nums)


def estimate(state, seat: int, hand: int, legal: list[int], tb: _Lookups) -> list[float]:
    """Expected own score change of each legal card when later players still follow."""
    trick = state.trick
    cards = trick.cards
    n = tb.n
    number, suit, suit_mask = tb.number, tb.suit, tb.suit_mask
    taken = state.taken[seat]
    seen = hand | state.played_mask()
    unseen = tb.full & ~seen
    by_suit = [[number[c] for c in bit_list(unseen & suit_mask[s])] for s in range(NUM_SUITS)]
    all_unseen = [x for nums in by_suit for x in nums]
    pos = len(cards)
    later = [(seat + i) % n for i in range(1, n - pos)]
    voids = state.voids
    known = 0
    for c in cards:
        known |= 1 << c
    if cards:
        nums_so_far = [number[c] for c in cards]
        cur_max = max(nums_so_far)
        cur_min = min(nums_so_far)
        top_card = cards[high_low(nums_so_far)[0]]
    out = []
    for c in legal:
        v = number[c]
        led = suit[cards[0]] if cards else suit[c]
        sets = []
        for p in later:
            s = by_suit[led]
            if not s or voids[p] >> led & 1:
                s = all_unseen
            sets.append((s, s is not all_unseen))
        p_high = 1.0 if (not cards or v >= cur_max) else 0.0
        p_low = 1.0 if (not cards or v <= cur_min) else 0.0
        if p_high:
            for s, _ in sets:
                if s:
                    p_high *= 1.0 - _frac_ge(s, v)
        if p_low:
            for s, _ in sets:
                if s:
                    p_low *= 1.0 - _frac_le(s, v)
        ev = 0.0
        if p_high > 0.0:
            # as the highest: the rest of the trick (not my card) - known cards + followers
            val = gain(taken, known, tb) if known else 0
            followers = [s for s, follows in sets if follows]
            if followers:
                below = [x for x in by_suit[led] if x < v]
                avg = sum(below) / len(below) if below else v / 2
                lt = (taken | known) & suit_mask[led]
                k0 = lt.bit_count()
                base = suit_score(lt, number)
                k = k0 + len(followers)
                if k >= 3:
                    after = k
                else:
                    after = base + avg * len(followers)
                val += after - base
            ev += p_high * val
        if p_low > 0.0:
            # as the lowest: the top card - the current one or a higher one from a later seat
            if cards and v <= cur_min:
                p_beat = 1.0
                for s, _ in sets:
                    if s:
                        p_beat *= 1.0 - _frac_ge(s, cur_max + 1)
                p_keep = p_beat
                g_keep = one_card_gain(taken & suit_mask[suit[top_card]], cur_max, number)
                higher = [x for x in by_suit[led] if x > cur_max]
                w = (sum(higher) / len(higher)) if higher else cur_max
                g_new = one_card_gain(taken & suit_mask[led], w, number)
                val = p_keep * g_keep + (1.0 - p_keep) * g_new
            else:
                higher = sorted(x for x in by_suit[led] if x > v)
                if higher:
                    q = len(later) / (len(later) + 1)
                    w = higher[min(len(higher) - 1, int(q * len(higher)))]
                else:
                    w = v
                val = one_card_gain(taken & suit_mask[led], w, number)
            ev += p_low * val
        out.append(ev)
    return out


class Heuristic:
    """Suit-count heuristic: exact when last to play, estimated otherwise (module doc)."""

    name = "heuristic"

    def __init__(self, game: HochTiefGame, seed: int | None = None):
        self.game = game
        self.tb = _Lookups(game)
        self.rng = random.Random(seed)  # unused: the heuristic is deterministic

    def act(self, decision: Decision) -> int:
        state = decision.state
        seat = decision.seat
        legal = bit_list(state.legal_mask())
        if len(legal) == 1:
            return legal[0]
        tb = self.tb
        if len(state.trick.cards) == tb.n - 1:
            values = exact_last(state, seat, legal, tb)
        else:
            values = estimate(state, seat, state.hands[seat], legal, tb)
        number = tb.number
        best = max(range(len(legal)), key=lambda i: (values[i], number[legal[i]], -legal[i]))
        return legal[best]


def search_value(root, end, seat: int) -> float:
    """Score margin over the rollout (the seat's gain minus the others' mean gain)."""
    return score_gain(root, end, seat)


def uniform_playout(state, rng: random.Random) -> list[int]:
    """The scores of the round played out from ``state`` with uniformly random legal cards.

    PIMC's own uniform play-out (``PIMCPolicy._play_out`` without a rollout
    player) steps the rules state card by card; this plays the same round
    on bare bitmasks - no history, no voids, no log, no next round dealt -
    about three times faster, and draws exactly what that loop draws (one
    ``rng.randrange(legal cards)`` per card, the k-th lowest legal card,
    which is what ``rng.choice(bit_list(legal))`` picks).  So a search
    that uses it chooses exactly what it chose before, only sooner
    (``tests/policies/test_playout.py`` checks the scores and the rng against the
    rules core; ``scripts/checks/check_playout.py`` on a million cards).
    ``state`` is left as it was.  The round must be under way (its phase is play).
    """
    t = state.lookups
    _, taken, _, _ = play_tricks(state.hands[:], state.taken[:], list(state.trick.cards),
                                 state.trick.leader, t, rng)
    return [score_taken(tk, t) for tk in taken]


def play_tricks(hands: list[int], taken: list[int], cards: list[int], leader: int, t,
                rng: random.Random, tricks: int | None = None):
    """Uniformly random legal cards on bare bitmasks until ``tricks`` more tricks are complete
    (None: the end of the round); ``hands``, ``taken`` and ``cards`` are changed in place.

    Returns the position reached: ``(hands, taken, cards of the trick in play, leader)``.
    Each card is one ``rng.randrange(legal cards)``, the k-th lowest legal card - exactly
    what ``rng.choice(bit_list(legal))`` in the rules-core loop picks.
    """
    suit, suit_mask = t.suit, t.suit_mask
    n = len(hands)
    seat = (leader + len(cards)) % n
    draw = rng.randrange
    while True:
        hand = hands[seat]
        legal = hand & suit_mask[suit[cards[0]]] if cards else hand
        if not legal:
            legal = hand  # void in the led suit: any card
        for _ in range(draw(legal.bit_count())):
            legal &= legal - 1  # drop the lowest: the k-th lowest is left lowest
        card = (legal & -legal).bit_length() - 1
        hands[seat] = hand ^ (1 << card)
        cards.append(card)
        if len(cards) < n:
            seat = seat + 1 if seat + 1 < n else 0
            continue
        leader = seat = take(cards, leader, taken, t.number)
        cards = []
        if tricks is not None:
            tricks -= 1
        if tricks == 0 or not hands[seat]:
            return hands, taken, cards, leader


def take(cards: list[int], leader: int, taken: list[int], number) -> int:
    """Hand a full trick to its takers in ``taken`` (bitmasks, changed in place): the highest
    card to the player of the lowest, the rest to the player of the highest, who is returned
    (the next leader) - the rules of ``HochTiefState._resolve`` on bare bitmasks."""
    n = len(taken)
    hi, lo = high_low([number[c] for c in cards])
    high = 1 << cards[hi]
    rest = 0
    for c in cards:
        rest |= 1 << c
    high_seat = (leader + hi) % n
    taken[(leader + lo) % n] |= high
    taken[high_seat] |= rest ^ high
    return high_seat


def endgame_values(world, actions: list[int], seat: int) -> list[float]:
    """The rest of the round in ``world`` (every hand known) solved exactly, per action of the
    seat to act: ``seat``'s margin (:func:`search_value`) at the round's end.

    The rule is max^n - each seat plays the card that maximises its own margin, ties to the
    lowest card id - not paranoid: a round's scores are not constant-sum and every seat plays
    for itself (envs/kernel/src/hoch_tief_search.c says more).  This is the rules' referee
    for the kernel's solver (``Kernel.solve`` and ``pimc(..., endgame=)``), which walks the
    same tree with a transposition table; PIMC uses it as ``pimc:endgame=K`` from ``K``
    cards a hand on, in place of the world's play-outs.  On bare bitmasks, like
    :func:`play_tricks`; ``world`` is left as it was.
    """
    t = world.lookups
    n = len(world.hands)
    suit, suit_mask = t.suit, t.suit_mask

    def scores(hands: list[int], taken: list[int], cards: list[int], leader: int) -> list[int]:
        seat_to_act = (leader + len(cards)) % n
        if not hands[seat_to_act]:  # the round is over: every hand is empty
            return [score_taken(tk, t) for tk in taken]
        hand = hands[seat_to_act]
        legal = hand & suit_mask[suit[cards[0]]] if cards else hand
        best, best_key = None, 0
        for card in bit_list(legal or hand):  # ascending ids, strict >: the lowest best card
            sc = after(hands, taken, cards, leader, seat_to_act, card)
            key = n * sc[seat_to_act] - sum(sc)  # the margin times n - 1, exactly
            if best is None or key > best_key:
                best, best_key = sc, key
        return best

    def after(hands, taken, cards, leader, who, card) -> list[int]:
        hands = hands[:]
        hands[who] ^= 1 << card
        cards = [*cards, card]
        if len(cards) == n:
            taken = taken[:]
            leader = take(cards, leader, taken, t.number)
            cards = []
        return scores(hands, taken, cards, leader)

    mover = world.current_player
    hands, taken = list(world.hands), list(world.taken)
    cards, leader = list(world.trick.cards), world.trick.leader
    return [margin(after(hands, taken, cards, leader, mover, a), seat) for a in actions]


#: what PIMC needs of Hoch & Tief (policies/hooks.py): uniform random play-outs on bitmasks,
#: and the exact endgame
SEARCH = SearchHooks(defaults=SEARCH_DEFAULTS, learned_search=LEARNED_SEARCH, value=search_value,
                     uniform_playout=uniform_playout, endgame=endgame_values)
