"""The Wunder Punkt player view: what one seat knows, as JSON, and back.

A frontend does not know the observation vector; it knows the table.
:func:`to_view` writes exactly what ``seat`` knows at this moment as a
JSON-ready dict in card notation (``"7h"``, ``"10s"``, ``"Ad"``);
:func:`from_view` rebuilds a rules state that agrees with such a view in
everything the seat knows, filling the hidden part (the other hands and,
before the reveal, the other face-down picks) with one consistent
assignment.  Encoding the rebuilt state for the seat gives exactly the
env's observation and action mask.

What a seat knows in Wunder Punkt: its own hand; before the reveal its own
pick and *that* others have picked (a face-down card on the table), after
the reveal every sore card; every trick of the round (they are played face
up), hence the cards each seat has won and the cards of all-Ace tricks that
left the game; the scores.  Seats in the view are absolute seat numbers.
The key table and an example are in ``docs/views/wunder_punkt.md``.

The rebuilt state is a state of a real deal: its history holds this
round's decisions (picks from left of the dealer, then the tricks) and its
deck order for this round deals exactly the rebuilt starting hands, so
``game.determinize`` and the search bots work on it.  Past rounds are not
in the view beyond the totals: the rebuilt state's history starts with
this round and its other deck orders are placeholders.
"""

from __future__ import annotations

import random
from typing import Any

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.view import (
    Bool,
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
from stichzoo.envs.wunder_punkt.rules import (
    CARD_NUMBER,
    CARD_SUIT,
    DECK,
    DECK_SIZE,
    GAME_OVER,
    NUM_SUITS,
    PHASE_NAMES,
    PLAY,
    SORE,
    SUIT_MASK,
    SUITS,
    WunderPunktGame,
    WunderPunktOptions,
    WunderPunktState,
    trick_winner,
)

GAME = "wunder_punkt"

#: every key of a view, in the order :func:`to_view` writes them
VIEW_KEYS = (
    "game", "env", "options", "seat", "to_act", "phase", "hand", "legal",
    "round", "num_rounds", "dealer", "cards_in_play",
    "picked", "sore_cards", "sore_suits",
    "tricks", "trick", "won", "removed", "round_scores", "totals",
)
TRICK_KEYS = ("leader", "cards", "seats", "winner")
CURRENT_TRICK_KEYS = ("leader", "cards", "seats")

# -- state -> view -------------------------------------------------------------------------


def _names(mask: int) -> list[str]:
    return DECK.format_mask(mask)


def _round_plays(state: WunderPunktState) -> list[tuple[int, int]]:
    """This round's card plays ``(seat, card)`` in order, read from the history."""
    n_plays = state.played.bit_count()
    n_picks = sum(1 for c in state.sore_cards if c >= 0)
    hist = state.history
    if len(hist) < n_plays + n_picks:
        raise ValueError("wunder_punkt view: the state's history does not hold this round's "
                         "tricks (a Game.position state?); to_view needs a state from real play")
    plays = hist[len(hist) - n_plays:] if n_plays else []
    mask = 0
    for _, a in plays:
        if not 0 <= a < DECK_SIZE:
            raise ValueError("wunder_punkt view: the state's history does not match its "
                             "played cards (a Game.position state?)")
        mask |= 1 << a
    if mask != state.played:
        raise ValueError("wunder_punkt view: the state's history does not match its "
                         "played cards (a Game.position state?)")
    return list(plays)


def _tricks(plays: list[tuple[int, int]], n: int) -> list[dict]:
    out = []
    for i in range(0, len(plays) - len(plays) % n, n):
        chunk = plays[i:i + n]
        cards = [c for _, c in chunk]
        pos = trick_winner(cards)
        out.append({
            "leader": chunk[0][0],
            "cards": DECK.format(cards),
            "seats": [p for p, _ in chunk],
            "winner": chunk[pos][0] if pos >= 0 else None,
        })
    return out


def to_view(state: WunderPunktState, seat: int) -> dict[str, Any]:
    """What ``seat`` knows of ``state``, as a JSON-ready dict (see the module doc)."""
    g: WunderPunktGame = state.game
    n = state.num_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"wunder_punkt view: seat must be an integer in 0..{n - 1}, "
                         f"got {show(seat)}")
    phase = state.phase
    revealed = state.sore_revealed()
    plays = _round_plays(state)
    tricks = _tricks(plays, n)
    trick = state.trick
    if phase == GAME_OVER:
        pass  # the last trick of the final round stays on the table (as the encoder shows it)
    elif len(plays) % n != len(trick.cards):
        raise ValueError("wunder_punkt view: the state's history does not match its trick")
    to_act = state.current_player if phase != GAME_OVER else None
    sore_cards: list[str | None] = []
    sore_suits: list[str | None] = []
    for p in range(n):
        c = state.sore_cards[p]
        if c >= 0 and (revealed or p == seat):
            sore_cards.append(DECK.names[c])
            sore_suits.append(SUITS[CARD_SUIT[c]])
        else:
            sore_cards.append(None)
            sore_suits.append(None)
    if seat == to_act:
        legal = [g.action_label(a) for a in bit_list(state.legal_mask())]
    else:
        legal = []
    return {
        "game": g.name,
        "env": g.env_id,
        "options": g.options.as_dict(),
        "seat": seat,
        "to_act": to_act,
        "phase": PHASE_NAMES[phase],
        "hand": _names(state.hands[seat]),
        "legal": legal,
        "round": state.round_index,
        "num_rounds": g.num_rounds,
        "dealer": state.dealer,
        "cards_in_play": _names(g.used),
        "picked": [c >= 0 for c in state.sore_cards],
        "sore_cards": sore_cards,
        "sore_suits": sore_suits,
        "tricks": tricks,
        "trick": {"leader": trick.leader, "cards": DECK.format(trick.cards),
                  "seats": [trick.seat_of(i) for i in range(len(trick.cards))]},
        "won": [_names(w) for w in state.won],
        "removed": _names(state.removed),
        "round_scores": state.current_round_scores() if phase == PLAY else None,
        "totals": list(state.totals),
    }


_LABELS: dict[str, int] = {}
for _a in range(DECK_SIZE):
    _LABELS[DECK.names[_a]] = _a
    _LABELS[f"sore {DECK.names[_a]}"] = DECK_SIZE + _a


# -- the schema ----------------------------------------------------------------------------

CARD_HINT = "A 2 .. 10 J Q K of c d h s, such as \"Ah\", \"7h\", \"10s\", \"Qd\""


def round_score_bounds(game: WunderPunktGame) -> tuple[int, int]:
    """One seat's reachable round score: each card +1, a sore-suit card minus its number."""
    worst = max(sum(CARD_NUMBER[c] for c in bit_list(game.used & SUIT_MASK[s]))
                for s in range(NUM_SUITS))
    return -worst, game.used.bit_count()


def _spec(game: WunderPunktGame) -> Obj:
    n, hand_size = game.num_players, game.hand_size
    used = game.used.bit_count()
    seat = Seat(n)
    lo, hi = round_score_bounds(game)
    card = Card(DECK.names, CARD_HINT)

    def cards(most: int, ordered: bool = False) -> Any:
        return Cards(DECK.names, CARD_HINT, most=most, ordered=ordered)

    trick = {"leader": opt(seat, "Who led it (the rules fix it)."),
             "cards": req(cards(n, ordered=True), "In play order."),
             "seats": opt(ListOf(seat, most=n), "Who played each card.")}
    return Obj({
        **header(game),
        "seat": req(seat, "The seat whose view this is."),
        "to_act": opt(Nullable(seat), "The seat to act; null at game over."),
        "phase": req(Enum(PHASE_NAMES), "sore, play or game_over."),
        "hand": req(cards(hand_size), "The seat's own cards."),
        "legal": opt(Legal(list(_LABELS)), "The legal action labels; [] = work out."),
        "round": req(Int(0, game.num_rounds - 1), "Round index, 0-based."),
        "num_rounds": opt(Const(game.num_rounds), "Rounds in the game."),
        "dealer": opt(seat, "Dealer of this round."),
        "cards_in_play": opt(cards(DECK_SIZE), "The cards used with these options."),
        "picked": req(per_seat(Bool(), n), "Whether each seat has laid its sore card."),
        "sore_cards": req(per_seat(Nullable(card), n),
                          "Each seat's sore card once revealed (own pick: always); else null."),
        "sore_suits": opt(per_seat(Nullable(Enum(SUITS)), n), "The suits of sore_cards."),
        "tricks": req(ListOf(Obj({**trick, "winner": opt(Nullable(seat),
                                                             "null: an all-Ace trick.")}),
                             most=hand_size), "The completed tricks of this round."),
        "trick": req(Obj(trick), "The trick on the table (the last one at game over)."),
        "won": opt(per_seat(cards(used), n), "The cards each seat took this round."),
        "removed": opt(cards(used), "Cards of all-Ace tricks, out of the game."),
        "round_scores": opt(Nullable(per_seat(Int(lo, hi), n)),
                            "Phase play: each seat's round score so far; else null."),
        "totals": req(per_seat(Int(lo * game.num_rounds, hi * game.num_rounds), n),
                      f"Scores of the completed rounds (each round scores {lo}..{hi})."),
    }, "A Wunder Punkt player view: what one seat knows.")


SCHEMA = ViewSchema(GAME, _spec)
_err = SCHEMA.error


def json_schema(game: WunderPunktGame | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of a view of ``game`` (default options if None)."""
    return SCHEMA.json_schema(game or WunderPunktGame(WunderPunktOptions()),
                              "Wunder Punkt player view")


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# -- view -> state -------------------------------------------------------------------------


def from_view(game: WunderPunktGame, view: dict, rng: random.Random | None = None
              ) -> WunderPunktState:
    """A rules state (no log) consistent with ``view``; ViewError naming any problem.

    The hidden part (the other hands, the face-down picks before the reveal)
    is one consistent assignment: the unseen cards shuffled by ``rng`` (in
    card order when None).
    """
    p = SCHEMA.parse(game, view)
    n, hand_size = game.num_players, game.hand_size
    seat, rnd = p["seat"], p["round"]
    phase = PHASE_NAMES.index(p["phase"])
    dealer = (game.options.first_dealer + rnd) % n
    if phase == GAME_OVER and rnd != game.num_rounds - 1:
        raise _err("phase", f"game_over needs round {game.num_rounds - 1} (the last), got {rnd}")

    # -- cards: each at most once, each in play ------------------------------------------
    seen: dict[int, str] = {}

    def take(c: int, what: str) -> int:
        if not (game.used >> c) & 1:
            raise _err(what, f"card {show(DECK.names[c])} is not in play with these options")
        if c in seen:
            raise _err(what, f"card {show(DECK.names[c])} appears twice (also in {seen[c]})")
        seen[c] = what
        return c

    hand_list = [take(c, "hand") for c in p["hand"]]
    hand = _mask(hand_list)
    picked = p["picked"]
    sore = [-1 if c is None else take(c, f"sore_cards[{q}]") for q, c in enumerate(p["sore_cards"])]

    # -- who has picked ------------------------------------------------------------------
    order = [(dealer + 1 + k) % n for k in range(n)]  # picking order, the dealer last
    if phase == SORE:
        n_picked = sum(picked)
        for k, q in enumerate(order):
            if picked[q] != (k < n_picked):
                raise _err("picked", f"picks go in turn from left of the dealer ({order}), so "
                                     f"picked must be true exactly for the first {n_picked}")
        if n_picked == n:
            raise _err("picked", "phase sore but every seat has picked")
        for q in range(n):
            if q != seat and sore[q] >= 0:
                raise _err(f"sore_cards[{q}]", "another seat's pick is face down before the "
                                               "reveal and cannot be in the view")
        if picked[seat] != (sore[seat] >= 0):
            raise _err(f"sore_cards[{seat}]", f"the own pick must be given exactly when "
                                              f"picked[{seat}] is true")
    else:
        for q in range(n):
            if not picked[q]:
                raise _err(f"picked[{q}]", f"must be true in phase {p['phase']} (all have "
                                           f"picked)")
            if sore[q] < 0:
                raise _err(f"sore_cards[{q}]", f"must be given in phase {p['phase']} "
                                               f"(revealed after all have picked)")

    # -- tricks of the round ---------------------------------------------------------------
    tricks = p["tricks"]
    if phase == SORE and tricks:
        raise _err("tricks", "must be empty in phase sore")
    plays: list[tuple[int, int]] = []
    leader = order[0]
    for i, t in enumerate(tricks):
        if len(t["cards"]) != n:
            raise _err(f"tricks[{i}].cards", f"a completed trick has {n} cards, got "
                                             f"{len(t['cards'])}")
        tc = [take(c, f"tricks[{i}].cards") for c in t["cards"]]
        plays += [((leader + j) % n, c) for j, c in enumerate(tc)]
        pos = trick_winner(tc)
        leader = (leader + pos) % n if pos >= 0 else leader  # an all-Ace trick: same leader
    cur = p["trick"]["cards"]
    if phase == GAME_OVER:  # the last trick of the final round stays on the table
        if len(tricks) != hand_size - 1:
            raise _err("tricks", f"phase game_over needs all {hand_size - 1} tricks of the "
                                 f"round, got {len(tricks)}")
        if cur != tricks[-1]["cards"]:
            raise _err("trick.cards", "must be the last trick of the round when the game is over")
    else:
        if phase == PLAY and len(tricks) >= hand_size - 1:
            raise _err("tricks", f"a round has {hand_size - 1} tricks; with {len(tricks)} "
                                 f"completed the phase cannot be play")
        if len(cur) >= n:
            raise _err("trick.cards", f"holds at most {n - 1} cards, got {len(cur)}")
        if phase == SORE and cur:
            raise _err("trick.cards", "must be empty in phase sore")
        plays += [((leader + j) % n, take(c, "trick.cards")) for j, c in enumerate(cur)]

    # -- hand sizes ------------------------------------------------------------------------
    played_by = [0] * n
    for q, _ in plays:
        played_by[q] += 1
    size = [hand_size - picked[q] - played_by[q] for q in range(n)]
    if len(hand_list) != size[seat]:
        raise _err("hand", f"has {len(hand_list)} cards; seat {seat} must hold {size[seat]} in "
                           f"phase {p['phase']} ({hand_size} dealt, {int(picked[seat])} laid as "
                           f"sore card, {played_by[seat]} played)")
    lo, hi = round_score_bounds(game)
    done = rnd + (phase == GAME_OVER)
    for q, x in enumerate(p["totals"]):
        if not lo * done <= x <= hi * done:
            raise _err(f"totals[{q}]", f"must be in {lo * done}..{hi * done} (what {done} "
                                       f"completed round(s) can score), got {x}")

    # -- the hidden part: other hands and face-down picks --------------------------------------
    unseen = game.used & ~hand & ~_mask(c for c in sore if c >= 0) & ~_mask(c for _, c in plays)
    pool = bit_list(unseen)
    if rng is not None:
        rng.shuffle(pool)
    start = [0] * n  # each seat's starting hand
    start[seat] = hand | (1 << sore[seat] if sore[seat] >= 0 else 0)
    picks = sore[:]
    for q in range(n):
        if q == seat:
            continue
        k = hand_size - played_by[q] - picked[q]
        start[q] = _mask(pool[:k])
        del pool[:k]
        if picked[q]:
            if picks[q] < 0:
                picks[q] = pool.pop()
            start[q] |= 1 << picks[q]
    if pool:
        raise _err("", f"{len(pool)} cards in play are unaccounted for")  # pragma: no cover
    for q, c in plays:
        start[q] |= 1 << c
    lists = [bit_list(h) for h in start]
    deal = tuple(lists[(dealer + 1 + k) % n][k // n] for k in range(n * hand_size))

    # -- replay this round from the rebuilt deal -------------------------------------------
    orders = [tuple(game.used_list)] * game.num_rounds
    orders[rnd] = deal
    s = game.new_state(orders, log=False)
    s.totals = list(p["totals"])
    s.start_round(rnd)
    for q in order:
        if picked[q]:
            s.step(game.sore0 + picks[q])
    for _, c in plays:
        s.step(c)
    if phase == GAME_OVER:  # the last trick scored the round; the view's totals include it
        s.totals = list(p["totals"])
        s.round_scores = []
        s.last_deltas = None
    if s.phase != phase:
        raise _err("phase", "the view does not describe a reachable position")  # pragma: no cover
    SCHEMA.check_derived(game, view, to_view(s, seat), {
        "to_act": lambda got, want: f"is {show(got)}, but by the rules "
                                    f"{'nobody' if want is None else f'seat {want}'} is to act",
    })
    return s


# -- actions -----------------------------------------------------------------------------------

def action_to_view(game: WunderPunktGame, action_id: int) -> dict[str, Any]:
    """The answer format: ``{"action", "action_id", "kind", "card"}``.

    ``kind`` is ``"card"`` (play the card) or ``"sore"`` (lay it face down
    as the sore card).
    """
    if (isinstance(action_id, bool) or not isinstance(action_id, int)
            or not 0 <= action_id < game.num_actions):
        raise ValueError(f"wunder_punkt: action id must be an integer in "
                         f"0..{game.num_actions - 1}, got {show(action_id)}")
    card = action_id % DECK_SIZE
    return {
        "action": game.action_label(action_id),
        "action_id": action_id,
        "kind": "card" if action_id < DECK_SIZE else "sore",
        "card": DECK.names[card],
    }


def action_from_label(game: WunderPunktGame, label: str) -> int:
    """The action id of a label (``"7h"``, ``"sore Qs"``); card aliases (``"Th"``) parse too."""
    if not isinstance(label, str):
        raise ValueError(f"wunder_punkt: an action label must be a string, got {show(label)}")
    a = _LABELS.get(label)
    if a is not None:
        return a
    text = label.strip()
    base = 0
    if text.lower().startswith("sore "):
        base, text = DECK_SIZE, text[5:]
    try:
        return base + DECK.parse_one(text)
    except ValueError:
        raise ValueError(f"wunder_punkt: unknown action {show(label)} (a card such as '7h' or "
                         f"'sore 7h')") from None


__all__ = ["SCHEMA", "VIEW_KEYS", "action_from_label", "action_to_view", "from_view",
           "json_schema", "to_view"]
