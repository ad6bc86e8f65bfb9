"""What every belief model shares at play time, numpy only (issue 29, item 2).

The card-location models (``policies/lab/belief.py``) and the categorical ones
(``policies/lab/belief_secrets.py``, Geheimtrumpf) are saved alike, checked
against the table alike and asked once per decision alike; that is written
here once, so that neither module needs the other.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from stichzoo.envs.core.game import Game, GameState

#: the bundled models, one per game: ``pimc:belief=<game>``
FOLDER = Path(__file__).resolve().parent / "models" / "beliefs"


def bundled(game_name: str) -> Path:
    """The bundled model of a game (``pimc:belief=<game>``)."""
    return FOLDER / f"{game_name}.npz"



class SavedModel:
    """A belief network saved as ``.npz`` (its arrays and a JSON ``meta``): loading, and the
    check that it was trained for this game and table - written once for the card-location
    models (:class:`BeliefModel`) and the categorical ones (``belief_secrets.SecretsModel``).
    A subclass names the side's sizes its weights depend on (:meth:`table_keys`)."""

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict):
        self.meta = meta

    @classmethod
    def load(cls, path: str | Path):
        with np.load(path) as f:
            meta = json.loads(str(f["meta"]))
            arrays = {k: f[k].astype(np.float32) for k in f.files if k != "meta"}
        return cls(arrays, meta)

    @staticmethod
    def table_keys(side) -> dict:
        raise NotImplementedError

    def check(self, game: Game, side) -> None:
        """ValueError unless the model was trained for this game and table."""
        want = {"game": game.name, "num_players": game.num_players, "input": side.size,
                **self.table_keys(side)}
        got = {k: self.meta.get(k) for k in want}
        if got != want:
            raise ValueError(f"belief model for {got}, not for this table {want}")


class ModelInference:
    """What every belief model's PIMC inference shares: the model checked against the table,
    ``temper``, and the model's answer made once per decision (:meth:`weights`); every
    drafted world is kept (chance 1).  A subclass says which side reads the game
    (:meth:`side_of`), what a decision's answer is (:meth:`answer`) and how a world is drafted
    and finished from it."""

    def __init__(self, game: Game, model, temper: float = 1.0):
        if not 0 <= temper <= 4:
            raise ValueError(f"belief: temper={temper!r}; a number from 0 to 4")
        self.side = self.side_of(game)
        model.check(game, self.side)
        self.model = model
        self.temper = float(temper)
        self._key = None
        self._cached = None
        self._root, self._length, self._seat = None, -1, -1

    @staticmethod
    def side_of(game: Game):
        """The game's belief side (the adapter the model was trained with)."""
        raise NotImplementedError

    def answer(self, root: GameState, seat: int):
        raise NotImplementedError

    def weights(self, root: GameState, seat: int):
        """The decision's :meth:`answer`, made once per decision: the same state object at
        the same point of its history, else the same view of the seat (``view_key``)."""
        if root is self._root and len(root.history) == self._length and seat == self._seat:
            return self._cached
        self._root, self._length, self._seat = root, len(root.history), seat
        key = self.side.view_key(root, seat)
        if key != self._key:
            self._cached = self.answer(root, seat)
            self._key = key
        return self._cached

    def __call__(self, world: GameState, seat: int) -> float:
        return 1.0
