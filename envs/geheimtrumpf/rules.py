"""Geheimtrumpf - the rules, as the rule book tells them (3 or 4 players).

A trick game that is as much a deduction game: every player has four tasks
("no trick", "exactly two tricks", "the last trick" ...) and tries to meet
one of them per round.  Cards are not dealt: they lie face up in rows and
are drafted one by one.  Only the start player knows which suit and which
value are trump this round; after each row the engine says who would have
won it as a trick, and from those hints the others must deduce the trumps.
The first player to check off all four tasks wins.

Cards.  36 number cards, Ace (1, lowest) .. 9 (highest) in hearts (H),
diamonds (D), spades (S), clubs (C).  Card id ``suit * 9 + value - 1``
(suit order H, D, S, C); names ``"AH"``, ``"2H"`` .. ``"9C"`` (``"1H"`` is
an alias of ``"AH"``).  The trumps are drawn from two small stacks, which
are part of the deck so that a record names every random draw as a card:
the trump-suit stack ``"10H" "10D" "10S" "10C" "JK"`` (joker: no trump
suit; ids 36..40) and the trump-value stack ``"V1"`` .. ``"V9"``, ``"VJK"``
(joker: no trump value; ids 41..50).  Each round shuffles all three piles;
the bottom card of each stack fixes the trump suit and value, so the suit
is one of five and the value one of ten equally likely outcomes.

Tasks (ids 0..10), each may be held by at most two players.  A task is met
when, at the end of the round, the player

    0 no_trick        won no trick          6 last_trick     won the 9th trick
    1 one_trick       won exactly 1         7 no_hearts      won no heart
    2 two_tricks      won exactly 2         8 no_diamonds    won no diamond
    3 three_tricks    won exactly 3         9 no_spades      won no spade
    4 most_tricks     won more tricks than every other player
    5 fewest_tricks   won fewer tricks than every other player

("won no heart": no card of that printed suit among the cards of the
tricks they won - a trump-value card keeps its printed suit here.)

Task draft (once, at game start).  The first start player (seat 0 unless
option ``first_start``) picks a task, then the others clockwise, one at a
time, round after round, until each holds four different tasks.  All tasks
are public.  (With at most 4 players the draft can never get stuck: 22
task slots exist and 16 are needed.)

A round (the start player moves one seat left every round):

1. Card draft.  The 36 number cards lie face up in 9 rows of 4; with 3
   players the 4th card of each row is set aside face down, unseen and out
   of play this round.  The player left of the start player has first
   choice in row 1: they take one card of the row, then the others
   clockwise (the start player too).  Drafted cards lie face up: every hand
   is public.  The row is then judged as a trick led by the first chooser's
   card (the same trick-winner rule as in play, no follow rule), and the
   engine announces - truthfully and nothing more - who would have won it.
   First choice moves one seat left for the next row.  After row 9 the
   trumps are revealed to all (the start player knew them all along).
2. Task choice.  Every player but the start player, clockwise from the
   start player's left, picks one of their unchecked tasks; the picks stay
   secret until all have picked, then all are revealed together.
3. Nine tricks; left of the start player leads the first, the winner of a
   trick leads the next.  Trumps are the trump-suit cards and every card of
   the trump value; a trump-value card has no suit: it never follows, nor
   counts as, its printed suit in play.  So each card belongs to exactly
   one *effective suit*: TRUMP, or its printed suit.  The led card's
   effective suit must be followed if the player holds a card of it (a
   trump led: any trump); otherwise any card may be played.
   Ranking: the trump value in the trump suit ("Obertrumpf"); then the
   other trump-value cards, all equal, the first played winning; then the
   trump suit 9 down to Ace; then the highest card of the led suit.
4. Check-off.  Each player who met the task they chose checks it off.  The
   start player, if their own result meets at least one task that another
   player chose this round and missed, checks off one of their own
   unchecked tasks of their choice (a decision) - only one, however many
   such tasks they met.

Game end.  After a round, every player with all four tasks checked wins
(several share the win).  Option ``round_limit`` (default 50): a game that
has played that many rounds without a winner is truncated.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from stichzoo.envs.core.cards import Deck, bit_list
from stichzoo.envs.core.game import Game, GameState, Options, check_int, shuffle
from stichzoo.envs.core.tricks import Trick, follow_mask

# -- the deck -------------------------------------------------------------------

SUITS = "HDSC"
SUIT_NAMES = ("hearts", "diamonds", "spades", "clubs")
NUM_SUITS = 4
VALUES = 9
NUM_CARDS = 36  # the number cards: the only cards that are drafted and played
VALUE_CHARS = "A23456789"

SUIT_STACK0 = 36  # 10H 10D 10S 10C JK: trump suit 0..3, or none
SUIT_STACK = 5
VALUE_STACK0 = 41  # V1..V9 VJK: trump value 1..9, or none
VALUE_STACK = 10
DECK_SIZE = NUM_CARDS + SUIT_STACK + VALUE_STACK  # 51 cards of material per round
ROWS = 9
ROW_LEN = 4

NO_TRUMP_SUIT = -1
NO_TRUMP_VALUE = 0

_names = [f"{VALUE_CHARS[v]}{SUITS[s]}" for s in range(NUM_SUITS) for v in range(VALUES)]
_names += [f"10{s}" for s in SUITS] + ["JK"]
_names += [f"V{v}" for v in range(1, VALUES + 1)] + ["VJK"]
DECK = Deck(_names, aliases={f"1{s}": [i * VALUES] for i, s in enumerate(SUITS)})

#: per number card: printed suit 0..3 and value 1..9
CARD_SUIT = tuple(c // VALUES for c in range(NUM_CARDS))
CARD_VALUE = tuple(c % VALUES + 1 for c in range(NUM_CARDS))
#: the cards of each printed suit, and of each value (index 1..9; 0 empty)
SUIT_MASK = tuple(((1 << VALUES) - 1) << (s * VALUES) for s in range(NUM_SUITS))
VALUE_MASK = (0, *(sum(1 << (s * VALUES + v - 1) for s in range(NUM_SUITS))
                    for v in range(1, VALUES + 1)))
ALL_CARDS = (1 << NUM_CARDS) - 1


def card_name(card: int) -> str:
    return DECK.names[card]


# -- tasks ----------------------------------------------------------------------

NUM_TASKS = 11
TASKS_PER_PLAYER = 4
MAX_HOLDERS = 2  # a task may be held by at most two players
TASK_NAMES = (
    "no_trick", "one_trick", "two_tricks", "three_tricks", "most_tricks", "fewest_tricks",
    "last_trick", "no_hearts", "no_diamonds", "no_spades", "no_clubs",
)
NO_TRICK, ONE_TRICK, TWO_TRICKS, THREE_TRICKS, MOST_TRICKS, FEWEST_TRICKS, LAST_TRICK = range(7)
NO_SUIT0 = 7  # tasks 7..10: no card of suit H, D, S, C won
ALL_TASKS = (1 << NUM_TASKS) - 1


def task_met(task: int, seat: int, tricks_won: list[int], won_cards: list[int],
             last_winner: int) -> bool:
    """Whether ``seat``'s result of the round meets ``task`` (the table above)."""
    if task <= THREE_TRICKS:
        return tricks_won[seat] == task
    if task == MOST_TRICKS:
        mine = tricks_won[seat]
        return all(t < mine for s, t in enumerate(tricks_won) if s != seat)
    if task == FEWEST_TRICKS:
        mine = tricks_won[seat]
        return all(t > mine for s, t in enumerate(tricks_won) if s != seat)
    if task == LAST_TRICK:
        return last_winner == seat
    return not won_cards[seat] & SUIT_MASK[task - NO_SUIT0]


# -- trumps: effective suits and the trick winner ---------------------------------


@dataclass(frozen=True)
class Trumps:
    """Everything the follow rule and the ranking need for one trump draw.

    ``group[c]`` is the effective suit of card ``c`` as a bitmask: all trumps
    for a trump, else the card's printed suit without the trump-value cards.
    ``power[c]`` ranks trumps (0 for a non-trump): Obertrumpf 30, the other
    trump-value cards 20 (equal: the first played stays ahead), trump suit
    ``10 + value``.  Non-trumps rank by value within the led suit only.
    """

    suit: int  # 0..3, or NO_TRUMP_SUIT
    value: int  # 1..9, or NO_TRUMP_VALUE
    mask: int
    group: tuple[int, ...]
    power: tuple[int, ...]


def _make_trumps(suit: int, value: int) -> Trumps:
    suit_cards = SUIT_MASK[suit] if suit >= 0 else 0
    value_cards = VALUE_MASK[value]
    mask = suit_cards | value_cards
    group = tuple(mask if (mask >> c) & 1 else SUIT_MASK[CARD_SUIT[c]] & ~mask
                  for c in range(NUM_CARDS))
    power = []
    for c in range(NUM_CARDS):
        if (value_cards >> c) & 1:
            power.append(30 if CARD_SUIT[c] == suit else 20)
        elif (suit_cards >> c) & 1:
            power.append(10 + CARD_VALUE[c])
        else:
            power.append(0)
    return Trumps(suit, value, mask, group, tuple(power))


#: every possible draw, keyed by (suit, value); built once at import
TRUMPS: dict[tuple[int, int], Trumps] = {
    (s, v): _make_trumps(s, v) for s in range(-1, NUM_SUITS) for v in range(VALUES + 1)
}


def trick_winner(cards: list[int], power: tuple[int, ...]) -> int:
    """Position (in play order) of the card that wins the trick.

    The highest ``power`` wins (Obertrumpf > other trump values, first
    played among equals > trump suit 9..A); with no trump in the trick the
    highest card of the led card's printed suit.  A trump led means a trump
    is in the trick, so "led suit" only ever means a plain suit.
    """
    lead = cards[0]
    lead_suit = CARD_SUIT[lead]
    best = 0
    best_key = power[lead] or CARD_VALUE[lead]
    for i in range(1, len(cards)):
        c = cards[i]
        key = power[c]
        if not key and CARD_SUIT[c] == lead_suit:
            key = CARD_VALUE[c]
        if key > best_key:
            best, best_key = i, key
    return best


# -- phases -----------------------------------------------------------------------

TASK_DRAFT, CARD_DRAFT, TASK_CHOICE, PLAY, CHECK_OFF, GAME_OVER = range(6)
PHASE_NAMES = ("task_draft", "card_draft", "task_choice", "play", "check_off", "game_over")


# -- options ------------------------------------------------------------------------


@dataclass(frozen=True)
class GeheimtrumpfOptions(Options):
    num_players: int = 4
    #: rounds after which a game without a winner is truncated
    round_limit: int = 50
    #: seat that starts the task draft and is start player of round 1
    first_start: int = 0

    def __post_init__(self):
        check_int("geheimtrumpf", "num_players", self.num_players, 3, 4)
        check_int("geheimtrumpf", "round_limit", self.round_limit, 1, 10_000)
        check_int("geheimtrumpf", "first_start", self.first_start, 0, self.num_players - 1)


# -- the game -------------------------------------------------------------------------


class GeheimtrumpfGame(Game):
    """Geheimtrumpf under fixed options; the flat action layout lives here.

    Actions (105): ``0..35`` play that card to the trick; ``36..71`` take
    that card from the draft row; ``72..82`` pick task 0..10 in the task
    draft; ``83..93`` choose task 0..10 for this round; ``94..104`` check
    off task 0..10 (the start player's reward).  Each phase has its own
    range, so a policy never confuses taking a card with playing it.
    """

    name = "geheimtrumpf"
    #: 1: the observation gained the reading pieces (envs/geheimtrumpf/reading.py); 2: the
    #: draft reading (take, task and win chances); 3: the task state in play; 4: the trick reading
    #: (the current trick played ahead); the rules are those of version 0
    version = 4
    Options = GeheimtrumpfOptions
    deck = DECK

    PLAY0 = 0
    TAKE0 = NUM_CARDS
    DRAFT_TASK0 = 2 * NUM_CARDS
    CHOOSE_TASK0 = DRAFT_TASK0 + NUM_TASKS
    CHECK0 = CHOOSE_TASK0 + NUM_TASKS
    NUM_ACTIONS = CHECK0 + NUM_TASKS

    def __init__(self, options: GeheimtrumpfOptions):
        self.options = options
        self.num_players = options.num_players
        self.num_actions = self.NUM_ACTIONS
        self.round_limit = options.round_limit

    def deal(self, rng: random.Random) -> list[list[int]]:
        """One deck order per possible round: 36 number cards, then the two stacks.

        All ``round_limit`` rounds are drawn up front so that a state never
        touches a random generator (clones simulate, records replay).
        """
        count = self.round_limit
        numbers = self.shuffles(rng, count, range(NUM_CARDS))
        suits = self.shuffles(rng, count, range(SUIT_STACK0, VALUE_STACK0))
        values = self.shuffles(rng, count, range(VALUE_STACK0, DECK_SIZE))
        return [a + b + c for a, b, c in zip(numbers, suits, values)]

    def new_state(self, deck_orders, *, log: bool = False) -> GeheimtrumpfState:
        orders = self.checked_orders(deck_orders, self.round_limit, range(DECK_SIZE))
        for order in orders:
            check_order(order)  # and each pile in its place
        return GeheimtrumpfState(self, orders, log)

    def action_label(self, action: int) -> str:
        if 0 <= action < self.TAKE0:
            return DECK.names[action]
        if self.TAKE0 <= action < self.DRAFT_TASK0:
            return f"take {DECK.names[action - self.TAKE0]}"
        if self.DRAFT_TASK0 <= action < self.CHOOSE_TASK0:
            return f"draft {TASK_NAMES[action - self.DRAFT_TASK0]}"
        if self.CHOOSE_TASK0 <= action < self.CHECK0:
            return f"choose {TASK_NAMES[action - self.CHOOSE_TASK0]}"
        if self.CHECK0 <= action < self.NUM_ACTIONS:
            return f"check {TASK_NAMES[action - self.CHECK0]}"
        return f"<invalid {action}>"

    def determinize(self, state: GeheimtrumpfState, seat: int, rng: random.Random,
                    trumps: tuple[int, int] | None = None,
                    tasks: dict[int, int] | None = None) -> GeheimtrumpfState:
        """A clone (no log) with everything hidden from ``seat`` re-drawn.

        Geheimtrumpf hides little: drafted cards lie face up, so every hand
        is public and there are no voids to respect.  What ``seat`` cannot
        know, and how it is re-drawn (uniformly among what agrees with all
        ``seat`` has seen):

        - during the card draft, for everyone but the start player, the
          trumps: one of the (suit, value) draws that agree with every
          announced row winner (:func:`consistent_trumps`; the 50 draws are
          equally likely a priori); the stacks of this round's deck order
          are rearranged to draw it;
        - the order of the stacks' other cards (never shown);
        - with 3 players, which set-aside (face-down) card lay in which row;
        - the other players' secret task choices before the reveal: each
          one who has chosen gets one of their unchecked tasks, and the
          history entry of that choice is rewritten to match (the clone
          keeps no log), so the world replays from its own history;
        - every future deal (this round's too during the task draft):
          fresh shuffles, drawn lazily on first use.

        ``seat``'s own view - its encoded observation - is unchanged, and
        the sample depends on ``rng`` and on that view only.  Past rounds'
        deck orders are kept as dealt: they can no longer change play.

        A belief model (``pimc:belief=geheimtrumpf``, ``policies/lab/belief_secrets.py``)
        chooses the secrets itself: ``trumps`` - the (suit, value) draw, used where
        the trumps are hidden from ``seat`` (one of :func:`consistent_trumps`) - and
        ``tasks`` - seat -> task for the other players who have chosen (each one of
        their unchecked tasks); those draws then take nothing from ``rng``, the rest
        is drawn as above.  Without them the draws are exactly the uniform ones.
        """
        s = state.clone()
        n = s.num_players
        r = s.round_index
        phase = s.phase
        orders = s.deck_orders
        first_hidden = r if phase == TASK_DRAFT else r + 1
        known = [orders[i] for i in range(min(first_hidden, len(orders)))]
        if phase not in (TASK_DRAFT, GAME_OVER):
            order = list(known[r])
            if phase == CARD_DRAFT and seat != s.start:
                suit, value = rng.choice(consistent_trumps(s)) if trumps is None else trumps
                s.trumps = TRUMPS[(suit, value)]
            else:
                suit, value = s.trumps.suit, s.trumps.value
            s_card = SUIT_STACK0 + (suit if suit >= 0 else NUM_SUITS)
            v_card = VALUE_STACK0 + (value - 1 if value else VALUES)
            # hidden cards are shuffled from a fixed (sorted) order, never from the true
            # one: with a fixed rng the world must not follow what ``seat`` cannot see
            suits = sorted(c for c in order[NUM_CARDS:VALUE_STACK0] if c != s_card)
            values = sorted(c for c in order[VALUE_STACK0:] if c != v_card)
            shuffle(rng, suits)
            shuffle(rng, values)
            order[NUM_CARDS:] = [*suits, s_card, *values, v_card]
            if n == 3:
                aside = sorted(order[i * ROW_LEN + 3] for i in range(ROWS))
                shuffle(rng, aside)
                for i, c in enumerate(aside):
                    order[i * ROW_LEN + 3] = c
            known[r] = tuple(order)
            if phase == TASK_CHOICE:
                redrawn = {}
                for p in range(n):
                    if p != seat and s.chosen[p] >= 0:
                        s.chosen[p] = redrawn[p] = (
                            rng.choice(bit_list(s.held[p] & ~s.checked[p])) if tasks is None
                            else tasks[p])
                _rewrite_choices(s.history, redrawn, self.CHOOSE_TASK0)
        s.deck_orders = _RedrawnOrders(known, len(orders), rng.getrandbits(62))
        return s


def _rewrite_choices(history: list[tuple[int, int]], tasks: dict[int, int],
                     choose0: int) -> None:
    """Make this round's task-choice entries of ``history`` say ``tasks`` (seat -> task).

    During the task choice the round's choices are the last entries of the
    history (the card draft's takes come right before them).
    """
    for i in range(len(history) - 1, -1, -1):
        p, a = history[i]
        if not choose0 <= a < choose0 + NUM_TASKS:
            break
        if p in tasks:
            history[i] = (p, choose0 + tasks[p])


def check_order(order) -> None:
    """A deck order: the 36 number cards, then the suit stack, then the value stack."""
    if (len(order) != DECK_SIZE
            or sorted(order[:NUM_CARDS]) != list(range(NUM_CARDS))
            or sorted(order[NUM_CARDS:VALUE_STACK0]) != list(range(SUIT_STACK0, VALUE_STACK0))
            or sorted(order[VALUE_STACK0:]) != list(range(VALUE_STACK0, DECK_SIZE))):
        raise ValueError("geheimtrumpf: a deck order must hold the 36 number cards, then the "
                         "five trump-suit cards (10H 10D 10S 10C JK), then the ten trump-value "
                         "cards (V1..V9 VJK), each once")


def trumps_of_order(order) -> tuple[int, int]:
    """(trump suit, trump value) drawn in a deck order: the bottom card of each stack."""
    s = order[VALUE_STACK0 - 1] - SUIT_STACK0
    v = order[DECK_SIZE - 1] - VALUE_STACK0 + 1
    return (s if s < NUM_SUITS else NO_TRUMP_SUIT, v if v <= VALUES else NO_TRUMP_VALUE)


def consistent_trumps(state) -> list[tuple[int, int]]:
    """Every trump draw ``(suit, value)`` under which the announced row winners hold.

    The evidence a non-start player has about the trumps during the card
    draft: each finished row, judged as a trick under the draw, must have
    been won by the announced seat.  The true draw is always among them.
    """
    firsts = [state.row_first(r) for r in range(len(state.draft_rows))]
    return agreeing_trumps(state.num_players, firsts, state.draft_rows, state.row_winners)


def agreeing_trumps(n: int, firsts, draft_rows, row_winners) -> list[tuple[int, int]]:
    """:func:`consistent_trumps` from the facts it reads: the player count, each finished
    row's first chooser, its cards in choice order and its announced winner."""
    rows = [(first, list(cards), w)
            for first, cards, w in zip(firsts, draft_rows, row_winners)]
    out = []
    for key, t in TRUMPS.items():
        power = t.power
        for first, cards, w in rows:
            if (first + trick_winner(cards, power)) % n != w:
                break
        else:
            out.append(key)
    return out


def _fresh_order(rng: random.Random) -> tuple[int, ...]:
    numbers = list(range(NUM_CARDS))
    suits = list(range(SUIT_STACK0, VALUE_STACK0))
    values = list(range(VALUE_STACK0, DECK_SIZE))
    for part in (numbers, suits, values):
        shuffle(rng, part)
    return tuple(numbers + suits + values)


class _RedrawnOrders:
    """Deck orders whose rounds from ``first`` on are fresh shuffles, drawn on first use.

    Re-shuffling all future rounds eagerly would cost ~1.5 ms per sampled
    world, and a search that stops at the end of the round never looks at
    them.  Round ``i >= first`` is drawn from its own generator seeded by
    ``(seed, i)``, so clones that share this object see the same future.
    """

    __slots__ = ("_cache", "_first", "_known", "_len", "_seed")

    def __init__(self, known: list[tuple[int, ...]], length: int, seed: int):
        self._known = known
        self._first = len(known)
        self._len = length
        self._seed = seed
        self._cache: dict[int, tuple[int, ...]] = {}

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._len))]
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(i)
        if i < self._first:
            return self._known[i]
        order = self._cache.get(i)
        if order is None:
            order = self._cache[i] = _fresh_order(random.Random(self._seed * 100_003 + i))
        return order

    def __iter__(self):
        return (self[i] for i in range(self._len))


class GeheimtrumpfState(GameState):
    """A Geheimtrumpf game in progress.  Plain attributes; cheap to clone.

    Public per round: ``rows`` (the face-up cards of each row), ``layout``
    (face-up cards not yet taken), ``hands`` (everything is public once
    drafted), ``draft_rows`` (per finished row the cards in take order),
    ``row_winners`` (the announcements).  Secret: ``trumps`` (from non-start
    players during the draft), ``chosen`` (until all have chosen), the
    face-down fourth card of each row with 3 players (only in
    ``deck_orders``).

    ``log`` (records' ``rounds``): one dict per round begun - ``round``,
    ``start``, ``trump_suit`` ("H".. or None), ``trump_value`` (1..9 or
    None), ``rows`` (face-up cards per row), ``set_aside`` (3 players),
    ``draft`` (per row: ``first``, ``cards`` in take order, ``winner``),
    ``chosen`` (task name per seat, None for the start player), ``tricks``
    (leader, cards, seats, winner), ``tricks_won``, ``met`` (per seat, None
    for the start player), ``start_checks`` (the start player's check, or
    None), ``checked`` and ``totals`` after the round.  Round 0 also holds
    ``task_draft``: every pick as ``{"seat", "task"}``.
    """

    __slots__ = (
        "checked",
        "chosen",
        "draft_rows",
        "follow",
        "hands",
        "held",
        "last_winner",
        "layout",
        "round_index",
        "row_cards",
        "row_winners",
        "rows",
        "start",
        "task_holders",
        "tricks",
        "tricks_won",
        "trumps",
        "won_cards",
    )
    PHASE_NAMES = PHASE_NAMES

    def __init__(self, game: GeheimtrumpfGame, deck_orders: list[tuple[int, ...]], log: bool):
        super().__init__(game, deck_orders, log)  # totals: tasks checked
        n = self.num_players
        self.held = [0] * n  # task bitmasks
        self.checked = [0] * n
        self.task_holders = [0] * NUM_TASKS
        self.round_index = 0
        self.start = game.options.first_start
        self.phase = TASK_DRAFT
        self.current_player = self.start
        self.clear_round()
        if self.log is not None:
            self.log.append({"task_draft": []})

    def clear_round(self) -> None:
        """Empty every per-round field: no trumps known, no rows, hands or tricks.

        Public because a player view of a finished game rebuilds the state
        between rounds this way.
        """
        n = self.num_players
        self.trumps = TRUMPS[(NO_TRUMP_SUIT, NO_TRUMP_VALUE)]
        self.rows: tuple[int, ...] = (0,) * ROWS
        self.layout = 0
        self.hands = [0] * n
        self.draft_rows: list[tuple[int, ...]] = []
        self.row_cards: list[int] = []
        self.row_winners: list[int] = []
        self.chosen = [-1] * n
        self.tricks_won = [0] * n
        self.won_cards = [0] * n
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []  # (leader, cards, winner)
        self.trick = Trick((self.start + 1) % n, n)
        self.follow = 0
        self.last_winner = -1

    # -- round set-up -----------------------------------------------------------

    def start_round(self, round_index: int) -> None:
        """Deal round ``round_index`` from its deck order and open it; totals and history stay.

        Public because a player view rebuilds a state at the start of its
        round this way (``view.from_view``) before replaying the round.
        """
        n = self.num_players
        self.round_index = round_index
        self.start = (self.game.options.first_start + round_index) % n
        self.clear_round()
        order = self.deck_orders[round_index]
        self.trumps = TRUMPS[trumps_of_order(order)]
        # row i is order[4i:4i+4]; with 3 players its 4th card lies face down
        rows = []
        for i in range(ROWS):
            m = 0
            for c in order[i * ROW_LEN: i * ROW_LEN + n]:
                m |= 1 << c
            rows.append(m)
        self.rows = tuple(rows)
        self.layout = sum(rows)
        self.phase = CARD_DRAFT
        self.current_player = (self.start + 1) % n
        if self.log is not None:
            t = self.trumps
            entry = {
                "round": round_index, "start": self.start,
                "trump_suit": SUITS[t.suit] if t.suit >= 0 else None,
                "trump_value": t.value or None,
                "rows": [DECK.format(order[i * ROW_LEN: i * ROW_LEN + n]) for i in range(ROWS)],
                "set_aside": ([DECK.names[order[i * ROW_LEN + 3]] for i in range(ROWS)]
                              if n == 3 else []),
                "draft": [], "chosen": None, "tricks": [], "tricks_won": None,
                "met": None, "start_checks": None, "checked": None, "totals": None,
            }
            if round_index == 0 and self.log and "round" not in self.log[0]:
                entry["task_draft"] = self.log.pop()["task_draft"]
            self.log.append(entry)

    def set_trumps(self, suit: int, value: int) -> None:
        """Replace this round's trumps (tests and hidden-information resampling)."""
        self.trumps = TRUMPS[(suit, value)]

    # -- the rules -------------------------------------------------------------------

    @property
    def draft_row(self) -> int:
        """Index of the row being drafted (9 once the draft is over)."""
        return len(self.draft_rows)

    def row_first(self, row: int) -> int:
        """The seat with first choice in ``row``: left of the start player, moving left."""
        return (self.start + 1 + row) % self.num_players

    def trumps_known_to(self, seat: int) -> bool:
        """The start player knows the trumps all round; the others once the draft ends."""
        return self.phase != TASK_DRAFT and (self.phase != CARD_DRAFT or seat == self.start)

    def chosen_visible_to(self, seat: int, other: int) -> bool:
        """A seat always sees its own pick; the others' once all have picked."""
        return seat == other or self.phase in (PLAY, CHECK_OFF)

    def legal_mask(self) -> int:
        phase = self.phase
        g = self.game
        if phase == PLAY:
            return follow_mask(self.hands[self.current_player], self.follow)
        if phase == CARD_DRAFT:
            return (self.rows[len(self.draft_rows)] & self.layout) << g.TAKE0
        seat = self.current_player
        if phase == TASK_DRAFT:
            full = 0
            for t, h in enumerate(self.task_holders):
                if h >= MAX_HOLDERS:
                    full |= 1 << t
            return (ALL_TASKS & ~self.held[seat] & ~full) << g.DRAFT_TASK0
        if phase == TASK_CHOICE:
            return (self.held[seat] & ~self.checked[seat]) << g.CHOOSE_TASK0
        if phase == CHECK_OFF:
            return (self.held[seat] & ~self.checked[seat]) << g.CHECK0
        return 0

    def apply(self, action: int) -> None:
        self.last_deltas = None
        seat = self.current_player
        self.history.append((seat, action))
        phase = self.phase
        g = self.game
        if phase == PLAY:
            self._play(seat, action)
        elif phase == CARD_DRAFT:
            self._take(seat, action - g.TAKE0)
        elif phase == TASK_CHOICE:
            self._choose(seat, action - g.CHOOSE_TASK0)
        elif phase == TASK_DRAFT:
            self._draft_task(seat, action - g.DRAFT_TASK0)
        elif phase == CHECK_OFF:
            self._check(seat, action - g.CHECK0)
            self._end_round()

    def _draft_task(self, seat: int, task: int) -> None:
        self.held[seat] |= 1 << task
        self.task_holders[task] += 1
        if self.log is not None:
            self.log[-1]["task_draft"].append({"seat": seat, "task": TASK_NAMES[task]})
        n = self.num_players
        if len(self.history) < TASKS_PER_PLAYER * n:
            self.current_player = (seat + 1) % n
        else:
            self.start_round(0)

    def _take(self, seat: int, card: int) -> None:
        self.hands[seat] |= 1 << card
        self.layout &= ~(1 << card)
        row_cards = self.row_cards
        row_cards.append(card)
        n = self.num_players
        if len(row_cards) < n:
            self.current_player = (seat + 1) % n
            return
        # the row is complete: judge it as a trick led by the first chooser's card
        row = len(self.draft_rows)
        first = self.row_first(row)
        winner = (first + trick_winner(row_cards, self.trumps.power)) % n
        self.draft_rows.append(tuple(row_cards))
        self.row_winners.append(winner)
        self.row_cards = []
        if self.log is not None:
            self.log[-1]["draft"].append({
                "row": row, "first": first, "cards": DECK.format(row_cards), "winner": winner})
        if row + 1 < ROWS:
            self.current_player = self.row_first(row + 1)
        else:  # trumps are revealed; the others choose their tasks
            self.phase = TASK_CHOICE
            self.current_player = (self.start + 1) % n

    def _choose(self, seat: int, task: int) -> None:
        self.chosen[seat] = task
        n = self.num_players
        nxt = (seat + 1) % n
        if nxt != self.start:
            self.current_player = nxt
            return
        # all have chosen: the picks are revealed together and play begins
        if self.log is not None:
            self.log[-1]["chosen"] = [TASK_NAMES[t] if t >= 0 else None for t in self.chosen]
        self.phase = PLAY
        self.current_player = self.trick.leader

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat] ^= 1 << card
        trick = self.trick
        cards = trick.cards
        if not cards:
            self.follow = self.trumps.group[card]
        cards.append(card)
        n = self.num_players
        if len(cards) < n:
            self.current_player = (seat + 1) % n
            return
        winner = trick.seat_of(trick_winner(cards, self.trumps.power))
        self.tricks_won[winner] += 1
        for c in cards:
            self.won_cards[winner] |= 1 << c
        self.tricks.append((trick.leader, tuple(cards), winner))
        self.last_winner = winner
        if self.log is not None:
            rec = trick.as_dict(DECK.names)
            rec["winner"] = winner
            self.log[-1]["tricks"].append(rec)
        if self.hands[winner]:
            self.trick = Trick(winner, n)
            self.follow = 0
            self.current_player = winner
        else:
            self._score_tricks()

    def start_may_check(self) -> bool:
        """Whether the start player's result meets a task another chose and missed."""
        args = (self.tricks_won, self.won_cards, self.last_winner)
        start = self.start
        for s, t in enumerate(self.chosen):
            if s != start and t >= 0 and not task_met(t, s, *args) and task_met(t, start, *args):
                return True
        return False

    def _score_tricks(self) -> None:
        """After the last trick: the choosers check off; then maybe the start player."""
        n = self.num_players
        deltas = [0] * n
        met = [None] * n
        args = (self.tricks_won, self.won_cards, self.last_winner)
        for s, t in enumerate(self.chosen):
            if s != self.start and t >= 0:
                met[s] = task_met(t, s, *args)
                if met[s]:
                    self.checked[s] |= 1 << t
                    self.totals[s] += 1
                    deltas[s] = 1
        self.last_deltas = deltas
        if self.log is not None:
            rec = self.log[-1]
            rec["tricks_won"] = self.tricks_won[:]
            rec["met"] = met
        if self.start_may_check():
            self.phase = CHECK_OFF
            self.current_player = self.start
        else:
            self._end_round()

    def _check(self, seat: int, task: int) -> None:
        self.checked[seat] |= 1 << task
        self.totals[seat] += 1
        self.last_deltas = [0] * self.num_players
        self.last_deltas[seat] = 1
        if self.log is not None:
            self.log[-1]["start_checks"] = TASK_NAMES[task]

    def _end_round(self) -> None:
        done = [s for s in range(self.num_players) if self.totals[s] == TASKS_PER_PLAYER]
        if self.log is not None:
            rec = self.log[-1]
            rec["checked"] = [[TASK_NAMES[t] for t in bit_list(m)] for m in self.checked]
            rec["totals"] = self.totals[:]
        if done:
            self.end_game()
        elif self.round_index + 1 >= self.game.round_limit:
            self.end_game(truncated=True)
        else:
            self.start_round(self.round_index + 1)

    def winners(self) -> list[int]:
        """Seats with all four tasks checked; nobody when the game was truncated."""
        if not self.over:
            return []
        return [s for s in range(self.num_players) if self.totals[s] == TASKS_PER_PLAYER]

    # -- copying ------------------------------------------------------------------------

    def _copy_own(self, c: GeheimtrumpfState) -> None:
        c.held = self.held[:]
        c.checked = self.checked[:]
        c.task_holders = self.task_holders[:]
        c.round_index = self.round_index
        c.start = self.start
        c.trumps = self.trumps
        c.rows = self.rows
        c.layout = self.layout
        c.hands = self.hands[:]
        c.draft_rows = self.draft_rows[:]
        c.row_cards = self.row_cards[:]
        c.row_winners = self.row_winners[:]
        c.chosen = self.chosen[:]
        c.tricks_won = self.tricks_won[:]
        c.won_cards = self.won_cards[:]
        c.tricks = self.tricks[:]
        c.follow = self.follow
        c.last_winner = self.last_winner
