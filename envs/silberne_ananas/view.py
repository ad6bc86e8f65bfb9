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

import json
from typing import Any

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import IllegalActionError
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
    NUM_ACTIONS,
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
TRICK_KEYS = ("leader", "cards", "seats")
DONE_TRICK_KEYS = ("leader", "cards", "seats", "winner")
JOKER_TRICK_KEYS = ("joker_seat", "gift")

_FULL = (1 << DECK_SIZE) - 1
_LABELS: dict[str, int] = {name: c for c, name in enumerate(DECK.names)}
_LABELS.update({f"give {g}": GIVE0 + i for i, g in enumerate(GIVE_NAMES)})


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


def _fail(msg: str):
    raise ValueError(f"{GAME_NAME} view: {msg}")


def _js(x: Any) -> str:
    """Strict comparison form: JSON tells 1 from true from 1.0."""
    try:
        return json.dumps(x, sort_keys=True)
    except (TypeError, ValueError):
        return repr(x)


# -- to_view ---------------------------------------------------------------------------


def _check_seat(seat: Any, what: str = "seat") -> int:
    if isinstance(seat, bool) or not isinstance(seat, int):
        _fail(f"{what} must be an integer seat 0..2, got {seat!r}")
    if not 0 <= seat < NUM_PLAYERS:
        _fail(f"{what}={seat} is not a seat of this 3-player game (0..2)")
    return seat


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
    seat = _check_seat(seat)
    g = state.game
    to_act = state.current_player if state.current_player >= 0 else None
    legal = ([g.action_label(a) for a in bit_list(state.legal_mask())]
             if to_act == seat else [])
    t = state.trick
    return {
        "game": g.name,
        "env": g.env_id,
        "options": g.options.as_dict(),
        "seat": seat,
        "to_act": to_act,
        "phase": state.phase_name,
        "hand": DECK.format_mask(state.hands[seat]),
        "legal": legal,
        "deal": state.deal_index,
        "max_deals": g.max_deals,
        "dealer": state.dealer,
        "hand_sizes": [h.bit_count() for h in state.hands],
        "trick": {"leader": t.leader, "cards": DECK.format(t.cards),
                  "seats": [t.seat_of(i) for i in range(len(t.cards))]},
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
    if isinstance(action_id, bool) or not isinstance(action_id, int) \
            or not 0 <= action_id < NUM_ACTIONS:
        raise ValueError(f"{GAME_NAME}: action id {action_id!r} is not in 0..{NUM_ACTIONS - 1}")
    label = game.action_label(action_id)
    if action_id < DECK_SIZE:
        return {"action": label, "action_id": action_id, "kind": "card", "card": label}
    return {"action": label, "action_id": action_id, "kind": "gift",
            "gift": GIVE_NAMES[action_id - GIVE0]}


def action_from_label(game: SilberneAnanasGame, label: str) -> int:
    """Action id of a label: a card name (``"10h"``, ``"Td"``, ``"Joker"``) or ``"give left"``."""
    if not isinstance(label, str):
        raise ValueError(f"{GAME_NAME}: an action label must be a string, got {label!r}")
    a = _LABELS.get(label)
    if a is not None:
        return a
    key = " ".join(label.lower().split())
    for name, a in _LABELS.items():
        if a >= GIVE0 and name == key:
            return a
    try:
        return DECK.parse_one(label)
    except ValueError:
        pass
    raise ValueError(f"{GAME_NAME}: unknown action label {label!r}; labels are card names "
                     f"('7h', '10d', 'Qs', 'Joker') or 'give self', 'give left', 'give right'")


# -- from_view: parsing helpers -----------------------------------------------------------


def _int(x: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        _fail(f"{what} must be an integer, got {x!r}")
    if not lo <= x <= hi:
        _fail(f"{what}={x} is out of range {lo}..{hi}")
    return x


def _list(x: Any, what: str, size: int | None = None, most: int | None = None) -> list:
    if not isinstance(x, list):
        _fail(f"{what} must be a list, got {type(x).__name__} {x!r}")
    if size is not None and len(x) != size:
        _fail(f"{what} must have {size} entries, got {len(x)}")
    if most is not None and len(x) > most:
        _fail(f"{what} has {len(x)} entries, at most {most} allowed")
    return x


def _card(x: Any, what: str) -> int:
    if not isinstance(x, str):
        _fail(f"{what}: a card must be a name like '10h' or 'Joker', got {x!r}")
    try:
        return DECK.parse_one(x)
    except ValueError:
        _fail(f"{what}: unknown card {x!r} (cards: 7 8 9 10 J Q K A of h d s c, and 'Joker')")
    raise AssertionError  # pragma: no cover


def _cards(x: Any, what: str, most: int) -> list[int]:
    out: list[int] = []
    for i, name in enumerate(_list(x, what, most=most)):
        c = _card(name, f"{what}[{i}]")
        if c in out:
            _fail(f"{what}: card {DECK.names[c]} appears twice")
        out.append(c)
    return out


def _keys(d: Any, what: str, required: tuple, optional: tuple = ()) -> dict:
    if not isinstance(d, dict):
        _fail(f"{what} must be an object (dict), got {type(d).__name__} {d!r}")
    missing = [k for k in required if k not in d]
    if missing:
        _fail(f"{what}: missing key(s) {', '.join(map(repr, missing))}")
    unknown = sorted(repr(k) for k in d if k not in required and k not in optional)
    if unknown:
        _fail(f"{what}: unknown key(s) {', '.join(unknown)}; "
              f"known keys: {', '.join(required + optional)}")
    return d


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


def from_view(game: SilberneAnanasGame, view: dict) -> SilberneAnanasState:
    """A rules state (``log=False``) consistent with ``view``; ValueError naming any problem."""
    try:
        return _from_view(game, view)
    except ValueError:
        raise
    except (KeyError, TypeError, IndexError, AttributeError) as e:  # pragma: no cover - guard
        raise ValueError(f"{GAME_NAME} view: malformed view ({type(e).__name__}: {e})") from e


def _from_view(game: SilberneAnanasGame, view: dict) -> SilberneAnanasState:
    if getattr(game, "name", None) != GAME_NAME:
        raise ValueError(f"{GAME_NAME} view: from_view needs a {GAME_NAME} game, got {game!r}")
    _keys(view, "the view", VIEW_KEYS)
    opts = game.options
    if view["game"] != GAME_NAME:
        _fail(f"the view is for game {view['game']!r}, not {GAME_NAME!r}")
    if view["env"] != game.env_id:
        _fail(f"the view is for env {view['env']!r}, this game is {game.env_id!r}")
    vopts = view["options"]
    if not isinstance(vopts, dict):
        _fail(f"options must be an object (dict), got {vopts!r}")
    n = vopts.get("num_players", NUM_PLAYERS)
    if _js(n) != _js(NUM_PLAYERS):
        _fail(f"the view is for {n!r} players; {GAME_NAME} is played by exactly 3")
    want = opts.as_dict()
    if _js(vopts) != _js(want):
        diff = sorted({str(k) for k in set(vopts) | set(want)
                       if k not in vopts or k not in want or _js(vopts[k]) != _js(want[k])})
        _fail(f"options {vopts!r} do not match the game's options {want!r} "
              f"(differ in: {', '.join(diff)})")
    seat = _check_seat(view["seat"])
    phase_name = view["phase"]
    if phase_name not in PHASE_NAMES:
        _fail(f"unknown phase {phase_name!r}; phases: {', '.join(PHASE_NAMES)}")
    over = phase_name == PHASE_NAMES[GAME_OVER]
    to_act = view["to_act"]
    if to_act is None:
        if not over:
            _fail(f"to_act is null but the phase is {phase_name!r}: somebody must be to act")
    else:
        _check_seat(to_act, "to_act")
        if over:
            _fail(f"to_act is {to_act} but the game is over: to_act must be null")
    deal = _int(view["deal"], "deal", 0, game.max_deals - 1)
    dealer = (opts.first_dealer + deal) % NUM_PLAYERS
    if _js(view["dealer"]) != _js(dealer):
        _fail(f"dealer is {view['dealer']!r}, but deal {deal} is dealt by seat {dealer} "
              f"(first_dealer {opts.first_dealer}, the deal moves left)")

    # -- past deals: scores and totals
    rows = _list(view["deal_scores"], "deal_scores")
    want_rows = deal + over
    if len(rows) != want_rows:
        when = f"the game over after deal {deal}" if over else f"deal {deal}"
        _fail(f"deal_scores must hold one row per finished deal: {want_rows} in {when}, "
              f"got {len(rows)}")
    running = [0] * NUM_PLAYERS
    for i, row in enumerate(rows):
        for p in range(NUM_PLAYERS):
            _int(_list(row, f"deal_scores[{i}]", size=NUM_PLAYERS)[p],
                 f"deal_scores[{i}][{p}]", 0, DEAL_POINTS * 2 + MIDDLE_BONUS)
        if tuple(row) not in ROW_BONUS:
            _fail(f"deal_scores[{i}]={row} is no possible deal score (own tricks + 2 x the "
                  f"right neighbour's, +10 for the middle score; 43 in all)")
        running = [running[p] + row[p] for p in range(NUM_PLAYERS)]
        if i < deal and opts.match and max(running) >= opts.target_score:
            _fail(f"after deal {i} the totals {running} reach target_score "
                  f"{opts.target_score}: the match would have ended there")
    if over and opts.match and max(running) < opts.target_score:
        _fail(f"phase is game_over but no total reaches target_score {opts.target_score} "
              f"(totals {running})")
    if view["bonus_seat"] is not None:
        _check_seat(view["bonus_seat"], "bonus_seat")

    # -- cards: hand, completed tricks, the trick on the table
    hand = _cards(view["hand"], "hand", HAND_SIZE)
    raw_tricks = _list(view["tricks"], "tricks", most=HAND_SIZE)
    tricks: list[tuple[list[int], int]] = []
    for i, t in enumerate(raw_tricks):
        what = f"tricks[{i}]"
        _keys(t, what, DONE_TRICK_KEYS, JOKER_TRICK_KEYS)
        cards = _cards(t["cards"], f"{what}.cards", NUM_PLAYERS)
        if len(cards) != NUM_PLAYERS:
            _fail(f"{what}.cards: a completed trick has 3 cards, got {len(cards)}")
        has_joker = JOKER in cards
        if has_joker and any(k not in t for k in JOKER_TRICK_KEYS):
            _fail(f"{what}: a trick with the Joker needs 'joker_seat' and 'gift'")
        if not has_joker and any(k in t for k in JOKER_TRICK_KEYS):
            _fail(f"{what}: 'joker_seat' and 'gift' belong only to a trick with the Joker")
        tricks.append((cards, _check_seat(t["winner"], f"{what}.winner")))
    cur = _keys(view["trick"], "trick", TRICK_KEYS)
    cur_cards = _cards(cur["cards"], "trick.cards", NUM_PLAYERS)

    where: dict[int, str] = {}
    groups = [("hand", hand)] + [(f"tricks[{i}]", c) for i, (c, _) in enumerate(tricks)]
    if not over:
        groups.append(("trick", cur_cards))
    for what, cards in groups:
        for c in cards:
            if c in where:
                _fail(f"card {DECK.names[c]} appears twice ({where[c]} and {what})")
            where[c] = what
    if over and len(tricks) != HAND_SIZE:
        _fail(f"phase is game_over but tricks holds {len(tricks)} completed tricks, not 11")
    if not over and len(tricks) == HAND_SIZE:
        _fail(f"11 completed tricks end the deal, but the phase is {phase_name!r}")

    # -- who played what: the rules fix every leader (winner of the previous trick)
    played_by: list[list[int]] = [[] for _ in range(NUM_PLAYERS)]
    voids = [0] * NUM_PLAYERS
    no_joker = [False] * NUM_PLAYERS
    leader = (dealer + 1) % NUM_PLAYERS
    seq = [(f"tricks[{i}]", raw_tricks[i], c, w) for i, (c, w) in enumerate(tricks)]
    if not over:
        seq.append(("trick", cur, cur_cards, None))
    for k, (what, raw, cards, winner) in enumerate(seq):
        seats = [(leader + i) % NUM_PLAYERS for i in range(len(cards))]
        if _js(raw["leader"]) != _js(leader):
            why = "left of the dealer" if k == 0 else "the winner of the previous trick"
            _fail(f"{what}.leader is {raw['leader']!r}, but by the rules seat {leader} leads "
                  f"it ({why})")
        if _js(raw["seats"]) != _js(seats):
            _fail(f"{what}.seats is {raw['seats']!r}, but play goes left from the leader: "
                  f"{seats}")
        lead = CARD_SUIT[cards[0]] if cards else -1
        for i, c in enumerate(cards):
            p = seats[i]
            played_by[p].append(c)
            if i and lead >= 0 and CARD_SUIT[c] != lead:
                voids[p] |= 1 << lead
                if c != JOKER:
                    no_joker[p] = True
        if winner is not None:
            if JOKER in cards:
                no_joker = [True] * NUM_PLAYERS
            else:
                rule = seats[trick_winner(cards)]
                if winner != rule:
                    _fail(f"{what}.winner is {winner}, but the odd-one-out rule gives the "
                          f"trick to seat {rule}")
            leader = winner
    if over:
        # the trick left on the table at the end is the last one
        last = raw_tricks[-1]
        if _js(cur.get("leader")) != _js(last["leader"]) \
                or [DECK.names[c] for c in cur_cards] != [DECK.names[c] for c in tricks[-1][0]]:
            _fail("trick: when the game is over it shows the last trick of the deal "
                  f"(leader {last['leader']!r}, cards {last['cards']!r}), got {cur!r}")

    need = [HAND_SIZE - len(played_by[p]) for p in range(NUM_PLAYERS)]
    if len(hand) != need[seat]:
        _fail(f"hand has {len(hand)} cards, but seat {seat} holds {need[seat]} "
              f"(11 minus the {len(played_by[seat])} it played this deal)")

    # -- the hidden part: deal the unseen cards to the other two
    own = 0
    for c in hand:
        own |= 1 << c
    played_mask = 0
    for cards in played_by:
        for c in cards:
            played_mask |= 1 << c
    pool = _FULL & ~own & ~played_mask
    a, b = (p for p in range(NUM_PLAYERS) if p != seat)
    banned = []
    for p in (a, b):
        m = JOKER_BIT if no_joker[p] else 0
        for s in range(NUM_SUITS):
            if (voids[p] >> s) & 1:
                m |= SUIT_MASK[s]
        banned.append(m)
    only_a, only_b = pool & banned[1], pool & banned[0]
    if only_a & only_b:
        bad = DECK.format_mask(only_a & only_b)
        _fail(f"nobody can hold the unseen card(s) {', '.join(bad)}: seats {a} and {b} "
              f"both showed out of that suit (or cannot hold the Joker)")
    free = bit_list(pool & ~only_a & ~only_b)
    k = need[a] - only_a.bit_count()
    if k < 0 or k > len(free):
        _fail(f"no deal of the unseen cards gives seats {a} and {b} {need[a]} and {need[b]} "
              f"cards while respecting the suits they showed out of")
    hands = [0] * NUM_PLAYERS
    hands[seat] = own
    hands[a] = only_a
    for c in free[:k]:
        hands[a] |= 1 << c
    hands[b] = pool ^ hands[a]

    # -- the deal's deck order, and the state
    start = [bit_list(hands[p] | sum(1 << c for c in played_by[p])) for p in range(NUM_PLAYERS)]
    order = tuple(start[(dealer + 1 + i) % NUM_PLAYERS][i // NUM_PLAYERS]
                  for i in range(DECK_SIZE))
    orders = [tuple(range(DECK_SIZE))] * game.max_deals
    orders[deal] = order
    state = game.new_state(orders, log=False)
    prior = [list(r) for r in rows[:deal]]
    state.totals = [sum(r[p] for r in prior) for p in range(NUM_PLAYERS)]
    state.deal_scores = prior
    state.bonus_seat = ROW_BONUS[tuple(prior[-1])] if prior else -1
    history: list[tuple[int, int]] = []
    for d in range(deal):
        history += _placeholder_deal((opts.first_dealer + d) % NUM_PLAYERS)
    state.history = history
    state.start_deal(deal)

    # -- replay this deal through the rules (checked steps)
    for what, _raw, cards, winner in seq:
        for i, c in enumerate(cards):
            _step(state, c, f"{what}.cards[{i}]")
        if winner is not None and JOKER in cards:
            joker_seat = state.current_player
            _step(state, GIVE0 + (winner - joker_seat) % NUM_PLAYERS, f"{what}.winner")

    # -- the replayed state's view must be the given one
    _compare(to_view(state, seat), _canonical(view, game))
    return state


def _step(state: SilberneAnanasState, action: int, what: str) -> None:
    try:
        state.step(action)
    except IllegalActionError as e:
        _fail(f"{what}: the rules refuse {state.game.action_label(action)!r} here ({e})")


def _canonical(view: dict, game: SilberneAnanasGame) -> dict:
    """The view with card names canonical and set-like lists in id order."""
    v = dict(view)
    v["hand"] = DECK.format(sorted(_cards(view["hand"], "hand", HAND_SIZE)))
    v["played"] = DECK.format(sorted(_cards(view["played"], "played", DECK_SIZE)))
    legal = []
    for i, lab in enumerate(_list(view["legal"], "legal", most=NUM_ACTIONS)):
        try:
            a = action_from_label(game, lab)
        except ValueError as e:
            _fail(f"legal[{i}]: {e}")
        if a in legal:
            _fail(f"legal: action {lab!r} appears twice")
        legal.append(a)
    v["legal"] = [game.action_label(a) for a in sorted(legal)]
    voids = []
    for p, vs in enumerate(_list(view["voids"], "voids", size=NUM_PLAYERS)):
        got = _list(vs, f"voids[{p}]", most=NUM_SUITS)
        for s in got:
            if not isinstance(s, str) or s not in SUITS or len(s) != 1:
                _fail(f"voids[{p}]: unknown suit {s!r} (suits: h, d, s, c)")
        if len(set(got)) != len(got):
            _fail(f"voids[{p}]: a suit appears twice in {got}")
        voids.append([s for s in SUITS if s in got])
    v["voids"] = voids
    tricks = []
    for t in view["tricks"]:
        t = dict(t)
        t["cards"] = DECK.format(DECK.parse(t["cards"]))
        tricks.append(t)
    v["tricks"] = tricks
    cur = dict(view["trick"])
    cur["cards"] = DECK.format(DECK.parse(cur["cards"]))
    v["trick"] = cur
    return v


#: keys compared after the replay, in this order (the first difference is reported)
_COMPARE_ORDER = (
    "phase", "to_act", "trick", "lead_suit", "tricks", "hand", "hand_sizes", "played",
    "voids", "no_joker", "tricks_won", "deal_scores", "totals", "bonus_seat", "winners",
    "max_deals", "legal", *VIEW_KEYS,
)


def _compare(mine: dict, view: dict) -> None:
    for key in _COMPARE_ORDER:
        got, want = view[key], mine[key]
        if _js(got) == _js(want):
            continue
        if key == "to_act":
            _fail(f"to_act is {got!r}, but by the rules it is player_{want}'s turn "
                  f"(phase {mine['phase']})")
        if key == "legal" and mine["to_act"] != mine["seat"]:
            _fail(f"legal must be [] when the seat ({mine['seat']}) is not to act, got {got!r}")
        _fail(f"{key} is {_js(got)} in the view, but the rules give {_js(want)}")
