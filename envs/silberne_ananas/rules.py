"""Silberne Ananas - the rules, as the rule book tells them (exactly 3 players).

Deck.  32 cards A K Q J 10 9 8 7 in four suits - hearts (h) and diamonds
(d) red, spades (s) and clubs (c) black - plus one Joker: 33 cards, all
dealt, 11 to each player, one at a time starting left of the dealer.  Card
ids: ``suit * 8 + rank`` with suits h, d, s, c and ranks 7 (0) .. A (7), so
within a suit a higher id is a higher card; the Joker is 32.  Names
``"7h"``, ``"10d"`` (or ``"Td"``), ``"Qs"``, ``"Ac"``, ``"Joker"`` (or
``"X"``).  The cards have no point values, only their rank.

Dealer.  Seat ``first_dealer`` (default 0) deals the first deal; the deal
moves one seat left (to ``dealer + 1``) every deal.  The player left of the
dealer leads the first of the 11 tricks; whoever takes a trick leads the
next.

Play.  Following suit is compulsory, and the Joker is no card of any suit:
a player holding a card of the led suit must play one of them.  A player
who cannot follow and holds the Joker must play the Joker; otherwise any
card.  The Joker may be led only when it is the player's last card (the
eleventh trick); then there is nothing to follow in that trick.

Who takes a trick without the Joker (an "odd one out" rule, never "highest
wins"):

- all three cards of one suit: the middle card (second highest);
- exactly two cards of one suit: the card of the other suit;
- three different suits: two of them share a colour; the card of the other
  colour takes it (red, red, black: the black card).

With the Joker: when the trick is complete, the Joker's player decides who
takes it - themself, the left neighbour or the right neighbour (a decision
of its own, action range ``give``).  Whoever takes it leads next.

Score per deal.  Each player scores 1 point per own trick plus 2 points
per trick taken by the player on their right (seat ``i - 1``).  The three
scores always sum to ``11 + 2 * 11 = 33`` and can never tie: modulo 3,
score ``i`` is ``t_i - t_{i-1}``, and two equal scores would force
``3 * t ≡ 11 (mod 3)``, impossible.  The middle score earns a bonus of 10.
Seed examples: A 5, B (right of A) 3, C 3 tricks -> A 11, B 9, C 13, A is
in the middle and ends the deal with 21; A 5, B 4, C 2 -> A 13, B 8, C 12,
C is in the middle: 22.

Match (default).  Deal scores (bonus included) accumulate; the game ends
after the first deal at which at least one player has ``target_score``
(100) or more.  The player with the middle total wins.  If the two highest
totals are equal and the third is lower, the third player wins.
[decision] If the two lowest totals are equal (and the highest differs),
those two share the win; if all three are equal, all three share it.

Option ``alone_variant`` (the seed's variant): the game ends as above; the
only player with ``target_score`` or more wins, or, when two have reached
it, the only player below it wins; [decision] when all three have reached
it, the middle rule above decides.

Option ``match=False`` [decision]: a single deal is the whole game; its
winner is the player with the middle deal score (the one who takes the
bonus and, as the seed puts it, wins the deal).

How many deals a match can last.  Every deal hands out exactly
``33 + 10 = 43`` points.  While nobody has reached the target ``T``, the
three totals sum to at most ``3 * (T - 1)``, so after ``k`` deals with
``43 * k > 3 * (T - 1)`` somebody has reached it: a match lasts at most
``3 * (T - 1) // 43 + 1`` deals - 7 for ``T = 100``.  :meth:`deal` draws
that many deck orders up front, so a game never needs a random generator
after it starts and can never run out of shuffles.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from stichzoo.envs.core.cards import Deck, bit_list
from stichzoo.envs.core.game import Game, GameState, Options, check_int, deal_hands, shuffle
from stichzoo.envs.core.tricks import Trick, follow_mask
from stichzoo.envs.silberne_ananas.standing import standing as match_standing

# -- the deck ------------------------------------------------------------------

SUITS = "hdsc"
SUIT_NAMES = ("hearts", "diamonds", "spades", "clubs")
#: colour per suit: 0 red (hearts, diamonds), 1 black (spades, clubs)
SUIT_COLOUR = (0, 0, 1, 1)
RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
NUM_SUITS = 4
NUM_RANKS = 8
JOKER = 32
DECK_SIZE = 33
NUM_PLAYERS = 3
HAND_SIZE = 11
DEAL_POINTS = 33
MIDDLE_BONUS = 10

_names = [f"{RANKS[r]}{SUITS[s]}" for s in range(NUM_SUITS) for r in range(NUM_RANKS)]
_names.append("Joker")
_aliases: dict[str, tuple[int, ...]] = {f"T{SUITS[s]}": (s * NUM_RANKS + 3,)
                                        for s in range(NUM_SUITS)}
_aliases["X"] = (JOKER,)
DECK = Deck(_names, aliases=_aliases)

JOKER_BIT = 1 << JOKER
SUIT_MASK = tuple(((1 << NUM_RANKS) - 1) << (s * NUM_RANKS) for s in range(NUM_SUITS))
#: per card: suit 0..3, or -1 for the Joker
CARD_SUIT = tuple(c // NUM_RANKS if c < JOKER else -1 for c in range(DECK_SIZE))

# -- phases and actions ------------------------------------------------------------

PLAY, GIVE, GAME_OVER = range(3)
PHASE_NAMES = ("play", "give_trick", "game_over")

#: the give actions, relative to the Joker's player: self, left (+1), right (-1 = +2)
GIVE_NAMES = ("self", "left", "right")
GIVE0 = DECK_SIZE  # action ids 33, 34, 35
NUM_ACTIONS = GIVE0 + 3

NO_SUIT = -1  # empty trick, or the Joker was led: nothing to follow


def trick_winner(cards: list[int]) -> int:
    """Position (in play order) of the card that takes a Joker-free trick.

    The odd one out: three of one suit -> the middle card; two of one suit
    -> the card of the other suit; three suits -> the card whose colour the
    other two do not share.
    """
    c0, c1, c2 = cards
    s0, s1, s2 = CARD_SUIT[c0], CARD_SUIT[c1], CARD_SUIT[c2]
    if s0 == s1:
        if s1 != s2:
            return 2
        # one suit: ids rise with rank, so the middle id is the middle card
        if c0 < c1:
            return 1 if c1 < c2 else (0 if c0 > c2 else 2)
        return 1 if c1 > c2 else (0 if c0 < c2 else 2)
    if s0 == s2:
        return 1
    if s1 == s2:
        return 0
    k0, k1, k2 = SUIT_COLOUR[s0], SUIT_COLOUR[s1], SUIT_COLOUR[s2]
    if k0 == k1:
        return 2
    return 1 if k0 == k2 else 0


def deal_scores(tricks: list[int]) -> list[int]:
    """Per seat: own tricks + 2 x tricks of the right neighbour (seat - 1), no bonus."""
    return [tricks[i] + 2 * tricks[i - 1] for i in range(NUM_PLAYERS)]


def middle_seat(scores: list[int]) -> int:
    """The seat with the middle of three distinct scores."""
    order = sorted(range(NUM_PLAYERS), key=scores.__getitem__)
    return order[1]


def middle_rule(totals: list[int]) -> list[int]:
    """Match winners by totals: middle wins; top two equal -> third; bottom two equal -> share."""
    lo, mid, hi = sorted(range(NUM_PLAYERS), key=totals.__getitem__)
    a, b, c = totals[lo], totals[mid], totals[hi]
    if a == b == c:
        return [0, 1, 2]
    if b == c:  # the two highest tie: the third (lowest) wins
        return [lo]
    if a == b:  # [decision] the two lowest tie: they share
        return sorted((lo, mid))
    return [mid]


def alone_rule(totals: list[int], target: int) -> list[int]:
    """The seed's variant: alone at/over the target wins, or alone below it when two reached it."""
    reached = [s for s in range(NUM_PLAYERS) if totals[s] >= target]
    if len(reached) == 1:
        return reached
    if len(reached) == 2:
        return [s for s in range(NUM_PLAYERS) if totals[s] < target]
    return middle_rule(totals)  # [decision] all three (or, mid-game, none) reached it


def match_winners(totals: list[int], target: int, alone_variant: bool) -> list[int]:
    """The winners of a match that ended on ``totals``, by the rule the options select:
    the seed's alone variant or the middle rule (the one place that chooses)."""
    return alone_rule(totals, target) if alone_variant else middle_rule(totals)


def max_deals(target: int) -> int:
    """The most deals a match to ``target`` can last (43 points per deal; see module doc)."""
    return 3 * (target - 1) // (DEAL_POINTS + MIDDLE_BONUS) + 1


# -- options --------------------------------------------------------------------


@dataclass(frozen=True)
class SilberneAnanasOptions(Options):
    #: always 3; accepted only so that a generic caller may pass it
    num_players: int = 3
    #: True: play deals until someone reaches target_score; False: one deal only
    match: bool = True
    #: the total that ends a match (100 in the rule book)
    target_score: int = 100
    #: the seed's "alone over/under the target" winner rule (match play only)
    alone_variant: bool = False
    #: seat that deals the first deal
    first_dealer: int = 0

    def __post_init__(self):
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, int) or n != NUM_PLAYERS:
            raise ValueError(f"silberne_ananas is played by exactly 3 players; "
                             f"num_players={n!r} is not allowed")
        if not isinstance(self.match, bool):
            raise ValueError(f"silberne_ananas: option match={self.match!r} must be True "
                             f"(match to target_score) or False (single deal)")
        check_int("silberne_ananas", "target_score", self.target_score, 1, 1000)
        if not isinstance(self.alone_variant, bool):
            raise ValueError(f"silberne_ananas: option alone_variant={self.alone_variant!r} "
                             f"must be True or False")
        if self.alone_variant and not self.match:
            raise ValueError("silberne_ananas: option alone_variant=True needs match=True "
                             "(it decides the winner of a match, not of a single deal)")
        check_int("silberne_ananas", "first_dealer", self.first_dealer, 0, NUM_PLAYERS - 1)


# -- the game -------------------------------------------------------------------


class SilberneAnanasGame(Game):
    """Silberne Ananas under fixed options; the flat action layout lives here.

    Actions: ``0..32`` play that card (32 = the Joker); ``33, 34, 35`` give
    the Joker's trick to self, to the left neighbour, to the right neighbour.
    """

    name = "silberne_ananas"
    #: 1: the observation gained the reading pieces (envs/silberne_ananas/reading.py); the
    #: rules are those of version 0
    version = 1
    Options = SilberneAnanasOptions
    deck = DECK
    num_actions = NUM_ACTIONS
    num_players = NUM_PLAYERS

    def __init__(self, options: SilberneAnanasOptions):
        self.options = options
        self.max_deals = max_deals(options.target_score) if options.match else 1

    has_standing = True

    def standing(self, totals) -> tuple[float, ...]:
        """Between deals, each seat's chance of ending in the middle (``standing.py``)."""
        return match_standing(totals, self.options.target_score)

    def deal(self, rng: random.Random) -> list[list[int]]:
        """One deck order per deal the game can possibly last (see module doc)."""
        return self.shuffles(rng, self.max_deals, range(DECK_SIZE))

    def new_state(self, deck_orders, *, log: bool = False) -> SilberneAnanasState:
        orders = self.checked_orders(deck_orders, self.max_deals, range(DECK_SIZE))
        return SilberneAnanasState(self, orders, log)

    def determinize(self, state: SilberneAnanasState, seat: int,
                    rng: random.Random) -> SilberneAnanasState:
        """A copy of ``state`` with everything hidden from ``seat`` re-drawn (for search).

        Hidden from ``seat``: the other two hands and every future deal.
        The copy (``log=None``) keeps the seat's hand and every public fact;
        the cards it has not seen (not in its hand, not played) are re-dealt
        to the other two players, each keeping its hand size, uniformly
        among the deals consistent with what the seat has seen: a player
        who showed out of a suit holds none of it, and one who cannot hold
        the Joker (showed out without playing it, or the Joker is out)
        does not get it.  With two hands to fill this is exact constrained
        dealing: a card only one of them may hold goes to that one, the
        free cards are shuffled and split by the remaining counts.  The
        current deal's deck order is rewritten to match the re-dealt hands
        (the cards each player held at the start of the deal), and the deck
        orders of future deals are reshuffled.  Past deals are public.
        """
        if state.over:
            return state.clone()
        others = [p for p in range(NUM_PLAYERS) if p != seat]
        a, b = others
        need_a = state.hands[a].bit_count()
        need_b = state.hands[b].bit_count()
        pool = state.hands[a] | state.hands[b]  # = unseen: not own, not played
        banned = [banned_cards(state, p) for p in others]
        only_a = pool & banned[1]
        only_b = pool & banned[0]
        if only_a & only_b:
            raise ValueError("silberne_ananas: determinize found an inconsistent state")
        free = bit_list(pool & ~only_a & ~only_b)
        shuffle(rng, free)
        k = need_a - only_a.bit_count()
        if k < 0 or k > len(free):
            raise ValueError("silberne_ananas: determinize found an inconsistent state")
        hand_a = only_a
        for card in free[:k]:
            hand_a |= 1 << card
        hands = state.hands[:]
        hands[a] = hand_a
        hands[b] = pool ^ hand_a
        assert hands[b].bit_count() == need_b
        return self.world_of(state, hands, rng)

    def world_of(self, state: SilberneAnanasState, hands: list[int],
                 rng: random.Random) -> SilberneAnanasState:
        """The second step of :meth:`determinize`: a copy of ``state`` (in a deal) holding
        ``hands`` (every seat's; the other two re-drawn), its deck orders rebuilt to match.

        Apart so that a search drawing hands its own way (a belief model,
        ``pimc:belief``) builds its worlds as ``determinize`` does, draw for draw.
        """
        c = state.clone()
        c.hands = hands[:]
        # the current deal's order: each player's starting hand, consistent with the new hands
        start = c.hands[:]
        for p, action in state.history[(DECK_SIZE + 1) * state.deal_index:]:
            if action < DECK_SIZE:
                start[p] |= 1 << action
        hands_cards = []
        for p in range(NUM_PLAYERS):
            cards = bit_list(start[p])
            shuffle(rng, cards)
            hands_cards.append(cards)
        dealer = state.dealer
        order = [hands_cards[(dealer + 1 + k) % NUM_PLAYERS][k // NUM_PLAYERS]
                 for k in range(DECK_SIZE)]
        orders = list(state.deck_orders)
        orders[state.deal_index] = tuple(order)
        for i in range(state.deal_index + 1, len(orders)):
            o = sorted(orders[i])  # shuffled from card-id order, not from the true deal
            shuffle(rng, o)
            orders[i] = tuple(o)
        c.deck_orders = orders
        return c

    def action_label(self, action: int) -> str:
        if 0 <= action < DECK_SIZE:
            return DECK.names[action]
        if GIVE0 <= action < NUM_ACTIONS:
            return f"give {GIVE_NAMES[action - GIVE0]}"
        return f"<invalid {action}>"


def banned_cards(state: SilberneAnanasState, player: int) -> int:
    """The cards ``player`` cannot hold, as everybody saw: the suits it showed out of, and
    the Joker once it showed out without playing it or the Joker is out."""
    m = 0
    for suit in range(NUM_SUITS):
        if (state.voids[player] >> suit) & 1:
            m |= SUIT_MASK[suit]
    if state.no_joker[player]:
        m |= JOKER_BIT
    return m


class SilberneAnanasState(GameState):
    """A Silberne Ananas game in progress.  Plain attributes; cheap to clone."""

    __slots__ = (
        "bonus_seat",
        "deal_index",
        "deal_scores",
        "dealer",
        "hands",
        "joker_seat",
        "lead_suit",
        "no_joker",
        "played",
        "tricks_won",
        "voids",
    )
    PHASE_NAMES = PHASE_NAMES

    def __init__(self, game: SilberneAnanasGame, deck_orders: list[tuple[int, ...]], log: bool):
        super().__init__(game, deck_orders, log)
        #: per finished deal, the scores with the bonus
        self.deal_scores: list[list[int]] = []
        #: the seat that took the middle bonus in the last finished deal (-1: none yet)
        self.bonus_seat = -1
        self.start_deal(0)

    # -- deal set-up --------------------------------------------------------

    def start_deal(self, deal_index: int) -> None:
        """Deal ``deal_index`` from its deck order and open it; totals and history stay.

        Public because a player view rebuilds a state at the start of its
        deal this way (``view.from_view``) before replaying the deal.
        """
        n = NUM_PLAYERS
        self.deal_index = deal_index
        self.dealer = (self.game.options.first_dealer + deal_index) % n
        self.hands = hands = deal_hands(self.deck_orders[deal_index], n, self.dealer, DECK_SIZE)
        self.tricks_won = [0] * n
        self.played = 0
        self.voids = [0] * n
        self.no_joker = [False] * n
        self.trick = Trick((self.dealer + 1) % n, n)
        self.lead_suit = NO_SUIT
        self.joker_seat = -1
        self.phase = PLAY
        self.current_player = (self.dealer + 1) % n
        if self.log is not None:
            self.log.append({
                "deal": deal_index, "dealer": self.dealer,
                "hands": [DECK.format_mask(h) for h in hands],
                "tricks": [], "tricks_won": None, "base_scores": None, "bonus_seat": None,
                "scores": None, "totals": None,
            })

    # -- the rules ------------------------------------------------------------

    def legal_mask(self) -> int:
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[self.current_player]
            if self.trick.cards:
                if self.lead_suit < 0:  # the Joker was led: nothing to follow
                    return hand
                return follow_mask(hand, SUIT_MASK[self.lead_suit], 0, JOKER_BIT)
            if hand & JOKER_BIT and hand != JOKER_BIT:
                return hand ^ JOKER_BIT  # the Joker may be led only as the last card
            return hand
        if phase == GIVE:
            return 0b111 << GIVE0
        return 0

    def apply(self, action: int) -> None:
        self.last_deltas = None
        seat = self.current_player
        self.history.append((seat, action))
        if self.phase == PLAY:
            self._play(seat, action)
        else:  # GIVE
            self._take(self.trick, (seat + action - GIVE0) % NUM_PLAYERS, action - GIVE0)

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat] ^= 1 << card
        self.played |= 1 << card
        trick = self.trick
        cards = trick.cards
        if card == JOKER:
            self.joker_seat = seat
            if cards and self.lead_suit >= 0:  # void in the led suit
                self.voids[seat] |= 1 << self.lead_suit
        elif not cards:
            self.lead_suit = CARD_SUIT[card]
        elif self.lead_suit >= 0 and CARD_SUIT[card] != self.lead_suit:
            # showed out - and had they held the Joker, they would have had to play it
            self.voids[seat] |= 1 << self.lead_suit
            self.no_joker[seat] = True
        cards.append(card)
        if len(cards) < NUM_PLAYERS:
            self.current_player = (seat + 1) % NUM_PLAYERS
            return
        if self.joker_seat >= 0:
            self.phase = GIVE
            self.current_player = self.joker_seat
            return
        self._take(trick, trick.seat_of(trick_winner(cards)), -1)

    def _take(self, trick: Trick, taker: int, gift: int) -> None:
        """``taker`` takes the complete ``trick`` and leads next (or the deal ends)."""
        self.tricks_won[taker] += 1
        if self.log is not None:
            rec = trick.as_dict(DECK.names)
            rec["winner"] = taker
            if gift >= 0:
                rec["joker_seat"] = self.joker_seat
                rec["gift"] = GIVE_NAMES[gift]
            self.log[-1]["tricks"].append(rec)
        if self.joker_seat >= 0:
            self.no_joker = [True] * NUM_PLAYERS  # the Joker is out for everybody
        self.joker_seat = -1
        self.lead_suit = NO_SUIT
        self.phase = PLAY
        if self.hands[taker]:
            self.trick = Trick(taker, NUM_PLAYERS)
            self.current_player = taker
        else:
            self._score_deal()

    def _score_deal(self) -> None:
        base = deal_scores(self.tricks_won)
        bonus = middle_seat(base)
        scores = base[:]
        scores[bonus] += MIDDLE_BONUS
        self.deal_scores.append(scores)
        self.bonus_seat = bonus
        if self.log is not None:
            rec = self.log[-1]
            rec["tricks_won"] = self.tricks_won[:]
            rec["base_scores"] = base
            rec["bonus_seat"] = bonus
        self.count_scores(scores)
        opts = self.game.options
        if opts.match and max(self.totals) < opts.target_score:
            # cannot run past the drawn orders: see max_deals in the module doc
            self.start_deal(self.deal_index + 1)
        else:
            self.end_game()

    # -- the result -------------------------------------------------------------

    def placement(self) -> list[int]:
        """The winners share place 0; everybody else loses alike (place 1).

        The middle total wins, so a higher total is no better place: the
        score says nothing about how close a loser came.
        """
        won = set(self.winners())
        return [0 if s in won else 1 for s in range(NUM_PLAYERS)]

    def winners(self) -> list[int]:
        """Seats that win (share) the game, by the rule the options select."""
        opts = self.game.options
        if not opts.match:
            return [self.bonus_seat] if self.bonus_seat >= 0 else middle_rule(self.totals)
        return match_winners(self.totals, opts.target_score, opts.alone_variant)

    # -- copying --------------------------------------------------------------

    def _copy_own(self, c: SilberneAnanasState) -> None:
        c.deal_scores = self.deal_scores[:]
        c.bonus_seat = self.bonus_seat
        c.deal_index = self.deal_index
        c.dealer = self.dealer
        c.hands = self.hands[:]
        c.tricks_won = self.tricks_won[:]
        c.played = self.played
        c.voids = self.voids[:]
        c.no_joker = self.no_joker[:]
        c.lead_suit = self.lead_suit
        c.joker_seat = self.joker_seat

    # -- views used by encoders, bots and tests ---------------------------------

    @property
    def round_index(self) -> int:
        """The deal number under the name every game's state shares (search horizons)."""
        return self.deal_index
