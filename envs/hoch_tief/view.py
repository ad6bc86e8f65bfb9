"""Hoch & Tief player view: what one seat knows, as JSON, and back to a rules state.

The frontend contract of issue 10 (documented in ``docs/views/hoch_tief.md``).

* :func:`to_view` turns a rules state into a JSON-ready dict of exactly what
  ``seat`` knows: its own hand and everything that lies face up or was seen
  on the table this round (every completed trick, the current trick, the
  taken cards of every seat, the suits each seat showed out of), the scores
  of the rounds before, the dealer, whose turn it is.  Other hands and
  later deals are never in it.  Seats are absolute seat numbers.
* :func:`from_view` validates such a dict and rebuilds a rules state
  (``log=False``) that agrees with it: the seat's hand and all public facts
  exactly, the other hands dealt from the cards the seat has not seen (right
  sizes, no card of a suit its holder showed out of), later rounds shuffled.
  Encoding that state for the seat gives the env's observation and mask.
* :func:`action_to_view` / :func:`action_from_label`: the answer format;
  :func:`json_schema`: the JSON Schema of the view.

The source of truth in a view is ``options``, ``seat``, ``phase``,
``round``, ``hand``, the cards of ``tricks`` and ``trick`` and
``round_scores``; every other key (``to_act``, ``legal``, ``taken``,
``voids``, ``played``, ``totals``, a trick's ``high``/``low`` ...) follows
from them by the rules: it may be left out, and when given must agree
(shared contract: :mod:`stichzoo.envs.core.view`).

Pure Python: no numpy.
"""

from __future__ import annotations

import random
from typing import Any

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.view import (
    Card,
    Cards,
    Const,
    Enum,
    Int,
    Legal,
    ListOf,
    Nullable,
    Obj,
    Seat,
    ViewSchema,
    header,
    opt,
    per_seat,
    req,
    show,
)
from stichzoo.envs.hoch_tief.rules import (
    GAME_OVER,
    HAND_SIZE,
    NUM_SUITS,
    PHASE_NAMES,
    PLAY,
    SUITS,
    HochTiefGame,
    HochTiefOptions,
    HochTiefState,
    constrained_deal,
    high_low,
)

#: every key of a view, in the order :func:`to_view` writes them
VIEW_KEYS = (
    "game", "env", "options", "num_players", "seat", "to_act", "phase",
    "round", "num_rounds", "dealer", "hand", "legal", "hand_sizes",
    "trick", "led_suit", "tricks", "tricks_played", "taken", "taken_score",
    "played", "voids", "round_scores", "totals",
)
#: keys of one entry of ``tricks`` (a completed trick)
TRICK_KEYS = ("leader", "cards", "seats", "high", "high_seat", "low", "low_seat")
#: keys of ``trick`` (the trick on the table)
CURRENT_TRICK_KEYS = ("leader", "cards", "seats")

#: the seed of the deal of hidden cards in :func:`from_view` when no ``rng`` is given
DEAL_SEED = 0


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _this_round_plays(state: HochTiefState) -> list[tuple[int, int]]:
    """``(seat, card)`` of every card played this round, in play order (from the history)."""
    n = state.num_players
    k = state.tricks_played * n
    if state.phase != GAME_OVER:  # at game over the final trick is counted in tricks_played
        k += len(state.trick.cards)
    if k == 0:
        return []
    if len(state.history) < k:
        raise ValueError(f"hoch_tief view: the state's history lacks this round's {k} plays")
    return state.history[len(state.history) - k:]


def _completed_trick(plays: list[tuple[int, int]], state: HochTiefState) -> dict:
    t = state.tables
    names = t.deck.names
    cards = [c for _, c in plays]
    seats = [p for p, _ in plays]
    hi, lo = high_low([t.number[c] for c in cards])
    return {
        "leader": seats[0],
        "cards": [names[c] for c in cards],
        "seats": seats,
        "high": names[cards[hi]],
        "high_seat": seats[hi],
        "low": names[cards[lo]],
        "low_seat": seats[lo],
    }


def to_view(state: HochTiefState, seat: int) -> dict:
    """What ``seat`` knows of ``state``, JSON-ready, in card names (see the module doc)."""
    g = state.game
    n = state.num_players
    if not _is_int(seat) or not 0 <= seat < n:
        raise ValueError(f"hoch_tief view: seat must be an integer in 0..{n - 1}, got {show(seat)}")
    t = state.tables
    deck = t.deck
    names = deck.names
    over = state.phase == GAME_OVER
    plays = _this_round_plays(state)
    tricks = [_completed_trick(plays[k * n:(k + 1) * n], state)
              for k in range(state.tricks_played)]
    trick = state.trick
    to_act = None if over or state.current_player < 0 else state.current_player
    legal = deck.format_mask(state.legal_mask()) if to_act == seat else []
    led = state.led_suit()
    return {
        "game": g.name,
        "env": g.env_id,
        "options": g.options.as_dict(),
        "num_players": n,
        "seat": seat,
        "to_act": to_act,
        "phase": PHASE_NAMES[state.phase],
        "round": state.round_index,
        "num_rounds": g.num_rounds,
        "dealer": state.dealer,
        "hand": deck.format_mask(state.hands[seat]),
        "legal": legal,
        "hand_sizes": [h.bit_count() for h in state.hands],
        "trick": {
            "leader": trick.leader,
            "cards": [names[c] for c in trick.cards],
            "seats": [trick.seat_of(i) for i in range(len(trick.cards))],
        },
        "led_suit": SUITS[led] if led >= 0 else None,
        "tricks": tricks,
        "tricks_played": state.tricks_played,
        "taken": [deck.format_mask(tk) for tk in state.taken],
        "taken_score": state.taken_scores(),
        "played": deck.format_mask(state.played_mask()),
        "voids": [[SUITS[s] for s in range(NUM_SUITS) if v >> s & 1] for v in state.voids],
        "round_scores": [list(r) for r in state.round_scores],
        "totals": list(state.totals),
    }


# -- the schema ------------------------------------------------------------------------


def max_round_score(game: HochTiefGame) -> int:
    """The most one seat can score in a round: per suit, its two highest numbers
    (``2m - 1``) or, with three or more cards, one per card (at most ``m``)."""
    m = game.tables.numbers
    return NUM_SUITS * max(2 * m - 1, m)


def _spec(game: HochTiefGame) -> Obj:
    n, names, top = game.num_players, game.deck.names, max_round_score(game)
    m = game.tables.numbers
    hint = f"A1..A{m}, B1..B{m}, C.., D.., E1..E{m} (with {n} players)"
    seat = Seat(n)

    def cards(most: int, ordered: bool = False) -> Any:
        return Cards(names, hint, most=most, ordered=ordered)

    card = Card(names, hint)
    trick = {"leader": opt(seat, "Who led it (the rules fix it)."),
             "cards": req(cards(n, ordered=True), "In play order."),
             "seats": opt(ListOf(seat, most=n), "Who played each card.")}
    return Obj({
        **header(game, num_players=True),
        "seat": req(seat, "The seat whose view this is."),
        "to_act": opt(Nullable(seat), "The seat to act; null at game over."),
        "phase": req(Enum(PHASE_NAMES), "play or game_over."),
        "round": req(Int(0, game.num_rounds - 1), "Round index, 0-based."),
        "num_rounds": opt(Const(game.num_rounds), "Rounds in the game."),
        "dealer": opt(seat, "Dealer of this round."),
        "hand": req(cards(HAND_SIZE), "The seat's own cards."),
        "legal": opt(Legal(names), "The legal cards; [] = work out."),
        "hand_sizes": opt(per_seat(Int(0, HAND_SIZE), n), "Cards in each hand."),
        "trick": req(Obj(trick), "The trick on the table (the last trick at game over)."),
        "led_suit": opt(Nullable(Enum(SUITS)), "The suit led in the trick on the table."),
        "tricks": req(ListOf(Obj({
            **trick,
            "high": opt(card, "The high card (takes the trick)."),
            "high_seat": opt(seat, "Who played it."),
            "low": opt(card, "The low card (taken face up)."),
            "low_seat": opt(seat, "Who played it."),
        }), most=HAND_SIZE), "The completed tricks of this round, in order."),
        "tricks_played": opt(Int(0, HAND_SIZE), "Completed tricks this round."),
        "taken": opt(per_seat(cards(n * HAND_SIZE), n), "Face-up cards each seat took."),
        "taken_score": opt(per_seat(Int(0, top), n), "What each seat's taken cards score."),
        "played": opt(cards(n * HAND_SIZE), "Every card played this round."),
        "voids": opt(per_seat(ListOf(Enum(SUITS), most=NUM_SUITS, unique=True,
                                     ordered=False), n), "Suits each seat showed out of."),
        "round_scores": req(ListOf(per_seat(Int(0, top), n), most=game.num_rounds),
                            f"Per-seat scores of each finished round (each 0..{top})."),
        "totals": opt(per_seat(Int(0, top * game.num_rounds), n), "Sums of round_scores."),
    }, "A Hoch & Tief player view: what one seat knows.")


SCHEMA = ViewSchema("hoch_tief", _spec)
_err = SCHEMA.error


def json_schema(game: HochTiefGame | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of a view of ``game`` (default options if None)."""
    return SCHEMA.json_schema(game or HochTiefGame(HochTiefOptions()), "Hoch & Tief player view")


# -- from a view back to a state ---------------------------------------------------


def from_view(game: HochTiefGame, view: dict, rng: random.Random | None = None
              ) -> HochTiefState:
    """A rules state (``log=False``) consistent with ``view``; ViewError naming any problem.

    The seat's hand and every public fact are taken from the view; the other
    hands are dealt from the cards the seat has not seen (from ``rng``,
    default seed :data:`DEAL_SEED`), with the right sizes and respecting
    every void shown this round; the deals of later rounds are shuffled,
    those of earlier rounds are placeholders.  The round's tricks are
    replayed through the rules, so the state's history holds this round's
    plays and every follow-suit rule holds.  Finally every key the view
    gives must equal the state's own view (card sets in any order).
    """
    p = SCHEMA.parse(game, view)
    n = game.num_players
    t = game.tables
    names = t.deck.names
    seat, rnd = p["seat"], p["round"]
    phase = PHASE_NAMES.index(p["phase"])
    if phase == GAME_OVER and rnd != game.num_rounds - 1:
        raise _err("phase", f"game_over but round is {rnd}: the game ends after round "
                            f"{game.num_rounds - 1}")
    rs = p["round_scores"]
    want_rounds = rnd + (phase == GAME_OVER)  # game over: the last is checked after replay
    if len(rs) != want_rounds:
        raise _err("round_scores", f"must hold {want_rounds} per-seat score lists (one per "
                                   f"finished round), got {len(rs)}")

    # the cards: hand, completed tricks, current trick; each card once
    hand = p["hand"]
    where: dict[int, str] = {c: "hand" for c in hand}

    def claim(c: int, w: str) -> None:
        if c in where:
            raise _err(w, f"card {show(names[c])} is in {where[c]} too")
        where[c] = w

    tricks_v = p["tricks"]
    if phase == PLAY and len(tricks_v) >= HAND_SIZE:
        raise _err("tricks", f"holds {len(tricks_v)} completed tricks in phase play: a round "
                             f"has {HAND_SIZE} tricks and ends with the last")
    if phase == GAME_OVER and len(tricks_v) != HAND_SIZE:
        raise _err("tricks", f"phase game_over needs all {HAND_SIZE} tricks of the last round, "
                             f"got {len(tricks_v)}")
    leader = (game.options.first_dealer + rnd + 1) % n
    tricks: list[tuple[int, list[int]]] = []
    for k, tv in enumerate(tricks_v):
        cards = tv["cards"]
        if len(cards) != n:
            raise _err(f"tricks[{k}].cards", f"must hold {n} cards (a completed trick), "
                                             f"got {len(cards)}")
        for c in cards:
            claim(c, f"tricks[{k}]")
        tricks.append((leader, cards))
        leader = (leader + high_low([t.number[c] for c in cards])[0]) % n

    cur_cards = p["trick"]["cards"]
    if phase == GAME_OVER:
        if cur_cards != tricks[-1][1]:
            raise _err("trick.cards", f"at game over the trick is the last completed trick "
                                      f"({show([names[c] for c in tricks[-1][1]])})")
        cur_cards = []  # already counted in tricks
    else:
        if len(cur_cards) >= n:
            raise _err("trick.cards", f"holds {len(cur_cards)} cards; a trick on the table "
                                      f"holds at most {n - 1} (a full trick is resolved at once)")
        for c in cur_cards:
            claim(c, "trick")

    # who played what, voids shown, follow-suit consistency of the public plays
    plays: list[tuple[int, int, str]] = []  # (seat, card, where)
    for k, (lead, cards) in enumerate(tricks):
        plays += [((lead + i) % n, c, f"tricks[{k}].cards") for i, c in enumerate(cards)]
    plays += [((leader + i) % n, c, "trick.cards") for i, c in enumerate(cur_cards)]
    voids = [0] * n
    void_where: dict[tuple[int, int], str] = {}
    played_by = [0] * n
    led = -1
    for i, (q, c, w) in enumerate(plays):
        s = t.suit[c]
        if i % n == 0:  # the first card of each trick (tricks hold n cards each)
            led = s
        if voids[q] >> s & 1:
            raise _err(w, f"seat {q} plays {show(names[c])}, but it showed out of suit "
                          f"{SUITS[s]} in {void_where[q, s]}")
        if s != led:
            void_where.setdefault((q, led), w)
            voids[q] |= 1 << led
        played_by[q] |= 1 << c

    hand_mask = sum(1 << c for c in hand)
    own_played = played_by[seat].bit_count()
    want_hand = 0 if phase == GAME_OVER else HAND_SIZE - own_played
    if len(hand) != want_hand:
        raise _err("hand", f"holds {len(hand)} cards, but seat {seat} must hold {want_hand} "
                           f"({HAND_SIZE} dealt, {own_played} played this round)")
    for s in range(NUM_SUITS):
        if voids[seat] >> s & 1 and hand_mask & t.suit_mask[s]:
            bad = [names[c] for c in bit_list(hand_mask & t.suit_mask[s])]
            raise _err("hand", f"holds {', '.join(bad)}, but seat {seat} showed out of suit "
                               f"{SUITS[s]} in {void_where[seat, s]}")

    # deal the unseen cards to the other seats, respecting their voids
    rng = rng or random.Random(DEAL_SEED)
    played = 0
    for mk in played_by:
        played |= mk
    unseen = t.deck.full_mask & ~hand_mask & ~played
    others = [q for q in range(n) if q != seat]
    sizes = [HAND_SIZE - played_by[q].bit_count() for q in others]
    banned = [sum(t.suit_mask[s] for s in range(NUM_SUITS) if voids[q] >> s & 1) & unseen
              for q in others]
    for s in range(NUM_SUITS):
        if unseen & t.suit_mask[s] and all(b & t.suit_mask[s] for b in banned):
            c = bit_list(unseen & t.suit_mask[s])[0]
            raise _err("tricks", f"no deal of the unseen cards to the other seats fits the "
                                 f"suits they showed out of: every other seat showed out of "
                                 f"suit {SUITS[s]}, yet {show(names[c])} is neither in hand "
                                 f"nor played")
    try:
        dealt_hidden = constrained_deal(unseen, sizes, banned, t, rng)
    except ValueError:
        raise _err("tricks", "no deal of the unseen cards to the other seats fits the suits "
                             "they showed out of (voids)") from None
    dealt = [0] * n
    dealt[seat] = hand_mask | played_by[seat]
    for q, h in zip(others, dealt_hidden):
        dealt[q] = h | played_by[q]

    # deck orders: placeholders before, this round's deal, shuffles after
    dealer = (game.options.first_dealer + rnd) % n
    order = [0] * t.size
    for q in range(n):
        order[(q - dealer - 1) % n::n] = bit_list(dealt[q])
    orders: list[list[int]] = []
    for i in range(game.num_rounds):
        o = list(range(t.size))
        if i == rnd:
            o = order
        elif i > rnd:
            rng.shuffle(o)
        orders.append(o)
    state = game.new_state(orders, log=False)
    state.round_scores = [list(r) for r in rs[:rnd]]
    state.totals = [sum(r[q] for r in state.round_scores) for q in range(n)]
    state.start_round(rnd)
    for q, c, w in plays:
        if state.current_player != q or not state.legal_mask() >> c & 1:  # pragma: no cover
            raise _err(w, f"seat {q} cannot play {show(names[c])} by the rules")
        state.apply(c)
    SCHEMA.check_derived(game, view, to_view(state, seat), {
        "to_act": lambda got, want: f"is {show(got)}, but by the rules "
                                    f"{'nobody' if want is None else f'seat {want}'} is to act",
    })
    return state


# -- the answer format --------------------------------------------------------------------


def action_to_view(game: HochTiefGame, action_id: int) -> dict:
    """An action in game terms: ``{"action": "A7", "action_id": 6, "kind": "card", ...}``."""
    if not _is_int(action_id) or not 0 <= action_id < game.num_actions:
        raise ValueError(f"hoch_tief: action_id must be an integer in 0..{game.num_actions - 1}, "
                   f"got {show(action_id)}")
    t = game.tables
    label = game.action_label(action_id)
    return {"action": label, "action_id": action_id, "kind": "card", "card": label,
            "suit": SUITS[t.suit[action_id]], "number": t.number[action_id]}


def action_from_label(game: HochTiefGame, label: str) -> int:
    """The action id of a label (a card name such as ``"A7"``); ``ValueError`` if unknown."""
    if not isinstance(label, str):
        raise ValueError(f"hoch_tief: an action label must be a string (a card name), "
                         f"got {show(label)}")
    c = {name: i for i, name in enumerate(game.deck.names)}.get(label)
    if c is None:
        m = game.tables.numbers
        raise ValueError(f"hoch_tief: unknown action {show(label)} (with {game.num_players} "
                         f"players the actions are the cards A1..A{m}, B1.., C.., D.., "
                         f"E1..E{m})")
    return c


__all__ = ["SCHEMA", "VIEW_KEYS", "action_from_label", "action_to_view", "from_view",
           "json_schema", "to_view"]
