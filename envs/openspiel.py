"""The five games as OpenSpiel games: ``pyspiel`` Python games over our rules cores.

    import pyspiel
    import stichzoo.envs.openspiel  # registers stichzoo_wizard, stichzoo_wunder_punkt, ...
    game = pyspiel.load_game("stichzoo_wizard", {"num_players": 3, "rounds": "1,2"})

This module is the only place that imports ``pyspiel`` (the ``openspiel``
extra); the PettingZoo envs never do.  It is an adapter, not a second
implementation: every rule (legal actions, dealing, trick winners, scores,
the end of the game) is the rules core's (``envs/<game>/rules.py``), every
observation is the game's encoder's (``envs/<game>/encode.py``), every reward
is ``envs/core/rewards.py``'s, exactly as the AEC env uses them.

Chance.  A rules core draws all its randomness up front, as one deck order
per round (``Game.deal``), and reads each order only when it deals that round.
Here those draws are OpenSpiel chance nodes at the start of the game, one per
deck position the rules read (:data:`DEALS` names them per game), each a
uniform draw of a card among those still in that pile; positions the rules
never read are filled in card-id order (a forced last card is filled too, not
asked).  Players learn a round's cards only when the rules deal it, through
their observations.

Information.  ``observation_tensor`` is the env's ``observation`` (our
encoder's vector; the policies' input); ``observation_string`` names its set
entries piece by piece.  ``information_state_string`` is perfect recall, as
OpenSpiel's tabular algorithms (CFR, IS-MCTS's tree) need: the observation
string plus a digest of the seat's whole sequence of observations (one entry
each time its observation changed), so two histories the seat can tell apart
never share it.  ``information_state_tensor`` is the observation vector (fixed
size, not perfect recall across tricks and rounds: it forgets in what order
earlier cards fell).

Rewards.  Game parameters ``reward`` (``score``, ``win``, ``standing``, ``margin``) and
``reward_scale`` pick the env's reward; ``rewards()`` is what the last action
paid each seat (a round's end pays), ``returns()`` their sum.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from typing import Any

import numpy as np
import pyspiel

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import Game, GameState
from stichzoo.envs.core.observation import Layout
from stichzoo.envs.core.rewards import check_reward_args, step_rewards
from stichzoo.envs.geheimtrumpf.rules import DECK_SIZE, NUM_CARDS, ROW_LEN, ROWS, VALUE_STACK0
from stichzoo.envs.registry import GAMES, env_module, game_class

PREFIX = "stichzoo_"
#: OpenSpiel short names of the registered games
SHORT_NAMES = tuple(PREFIX + name for name in GAMES)


# -- the deal: which deck positions the rules read -------------------------------------


@dataclass(frozen=True)
class Pile:
    """One pile of a deck order: the positions it fills, its cards, the positions read.

    The rules check each pile's cards lie in its ``slots``; only the ``read``
    positions (in dealing order) are chance nodes, the rest is filled in
    card-id order.
    """

    slots: tuple[int, ...]
    cards: tuple[int, ...]
    read: tuple[int, ...]


def _whole(cards, read: int) -> list[Pile]:
    """A deck order that is one pile, dealt from the top: ``read`` positions are read."""
    cards = tuple(cards)
    return [Pile(tuple(range(len(cards))), cards, tuple(range(read)))]


def _wizard(g) -> list[list[Pile]]:
    # start_round: n * r cards dealt, then the card turned for trump (none in the last round)
    n, size = g.num_players, g.deck.size
    return [_whole(range(size), min(n * r + 1, size)) for r in g.round_sizes]


def _all_dealt(cards_of: Callable[[Any], Any], rounds_of: Callable[[Any], int]):
    """A game that deals every card of its deck order each round."""
    def plan(g) -> list[list[Pile]]:
        cards = tuple(cards_of(g))
        return [_whole(cards, len(cards)) for _ in range(rounds_of(g))]
    return plan


def _geheimtrumpf(g) -> list[list[Pile]]:
    # start_round: row i is order[4i : 4i + n] (with 3 players the 4th card lies face down,
    # unread); the trumps are the bottom cards of the suit stack and of the value stack
    n = g.num_players
    rows = tuple(i * ROW_LEN + j for i in range(ROWS) for j in range(n))
    numbers = tuple(range(NUM_CARDS))
    suits = tuple(range(NUM_CARDS, VALUE_STACK0))
    values = tuple(range(VALUE_STACK0, DECK_SIZE))
    piles = [Pile(numbers, numbers, rows), Pile(suits, suits, (suits[-1],)),
             Pile(values, values, (values[-1],))]
    return [piles for _ in range(g.round_limit)]


#: per game: the piles of each of its deck orders (``Game.deal``'s list), and what is read
DEALS: dict[str, Callable[[Game], list[list[Pile]]]] = {
    "wizard": _wizard,
    "wunder_punkt": _all_dealt(lambda g: g.used_list, lambda g: g.num_rounds),
    "silberne_ananas": _all_dealt(lambda g: range(g.deck.size), lambda g: g.max_deals),
    "hoch_tief": _all_dealt(lambda g: range(g.lookups.size), lambda g: g.num_rounds),
    "geheimtrumpf": _geheimtrumpf,
}


@dataclass(frozen=True)
class Draw:
    """One chance node: deck order ``order``, position ``position``, from pile ``pile``."""

    order: int
    pile: int
    position: int


class Deal:
    """The chance nodes of one game: every read position of every deck order, in order."""

    def __init__(self, plan: list[list[Pile]]):
        self.plan = plan
        self.draws = [Draw(o, p, pos) for o, piles in enumerate(plan)
                      for p, pile in enumerate(piles) for pos in pile.read]
        self.sizes = [sum(len(p.slots) for p in piles) for piles in plan]

    def fresh(self) -> list[list[list[int]]]:
        """Per deck order and pile, the cards not yet drawn (card-id order)."""
        return [[sorted(p.cards) for p in piles] for piles in self.plan]

    def orders(self, drawn: dict[tuple[int, int], int],
               left: list[list[list[int]]]) -> list[list[int]]:
        """The deck orders: drawn cards where drawn, each pile's rest in card-id order."""
        out = []
        for o, piles in enumerate(self.plan):
            order = [-1] * self.sizes[o]
            for p, pile in enumerate(piles):
                rest = iter(left[o][p])
                for pos in pile.slots:
                    card = drawn.get((o, pos))
                    order[pos] = next(rest) if card is None else card
            out.append(order)
        return out


# -- parameters: the game's options, and the env's reward arguments ----------------------


def _is_list(f) -> bool:
    return "tuple" in str(f.type) or "list" in str(f.type)


def _option_specs(name: str) -> dict[str, Any]:
    """OpenSpiel parameter defaults from the options dataclass.

    OpenSpiel parameters are ints, floats, bools and strings, so an option
    whose default is None becomes ``0`` (an int option: 0 is the rules'
    default) or ``""`` (a list option, written ``"[1;2;3]"``).
    """
    specs: dict[str, Any] = {}
    for f in fields(game_class(name).Options):
        default = f.default if f.default is not MISSING else None
        if default is None:
            default = "" if _is_list(f) else 0
        specs[f.name] = default
    specs["reward"] = "score"
    specs["reward_scale"] = 1.0
    return specs


def _list_param(value: Any) -> str:
    """A list option as OpenSpiel keeps it: ``"[1;2]"`` (a bare "1" would read back as an int)."""
    if isinstance(value, (list, tuple)):
        value = ";".join(str(v) for v in value)
    text = str(value).strip().strip("[]").replace(",", ";")
    return f"[{text}]" if text else ""


def _options(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The rules options from OpenSpiel parameters (0 or "" is the rules' default, None)."""
    out = {}
    for f in fields(game_class(name).Options):
        if f.name not in params:
            continue
        value = params[f.name]
        if f.default is None:
            if _is_list(f):
                text = _list_param(value).strip("[]")
                value = [int(v) for v in text.split(";")] if text else None
            elif value == 0:
                value = None
        out[f.name] = value
    return out


def _player_range(name: str) -> tuple[int, int]:
    """The player counts the rules accept (asked of the options, not restated here)."""
    ok = []
    for n in range(1, 11):
        try:
            game_class(name).Options(num_players=n)
        except ValueError:
            continue
        ok.append(n)
    return min(ok), max(ok)


# -- the game and its states ------------------------------------------------------------


class Setup:
    """One game under fixed parameters: the rules core, its encoder, the deal, the reward.

    Kept apart from the ``pyspiel.Game`` object (and shared by all its states)
    because OpenSpiel rebuilds games from their strings when it deserializes,
    without the Python attributes of the original.
    """

    def __init__(self, name: str, params: dict[str, Any]):
        cls = game_class(name)
        self.name = name
        self.reward_mode = str(params["reward"])
        self.reward_scale = float(params["reward_scale"])
        check_reward_args(cls, self.reward_mode, self.reward_scale)
        self.rules: Game = cls(cls.Options(**_options(name, params)))
        self.encoder = env_module(name).raw_env.encoder_cls(self.rules)
        self.layout: Layout = self.encoder.layout
        self.deal = Deal(DEALS[name](self.rules))
        self.key = ""  # the game's string, set once OpenSpiel made the game

    def __reduce__(self):
        return (setup_of_string, (self.key,))


_SETUPS: dict[str, Setup] = {}


def setup_of_string(key: str) -> Setup:
    """The setup of the game whose OpenSpiel string is ``key`` (loading it if need be)."""
    if key not in _SETUPS:
        pyspiel.load_game(key)  # its __init__ files the setup
    return _SETUPS[key]


def setup_of(game: pyspiel.Game) -> Setup:
    return setup_of_string(str(game))


def _game_params(name: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """Every parameter, defaults filled in, list options in OpenSpiel's ``[1;2]`` form."""
    params = {**_option_specs(name), **(params or {})}
    for f in fields(game_class(name).Options):
        if f.default is None and _is_list(f):
            params[f.name] = _list_param(params[f.name])
    return params


class StichzooGame(pyspiel.Game):
    """One of our games under fixed options, as an OpenSpiel game."""

    name: str  # set per game by :func:`_register`
    game_type: pyspiel.GameType

    def __init__(self, params: dict[str, Any] | None = None):
        params = _game_params(self.name, params)
        setup = Setup(self.name, params)
        deal, rules = setup.deal, setup.rules
        n = rules.num_players
        chance = len(deal.draws)
        dealt = sum(len(p.read) for piles in deal.plan for p in piles)
        # a generous bound on decisions: each dealt card taken and played, plus a few
        # decisions per seat and round (bids, picks, task choices), plus a task draft
        decisions = 2 * dealt + (n + 1) * len(deal.plan) + 4 * n
        score = setup.reward_mode in ("score", "margin")
        info = pyspiel.GameInfo(
            num_distinct_actions=rules.num_actions,
            max_chance_outcomes=max(c for piles in deal.plan for p in piles
                                    for c in p.cards) + 1,
            num_players=n,
            # score totals and margins have no bound OpenSpiel needs; win and standing pay
            # within +-1 (one game type, general-sum, for every reward mode: no utility_sum)
            min_utility=-1e9 if score else -1.0,
            max_utility=1e9 if score else 1.0,
            utility_sum=None,
            max_game_length=chance + decisions)
        super().__init__(self.game_type, info, params)
        setup.key = str(self)
        _SETUPS.setdefault(setup.key, setup)

    def new_initial_state(self) -> StichzooState:
        return StichzooState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> Observer:
        if params:
            raise ValueError(f"{self}: observer parameters are not supported; got {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return Observer(setup_of(self), perfect_recall=recall)


class Table:
    """Everything a state holds besides OpenSpiel's history: the deal so far, then the rules.

    OpenSpiel clones a Python state by deep-copying each attribute; a state
    keeps all of its own in this one object, whose copy is the rules core's
    cheap ``clone`` (the game and the deal plan are shared, never copied).
    """

    __slots__ = ("digests", "drawn", "left", "mark", "next_draw", "pending", "returns",
                 "rewards", "rules", "seen", "setup")

    def __init__(self, setup: Setup):
        n = setup.rules.num_players
        self.setup = setup
        self.rules: GameState | None = None
        self.next_draw = 0
        self.drawn: dict[tuple[int, int], int] = {}
        self.left: list[list[list[int]]] | None = setup.deal.fresh()
        self.rewards = [0.0] * n
        self.returns = [0.0] * n
        # Perfect recall, kept lazily: ``digests`` sum up each seat's observation sequence
        # up to the rules state ``mark``; ``pending`` holds the actions since, newest first
        # as ``(action, rest)`` pairs, shared between copies.  Random play and search that
        # never ask for an information state never encode an observation.
        self.seen: list[bytes] = [b""] * n  # each seat's observation at ``mark``
        self.digests: list[bytes] = [b""] * n
        self.mark: GameState | None = None
        self.pending: tuple | None = None
        self.fill_forced()

    def __deepcopy__(self, memo) -> Table:
        c = Table.__new__(Table)
        c.setup = self.setup
        c.rules = self.rules.clone() if self.rules is not None else None
        c.next_draw = self.next_draw
        c.drawn = dict(self.drawn)
        c.left = None if self.left is None else [[p[:] for p in o] for o in self.left]
        c.rewards = self.rewards[:]
        c.returns = self.returns[:]
        c.seen = self.seen[:]
        c.digests = self.digests[:]
        c.mark = self.mark  # never changed: shared
        c.pending = self.pending
        return c

    def __getstate__(self):
        if self.rules is not None:
            self.recall(0)  # brings ``mark`` up to date: no chain of pending actions to pickle
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, state) -> None:  # the setup comes back by its game string
        for k, v in state.items():
            setattr(self, k, v)

    # -- chance ------------------------------------------------------------------

    def chance_outcomes(self) -> list[tuple[int, float]]:
        d = self.setup.deal.draws[self.next_draw]
        left = self.left[d.order][d.pile]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def draw(self, card: int) -> None:
        d = self.setup.deal.draws[self.next_draw]
        if card not in self.left[d.order][d.pile]:
            raise ValueError(f"{self.setup.key}: card {card} cannot be dealt here; "
                             f"the chance outcomes are {self.chance_outcomes()}")
        self._take(d, card)
        self.fill_forced()

    def _take(self, d: Draw, card: int) -> None:
        self.left[d.order][d.pile].remove(card)
        self.drawn[(d.order, d.position)] = card
        self.next_draw += 1

    def fill_forced(self) -> None:
        """Fill draws with a single card left without asking; deal once all are drawn."""
        draws = self.setup.deal.draws
        while self.next_draw < len(draws):
            d = draws[self.next_draw]
            left = self.left[d.order][d.pile]
            if len(left) > 1:
                return
            self._take(d, left[0])
        g = self.setup
        self.rules = g.rules.new_state(g.deal.orders(self.drawn, self.left))
        self.left = None
        self.mark = self.rules.clone()
        self._observe(self.mark)

    # -- decisions -----------------------------------------------------------------

    def play(self, action: int) -> None:
        g = self.setup
        self.rules.step(action)  # the rules check it; an illegal action changes nothing
        gains = step_rewards(self.rules, g.reward_mode, g.reward_scale)
        n = len(self.rewards)
        self.rewards = [float(x) for x in gains] if gains is not None else [0.0] * n
        self.returns = [r + x for r, x in zip(self.returns, self.rewards)]
        self.pending = (action, self.pending)

    def recall(self, seat: int) -> bytes:
        """A digest of ``seat``'s whole sequence of observations (one entry per change)."""
        if self.pending is not None:
            actions = []
            link = self.pending
            while link is not None:
                actions.append(link[0])
                link = link[1]
            state = self.mark.clone()
            for action in reversed(actions):
                state.apply(action)  # checked when it was played
                self._observe(state)
            self.mark = state
            self.pending = None
        return self.digests[seat]

    def _observe(self, state: GameState) -> None:
        """Extend each seat's observation sequence by what it sees in ``state`` (if changed)."""
        buf = np.zeros(self.setup.layout.size, np.float32)
        encode = self.setup.encoder.encode
        for seat in range(len(self.seen)):
            encode(state, seat, buf)
            seen = buf.tobytes()
            if seen != self.seen[seat]:
                self.seen[seat] = seen
                self.digests[seat] = hashlib.blake2b(self.digests[seat] + seen,
                                                     digest_size=16).digest()


class StichzooState(pyspiel.State):
    """A game in progress: the deal's chance nodes, then the rules state (:class:`Table`)."""

    def __init__(self, game: StichzooGame):
        super().__init__(game)
        self.table = Table(setup_of(game))

    @property
    def rules(self) -> GameState | None:
        """The rules core's state; None while the deal is being drawn."""
        return self.table.rules

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.table.chance_outcomes()

    def current_player(self) -> int:
        s = self.table.rules
        if s is None:
            return pyspiel.PlayerId.CHANCE
        if s.over or s.truncated:
            return pyspiel.PlayerId.TERMINAL
        return s.current_player

    def _legal_actions(self, player: int) -> list[int]:
        s = self.table.rules
        if s is None or player != s.current_player:
            return []
        return bit_list(s.legal_mask())

    def _apply_action(self, action: int) -> None:
        if self.table.rules is None:
            self.table.draw(int(action))
        else:
            self.table.play(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        rules = self.table.setup.rules
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {rules.deck.names[action]}"
        return rules.action_label(action)

    def is_terminal(self) -> bool:
        s = self.table.rules
        return s is not None and (s.over or s.truncated)

    def rewards(self) -> list[float]:
        return list(self.table.rewards)

    def returns(self) -> list[float]:
        return list(self.table.returns)

    def __str__(self) -> str:
        t = self.table
        if t.rules is None:
            return f"dealing: {t.next_draw} of {len(t.setup.deal.draws)} cards drawn"
        return t.setup.encoder.render(t.rules, max(t.rules.current_player, 0), True)

    # -- IS-MCTS: a world consistent with what ``player`` knows ---------------------

    def resample_from_infostate(self, player: int, sampler) -> StichzooState:
        """A state ``player`` cannot tell from this one, by the rules' own ``determinize``.

        The hidden cards (and hidden choices) are re-drawn by the rules core,
        uniformly among those consistent with the seat's view; the new state
        replays that world's deal and history through the chance nodes and
        decisions, so it is a state of a real game.
        """
        t = self.table
        g = t.setup
        if t.rules is None:  # nothing is known yet: the deal so far is public
            cards = [t.drawn[(d.order, d.position)] for d in g.deal.draws[:t.next_draw]]
            return replay(self.get_game(), cards, [])
        world = g.rules.determinize(t.rules, player, random.Random(int(sampler() * 2**52)))
        orders = world.deck_orders
        cards = [orders[d.order][d.position] for d in g.deal.draws]
        return replay(self.get_game(), cards, [a for _, a in world.history])


def replay(game: pyspiel.Game, cards: list[int], actions: list[int]) -> StichzooState:
    """The state after dealing ``cards`` (one per chance draw, forced ones included) and
    playing ``actions``."""
    state = game.new_initial_state()
    t = state.table
    while t.rules is None and t.next_draw < len(cards):
        state.apply_action(cards[t.next_draw])
    for a in actions:
        state.apply_action(a)
    return state


class Observer:
    """OpenSpiel's observer protocol over our encoder (``tensor``, ``dict``, ``set_from``...)."""

    def __init__(self, setup: Setup, perfect_recall: bool):
        self.layout = setup.layout
        self.encoder = setup.encoder
        self.perfect_recall = perfect_recall
        self.starts = piece_starts(self.layout)
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = {p.name: self.tensor[self.layout.slice(p.name)] for p in self.layout.pieces}

    def set_from(self, state: StichzooState, player: int) -> None:
        if state.table.rules is None:
            self.tensor.fill(0.0)
        else:
            self.encoder.encode(state.table.rules, player, self.tensor)

    def string_from(self, state: StichzooState, player: int) -> str:
        t = state.table
        if t.rules is None:
            return f"p{player} dealing {t.next_draw}"
        self.set_from(state, player)
        text = f"p{player} " + describe(self.layout, self.tensor, self.starts)
        if self.perfect_recall:
            text += f" | recall {t.recall(player).hex()}"
        return text


def describe(layout: Layout, obs: np.ndarray, starts: np.ndarray | None = None) -> str:
    """An observation as text: per piece its set entries (``index`` or ``index=value``).

    ``starts``: each piece's offset in order (:func:`piece_starts`), if already at hand.
    """
    idx = np.flatnonzero(obs)
    starts = piece_starts(layout) if starts is None else starts
    pieces = np.searchsorted(starts, idx, side="right") - 1
    names = layout.pieces
    parts: list[str] = []
    last = -1
    for i, p, v in zip(idx.tolist(), pieces.tolist(), obs[idx].tolist()):
        i -= starts[p]
        entry = str(i) if v == 1.0 else f"{i}={v:g}"
        if p == last:
            parts[-1] += "," + entry
        else:
            parts.append(f"{names[p].name}:{entry}")
            last = p
    return " ".join(parts)


def piece_starts(layout: Layout) -> np.ndarray:
    """The offset of each piece of ``layout``, in order."""
    return np.array([layout.offsets[p.name] for p in layout.pieces])


# -- registration ----------------------------------------------------------------------


def _register(name: str) -> type[StichzooGame]:
    lo, hi = _player_range(name)
    game_type = pyspiel.GameType(
        short_name=PREFIX + name,
        long_name=f"stichzoo {name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_option_specs(name))
    cls = type(f"{name.title().replace('_', '')}Game", (StichzooGame,),
               {"name": name, "game_type": game_type, "__doc__": f"{name} as an OpenSpiel game."})
    cls.__module__ = __name__
    globals()[cls.__name__] = cls  # pickling finds the class by name
    pyspiel.register_game(game_type, cls)
    return cls


GAME_CLASSES: dict[str, type[StichzooGame]] = {name: _register(name) for name in GAMES}


def load(name: str, **params: Any) -> StichzooGame:
    """``pyspiel.load_game`` of one of our games by its stichzoo name, e.g. ``load("wizard")``."""
    return pyspiel.load_game(PREFIX + name, params)
