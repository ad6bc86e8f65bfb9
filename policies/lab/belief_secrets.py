"""Geheimtrumpf's belief model: the secrets a seat cannot see, learned from self-play (issue 29).

Geheimtrumpf hides no cards that matter: drafted cards lie face up, every
hand is public.  What a seat cannot see is two categorical secrets:

- during the card draft, for everyone but the start player, **the trumps**:
  one (suit, value) draw of 5 x 10, equally likely a priori, restricted to
  those that agree with every announced row winner (``consistent_trumps``).
  The start player knows them and drafts by them, so its picks say
  something about them - the one thing a model can learn here;
- during the task choice, **the other seats' secret choices**: each seat
  that has chosen picked one of its unchecked tasks.

(With 3 players which face-down card lay in which row, and the future
deals, stay uniform: nobody's play depends on them.)  So the card-by-location
model of ``policies/lab/belief.py`` and its walk do not fit; this model is
categorical: a 50-way trump head masked to the consistent draws, and per
other seat an 11-way task head masked to its unchecked tasks.  The **uniform
sampler** it is measured against is uniform over those allowed values -
exactly what ``Geheimtrumpf.determinize`` draws without a model.

**The features** (:meth:`GeheimtrumpfBelief.features`, all public): a small
context (the start player's relative seat, the phase, the rows drafted, the
start player's picks, how many draws are still consistent, the start
player's open tasks, each other seat's open-task count); per trump draw
``d`` how the start player's picks look *if* ``d`` were the trumps (their
trick chance and last-trick chance against the other cards it could have
taken, how often it took the strongest or the weakest, its hand's strength
and trump count - ``envs/geheimtrumpf/chances.py``'s static estimates); and
per other seat and task its estimated chance to meet the task with its
public hand and the now public trumps (``steering.task_chances``), against
its best open task.  A network over the whole observation would have to
learn all of this from a few thousand rounds; the draw and task features
are the same evidence, read for it, and shared weights score every draw
and every task alike.

**The model** (:class:`SecretsModel`, numpy only; trained with torch by
``python -m stichzoo.training.lab fit belief geheimtrumpf``, ``training/lab/belief.py``): an
MLP (ReLU) of the context; per draw one ReLU layer of the context and the draw's
features, then a logit plus a learned bias per draw; the same for each
(seat, task) with its own weights and a bias per task.  The draw is
``p ** temper`` renormalised over the allowed values (``temper=0``: the
uniform sampler).

**In the search** (``pimc:belief=geheimtrumpf``): :class:`SecretsInference`
draws the trumps and task choices from the model (``draft``) and hands them
to ``Geheimtrumpf.determinize`` (``finish``), which keeps every hard
constraint and draws the rest as always.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import NamedTuple

import numpy as np

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import Game, GameState
from stichzoo.envs.geheimtrumpf.chances import CARD_CHANCES
from stichzoo.envs.geheimtrumpf.reading import draw_index
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    NUM_CARDS,
    NUM_TASKS,
    ROWS,
    TASK_CHOICE,
    TASKS_PER_PLAYER,
    TRUMPS,
    consistent_trumps,
)
from stichzoo.envs.geheimtrumpf.steering import task_chances
from stichzoo.policies.lab.belief_model import ModelInference, SavedModel, bundled

#: the 50 trump draws (suit -1..3, value 0..9), in ``draw_index`` order
DRAWS: tuple[tuple[int, int], ...] = tuple(TRUMPS)
assert all(draw_index(*key) == i for i, key in enumerate(DRAWS))
#: per draw and card: the static chance to win a trick, and the last trick (chances.py)
_WIN = np.array([CARD_CHANCES[key][0] for key in DRAWS], np.float32)
_LAST = np.array([CARD_CHANCES[key][1] for key in DRAWS], np.float32)
#: per draw and card: a trump or not
_TRUMP = np.array([[float(TRUMPS[key].mask >> c & 1) for c in range(NUM_CARDS)]
                   for key in DRAWS], np.float32)
#: per draw: its trump count / 36
_TRUMP_COUNT = _TRUMP.sum(axis=1) / NUM_CARDS
DRAW_FEATURES = 8
TASK_FEATURES = 5


class Secrets(NamedTuple):
    """What a seat cannot see, as the allowed values of each secret.

    ``draws``: the trump draws (``draw_index``) still possible, ascending -
    empty where the seat knows the trumps; ``tasks``: per other seat
    (relative 1..n-1) the tasks its hidden choice may be - empty where there
    is no hidden choice (not chosen yet, the start player, or revealed).
    """

    draws: list[int]
    tasks: list[list[int]]

    def empty(self) -> bool:
        return not self.draws and not any(self.tasks)


class GeheimtrumpfBelief:
    """Geheimtrumpf's side of a belief model: the features, the secrets, the truth, the world."""

    categorical = True  # training/lab/belief.py: the categorical heads, not the card walk

    def __init__(self, game: Game):
        self.game = game
        self.n = n = game.num_players
        self.context_size = 2 * n + 15
        self.size = self.context_size + len(DRAWS) * DRAW_FEATURES + (
            (n - 1) * NUM_TASKS * TASK_FEATURES)

    # -- what is hidden --------------------------------------------------------------

    def hidden(self, state: GameState, seat: int) -> Secrets:
        """The allowed values of each secret ``seat`` cannot see (as ``determinize`` draws)."""
        s, n = state, self.n
        draws = []
        if s.phase == CARD_DRAFT and seat != s.start:
            draws = [draw_index(*key) for key in consistent_trumps(s)]
        tasks = []
        for rel in range(1, n):
            p = (seat + rel) % n
            hidden = s.phase == TASK_CHOICE and p != s.start and s.chosen[p] >= 0
            tasks.append(bit_list(s.held[p] & ~s.checked[p]) if hidden else [])
        return Secrets(draws, tasks)

    def truth(self, state: GameState, seat: int, secrets: Secrets) -> tuple[int, list[int]]:
        """The true draw (-1 where not hidden) and per other seat its true choice (-1 alike)."""
        draw = draw_index(state.trumps.suit, state.trumps.value) if secrets.draws else -1
        tasks = [state.chosen[(seat + rel) % self.n] if secrets.tasks[rel - 1] else -1
                 for rel in range(1, self.n)]
        return draw, tasks

    def stage(self, state: GameState) -> str:
        """draft (the trumps are hidden), task choice (choices are)."""
        return "draft" if state.phase == CARD_DRAFT else "task choice"

    def view_key(self, state: GameState, seat: int) -> tuple:
        """Everything the features depend on, for caching (nothing hidden: not the history,
        which holds the secret task choices)."""
        s = state
        return (seat, s.round_index, s.phase, s.start, len(s.history), tuple(s.draft_rows),
                tuple(s.row_cards), tuple(s.hands), tuple(s.held), tuple(s.checked))

    # -- the features ---------------------------------------------------------------

    def start_picks(self, state: GameState) -> list[tuple[int, list[int]]]:
        """The start player's picks this round: per row it has taken from, the card and the
        cards it could have taken (those still face up when it chose)."""
        s, n = state, self.n
        out = []
        for r, cards in enumerate(s.draft_rows):
            pos = (s.start - s.row_first(r)) % n
            out.append((cards[pos], list(cards[pos:])))
        r = len(s.draft_rows)
        if s.phase == CARD_DRAFT and r < ROWS:
            pos = (s.start - s.row_first(r)) % n
            if len(s.row_cards) > pos:
                out.append((s.row_cards[pos],
                            list(s.row_cards[pos:]) + bit_list(s.rows[r] & s.layout)))
        return out

    def features(self, state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """Context, then per draw (50 x 8), then per other seat and task (n-1 x 11 x 5)."""
        s, n = state, self.n
        if out is None:
            out = np.zeros(self.size, np.float32)
        out[:] = 0.0
        c = self.context_size
        ctx = out[:c]
        draws = out[c:c + len(DRAWS) * DRAW_FEATURES].reshape(len(DRAWS), DRAW_FEATURES)
        tasks = out[c + len(DRAWS) * DRAW_FEATURES:].reshape(n - 1, NUM_TASKS, TASK_FEATURES)
        ctx[(s.start - seat) % n] = 1.0
        ctx[n] = float(s.phase == CARD_DRAFT)
        ctx[n + 1] = float(s.phase == TASK_CHOICE)
        if s.phase not in (CARD_DRAFT, TASK_CHOICE):
            return out
        picks = self.start_picks(s)
        ctx[n + 2] = len(s.draft_rows) / ROWS
        ctx[n + 3] = len(picks) / ROWS
        for t in bit_list(s.held[s.start] & ~s.checked[s.start]):
            ctx[n + 5 + t] = 1.0
        for rel in range(1, n):
            p = (seat + rel) % n
            ctx[n + 15 + rel] = (s.held[p] & ~s.checked[p]).bit_count() / TASKS_PER_PLAYER
        if s.phase == CARD_DRAFT:
            ctx[n + 4] = math.log(len(consistent_trumps(s))) / math.log(len(DRAWS))
            self._draw_features(s, picks, draws)
        else:
            self._task_features(s, seat, tasks)
        return out

    @staticmethod
    def _draw_features(s: GameState, picks, out: np.ndarray) -> None:
        """Per draw: the start player's picks as if that draw were the trumps."""
        if picks:
            win_adv = np.zeros(len(DRAWS), np.float32)
            last_adv = np.zeros(len(DRAWS), np.float32)
            strongest = np.zeros(len(DRAWS), np.float32)
            weakest = np.zeros(len(DRAWS), np.float32)
            choices = 0
            for card, cands in picks:
                if len(cands) < 2:
                    continue  # the last card of the row: no choice, no evidence
                choices += 1
                w = _WIN[:, cands]
                win_adv += _WIN[:, card] - w.mean(axis=1)
                last_adv += _LAST[:, card] - _LAST[:, cands].mean(axis=1)
                strongest += _WIN[:, card] >= w.max(axis=1) - 1e-6
                weakest += _WIN[:, card] <= w.min(axis=1) + 1e-6
            if choices:
                out[:, 0] = win_adv / choices
                out[:, 1] = last_adv / choices
                out[:, 2] = strongest / choices
                out[:, 3] = weakest / choices
            hand = [card for card, _ in picks]
            out[:, 4] = _WIN[:, hand].sum(axis=1) / ROWS
            out[:, 5] = _TRUMP[:, hand].sum(axis=1) / ROWS
            out[:, 6] = choices / ROWS
        out[:, 7] = _TRUMP_COUNT

    def _task_features(self, s: GameState, seat: int, out: np.ndarray) -> None:
        """Per other seat and open task: its chance to meet the task (public hands, public
        trumps), that against its best open task, whether it is the best, 1 / open tasks,
        and the seat's place in the choosing order."""
        n = self.n
        for rel in range(1, n):
            p = (seat + rel) % n
            if p == s.start:
                continue
            open_tasks = bit_list(s.held[p] & ~s.checked[p])
            if not open_tasks:
                continue
            chances = task_chances(s, p, open_tasks)
            best = max(chances)
            for t, ch in zip(open_tasks, chances):
                out[rel - 1, t] = (ch, ch - best, float(ch >= best - 1e-9),
                                   1.0 / len(open_tasks), ((p - s.start - 1) % n) / n)

    # -- the world ------------------------------------------------------------------

    def world(self, root: GameState, seat: int, choice: tuple[int, dict[int, int]] | None,
              rng: random.Random) -> GameState:
        """The world with the drawn secrets (``(draw or -1, seat -> task)``); the rest drawn by
        ``determinize`` as always."""
        if choice is None:
            return self.game.determinize(root, seat, rng)
        draw, tasks = choice
        return self.game.determinize(root, seat, rng, trumps=DRAWS[draw] if draw >= 0 else None,
                                     tasks=tasks or None)


def adapter(game: Game) -> GeheimtrumpfBelief:
    return GeheimtrumpfBelief(game)


class SecretsModel(SavedModel):
    """A trained secrets network, numpy only: features -> trump logits, task logits.

    The file (``.npz``): ``c{i}w, c{i}b`` (the context layers); the trump head
    ``th, tf, tb`` (its layer: from the context, from the draw features,
    bias), ``tw`` (to the logit), ``tbias`` (per draw); the task head ``kh,
    kf, kb, kw, kbias`` (per task) alike; ``meta`` (JSON: game, players,
    input, context size, context layers).
    """

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict):
        super().__init__(arrays, meta)
        self.context_size = int(meta["context"])
        self.seats = int(meta["num_players"]) - 1
        self.context = [(arrays[f"c{i}w"], arrays[f"c{i}b"])
                        for i in range(int(meta["context_layers"]))]
        self.trump = tuple(arrays[k] for k in ("th", "tf", "tb", "tw", "tbias"))
        self.task = tuple(arrays[k] for k in ("kh", "kf", "kb", "kw", "kbias"))

    @staticmethod
    def table_keys(side: GeheimtrumpfBelief) -> dict:
        return {"context": side.context_size}

    def logits(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(50,)`` trump logits and ``(n-1, 11)`` task logits (or a batch: leading axes)."""
        c = self.context_size
        lead = features.shape[:-1]
        h = features[..., :c]
        for w, b in self.context:
            h = np.maximum(h @ w + b, 0.0)
        nd = len(DRAWS) * DRAW_FEATURES
        draws = features[..., c:c + nd].reshape(*lead, len(DRAWS), DRAW_FEATURES)
        tasks = features[..., c + nd:].reshape(*lead, self.seats, NUM_TASKS, TASK_FEATURES)
        th, tf, tb, tw, tbias = self.trump
        z = np.maximum((h @ th)[..., None, :] + draws @ tf + tb, 0.0)
        trump = z @ tw + tbias
        kh, kf, kb, kw, kbias = self.task
        z = np.maximum((h @ kh)[..., None, None, :] + tasks @ kf + kb, 0.0)
        return trump, z @ kw + kbias


def distribution(logits: np.ndarray, allowed: list[int], temper: float = 1.0) -> list[float]:
    """The chances of the ``allowed`` values: ``softmax(temper * logits)`` over them alone
    (``temper=0``: uniform, the sampler without a model)."""
    x = temper * np.asarray(logits, np.float64)[allowed]
    x = np.exp(x - x.max())
    return (x / x.sum()).tolist()


def log_likelihood(trump: np.ndarray, tasks: np.ndarray, secrets: Secrets,
                   truth: tuple[int, list[int]], temper: float = 1.0) -> float:
    """The log-chance of the true secrets under the model's draw (``temper`` as the search);
    ``temper=0`` gives the uniform sampler's."""
    draw, chosen = truth
    out = 0.0
    if secrets.draws:
        out += math.log(distribution(trump, secrets.draws, temper)[secrets.draws.index(draw)])
    for i, allowed in enumerate(secrets.tasks):
        if allowed:
            out += math.log(distribution(tasks[i], allowed, temper)[allowed.index(chosen[i])])
    return out


def _pick(chances: list[float], rng: random.Random) -> int:
    r = rng.random()
    for i, p in enumerate(chances):
        r -= p
        if r < 0:
            return i
    return len(chances) - 1


class SecretsInference(ModelInference):
    """PIMC's worlds with the secrets drawn from the model (``pimc:belief=geheimtrumpf``).

    ``draft`` draws the trumps (where hidden) and each hidden task choice
    from the model - every draft kept, chance 1 - and ``finish`` hands them
    to ``determinize``.  Where nothing is hidden ``finish`` is plain
    ``determinize``.  The forward pass runs once per decision; it reads only
    the seat's features and the allowed values - what the seat may know.
    """

    @staticmethod
    def side_of(game: Game) -> GeheimtrumpfBelief:
        return adapter(game)

    @classmethod
    def of(cls, game: Game, which: str, temper: float = 1.0) -> SecretsInference:
        """From a spec's ``belief=``: the game's name (the bundled model) or a file."""
        path = bundled(which) if which == game.name else Path(which)
        if not path.is_file():
            raise ValueError(f"belief: no model file {path}")
        return cls(game, SecretsModel.load(path), temper)

    def answer(self, root: GameState, seat: int):
        """The decision's secrets and the chances of their allowed values (None: nothing
        hidden)."""
        secrets = self.side.hidden(root, seat)
        if secrets.empty():
            return secrets, None
        trump, tasks = self.model.logits(self.side.features(root, seat))
        return secrets, (distribution(trump, secrets.draws, self.temper) if secrets.draws
                         else [], [distribution(tasks[i], a, self.temper) if a else []
                                   for i, a in enumerate(secrets.tasks)])

    def draft(self, root: GameState, seat: int, rng: random.Random):
        secrets, chances = self.weights(root, seat)
        if chances is None:
            return None, 1.0
        draw = secrets.draws[_pick(chances[0], rng)] if secrets.draws else -1
        n = self.side.n
        tasks = {(seat + i + 1) % n: allowed[_pick(chances[1][i], rng)]
                 for i, allowed in enumerate(secrets.tasks) if allowed}
        return (draw, tasks), 1.0

    def finish(self, root: GameState, seat: int, choice, rng: random.Random) -> GameState:
        return self.side.world(root, seat, choice, rng)
