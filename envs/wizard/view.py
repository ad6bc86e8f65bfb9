"""The Wizard player view: what one seat knows, as JSON, and back.

A frontend does not know our observation vector; it knows the table.  The
player view is a plain JSON object in card notation (``"R7"``, ``"W1"``,
``"N3"``) holding exactly what one seat knows at one moment - its own hand
and the public table - and nothing hidden (other hands, the undealt cards,
later deals).  Seats in the view are absolute (``0..n-1``).

- :func:`to_view` writes the view of a rules state for one seat.
- :func:`from_view` checks a view and rebuilds a rules state that agrees
  with it: the seat's hand and every public fact exactly, the hidden cards
  dealt at random (respecting the voids shown).  Encoding that state for the
  seat gives exactly the observation and legal mask of the real game.
- :func:`action_to_view` / :func:`action_from_label`: the answer format.
- :func:`json_schema`: the JSON Schema of the view.

The shape checks, messages and the contract (derived keys optional) are
shared: :mod:`stichzoo.envs.core.view`.  The keys are documented in
``docs/views/wizard.md``.
"""

from __future__ import annotations

import random
from typing import Any

from stichzoo.envs.core import view as core
from stichzoo.envs.core.cards import bit_list, mask_of
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
from stichzoo.envs.core.tricks import Trick
from stichzoo.envs.wizard.rules import (
    BID,
    CARD_SUIT,
    CHOOSE_TRUMP,
    DECK,
    DECK_SIZE,
    GAME_OVER,
    JESTER0,
    LEAD_FREE,
    LEAD_NONE,
    NO_TRUMP,
    NUM_SUITS,
    PHASE_NAMES,
    PLAY,
    SUIT_MASK,
    SUITS,
    TRUMP_PENDING,
    WIZARD0,
    WizardGame,
    WizardOptions,
    WizardState,
    deal_hidden,
    is_jester,
    is_wizard,
    trick_winner,
)

#: every key of a view, in the order :func:`to_view` writes them
VIEW_KEYS = (
    "game", "env", "options", "num_players", "seat", "to_act", "phase", "hand", "legal",
    "round", "num_rounds", "hand_size", "dealer", "trump_card", "trump", "bids",
    "tricks_won", "trick", "played", "voids", "totals",
)
PENDING = "pending"
CARD_HINT = "B1..B13, R1..R13, G1..G13, Y1..Y13, Wizards W1..W4, Jesters N1..N4"


# -- writing a view ---------------------------------------------------------------


def _names(mask: int) -> list[str]:
    return [DECK.names[c] for c in bit_list(mask)]


def _suits(mask: int) -> list[str]:
    return [SUITS[s] for s in range(NUM_SUITS) if mask >> s & 1]


def to_view(state: WizardState, seat: int) -> dict[str, Any]:
    """What ``seat`` knows of ``state``, as a JSON-ready dict (see docs/views/wizard.md)."""
    g: WizardGame = state.game
    core.check_seat(g, seat)
    if state.trump == TRUMP_PENDING:
        trump = PENDING
    elif state.trump == NO_TRUMP:
        trump = None
    else:
        trump = SUITS[state.trump]
    return {
        **core.head(g, num_players=True),
        "seat": seat,
        "to_act": state.current_player if state.phase != GAME_OVER else None,
        "phase": PHASE_NAMES[state.phase],
        "hand": _names(state.hands[seat]),
        "legal": core.legal_labels(state, seat),
        "round": state.round_index,
        "num_rounds": len(g.round_sizes),
        "hand_size": state.hand_size,
        "dealer": state.dealer,
        "trump_card": DECK.names[state.trump_card] if state.trump_card >= 0 else None,
        "trump": trump,
        "bids": [b if b >= 0 else None for b in state.bids],
        "tricks_won": list(state.tricks_won),
        "trick": core.trick_view(state.trick, DECK.names),
        "played": _names(state.played),
        "voids": [_suits(v) for v in state.voids],
        "totals": list(state.totals),
    }


# -- the schema -----------------------------------------------------------------------


def total_bounds(sizes: tuple[int, ...] | list[int]) -> tuple[int, int]:
    """The reachable range of a score total after rounds of these hand sizes.

    A round of ``r`` cards scores ``20 + 10 * bid`` (at most ``20 + 10r``) for
    a right bid and ``-10`` per trick off (at least ``-10r``) for a wrong one.
    """
    return -10 * sum(sizes), sum(20 + 10 * r for r in sizes)


def _spec(game: WizardGame) -> Obj:
    n, sizes, top = game.num_players, game.round_sizes, game.max_hand
    seat, per_seat = Seat(n), core.per_seat
    lo, hi = total_bounds(sizes)
    return Obj({
        **core.header(game, num_players=True, phases=PHASE_NAMES),
        "hand": req(Cards(DECK.names, CARD_HINT, most=top), "The seat's own cards."),
        "legal": opt(core.Legal(list(core.labels(game))), "The legal actions; [] = work out."),
        "round": req(Int(0, len(sizes) - 1), "Round index, 0-based."),
        "num_rounds": opt(Const(len(sizes)), "Rounds in the game."),
        "hand_size": opt(Int(1, top), "Cards dealt to each seat this round."),
        "dealer": opt(seat, "Dealer of this round."),
        "trump_card": req(Nullable(Card(DECK.names, CARD_HINT)),
                          "The turned card; null when all 60 cards were dealt."),
        "trump": opt(Nullable(Enum([*SUITS, PENDING])),
                     "Trump suit; null = none; 'pending' while the dealer chooses. Required "
                     "when a Wizard was turned and the dealer has chosen."),
        "bids": req(per_seat(Nullable(Int(0, top)), n), "Each seat's bid; null until it bids."),
        "tricks_won": req(per_seat(Int(0, top), n), "Tricks taken this round."),
        "trick": req(Obj({
            "leader": req(seat, "Who led the trick."),
            "cards": req(Cards(DECK.names, CARD_HINT, most=n, ordered=True), "In play order."),
            "seats": opt(ListOf(seat, most=n), "Who played each card."),
        }), "The trick on the table (the last trick at game over)."),
        "played": req(Cards(DECK.names, CARD_HINT, most=DECK_SIZE),
                      "Every card played this round."),
        "voids": req(per_seat(ListOf(Enum(SUITS), most=NUM_SUITS, unique=True, ordered=False),
                              n), "Suits each seat showed out of this round."),
        "totals": req(per_seat(Int(lo, hi), n),
                      f"Score totals of the rounds before (bounded by the rounds played; "
                      f"at most {lo}..{hi})."),
    }, "A Wizard player view: what one seat knows.")


SCHEMA = core.ViewSchema("wizard", _spec)
_err = SCHEMA.error


def json_schema(game: WizardGame | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of a view of ``game`` (default options if None)."""
    return SCHEMA.json_schema(game or WizardGame(WizardOptions()), "Wizard player view")


# -- reading a view ----------------------------------------------------------------------


def from_view(game: WizardGame, view: dict, rng: random.Random | None = None) -> WizardState:
    """A rules state (no log) consistent with ``view``; raises ViewError naming a problem.

    The seat's hand and all public facts are taken exactly from the view.
    Filled in (from ``rng``, default seed 0): the other hands (dealt from
    the cards the seat has not seen, with the sizes the rules imply and no
    card of a suit the owner showed out of), the undealt rest, the deck
    orders of the other rounds, and a this-round history (trump choice and
    bids as they were; which completed trick card came from whom is made
    up) so that ``game.determinize`` and search bots work on the result.
    Earlier rounds' history and per-round scores are not in the view:
    ``history`` holds this round only and ``round_scores`` is empty;
    ``totals`` are the view's.
    """
    rng = rng or random.Random(0)
    p = SCHEMA.parse(game, view)
    n = game.num_players
    sizes = game.round_sizes
    seat = p["seat"]
    phase_name = p["phase"]
    phase = PHASE_NAMES.index(phase_name)
    rnd = p["round"]
    r = sizes[rnd]
    if phase == GAME_OVER and rnd != len(sizes) - 1:
        raise _err("phase", f"game_over but round {rnd} is not the last round "
                            f"({len(sizes) - 1})")
    dealer = (game.options.first_dealer + rnd) % n

    # -- cards
    hand, played = p["hand"], p["played"]
    hand_mask, played_mask = mask_of(hand), mask_of(played)
    if len(hand) > r:
        raise _err("hand", f"holds {len(hand)} cards, but round {rnd} deals {r}")
    both = hand_mask & played_mask
    if both:
        raise _err("hand", f"card(s) {', '.join(_names(both))} are both in hand and played")
    trump_card = p["trump_card"]
    trump_card = -1 if trump_card is None else trump_card
    tc = view["trump_card"]
    if trump_card >= 0 and (hand_mask | played_mask) >> trump_card & 1:
        raise _err("trump_card", f"the turned card {show(tc)} cannot also be in hand or played")
    if (trump_card < 0) != (n * r == DECK_SIZE):
        raise _err("trump_card", "must be null exactly in a round that deals all 60 cards"
                   if trump_card < 0 else f"a round of {r} cards with {n} players leaves no "
                   f"card to turn: must be null")

    # -- trump
    wizard_turned = trump_card >= 0 and is_wizard(trump_card)
    if wizard_turned:
        tv = p.get("trump", PENDING if phase == CHOOSE_TRUMP else "")
        if tv == "":
            raise _err("trump", "required: a Wizard was turned, give the suit the dealer chose")
        trump = TRUMP_PENDING if tv == PENDING else NO_TRUMP if tv is None else SUITS.index(tv)
        if phase == CHOOSE_TRUMP and trump != TRUMP_PENDING:
            raise _err("trump", f"must be \"pending\" while the dealer chooses, got {show(tv)}")
        if phase != CHOOSE_TRUMP and trump < 0:
            raise _err("trump", f"a Wizard was turned, so trump must be the suit the dealer "
                                f"chose, got {show(tv)}")
    else:
        if phase == CHOOSE_TRUMP:
            raise _err("phase", f"choose_trump needs a turned Wizard, but trump_card is "
                                f"{show(tc)}")
        trump = (NO_TRUMP if trump_card < 0 or is_jester(trump_card)
                 else CARD_SUIT[trump_card])  # a given "trump" is checked at the end

    # -- bids and tricks
    bids = [b if b is not None else -1 for b in p["bids"]]
    for q, b in enumerate(bids):
        if b > r:
            raise _err(f"bids[{q}]", f"must be null or an integer in 0..{r}, got {b}")
    won = p["tricks_won"]
    done = sum(won)
    if done > r:
        raise _err("tricks_won", f"add up to {done}, more than the {r} tricks of this round")
    order = [(dealer + 1 + k) % n for k in range(n)]  # bidding order
    nbids = sum(b >= 0 for b in bids)
    for k, q in enumerate(order):
        if (bids[q] >= 0) != (k < nbids):
            why = ("has bid but an earlier seat has not" if bids[q] >= 0
                   else "has not bid but a later seat has")
            raise _err("bids", f"must be made in turn from the dealer's left: seat {q} {why}")
    if phase in (CHOOSE_TRUMP, BID) and nbids == n:
        raise _err("phase", f"{phase_name} but every seat has bid already")
    if phase == CHOOSE_TRUMP and nbids:
        raise _err("phase", "choose_trump but bids were made already")
    if phase in (PLAY, GAME_OVER) and nbids < n:
        raise _err("phase", f"{phase_name} but not every seat has bid")
    if game.options.dealer_bid_restriction and nbids == n and sum(bids) == r:
        raise _err("bids", f"add up to {r}, which the dealer's bid restriction forbids")

    # -- the current trick
    leader = p["trick"]["leader"]
    tcards = p["trick"]["cards"]
    tmask = mask_of(tcards)
    if tmask & ~played_mask:
        raise _err("trick.cards", f"card(s) {', '.join(_names(tmask & ~played_mask))} must "
                                  f"also be in played")
    if phase == GAME_OVER:
        if done != r:
            raise _err("tricks_won", f"phase game_over but only {done} of {r} tricks were won")
        if len(tcards) != n:
            raise _err("trick.cards", f"at game_over the trick is the last trick, all {n} cards")
        if won[(leader + trick_winner(tcards, trump)) % n] < 1:
            raise _err("tricks_won", "the last trick's winner has no trick")
    else:
        if phase != PLAY and (tcards or done or played):
            raise _err("played", f"phase {phase_name} but cards were played already")
        if phase == PLAY and done == r:
            raise _err("tricks_won", "phase play but all tricks of the round are won")
        if len(tcards) >= n:
            raise _err("trick.cards", f"holds {len(tcards)} cards; a trick has {n}")
    before = done - (phase == GAME_OVER)  # tricks completed before the one in 'trick'
    first_leader = (dealer + 1) % n
    if before == 0 and leader != first_leader:
        raise _err("trick.leader", f"the first trick is led by the dealer's left neighbour, "
                                   f"seat {first_leader}, not {leader}")
    if before > 0:
        last_win = (phase == GAME_OVER
                    and (leader + trick_winner(tcards, trump)) % n == leader)
        if won[leader] - last_win < 1:
            raise _err("trick.leader", f"seat {leader} leads but has won no earlier trick "
                                       f"to lead from")
    if len(played) != n * before + len(tcards):
        raise _err("played", f"holds {len(played)} cards, but {before} completed tricks and "
                             f"{len(tcards)} in the current trick make "
                             f"{n * before + len(tcards)}")

    # -- voids, and the suit to follow in the current trick
    voids = [sum(1 << SUITS.index(s) for s in vs) for vs in p["voids"]]
    if phase in (CHOOSE_TRUMP, BID) and any(voids):
        raise _err("voids", f"phase {phase_name} but voids are shown: nobody has played yet")
    for s in range(NUM_SUITS):
        if voids[seat] >> s & 1 and hand_mask & SUIT_MASK[s]:
            raise _err(f"voids[{seat}]", f"seat {seat} showed out of suit {show(SUITS[s])} but "
                                         f"holds {', '.join(_names(hand_mask & SUIT_MASK[s]))}")
    follow = LEAD_NONE
    for i, c in enumerate(tcards):
        q = (leader + i) % n
        if follow >= 0:
            if CARD_SUIT[c] >= 0 and CARD_SUIT[c] != follow and not voids[q] >> follow & 1:
                raise _err(f"voids[{q}]", f"seat {q} played {show(DECK.names[c])} to a "
                                          f"{show(SUITS[follow])} trick but its voids lack "
                                          f"{show(SUITS[follow])}")
        elif follow == LEAD_NONE and c < JESTER0:
            follow = LEAD_FREE if c >= WIZARD0 else CARD_SUIT[c]

    # -- who plays how many cards; hand sizes
    played_by = [before + ((q - leader) % n < len(tcards)) for q in range(n)]
    hand_sizes = [r - played_by[q] for q in range(n)]
    for q in range(n):
        if voids[q].bit_count() > played_by[q]:
            raise _err(f"voids[{q}]", f"shows {voids[q].bit_count()} suits, but seat {q} has "
                                      f"played only {played_by[q]} card(s) this round")
    if phase != GAME_OVER and len(hand) != hand_sizes[seat]:
        raise _err("hand", f"holds {len(hand)} cards, but in phase {phase_name} of a {r}-card "
                           f"round with {played_by[seat]} played seat {seat} must hold "
                           f"{hand_sizes[seat]}")
    if phase == GAME_OVER and hand:
        raise _err("hand", "phase game_over but the hand is not empty")

    # -- totals: what the rounds played can reach
    lo, hi = total_bounds(sizes[:rnd + (phase == GAME_OVER)])
    for q, t in enumerate(p["totals"]):
        if not lo <= t <= hi:
            raise _err(f"totals[{q}]", f"must be in {lo}..{hi} (what the rounds played so far "
                                       f"can score), got {t}")

    state = _build(game, rng, seat, phase, rnd, r, dealer, hand_mask, played_mask, tcards,
                   leader, follow, trump_card, trump, bids, won, voids, hand_sizes, p["totals"])
    SCHEMA.check_derived(game, view, to_view(state, seat))
    return state


def _build(game, rng, seat, phase, rnd, r, dealer, hand_mask, played_mask, tcards, leader,
           follow, trump_card, trump, bids, won, voids, hand_sizes, totals) -> WizardState:
    n = game.num_players
    seen = hand_mask | played_mask
    if trump_card >= 0:
        seen |= 1 << trump_card
    unseen = [c for c in range(DECK_SIZE) if not seen >> c & 1]
    others = [p for p in range(n) if p != seat]
    bans = [0] * len(others)
    for i, p in enumerate(others):
        for s in range(NUM_SUITS):
            if voids[p] >> s & 1:
                bans[i] |= SUIT_MASK[s]
    hands = [0] * n
    hands[seat] = hand_mask
    if phase != GAME_OVER:
        try:
            dealt = deal_hidden(unseen[:], [hand_sizes[p] for p in others], bans, rng)
        except ValueError:
            raise _err("voids", "no deal of the unseen cards to the other seats fits the "
                                "voids shown") from None
        for p, h in zip(others, dealt):
            hands[p] = h
    # this round's history: trump choice, bids in order, then the card plays; the
    # completed tricks' cards go to seats in a made-up (void-blind) assignment
    history: list[tuple[int, int]] = []
    if trump_card >= 0 and is_wizard(trump_card) and trump >= 0:
        history.append((dealer, game.trump0 + trump))
    for k in range(n):
        p = (dealer + 1 + k) % n
        if bids[p] >= 0:
            history.append((p, game.bid0 + bids[p]))
    tmask = mask_of(tcards)
    old = [c for c in bit_list(played_mask) if not tmask >> c & 1]  # completed tricks
    got = hands[:]
    k = 0
    for _ in range(len(old) // n):
        for j in range(n):
            p = (dealer + 1 + j) % n
            history.append((p, old[k]))
            got[p] |= 1 << old[k]
            k += 1
    for i, c in enumerate(tcards):
        p = (leader + i) % n
        history.append((p, c))
        got[p] |= 1 << c
    # this round's deck order: each seat's cards in its dealing places, turned card, rest
    order = [0] * DECK_SIZE
    for p in range(n):
        cards = bit_list(got[p])
        rng.shuffle(cards)
        first = (p - dealer - 1) % n
        for j, c in enumerate(cards):
            order[first + j * n] = c
    pos = n * r
    if trump_card >= 0:
        order[pos] = trump_card
        pos += 1
    dealt_all = 0
    for h in got:
        dealt_all |= h
    rest = [c for c in unseen if not dealt_all >> c & 1]
    rng.shuffle(rest)
    order[pos:] = rest
    orders = game.deal(rng)
    orders[rnd] = order
    s = game.new_state(orders, log=False)
    s.round_index = rnd
    s.hand_size = r
    s.dealer = dealer
    s.hands = hands
    s.bids = bids[:]
    s.tricks_won = list(won)
    s.played = played_mask
    s.voids = voids
    s.trick = Trick(leader, n, list(tcards))
    s.follow = follow
    s.trump_card = trump_card
    s.trump = trump
    s.phase = phase
    s.totals = list(totals)
    s.round_scores = []
    s.history = history
    s.last_deltas = None
    s.truncated = False
    if phase == GAME_OVER:
        s.over = True
        s.current_player = -1
    else:
        s.over = False
        if phase == CHOOSE_TRUMP:
            s.current_player = dealer
        elif phase == BID:
            s.current_player = next((dealer + 1 + k) % n for k in range(n)
                                    if bids[(dealer + 1 + k) % n] < 0)
        else:
            s.current_player = (leader + len(tcards)) % n
    return s


# -- actions ------------------------------------------------------------------------

def action_to_view(game: WizardGame, action_id: int) -> dict[str, Any]:
    """The answer format: ``{"action", "action_id", "kind", ...}``.

    Kinds: ``"card"`` (plus ``"card"``: its name), ``"bid"`` (plus ``"bid"``:
    the number of tricks), ``"trump"`` (plus ``"suit"``: B, R, G or Y).
    """
    label = game.action_label(core.check_action(game, action_id))
    out: dict[str, Any] = {"action": label, "action_id": action_id}
    if action_id < DECK_SIZE:
        out.update(kind="card", card=label)
    elif action_id < game.trump0:
        out.update(kind="bid", bid=action_id - game.bid0)
    else:
        out.update(kind="trump", suit=SUITS[action_id - game.trump0])
    return out


def action_from_label(game: WizardGame, label: str) -> int:
    """The action id of a label (``"R7"``, ``"bid 2"``, ``"trump G"``); ValueError if unknown."""
    return core.label_action(game, label, lambda _: None,
                             f"a card such as 'R7', 'W1', 'N2'; 'bid 0'..'bid {game.max_hand}'; "
                             f"'trump B', 'trump R', 'trump G', 'trump Y'")


__all__ = ["SCHEMA", "VIEW_KEYS", "action_from_label", "action_to_view", "from_view",
           "json_schema", "to_view"]
