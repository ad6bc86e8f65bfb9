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

from stichzoo.envs.core import view as core
from stichzoo.envs.core.cards import mask_of
from stichzoo.envs.core.schema import (
    Card,
    Cards,
    Const,
    Enum,
    Int,
    ListOf,
    Nullable,
    Obj,
    Seat,
    opt,
    req,
    show,
)
from stichzoo.envs.hoch_tief.rules import (
    GAME_OVER,
    HAND_SIZE,
    NUM_SUITS,
    PHASE_NAMES,
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

#: the seed of the deal of hidden cards in :func:`from_view` when no ``rng`` is given
DEAL_SEED = 0


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


def _completed_trick(plays: list[tuple[int, int]], names: list[str], number: list[int]) -> dict:
    cards = [c for _, c in plays]
    seats = [p for p, _ in plays]
    hi, lo = high_low([number[c] for c in cards])
    return {"leader": seats[0], "cards": [names[c] for c in cards], "seats": seats,
            "high": names[cards[hi]], "high_seat": seats[hi],
            "low": names[cards[lo]], "low_seat": seats[lo]}


def to_view(state: HochTiefState, seat: int) -> dict:
    """What ``seat`` knows of ``state``, JSON-ready, in card names (see the module doc)."""
    g, n = state.game, state.num_players
    core.check_seat(g, seat)
    deck, t = state.lookups.deck, state.lookups
    plays = _this_round_plays(state)
    led = state.led_suit()
    return {
        **core.head(g, num_players=True),
        "seat": seat,
        "to_act": None if state.over or state.current_player < 0 else state.current_player,
        "phase": PHASE_NAMES[state.phase],
        "round": state.round_index,
        "num_rounds": g.num_rounds,
        "dealer": state.dealer,
        "hand": deck.format_mask(state.hands[seat]),
        "legal": core.legal_labels(state, seat),
        "hand_sizes": [h.bit_count() for h in state.hands],
        "trick": core.trick_view(state.trick, deck.names),
        "led_suit": SUITS[led] if led >= 0 else None,
        "tricks": [_completed_trick(plays[k * n:(k + 1) * n], deck.names, t.number)
                   for k in range(state.tricks_played)],
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
    m = game.lookups.numbers
    return NUM_SUITS * max(2 * m - 1, m)


def _spec(game: HochTiefGame) -> Obj:
    n, names, top = game.num_players, game.deck.names, max_round_score(game)
    m = game.lookups.numbers
    hint = f"A1..A{m}, B1..B{m}, C.., D.., E1..E{m} (with {n} players)"
    seat, per_seat = Seat(n), core.per_seat

    def cards(most: int, ordered: bool = False) -> Any:
        return Cards(names, hint, most=most, ordered=ordered)

    card = Card(names, hint)
    trick = core.trick_fields(seat, cards(n, ordered=True), n)
    return Obj({
        **core.header(game, num_players=True, phases=PHASE_NAMES),
        "round": req(Int(0, game.num_rounds - 1), "Round index, 0-based."),
        "num_rounds": opt(Const(game.num_rounds), "Rounds in the game."),
        "dealer": opt(seat, "Dealer of this round."),
        "hand": req(cards(HAND_SIZE), "The seat's own cards."),
        "legal": opt(core.Legal(names), "The legal cards; [] = work out."),
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


SCHEMA = core.ViewSchema("hoch_tief", _spec)
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
    those of earlier rounds are placeholders.  The round's tricks are then
    replayed through the rules, which check every play (follow suit, the
    cards a seat showed out of); finally every key the view gives must equal
    the state's own view (card sets in any order).
    """
    p = SCHEMA.parse(game, view)
    n, t = game.num_players, game.lookups
    seat, rnd = p["seat"], p["round"]
    over = p["phase"] == PHASE_NAMES[GAME_OVER]
    if over and rnd != game.num_rounds - 1:
        raise _err("phase", f"game_over but round is {rnd}: the game ends after round "
                            f"{game.num_rounds - 1}")
    rs = p["round_scores"]
    if len(rs) != rnd + over:  # game over: the last row is checked after the replay
        raise _err("round_scores", f"must hold {rnd + over} per-seat score lists (one per "
                                   f"finished round), got {len(rs)}")
    tricks = p["tricks"]
    if not over and len(tricks) >= HAND_SIZE:
        raise _err("tricks", f"holds {len(tricks)} completed tricks in phase play: a round "
                             f"has {HAND_SIZE} tricks and ends with the last")
    if over and len(tricks) != HAND_SIZE:
        raise _err("tricks", f"phase game_over needs all {HAND_SIZE} tricks of the last round, "
                             f"got {len(tricks)}")
    cur = p["trick"]["cards"]
    if over and cur != tricks[-1]["cards"]:
        raise _err("trick.cards", f"at game over the trick is the last completed trick "
                                  f"({show(view['tricks'][-1]['cards'])})")
    if not over and len(cur) >= n:
        raise _err("trick.cards", f"holds {len(cur)} cards; a trick on the table holds at "
                                  f"most {n - 1} (a full trick is resolved at once)")

    # the public plays: who played which card (the rules fix every leader), voids shown
    seen = core.Seen(SCHEMA, t.deck.names)
    hand = mask_of(seen.take(p["hand"], "hand"))
    leader = (game.options.first_dealer + rnd + 1) % n
    plays: list[tuple[str, int]] = []
    played_by, voids = [0] * n, [0] * n
    for k, cards in enumerate([tv["cards"] for tv in tricks] + ([] if over else [cur])):
        where = f"tricks[{k}].cards" if k < len(tricks) else "trick.cards"
        if k < len(tricks) and len(cards) != n:
            raise _err(where, f"must hold {n} cards (a completed trick), got {len(cards)}")
        for i, c in enumerate(seen.take(cards, where)):
            q = (leader + i) % n
            played_by[q] |= 1 << c
            if t.suit[c] != t.suit[cards[0]]:
                voids[q] |= 1 << t.suit[cards[0]]
            plays.append((f"{where}[{i}]", c))
        if len(cards) == n:
            leader = (leader + high_low([t.number[c] for c in cards])[0]) % n
    own = played_by[seat].bit_count()
    if hand.bit_count() != (0 if over else HAND_SIZE - own):
        raise _err("hand", f"holds {hand.bit_count()} cards, but seat {seat} must hold "
                           f"{0 if over else HAND_SIZE - own} ({HAND_SIZE} dealt, {own} "
                           f"played this round)")

    # deal the unseen cards to the other seats, respecting their voids
    rng = rng or random.Random(DEAL_SEED)
    unseen = t.deck.full_mask & ~seen.mask
    others = [q for q in range(n) if q != seat]
    banned = [sum(t.suit_mask[s] for s in range(NUM_SUITS) if voids[q] >> s & 1) & unseen
              for q in others]
    no_deal = _err("tricks", "no deal of the unseen cards to the other seats fits the suits "
                             "they showed out of (voids)")
    if any(unseen & m and all(b & m for b in banned) for m in t.suit_mask):
        raise no_deal  # a suit nobody may hold
    try:
        hidden = constrained_deal(unseen, [HAND_SIZE - played_by[q].bit_count() for q in others],
                                  banned, t, rng)
    except ValueError:
        raise no_deal from None
    dealt = played_by[:]
    dealt[seat] |= hand
    for q, h in zip(others, hidden):
        dealt[q] |= h

    # deck orders: placeholders before, this round's deal, shuffles after; replay the round
    orders = [list(range(t.size)) for _ in range(game.num_rounds)]
    orders[rnd] = core.deal_order(dealt, (game.options.first_dealer + rnd + 1) % n, HAND_SIZE)
    for o in orders[rnd + 1:]:
        rng.shuffle(o)
    state = game.new_state(orders, log=False)
    state.round_scores = [list(r) for r in rs[:rnd]]
    state.totals = [sum(r[q] for r in state.round_scores) for q in range(n)]
    state.start_round(rnd)
    core.replay(SCHEMA, state, plays)
    SCHEMA.check_derived(game, view, to_view(state, seat))
    return state


# -- the answer format --------------------------------------------------------------------


def action_to_view(game: HochTiefGame, action_id: int) -> dict:
    """An action in game terms: ``{"action": "A7", "action_id": 6, "kind": "card", ...}``."""
    t = game.lookups
    label = game.action_label(core.check_action(game, action_id))
    return {"action": label, "action_id": action_id, "kind": "card", "card": label,
            "suit": SUITS[t.suit[action_id]], "number": t.number[action_id]}


def action_from_label(game: HochTiefGame, label: str) -> int:
    """The action id of a label (a card name such as ``"A7"``); ``ValueError`` if unknown."""
    m = game.lookups.numbers
    return core.label_action(game, label, lambda _: None,
                             f"with {game.num_players} players the actions are the cards "
                             f"A1..A{m}, B1.., C.., D.., E1..E{m}")


__all__ = ["SCHEMA", "VIEW_KEYS", "action_from_label", "action_to_view", "from_view",
           "json_schema", "to_view"]
