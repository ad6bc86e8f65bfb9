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
* :func:`action_to_view` / :func:`action_from_label`: the answer format.

The view is built around what a table shows.  The source of truth in a view
is ``options``, ``seat``, ``phase``, ``round``, ``hand``, ``tricks``,
``trick`` and ``round_scores``; every other key (``to_act``, ``legal``,
``taken``, ``voids``, ``played``, ``totals`` ...) follows from them by the
rules and must agree with what they imply, or :func:`from_view` names the
first key that does not.

Pure Python: no numpy.
"""

from __future__ import annotations

import random
from typing import Any

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.hoch_tief.rules import (
    GAME_OVER,
    HAND_SIZE,
    NUM_SUITS,
    PHASE_NAMES,
    PLAY,
    SUITS,
    HochTiefGame,
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

#: the seed of the deal of hidden cards in :func:`from_view` (deterministic)
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
        raise ValueError(f"hoch_tief view: seat must be an integer in 0..{n - 1}, got {seat!r}")
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


# -- from a view back to a state ---------------------------------------------------


def _err(msg: str) -> ValueError:
    return ValueError(f"hoch_tief view: {msg}")


def _card_ids(game: HochTiefGame) -> dict[str, int]:
    return {name: c for c, name in enumerate(game.deck.names)}


def _cards(value: Any, where: str, ids: dict[str, int], game: HochTiefGame) -> list[int]:
    """Card ids of a list of card names (exact names; no card twice in the list)."""
    if not isinstance(value, list):
        raise _err(f"{where} must be a list of card names, got {type(value).__name__}")
    out = []
    seen = set()
    for x in value:
        if not isinstance(x, str):
            raise _err(f"{where} must hold card names (strings), got {x!r}")
        c = ids.get(x)
        if c is None:
            m = game.tables.numbers
            raise _err(f"{where}: unknown card {x!r} (with {game.num_players} players the "
                       f"cards are A1..A{m}, B1..B{m}, C.., D.., E1..E{m})")
        if c in seen:
            raise _err(f"{where}: card {x!r} appears twice")
        seen.add(c)
        out.append(c)
    return out


def _seat(value: Any, where: str, n: int) -> int:
    if not _is_int(value) or not 0 <= value < n:
        raise _err(f"{where} must be a seat number 0..{n - 1}, got {value!r}")
    return value


def _trick_dict(value: Any, where: str, keys: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise _err(f"{where} must be an object with keys {', '.join(keys)}, "
                   f"got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise _err(f"{where} is missing key(s) {', '.join(map(repr, missing))}")
    unknown = sorted(str(k) for k in value if k not in keys)
    if unknown:
        raise _err(f"{where} has unknown key(s) {', '.join(map(repr, unknown))}")
    return value


def _check_header(game: Any, view: Any) -> None:
    if not isinstance(game, HochTiefGame):
        raise _err(f"from_view needs a HochTiefGame, got {type(game).__name__}")
    if not isinstance(view, dict):
        raise _err(f"a view must be a JSON object (dict), got {type(view).__name__}")
    missing = [k for k in VIEW_KEYS if k not in view]
    if missing:
        raise _err(f"missing key(s) {', '.join(map(repr, missing))}")
    unknown = sorted(str(k) for k in view if k not in VIEW_KEYS)
    if unknown:
        raise _err(f"unknown key(s) {', '.join(map(repr, unknown))}")
    if view["game"] != game.name:
        raise _err(f"the view is for game {view['game']!r}, not {game.name!r}")
    if view["env"] != game.env_id:
        raise _err(f"the view is for env {view['env']!r}, this game is {game.env_id!r}")
    if view["num_players"] != game.num_players:
        raise _err(f"the view is for {view['num_players']!r} players, this game has "
                   f"{game.num_players}")
    opts = view["options"]
    want = game.options.as_dict()
    if not isinstance(opts, dict):
        raise _err(f"options must be an object, got {type(opts).__name__}")
    if opts != want:
        diff = sorted(str(k) for k in set(opts) | set(want) if opts.get(k) != want.get(k)
                      or (k in opts) != (k in want))
        raise _err(f"options do not match the game's: {', '.join(map(repr, diff))} "
                   f"(view {opts!r}, game {want!r})")


def from_view(game: HochTiefGame, view: dict) -> HochTiefState:
    """A rules state (``log=False``) consistent with ``view``; ``ValueError`` naming any problem.

    The seat's hand and every public fact are taken from the view; the other
    hands are dealt (deterministically) from the cards the seat has not seen,
    with the right sizes and respecting every void shown this round; the
    deals of later rounds are shuffled, those of earlier rounds are
    placeholders.  The round's tricks are replayed through the rules, so the
    state's history holds this round's plays and every follow-suit rule
    holds.  Finally the state's own view must equal ``view`` (up to the order
    of card lists that are sets: hand, legal, played, taken, voids).
    """
    _check_header(game, view)
    n = game.num_players
    t = game.tables
    ids = _card_ids(game)
    names = t.deck.names
    seat = _seat(view["seat"], "seat", n)
    phase_name = view["phase"]
    if phase_name not in PHASE_NAMES:
        raise _err(f"phase must be one of {', '.join(map(repr, PHASE_NAMES))}, "
                   f"got {phase_name!r}")
    phase = PHASE_NAMES.index(phase_name)
    rnd = view["round"]
    if not _is_int(rnd) or not 0 <= rnd < game.num_rounds:
        raise _err(f"round must be an integer in 0..{game.num_rounds - 1} (0-based), "
                   f"got {rnd!r}")
    if phase == GAME_OVER and rnd != game.num_rounds - 1:
        raise _err(f"phase 'game_over' but round is {rnd}: the game ends after round "
                   f"{game.num_rounds - 1}")

    # scores of the rounds before (game over: all rounds; the last is checked after replay)
    rs = view["round_scores"]
    want_rounds = rnd + (phase == GAME_OVER)
    if not isinstance(rs, list) or len(rs) != want_rounds:
        raise _err(f"round_scores must be a list of {want_rounds} per-seat score lists "
                   f"(one per finished round), got {rs!r}")
    for i, row in enumerate(rs):
        if (not isinstance(row, list) or len(row) != n
                or not all(_is_int(x) and x >= 0 for x in row)):
            raise _err(f"round_scores[{i}] must be a list of {n} scores (integers >= 0), "
                       f"got {row!r}")

    # the cards: hand, completed tricks, current trick; each card once
    hand = _cards(view["hand"], "hand", ids, game)
    where: dict[int, str] = {c: "hand" for c in hand}

    def claim(c: int, w: str) -> None:
        if c in where:
            raise _err(f"card {names[c]!r} is in {where[c]} and also in {w}")
        where[c] = w

    tricks_v = view["tricks"]
    if not isinstance(tricks_v, list):
        raise _err(f"tricks must be a list of completed tricks, got {type(tricks_v).__name__}")
    if phase == PLAY and len(tricks_v) >= HAND_SIZE:
        raise _err(f"phase 'play' but tricks holds {len(tricks_v)} completed tricks: "
                   f"a round has {HAND_SIZE} tricks and ends with the last")
    if phase == GAME_OVER and len(tricks_v) != HAND_SIZE:
        raise _err(f"phase 'game_over' needs all {HAND_SIZE} tricks of the last round, "
                   f"got {len(tricks_v)}")
    dealer = (game.options.first_dealer + rnd) % n
    leader = (dealer + 1) % n
    tricks: list[tuple[int, list[int]]] = []
    for k, tv in enumerate(tricks_v):
        w = f"tricks[{k}]"
        tv = _trick_dict(tv, w, TRICK_KEYS)
        lead = _seat(tv["leader"], f"{w}.leader", n)
        cards = _cards(tv["cards"], f"{w}.cards", ids, game)
        if len(cards) != n:
            raise _err(f"{w}.cards must hold {n} cards (a completed trick), got {len(cards)}")
        if lead != leader:
            why = ("the player left of the dealer leads the first trick" if k == 0
                   else f"the high card of tricks[{k - 1}] was played by seat {leader}")
            raise _err(f"{w}.leader is {lead}, but seat {leader} leads it ({why})")
        for c in cards:
            claim(c, w)
        tricks.append((lead, cards))
        leader = (lead + high_low([t.number[c] for c in cards])[0]) % n

    cur = _trick_dict(view["trick"], "trick", CURRENT_TRICK_KEYS)
    cur_lead = _seat(cur["leader"], "trick.leader", n)
    cur_cards = _cards(cur["cards"], "trick.cards", ids, game)
    if phase == GAME_OVER:
        last_lead, last_cards = tricks[-1]
        if cur_lead != last_lead or cur_cards != last_cards:
            raise _err("at game over, trick must be the last completed trick "
                       f"(leader {last_lead}, cards {[names[c] for c in last_cards]})")
        cur_cards = []  # already counted in tricks
    else:
        if len(cur_cards) >= n:
            raise _err(f"trick.cards holds {len(cur_cards)} cards; a trick on the table "
                       f"holds at most {n - 1} (a full trick is resolved at once)")
        if cur_lead != leader:
            why = ("the player left of the dealer leads the first trick" if not tricks
                   else f"the high card of tricks[{len(tricks) - 1}] was played by seat "
                        f"{leader}")
            raise _err(f"trick.leader is {cur_lead}, but seat {leader} leads it ({why})")
        for c in cur_cards:
            claim(c, "trick")

    # who played what, voids shown, follow-suit consistency of the public plays
    plays: list[tuple[int, int, str]] = []  # (seat, card, where)
    for k, (lead, cards) in enumerate(tricks):
        plays += [((lead + i) % n, c, f"tricks[{k}]") for i, c in enumerate(cards)]
    plays += [((cur_lead + i) % n, c, "trick") for i, c in enumerate(cur_cards)]
    voids = [0] * n
    void_where: dict[tuple[int, int], str] = {}
    played_by = [0] * n
    led = -1
    for i, (p, c, w) in enumerate(plays):
        s = t.suit[c]
        if i % n == 0:  # the first card of each trick (tricks hold n cards each)
            led = s
        if voids[p] >> s & 1:
            raise _err(f"{w}: seat {p} plays {names[c]!r}, but it showed out of suit "
                       f"{SUITS[s]} in {void_where[p, s]}")
        if s != led:
            if not voids[p] >> led & 1:
                void_where[p, led] = w
            voids[p] |= 1 << led
        played_by[p] |= 1 << c

    hand_mask = sum(1 << c for c in hand)
    own_played = played_by[seat].bit_count()
    want_hand = 0 if phase == GAME_OVER else HAND_SIZE - own_played
    if len(hand) != want_hand:
        raise _err(f"hand holds {len(hand)} cards, but seat {seat} must hold {want_hand} "
                   f"({HAND_SIZE} dealt, {own_played} played this round)")
    for s in range(NUM_SUITS):
        if voids[seat] >> s & 1 and hand_mask & t.suit_mask[s]:
            bad = [names[c] for c in bit_list(hand_mask & t.suit_mask[s])]
            raise _err(f"hand holds {', '.join(bad)}, but seat {seat} showed out of suit "
                       f"{SUITS[s]} in {void_where[seat, s]}")

    # deal the unseen cards to the other seats, respecting their voids
    rng = random.Random(DEAL_SEED)
    played = 0
    for m in played_by:
        played |= m
    unseen = t.deck.full_mask & ~hand_mask & ~played
    others = [p for p in range(n) if p != seat]
    sizes = [HAND_SIZE - played_by[p].bit_count() for p in others]
    banned = []
    for p in others:
        b = 0
        for s in range(NUM_SUITS):
            if voids[p] >> s & 1:
                b |= t.suit_mask[s]
        banned.append(b & unseen)
    if sum(sizes) != unseen.bit_count():  # cannot happen after the checks above
        raise _err("the unseen cards do not fill the other hands")
    for s in range(NUM_SUITS):
        if unseen & t.suit_mask[s] and all(b & t.suit_mask[s] for b in banned):
            c = bit_list(unseen & t.suit_mask[s])[0]
            raise _err(f"no deal of the unseen cards to the other seats fits the suits they "
                       f"showed out of (voids): every other seat showed out of suit "
                       f"{SUITS[s]}, yet {names[c]!r} is neither in hand nor played")
    try:
        dealt_hidden = constrained_deal(unseen, sizes, banned, t, rng)
    except ValueError:
        raise _err("no deal of the unseen cards to the other seats fits the suits they "
                   "showed out of (voids)") from None
    dealt = [0] * n
    dealt[seat] = hand_mask | played_by[seat]
    for p, h in zip(others, dealt_hidden):
        dealt[p] = h | played_by[p]

    # deck orders: placeholders before, this round's deal, shuffles after
    order = [0] * t.size
    for p in range(n):
        order[(p - dealer - 1) % n::n] = bit_list(dealt[p])
    orders: list[list[int]] = []
    for i in range(game.num_rounds):
        if i < rnd:
            orders.append(list(range(t.size)))
        elif i == rnd:
            orders.append(order)
        else:
            o = list(range(t.size))
            rng.shuffle(o)
            orders.append(o)
    state = game.new_state(orders, log=False)
    state.round_scores = [list(r) for r in rs[:rnd]]
    state.totals = [sum(r[p] for r in state.round_scores) for p in range(n)]
    state.start_round(rnd)
    for p, c, w in plays:
        if state.current_player != p or not state.legal_mask() >> c & 1:  # pragma: no cover
            raise _err(f"{w}: seat {p} cannot play {names[c]!r} by the rules")
        state.apply(c)
    _check_derived(view, to_view(state, seat), ids)
    return state


_SET_LISTS = ("hand", "legal", "played")


def _norm(key: str, value: Any, ids: dict[str, int]) -> Any:
    """Card lists that are sets in deck order, so that their order does not matter."""

    def srt(x: Any) -> Any:
        if isinstance(x, list) and all(isinstance(y, str) for y in x):
            return sorted(x, key=lambda y: (ids.get(y, len(ids)), y))
        return x

    if key in _SET_LISTS:
        return srt(value)
    if key == "taken" and isinstance(value, list):
        return [srt(x) for x in value]
    if key == "voids" and isinstance(value, list):
        return [sorted(x) if isinstance(x, list) and all(isinstance(y, str) for y in x) else x
                for x in value]
    return value


def _check_derived(view: dict, canon: dict, ids: dict[str, int]) -> None:
    """Every key of ``view`` must equal the rebuilt state's view; name the first that does not."""
    for key in VIEW_KEYS:
        if view[key] == canon[key]:
            continue
        got = _norm(key, view[key], ids)
        want = _norm(key, canon[key], ids)
        if got == want:
            continue
        if key == "to_act":
            turn = "nobody is to act (the game is over)" if want is None else \
                f"it is seat {want}'s turn"
            raise _err(f"to_act is {got!r}, but by the rules {turn}")
        if key == "tricks":
            for k, (a, b) in enumerate(zip(got, want)):
                if a != b:
                    bad = [f for f in TRICK_KEYS if a.get(f) != b.get(f)]
                    raise _err(f"tricks[{k}].{bad[0]} is {a.get(bad[0])!r}, but the cards "
                               f"give {b.get(bad[0])!r}")
        if key == "trick":
            bad = [f for f in CURRENT_TRICK_KEYS if got.get(f) != want.get(f)]
            raise _err(f"trick.{bad[0]} is {got.get(bad[0])!r}, but the rules give "
                       f"{want.get(bad[0])!r}")
        raise _err(f"{key} is {view[key]!r}, but the rest of the view gives {canon[key]!r}")


# -- the answer format --------------------------------------------------------------------


def action_to_view(game: HochTiefGame, action_id: int) -> dict:
    """An action in game terms: ``{"action": "A7", "action_id": 6, "kind": "card", ...}``."""
    if not _is_int(action_id) or not 0 <= action_id < game.num_actions:
        raise _err(f"action_id must be an integer in 0..{game.num_actions - 1}, "
                   f"got {action_id!r}")
    t = game.tables
    label = game.action_label(action_id)
    return {"action": label, "action_id": action_id, "kind": "card", "card": label,
            "suit": SUITS[t.suit[action_id]], "number": t.number[action_id]}


def action_from_label(game: HochTiefGame, label: str) -> int:
    """The action id of a label (a card name such as ``"A7"``); ``ValueError`` if unknown."""
    if not isinstance(label, str):
        raise _err(f"an action label must be a string (a card name), got {label!r}")
    c = _card_ids(game).get(label)
    if c is None:
        m = game.tables.numbers
        raise _err(f"unknown action {label!r} (with {game.num_players} players the actions "
                   f"are the cards A1..A{m}, B1.., C.., D.., E1..E{m})")
    return c


__all__ = ["VIEW_KEYS", "action_from_label", "action_to_view", "from_view", "to_view"]
