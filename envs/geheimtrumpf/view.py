"""The player view of Geheimtrumpf: what one seat knows, as JSON, and back.

``to_view(state, seat)`` writes everything ``seat`` knows at this moment in
card names (``"AH"``, ``"7D"`` ...) and task names (``"no_trick"`` ...),
with absolute seat numbers; ``from_view(game, view)`` rebuilds a rules
state that agrees with the view, filling the hidden parts with a
consistent choice.  Encoding the rebuilt state for ``seat`` gives exactly
the observation and the legal mask of the original state.  The keys are
documented in ``docs/views/geheimtrumpf.md``.

What a seat never sees, and how :func:`from_view` fills it in:

- the trumps, for everyone but the start player, during the card draft:
  a draw that agrees with every announced row winner
  (:func:`stichzoo.envs.geheimtrumpf.rules.consistent_trumps`);
- the other players' task choices until all have chosen: each one who has
  chosen gets one of their unchecked tasks;
- with 3 players the face-down fourth card of each row: the nine cards no
  row shows, one per row;
- the order of the stacks' other cards, every other round's deal, and the
  order in which the tasks were drafted (any round-robin order that ends
  in the tasks held).

:func:`from_view` rebuilds the round by replaying it through the rules
(the draft row by row, the choices, the tricks), so every take, choice and
play in the view is checked as a legal move, and every announced winner
against the rules; then it writes the rebuilt state back as a view and
refuses the view if any key differs.
"""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from stichzoo.envs.core import view as core
from stichzoo.envs.core.cards import bit_list, mask_of
from stichzoo.envs.core.game import IllegalActionError
from stichzoo.envs.core.schema import Cards, Enum, Int, ListOf, Nullable, Obj, Seat, opt, req, show
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    CHECK_OFF,
    DECK,
    GAME_OVER,
    MAX_HOLDERS,
    NO_TRUMP_SUIT,
    NO_TRUMP_VALUE,
    NUM_CARDS,
    NUM_SUITS,
    NUM_TASKS,
    PHASE_NAMES,
    PLAY,
    ROWS,
    SUIT_STACK0,
    SUITS,
    TASK_CHOICE,
    TASK_DRAFT,
    TASK_NAMES,
    TASKS_PER_PLAYER,
    VALUE_STACK0,
    VALUES,
    GeheimtrumpfGame,
    GeheimtrumpfOptions,
    GeheimtrumpfState,
    consistent_trumps,
)

GAME = "geheimtrumpf"
SECRET = "secret"  # a task another player has chosen but not yet revealed

#: the top-level keys of every view, in the order ``to_view`` writes them
VIEW_KEYS = (
    "game", "env", "options", "seat", "to_act", "phase", "hand", "legal",
    "round", "start_player", "tasks", "checked", "totals", "trumps", "layout", "draft",
    "hands", "chosen", "tricks", "trick", "tricks_won", "won_cards", "winners",
)
_ROUND_PHASES = (CARD_DRAFT, TASK_CHOICE, PLAY, CHECK_OFF)
_TASK_IDS = {name: t for t, name in enumerate(TASK_NAMES)}


# -- state -> view ----------------------------------------------------------------------


def _names(mask: int) -> list[str]:
    return [DECK.names[c] for c in bit_list(mask)]


def _tasks(mask: int) -> list[str]:
    return [TASK_NAMES[t] for t in bit_list(mask)]


def to_view(state: GeheimtrumpfState, seat: int) -> dict:
    """Everything ``seat`` knows of ``state``, JSON-ready (see the module docs)."""
    game = state.game
    n = state.num_players
    core.check_seat(game, seat)
    phase = state.phase
    in_round = phase in _ROUND_PHASES
    trumps = None
    if in_round and state.trumps_known_to(seat):
        t = state.trumps
        trumps = {"suit": SUITS[t.suit] if t.suit >= 0 else None,
                  "value": t.value if t.value else None}
    layout: list[list[str]] = []
    draft: list[dict] = []
    hands: list[list[str]] = [[] for _ in range(n)]
    chosen: list[str | None] = [None] * n
    tricks: list[dict] = []
    trick = None
    tricks_won = [0] * n
    won_cards: list[list[str]] = [[] for _ in range(n)]
    if in_round:
        layout = [_names(state.rows[r] & state.layout) for r in range(ROWS)]
        row = state.draft_row
        for r in range(min(row + 1, ROWS)):
            done = r < row
            cards = state.draft_rows[r] if done else state.row_cards
            draft.append({"row": r, "first": state.row_first(r),
                          "cards": [DECK.names[c] for c in cards],
                          "winner": state.row_winners[r] if done else None})
        hands = [_names(h) for h in state.hands]
        for p, t in enumerate(state.chosen):
            if t >= 0:
                chosen[p] = TASK_NAMES[t] if state.chosen_visible_to(seat, p) else SECRET
        if phase in (PLAY, CHECK_OFF):
            tricks = [{"leader": leader, "cards": [DECK.names[c] for c in cards],
                       "winner": winner} for leader, cards, winner in state.tricks]
            if phase == PLAY:
                trick = {"leader": state.trick.leader,
                         "cards": [DECK.names[c] for c in state.trick.cards]}
            tricks_won = list(state.tricks_won)
            won_cards = [_names(m) for m in state.won_cards]
    return {
        **core.head(game),
        "seat": seat,
        "to_act": state.current_player if state.current_player >= 0 else None,
        "phase": PHASE_NAMES[phase],
        "hand": hands[seat][:],
        "legal": core.legal_labels(state, seat),
        "round": state.round_index,
        "start_player": state.start,
        "tasks": [_tasks(m) for m in state.held],
        "checked": [_tasks(m) for m in state.checked],
        "totals": list(state.totals),
        "trumps": trumps,
        "layout": layout,
        "draft": draft,
        "hands": hands,
        "chosen": chosen,
        "tricks": tricks,
        "trick": trick,
        "tricks_won": tricks_won,
        "won_cards": won_cards,
        "winners": state.winners() if phase == GAME_OVER else [],
    }


# -- the answer format -----------------------------------------------------------------------


def action_to_view(game: GeheimtrumpfGame, action_id: int) -> dict:
    """An action id in game terms: label, id, kind and the card or task it names.

    Kinds: ``"card"`` (play a card; ``card``), ``"take"`` (take a card from
    the draft row; ``card``), ``"draft_task"``, ``"choose_task"``,
    ``"check_task"`` (``task``).
    """
    core.check_action(game, action_id)
    out: dict[str, Any] = {"action": game.action_label(action_id), "action_id": action_id}
    a = action_id
    if a < game.TAKE0:
        out.update(kind="card", card=DECK.names[a])
    elif a < game.DRAFT_TASK0:
        out.update(kind="take", card=DECK.names[a - game.TAKE0])
    elif a < game.CHOOSE_TASK0:
        out.update(kind="draft_task", task=TASK_NAMES[a - game.DRAFT_TASK0])
    elif a < game.CHECK0:
        out.update(kind="choose_task", task=TASK_NAMES[a - game.CHOOSE_TASK0])
    else:
        out.update(kind="check_task", task=TASK_NAMES[a - game.CHECK0])
    return out


def action_from_label(game: GeheimtrumpfGame, label: str) -> int:
    """The action id of a label (``"7H"``, ``"take 7H"``, ``"choose no_trick"`` ...).

    Card names are read like the deck reads them (any case, ``"1H"`` for
    ``"AH"``); anything else raises ``ValueError``.
    """
    def alias(text: str) -> int | None:
        text = text.strip()
        if text in core.labels(game):
            return core.labels(game)[text]
        base = 0
        if text.lower().startswith("take "):
            text, base = text[5:], game.TAKE0
        c = DECK.parse_one(text)
        return base + c if c < NUM_CARDS else None

    return core.label_action(game, label, alias, "a card ('7H'), 'take 7H', 'draft no_trick', "
                                                 "'choose no_trick' or 'check no_trick'")


# -- the schema ------------------------------------------------------------------------

CARD_HINT = "A 2 .. 10 of H D S C, such as \"AH\", \"7D\", \"10C\" (upper case)"


def _spec(game: GeheimtrumpfGame) -> Obj:
    n = game.num_players
    seat, per_seat = Seat(n), core.per_seat
    names = DECK.names[:NUM_CARDS]

    def cards(most: int, ordered: bool = False) -> Any:
        return Cards(names, CARD_HINT, most=most, ordered=ordered)

    tasks = ListOf(Enum(TASK_NAMES), most=TASKS_PER_PLAYER, unique=True, ordered=False)
    per_hand = ROWS
    return Obj({
        **core.header(game, phases=PHASE_NAMES),
        "hand": opt(cards(per_hand), "The seat's own cards (= hands[seat])."),
        "legal": opt(core.Legal(list(core.labels(game))), "The legal actions; [] = work out."),
        "round": req(Int(0, game.round_limit - 1), "Round index, 0-based."),
        "start_player": opt(seat, "The start player of this round."),
        "tasks": req(per_seat(tasks, n), "The tasks each seat holds."),
        "checked": req(per_seat(tasks, n), "The tasks each seat has checked off."),
        "totals": opt(per_seat(Int(0, TASKS_PER_PLAYER), n), "Checked tasks per seat."),
        "trumps": req(Nullable(Obj({
            "suit": req(Nullable(Enum(tuple(SUITS))), "Trump suit; null: none."),
            "value": req(Nullable(Int(1, VALUES)), "Trump number; null: none."),
        })), "The trumps when this seat knows them; else null."),
        "layout": req(ListOf(cards(n), most=ROWS), "The face-up cards left in each row."),
        "draft": req(ListOf(Obj({
            "row": opt(Int(0, ROWS - 1), "The row index."),
            "first": opt(seat, "Who chooses first in this row."),
            "cards": req(cards(n, ordered=True), "The cards taken, in take order."),
            "winner": req(Nullable(seat), "The announced row winner; null while drafting."),
        }), most=ROWS), "The card draft so far, row by row."),
        "hands": opt(per_seat(cards(per_hand), n), "Every seat's hand (the draft is open)."),
        "chosen": req(per_seat(Nullable(Enum([*TASK_NAMES, SECRET])), n),
                      "Each seat's chosen task; \"secret\" while hidden; null: none."),
        "tricks": req(ListOf(Obj({
            "leader": opt(seat, "Who led it (the rules fix it)."),
            "cards": req(cards(n, ordered=True), "In play order."),
            "winner": opt(seat, "Who won it."),
        }), most=ROWS), "The completed tricks of this round."),
        "trick": req(Nullable(Obj({
            "leader": opt(seat, "Who leads it."),
            "cards": req(cards(n - 1, ordered=True), "The cards so far."),
        })), "The trick in play (phase play); else null."),
        "tricks_won": opt(per_seat(Int(0, ROWS), n), "Tricks taken this round."),
        "won_cards": opt(per_seat(cards(NUM_CARDS), n), "Cards each seat took this round."),
        "winners": opt(ListOf(seat, most=n, unique=True), "At game over: the winners."),
    }, "A Geheimtrumpf player view: what one seat knows.")


SCHEMA = core.ViewSchema(GAME, _spec)


def json_schema(game: GeheimtrumpfGame | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of a view of ``game`` (default options if None)."""
    return SCHEMA.json_schema(game or GeheimtrumpfGame(GeheimtrumpfOptions()),
                              "Geheimtrumpf player view")


# -- view -> state: checking the parts ---------------------------------------------------------


def _fail(msg: str, path: str = ""):
    raise SCHEMA.error(path, msg)


def _step(state: GeheimtrumpfState, action: int, what: str) -> None:
    try:
        state.step(action)
    except IllegalActionError as e:
        _fail(f"{what} is not allowed by the rules: {e}")


def _order_for(n: int, rows: list[list[int]], suit: int, value: int) -> tuple[int, ...]:
    """A deck order whose rows show ``rows`` face up and whose stacks draw the trumps."""
    shown = mask_of(c for row in rows for c in row)
    aside = bit_list(((1 << NUM_CARDS) - 1) & ~shown)  # 3 players: one face-down card a row
    numbers: list[int] = []
    for r in range(ROWS):
        numbers += sorted(rows[r])
        if n == 3:
            numbers.append(aside[r])
    s_card = SUIT_STACK0 + (suit if suit >= 0 else NUM_SUITS)
    v_card = VALUE_STACK0 + (value - 1 if value else VALUES)
    suits = [c for c in range(SUIT_STACK0, VALUE_STACK0) if c != s_card] + [s_card]
    values = [c for c in range(VALUE_STACK0, VALUE_STACK0 + VALUES + 1) if c != v_card]
    return tuple(numbers + suits + values + [v_card])


# -- view -> state -------------------------------------------------------------------------------


def from_view(game: GeheimtrumpfGame, view: dict, rng: random.Random | None = None
              ) -> GeheimtrumpfState:
    """A rules state (no log) that agrees with ``view``; ``ValueError`` naming any problem.

    Hidden parts get the first consistent choice, or a random one when
    ``rng`` is given (the secret trumps among those that agree with the
    row winners, the others' secret task choices among their open tasks).
    """
    try:
        return _from_view(game, view, rng)
    except (KeyError, TypeError, IndexError, AttributeError) as e:  # a safety net only
        raise ValueError(f"{GAME} view: malformed view ({type(e).__name__}: {e})") from e


def _pick(options: list, rng: random.Random | None):
    return rng.choice(options) if rng is not None else options[0]


def _from_view(game: GeheimtrumpfGame, view: dict, rng: random.Random | None
               ) -> GeheimtrumpfState:
    p = SCHEMA.parse(game, view)
    n = game.num_players
    seat = p["seat"]
    phase_name = p["phase"]
    phase = PHASE_NAMES.index(phase_name)
    r = p["round"]
    if phase == TASK_DRAFT and r:
        _fail(f"round must be 0 during the task draft, got {r}")
    start = (game.options.first_start + r) % n

    # tasks: held, checked
    held = [mask_of(_TASK_IDS[t] for t in ts) for ts in p["tasks"]]
    checked = [mask_of(_TASK_IDS[t] for t in ts) for ts in p["checked"]]
    for q in range(n):
        if checked[q] & ~held[q]:
            _fail(f"seat {q} has checked {_tasks(checked[q] & ~held[q])} that it does not hold")
    for t in range(NUM_TASKS):
        holders = sum((m >> t) & 1 for m in held)
        if holders > MAX_HOLDERS:
            _fail(f"task {TASK_NAMES[t]} is held by {holders} players; at most {MAX_HOLDERS}")
    picks = sum(m.bit_count() for m in held)
    if phase == TASK_DRAFT:
        if picks >= TASKS_PER_PLAYER * n:
            _fail("phase task_draft, but every seat already holds four tasks")
        if any(checked):
            _fail("no task can be checked during the task draft")
    else:
        for q in range(n):
            if held[q].bit_count() != TASKS_PER_PLAYER:
                _fail(f"seat {q} holds {held[q].bit_count()} tasks; after the task draft "
                      f"every seat holds {TASKS_PER_PLAYER}")

    # the parts that exist only during a round
    in_round = phase in _ROUND_PHASES
    layout_v, draft_v, tricks_v = p["layout"], p["draft"], p["tricks"]
    chosen_v = view["chosen"]
    if not in_round:
        if (any(layout_v) or draft_v or tricks_v or any(p.get("hands", []))
                or any(c is not None for c in chosen_v)):
            _fail(f"phase {phase_name}: layout, draft, hands, chosen and tricks must be empty")
        if p["trumps"] is not None or p["trick"] is not None:
            _fail(f"phase {phase_name}: trumps and trick must be null")

    seen = core.Seen(SCHEMA, DECK.names)
    rows: list[list[int]] = [[] for _ in range(ROWS)]
    draft: list[tuple[int, list[int], Any]] = []
    trick_list: list[tuple[Any, list[int], Any]] = []
    current = None
    if in_round:
        for i, row in enumerate(layout_v):
            rows[i] += seen.take(row, f"layout[{i}]")
        for i, d in enumerate(draft_v):
            cards, winner = d["cards"], d["winner"]
            if winner is not None and len(cards) != n:
                _fail(f"draft[{i}]: a row is announced only once all {n} players took a card")
            rows[i] += seen.take(cards, f"draft[{i}].cards")
            draft.append(((start + 1 + i) % n, cards, winner))
        for i in range(ROWS):
            if len(rows[i]) != n:
                _fail(f"row {i} shows {len(rows[i])} cards face up (layout plus taken); "
                      f"with {n} players each row shows {n}")
        trick_list = [(t.get("leader"), t["cards"], t.get("winner")) for t in tricks_v]
        if p["trick"] is not None:
            current = (p["trick"].get("leader"), p["trick"]["cards"])
        seen_play: dict[int, str] = {}
        plays = [*(f"tricks[{i}]" for i in range(len(trick_list))), "trick"]
        for where, cards in zip(plays, [t[1] for t in trick_list] + [current[1] if current
                                                                       else []]):
            for c in cards:
                if c in seen_play:
                    _fail(f"card {DECK.names[c]} is played twice: in {seen_play[c]} and {where}")
                seen_play[c] = where

    # trumps: known, or the first draw that agrees with the announced row winners
    known = in_round and (phase != CARD_DRAFT or seat == start)
    trumps_v = p["trumps"]
    suit, value = NO_TRUMP_SUIT, NO_TRUMP_VALUE
    if in_round and known:
        if trumps_v is None:
            _fail(f"trumps must be given: seat {seat} knows them in phase {phase_name}")
        if trumps_v["suit"] is not None:
            suit = SUITS.index(trumps_v["suit"])
        if trumps_v["value"] is not None:
            value = trumps_v["value"]
    elif in_round:
        if trumps_v is not None:
            _fail(f"trumps must be null: they are secret from seat {seat} during the card "
                  f"draft (only the start player, seat {start}, knows them)")
        done = [(first, cards, w) for first, cards, w in draft if w is not None]
        stub = SimpleNamespace(
            num_players=n, draft_rows=[tuple(c) for _, c, _ in done],
            row_winners=[w for _, _, w in done],
            row_first=lambda row: (start + 1 + row) % n)
        candidates = consistent_trumps(stub)
        if not candidates:
            _fail("no trump draw agrees with the announced row winners")
        suit, value = _pick(candidates, rng)

    # deal: this round's rows and trumps; any other round is a fresh shuffle
    orders = game.deal(random.Random(0 if rng is None else rng.getrandbits(32)))
    if in_round:
        orders[r] = list(_order_for(n, rows, suit, value))
    state = game.new_state(orders, log=False)

    # the task draft, round-robin from the first start player (any order of one's tasks)
    queues = [bit_list(m) for m in held]
    counts = [0] * n
    first_start = game.options.first_start
    for k in range(picks):
        q = (first_start + k) % n
        if counts[q] >= len(queues[q]):
            _fail(f"the tasks held do not fit the round-robin task draft from seat "
                  f"{first_start}: seat {q} would pick its task no. {counts[q] + 1}")
        t = queues[q][counts[q]]
        counts[q] += 1
        _step(state, game.DRAFT_TASK0 + t, f"seat {q} drafting {TASK_NAMES[t]}")

    if phase == GAME_OVER:
        state.round_index = r
        state.start = start
        state.checked = checked[:]
        state.totals = [m.bit_count() for m in checked]
        state.clear_round()
        state.phase = GAME_OVER
        state.current_player = -1
        state.over = any(t == TASKS_PER_PLAYER for t in state.totals)
        state.truncated = not state.over
        if state.truncated and r + 1 != game.round_limit:
            _fail(f"phase game_over, but nobody has checked all four tasks and round {r} is "
                  f"not the last (round_limit {game.round_limit})")
    elif in_round:
        # the checks of the round before this round's choosers checked off
        pre = checked[:]
        if phase == CHECK_OFF:
            for q, c in enumerate(chosen_v):
                if q != start and c is not None and c != SECRET:
                    pre[q] &= ~(1 << _TASK_IDS[c])
        for q in range(n):
            if pre[q].bit_count() == TASKS_PER_PLAYER:
                _fail(f"seat {q} had checked all four tasks before round {r}: the game "
                      f"would be over")
        state.checked = pre
        state.totals = [m.bit_count() for m in pre]
        state.start_round(r)
        _replay_round(game, state, view, seat, draft, trick_list, current, chosen_v, rng)

    # phase as the rules have it, then every key the view gives as to_view writes it
    if state.phase != phase:
        _fail(f"phase is {show(phase_name)}, but the rest of the view puts the game in "
              f"{show(PHASE_NAMES[state.phase])}")
    SCHEMA.check_derived(game, view, to_view(state, seat))
    return state


def _replay_round(game, state, view, seat, draft, trick_list, current, chosen_v, rng) -> None:
    """Replay the round's takes, choices and plays through the rules (each checked)."""
    n = state.num_players
    names = DECK.names
    for i, (first, cards, winner) in enumerate(draft):
        if state.phase != CARD_DRAFT:
            _fail(f"draft[{i}]: the card draft is over")
        if first != state.row_first(i):
            _fail(f"draft[{i}].first is {first}, but by the rules seat {state.row_first(i)} "
                  f"has first choice in row {i}")
        if i < len(draft) - 1 and winner is None:
            _fail(f"draft[{i}]: a finished row must have its announced winner")
        for c in cards:
            _step(state, game.TAKE0 + c, f"draft[{i}]: seat {state.current_player} taking "
                                         f"{names[c]}")
        if winner is not None and state.row_winners[i] != winner:
            _fail(f"draft[{i}]: the announced winner is seat {winner}, but under the trumps "
                  f"the row goes to seat {state.row_winners[i]}")
    if state.phase == CARD_DRAFT and len(draft) != state.draft_row + 1:
        _fail(f"draft must list the {state.draft_row} finished rows and the row being "
              f"drafted ({state.draft_row + 1} entries), got {len(draft)}")
    start = state.start
    if chosen_v[start] is not None:
        _fail(f"chosen[{start}] must be null: the start player chooses no task")
    if chosen_v[seat] == SECRET:
        _fail(f"chosen[{seat}]: a seat's own choice is never secret to it")
    revealed = view["phase"] in ("play", "check_off")
    while state.phase == TASK_CHOICE:
        p = state.current_player
        c = chosen_v[p]
        if c is None:
            break
        if c == SECRET:
            if revealed:
                _fail(f"chosen[{p}] cannot be secret in phase {view['phase']}: all choices "
                      f"are revealed")
            t = _pick(bit_list(state.held[p] & ~state.checked[p]), rng)
        else:
            if p != seat and not revealed:
                _fail(f"chosen[{p}] must be {show(SECRET)}: seat {seat} cannot see it before "
                      f"all have chosen")
            t = _TASK_IDS[c]
        _step(state, game.CHOOSE_TASK0 + t, f"seat {p} choosing {c}")
    for p, c in enumerate(chosen_v):
        if c is not None and state.chosen[p] < 0:
            _fail(f"chosen[{p}] is given, but seat {p} has not chosen yet by the rules "
                  f"(choices go clockwise from the start player's left)")
    plays = [(f"tricks[{i}]", leader, cards, winner, True)
             for i, (leader, cards, winner) in enumerate(trick_list)]
    if current is not None:
        plays.append(("trick", current[0], current[1], None, False))
    for where, leader, cards, winner, finished in plays:
        if state.phase != PLAY:
            _fail(f"{where}: no trick is played in phase {PHASE_NAMES[state.phase]}")
        if (leader is not None and leader != state.trick.leader) or state.trick.cards:
            _fail(f"{where}.leader is {leader}, but by the rules seat {state.trick.leader} "
                  f"leads this trick")
        if finished and len(cards) != n:
            _fail(f"{where}: a finished trick holds {n} cards, got {len(cards)}")
        if not finished and len(cards) >= n:
            _fail(f"{where}: the trick in progress holds {len(cards)} cards; at most {n - 1}")
        for c in cards:
            _step(state, game.PLAY0 + c, f"{where}: seat {state.current_player} playing "
                                         f"{names[c]}")
        if winner is not None and state.tricks[-1][2] != winner:
            _fail(f"{where}.winner is seat {winner}, but by the rules seat "
                  f"{state.tricks[-1][2]} wins it")
    if state.phase == PLAY and current is None:
        _fail("trick must be given in phase play (leader and the cards so far)")


__all__ = ["SCHEMA", "VIEW_KEYS", "action_from_label", "action_to_view", "from_view",
           "json_schema", "to_view"]
