"""Silberne Ananas' tricks to come, learned from the seat's own hand (issue 30): ``future=``.

Every Silberne Ananas bot values a trick by who takes it, and that value
depends on how the tricks still to come will fall: the heuristic and the
observation's reading (``envs/silberne_ananas/reading.py``) split them
uniformly at random.  Measured on heuristic self-play, the split is near
uniform given the public facts alone (the tricks taken and who leads next
predict it 0.02 nats a trick better than the uniform split), but a seat's
own hand predicts its own share well: the shipped model's squared error of
the seat's own tricks to come is 31% below the uniform split's (0.998
against 1.438 tricks^2 on 2,000 held-out matches), its neighbours' 7-10%
below.

The model: a small network (``hidden`` layers, ReLU) from what the seat
knows - its hand (cards and suit lengths), the cards it has not seen (per
suit, the Joker), the tricks taken by itself and its neighbours, who leads
next and how many tricks are left - to the chance of each of the three
seats (self, left, right) taking any one trick to come.  The tricks to
come then fall as a multinomial with those chances, in place of the
uniform one, and :func:`taker_values` values the trick in progress from
there exactly as ``reading.taker_values`` does.  It reads nothing hidden:
the seat's own hand and public facts.

Trained by ``stichzoo fit tricks_to_come silberne_ananas`` (``training/fit/tricks_to_come.py``) and
shipped as ``policies/models/<name>.npz``; the forward pass is numpy, so
bots that use it need no torch.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from functools import cache
from pathlib import Path

import numpy as np

from stichzoo.envs.silberne_ananas.reading import FULL, expected_end, multinomial
from stichzoo.envs.silberne_ananas.rules import (
    CARD_SUIT,
    DECK_SIZE,
    HAND_SIZE,
    JOKER,
    NUM_PLAYERS,
    NUM_SUITS,
)
from stichzoo.envs.silberne_ananas.standing import standing
from stichzoo.policies.runtimes.model_files import model_path

#: the feature layout: hand cards, own and unseen suit lengths, the Joker unseen, tricks
#: taken (self, left, right), who leads next (one-hot, relative), tricks left (one-hot)
FEATURES = DECK_SIZE + 2 * NUM_SUITS + 1 + NUM_PLAYERS + NUM_PLAYERS + HAND_SIZE
_SUIT_CARDS = JOKER // NUM_SUITS  # 8 cards a suit (the Joker is card 32)
_CARDS = np.arange(DECK_SIZE, dtype=np.int64)
#: card -> its suit, one-hot (the Joker has none)
_SUIT_OF = np.eye(NUM_SUITS, dtype=np.float32)[[CARD_SUIT[c] for c in range(JOKER)]]

#: per number of tricks left, every split (a, b, c) with its multinomial coefficient
COEFFICIENTS = [[(a, b, c, math.factorial(r) / (math.factorial(a) * math.factorial(b)
                                                 * math.factorial(c)))
                 for a, b, c, _ in multinomial(r)] for r in range(HAND_SIZE + 1)]


def features(hand: int, unseen: int, tricks: list[int], leader: int, left: int) -> np.ndarray:
    """One row of the model's input.

    ``tricks``: tricks taken by (self, left neighbour, right neighbour); ``leader``: who
    leads the next trick, relative (0 self, 1 left, 2 right); ``left``: tricks to come
    (1..11).  ``hand`` and ``unseen`` are card masks (``unseen``: neither played nor own).
    """
    x = np.zeros(FEATURES, np.float32)
    mine = (hand >> _CARDS) & 1
    x[:DECK_SIZE] = mine
    o = DECK_SIZE
    x[o:o + NUM_SUITS] = mine[:JOKER] @ _SUIT_OF / _SUIT_CARDS
    x[o + NUM_SUITS:o + 2 * NUM_SUITS] = ((unseen >> _CARDS[:JOKER]) & 1) @ _SUIT_OF / _SUIT_CARDS
    o += 2 * NUM_SUITS
    x[o] = float(unseen >> JOKER & 1)
    o += 1
    for j in range(NUM_PLAYERS):
        x[o + j] = tricks[j] / HAND_SIZE
    o += NUM_PLAYERS
    x[o + leader] = 1.0
    o += NUM_PLAYERS
    x[o + left - 1] = 1.0
    return x


class FutureModel:
    """The trained network, numpy only: ``shares(rows)`` -> per row the (self, left,
    right) chance of taking a trick to come."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict | None = None):
        if not layers or layers[0][0].shape[0] != FEATURES or layers[-1][0].shape[1] != 3:
            raise ValueError(f"future: a model maps {FEATURES} features to 3 shares")
        self.layers = layers
        self.meta = meta or {}

    def shares(self, rows: np.ndarray) -> np.ndarray:
        x = rows
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                x = np.maximum(x, 0.0)
        x = x.astype(np.float64)  # the shares in double: they are raised to powers up to 10
        x = x - x.max(axis=-1, keepdims=True)
        e = np.exp(x)
        return e / e.sum(axis=-1, keepdims=True)

    def save(self, path: str | Path) -> None:
        arrays = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        arrays["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        # an .npz written by hand with a fixed date, so that a rebuild is the same file byte
        # for byte (np.savez stamps each entry with the time of writing)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, array in arrays.items():
                buf = io.BytesIO()
                np.save(buf, array, allow_pickle=False)
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> FutureModel:
        with np.load(path) as data:
            n = sum(1 for k in data.files if k.startswith("w"))
            layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
            meta = json.loads(str(data["meta"])) if "meta" in data.files else {}
        return cls(layers, meta)


@cache
def load_model(which: str) -> FutureModel:
    """One model per name per process."""
    return FutureModel.load(model_path(which, ".npz", "future", "model of the tricks to come"))


def taker_values(state, seat: int, hand: int, model: FutureModel,
                 estimate=standing) -> list[list[float]]:
    """``W[s][taker]`` as ``reading.taker_values``, the tricks to come split by ``model``.

    ``hand`` is ``seat``'s hand once the trick in progress is complete (its card in the
    trick taken out), so a bot may ask once per card it could play.  The chances are
    ``seat``'s view; they serve every row, as the uniform split does.
    """
    options = state.game.options
    totals = tuple(state.totals)
    taken = list(state.tricks_won)
    left = HAND_SIZE - sum(taken) - 1
    w = [[0.0] * NUM_PLAYERS for _ in range(NUM_PLAYERS)]
    if left > 0:
        unseen = FULL & ~state.played & ~hand
        rel = [(seat + j) % NUM_PLAYERS for j in range(NUM_PLAYERS)]
        rows = []
        for taker in range(NUM_PLAYERS):
            after = taken[:]
            after[taker] += 1
            rows.append(features(hand, unseen, [after[s] for s in rel],
                                 (taker - seat) % NUM_PLAYERS, left))
        q = model.shares(np.stack(rows)).tolist()
    else:
        q = [[1.0, 0.0, 0.0]] * NUM_PLAYERS  # no tricks to come: the one split (0, 0, 0)
    for taker in range(NUM_PLAYERS):
        chance = [0.0] * NUM_PLAYERS
        for j in range(NUM_PLAYERS):
            chance[(seat + j) % NUM_PLAYERS] = q[taker][j]
        q0, q1, q2 = chance
        splits = [(a, b, c, coef * q0 ** a * q1 ** b * q2 ** c)
                  for a, b, c, coef in COEFFICIENTS[left]]
        acc = expected_end(options, totals, taken, taker, splits, estimate)
        for s in range(NUM_PLAYERS):
            w[s][taker] = acc[s]
    return w
