"""Wizard - the rules, as the rule book tells them (3 to 6 players).

Deck.  60 cards: the numbers 1..13 in four suits - blue (B, humans), red
(R, dwarves), green (G, elves), yellow (Y, giants) - plus four Wizards
(W, highest) and four Jesters (N for "Narr", lowest).  Card ids: suit card
``suit * 13 + number - 1`` (0..51), Wizards 52..55, Jesters 56..59; names
``"R7"``, ``"W1"``..``"W4"``, ``"N1"``..``"N4"`` (bare ``"W"``/``"N"`` parse
as the next unused copy).

Rounds.  ``60 / n`` rounds (3: 20, 4: 15, 5: 12, 6: 10); round ``r``
(1-based) deals ``r`` cards to each player.  Seat 0 deals first; the deal
moves one seat left each round.  (Option ``rounds``: play only the listed
hand sizes, e.g. ``(5,)`` for one round of five cards.)

Trump.  After dealing, the top card of the rest is turned: a suit card
makes its suit trump; a Jester means no trump; a Wizard lets the dealer
choose one of the four suits (a decision; "no trump" is not allowed).  When
no card is left (the last round) there is no trump.

Bidding.  Starting left of the dealer, each player bids ``0..r`` tricks,
publicly.  Option ``dealer_bid_restriction`` (off by default): the dealer,
bidding last, may not make the sum of bids equal ``r``.

Play.  Left of the dealer leads the first trick; a trick's winner leads the
next.  A Wizard or a Jester may always be played.  The suit to follow is
the suit of the first non-Jester card; if that card is a Wizard, nothing
has to be followed in this trick.  Holding the suit to follow, a player
must play that suit (or a Wizard or a Jester).

Trick winner.  The first Wizard; else the highest trump; else the highest
card of the suit to follow; if only Jesters were played, the first Jester.

Score per round.  Bid met exactly: ``20 + 10 * tricks``; otherwise
``-10 * |tricks - bid|``.  Highest total after the last round wins; equal
totals share the win.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import NamedTuple

from stichzoo.envs.core.cards import Deck, bit_list
from stichzoo.envs.core.game import Game, GameState, Options, check_int, deal_hands, shuffle
from stichzoo.envs.core.tricks import Trick, follow_mask, plays_by_seat

# -- the deck ------------------------------------------------------------------

SUITS = "BRGY"
SUIT_NAMES = ("blue", "red", "green", "yellow")
NUM_SUITS = 4
NUMBERS = 13
WIZARD0 = 52  # ids 52..55
JESTER0 = 56  # ids 56..59
DECK_SIZE = 60

_names = [f"{SUITS[s]}{r}" for s in range(NUM_SUITS) for r in range(1, NUMBERS + 1)]
_names += [f"W{i}" for i in range(1, 5)] + [f"N{i}" for i in range(1, 5)]
DECK = Deck(_names, aliases={"W": range(WIZARD0, WIZARD0 + 4), "N": range(JESTER0, JESTER0 + 4)})

WIZARDS = 0xF << WIZARD0
JESTERS = 0xF << JESTER0
FREE = WIZARDS | JESTERS  # may always be played
SUIT_MASK = tuple(((1 << NUMBERS) - 1) << (s * NUMBERS) for s in range(NUM_SUITS))

#: per card: suit 0..3, or -1 for Wizards and Jesters
CARD_SUIT = tuple(c // NUMBERS if c < WIZARD0 else -1 for c in range(DECK_SIZE))
#: per card: its number 1..13 (Wizards 14, Jesters 0: only used for display)
CARD_NUMBER = tuple(c % NUMBERS + 1 if c < WIZARD0 else (14 if c < JESTER0 else 0)
                    for c in range(DECK_SIZE))


def is_wizard(card: int) -> bool:
    return WIZARD0 <= card < JESTER0


def is_jester(card: int) -> bool:
    return card >= JESTER0


# -- phases and the suit to follow ----------------------------------------------

CHOOSE_TRUMP, BID, PLAY, GAME_OVER = range(4)
PHASE_NAMES = ("choose_trump", "bid", "play", "game_over")

NO_TRUMP = -1
TRUMP_PENDING = -2  # a Wizard was turned; the dealer has not chosen yet

LEAD_NONE = -1  # nothing but Jesters so far: the next non-Jester sets the suit
LEAD_FREE = -2  # the first non-Jester was a Wizard: nothing to follow


def trick_winner(cards: list[int], trump: int) -> int:
    """Position (in play order) of the card that wins the trick.

    The first Wizard; else the highest trump; else the highest card of the
    suit to follow (first non-Jester); if only Jesters, the first Jester.
    """
    for i, c in enumerate(cards):
        if WIZARD0 <= c < JESTER0:
            return i
    if trump >= 0:
        best = -1
        for i, c in enumerate(cards):
            if CARD_SUIT[c] == trump and (best < 0 or c > cards[best]):
                best = i
        if best >= 0:
            return best
    lead = -1
    best = 0
    for i, c in enumerate(cards):
        if c < WIZARD0:
            if lead < 0:
                lead, best = CARD_SUIT[c], i
            elif CARD_SUIT[c] == lead and c > cards[best]:
                best = i
    return best  # only Jesters: position 0, the first Jester


def round_score(bid: int, tricks: int) -> int:
    return 20 + 10 * tricks if bid == tricks else -10 * abs(tricks - bid)


# -- options --------------------------------------------------------------------


@dataclass(frozen=True)
class WizardOptions(Options):
    num_players: int = 4
    #: hand sizes of the rounds to play; None: the full game 1..60/n
    rounds: tuple[int, ...] | None = None
    dealer_bid_restriction: bool = False
    #: seat that deals the first round
    first_dealer: int = 0

    def __post_init__(self):
        check_int("wizard", "num_players", self.num_players, 3, 6)
        max_hand = DECK_SIZE // self.num_players
        if self.rounds is not None:
            if isinstance(self.rounds, int) or not all(isinstance(r, int) for r in self.rounds):
                raise ValueError(f"wizard: option rounds={self.rounds!r} must be a list of hand "
                                 f"sizes such as [5] (or None for the full game)")
            if not self.rounds:
                raise ValueError("wizard: option rounds must not be empty")
            for r in self.rounds:
                check_int("wizard", "rounds (hand size)", r, 1, max_hand)
            object.__setattr__(self, "rounds", tuple(self.rounds))
        if not isinstance(self.dealer_bid_restriction, bool):
            raise ValueError("wizard: option dealer_bid_restriction must be True or False")
        check_int("wizard", "first_dealer", self.first_dealer, 0, self.num_players - 1)


# -- dealing the hidden cards for search (determinize) ----------------------------

#: per suit mask, including "free" (Wizards and Jesters) as kind 4
_KIND_MASK = (*SUIT_MASK, FREE)
_DETERMINIZE_TRIES = 40


def played_this_round(state: WizardState) -> list[int]:
    """Each seat's cards played this round, as bitmasks: the last card plays of the history.

    A seat's hand as dealt is its hand now plus these - the deck order a
    re-deal rebuilds, and the hand a bidder held when it bid.
    """
    return plays_by_seat(state.history, state.num_players, state.played.bit_count(), DECK_SIZE)


class HiddenDeal(NamedTuple):
    """A re-deal of what one seat cannot see (:meth:`WizardGame.deal_others`).

    ``hands``: every seat's hand (the seat's own unchanged); ``pool``: the
    cards the seat has not seen, in the order the deal drew them (the
    undealt rest is taken from it in that order).
    """

    hands: list[int]
    pool: list[int]


def deal_hidden(cards: list[int], sizes: list[int], bans: list[int],
                 rng: random.Random) -> list[int]:
    """Deal ``cards`` into hands of ``sizes`` (the rest stays undealt) so that
    hand ``i`` holds no card of ``bans[i]`` (the suits its owner showed out of).

    Uniform over all such deals by rejection: shuffle, deal, retry while a
    hand breaks its voids.  When that keeps failing (late rounds, many
    voids, no undealt rest) it falls back to :func:`_deal_constrained`,
    which never fails on a feasible input and is close to uniform.
    Returns the hands as bitmasks.  Public: :meth:`WizardGame.determinize`
    and the player view (``view.from_view``) both deal hidden cards with it.
    """
    tries = _DETERMINIZE_TRIES if any(bans) else 1
    for _ in range(tries):
        shuffle(rng, cards)
        hands = []
        k = 0
        for size, ban in zip(sizes, bans):
            h = 0
            for c in cards[k:k + size]:
                h |= 1 << c
            if h & ban:
                break
            hands.append(h)
            k += size
        else:
            return hands
    return _deal_constrained(cards, sizes, bans, rng)


def _deal_constrained(cards: list[int], sizes: list[int], bans: list[int],
                      rng: random.Random) -> list[int]:
    """Sequential deal that respects the voids and never paints itself into a corner.

    Cards are taken in random order; each goes to a random hand that may
    hold it (weighted by the room left; the undealt rest takes anything),
    but only where the cards still to come can all be placed - checked by
    Hall's condition over the five kinds (four suits, Wizards/Jesters).
    """
    bins = len(sizes)
    caps = [*sizes, len(cards) - sum(sizes)]
    allowed = [[not (bans[b] & _KIND_MASK[t]) for t in range(5)] for b in range(bins)]
    allowed.append([True] * 5)
    kinds = [CARD_SUIT[c] if CARD_SUIT[c] >= 0 else 4 for c in cards]
    left = [0] * 5
    for t in kinds:
        left[t] += 1
    # per non-empty set of kinds: its kinds, and the bins that take any of them
    checks = []
    for sub in range(1, 32):
        ts = [t for t in range(5) if sub >> t & 1]
        checks.append((ts, [b for b in range(bins + 1) if any(allowed[b][t] for t in ts)]))

    def feasible() -> bool:
        for ts, bs in checks:
            need = 0
            for t in ts:
                need += left[t]
            if need:
                room = 0
                for b in bs:
                    room += caps[b]
                if need > room:
                    return False
        return True

    order = list(range(len(cards)))
    shuffle(rng, order)
    hands = [0] * bins
    for i in order:
        c, t = cards[i], kinds[i]
        left[t] -= 1
        options = [b for b in range(bins + 1) if caps[b] and allowed[b][t]]
        while True:  # weighted by room; a bin that leaves no deal is dropped
            if not options:
                raise ValueError("wizard: no deal of the hidden cards fits the voids seen")
            b = rng.choices(options, [caps[x] for x in options])[0]
            caps[b] -= 1
            if feasible():
                break
            caps[b] += 1
            options.remove(b)
        if b < bins:
            hands[b] |= 1 << c
    return hands


# -- the game -------------------------------------------------------------------


class WizardGame(Game):
    """Wizard under fixed options; the flat action layout lives here.

    Actions: ``0..59`` play that card; ``60 + b`` bid ``b`` (``0..60/n``);
    then four actions choosing blue, red, green, yellow as trump.
    """

    name = "wizard"
    version = 0
    Options = WizardOptions
    deck = DECK

    def __init__(self, options: WizardOptions):
        self.options = options
        self.num_players = n = options.num_players
        self.max_hand = DECK_SIZE // n
        self.round_sizes = options.rounds or tuple(range(1, self.max_hand + 1))
        self.bid0 = DECK_SIZE
        self.trump0 = self.bid0 + self.max_hand + 1
        self.num_actions = self.trump0 + NUM_SUITS

    def deal(self, rng: random.Random) -> list[list[int]]:
        return self.shuffles(rng, len(self.round_sizes), range(DECK_SIZE))

    def new_state(self, deck_orders, *, log: bool = False) -> WizardState:
        orders = self.checked_orders(deck_orders, len(self.round_sizes), range(DECK_SIZE))
        return WizardState(self, orders, log)

    def action_label(self, action: int) -> str:
        if 0 <= action < DECK_SIZE:
            return DECK.names[action]
        if self.bid0 <= action < self.trump0:
            return f"bid {action - self.bid0}"
        if self.trump0 <= action < self.num_actions:
            return f"trump {SUITS[action - self.trump0]}"
        return f"<invalid {action}>"

    def determinize(self, state: WizardState, seat: int, rng: random.Random) -> WizardState:
        """A copy of ``state`` (no log) with everything ``seat`` cannot see re-dealt.

        Kept: the seat's own hand and everything public (the turned card,
        trump, bids, tricks, played cards, voids, scores, history).  Drawn
        afresh: the other hands, from the cards the seat has not seen (not
        in its hand, not played this round, not the turned card), keeping
        each hand's size and every void the seat has seen (a player who did
        not follow a suit holds none of it; Wizards and Jesters fit any
        hand) - uniformly among such deals (see :func:`deal_hidden`); the
        cards left undealt this round; and the deck orders of all later
        rounds.  The current round's deck order is rebuilt to match the new
        deal (each seat's hand plus the cards it played this round in its
        dealing positions, the turned card in its place, the new undealt
        rest after it), so the copy is a whole game that could have been
        dealt; the state never reads it again after dealing.
        """
        return self.world_of(state, seat, self.deal_others(state, seat, rng), rng)

    def deal_others(self, state: WizardState, seat: int, rng: random.Random) -> HiddenDeal:
        """The first step of :meth:`determinize`: the hands, the other seats' re-dealt.

        Apart so that a search that infers (``pimc:infer``) can judge a deal
        by its hands before it pays for the rest of the world
        (:meth:`world_of`); the two steps together are ``determinize``, draw
        for draw.
        """
        unseen, others, sizes, bans = self.hidden_part(state, seat)
        dealt = deal_hidden(unseen, sizes, bans, rng)
        hands = state.hands[:]
        for p, h in zip(others, dealt):
            hands[p] = h
        return HiddenDeal(hands, unseen)

    @staticmethod
    def hidden_part(state: WizardState, seat: int) -> tuple[list[int], list[int], list[int],
                                                              list[int]]:
        """What a re-deal for ``seat`` must fill: the cards it cannot see, the other seats,
        their hand sizes and, per other seat, the cards its voids forbid (a bitmask)."""
        seen = state.hands[seat] | state.played
        if state.trump_card >= 0:
            seen |= 1 << state.trump_card
        unseen = [c for c in range(DECK_SIZE) if not (seen >> c) & 1]
        others = [p for p in range(state.num_players) if p != seat]
        sizes = [state.hands[p].bit_count() for p in others]
        bans = [0] * len(others)
        for i, p in enumerate(others):
            v = state.voids[p]
            for suit in range(NUM_SUITS):
                if v >> suit & 1:
                    bans[i] |= SUIT_MASK[suit]
        return unseen, others, sizes, bans

    def world_of(self, state: WizardState, seat: int, deal: HiddenDeal,
                 rng: random.Random) -> WizardState:
        """The second step of :meth:`determinize`: the world of a :meth:`deal_others` deal."""
        s = state.clone()
        n = s.num_players
        s.hands = deal.hands[:]
        unseen = deal.pool
        dealt = 0
        for p in range(n):
            if p != seat:
                dealt |= s.hands[p]
        if s.phase != GAME_OVER:
            # this round's order: each seat's dealt cards, its hand and what it played
            got = [h | c for h, c in zip(s.hands, played_this_round(s))]
            r = s.hand_size
            order = [0] * DECK_SIZE
            for p in range(n):
                cards = bit_list(got[p])
                shuffle(rng, cards)
                first = (p - s.dealer - 1) % n
                for j, c in enumerate(cards):
                    order[first + j * n] = c
            pos = n * r
            if s.trump_card >= 0:
                order[pos] = s.trump_card
                pos += 1
            rest = [c for c in unseen if not (dealt >> c) & 1]
            shuffle(rng, rest)
            order[pos:] = rest
            orders = s.deck_orders[:]
            orders[s.round_index] = tuple(order)
            for j in range(s.round_index + 1, len(orders)):
                o = sorted(orders[j])  # shuffled from card-id order, not from the true deal
                shuffle(rng, o)
                orders[j] = tuple(o)
            s.deck_orders = orders
        return s


class WizardState(GameState):
    """A Wizard game in progress.  Plain attributes; cheap to clone."""

    __slots__ = (
        "bids",
        "dealer",
        "follow",
        "hand_size",
        "hands",
        "played",
        "round_index",
        "round_scores",
        "tricks_won",
        "trump",
        "trump_card",
        "voids",
    )
    PHASE_NAMES = PHASE_NAMES

    def __init__(self, game: WizardGame, deck_orders: list[tuple[int, ...]], log: bool):
        super().__init__(game, deck_orders, log)
        self.round_scores: list[list[int]] = []
        self.start_round(0)

    # -- round set-up -------------------------------------------------------

    def start_round(self, round_index: int) -> None:
        """Deal round ``round_index`` from its deck order and open it; totals and history stay.

        Public because a player view rebuilds a state at the start of its
        round this way (``view.from_view``) before replaying the round.
        """
        g, n = self.game, self.num_players
        self.round_index = round_index
        r = self.hand_size = g.round_sizes[round_index]
        self.dealer = (g.options.first_dealer + round_index) % n
        order = self.deck_orders[round_index]
        self.hands = hands = deal_hands(order, n, self.dealer, n * r)
        self.bids = [-1] * n
        self.tricks_won = [0] * n
        self.played = 0
        self.voids = [0] * n
        self.trick = Trick((self.dealer + 1) % n, n)
        self.follow = LEAD_NONE
        if n * r < DECK_SIZE:
            self.trump_card = order[n * r]
            if is_wizard(self.trump_card):
                self.trump = TRUMP_PENDING
            elif is_jester(self.trump_card):
                self.trump = NO_TRUMP
            else:
                self.trump = CARD_SUIT[self.trump_card]
        else:  # last round: no card left to turn
            self.trump_card = -1
            self.trump = NO_TRUMP
        if self.trump == TRUMP_PENDING:
            self.phase = CHOOSE_TRUMP
            self.current_player = self.dealer
        else:
            self.phase = BID
            self.current_player = (self.dealer + 1) % n
        if self.log is not None:
            self.log.append({
                "round": round_index, "hand_size": r, "dealer": self.dealer,
                "hands": [DECK.format_mask(h) for h in hands],
                "trump_card": DECK.names[self.trump_card] if self.trump_card >= 0 else None,
                "trump": SUITS[self.trump] if self.trump >= 0 else None,
                "bids": [], "tricks": [], "tricks_won": None, "scores": None, "totals": None,
            })

    # -- the rules ------------------------------------------------------------

    def forbidden_bid(self) -> int:
        """The bid the dealer may not make under the restriction, else -1."""
        if (self.game.options.dealer_bid_restriction and self.phase == BID
                and self.current_player == self.dealer):
            rest = self.hand_size - sum(self.bids) - 1  # the dealer's own -1 counted
            return rest if rest >= 0 else -1
        return -1

    def legal_mask(self) -> int:
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[self.current_player]
            follow = self.follow
            if follow < 0:
                return hand
            return follow_mask(hand, SUIT_MASK[follow], FREE)
        if phase == BID:
            g = self.game
            mask = ((1 << (self.hand_size + 1)) - 1) << g.bid0
            forbidden = self.forbidden_bid()
            if forbidden >= 0:
                mask &= ~(1 << (g.bid0 + forbidden))
            return mask
        if phase == CHOOSE_TRUMP:
            return 0xF << self.game.trump0
        return 0

    def apply(self, action: int) -> None:
        self.last_deltas = None
        seat = self.current_player
        self.history.append((seat, action))
        phase = self.phase
        if phase == PLAY:
            self._play(seat, action)
        elif phase == BID:
            self._bid(seat, action - self.game.bid0)
        elif phase == CHOOSE_TRUMP:
            self.trump = action - self.game.trump0
            self.phase = BID
            self.current_player = (self.dealer + 1) % self.num_players
            if self.log is not None:
                self.log[-1]["trump"] = SUITS[self.trump]

    def _bid(self, seat: int, bid: int) -> None:
        self.bids[seat] = bid
        if self.log is not None:
            self.log[-1]["bids"].append({"seat": seat, "bid": bid})
        nxt = (seat + 1) % self.num_players
        if seat == self.dealer:  # the dealer bids last
            self.phase = PLAY
            nxt = self.trick.leader
        self.current_player = nxt

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat] ^= 1 << card
        self.played |= 1 << card
        trick = self.trick
        follow = self.follow
        if follow >= 0:
            if CARD_SUIT[card] >= 0 and CARD_SUIT[card] != follow:
                self.voids[seat] |= 1 << follow  # showed out of the suit to follow
        elif follow == LEAD_NONE and card < JESTER0:
            self.follow = LEAD_FREE if card >= WIZARD0 else CARD_SUIT[card]
        trick.cards.append(card)
        n = self.num_players
        if len(trick.cards) < n:
            self.current_player = (seat + 1) % n
            return
        winner = trick.seat_of(trick_winner(trick.cards, self.trump))
        self.tricks_won[winner] += 1
        if self.log is not None:
            rec = trick.as_dict(DECK.names)
            rec["winner"] = winner
            self.log[-1]["tricks"].append(rec)
        if self.hands[winner]:
            self.trick = Trick(winner, n)
            self.follow = LEAD_NONE
            self.current_player = winner
        else:
            self._score_round()

    def _score_round(self) -> None:
        scores = [round_score(b, t) for b, t in zip(self.bids, self.tricks_won)]
        self.round_scores.append(scores)
        if self.log is not None:
            self.log[-1]["tricks_won"] = self.tricks_won[:]
        self.count_scores(scores)
        self.next_round(len(self.game.round_sizes))

    # -- copying --------------------------------------------------------------

    def _copy_own(self, c: WizardState) -> None:
        c.round_scores = self.round_scores[:]
        c.round_index = self.round_index
        c.hand_size = self.hand_size
        c.dealer = self.dealer
        c.hands = self.hands[:]
        c.bids = self.bids[:]
        c.tricks_won = self.tricks_won[:]
        c.played = self.played
        c.voids = self.voids[:]
        c.follow = self.follow
        c.trump_card = self.trump_card
        c.trump = self.trump
