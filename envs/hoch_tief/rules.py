"""Hoch & Tief - the rules, as this project reads them (3 to 6 players).

The original is a short German review of an unnamed trick game; "Hoch &
Tief" ("high & low") is this project's name for it.

Deck.  Five suits, each numbered 1..18.  Only the numbers ``1..3n`` are used
(``n`` players), so that every player gets exactly 15 cards: 3 players use
1-9, 4 use 1-12, 5 use 1-15, 6 use 1-18.  All used cards are dealt.

Card notation.  The suits have no names in the original; here they are the
letters ``A B C D E``, and a card is its suit letter followed by its number:
``"A7"``, ``"E12"``.  With ``m = 3n`` numbers per suit the card id is
``suit * m + number - 1`` (``0 .. 15n - 1``), so ids and names depend on the
player count: ``"A10"`` exists with four players but not with three.

Rounds.  ``n`` rounds by default, so that everybody deals once (option
``rounds``).  Seat ``first_dealer`` (default 0) deals the first round, the
deal moves one seat left each round.  The cards are dealt one at a time
starting left of the dealer; the player left of the dealer leads the first
trick.

Play.  Each player in turn (to the left) plays one card.  The led suit must
be followed if possible; a player without it plays any card.

Trick outcome.  When all have played, suits no longer matter:
- the *highest* card is the one with the highest number; among equal
  numbers the one played last counts highest;
- the *lowest* card is the one with the lowest number; among equal numbers
  the one played last counts lowest;
- the player of the lowest card takes the highest card, face up;
- the player of the highest card takes all the other cards, face up, and
  leads the next trick.
If every card shows the same number, the last card played is both the
highest and the lowest, so its player takes the whole trick (and leads).
Otherwise the two cards differ and the trick is split between two seats
(which may be neighbours or far apart).  Taken cards lie face up: everybody
sees who holds what.

Score per round.  For each player and each suit, over the cards taken this
round: 1 or 2 cards of a suit score their printed numbers; 3 or more cards
of the suit score 1 point each; none score nothing.  So a third card in a
suit can ruin a high score (A17 + A18 = 35, but A1 + A17 + A18 = 3).  After
the last round the highest total wins; equal totals share the win.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from stichzoo.envs.core.cards import Deck, bit_list, bits
from stichzoo.envs.core.game import Game, GameState, Options, check_int, deal_hands, shuffle
from stichzoo.envs.core.tricks import Trick, follow_mask

# -- the deck ------------------------------------------------------------------

SUITS = "ABCDE"
NUM_SUITS = 5
MAX_NUMBER = 18
HAND_SIZE = 15  # every player gets 15 cards whatever the player count
MAX_ROUNDS = 50  # upper bound of option ``rounds`` (keeps observation bounds finite)

PLAY, GAME_OVER = range(2)
PHASE_NAMES = ("play", "game_over")


class CardLookups:
    """Everything about one player count's deck, computed once.

    ``numbers = 3n`` numbers per suit; ``number[c]`` is the printed number
    1..3n of card ``c``; ``suit[c]`` its suit 0..4; ``suit_mask[s]`` the
    bitmask of the cards of suit ``s``.
    """

    def __init__(self, num_players: int):
        m = self.numbers = 3 * num_players
        self.size = NUM_SUITS * m
        self.deck = Deck([f"{SUITS[s]}{v}" for s in range(NUM_SUITS) for v in range(1, m + 1)])
        self.number: tuple[int, ...] = tuple(c % m + 1 for c in range(self.size))
        self.suit: tuple[int, ...] = tuple(c // m for c in range(self.size))
        self.suit_mask: tuple[int, ...] = tuple(((1 << m) - 1) << (s * m)
                                                for s in range(NUM_SUITS))


_LOOKUPS = {n: CardLookups(n) for n in range(3, 7)}


def lookups(num_players: int) -> CardLookups:
    """The shared card lookups for ``num_players`` (3..6)."""
    return _LOOKUPS[num_players]


# -- the pure rules --------------------------------------------------------------


def high_low(numbers: list[int]) -> tuple[int, int]:
    """Positions (in play order) of the highest and the lowest card of a trick.

    Suits are ignored.  Ties go to the card played last, for the highest as
    for the lowest (hence ``>=`` and ``<=``); when all numbers are equal both
    positions are the last one.
    """
    hi = lo = 0
    top = low = numbers[0]
    for i in range(1, len(numbers)):
        v = numbers[i]
        if v >= top:
            hi, top = i, v
        if v <= low:
            lo, low = i, v
    return hi, lo


def score_taken(taken: int, t: CardLookups) -> int:
    """Round score of one player's taken cards (bitmask).

    Per suit: 1 or 2 cards score their printed numbers, 3 or more score one
    point each.
    """
    total = 0
    number = t.number
    for sm in t.suit_mask:
        s = taken & sm
        if s:
            k = s.bit_count()
            if k >= 3:
                total += k
            else:
                for c in bits(s):
                    total += number[c]
    return total


# -- dealing hidden cards for search (determinize) ------------------------------------

_REJECTION_TRIES = 64


def constrained_deal(pool: int, sizes: list[int], banned: list[int], t: CardLookups,
                     rng: random.Random) -> list[int]:
    """Deal the cards of ``pool`` into hands of ``sizes``, hand ``j`` holding none of ``banned[j]``.

    Uniform over all such deals: a few tries of plain rejection sampling
    (exact when it succeeds), then :func:`_exact_deal`, which is exact too.
    Only when counting would take too long (five or six players with many
    voids) the deal is :func:`_mixed_deal`'s, uniform up to a short Markov
    chain's mixing.  Public: :meth:`HochTiefGame.determinize` and the player
    view (``view.from_view``) both deal hidden cards with it.
    """
    cards = bit_list(pool)
    for _ in range(_REJECTION_TRIES):
        shuffle(rng, cards)
        hands = []
        i = 0
        for k, b in zip(sizes, banned):
            h = 0
            for c in cards[i:i + k]:
                h |= 1 << c
            i += k
            if h & b:
                break
            hands.append(h)
        else:
            return hands
    try:
        return _exact_deal(pool, sizes, banned, t, rng)
    except _TooHard:
        return _mixed_deal(pool, sizes, banned, t, rng)


class _TooHard(Exception):
    """Counting the deals would cost more than :data:`_COUNT_BUDGET` steps."""


_COUNT_BUDGET = 3000


def _exact_deal(pool: int, sizes: list[int], banned: list[int], t: CardLookups,
                rng: random.Random) -> list[int]:
    """Exact uniform constrained deal by counting, suit by suit.

    Hands without a banned card are merged into one group (any deal of the
    group's cards among them is allowed, the same number of ways whatever
    the cards).  The number of deals is a sum over how many cards of each
    suit each group gets, weighted by multinomials; it is counted with a
    memoised recursion over the suits, and the per-suit splits are drawn
    in proportion to the deals they leave.
    """
    free = [j for j, b in enumerate(banned) if not b]
    tied = [j for j, b in enumerate(banned) if b]
    groups = [[j] for j in tied] + ([free] if free else [])
    caps0 = tuple(sum(sizes[j] for j in g) for g in groups)
    suit_cards = [bit_list(pool & sm) for sm in t.suit_mask]
    suit_cards = [cs for cs in suit_cards if cs]
    allowed = []
    for cs in suit_cards:
        m = 1 << cs[0]
        allowed.append([gi for gi, g in enumerate(groups)
                        if len(g) > 1 or not banned[g[0]] & m])
    # the suit with the most ways to split goes last: its split is forced
    order = sorted(range(len(suit_cards)),
                   key=lambda i: (len(allowed[i]), len(suit_cards[i])))
    suit_cards = [suit_cards[i] for i in order]
    allowed = [allowed[i] for i in order]
    fact = [1]
    for k in range(1, pool.bit_count() + 1):
        fact.append(fact[-1] * k)
    ng = len(groups)
    budget = [_COUNT_BUDGET]

    def splits(u: int, gis: list[int]) -> list[tuple[tuple[int, ...], int]]:
        """Every way to put ``u`` cards into the groups ``gis`` (within their sizes), weighted."""
        out = []
        cur = [0] * ng

        def rec(k: int, rem: int) -> None:
            g = gis[k]
            if k == len(gis) - 1:
                if rem <= caps0[g]:
                    cur[g] = rem
                    w = fact[u]
                    for x in cur:
                        w //= fact[x]
                    out.append((tuple(cur), w))
                    cur[g] = 0
                return
            for x in range(min(rem, caps0[g]) + 1):
                cur[g] = x
                rec(k + 1, rem - x)
            cur[g] = 0

        rec(0, u)
        budget[0] -= len(out)
        if budget[0] < 0:
            raise _TooHard
        return out

    last = len(suit_cards) - 1
    all_splits = [splits(len(cs), allowed[i]) for i, cs in enumerate(suit_cards[:last])]
    last_banned = [g for g in range(ng) if g not in allowed[last]]
    memo: dict[tuple, int] = {}

    def ways(i: int, caps: tuple[int, ...]) -> int:
        if i == last:  # the last suit fills what is left
            if any(caps[g] for g in last_banned):
                return 0
            w = fact[len(suit_cards[last])]
            for x in caps:
                w //= fact[x]
            return w
        key = (i, caps)
        if key in memo:
            return memo[key]
        total = 0
        sp = all_splits[i]
        budget[0] -= len(sp)
        if budget[0] < 0:
            raise _TooHard
        for x, w in sp:
            nxt = tuple([c - k for c, k in zip(caps, x)])
            if min(nxt) >= 0:
                total += w * ways(i + 1, nxt)
        memo[key] = total
        return total

    if not ways(0, caps0):
        raise ValueError("hoch_tief: no deal of the hidden cards fits the observed voids")
    caps = caps0
    got: list[list[int]] = [[] for _ in groups]
    for i, cs in enumerate(suit_cards):
        if i == last:
            x = caps
        else:
            options = []
            for x, w in all_splits[i]:
                nxt = tuple([c - k for c, k in zip(caps, x)])
                if min(nxt) >= 0:
                    w *= ways(i + 1, nxt)
                    if w:
                        options.append((w, x))
            r = rng.randrange(sum(o[0] for o in options))
            pick = 0
            while r >= options[pick][0]:
                r -= options[pick][0]
                pick += 1
            x = options[pick][1]
        cs = cs[:]
        shuffle(rng, cs)
        for g, k in enumerate(x):
            got[g].extend(cs[:k])
            del cs[:k]
        caps = tuple([c - k for c, k in zip(caps, x)])
    hands = [0] * len(sizes)
    for g, cs in zip(groups, got):
        shuffle(rng, cs)
        for j in g:
            for c in cs[:sizes[j]]:
                hands[j] |= 1 << c
            del cs[:sizes[j]]
    return hands


def _mixed_deal(pool: int, sizes: list[int], banned: list[int], t: CardLookups,
                rng: random.Random) -> list[int]:
    """A random valid deal, then random card swaps between hands that keep it valid.

    The start deal gives the most constrained cards first, each to a random
    hand that may hold it (weighted by free places); the swap chain is
    symmetric, so it tends to the uniform deal; ``30 x`` the pool's size
    swap attempts leave it close to uniform.  It never looks at the true
    hands.
    """
    m = len(sizes)
    cards = bit_list(pool)
    allowed = {c: [j for j in range(m) if not banned[j] >> c & 1] for c in cards}
    for _ in range(200):
        shuffle(rng, cards)
        cards.sort(key=lambda c: len(allowed[c]))
        room = sizes[:]
        owner: dict[int, int] = {}
        for c in cards:
            opts = [j for j in allowed[c] if room[j]]
            if not opts:
                break
            j = rng.choices(opts, [room[j] for j in opts])[0]
            room[j] -= 1
            owner[c] = j
        else:
            break
    else:
        raise ValueError("hoch_tief: no deal of the hidden cards fits the observed voids")
    held = [[c for c in cards if owner[c] == j] for j in range(m)]
    slots = [(j, i) for j in range(m) for i in range(sizes[j])]
    if m > 1 and slots:
        for _ in range(30 * len(cards)):
            j1, i1 = slots[rng.randrange(len(slots))]
            j2, i2 = slots[rng.randrange(len(slots))]
            if j1 == j2:
                continue
            a, b = held[j1][i1], held[j2][i2]
            if not (banned[j2] >> a & 1 or banned[j1] >> b & 1):
                held[j1][i1], held[j2][i2] = b, a
    hands = []
    for h in held:
        x = 0
        for c in h:
            x |= 1 << c
        hands.append(x)
    return hands


# -- options --------------------------------------------------------------------


@dataclass(frozen=True)
class HochTiefOptions(Options):
    num_players: int = 4
    #: rounds to play; None: one per player (everybody deals once)
    rounds: int | None = None
    #: seat that deals the first round
    first_dealer: int = 0

    def __post_init__(self):
        check_int("hoch_tief", "num_players", self.num_players, 3, 6)
        if self.rounds is not None:
            check_int("hoch_tief", "rounds", self.rounds, 1, MAX_ROUNDS)
        check_int("hoch_tief", "first_dealer", self.first_dealer, 0, self.num_players - 1)


# -- the game -------------------------------------------------------------------


class HochTiefGame(Game):
    """Hoch & Tief under fixed options.

    Actions: ``0 .. 15n - 1`` play that card (the only decision in the game).
    """

    name = "hoch_tief"
    version = 0
    Options = HochTiefOptions

    def __init__(self, options: HochTiefOptions):
        self.options = options
        self.num_players = n = options.num_players
        self.lookups = lookups(n)
        self.deck = self.lookups.deck
        self.num_rounds = options.rounds if options.rounds is not None else n
        self.num_actions = self.lookups.size

    def deal(self, rng: random.Random) -> list[list[int]]:
        return self.shuffles(rng, self.num_rounds, range(self.lookups.size))

    def new_state(self, deck_orders, *, log: bool = False) -> HochTiefState:
        orders = self.checked_orders(deck_orders, self.num_rounds, range(self.lookups.size))
        return HochTiefState(self, orders, log)

    def action_label(self, action: int) -> str:
        if 0 <= action < self.num_actions:
            return self.deck.names[action]
        return f"<invalid {action}>"

    def determinize(self, state: HochTiefState, seat: int, rng: random.Random) -> HochTiefState:
        """A copy of ``state`` (no log) with everything hidden from ``seat`` re-drawn.

        Hidden from ``seat`` are only the other hands and the deals of later
        rounds (taken cards lie face up, played cards were seen).  The other
        hands are re-dealt from the cards ``seat`` has not seen (the union of
        the other hands), keeping every hand's size and every void ``seat``
        has observed this round (a player who did not follow a suit gets
        none of it), uniformly among all such deals: plain rejection
        sampling first, and when voids make that unlikely to succeed an
        exact count-weighted deal (:func:`constrained_deal`).  The current
        round's deck order is rebuilt to agree with the new hands (each
        seat's dealt cards - hand plus cards played this round - in random
        order at its deal positions); later rounds' deck orders are
        reshuffled.  ``seat``'s own hand and everything public are unchanged.
        """
        if state.phase != PLAY:
            return state.clone()
        n = self.num_players
        t = self.lookups
        others = [p for p in range(n) if p != seat]
        pool = 0
        for p in others:
            pool |= state.hands[p]
        sizes = [state.hands[p].bit_count() for p in others]
        banned = []
        for p in others:
            v = state.voids[p]
            b = 0
            for su in range(NUM_SUITS):
                if v >> su & 1:
                    b |= t.suit_mask[su]
            banned.append(b & pool)
        hands = state.hands[:]
        for p, h in zip(others, constrained_deal(pool, sizes, banned, t, rng)):
            hands[p] = h
        return self.world_of(state, hands, rng)

    def world_of(self, state: HochTiefState, hands: list[int],
                 rng: random.Random) -> HochTiefState:
        """The second step of :meth:`determinize`: a copy of ``state`` (in play) holding
        ``hands`` (every seat's; the other seats' re-drawn), its deck orders rebuilt to match.

        Apart so that a search drawing hands its own way (a belief model,
        ``pimc:belief``) builds its worlds as ``determinize`` does, draw for draw.
        """
        s = state.clone()
        n = self.num_players
        t = self.lookups
        s.hands = hands[:]
        # the current round's deck order, consistent with the new hands
        played_now = s.tricks_played * n + len(s.trick.cards)
        dealt = s.hands[:]
        for p, c in s.history[len(s.history) - played_now:]:
            dealt[p] |= 1 << c
        order = [0] * t.size
        for p in range(n):
            cards = bit_list(dealt[p])
            shuffle(rng, cards)
            first = (p - s.dealer - 1) % n
            order[first::n] = cards
        orders = list(s.deck_orders)
        orders[s.round_index] = tuple(order)
        for i in range(s.round_index + 1, len(orders)):
            o = sorted(orders[i])  # shuffled from card-id order, not from the true deal
            shuffle(rng, o)
            orders[i] = tuple(o)
        s.deck_orders = orders
        return s


class HochTiefState(GameState):
    """A Hoch & Tief game in progress.  Plain attributes; cheap to clone.

    ``hands[s]`` and ``taken[s]`` are bitmasks; ``taken`` is public (face up).
    ``voids[s]`` is a bitmask over suits that seat ``s`` showed out of this
    round (public: everybody saw it not follow).
    """

    __slots__ = (
        "dealer",
        "hands",
        "lookups",
        "round_index",
        "round_scores",
        "taken",
        "tricks_played",
        "voids",
    )
    PHASE_NAMES = PHASE_NAMES

    def __init__(self, game: HochTiefGame, deck_orders: list[tuple[int, ...]], log: bool):
        super().__init__(game, deck_orders, log)
        self.lookups = game.lookups
        self.round_scores: list[list[int]] = []
        self.phase = PLAY
        self.start_round(0)

    # -- round set-up -------------------------------------------------------

    def start_round(self, round_index: int) -> None:
        """Deal round ``round_index`` from its deck order and open it; totals and history stay.

        Public because a player view rebuilds a state at the start of its
        round this way (``view.from_view``) before replaying the round.
        """
        n = self.num_players
        self.round_index = round_index
        self.dealer = (self.game.options.first_dealer + round_index) % n
        order = self.deck_orders[round_index]
        self.hands = hands = deal_hands(order, n, self.dealer, len(order))  # every card
        self.taken = [0] * n
        self.voids = [0] * n
        self.tricks_played = 0
        leader = (self.dealer + 1) % n
        self.trick = Trick(leader, n)
        self.current_player = leader
        if self.log is not None:
            self.log.append({
                "round": round_index, "dealer": self.dealer,
                "hands": [self.lookups.deck.format_mask(h) for h in hands],
                "tricks": [], "taken": None, "scores": None, "totals": None,
            })

    # -- the rules ------------------------------------------------------------

    def led_suit(self) -> int:
        """Suit of the first card of the current trick, or -1 if none is led yet."""
        cards = self.trick.cards
        return self.lookups.suit[cards[0]] if cards else -1

    def legal_mask(self) -> int:
        if self.phase != PLAY:
            return 0
        hand = self.hands[self.current_player]
        cards = self.trick.cards
        if not cards:
            return hand
        t = self.lookups
        return follow_mask(hand, t.suit_mask[t.suit[cards[0]]])

    def apply(self, card: int) -> None:
        self.last_deltas = None
        seat = self.current_player
        self.history.append((seat, card))
        self.hands[seat] ^= 1 << card
        trick = self.trick
        cards = trick.cards
        t = self.lookups
        if cards:
            led = t.suit[cards[0]]
            if t.suit[card] != led:
                self.voids[seat] |= 1 << led  # showed out of the led suit
        cards.append(card)
        n = self.num_players
        if len(cards) < n:
            self.current_player = (seat + 1) % n
            return
        self._resolve(trick)

    def _resolve(self, trick: Trick) -> None:
        """Hand the finished trick's cards to the two seats it goes to."""
        cards = trick.cards
        n = self.num_players
        number = self.lookups.number
        hi, lo = high_low([number[c] for c in cards])
        high_card = cards[hi]
        high_seat = (trick.leader + hi) % n
        low_seat = (trick.leader + lo) % n
        rest = 0
        for c in cards:
            rest |= 1 << c
        rest ^= 1 << high_card
        self.taken[low_seat] |= 1 << high_card
        self.taken[high_seat] |= rest  # same seat when all numbers are equal: whole trick
        self.tricks_played += 1
        if self.log is not None:
            names = self.lookups.deck.names
            rec = trick.as_dict(names)
            rec.update({"high": names[high_card], "high_seat": high_seat,
                        "low": names[cards[lo]], "low_seat": low_seat,
                        "high_card_to": low_seat, "rest_to": high_seat, "winner": high_seat})
            self.log[-1]["tricks"].append(rec)
        if self.hands[high_seat]:
            self.trick = Trick(high_seat, n)
            self.current_player = high_seat
        else:
            self._score_round()

    def _score_round(self) -> None:
        t = self.lookups
        scores = [score_taken(tk, t) for tk in self.taken]
        self.round_scores.append(scores)
        if self.log is not None:
            self.log[-1]["taken"] = [t.deck.format_mask(tk) for tk in self.taken]
        self.count_scores(scores)
        self.next_round(self.game.num_rounds)

    # -- copying --------------------------------------------------------------

    def _copy_own(self, c: HochTiefState) -> None:
        c.lookups = self.lookups
        c.round_scores = self.round_scores[:]
        c.round_index = self.round_index
        c.dealer = self.dealer
        c.hands = self.hands[:]
        c.taken = self.taken[:]
        c.voids = self.voids[:]
        c.tricks_played = self.tricks_played

    # -- views used by encoders, bots and tests ---------------------------------

    def taken_scores(self) -> list[int]:
        """What each seat's face-up cards would score if the round ended now (public)."""
        t = self.lookups
        return [score_taken(tk, t) for tk in self.taken]

    def played_mask(self) -> int:
        """Every card played this round: all taken cards plus the current trick."""
        m = 0
        for tk in self.taken:
            m |= tk
        for c in self.trick.cards:
            m |= 1 << c
        return m
