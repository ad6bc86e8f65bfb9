"""Silberne Ananas - the player view: what one seat knows, as JSON, and back.

``to_view(state, seat)`` is the frontend contract: a JSON-ready dict in card
notation (``"10h"``, ``"Qs"``, ``"Joker"``) holding exactly what ``seat``
knows - its own hand, the trick on the table, every completed trick of this
deal (public: all cards are played face up and the gifts are announced),
the suits shown out of, who cannot hold the Joker, tricks taken, the deal
scores and match totals.  Seats are absolute (``0..2``).  The other two
hands and the future deals never appear (only the public hand sizes).

``from_view(game, view)`` rebuilds a rules state that agrees with the view
in everything it shows and fills the hidden part with one consistent deal:
the cards the seat has not seen go to the other two players, each with its
hand size, respecting the suits they showed out of and the Joker flags.
The current deal is replayed through the rules (checked steps), so a view
whose cards, turn or phase the rules would not produce is refused with a
``ValueError`` naming the problem; the replayed state's own view must then
equal the given one key by key.

Past deals are public but only their scores are in the view (the encoder
sees only the totals): the rebuilt state's history holds, for each past
deal, a placeholder legal deal (lowest legal card, Joker trick kept), with
the deck order it was played from, so ``history`` keeps 34 decisions per
deal and ``game.determinize`` works on rebuilt states; its ``deal_scores``
and ``totals`` are the view's.  Future deals are dealt in id order.

See ``docs/views/silberne_ananas.md`` for the keys and an example.
"""

from __future__ import annotations

import random
from typing import Any

from stichzoo.envs.core import view as core
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.schema import (
    Bool,
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
from stichzoo.envs.silberne_ananas.rules import (
    CARD_SUIT,
    DEAL_POINTS,
    DECK,
    DECK_SIZE,
    GAME_OVER,
    GIVE0,
    GIVE_NAMES,
    HAND_SIZE,
    JOKER,
    JOKER_BIT,
    MIDDLE_BONUS,
    NUM_PLAYERS,
    NUM_SUITS,
    PHASE_NAMES,
    SUIT_MASK,
    SUITS,
    SilberneAnanasGame,
    SilberneAnanasOptions,
    SilberneAnanasState,
    deal_scores,
    middle_seat,
    trick_winner,
)

GAME_NAME = "silberne_ananas"
#: decisions per deal: 33 cards and exactly one gift (the Joker is always dealt and played)
DEAL_DECISIONS = DECK_SIZE + 1

VIEW_KEYS = (
    "game", "env", "options", "seat", "to_act", "phase", "hand", "legal",
    "deal", "max_deals", "dealer", "hand_sizes", "trick", "lead_suit", "tricks",
    "played", "voids", "no_joker", "tricks_won", "totals", "deal_scores",
    "bonus_seat", "winners",
)
_FULL = (1 << DECK_SIZE) - 1


def _valid_rows() -> dict[tuple[int, ...], int]:
    """Every possible deal score row (bonus included) -> the seat that took the bonus."""
    rows: dict[tuple[int, ...], int] = {}
    for t0 in range(HAND_SIZE + 1):
        for t1 in range(HAND_SIZE + 1 - t0):
            base = deal_scores([t0, t1, HAND_SIZE - t0 - t1])
            bonus = middle_seat(base)
            row = base[:]
            row[bonus] += MIDDLE_BONUS
            assert tuple(row) not in rows  # base scores determine the tricks
            rows[tuple(row)] = bonus
    return rows


ROW_BONUS = _valid_rows()


# -- to_view ---------------------------------------------------------------------------


def _deal_tricks(state: SilberneAnanasState) -> list[dict]:
    """The completed tricks of the current deal, rebuilt from the decision history."""
    done: list[dict] = []
    cards: list[int] = []
    seats: list[int] = []
    for p, a in state.history[DEAL_DECISIONS * state.deal_index:]:
        if a < DECK_SIZE:
            cards.append(a)
            seats.append(p)
            if len(cards) == NUM_PLAYERS and JOKER not in cards:
                winner = seats[trick_winner(cards)]
                done.append({"leader": seats[0], "cards": DECK.format(cards),
                             "seats": seats, "winner": winner})
                cards, seats = [], []
        else:
            gift = a - GIVE0
            done.append({"leader": seats[0], "cards": DECK.format(cards), "seats": seats,
                         "winner": (p + gift) % NUM_PLAYERS, "joker_seat": p,
                         "gift": GIVE_NAMES[gift]})
            cards, seats = [], []
    return done


def to_view(state: SilberneAnanasState, seat: int) -> dict:
    """Everything ``seat`` knows at this moment, JSON-ready (see the module doc)."""
    g = state.game
    core.check_seat(g, seat)
    return {
        **core.head(g),
        "seat": seat,
        "to_act": state.current_player if state.current_player >= 0 else None,
        "phase": state.phase_name,
        "hand": DECK.format_mask(state.hands[seat]),
        "legal": core.legal_labels(state, seat),
        "deal": state.deal_index,
        "max_deals": g.max_deals,
        "dealer": state.dealer,
        "hand_sizes": [h.bit_count() for h in state.hands],
        "trick": core.trick_view(state.trick, DECK.names),
        "lead_suit": SUITS[state.lead_suit] if state.lead_suit >= 0 else None,
        "tricks": _deal_tricks(state),
        "played": DECK.format_mask(state.played),
        "voids": [[SUITS[s] for s in range(NUM_SUITS) if (state.voids[p] >> s) & 1]
                  for p in range(NUM_PLAYERS)],
        "no_joker": [bool(x) for x in state.no_joker],
        "tricks_won": list(state.tricks_won),
        "totals": list(state.totals),
        "deal_scores": [list(r) for r in state.deal_scores],
        "bonus_seat": state.bonus_seat if state.bonus_seat >= 0 else None,
        "winners": sorted(state.winners()) if state.over else [],
    }


# -- actions ---------------------------------------------------------------------------


def action_to_view(game: SilberneAnanasGame, action_id: int) -> dict:
    """The answer format: ``{"action", "action_id", "kind", "card" | "gift"}``."""
    label = game.action_label(core.check_action(game, action_id))
    if action_id < DECK_SIZE:
        return {"action": label, "action_id": action_id, "kind": "card", "card": label}
    return {"action": label, "action_id": action_id, "kind": "gift",
            "gift": GIVE_NAMES[action_id - GIVE0]}


def _alias(label: str) -> int | None:
    key = " ".join(label.lower().split())  # "Give  Left" reads as "give left"
    gifts = [f"give {g}" for g in GIVE_NAMES]
    return GIVE0 + gifts.index(key) if key in gifts else DECK.parse_one(label)


def action_from_label(game: SilberneAnanasGame, label: str) -> int:
    """Action id of a label: a card name (``"10h"``, ``"Td"``, ``"Joker"``) or ``"give left"``."""
    return core.label_action(game, label, _alias, "labels are card names ('7h', '10d', 'Qs', "
                                                  "'Joker') or 'give self', 'give left', "
                                                  "'give right'")


# -- the schema ------------------------------------------------------------------------

CARD_HINT = "7 8 9 10 J Q K A of h d s c, and \"Joker\""
#: the most one seat scores in a deal: own tricks + 2 x the right neighbour's, + the bonus
MAX_DEAL_SCORE = DEAL_POINTS * 2 + MIDDLE_BONUS


def _spec(game: SilberneAnanasGame) -> Obj:
    seat, n, per_seat = Seat(NUM_PLAYERS), NUM_PLAYERS, core.per_seat

    def cards(most: int, ordered: bool = False) -> Any:
        return Cards(DECK.names, CARD_HINT, most=most, ordered=ordered)

    trick = core.trick_fields(seat, cards(n, ordered=True), n)
    return Obj({
        **core.header(game, phases=PHASE_NAMES),
        "hand": req(cards(HAND_SIZE), "The seat's own cards."),
        "legal": opt(core.Legal(list(core.labels(game))), "The legal actions; [] = work out."),
        "deal": req(Int(0, game.max_deals - 1), "Deal index, 0-based."),
        "max_deals": opt(Const(game.max_deals), "The most deals a match can last."),
        "dealer": opt(seat, "Dealer of this deal."),
        "hand_sizes": opt(per_seat(Int(0, HAND_SIZE), n), "Cards in each hand."),
        "trick": req(Obj(trick), "The trick on the table (the last one at game over)."),
        "lead_suit": opt(Nullable(Enum(SUITS)), "The suit to follow."),
        "tricks": req(ListOf(Obj({
            **trick,
            "winner": opt(seat, "Who took it (with the Joker: the gift decides)."),
            "joker_seat": opt(seat, "A trick with the Joker: who played it."),
            "gift": opt(Enum(GIVE_NAMES), "A trick with the Joker: to whom it was given "
                                          "(give it, or the winner)."),
        }), most=HAND_SIZE), "The completed tricks of this deal, in order."),
        "played": opt(cards(DECK_SIZE), "Every card played this deal."),
        "voids": opt(per_seat(ListOf(Enum(SUITS), most=NUM_SUITS, unique=True,
                                     ordered=False), n), "Suits each seat showed out of."),
        "no_joker": opt(per_seat(Bool(), n), "Seats that cannot hold the Joker."),
        "tricks_won": opt(per_seat(Int(0, HAND_SIZE), n), "Tricks taken this deal."),
        "totals": opt(per_seat(Int(0, MAX_DEAL_SCORE * game.max_deals), n),
                      "Sums of deal_scores."),
        "deal_scores": req(ListOf(per_seat(Int(0, MAX_DEAL_SCORE), n), most=game.max_deals),
                           "Per-seat scores of each finished deal."),
        "bonus_seat": opt(Nullable(seat), "Who took the middle bonus in the last deal."),
        "winners": opt(ListOf(seat, most=n, unique=True), "At game over: the winners."),
    }, "A Silberne Ananas player view: what one seat knows.")


SCHEMA = core.ViewSchema(GAME_NAME, _spec)
_err = SCHEMA.error


def json_schema(game: SilberneAnanasGame | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of a view of ``game`` (default options if None)."""
    return SCHEMA.json_schema(game or SilberneAnanasGame(SilberneAnanasOptions()),
                              "Silberne Ananas player view")


_PAST_HISTORY: dict[int, list[tuple[int, int]]] = {}


def _placeholder_deal(dealer: int) -> list[tuple[int, int]]:
    """34 legal decisions of a deal dealt in id order by ``dealer`` (lowest legal action)."""
    h = _PAST_HISTORY.get(dealer)
    if h is None:
        g = SilberneAnanasGame(SilberneAnanasOptions(match=False, first_dealer=dealer))
        s = g.new_state([list(range(DECK_SIZE))])
        while not s.over:
            m = s.legal_mask()
            s.apply((m & -m).bit_length() - 1)
        h = _PAST_HISTORY[dealer] = s.history[:]
        assert len(h) == DEAL_DECISIONS
    return h


# -- from_view ----------------------------------------------------------------------------


def from_view(game: SilberneAnanasGame, view: dict, rng: random.Random | None = None
              ) -> SilberneAnanasState:
    """A rules state (``log=False``) consistent with ``view``; ViewError naming any problem.

    The unseen cards go to the other two seats as the voids and Joker flags
    allow; which of the free cards goes where is drawn by ``rng`` (in card
    order when None).
    """
    p = SCHEMA.parse(game, view)
    opts = game.options
    seat, deal = p["seat"], p["deal"]
    over = p["phase"] == PHASE_NAMES[GAME_OVER]
    dealer = (opts.first_dealer + deal) % NUM_PLAYERS

    # -- past deals: scores
    rows = p["deal_scores"]
    want_rows = deal + over
    if len(rows) != want_rows:
        when = f"the game over after deal {deal}" if over else f"deal {deal}"
        raise _err("deal_scores", f"must hold one row per finished deal: {want_rows} in {when}, "
                                  f"got {len(rows)}")
    running = [0] * NUM_PLAYERS
    for i, row in enumerate(rows):
        if tuple(row) not in ROW_BONUS:
            raise _err(f"deal_scores[{i}]", f"{show(row)} is no possible deal score (own "
                                            f"tricks + 2 x the right neighbour's, +10 for the "
                                            f"middle score; 43 in all)")
        running = [running[q] + row[q] for q in range(NUM_PLAYERS)]
        if i < deal and opts.match and max(running) >= opts.target_score:
            raise _err(f"deal_scores[{i}]", f"after deal {i} the totals {running} reach "
                                            f"target_score {opts.target_score}: the match "
                                            f"would have ended there")
    if over and opts.match and max(running) < opts.target_score:
        raise _err("phase", f"is game_over but no total reaches target_score "
                            f"{opts.target_score} (totals {running})")

    # -- cards: hand, completed tricks, the trick on the table
    hand = p["hand"]
    raw = p["tricks"]
    cur_cards = p["trick"]["cards"]
    seen = core.Seen(SCHEMA, DECK.names)
    for what, cards in [("hand", hand), *((f"tricks[{i}].cards", t["cards"])
                                          for i, t in enumerate(raw))]:
        seen.take(cards, what)
    if not over:
        seen.take(cur_cards, "trick.cards")
    if over and len(raw) != HAND_SIZE:
        raise _err("tricks", f"phase game_over but {len(raw)} completed tricks, not 11")
    if not over and len(raw) == HAND_SIZE:
        raise _err("tricks", f"11 completed tricks end the deal, but the phase is "
                             f"{show(p['phase'])}")

    # -- who played what: the rules fix every leader (winner of the previous trick)
    played_by: list[list[int]] = [[] for _ in range(NUM_PLAYERS)]
    voids = [0] * NUM_PLAYERS
    no_joker = [False] * NUM_PLAYERS
    leader = (dealer + 1) % NUM_PLAYERS
    seq: list[tuple[str, list[int], int | None]] = []  # (where, cards, gift of a Joker trick)
    for i, t in enumerate([*raw, *([] if over else [{"cards": cur_cards}])]):
        what, cards, gift = f"tricks[{i}]" if i < len(raw) else "trick", t["cards"], None
        if i < len(raw) and len(cards) != NUM_PLAYERS:
            raise _err(f"{what}.cards", f"a completed trick has 3 cards, got {len(cards)}")
        seats = [(leader + k) % NUM_PLAYERS for k in range(len(cards))]
        lead = CARD_SUIT[cards[0]] if cards else -1
        for k, c in enumerate(cards):
            played_by[seats[k]].append(c)
            if k and lead >= 0 and CARD_SUIT[c] != lead:
                voids[seats[k]] |= 1 << lead
                if c != JOKER:
                    no_joker[seats[k]] = True
        if i < len(raw) and JOKER in cards:
            joker_seat = seats[cards.index(JOKER)]
            if "gift" in t:
                gift = GIVE_NAMES.index(t["gift"])
            elif "winner" in t:
                gift = (t["winner"] - joker_seat) % NUM_PLAYERS
            else:
                raise _err(what, "a trick with the Joker needs its gift (or its winner)")
            no_joker = [True] * NUM_PLAYERS
            leader = (joker_seat + gift) % NUM_PLAYERS
        elif i < len(raw):
            if "gift" in t or "joker_seat" in t:
                raise _err(what, "joker_seat and gift belong only to a trick with the Joker")
            leader = seats[trick_winner(cards)]
        seq.append((what, cards, gift))
    if over and cur_cards != raw[-1]["cards"]:
        raise _err("trick.cards", "when the game is over the trick shows the last trick of "
                                  f"the deal ({show(DECK.format(raw[-1]['cards']))})")

    need = [HAND_SIZE - len(played_by[q]) for q in range(NUM_PLAYERS)]
    if len(hand) != need[seat]:
        raise _err("hand", f"has {len(hand)} cards, but seat {seat} holds {need[seat]} "
                           f"(11 minus the {len(played_by[seat])} it played this deal)")

    # -- the hidden part: deal the unseen cards to the other two
    own = sum(1 << c for c in hand)
    played_mask = sum(1 << c for cards in played_by for c in cards)
    pool = _FULL & ~own & ~played_mask
    a, b = (q for q in range(NUM_PLAYERS) if q != seat)
    banned = []
    for q in (a, b):
        m = JOKER_BIT if no_joker[q] else 0
        for s in range(NUM_SUITS):
            if (voids[q] >> s) & 1:
                m |= SUIT_MASK[s]
        banned.append(m)
    only_a, only_b = pool & banned[1], pool & banned[0]
    if only_a & only_b:
        bad = DECK.format_mask(only_a & only_b)
        raise _err("tricks", f"nobody can hold the unseen card(s) {', '.join(bad)}: seats {a} "
                             f"and {b} both showed out of that suit (or cannot hold the Joker)")
    free = bit_list(pool & ~only_a & ~only_b)
    if rng is not None:
        rng.shuffle(free)
    k = need[a] - only_a.bit_count()
    if k < 0 or k > len(free):
        raise _err("tricks", f"no deal of the unseen cards gives seats {a} and {b} {need[a]} "
                             f"and {need[b]} cards while respecting the suits they showed out of")
    hands = [0] * NUM_PLAYERS
    hands[seat] = own
    hands[a] = only_a | sum(1 << c for c in free[:k])
    hands[b] = pool ^ hands[a]

    # -- the deal's deck order, and the state
    start = [bit_list(hands[q] | sum(1 << c for c in played_by[q])) for q in range(NUM_PLAYERS)]
    order = tuple(start[(dealer + 1 + i) % NUM_PLAYERS][i // NUM_PLAYERS]
                  for i in range(DECK_SIZE))
    orders = [tuple(range(DECK_SIZE))] * game.max_deals
    orders[deal] = order
    state = game.new_state(orders, log=False)
    prior = [list(r) for r in rows[:deal]]
    state.totals = [sum(r[q] for r in prior) for q in range(NUM_PLAYERS)]
    state.deal_scores = prior
    state.bonus_seat = ROW_BONUS[tuple(prior[-1])] if prior else -1
    history: list[tuple[int, int]] = []
    for d in range(deal):
        history += _placeholder_deal((opts.first_dealer + d) % NUM_PLAYERS)
    state.history = history
    state.start_deal(deal)

    # -- replay this deal through the rules (checked steps)
    core.replay(SCHEMA, state, [step for what, cards, gift in seq for step in [
        *((f"{what}.cards[{i}]", c) for i, c in enumerate(cards)),
        *([(f"{what}.gift", GIVE0 + gift)] if gift is not None else [])]])
    SCHEMA.check_derived(game, view, to_view(state, seat))
    return state


__all__ = ["SCHEMA", "VIEW_KEYS", "action_from_label", "action_to_view", "from_view",
           "json_schema", "to_view"]
