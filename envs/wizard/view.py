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

The keys are documented in ``docs/views/wizard.md``.
"""

from __future__ import annotations

import random
from typing import Any

from stichzoo.envs.core.cards import bit_list
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
TRICK_KEYS = ("leader", "cards", "seats")
PENDING = "pending"

_CARD_IDS = {name: i for i, name in enumerate(DECK.names)}


# -- writing a view ---------------------------------------------------------------


def _names(mask: int) -> list[str]:
    return [DECK.names[c] for c in bit_list(mask)]


def _suits(mask: int) -> list[str]:
    return [SUITS[s] for s in range(NUM_SUITS) if mask >> s & 1]


def to_view(state: WizardState, seat: int) -> dict[str, Any]:
    """What ``seat`` knows of ``state``, as a JSON-ready dict (see docs/views/wizard.md)."""
    g: WizardGame = state.game
    n = g.num_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"wizard: seat {seat!r} must be an integer in 0..{n - 1}")
    to_act = state.current_player if state.phase != GAME_OVER else None
    legal = ([g.action_label(a) for a in bit_list(state.legal_mask())]
             if to_act == seat else [])
    if state.trump == TRUMP_PENDING:
        trump = PENDING
    elif state.trump == NO_TRUMP:
        trump = None
    else:
        trump = SUITS[state.trump]
    t = state.trick
    return {
        "game": g.name,
        "env": g.env_id,
        "options": g.options.as_dict(),
        "num_players": n,
        "seat": seat,
        "to_act": to_act,
        "phase": PHASE_NAMES[state.phase],
        "hand": _names(state.hands[seat]),
        "legal": legal,
        "round": state.round_index,
        "num_rounds": len(g.round_sizes),
        "hand_size": state.hand_size,
        "dealer": state.dealer,
        "trump_card": DECK.names[state.trump_card] if state.trump_card >= 0 else None,
        "trump": trump,
        "bids": [b if b >= 0 else None for b in state.bids],
        "tricks_won": list(state.tricks_won),
        "trick": {
            "leader": t.leader,
            "cards": [DECK.names[c] for c in t.cards],
            "seats": [t.seat_of(i) for i in range(len(t.cards))],
        },
        "played": _names(state.played),
        "voids": [_suits(v) for v in state.voids],
        "totals": list(state.totals),
    }


# -- reading a view: checks ----------------------------------------------------------


def _fail(msg: str):
    raise ValueError(f"wizard view: {msg}")


def _int(view: dict, key: str, lo: int, hi: int, *, what: str | None = None) -> int:
    v = view[key]
    what = what or repr(key)
    if isinstance(v, bool) or not isinstance(v, int):
        _fail(f"{what} must be an integer, got {v!r}")
    if not lo <= v <= hi:
        _fail(f"{what} = {v} is out of range {lo}..{hi}")
    return v


def _list(v: Any, what: str, length: int | None = None) -> list:
    if not isinstance(v, list):
        _fail(f"{what} must be a list, got {type(v).__name__}")
    if length is not None and len(v) != length:
        _fail(f"{what} must have {length} entries, got {len(v)}")
    return v


def _card(name: Any, what: str) -> int:
    if not isinstance(name, str):
        _fail(f"{what}: card names are strings, got {name!r}")
    c = _CARD_IDS.get(name)
    if c is None:
        _fail(f"{what}: unknown card {name!r} (cards: B1..B13, R1..R13, G1..G13, Y1..Y13, "
              f"Wizards W1..W4, Jesters N1..N4)")
    return c


def _cards(v: Any, what: str) -> list[int]:
    out = []
    seen = 0
    for name in _list(v, what):
        c = _card(name, what)
        if seen >> c & 1:
            _fail(f"{what}: card {name!r} appears twice")
        seen |= 1 << c
        out.append(c)
    return out


def _mask(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells ``1`` from ``True`` and ``4`` from ``4.0``."""
    if isinstance(b, dict):
        return (isinstance(a, dict) and a.keys() == b.keys()
                and all(_same(a[k], b[k]) for k in b))
    if isinstance(b, list):
        return (isinstance(a, list) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    return type(a) is type(b) and a == b


def _check_header(game: WizardGame, view: Any) -> None:
    if not isinstance(view, dict):
        _fail(f"a view is a JSON object, got {type(view).__name__}")
    missing = [k for k in VIEW_KEYS if k not in view]
    if missing:
        _fail(f"missing key(s) {', '.join(map(repr, missing))}")
    unknown = sorted(str(k) for k in view if k not in VIEW_KEYS)
    if unknown:
        _fail(f"unknown key(s) {', '.join(map(repr, unknown))}; known keys: "
              f"{', '.join(VIEW_KEYS)}")
    if not _same(view["game"], game.name):
        _fail(f"this is a view for game {view['game']!r}, not {game.name!r}")
    if not _same(view["env"], game.env_id):
        _fail(f"env {view['env']!r} does not match {game.env_id!r}")
    if not _same(view["num_players"], game.num_players):
        _fail(f"num_players {view['num_players']!r} does not match this game's "
              f"{game.num_players} players")
    opts = view["options"]
    if not isinstance(opts, dict):
        _fail(f"'options' must be an object, got {type(opts).__name__}")
    want = game.options.as_dict()
    if not _same(opts, want):
        keys = sorted(set(opts) | set(want), key=str)
        diff = [f"{k}={opts.get(k, '<missing>')!r} (game: {want.get(k, '<unknown>')!r})"
                for k in keys if k not in opts or k not in want or not _same(opts[k], want[k])]
        _fail(f"options do not match the game's: {', '.join(diff)}")


def from_view(game: WizardGame, view: dict, rng: random.Random | None = None) -> WizardState:
    """A rules state (no log) consistent with ``view``; raises ValueError naming a problem.

    The seat's hand and all public facts are taken exactly from the view.
    Filled in: the other hands (dealt from the cards the seat has not seen,
    with the sizes the rules imply and no card of a suit the owner showed
    out of), the undealt rest, the deck orders of the other rounds, and a
    this-round history (trump choice and bids as they were; which completed
    trick card came from whom is made up) so that ``game.determinize`` and
    search bots work on the result.  Earlier rounds' history and per-round
    scores are not in the view: ``history`` holds this round only and
    ``round_scores`` is empty; ``totals`` are the view's.
    """
    rng = rng or random.Random(0)
    _check_header(game, view)
    n = game.num_players
    sizes = game.round_sizes
    seat = _int(view, "seat", 0, n - 1)
    phase_name = view["phase"]
    if phase_name not in PHASE_NAMES:
        _fail(f"unknown phase {phase_name!r}; phases: {', '.join(PHASE_NAMES)}")
    phase = PHASE_NAMES.index(phase_name)
    if not _same(view["num_rounds"], len(sizes)):
        _fail(f"num_rounds {view['num_rounds']!r} does not match the game's {len(sizes)} rounds")
    rnd = _int(view, "round", 0, len(sizes) - 1)
    r = sizes[rnd]
    if not _same(view["hand_size"], r):
        _fail(f"hand_size {view['hand_size']!r} does not match round {rnd}, which deals {r}")
    if phase == GAME_OVER and rnd != len(sizes) - 1:
        _fail(f"phase game_over but round {rnd} is not the last round ({len(sizes) - 1})")
    dealer = _int(view, "dealer", 0, n - 1)
    want_dealer = (game.options.first_dealer + rnd) % n
    if dealer != want_dealer:
        _fail(f"dealer {dealer} is wrong: round {rnd} is dealt by seat {want_dealer}")

    # -- cards
    hand = _cards(view["hand"], "hand")
    played = _cards(view["played"], "played")
    hand_mask, played_mask = _mask(hand), _mask(played)
    both = hand_mask & played_mask
    if both:
        _fail(f"card(s) {', '.join(_names(both))} are both in hand and played")
    tc = view["trump_card"]
    trump_card = -1 if tc is None else _card(tc, "trump_card")
    if trump_card >= 0 and (hand_mask | played_mask) >> trump_card & 1:
        _fail(f"the turned card {tc!r} cannot also be in hand or played")
    if (trump_card < 0) != (n * r == DECK_SIZE):
        _fail("trump_card must be null exactly in a round that deals all 60 cards"
              if trump_card < 0 else
              f"a round of {r} cards with {n} players leaves no card to turn: trump_card "
              f"must be null")

    # -- trump
    tv = view["trump"]
    if tv is None:
        trump = NO_TRUMP
    elif tv == PENDING:
        trump = TRUMP_PENDING
    elif isinstance(tv, str) and len(tv) == 1 and tv in SUITS:
        trump = SUITS.index(tv)
    else:
        _fail(f"trump {tv!r} must be one of 'B', 'R', 'G', 'Y', null (no trump) or 'pending'")
    if trump_card >= 0 and is_wizard(trump_card):
        if phase == CHOOSE_TRUMP and trump != TRUMP_PENDING:
            _fail(f"trump must be 'pending' while the dealer chooses, got {tv!r}")
        if phase != CHOOSE_TRUMP and trump < 0:
            _fail(f"a Wizard was turned, so trump must be the suit the dealer chose, got {tv!r}")
    else:
        if phase == CHOOSE_TRUMP:
            _fail("phase choose_trump needs a turned Wizard, but trump_card is "
                  f"{tc!r}")
        want = (NO_TRUMP if trump_card < 0 or is_jester(trump_card)
                else CARD_SUIT[trump_card])
        if trump != want:
            wname = "null (no trump)" if want == NO_TRUMP else repr(SUITS[want])
            _fail(f"trump {tv!r} does not match the turned card {tc!r}: it must be {wname}")

    # -- bids and tricks
    bids = [b if b is not None else -1 for b in _list(view["bids"], "bids", n)]
    for p, b in enumerate(bids):
        if b != -1 and (isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= r):
            _fail(f"bids[{p}] = {b!r} must be null or an integer in 0..{r}")
    won = _list(view["tricks_won"], "tricks_won", n)
    for p, w in enumerate(won):
        if isinstance(w, bool) or not isinstance(w, int) or not 0 <= w <= r:
            _fail(f"tricks_won[{p}] = {w!r} must be an integer in 0..{r}")
    done = sum(won)
    if done > r:
        _fail(f"tricks_won add up to {done}, more than the {r} tricks of this round")
    order = [(dealer + 1 + k) % n for k in range(n)]  # bidding order
    nbids = sum(b >= 0 for b in bids)
    for k, p in enumerate(order):
        if (bids[p] >= 0) != (k < nbids):
            _fail(f"bids must be made in turn from the dealer's left: seat {p} "
                  f"{'has bid' if bids[p] >= 0 else 'has not bid'} but "
                  f"{'an earlier seat has not' if bids[p] >= 0 else 'a later seat has'}")
    if phase in (CHOOSE_TRUMP, BID) and nbids == n:
        _fail(f"phase {phase_name} but every seat has bid already")
    if phase == CHOOSE_TRUMP and nbids:
        _fail("phase choose_trump but bids were made already")
    if phase in (PLAY, GAME_OVER) and nbids < n:
        _fail(f"phase {phase_name} but not every seat has bid")
    if (game.options.dealer_bid_restriction and nbids == n and sum(bids) == r):
        _fail(f"the bids add up to {r}, which the dealer's bid restriction forbids")

    # -- the current trick
    tr = view["trick"]
    if not isinstance(tr, dict):
        _fail(f"'trick' must be an object with keys {', '.join(TRICK_KEYS)}")
    if set(tr) != set(TRICK_KEYS):
        _fail(f"'trick' must have exactly the keys {', '.join(TRICK_KEYS)}, got "
              f"{', '.join(sorted(map(str, tr)))}")
    leader = _int(tr, "leader", 0, n - 1, what="trick leader")
    tcards = _cards(tr["cards"], "trick cards")
    tseats = _list(tr["seats"], "trick seats", len(tcards))
    for i, p in enumerate(tseats):
        if not _same(p, (leader + i) % n):
            _fail(f"trick seats must be {[(leader + i) % n for i in range(len(tcards))]} "
                  f"(play passes left from the leader), got {tseats}")
    tmask = _mask(tcards)
    if tmask & ~played_mask:
        _fail(f"trick card(s) {', '.join(_names(tmask & ~played_mask))} must also be in "
              f"'played'")
    if phase == GAME_OVER:
        if done != r:
            _fail(f"phase game_over but only {done} of {r} tricks were won")
        if len(tcards) != n:
            _fail(f"phase game_over: 'trick' must hold the last trick, all {n} cards")
        if won[(leader + trick_winner(tcards, trump)) % n] < 1:
            _fail("the last trick's winner has no trick in tricks_won")
    else:
        if phase != PLAY and (tcards or done or played):
            _fail(f"phase {phase_name} but cards were played already")
        if phase == PLAY and done == r:
            _fail("phase play but all tricks of the round are won")
        if len(tcards) >= n:
            _fail(f"the current trick holds {len(tcards)} cards; a trick has {n}")
    before = done - (phase == GAME_OVER)  # tricks completed before the one in 'trick'
    first_leader = (dealer + 1) % n
    if before == 0 and leader != first_leader:
        _fail(f"the first trick is led by the dealer's left neighbour, seat {first_leader}, "
              f"not {leader}")
    if before > 0:
        last_win = (phase == GAME_OVER
                    and (leader + trick_winner(tcards, trump)) % n == leader)
        if won[leader] - last_win < 1:
            _fail(f"seat {leader} leads the trick but has won no earlier trick to lead from")
    if len(played) != n * before + len(tcards):
        _fail(f"'played' holds {len(played)} cards, but {before} completed tricks and "
              f"{len(tcards)} in the current trick make {n * before + len(tcards)}")

    # -- voids, and the suit to follow in the current trick
    voids = [0] * n
    for p, vs in enumerate(_list(view["voids"], "voids", n)):
        for s in _list(vs, f"voids[{p}]"):
            if not isinstance(s, str) or len(s) != 1 or s not in SUITS:
                _fail(f"voids[{p}]: {s!r} is not a suit (B, R, G, Y)")
            bit = 1 << SUITS.index(s)
            if voids[p] & bit:
                _fail(f"voids[{p}]: suit {s!r} appears twice")
            voids[p] |= bit
    if phase in (CHOOSE_TRUMP, BID) and any(voids):
        _fail(f"phase {phase_name} but voids are shown: nobody has played yet")
    for s in range(NUM_SUITS):
        if voids[seat] >> s & 1 and hand_mask & SUIT_MASK[s]:
            _fail(f"seat {seat} showed out of suit {SUITS[s]!r} but holds "
                  f"{', '.join(_names(hand_mask & SUIT_MASK[s]))}")
    follow = LEAD_NONE
    for i, c in enumerate(tcards):
        p = (leader + i) % n
        if follow >= 0:
            if CARD_SUIT[c] >= 0 and CARD_SUIT[c] != follow and not voids[p] >> follow & 1:
                _fail(f"seat {p} played {DECK.names[c]!r} to a {SUITS[follow]!r} trick but "
                      f"voids[{p}] lacks {SUITS[follow]!r}")
        elif follow == LEAD_NONE and c < JESTER0:
            follow = LEAD_FREE if c >= WIZARD0 else CARD_SUIT[c]

    # -- who plays how many cards; hand sizes
    played_by = [before + ((p - leader) % n < len(tcards)) for p in range(n)]
    hand_sizes = [r - played_by[p] for p in range(n)]
    for p in range(n):
        if voids[p].bit_count() > played_by[p]:
            _fail(f"voids[{p}] shows {voids[p].bit_count()} suits, but seat {p} has played "
                  f"only {played_by[p]} card(s) this round")
    if phase != GAME_OVER and len(hand) != hand_sizes[seat]:
        _fail(f"hand holds {len(hand)} cards, but in phase {phase_name} of a {r}-card round "
              f"with {played_by[seat]} played seat {seat} must hold {hand_sizes[seat]}")
    if phase == GAME_OVER and hand:
        _fail("phase game_over but the hand is not empty")

    # -- whose turn
    if phase == CHOOSE_TRUMP:
        cur = dealer
    elif phase == BID:
        cur = order[nbids]
    elif phase == PLAY:
        cur = (leader + len(tcards)) % n
    else:
        cur = -1
    ta = view["to_act"]
    if phase == GAME_OVER:
        if ta is not None:
            _fail(f"to_act must be null when the game is over, got {ta!r}")
    else:
        if isinstance(ta, bool) or not isinstance(ta, int):
            _fail(f"'to_act' must be a seat number, got {ta!r}")
        if ta != cur:
            _fail(f"to_act is {ta} but by the rules seat {cur} is to act in phase "
                  f"{phase_name}")

    # -- totals
    totals = _list(view["totals"], "totals", n)
    for p, v in enumerate(totals):
        if isinstance(v, bool) or not isinstance(v, int):
            _fail(f"totals[{p}] = {v!r} must be an integer")

    # -- build the state
    state = _build(game, rng, seat, phase, rnd, r, dealer, hand_mask, played_mask, tcards,
                   leader, follow, trump_card, trump, bids, won, voids, hand_sizes, totals)

    # -- legal (last: it needs the state)
    legal = view["legal"]
    _list(legal, "legal")
    want_legal = ([game.action_label(a) for a in bit_list(state.legal_mask())]
                  if seat == state.current_player else [])
    if legal and legal != want_legal:  # [] is accepted: "work it out"
        for lab in legal:
            if not isinstance(lab, str) or lab not in _labels(game):
                _fail(f"legal: unknown action {lab!r}")
        if not want_legal:
            _fail(f"legal must be [] for seat {seat}, which is not to act")
        _fail(f"legal {legal} differs from the rules' legal actions {want_legal}")
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
            _fail("no deal of the unseen cards to the other seats fits the voids shown")
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
    tmask = _mask(tcards)
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

_LABEL_CACHE: dict[int, dict[str, int]] = {}


def _labels(game: WizardGame) -> dict[str, int]:
    key = game.num_players
    table = _LABEL_CACHE.get(key)
    if table is None:
        table = {game.action_label(a): a for a in range(game.num_actions)}
        _LABEL_CACHE[key] = table
    return table


def action_to_view(game: WizardGame, action_id: int) -> dict[str, Any]:
    """The answer format: ``{"action", "action_id", "kind", ...}``.

    Kinds: ``"card"`` (plus ``"card"``: its name), ``"bid"`` (plus ``"bid"``:
    the number of tricks), ``"trump"`` (plus ``"suit"``: B, R, G or Y).
    """
    if (isinstance(action_id, bool) or not isinstance(action_id, int)
            or not 0 <= action_id < game.num_actions):
        raise ValueError(f"wizard: action id {action_id!r} must be an integer in "
                         f"0..{game.num_actions - 1}")
    label = game.action_label(action_id)
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
    if not isinstance(label, str):
        raise ValueError(f"wizard: an action label is a string, got {label!r}")
    a = _labels(game).get(label)
    if a is None:
        raise ValueError(f"wizard: unknown action {label!r} (a card such as 'R7', 'W1', 'N2'; "
                         f"'bid 0'..'bid {game.max_hand}'; 'trump B', 'trump R', 'trump G', "
                         f"'trump Y')")
    return a


__all__ = ["VIEW_KEYS", "action_from_label", "action_to_view", "from_view", "to_view"]
