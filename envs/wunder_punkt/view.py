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
Every key, with an example, is in ``docs/views/wunder_punkt.md``.

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

from stichzoo.envs.core import view as core
from stichzoo.envs.core.cards import bit_list, mask_of
from stichzoo.envs.core.schema import (
    Bool,
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
_NOT_REAL = "the state's history does not match its played cards (a Game.position state?)"

# -- state -> view -------------------------------------------------------------------------


def _round_plays(state: WunderPunktState) -> list[tuple[int, int]]:
    """This round's card plays ``(seat, card)`` in order, read from the history."""
    n_plays = state.played.bit_count()
    n_picks = sum(1 for c in state.sore_cards if c >= 0)
    hist = state.history
    if len(hist) < n_plays + n_picks:
        raise ValueError("wunder_punkt view: the state's history does not hold this round's "
                         "tricks (a Game.position state?); to_view needs a state from real play")
    plays = hist[len(hist) - n_plays:] if n_plays else []
    if any(not 0 <= a < DECK_SIZE for _, a in plays) or mask_of(a for _, a in plays) != \
            state.played:
        raise ValueError(f"wunder_punkt view: {_NOT_REAL}")
    return list(plays)


def _tricks(plays: list[tuple[int, int]], n: int) -> list[dict]:
    out = []
    for i in range(0, len(plays) - len(plays) % n, n):
        chunk = plays[i:i + n]
        pos = trick_winner([c for _, c in chunk])
        out.append({"leader": chunk[0][0], "cards": DECK.format([c for _, c in chunk]),
                    "seats": [p for p, _ in chunk],
                    "winner": chunk[pos][0] if pos >= 0 else None})
    return out


def to_view(state: WunderPunktState, seat: int) -> dict[str, Any]:
    """What ``seat`` knows of ``state``, as a JSON-ready dict (see the module doc)."""
    g: WunderPunktGame = state.game
    n = state.num_players
    core.check_seat(g, seat)
    phase = state.phase
    plays = _round_plays(state)
    # at game over the last trick of the final round stays on the table (as the encoder shows)
    if phase != GAME_OVER and len(plays) % n != len(state.trick.cards):
        raise ValueError("wunder_punkt view: the state's history does not match its trick")
    sore = [c if c >= 0 and (state.sore_revealed() or p == seat) else -1
            for p, c in enumerate(state.sore_cards)]
    return {
        **core.head(g),
        "seat": seat,
        "to_act": state.current_player if phase != GAME_OVER else None,
        "phase": PHASE_NAMES[phase],
        "hand": DECK.format_mask(state.hands[seat]),
        "legal": core.legal_labels(state, seat),
        "round": state.round_index,
        "num_rounds": g.num_rounds,
        "dealer": state.dealer,
        "cards_in_play": DECK.format_mask(g.used),
        "picked": [c >= 0 for c in state.sore_cards],
        "sore_cards": [DECK.names[c] if c >= 0 else None for c in sore],
        "sore_suits": [SUITS[CARD_SUIT[c]] if c >= 0 else None for c in sore],
        "tricks": _tricks(plays, n),
        "trick": core.trick_view(state.trick, DECK.names),
        "won": [DECK.format_mask(w) for w in state.won],
        "removed": DECK.format_mask(state.removed),
        "round_scores": state.current_round_scores() if phase == PLAY else None,
        "totals": list(state.totals),
    }


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
    seat, per_seat = Seat(n), core.per_seat
    lo, hi = round_score_bounds(game)
    card = Card(DECK.names, CARD_HINT)

    def cards(most: int, ordered: bool = False) -> Any:
        return Cards(DECK.names, CARD_HINT, most=most, ordered=ordered)

    trick = core.trick_fields(seat, cards(n, ordered=True), n)
    return Obj({
        **core.header(game, phases=PHASE_NAMES),
        "hand": req(cards(hand_size), "The seat's own cards."),
        "legal": opt(core.Legal(list(core.labels(game))), "The legal actions; [] = work out."),
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


SCHEMA = core.ViewSchema(GAME, _spec)
_err = SCHEMA.error


def json_schema(game: WunderPunktGame | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of a view of ``game`` (default options if None)."""
    return SCHEMA.json_schema(game or WunderPunktGame(WunderPunktOptions()),
                              "Wunder Punkt player view")


# -- view -> state -------------------------------------------------------------------------


def from_view(game: WunderPunktGame, view: dict, rng: random.Random | None = None
              ) -> WunderPunktState:
    """A rules state (no log) consistent with ``view``; ViewError naming any problem.

    The hidden part (the other hands, the face-down picks before the reveal)
    is one consistent assignment: the unseen cards shuffled by ``rng`` (in
    card order when None).  The round is then replayed from the rebuilt
    deal through the rules (the picks from left of the dealer, the tricks).
    """
    p = SCHEMA.parse(game, view)
    n, hand_size = game.num_players, game.hand_size
    seat, rnd, phase_name = p["seat"], p["round"], p["phase"]
    phase = PHASE_NAMES.index(phase_name)
    dealer = (game.options.first_dealer + rnd) % n
    if phase == GAME_OVER and rnd != game.num_rounds - 1:
        raise _err("phase", f"game_over needs round {game.num_rounds - 1} (the last), got {rnd}")
    seen = core.Seen(SCHEMA, DECK.names, game.used)
    hand = mask_of(seen.take(p["hand"], "hand"))
    picked = p["picked"]
    sore = [-1 if c is None else seen.take([c], f"sore_cards[{q}]")[0]
            for q, c in enumerate(p["sore_cards"])]

    # -- who has picked: in turn from left of the dealer; face down until all have
    order = [(dealer + 1 + k) % n for k in range(n)]  # picking order, the dealer last
    if phase == SORE:
        n_picked = sum(picked)
        if any(picked[q] != (k < n_picked) for k, q in enumerate(order)):
            raise _err("picked", f"picks go in turn from left of the dealer ({order}), so "
                                 f"picked must be true exactly for the first {n_picked}")
        if n_picked == n:
            raise _err("picked", "phase sore but every seat has picked")
        if any(sore[q] >= 0 for q in range(n) if q != seat):
            q = next(q for q in range(n) if q != seat and sore[q] >= 0)
            raise _err(f"sore_cards[{q}]", "another seat's pick is face down before the "
                                           "reveal and cannot be in the view")
        if picked[seat] != (sore[seat] >= 0):
            raise _err(f"sore_cards[{seat}]", f"the own pick must be given exactly when "
                                              f"picked[{seat}] is true")
    for q in range(n) if phase != SORE else ():
        if not picked[q]:
            raise _err(f"picked[{q}]", f"must be true in phase {phase_name} (all have picked)")
        if sore[q] < 0:
            raise _err(f"sore_cards[{q}]", f"must be given in phase {phase_name} (revealed "
                                           f"after all have picked)")

    # -- tricks of the round: the rules fix each leader (an all-Ace trick: the same)
    tricks, cur = p["tricks"], p["trick"]["cards"]
    if phase == SORE and tricks:
        raise _err("tricks", "must be empty in phase sore")
    if phase == GAME_OVER and len(tricks) != hand_size - 1:
        raise _err("tricks", f"phase game_over needs all {hand_size - 1} tricks of the "
                             f"round, got {len(tricks)}")
    if phase == GAME_OVER and cur != tricks[-1]["cards"]:
        raise _err("trick.cards", "must be the last trick of the round when the game is over")
    if phase == PLAY and len(tricks) >= hand_size - 1:
        raise _err("tricks", f"a round has {hand_size - 1} tricks; with {len(tricks)} "
                             f"completed the phase cannot be play")
    if phase != GAME_OVER and (len(cur) >= n or (phase == SORE and cur)):
        raise _err("trick.cards", "must be empty in phase sore" if phase == SORE
                   else f"holds at most {n - 1} cards, got {len(cur)}")
    plays: list[tuple[int, int, str]] = []  # (seat, card, key)
    leader = order[0]
    for i, cards in enumerate([t["cards"] for t in tricks] + ([cur] if phase != GAME_OVER else [])):
        where = f"tricks[{i}].cards" if i < len(tricks) else "trick.cards"
        if i < len(tricks) and len(cards) != n:
            raise _err(where, f"a completed trick has {n} cards, got {len(cards)}")
        plays += [((leader + j) % n, c, f"{where}[{j}]")
                  for j, c in enumerate(seen.take(cards, where))]
        if len(cards) == n and trick_winner(cards) >= 0:
            leader = (leader + trick_winner(cards)) % n

    # -- hand sizes and totals
    played_by = [sum(q == x for x, _, _ in plays) for q in range(n)]
    size = hand_size - picked[seat] - played_by[seat]
    if hand.bit_count() != size:
        raise _err("hand", f"has {hand.bit_count()} cards; seat {seat} must hold {size} in "
                           f"phase {phase_name} ({hand_size} dealt, {int(picked[seat])} laid as "
                           f"sore card, {played_by[seat]} played)")
    lo, hi = round_score_bounds(game)
    done = rnd + (phase == GAME_OVER)
    for q, x in enumerate(p["totals"]):
        if not lo * done <= x <= hi * done:
            raise _err(f"totals[{q}]", f"must be in {lo * done}..{hi * done} (what {done} "
                                       f"completed round(s) can score), got {x}")

    # -- the hidden part: other hands and face-down picks; each seat's starting hand
    pool = core.shuffled(bit_list(game.used & ~seen.mask), rng)
    start = [mask_of(c for q2, c, _ in plays if q2 == q) for q in range(n)]
    start[seat] |= hand | (1 << sore[seat] if sore[seat] >= 0 else 0)
    picks = sore[:]
    for q in (q for q in range(n) if q != seat):
        k = hand_size - played_by[q] - picked[q]
        start[q] |= mask_of(pool[:k])
        del pool[:k]
        if picked[q]:
            if picks[q] < 0:
                picks[q] = pool.pop()
            start[q] |= 1 << picks[q]

    # -- replay this round from the rebuilt deal
    orders = [tuple(game.used_list)] * game.num_rounds
    orders[rnd] = tuple(core.deal_order(start, dealer + 1, hand_size))
    s = game.new_state(orders, log=False)
    s.totals = list(p["totals"])
    s.start_round(rnd)
    core.replay(SCHEMA, s, [(f"sore_cards[{q}]", game.sore0 + picks[q]) for q in order
                            if picked[q]] + [(w, c) for _, c, w in plays])
    if phase == GAME_OVER:  # the last trick scored the round; the view's totals include it
        s.totals = list(p["totals"])
        s.round_scores = []
        s.last_deltas = None
    SCHEMA.check_derived(game, view, to_view(s, seat))
    return s


# -- actions -----------------------------------------------------------------------------------

def action_to_view(game: WunderPunktGame, action_id: int) -> dict[str, Any]:
    """The answer format: ``{"action", "action_id", "kind", "card"}``.

    ``kind`` is ``"card"`` (play the card) or ``"sore"`` (lay it face down
    as the sore card).
    """
    core.check_action(game, action_id)
    return {"action": game.action_label(action_id), "action_id": action_id,
            "kind": "card" if action_id < DECK_SIZE else "sore",
            "card": DECK.names[action_id % DECK_SIZE]}


def _alias(label: str) -> int:
    text = label.strip()
    if text.lower().startswith("sore "):
        return DECK_SIZE + DECK.parse_one(text[5:])
    return DECK.parse_one(text)


def action_from_label(game: WunderPunktGame, label: str) -> int:
    """The action id of a label (``"7h"``, ``"sore Qs"``); card aliases (``"Th"``) parse too."""
    return core.label_action(game, label, _alias, "a card such as '7h' or 'sore 7h'")


__all__ = ["SCHEMA", "VIEW_KEYS", "action_from_label", "action_to_view", "from_view",
           "json_schema", "to_view"]
