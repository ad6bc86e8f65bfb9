"""Wizard bots: a rule-based player that bids its likely tricks and plays to hit the bid.

Strategy of :class:`Heuristic` (it reads only its own hand and public facts):

* Trump choice (a Wizard was turned): the suit it holds most of, counting
  high cards extra (each card ``1 + number / 13``).
* Bid: the rounded sum of each card's chance to take a trick.  A Wizard
  1, a Jester 0; a suit card's chance falls with the unseen cards that
  can beat it - higher cards of its suit, Wizards, and (for side suits)
  trumps of a player void in the suit - and with the number of opponents.
  Side cards are discounted (in long hands only their strong ones count)
  and hands over 7 cards shrink 2.5% a card, both fitted on self-play so
  that bids neither over- nor undershoot on average (bid hit rate in
  self-play: 35% with 3 players, 48% with 4, 60% with 5, 69% with 6).
  Under the dealer's restriction it takes the nearer allowed bid.
* Play, with ``need = bid - tricks won``:

  - need > 0, leading: cash a likely winner (the non-Wizard card most
    likely to hold, if >= 0.3; a Wizard if the need covers every trick
    left); else lead a low card.  Following: take the trick with the
    cheapest card that wins now and will likely hold (a Wizard when the
    trick matters: short of sure winners for the need); else throw the
    cheapest card.
  - need <= 0 (bid met, or over): duck.  Leading: the card least likely
    to win.  Following: the highest card that still loses (dumping
    dangerous high cards while it is safe); if every card wins, the
    lowest one, or - when last to play, the trick being lost anyway - the
    highest.

``rollout_policy`` gives PIMC a cheaper player of the same kind
(:class:`FastHeuristic`: the same bid, simplified play that wins with the
cheapest winner when short and ducks with the highest loser when not), so
that a tried bid is played out by a side that tries to make it;
``search_value`` scores a rollout by the seat's own score change (Wizard
scores each seat against its own bid), ``SEARCH_DEFAULTS`` sets 12 worlds.
``rollout_playout`` plays a world's round out on bare bitmasks with exactly
the cards of the rules-core loop, so PIMC chooses as before in less than
half the time (3.5 against 8.1 ms a decision); a sampled world
(``determinize``, which re-draws the deck orders of every later round) then
costs about 2.5 play-outs, and the guide's forward pass adds to that, so a
guided search (``pimc:guide=``) prices a world at four play-outs
(``world_cost``): at one it thought 1.1-1.2x plain PIMC's time, at three
1.02x, at four 0.94x (``scripts/bench/search_time.py``, 1,000 positions).
"""

from __future__ import annotations

import random

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import float_sum
from stichzoo.envs.wizard.rules import (
    BID,
    CARD_SUIT,
    CHOOSE_TRUMP,
    DECK_SIZE,
    FREE,
    JESTER0,
    JESTERS,
    LEAD_FREE,
    LEAD_NONE,
    NUM_SUITS,
    NUMBERS,
    PLAY,
    SUIT_MASK,
    WIZARD0,
    WIZARDS,
    WizardState,
    round_score,
    trick_winner,
)
from stichzoo.policies.base import Decision
from stichzoo.policies.hooks import SearchHooks

ALL = (1 << DECK_SIZE) - 1
#: side-card calibration: short hands (by size) scale, longer ones cut and stretch
SIDE_SHORT = (0.0, 0.4, 0.8, 0.8, 0.8)
SIDE_CUT = 0.3
SIDE_SLOPE = 1.3
LONG_HAND = 7
LONG_SHRINK = 0.025
#: least chance to hold for leading (short of the bid) and for winning a trick cheaply
HOLD_LEAD = 0.3
HOLD_FOLLOW = 0.5

#: settings for PIMC with the fast heuristic rollout (world_cost: the module docstring)
SEARCH_DEFAULTS = {"worlds": 12, "rollouts": 1, "horizon": "round", "world_cost": 4}
#: the learned search (the ``search`` spec, the ladder's learned-search rungs, the served
#: "hard" level): the shipped network bids alone (``follow=bid``), the search guided by it
#: plays the cards.  Where the search's gain lies (docs/lab/endgame.md): the guided search's
#: bids alone took +27.9 of its +28.8 over PIMC, its card play +3.4 [-7.6, +14.4]; the
#: network's bids alone, PIMC playing, +44.5 [+33.4, +55.7].  PIMC values a bid by one round
#: played out by its rollout player in 12 worlds; the network learned its bids from whole
#: rounds of its own play.  Fresh seeds, 800 games: +71.71 [+63.77, +79.65] against PIMC,
#: +59.35 [+51.87, +66.83] against PIMC at 16 worlds (its think time), +32.87 [+25.24,
#: +40.49] against the guided search that bid by searching.
LEARNED_SEARCH = "pimc:guide=bot:wizard,follow=bid"


def power(card: int, trump: int) -> int:
    """Card strength for ordering one's own cards: Jester < side suit < trump < Wizard."""
    if card >= JESTER0:
        return 0
    if card >= WIZARD0:
        return 40
    v = card % NUMBERS + 1
    return v + 20 if card // NUMBERS == trump else v


def beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` played now takes the trick from the card ``best`` that leads it."""
    if WIZARD0 <= best < JESTER0:
        return False  # the first Wizard wins
    if card >= JESTER0:
        return False
    if card >= WIZARD0 or best >= JESTER0:
        return True  # a Wizard; or only Jesters so far
    cs, bs = card // NUMBERS, best // NUMBERS
    if cs == bs:
        return card > best
    return cs == trump


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def trump_of(state) -> int:
    return state.trump if state.trump >= 0 else -1


def choose_trump(hand: int) -> int:
    """The suit with the most weight (1 + number/13 per card)."""
    best, best_w = 0, -1.0
    for suit in range(NUM_SUITS):
        w = float_sum(1.0 + (c % NUMBERS + 1) / NUMBERS for c in _bits(hand & SUIT_MASK[suit]))
        if w > best_w:
            best, best_w = suit, w
    return best


def _hold_chance(card: int, unseen: int, trump: int, k: int, h: int) -> float:
    """Chance that ``card``, leading the trick now, is still ahead after ``k`` more players.

    Dangers: unseen cards that beat it - higher cards of its suit, Wizards
    (half weight once hands are longer than one card: their holders pick
    their trick), and trumps weighted by the chance an opponent with ``h``
    cards is void in the card's suit.  Each of the ``k`` players gets
    ``min(h, 2)`` draws from the unseen pool.
    """
    if k <= 0:
        return 1.0
    if WIZARD0 <= card < JESTER0:
        return 1.0
    if card >= JESTER0:
        return 0.0
    u = unseen.bit_count()
    if not u:
        return 1.0
    m = 1 if h <= 1 else 2
    suit = card // NUMBERS
    higher = unseen & SUIT_MASK[suit] & ~((2 << card) - 1)
    danger = higher.bit_count() + (unseen & WIZARDS).bit_count() / m
    if trump >= 0 and suit != trump:
        same = (unseen & SUIT_MASK[suit]).bit_count()
        void = (1.0 - same / u) ** h
        danger += (unseen & SUIT_MASK[trump]).bit_count() * void
    q = min(1.0, danger / u)
    return (1.0 - q) ** (k * m)


def estimate_tricks(hand: int, unseen: int, trump: int, n: int) -> float:
    """Expected tricks of ``hand`` (see the module docstring)."""
    h = hand.bit_count()
    total = 0.0
    for c in _bits(hand):
        if c >= JESTER0:
            continue
        if c >= WIZARD0:
            total += 1.0
            continue
        p = _hold_chance(c, unseen, trump, n - 1, h)
        if c // NUMBERS != trump:
            # calibrated on self-play: side cards win less often than their
            # lead chance, the more so the longer the hand (they get trumped,
            # discarded, or never led)
            p = p * SIDE_SHORT[h] if h < len(SIDE_SHORT) else max(0.0, p - SIDE_CUT) * SIDE_SLOPE
        total += p
    if h > LONG_HAND:  # long hands win less than their cards promise (self-play fit)
        total *= 1.0 - LONG_SHRINK * (min(h, 15) - LONG_HAND)
    return total


def heuristic_bid(state, seat: int) -> int:
    hand = state.hands[seat]
    seen = hand | state.played
    if state.trump_card >= 0:
        seen |= 1 << state.trump_card
    est = estimate_tricks(hand, ALL & ~seen, trump_of(state), state.num_players)
    bid = int(est + 0.5)
    bid = max(0, min(state.hand_size, bid))
    legal = state.legal_mask() >> state.game.bid0
    if not (legal >> bid) & 1:  # the dealer's restriction: the nearer side of the estimate
        bid = bid + 1 if est > bid and bid < state.hand_size else (bid - 1 if bid > 0 else 1)
    return bid


def _trick_best(state, trump: int) -> int:
    cards = state.trick.cards
    return cards[trick_winner(cards, trump)] if cards else -1


class Heuristic:
    """The rule-based Wizard player described in the module docstring."""

    name = "heuristic"

    def __init__(self, game, seed: int | None = None):
        self.game = game
        self.rng = random.Random(seed)

    def act(self, decision: Decision) -> int:
        s = decision.state
        seat = decision.seat
        g = self.game
        if s.phase == CHOOSE_TRUMP:
            return g.trump0 + choose_trump(s.hands[seat])
        if s.phase == BID:
            return g.bid0 + heuristic_bid(s, seat)
        if s.phase == PLAY:
            return self.play(s, seat)
        raise ValueError(f"wizard heuristic: nothing to decide in phase {s.phase_name}")

    def play(self, s, seat: int) -> int:
        legal = _bits(s.legal_mask())
        if len(legal) == 1:
            return legal[0]
        trump = trump_of(s)
        hand = s.hands[seat]
        seen = hand | s.played
        if s.trump_card >= 0:
            seen |= 1 << s.trump_card
        unseen = ALL & ~seen
        n = s.num_players
        need = s.bids[seat] - s.tricks_won[seat]
        left = hand.bit_count()  # tricks left, this one included
        cards = s.trick.cards
        k = n - len(cards) - 1  # players after this seat
        h = left - 1 if k else left
        key = lambda c: power(c, trump)  # noqa: E731
        if not cards:
            chances = {c: _hold_chance(c, unseen, trump, k, left) for c in legal}
            if need > 0:
                wizards = [c for c in legal if WIZARD0 <= c < JESTER0]
                plain = [c for c in legal if c < WIZARD0]
                if plain:
                    best = max(plain, key=lambda c: (chances[c], -key(c)))
                    if chances[best] >= HOLD_LEAD:
                        return best
                if wizards and (need >= left or not plain):
                    return wizards[0]
                # lead low: the card least likely to win (a Jester if that is all)
                low = [c for c in legal if c < WIZARD0] or legal
                return min(low, key=lambda c: (chances.get(c, 0.0), key(c)))
            # duck: the card least likely to win; keep Jesters for forced tricks
            plain = [c for c in legal if c < WIZARD0] or legal
            return min(plain, key=lambda c: (chances[c], -key(c)))
        best = _trick_best(s, trump)
        winners = [c for c in legal if beats(c, best, trump)]
        losers = [c for c in legal if not beats(c, best, trump)]
        if need > 0:
            if winners:
                plain = sorted((c for c in winners if c < WIZARD0), key=key)
                for c in plain:
                    if _hold_chance(c, unseen, trump, k, h) >= HOLD_FOLLOW:
                        return c
                wizards = [c for c in winners if WIZARD0 <= c < JESTER0]
                sure_later = (hand & WIZARDS).bit_count() - (1 if wizards else 0)
                if wizards and (sure_later < need or need >= left):
                    return wizards[0]
                if plain and k == 0:
                    return plain[0]
            # cannot (or need not) win this one: throw the cheapest card
            pool = losers or legal
            return min(pool, key=lambda c: (key(c) if c < JESTER0 else 50))
        if losers:
            return max(losers, key=key)
        if k == 0:
            return max(legal, key=key)
        return min(legal, key=key)


def _powers(trump: int, jester: int) -> tuple[int, ...]:
    return tuple(jester if c >= JESTER0 else power(c, trump) for c in range(DECK_SIZE))


def _levels(powers: tuple[int, ...], descending: bool) -> tuple[int, ...]:
    """The deck grouped by power as bitmasks, the strongest (or weakest) group first: the
    lowest set bit of the first group a hand meets is its ``max`` (``min``) by that power,
    ties to the lowest card id - what ``max(cards, key=power)`` over ascending ids gives."""
    masks: dict[int, int] = {}
    for c, p in enumerate(powers):
        masks[p] = masks.get(p, 0) | 1 << c
    return tuple(masks[p] for p in sorted(masks, reverse=descending))


#: the tables below are indexed by ``state.trump``: suits 0-3, index -1 no trump
_TRUMPS = (0, 1, 2, 3, -1)
#: card strength, Jesters lowest / kept back
_POWER = tuple(_powers(t, 0) for t in _TRUMPS)
_POWER_KEEP_JESTERS = tuple(_powers(t, 35) for t in _TRUMPS)
#: the same as power groups: strongest first, weakest first, weakest first keeping Jesters
_STRONGEST = tuple(_levels(p, True) for p in _POWER)
_WEAKEST = tuple(_levels(p, False) for p in _POWER)
_WEAKEST_KEEP_JESTERS = tuple(_levels(p, False) for p in _POWER_KEEP_JESTERS)
#: by trump index and card: the cards that, played after it, take the trick from it
_BEATEN_BY = tuple(tuple(sum(1 << c for c in range(DECK_SIZE) if beats(c, best, t))
                         for best in range(DECK_SIZE)) for t in _TRUMPS)


def _first(cards: int, levels: tuple[int, ...]) -> int:
    """The lowest card of the first power group that ``cards`` (a non-empty bitmask) meets."""
    for level in levels:
        hit = cards & level
        if hit:
            return (hit & -hit).bit_length() - 1
    raise ValueError("no card")


def fast_card(legal: int, best: int, led: bool, trump: int, need: int, last: bool) -> int:
    """:class:`FastHeuristic`'s card from the ``legal`` cards (a bitmask).

    ``best``: the card winning the trick so far (ignored when the seat
    leads, ``led`` False); ``need``: the seat's bid minus its tricks won;
    ``last``: the seat plays the trick's last card.  Bitmasks and power
    groups, no card lists: one function for the rules-core player and the
    bitmask play-out (:func:`rollout_playout`), so the two cannot play
    differently (tests/policies/test_wizard_playout.py checks it against the list
    form it replaced on every trick position).
    """
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    if not led:
        return _first(legal, _STRONGEST[trump] if need > 0 else _WEAKEST_KEEP_JESTERS[trump])
    beaten_by = _BEATEN_BY[trump][best]
    if need > 0:  # short of the bid: the cheapest winner, else the cheapest card but a Jester
        win = legal & beaten_by
        return _first(win, _WEAKEST[trump]) if win else _first(legal,
                                                                _WEAKEST_KEEP_JESTERS[trump])
    lose = legal & ~beaten_by  # at or over the bid: the highest loser
    if lose:
        return _first(lose, _STRONGEST[trump])
    return _first(legal, _STRONGEST[trump] if last else _WEAKEST[trump])


class FastHeuristic:
    """A cheaper player of the same plan, for PIMC rollouts.

    Bids and picks trump like :class:`Heuristic`; plays without chance
    estimates: short of the bid it leads its strongest card and wins with
    the cheapest winner (else throws its cheapest non-Jester); at or over
    the bid it leads its weakest non-Jester, follows with the highest
    loser, and when every card wins takes the trick with the highest card
    if last to play, else plays the lowest.
    """

    name = "heuristic_fast"

    def __init__(self, game, seed: int | None = None):
        self.game = game

    def act(self, decision: Decision) -> int:
        s = decision.state
        if s.phase == PLAY:
            seat = s.current_player
            cards = s.trick.cards
            return fast_card(s.legal_mask(), _trick_best(s, s.trump), bool(cards), s.trump,
                             s.bids[seat] - s.tricks_won[seat], len(cards) == s.num_players - 1)
        seat = s.current_player
        if s.phase == BID:
            return self.game.bid0 + heuristic_bid(s, seat)
        if s.phase == CHOOSE_TRUMP:
            return self.game.trump0 + choose_trump(s.hands[seat])
        raise ValueError(f"wizard rollout: nothing to decide in phase {s.phase_name}")


def search_value(root, end, seat: int) -> float:
    """PIMC's value: the seat's own score change over the rollout.

    Wizard scores each seat against its own bid, so the table margin mostly
    adds the noise of the others' rollout bids; in duplicate tests against
    the heuristic the own gain searched clearly better (+157 vs +89 per
    4-player game on the same 48 deals).
    """
    return end.totals[seat] - root.totals[seat]


def rollout_playout(state: WizardState, rng: random.Random) -> list[int]:
    """The scores of the round played out from ``state`` by :class:`FastHeuristic`.

    PIMC's play-out with its rollout player (``PIMCPolicy._play_out``) asks
    the player for each card through a :class:`Decision` and steps the rules
    state card by card - with its history, voids and log, and the next round
    dealt at the end, none of which the round's scores read.  This plays the
    same cards on bare bitmasks: the player's choice is :func:`fast_card`,
    the same function the player calls, and the trick rules those of
    ``WizardState._play`` (the suit to follow set by the first non-Jester,
    Wizards and Jesters always free, :func:`trick_winner`, ``round_score``).
    The player draws nothing from ``rng``, so a search using this path
    chooses exactly what it chose before, only sooner
    (``tests/policies/test_wizard_playout.py`` checks the scores against the rules
    core; ``scripts/checks/check_playout.py --game wizard`` on a million
    cards).  Bids still to make (and a trump to choose) are made through the
    rules core on a copy first: a few per round.  ``state`` is left as it
    was; its round must not be over.
    """
    s = _bids_made(state)
    hands = s.hands[:]
    won = s.tricks_won[:]
    bids, trump, n = s.bids, s.trump, s.num_players
    trick = s.trick
    played = len(trick.cards)
    leader, follow, seat = trick.leader, s.follow, s.current_player
    winner = trick_winner(trick.cards, trump) if played else 0
    best = trick.cards[winner] if played else -1
    beaten_by = _BEATEN_BY[trump]
    while True:
        hand = hands[seat]
        legal = hand
        if follow >= 0:  # follow suit if you can; Wizards and Jesters are always free
            same = hand & SUIT_MASK[follow]
            if same:
                legal = same | (hand & FREE)
        card = fast_card(legal, best, played > 0, trump, bids[seat] - won[seat], played == n - 1)
        hands[seat] = hand ^ (1 << card)
        if follow == LEAD_NONE and card < JESTER0:  # the first non-Jester sets the suit
            follow = LEAD_FREE if card >= WIZARD0 else CARD_SUIT[card]
        if not played or (beaten_by[best] >> card) & 1:  # it takes the trick so far
            best, winner = card, played
        played += 1
        if played < n:
            seat = seat + 1 if seat + 1 < n else 0
            continue
        seat = (leader + winner) % n
        won[seat] += 1
        if not hands[seat]:
            return [round_score(b, t) for b, t in zip(bids, won, strict=True)]
        leader, played, follow = seat, 0, LEAD_NONE


def _bids_made(state: WizardState) -> WizardState:
    """``state`` itself in the play phase; else a copy with the bids still to make (and a
    trump to choose) made by :class:`FastHeuristic`, as the play-outs make them."""
    if state.phase == PLAY:
        return state
    s = state.clone()
    player = FastHeuristic(s.game)
    while s.phase != PLAY:
        s.apply(player.act(Decision(s.game, s)))
    return s


def _one_of_each_kind(legal: int) -> int:
    """The legal cards with one Wizard and one Jester (the lowest ids) in place of all: two
    Wizards (two Jesters) in one hand play alike - the same place among the hand's ids, the
    same tricks - so the endgame search tries one of each, and its tie rule (the lowest id)
    picks that one, as trying every one would."""
    wizards, jesters = legal & WIZARDS, legal & JESTERS
    return (legal & ~(WIZARDS | JESTERS)) | (wizards & -wizards) | (jesters & -jesters)


def endgame_values(world: WizardState, actions: list[int], seat: int) -> list[float]:
    """The rest of the round in ``world`` (every hand known) solved exactly, per action of
    the seat to act: ``seat``'s round score (:func:`search_value`) at its end.  In the bid
    phase each bid is followed by the other bids :class:`FastHeuristic` makes (the
    play-out's bids), then the round is solved: a bid valued by the round played perfectly
    with every hand known.

    Max^n: each seat plays the card that maximises its own round score, ties to the lowest
    card id.  Not paranoid: Wizard scores every seat against its own bid, so the table is
    no coalition against the seat - a seat that has its tricks ducks, one short of its bid
    takes, whatever that does to the others; the bots the search stands in for play so.
    The Python referee of the kernel's solver (envs/kernel/src/wizard_search.c), on bare
    bitmasks with the trick rules of ``WizardState._play``; ``world`` is left as it was.
    """
    out = []
    for action in actions:
        s = world.clone()
        s.apply(action)
        if s.round_index != world.round_index or s.over:  # the round's last card
            out.append(float(search_value(world, s, seat)))
            continue
        s = _bids_made(s)
        out.append(float(_max_n(s)[seat]))
    return out


def _max_n(state: WizardState) -> list[int]:
    """Every seat's round score when the round in play is played out under max^n."""
    n, trump, bids = state.num_players, state.trump, state.bids

    def scores(hands, won, cards, leader, follow) -> list[int]:
        who = (leader + len(cards)) % n
        hand = hands[who]
        if not hand:  # a trick ended with every hand empty: the round is over
            return [round_score(b, w) for b, w in zip(bids, won, strict=True)]
        legal = hand
        if follow >= 0:  # follow suit if you can; Wizards and Jesters are always free
            same = hand & SUIT_MASK[follow]
            if same:
                legal = same | (hand & FREE)
        best = None
        for card in bit_list(_one_of_each_kind(legal)):  # ascending ids, strict >: the lowest
            sc = after(hands, won, cards, leader, follow, who, card)
            if best is None or sc[who] > best[who]:
                best = sc
        return best

    def after(hands, won, cards, leader, follow, who, card) -> list[int]:
        hands = hands[:]
        hands[who] ^= 1 << card
        if follow == LEAD_NONE and card < JESTER0:  # the first non-Jester sets the suit
            follow = LEAD_FREE if card >= WIZARD0 else CARD_SUIT[card]
        cards = [*cards, card]
        if len(cards) < n:
            return scores(hands, won, cards, leader, follow)
        winner = (leader + trick_winner(cards, trump)) % n
        won = won[:]
        won[winner] += 1
        return scores(hands, won, [], winner, LEAD_NONE)

    trick = state.trick
    return scores(list(state.hands), list(state.tricks_won), list(trick.cards), trick.leader,
                  state.follow)


def rollout_policy(game, seed: int | None = None) -> FastHeuristic:
    """PIMC's rollout player: :class:`FastHeuristic`."""
    return FastHeuristic(game, seed)


#: what PIMC needs of Wizard (policies/hooks.py)
SEARCH = SearchHooks(defaults=SEARCH_DEFAULTS, learned_search=LEARNED_SEARCH,
                     rollout_policy=rollout_policy, value=search_value,
                     rollout_playout=rollout_playout, endgame=endgame_values,
                     endgame_phases=("bid", "play"))

__all__ = ["LEARNED_SEARCH", "SEARCH", "SEARCH_DEFAULTS", "FastHeuristic", "Heuristic", "beats",
           "choose_trump",
           "endgame_values",
           "estimate_tricks", "fast_card", "heuristic_bid", "power", "rollout_playout",
           "rollout_policy", "search_value", "trump_of"]
