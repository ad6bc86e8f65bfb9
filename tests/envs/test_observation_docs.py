"""The facts the env pages add to the observation pieces hold in the env (issue 32, item 7).

Each env docstring (``envs/<game>/env.py``, the docs' env pages) says what every
observation piece holds once the game is over, in which order the per-suit
pieces list the suits, and that ``reward_scale`` scales ``score`` rewards only;
Geheimtrumpf's says when ``tricks_won`` is set, Silberne Ananas' (and its player
view page) when ``no_joker`` is.  Here each of those sentences is checked
against the env; expectations come from the game's record and player view,
not from the encoder.
"""

from __future__ import annotations

import importlib
import random

import numpy as np
import pytest

from stichzoo import envs
from stichzoo.envs.geheimtrumpf.rules import TASK_NAMES
from stichzoo.envs.registry import display_of

GAMES = list(envs.GAMES)
#: short games for each test (quick, and each still ends)
SHORT = {"wizard": {"num_players": 4, "rounds": [2, 3]}, "wunder_punkt": {"rounds": 1},
         "silberne_ananas": {"match": False}, "hoch_tief": {"num_players": 3, "rounds": 1},
         "geheimtrumpf": {"num_players": 3}}
#: the pieces that list suits, per game: (piece, suits per row)
SUIT_PIECES = {"wizard": ("voids", 4), "wunder_punkt": ("sore_suits", 4),
               "silberne_ananas": ("voids", 4), "hoch_tief": ("voids", 5)}


def _raw(game: str, **extra):
    return envs.env_module(game).raw_env(**SHORT[game], **extra)


def _over(state) -> bool:
    return bool(state.over or state.truncated)


def _play(raw, seed: int, each=None) -> None:
    """A random legal game (its own RNG: the env's streams stay untouched); ``each(raw)``
    before every move."""
    rng = random.Random(seed)
    raw.reset(seed=seed)
    s = raw.state_
    while not _over(s):
        if each is not None:
            each(raw)
        raw.step(rng.choice(s.legal_actions()))


def _piece(raw, seat: int, name: str) -> np.ndarray:
    obs = raw.observe(f"player_{seat}")["observation"]
    return obs[raw.encoder.layout.slice(name)]


def _card(raw, name: str) -> int:
    """A card's id: the id of the action that plays it."""
    return raw.game.parse_action(name)


def _rows(raw, seat: int, name: str, width: int) -> np.ndarray:
    return _piece(raw, seat, name).reshape(raw.game.num_players, width)


def _cards_by_seat(raw, seat: int, per_abs: list[list[str]], width: int) -> np.ndarray:
    """Rows per relative seat with the bits of each absolute seat's named cards."""
    n = raw.game.num_players
    out = np.zeros((n, width), np.float32)
    for a, cards in enumerate(per_abs):
        for c in cards:
            out[(a - seat) % n, _card(raw, c)] = 1.0
    return out


def _one_hot(size: int, index: int) -> np.ndarray:
    out = np.zeros(size, np.float32)
    out[index] = 1.0
    return out


# -- after the game ----------------------------------------------------------------------


def _check_last_trick(raw, seat: int, width: int) -> None:
    """``trick_leader`` and ``current_trick`` hold the last trick of the record, complete."""
    n = raw.game.num_players
    last = raw.state_.log[-1]["tricks"][-1]
    assert len(last["cards"]) == n
    leader = _one_hot(n, (last["leader"] - seat) % n)
    assert np.array_equal(_piece(raw, seat, "trick_leader"), leader)
    want = _cards_by_seat(raw, seat, [[] for _ in range(n)], width)
    for c, s in zip(last["cards"], last["seats"]):
        want[(s - seat) % n, _card(raw, c)] = 1.0
    assert np.array_equal(_rows(raw, seat, "current_trick", width), want)


def _round_cards(raw) -> set[str]:
    return {c for t in raw.state_.log[-1]["tricks"] for c in t["cards"]}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [0, 1])
def test_after_the_game_every_piece_holds_what_the_docs_say(game, seed):
    raw = _raw(game)
    raw.reset(seed=seed)
    at_start = {p.name: _piece(raw, 0, p.name).copy() for p in raw.encoder.layout.pieces}
    _play(raw, seed)
    s = raw.state_
    n = raw.game.num_players
    last = s.log[-1]
    over = s.PHASE_NAMES.index("game_over")
    check = globals()[f"_after_{game}"]
    for seat in range(n):
        obs = raw.observe(f"player_{seat}")
        assert not obs["action_mask"].any()
        assert np.array_equal(_piece(raw, seat, "phase"), _one_hot(len(s.PHASE_NAMES), over))
        names = {p.name for p in raw.encoder.layout.pieces}
        if "hand" in names:
            assert not _piece(raw, seat, "hand").any()
        if "scores" in names:
            want = [s.totals[(seat + r) % n] / 100 for r in range(n)]
            assert np.allclose(_piece(raw, seat, "scores"), want)
        if "dealer" in names:
            assert np.array_equal(_piece(raw, seat, "dealer"),
                                  _one_hot(n, (last["dealer"] - seat) % n))
        check(raw, seat, last, at_start)


def _after_wizard(raw, seat, last, at_start):
    n, size, h1 = raw.game.num_players, 60, raw.game.max_hand + 1
    assert not _piece(raw, seat, "hand_size").any()
    assert _piece(raw, seat, "round_progress")[0] == 1.0
    _check_last_trick(raw, seat, size)
    played = np.zeros(size, np.float32)
    played[[_card(raw, c) for c in _round_cards(raw)]] = 1.0
    assert np.array_equal(_piece(raw, seat, "played"), played) and played.sum() == n * len(
        last["tricks"])
    bids, won = np.zeros((n, h1), np.float32), np.zeros((n, h1), np.float32)
    for b in last["bids"]:
        bids[(b["seat"] - seat) % n, b["bid"]] = 1.0
    for a, t in enumerate(last["tricks_won"]):
        won[(a - seat) % n, t] = 1.0
    assert np.array_equal(_rows(raw, seat, "bids", h1), bids)
    assert np.array_equal(_rows(raw, seat, "tricks_won", h1), won)
    trump = last["trump"]
    assert np.array_equal(_piece(raw, seat, "trump_suit"),
                          _one_hot(5, "BRGY".index(trump) if trump else 4))
    turned = last["trump_card"]
    assert np.array_equal(_piece(raw, seat, "trump_card"),
                          _one_hot(61, _card(raw, turned) if turned else 60))


def _after_wunder_punkt(raw, seat, last, at_start):
    n, size = raw.game.num_players, 52
    display = display_of("wunder_punkt")
    assert _piece(raw, seat, "round_progress")[0] == 1.0
    assert np.array_equal(_piece(raw, seat, "cards_in_play"), at_start["cards_in_play"])
    assert _piece(raw, seat, "picked").tolist() == [1.0] * n
    sore = last["sore_cards"]
    assert np.array_equal(_rows(raw, seat, "sore_cards", size),
                          _cards_by_seat(raw, seat, [[c] for c in sore], size))
    suits = np.zeros((n, 4), np.float32)
    keys = [x.key for x in display.suits]
    for a, c in enumerate(sore):
        suits[(a - seat) % n, keys.index(display.suit_of(c))] = 1.0
    assert np.array_equal(_rows(raw, seat, "sore_suits", 4), suits)
    assert np.array_equal(_rows(raw, seat, "won", size),
                          _cards_by_seat(raw, seat, last["won"], size))
    removed = _cards_by_seat(raw, seat, [last["removed"]], size)[(0 - seat) % n]
    assert np.array_equal(_piece(raw, seat, "removed"), removed)
    _check_last_trick(raw, seat, size)
    assert not _piece(raw, seat, "round_scores").any()


def _after_silberne_ananas(raw, seat, last, at_start):
    n, size = 3, 33
    assert _piece(raw, seat, "deal_progress")[0] == (last["deal"] + 1) / raw.game.max_deals
    assert _piece(raw, seat, "played").tolist() == [1.0] * size
    assert _piece(raw, seat, "no_joker").tolist() == [1.0] * n
    assert np.array_equal(_piece(raw, seat, "lead_suit"), _one_hot(5, 4))  # "none"
    won = np.zeros((n, 12), np.float32)
    for a, t in enumerate(last["tricks_won"]):
        won[(a - seat) % n, t] = 1.0
    assert np.array_equal(_rows(raw, seat, "tricks_won", 12), won)
    assert np.array_equal(_piece(raw, seat, "rules"), at_start["rules"])
    _check_last_trick(raw, seat, size)


def _after_hoch_tief(raw, seat, last, at_start):
    n = raw.game.num_players
    size = 15 * n
    assert _piece(raw, seat, "round_progress")[0] == 1.0
    assert _piece(raw, seat, "trick_progress")[0] == 1.0
    assert _piece(raw, seat, "played").tolist() == [1.0] * size  # every card of the round
    assert np.array_equal(_rows(raw, seat, "taken", size),
                          _cards_by_seat(raw, seat, last["taken"], size))
    view = importlib.import_module("stichzoo.envs.hoch_tief.view").to_view(raw.state_, seat)
    assert np.allclose(_piece(raw, seat, "taken_score"),
                       [view["taken_score"][(seat + r) % n] / 100 for r in range(n)])
    first = last["tricks"][-1]["cards"][0]
    assert np.array_equal(_piece(raw, seat, "led_suit"), _one_hot(5, "ABCDE".index(first[0])))
    _check_last_trick(raw, seat, size)


def _after_geheimtrumpf(raw, seat, last, at_start):
    s, n = raw.state_, raw.game.num_players
    assert np.array_equal(_piece(raw, seat, "start_player"), _one_hot(n, (s.start - seat) % n))
    assert _piece(raw, seat, "round_progress")[0] == (s.round_index + 1) / raw.game.round_limit
    view = importlib.import_module("stichzoo.envs.geheimtrumpf.view").to_view(s, seat)
    for piece, key in (("tasks_held", "tasks"), ("tasks_checked", "checked")):
        want = np.zeros((n, len(TASK_NAMES)), np.float32)
        for a, tasks in enumerate(view[key]):
            for t in tasks:
                want[(a - seat) % n, TASK_NAMES.index(t)] = 1.0
        assert np.array_equal(_rows(raw, seat, piece, len(TASK_NAMES)), want)
    kept = {"phase", "start_player", "round_progress", "tasks_held", "tasks_checked"}
    for p in raw.encoder.layout.pieces:
        if p.name not in kept:
            assert not _piece(raw, seat, p.name).any(), p.name


def test_a_geheimtrumpf_game_cut_off_at_its_round_limit_ends_the_same_way():
    """The docs: "every agent terminated, or truncated at round_limit"."""
    for seed in range(20):
        raw = _raw("geheimtrumpf", round_limit=2)
        _play(raw, seed)
        if raw.state_.truncated:
            break
    else:
        pytest.fail("no truncated game in 20 seeds")
    assert all(raw.truncations.values())
    for seat in range(3):
        _after_geheimtrumpf(raw, seat, raw.state_.log[-1], None)
        assert not raw.observe(f"player_{seat}")["action_mask"].any()


# -- suit order ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", list(SUIT_PIECES))
def test_suit_pieces_list_the_suits_in_the_displays_order(game):
    """Row k of ``voids`` / ``sore_suits`` is the display's k-th suit: the player view's
    suit letters, put in the display's order, give the piece bit for bit."""
    piece, width = SUIT_PIECES[game]
    keys = [x.key for x in display_of(game).suits][:width]
    view_of = importlib.import_module(f"stichzoo.envs.{game}.view").to_view
    key = "voids" if piece == "voids" else "sore_suits"
    seen = []

    def check(raw):
        s = raw.state_
        n = raw.game.num_players
        for seat in range(n):
            view = view_of(s, seat)
            want = np.zeros((n, width), np.float32)
            for a, suits in enumerate(view[key]):
                for suit in ([suits] if isinstance(suits, str) else suits or []):
                    want[(a - seat) % n, keys.index(suit)] = 1.0
            got = _rows(raw, seat, piece, width)
            assert np.array_equal(got, want), (seat, view[key], got)
            seen.append(want.sum())

    for seed in range(2):
        _play(_raw(game), seed, check)
    assert max(seen) > 0  # some suit was shown


#: the piece naming the suit to follow, and what it holds when there is none
FOLLOW = {"silberne_ananas": ("lead_suit", _one_hot(5, 4)),  # the "none" slot
          "hoch_tief": ("led_suit", np.zeros(5, np.float32))}  # zero before the lead


@pytest.mark.parametrize("game", list(FOLLOW))
def test_the_suit_to_follow_in_the_displays_order(game):
    piece, none = FOLLOW[game]
    keys = [x.key for x in display_of(game).suits]
    view_of = importlib.import_module(f"stichzoo.envs.{game}.view").to_view
    led = []

    def check(raw):
        view = view_of(raw.state_, 0)
        got = _piece(raw, 0, piece)
        if view[piece] is None:
            assert np.array_equal(got, none)
        else:
            assert np.array_equal(got, _one_hot(5, keys.index(view[piece])))
            led.append(view[piece])

    _play(_raw(game), 3, check)
    assert len(set(led)) > 1


def test_geheimtrumpf_trump_suit_in_the_displays_order():
    keys = [x.key for x in display_of("geheimtrumpf").suits]
    view_of = importlib.import_module("stichzoo.envs.geheimtrumpf.view").to_view
    known = []

    def check(raw):
        s = raw.state_
        trumps = view_of(s, s.current_player)["trumps"]
        got = _piece(raw, s.current_player, "trump_suit")
        if trumps is None:
            assert not got.any()
        else:
            want = keys.index(trumps["suit"]) if trumps["suit"] else 4
            assert np.array_equal(got, _one_hot(5, want))
            known.append(trumps["suit"])

    _play(_raw("geheimtrumpf"), 0, check)
    assert any(known)


# -- Geheimtrumpf's tricks_won -----------------------------------------------------------------


def test_geheimtrumpf_tricks_won_before_the_first_trick():
    """One-hot from the play phase on (0 for everybody before the first trick is taken),
    all zero in the drafts and the task choice."""
    phases, fresh = set(), []

    def check(raw):
        s = raw.state_
        n = raw.game.num_players
        phase = s.PHASE_NAMES[s.phase]
        phases.add(phase)
        for seat in range(n):
            got = _rows(raw, seat, "tricks_won", 10)
            if phase in ("play", "check_off"):
                want = np.zeros((n, 10), np.float32)
                for a in range(n):
                    want[(a - seat) % n, s.tricks_won[a]] = 1.0
                assert np.array_equal(got, want)
                if phase == "play" and not s.tricks:  # before the round's first trick
                    assert got[:, 0].tolist() == [1.0] * n
                    fresh.append(seat)
            else:
                assert not got.any(), phase

    _play(_raw("geheimtrumpf"), 1, check)
    assert {"task_draft", "card_draft", "play"} <= phases and fresh


# -- reward_scale ------------------------------------------------------------------------------


def _rewards(game: str, mode: str, scale: float, seed: int) -> list[dict]:
    raw = _raw(game, reward=mode, reward_scale=scale)
    out: list[dict] = []
    _play(raw, seed, lambda r: out.append(dict(r.rewards)))
    out.append(dict(raw.rewards))
    return out


@pytest.mark.parametrize(("game", "mode"), [*[(g, "win") for g in GAMES],
                                            ("silberne_ananas", "standing")])
def test_reward_scale_scales_score_rewards_only(game, mode):
    seed = 4
    plain = _rewards(game, mode, 1.0, seed)
    assert plain == _rewards(game, mode, 0.25, seed)  # win and standing: unscaled
    assert any(any(x.values()) for x in plain)
    score, scaled = _rewards(game, "score", 1.0, seed), _rewards(game, "score", 0.25, seed)
    assert [{a: r * 0.25 for a, r in x.items()} for x in score] == scaled
    assert any(any(x.values()) for x in score)


# -- Silberne Ananas' no_joker in the player view --------------------------------------------------


def test_no_joker_in_the_player_view_is_set_when_the_jokers_trick_is_taken():
    """docs/views/silberne_ananas.md: true once the Joker's trick has been taken."""
    from stichzoo.envs.silberne_ananas.view import to_view

    raw = _raw("silberne_ananas")
    raw.reset(seed=11)
    s, rng = raw.state_, random.Random(11)
    while s.PHASE_NAMES[s.phase] != "give_trick":
        raw.step(rng.choice(s.legal_actions()))
    giver = s.current_player
    assert "Joker" in to_view(s, giver)["played"]
    assert to_view(s, giver)["no_joker"][giver] is False  # it played the Joker
    raw.step(s.legal_actions()[0])
    assert all(to_view(s, seat)["no_joker"] == [True] * 3 for seat in range(3))
