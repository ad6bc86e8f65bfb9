"""Wunder Punkt - the rules, as the rule book tells them (3 to 6 players).

A trick game without a follow rule in which every suit but the led one is
trump, and in which each player secretly chooses a "sore" suit that hurts
them: sore cards cost their number, every other card taken is worth +1.

Cards.  A 52-card deck, four suits clubs (c), diamonds (d), hearts (h),
spades (s).  Every card has a number: Ace = 0, 2..10 as printed, Jack 11,
Queen 12, King 13 (there is no card numbered 1).  Card ids:
``suit * 13 + rank`` with suit order c, d, h, s and rank 0 = Ace, 1 = 2,
..., 8 = 9, 9 = 10, 10 = Jack, 11 = Queen, 12 = King; names ``"Ah"``,
``"7h"``, ``"10h"`` (alias ``"Th"``), ``"Jh"``, ``"Qh"``, ``"Kh"``; the suit
symbols ``"7♥"`` parse too.

Cards in play.  They depend on the number of players, every suit cut the same
way so that all cards are dealt evenly:

| players | cards used | per player |
|---|---|---|
| 3 | A-9 (36) | 12 |
| 4 | A-K (52) | 13 |
| 5 | A-10 (40) | 8 |
| 6 | A-Q (48) | 8 |
| 3, option ``larger_hands`` | A-Q (48) | 16 |

Each round the dealer shuffles the cards in play and deals all of them one
at a time, starting with the player to their left.

Sore suit.  Then every player picks one card from their hand and lays it
face down.  In this engine the picks are AEC turns of their own, made one
after the other starting left of the dealer (the dealer picks last); a pick
stays hidden from everyone else until all players have picked, and then all
are revealed at once.  The suit of a player's card is their sore suit for
the round; the card stays face up in front of its owner (out of the hand)
and counts for its owner at scoring.  Several players may share a sore
suit.

Tricks.  The player left of the dealer leads the first trick; the winner of
a trick leads the next.  Nobody has to follow suit: every card in hand may
be played.  The suit of the first card is the led suit - also when that
card is an Ace.  When everyone has played, looking only at non-Ace cards:

1. if any non-Ace card not of the led suit was played, the highest number
   among those wins, whatever their suits;
2. otherwise the highest non-Ace card of the led suit wins;
3. equal numbers: the one played first wins;
4. if every card is an Ace, nobody wins: the cards leave the game and the
   same player leads again.

The winner takes all cards of the trick, Aces included.  The round ends
when the hands are empty.

Scoring per round.  Over a player's won cards plus their own sore card:
each card of the sore suit counts minus its number (an Ace costs nothing);
each card of any other suit counts +1.  Scores may be negative.  Example:
sore suit hearts, sore card 2h, won 6h and 10h and 14 other cards:
``-2 - 6 - 10 + 14 = -4``.

Game.  Seat ``first_dealer`` (default 0) deals the first round; the deal
moves one seat left each round.  As many rounds as players (option
``rounds``: any fixed number).  Highest total wins; equal totals share the
win.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from stichzoo.envs.core.cards import Deck, bit_list, bits
from stichzoo.envs.core.game import Game, GameState, Options, check_int, deal_hands, shuffle
from stichzoo.envs.core.tricks import Trick, follow_mask

# -- the deck ------------------------------------------------------------------

SUITS = "cdhs"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = "♣♦♥♠"
NUM_SUITS = 4
RANKS = 13
DECK_SIZE = 52
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

_names = [f"{RANK_NAMES[r]}{SUITS[s]}" for s in range(NUM_SUITS) for r in range(RANKS)]
_aliases: dict[str, list[int]] = {}
for _s in range(NUM_SUITS):
    _aliases[f"T{SUITS[_s]}"] = [_s * RANKS + 9]
    for _r in range(RANKS):
        _aliases[f"{RANK_NAMES[_r]}{SUIT_SYMBOLS[_s]}"] = [_s * RANKS + _r]
    _aliases[f"T{SUIT_SYMBOLS[_s]}"] = [_s * RANKS + 9]
DECK = Deck(_names, aliases=_aliases)

#: per card: its suit 0..3 (c, d, h, s)
CARD_SUIT = tuple(c // RANKS for c in range(DECK_SIZE))
#: per card: its number - Ace 0, 2..10, Jack 11, Queen 12, King 13
CARD_NUMBER = tuple(0 if c % RANKS == 0 else c % RANKS + 1 for c in range(DECK_SIZE))
SUIT_MASK = tuple(((1 << RANKS) - 1) << (s * RANKS) for s in range(NUM_SUITS))
ACES = sum(1 << (s * RANKS) for s in range(NUM_SUITS))


def used_cards(num_players: int, larger_hands: bool = False) -> int:
    """Bitmask of the cards in play for this player count (the table above)."""
    top = 12 if larger_hands else {3: 9, 4: 13, 5: 10, 6: 12}[num_players]  # ranks 0..top-1
    return sum(((1 << top) - 1) << (s * RANKS) for s in range(NUM_SUITS))


# -- trick winner and score ------------------------------------------------------------


def trick_winner(cards: Sequence[int]) -> int:
    """Position (in play order) of the winning card, or -1 if every card is an Ace.

    Aces are passed over.  A non-Ace card of a foreign (not led) suit beats
    every card of the led suit; among the foreign cards - or, when there
    are none, among the led-suit cards - the highest number wins, the first
    played on equal numbers.  The led suit is the suit of ``cards[0]``, even
    when that card is an Ace.
    """
    led = CARD_SUIT[cards[0]]
    best_foreign = -1
    best_foreign_num = 0
    best_led = -1
    best_led_num = 0
    for i, c in enumerate(cards):
        num = CARD_NUMBER[c]
        if num == 0:
            continue
        if CARD_SUIT[c] != led:
            if num > best_foreign_num:  # strict: the first played keeps a tie
                best_foreign, best_foreign_num = i, num
        elif num > best_led_num:
            best_led, best_led_num = i, num
    return best_foreign if best_foreign >= 0 else best_led


def card_points(cards: int, sore_suit: int) -> int:
    """Points of a set of cards for a player with ``sore_suit``.

    Cards of the sore suit count minus their number; every other card +1.
    """
    sore = cards & SUIT_MASK[sore_suit]
    return (cards ^ sore).bit_count() - sum(CARD_NUMBER[c] for c in bits(sore))


def round_score(won: int, sore_card: int) -> int:
    """A player's round score: their won cards plus their own sore card."""
    return card_points(won | (1 << sore_card), CARD_SUIT[sore_card])


# -- options --------------------------------------------------------------------

MAX_ROUNDS = 100


@dataclass(frozen=True)
class WunderPunktOptions(Options):
    num_players: int = 4
    #: 3 players only: play with A-Q (48 cards, 16 each) instead of A-9
    larger_hands: bool = False
    #: number of rounds; None: as many as players
    rounds: int | None = None
    #: seat that deals the first round
    first_dealer: int = 0

    def __post_init__(self):
        check_int("wunder_punkt", "num_players", self.num_players, 3, 6)
        if not isinstance(self.larger_hands, bool):
            raise ValueError("wunder_punkt: option larger_hands must be True or False")
        if self.larger_hands and self.num_players != 3:
            raise ValueError(f"wunder_punkt: option larger_hands=True is a 3-player variant; "
                             f"num_players is {self.num_players}")
        if self.rounds is not None:
            check_int("wunder_punkt", "rounds", self.rounds, 1, MAX_ROUNDS)
        check_int("wunder_punkt", "first_dealer", self.first_dealer, 0, self.num_players - 1)


# -- the game -------------------------------------------------------------------

SORE, PLAY, GAME_OVER = range(3)
PHASE_NAMES = ("sore", "play", "game_over")


class WunderPunktGame(Game):
    """Wunder Punkt under fixed options; the flat action layout lives here.

    Actions: ``0..51`` ("play") play that card; ``52..103`` ("sore") lay
    card ``a - 52`` face down as the sore card.  The two ranges are kept
    apart so that a policy can never confuse picking with playing.
    """

    name = "wunder_punkt"
    version = 0
    Options = WunderPunktOptions
    deck = DECK
    #: first action id of the "sore" range
    sore0 = DECK_SIZE

    def __init__(self, options: WunderPunktOptions):
        self.options = options
        self.num_players = n = options.num_players
        self.used = used_cards(n, options.larger_hands)
        self.used_list = tuple(bit_list(self.used))
        self.hand_size = len(self.used_list) // n
        self.num_rounds = options.rounds if options.rounds is not None else n
        self.num_actions = 2 * DECK_SIZE

    def deal(self, rng: random.Random) -> list[list[int]]:
        return self.shuffles(rng, self.num_rounds, self.used_list)

    def new_state(self, deck_orders, *, log: bool = False) -> WunderPunktState:
        orders = self.checked_orders(deck_orders, self.num_rounds, self.used_list)
        return WunderPunktState(self, orders, log)

    def position(
        self,
        hands: Sequence[str | Iterable[int]],
        sore_cards: Sequence[str | int | None] | None = None,
        *,
        leader: int | None = None,
        trick: str | Iterable[int] = (),
        won: Sequence[str | Iterable[int]] | None = None,
        dealer: int | None = None,
    ) -> WunderPunktState:
        """A state in the middle of round 0 from a chosen position (tests, puzzles, bots).

        ``hands``: each seat's hand (Deck notation or card ids).  ``sore_cards``:
        each seat's laid card; if any is None the round is still in the sore
        phase and the first seat without a pick (from left of the dealer) is
        to act.  ``trick``: the cards already in the current trick, led by
        ``leader`` (default: left of the dealer).  ``won``: cards each seat has
        won so far.  Card counts are not checked against the deck table, so a
        position may hold fewer cards than a real deal.
        """
        n = self.num_players

        def cards_of(x) -> list[int]:
            return DECK.parse(x) if isinstance(x, str) else list(x)

        s = self.new_state(self.deal(random.Random(0)), log=False)
        if dealer is not None:
            s.dealer = dealer
        s.hands = [sum(1 << c for c in cards_of(h)) for h in hands]
        if len(s.hands) != n:
            raise ValueError(f"position needs {n} hands")
        picks = [None] * n if sore_cards is None else list(sore_cards)
        s.sore_cards = [-1 if p is None else (DECK.parse_one(p) if isinstance(p, str) else p)
                        for p in picks]
        s.won = [0] * n if won is None else [sum(1 << c for c in cards_of(w)) for w in won]
        s.removed = 0
        lead = (s.dealer + 1) % n if leader is None else leader
        s.trick = Trick(lead, n, cards_of(trick))
        for i, c in enumerate(s.trick.cards):
            s.hands[s.trick.seat_of(i)] &= ~(1 << c)
        s.played = sum(1 << c for c in s.trick.cards)
        for w in s.won:
            s.played |= w
        if -1 in s.sore_cards:
            s.phase = SORE
            s.current_player = next((s.dealer + 1 + k) % n for k in range(n)
                                    if s.sore_cards[(s.dealer + 1 + k) % n] < 0)
        else:
            s.phase = PLAY
            s.current_player = s.trick.next_seat
        return s

    def determinize(self, state: WunderPunktState, seat: int,
                    rng: random.Random) -> WunderPunktState:
        """A clone (no log) with everything hidden from ``seat`` re-sampled uniformly.

        What ``seat`` cannot see: the other hands; before the reveal (phase
        SORE) the face-down picks of the seats that have picked; the deck
        orders of the current round (they spell out the deal) and of all
        later rounds.  The clone re-deals the other seats' hands among them,
        each keeping its hand size - a seat with a face-down pick has its
        hand and pick re-dealt together and one of those cards, drawn
        uniformly, becomes its pick (the history entry of that pick is
        rewritten to match).  There is no follow rule, so play reveals no
        voids and any re-deal of the unseen cards is consistent.  The
        current round's deck order is rebuilt to deal exactly the re-dealt
        starting hands (current hand + own pick + cards played this round);
        later rounds get fresh shuffles; past rounds are public and kept.
        ``seat``'s hand and pick and everything public are unchanged.  The
        sample depends on ``rng`` and on what ``seat`` sees only: the
        unseen cards are pooled in card-id order, never in the true deal's.
        """
        if state.phase == GAME_OVER:
            return state.clone()
        n = self.num_players
        pending = state.phase == SORE
        others = [p for p in range(n) if p != seat]
        # The cards ``seat`` has not seen, in card-id order: a pool built from the true
        # hands seat by seat would make the shuffled world (and a search's action under a
        # fixed seed) follow the true deal.
        unseen = 0
        for p in others:
            unseen |= state.hands[p]
            if pending and state.sore_cards[p] >= 0:
                unseen |= 1 << state.sore_cards[p]
        pool = bit_list(unseen)
        shuffle(rng, pool)
        hands, picks = state.hands[:], state.sore_cards[:]
        for p in others:
            k = state.hands[p].bit_count()
            hand = pool[:k]
            del pool[:k]
            if pending and state.sore_cards[p] >= 0:
                picks[p] = pool.pop()
            hands[p] = sum(1 << c for c in hand)
        return self.world_of(state, hands, picks, rng)

    def world_of(self, state: WunderPunktState, hands: list[int], picks: list[int],
                 rng: random.Random) -> WunderPunktState:
        """The second step of :meth:`determinize`: a copy of ``state`` (in a round) holding
        ``hands`` and, before the reveal, the face-down ``picks`` (every seat's; the other
        seats' re-drawn; the history's pick entries rewritten to match), its deck orders
        rebuilt to match.

        Apart so that a search drawing hands its own way (a belief model,
        ``pimc:belief``) builds its worlds as ``determinize`` does, draw for draw.
        """
        s = state.clone()
        n = self.num_players
        picks_made = sum(1 for c in s.sore_cards if c >= 0)
        start = len(s.history) - picks_made - s.played.bit_count()  # first action of the round
        if s.phase == SORE:
            for p in range(n):
                old, new = s.sore_cards[p], picks[p]
                if old == new:
                    continue
                s.sore_cards[p] = new
                for i in range(start, len(s.history)):
                    if s.history[i] == (p, self.sore0 + old):
                        s.history[i] = (p, self.sore0 + new)
                        break
        s.hands = hands[:]
        # the current round's deck order, consistent with the re-dealt starting hands
        dealt = [s.hands[p] | (1 << s.sore_cards[p] if s.sore_cards[p] >= 0 else 0)
                 for p in range(n)]
        for p, a in s.history[start:]:
            if a < DECK_SIZE:
                dealt[p] |= 1 << a
        lists = [bit_list(h) for h in dealt]
        for cards in lists:
            shuffle(rng, cards)
        dealer = s.dealer
        if all(len(cards) == self.hand_size for cards in lists):
            order = tuple(lists[(dealer + 1 + k) % n][k // n] for k in range(len(self.used_list)))
        else:  # a hand-made position (Game.position): no real deal to be consistent with
            order = tuple(self.shuffles(rng, 1, self.used_list)[0])
        r = s.round_index
        future = self.shuffles(rng, self.num_rounds - r - 1, self.used_list)
        s.deck_orders = [*state.deck_orders[:r], order, *(tuple(o) for o in future)]
        return s

    def action_label(self, action: int) -> str:
        if 0 <= action < DECK_SIZE:
            return DECK.names[action]
        if self.sore0 <= action < self.num_actions:
            return f"sore {DECK.names[action - self.sore0]}"
        return f"<invalid {action}>"


class WunderPunktState(GameState):
    """A Wunder Punkt game in progress.  Plain attributes; cheap to clone.

    ``sore_cards[seat]`` is the seat's laid card (-1 before it picks); the
    picks are public only once ``phase`` has left SORE - encoders must check
    :meth:`sore_revealed` before showing another seat's pick.
    """

    __slots__ = (
        "dealer",
        "hands",
        "played",
        "removed",
        "round_index",
        "round_scores",
        "sore_cards",
        "won",
    )
    PHASE_NAMES = PHASE_NAMES

    def __init__(self, game: WunderPunktGame, deck_orders: list[tuple[int, ...]], log: bool):
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
        self.dealer = dealer = (g.options.first_dealer + round_index) % n
        order = self.deck_orders[round_index]
        self.hands = hands = deal_hands(order, n, dealer, len(order))  # every card
        self.sore_cards = [-1] * n
        self.won = [0] * n
        self.played = 0  # cards played this round (current trick included)
        self.removed = 0  # cards of all-Ace tricks, out of the game
        self.trick = Trick((dealer + 1) % n, n)
        self.phase = SORE
        self.current_player = (dealer + 1) % n
        if self.log is not None:
            self.log.append({
                "round": round_index, "dealer": dealer,
                "hands": [DECK.format_mask(h) for h in hands],
                "sore_cards": None, "tricks": [], "won": None, "scores": None, "totals": None,
            })

    # -- the rules ------------------------------------------------------------

    def sore_revealed(self) -> bool:
        """True once every player has picked: the picks are then public."""
        return self.phase != SORE

    def legal_mask(self) -> int:
        phase = self.phase
        if phase == PLAY:
            # No follow rule: the one follow function with nothing to follow.
            return follow_mask(self.hands[self.current_player], 0)
        if phase == SORE:
            return self.hands[self.current_player] << DECK_SIZE
        return 0

    def apply(self, action: int) -> None:
        self.last_deltas = None
        seat = self.current_player
        self.history.append((seat, action))
        if self.phase == PLAY:
            self._play(seat, action)
        else:
            self._pick(seat, action - DECK_SIZE)

    def _pick(self, seat: int, card: int) -> None:
        self.hands[seat] ^= 1 << card
        self.sore_cards[seat] = card
        n = self.num_players
        if seat == self.dealer:  # the dealer picks last: reveal all at once
            self.phase = PLAY
            self.current_player = self.trick.leader
            if self.log is not None:
                self.log[-1]["sore_cards"] = DECK.format(self.sore_cards)
        else:
            self.current_player = (seat + 1) % n

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat] ^= 1 << card
        self.played |= 1 << card
        trick = self.trick
        trick.cards.append(card)
        n = self.num_players
        if len(trick.cards) < n:
            self.current_player = (seat + 1) % n
            return
        pos = trick_winner(trick.cards)
        taken = 0
        for c in trick.cards:
            taken |= 1 << c
        if pos >= 0:
            winner = trick.seat_of(pos)
            self.won[winner] |= taken
        else:  # only Aces: nobody wins, the cards leave, the same player leads again
            winner = trick.leader
            self.removed |= taken
        if self.log is not None:
            rec = trick.as_dict(DECK.names)
            rec["winner"] = winner if pos >= 0 else None
            self.log[-1]["tricks"].append(rec)
        if self.hands[winner]:
            self.trick = Trick(winner, n)
            self.current_player = winner
        else:
            self._score_round()

    def _score_round(self) -> None:
        scores = [round_score(w, sc) for w, sc in zip(self.won, self.sore_cards)]
        self.round_scores.append(scores)
        if self.log is not None:
            rec = self.log[-1]
            rec["won"] = [DECK.format_mask(w) for w in self.won]
            rec["removed"] = DECK.format_mask(self.removed)
        self.count_scores(scores)
        self.next_round(self.game.num_rounds)

    # -- copying --------------------------------------------------------------

    def _copy_own(self, c: WunderPunktState) -> None:
        c.round_scores = self.round_scores[:]
        c.round_index = self.round_index
        c.dealer = self.dealer
        c.hands = self.hands[:]
        c.sore_cards = self.sore_cards[:]
        c.won = self.won[:]
        c.played = self.played
        c.removed = self.removed

    # -- views used by encoders, bots and tests ---------------------------------

    def sore_suit(self, seat: int) -> int:
        """The seat's sore suit (0..3), or -1 before it has picked."""
        card = self.sore_cards[seat]
        return CARD_SUIT[card] if card >= 0 else -1

    def current_round_scores(self) -> list[int]:
        """What each seat would score for the round if it ended now (0 before the reveal)."""
        if self.phase != PLAY:
            return [0] * self.num_players
        return [round_score(w, sc) for w, sc in zip(self.won, self.sore_cards)]
