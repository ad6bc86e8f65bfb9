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

from typing import Any

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.wunder_punkt.rules import (
    CARD_SUIT,
    DECK,
    DECK_SIZE,
    GAME_OVER,
    PHASE_NAMES,
    PLAY,
    SORE,
    SUITS,
    WunderPunktGame,
    WunderPunktState,
    round_score,
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
        raise ValueError(f"wunder_punkt view: seat must be an integer in 0..{n - 1}, got {seat!r}")
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


# -- validation helpers ------------------------------------------------------------------


def _err(msg: str) -> ValueError:
    return ValueError(f"wunder_punkt view: {msg}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int(x: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if not _is_int(x):
        raise _err(f"{what} must be an integer, got {x!r}")
    if lo is not None and hi is not None and not lo <= x <= hi:
        raise _err(f"{what} must be in {lo}..{hi}, got {x}")
    return x


def _seat(x: Any, what: str, n: int) -> int:
    return _int(x, what, 0, n - 1)


def _list(x: Any, what: str, length: int | None = None) -> list:
    if not isinstance(x, list):
        raise _err(f"{what} must be a list, got {type(x).__name__}")
    if length is not None and len(x) != length:
        raise _err(f"{what} must have one entry per seat ({length}), got {len(x)}")
    return x


def _card(x: Any, what: str) -> int:
    if not isinstance(x, str):
        raise _err(f"{what}: a card name must be a string, got {x!r}")
    try:
        return DECK.parse_one(x)
    except ValueError:
        raise _err(f"{what}: unknown card {x!r}") from None


class _Cards:
    """Every card named in the view, each allowed once."""

    def __init__(self, used: int):
        self.used = used
        self.seen: dict[int, str] = {}

    def take(self, x: Any, what: str) -> int:
        c = _card(x, what)
        if not (self.used >> c) & 1:
            raise _err(f"{what}: card {DECK.names[c]} is not in play with these options")
        if c in self.seen:
            raise _err(f"{what}: card {DECK.names[c]} appears twice (also in {self.seen[c]})")
        self.seen[c] = what
        return c

    def take_list(self, xs: Any, what: str) -> list[int]:
        return [self.take(x, what) for x in _list(xs, what)]


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _card_set(xs: Any, what: str) -> int:
    """A list of card names (no in-play / duplicate bookkeeping), as a mask."""
    m = 0
    for x in _list(xs, what):
        c = _card(x, what)
        if (m >> c) & 1:
            raise _err(f"{what}: card {DECK.names[c]} appears twice")
        m |= 1 << c
    return m


def _check_keys(d: Any, keys: tuple[str, ...], what: str) -> dict:
    if not isinstance(d, dict):
        raise _err(f"{what} must be a JSON object, got {type(d).__name__}")
    missing = [k for k in keys if k not in d]
    if missing:
        raise _err(f"{what}: missing key(s) {', '.join(map(repr, missing))}")
    unknown = [k for k in d if k not in keys]
    if unknown:
        raise _err(f"{what}: unknown key(s) {', '.join(map(repr, map(str, unknown)))}")
    return d


def _check_trick_seats(t: dict, what: str, n: int) -> tuple[int, list[str]]:
    leader = _seat(t["leader"], f"{what}.leader", n)
    cards = _list(t["cards"], f"{what}.cards")
    seats = _list(t["seats"], f"{what}.seats")
    if len(seats) != len(cards):
        raise _err(f"{what}: seats and cards must have the same length")
    for i, p in enumerate(seats):
        if _seat(p, f"{what}.seats[{i}]", n) != (leader + i) % n:
            raise _err(f"{what}.seats[{i}] must be {(leader + i) % n} (play passes to the left "
                       f"from leader {leader}), got {p}")
    return leader, cards


# -- view -> state -------------------------------------------------------------------------


def from_view(game: WunderPunktGame, view: dict) -> WunderPunktState:
    """A rules state (no log) consistent with ``view``; ValueError naming any problem."""
    v = _check_keys(view, VIEW_KEYS, "view")
    if v["game"] != GAME:
        raise _err(f"the view is for game {v['game']!r}, not {GAME!r}")
    if v["env"] != game.env_id:
        raise _err(f"the view is for env {v['env']!r}, this game is {game.env_id!r}")
    opts = game.options.as_dict()
    if not isinstance(v["options"], dict):
        raise _err(f"options must be a JSON object, got {type(v['options']).__name__}")
    if v["options"] != opts:
        diff = sorted((k for k in set(opts) | set(v["options"])
                       if k not in opts or k not in v["options"] or v["options"][k] != opts[k]),
                      key=str)
        detail = ", ".join(f"{k}: view {v['options'].get(k, '<missing>')!r}, "
                           f"game {opts.get(k, '<unknown>')!r}" for k in diff)
        raise _err(f"options do not match the game ({detail})")
    n = game.num_players
    H = game.hand_size
    seat = _seat(v["seat"], "seat", n)
    if v["phase"] not in PHASE_NAMES:
        raise _err(f"phase must be one of {list(PHASE_NAMES)}, got {v['phase']!r}")
    phase = PHASE_NAMES.index(v["phase"])
    if not _is_int(v["num_rounds"]) or v["num_rounds"] != game.num_rounds:
        raise _err(f"num_rounds is {v['num_rounds']!r}, the game has {game.num_rounds}")
    rnd = _int(v["round"], "round", 0, game.num_rounds - 1)
    dealer = _seat(v["dealer"], "dealer", n)
    if dealer != (game.options.first_dealer + rnd) % n:
        raise _err(f"dealer {dealer} is not the dealer of round {rnd} "
                   f"(seat {(game.options.first_dealer + rnd) % n})")
    if phase == GAME_OVER and rnd != game.num_rounds - 1:
        raise _err(f"phase game_over needs round {game.num_rounds - 1} (the last), got {rnd}")
    if _card_set(v["cards_in_play"], "cards_in_play") != game.used:
        raise _err("cards_in_play does not match the cards used with these options")

    # -- cards: each at most once, each in play ------------------------------------------
    cards = _Cards(game.used)
    hand_list = cards.take_list(v["hand"], "hand")
    hand = _mask(hand_list)

    picked = _list(v["picked"], "picked", n)
    for p, x in enumerate(picked):
        if not isinstance(x, bool):
            raise _err(f"picked[{p}] must be true or false, got {x!r}")
    sore_names = _list(v["sore_cards"], "sore_cards", n)
    sore_suits = _list(v["sore_suits"], "sore_suits", n)
    sore: list[int] = [-1] * n  # -1: not picked or face down
    for p in range(n):
        x = sore_names[p]
        if x is not None:
            sore[p] = cards.take(x, f"sore_cards[{p}]")
        want = SUITS[CARD_SUIT[sore[p]]] if sore[p] >= 0 else None
        if sore_suits[p] != want:
            raise _err(f"sore_suits[{p}] must be {want!r} (the suit of sore_cards[{p}]), "
                       f"got {sore_suits[p]!r}")

    # -- who has picked, and who is to act -------------------------------------------------
    order = [(dealer + 1 + k) % n for k in range(n)]  # picking order, the dealer last
    to_act = v["to_act"]
    if phase == GAME_OVER:
        if to_act is not None:
            raise _err(f"to_act must be null when the game is over, got {to_act!r}")
    else:
        to_act = _seat(to_act, "to_act", n)
    if phase == SORE:
        n_picked = order.index(to_act)
        for k, p in enumerate(order):
            if picked[p] != (k < n_picked):
                raise _err(f"to_act is seat {to_act}, so picked must be true exactly for the "
                           f"seats before it from left of the dealer "
                           f"({[q for q in order[:n_picked]]}); picked[{p}] is {picked[p]}")
        for p in range(n):
            if p != seat and sore[p] >= 0:
                raise _err(f"sore_cards[{p}]: another seat's pick is face down before the "
                           f"reveal and cannot be in the view")
        if picked[seat] != (sore[seat] >= 0):
            raise _err(f"sore_cards[{seat}] (own pick) must be given exactly when "
                       f"picked[{seat}] is true")
    else:
        for p in range(n):
            if not picked[p]:
                raise _err(f"picked[{p}] must be true in phase {v['phase']} (all have picked)")
            if sore[p] < 0:
                raise _err(f"sore_cards[{p}] must be given in phase {v['phase']} "
                           f"(revealed after all have picked)")

    # -- tricks of the round ---------------------------------------------------------------
    tricks = _list(v["tricks"], "tricks")
    if phase == SORE and tricks:
        raise _err("tricks must be empty in phase sore")
    plays: list[tuple[int, int]] = []
    leader = order[0]
    for i, t in enumerate(tricks):
        what = f"tricks[{i}]"
        _check_keys(t, TRICK_KEYS, what)
        lead, names = _check_trick_seats(t, what, n)
        if lead != leader:
            raise _err(f"{what}.leader must be {leader} (left of the dealer leads the first "
                       f"trick, then the winner - the same leader after an all-Ace trick), "
                       f"got {lead}")
        if len(names) != n:
            raise _err(f"{what}: a completed trick has {n} cards, got {len(names)}")
        tc = [cards.take(x, f"{what}.cards") for x in names]
        pos = trick_winner(tc)
        winner = (lead + pos) % n if pos >= 0 else None
        got = t["winner"]
        if not ((got is None and winner is None) or (_is_int(got) and got == winner)):
            raise _err(f"{what}.winner must be {winner} by the rules, got {t['winner']!r}")
        plays += [((lead + j) % n, c) for j, c in enumerate(tc)]
        leader = winner if winner is not None else lead
    cur = _check_keys(v["trick"], CURRENT_TRICK_KEYS, "trick")
    cur_lead, cur_names = _check_trick_seats(cur, "trick", n)
    if phase == GAME_OVER:
        # the last trick of the final round stays on the table
        if len(tricks) != H - 1:
            raise _err(f"phase game_over needs all {H - 1} tricks of the round, "
                       f"got {len(tricks)}")
        last = tricks[-1]
        if cur_lead != last["leader"] or [_card(x, "trick.cards") for x in cur_names] != [
                _card(x, "tricks") for x in last["cards"]]:
            raise _err("trick must be the last trick of the round when the game is over")
    else:
        if phase == PLAY and len(tricks) >= H - 1:
            raise _err(f"a round has {H - 1} tricks; with {len(tricks)} completed the phase "
                       f"cannot be play")
        if cur_lead != leader:
            raise _err(f"trick.leader must be {leader} (who leads after the completed tricks), "
                       f"got {cur_lead}")
        if len(cur_names) >= n:
            raise _err(f"the current trick holds at most {n - 1} cards, got {len(cur_names)}")
        if phase == SORE and cur_names:
            raise _err("trick must be empty in phase sore")
        for j, x in enumerate(cur_names):
            plays.append(((cur_lead + j) % n, cards.take(x, "trick.cards")))
        if phase == PLAY and to_act != (cur_lead + len(cur_names)) % n:
            raise _err(f"to_act must be {(cur_lead + len(cur_names)) % n} (the next seat in the "
                       f"trick led by {cur_lead}), got {to_act}")

    # -- hand sizes ------------------------------------------------------------------------
    played_by = [0] * n
    for p, _ in plays:
        played_by[p] += 1
    size = [H - (1 if picked[p] else 0) - played_by[p] for p in range(n)]
    if len(hand_list) != size[seat]:
        raise _err(f"hand has {len(hand_list)} cards; seat {seat} must hold {size[seat]} in "
                   f"phase {v['phase']} ({H} dealt, {1 if picked[seat] else 0} laid as sore "
                   f"card, {played_by[seat]} played)")

    # -- derived public facts ----------------------------------------------------------------
    won_v = _list(v["won"], "won", n)
    removed_v = _card_set(v["removed"], "removed")
    won = [0] * n
    removed = 0
    for t in tricks:
        tm = _mask(_card(x, "tricks") for x in t["cards"])
        if t["winner"] is None:
            removed |= tm
        else:
            won[t["winner"]] |= tm
    for p in range(n):
        if _card_set(won_v[p], f"won[{p}]") != won[p]:
            raise _err(f"won[{p}] must be the cards seat {p} took in tricks: {_names(won[p])}")
    if removed_v != removed:
        raise _err(f"removed must be the cards of the all-Ace tricks: {_names(removed)}")
    totals = _list(v["totals"], "totals", n)
    for p, x in enumerate(totals):
        _int(x, f"totals[{p}]")
    rs = v["round_scores"]
    if phase == PLAY:
        rs = _list(rs, "round_scores", n)
        for p in range(n):
            want = round_score(won[p], sore[p])
            if rs[p] != want or not _is_int(rs[p]):
                raise _err(f"round_scores[{p}] must be {want} (won cards and sore card), "
                           f"got {rs[p]!r}")
    elif rs is not None:
        raise _err(f"round_scores must be null in phase {v['phase']}")

    # -- the hidden part: other hands and face-down picks --------------------------------------
    unseen = game.used & ~hand & ~_mask(c for c in sore if c >= 0) & ~_mask(c for _, c in plays)
    pool = bit_list(unseen)
    start = [0] * n  # each seat's starting hand
    start[seat] = hand | (1 << sore[seat] if sore[seat] >= 0 else 0)
    picks = sore[:]
    for p in range(n):
        if p == seat:
            continue
        k = H - played_by[p] - (1 if picked[p] else 0)
        start[p] = _mask(pool[:k])
        del pool[:k]
        if picked[p]:
            if picks[p] < 0:
                picks[p] = pool.pop()
            start[p] |= 1 << picks[p]
    if pool:
        raise _err(f"{len(pool)} cards in play are unaccounted for")  # pragma: no cover
    for p, c in plays:
        start[p] |= 1 << c
    lists = [bit_list(h) for h in start]
    if any(len(x) != H for x in lists):  # pragma: no cover - the counts above guarantee it
        raise _err("the cards do not add up to a deal")
    deal = tuple(lists[(dealer + 1 + k) % n][k // n] for k in range(n * H))

    # -- replay this round from the rebuilt deal -------------------------------------------
    placeholder = tuple(game.used_list)
    orders = [placeholder] * game.num_rounds
    orders[rnd] = deal
    s = game.new_state(orders, log=False)
    s.totals = list(totals)
    s.start_round(rnd)
    for p in order:
        if picked[p]:
            s.step(game.sore0 + picks[p])
    for _, c in plays:
        s.step(c)
    if phase == GAME_OVER:  # the last trick scored the round; the view's totals include it
        s.totals = list(totals)
        s.round_scores = []
        s.last_deltas = None
    if s.phase != phase or (phase != GAME_OVER and s.current_player != to_act):
        raise _err("the view does not describe a reachable position")  # pragma: no cover
    legal_v = v["legal"]
    want_legal = ([game.action_label(a) for a in bit_list(s.legal_mask())]
                  if seat == to_act else [])
    if not isinstance(legal_v, list) or sorted(map(str, legal_v)) != sorted(want_legal):
        raise _err(f"legal must list the legal actions of seat {seat}: {want_legal}"
                   + ("" if seat == to_act else " (it is not to act)"))
    return s


# -- actions -----------------------------------------------------------------------------------

_LABELS: dict[str, int] = {}
for _a in range(DECK_SIZE):
    _LABELS[DECK.names[_a]] = _a
    _LABELS[f"sore {DECK.names[_a]}"] = DECK_SIZE + _a


def action_to_view(game: WunderPunktGame, action_id: int) -> dict[str, Any]:
    """The answer format: ``{"action", "action_id", "kind", "card"}``.

    ``kind`` is ``"card"`` (play the card) or ``"sore"`` (lay it face down
    as the sore card).
    """
    if not _is_int(action_id) or not 0 <= action_id < game.num_actions:
        raise ValueError(f"wunder_punkt: action id must be an integer in "
                         f"0..{game.num_actions - 1}, got {action_id!r}")
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
        raise ValueError(f"wunder_punkt: an action label must be a string, got {label!r}")
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
        raise ValueError(f"wunder_punkt: unknown action {label!r} (a card such as '7h' or "
                         f"'sore 7h')") from None


__all__ = ["VIEW_KEYS", "action_from_label", "action_to_view", "from_view", "to_view"]
