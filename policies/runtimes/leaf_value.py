"""A learned value at the search's leaves (issue 29, item 4): ``pimc:leaf=hoch_tief``.

PIMC values an action in a sampled world by playing the round out once with
random cards: unbiased for random play, but noisy (one play-out of up to 14
tricks).  A leaf value cuts that play-out short: ``depth`` tricks of uniform
cards (:func:`advance`, the draws of PIMC's own play-out), then one forward
pass of a network that reads the whole sampled position - every hand, every
seat's taken cards, the trick in play - and predicts each seat's score at
the end of the round.  The search is otherwise PIMC's: the same worlds for
every action, the best mean margin wins, one batched forward pass per
decision; the shorter play-outs buy more worlds in the same think time.

Why the few tricks first: across positions the network explains much of the
outcome, but a search compares sibling actions, which differ by a card, and
straight after the card (``depth=0``) the network barely tells them apart -
that search lost to PIMC by 29 points per game.  Four tricks of play resolve
the card's own trick and what follows; the network replaces only the long
noisy tail (the docs' search probes: the leaf value's sibling table).

The value sees the sampled world, never the true one: the search hands it
only worlds drawn by ``determinize`` (what the seat may know), so a search
with a leaf value is as honest as plain PIMC (the leak test covers it).

Hoch & Tief only, where the probes found PIMC limited by its evaluation and
its number of worlds.  The model (ONNX, :class:`LeafModel`):
an MLP from the world's card bits (hands, taken cards and the trick's cards
of each seat, counted from the searching seat), the leader and the seat to
play, and per seat and suit the cards in hand, the cards taken and what they
score, to every seat's round score (scaled).  Trained by
``stichzoo fit leaf_value hoch_tief`` (``training/fit/leaf_value.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from stichzoo.envs.core.game import Game, GameState
from stichzoo.envs.hoch_tief.rules import score_taken
from stichzoo.policies.games.hoch_tief import play_tricks, take

FOLDER = Path(__file__).resolve().parent.parent / "models"
#: the network predicts round scores divided by this (so targets are of order one)
SCALE = 20.0

#: a position: (hands, taken, trick cards in play order, leader) - the sampled world's round as
#: the value reads it (seats absolute; bitmasks)
Position = tuple[list[int], list[int], list[int], int]


def position(state: GameState) -> Position:
    """A Hoch & Tief state's round as a :data:`Position` (copies; the state is not changed)."""
    return state.hands[:], state.taken[:], list(state.trick.cards), state.trick.leader


def play(pos: Position, card: int, lookups) -> Position:
    """The position after the seat to play plays ``card`` - the rules of ``HochTiefState.apply``
    on bare bitmasks (the trick resolved when it is full; the rules core checks the card)."""
    hands, taken, cards, leader = pos
    n = len(hands)
    seat = (leader + len(cards)) % n
    hands = hands[:]
    hands[seat] ^= 1 << card
    cards = [*cards, card]
    if len(cards) < n:
        return hands, taken, cards, leader
    taken = taken[:]
    return hands, taken, [], take(cards, leader, taken, lookups.number)


def advance(pos: Position, tricks: int, lookups, rng) -> Position:
    """The position after uniformly random legal cards until ``tricks`` more tricks are
    complete (or the round is over): a short play-out before the value takes over - it
    plays the action's own trick out, where the network's judgment is weakest.  The draws
    of PIMC's own play-out (``hoch_tief.play_tricks``)."""
    hands, taken, cards, leader = pos
    if tricks <= 0 or not any(hands):
        return pos
    return play_tricks(hands[:], taken[:], list(cards), leader, lookups, rng, tricks)


def over(pos: Position) -> bool:
    """Every card played: the round's scores are exact."""
    return not any(pos[0])


def scores(pos: Position, lookups) -> list[int]:
    """Each seat's round score from its taken cards (exact once :func:`over`)."""
    return [score_taken(tk, lookups) for tk in pos[1]]


def rows(positions: list[Position], seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The model's raw input for ``positions`` valued for ``seat``.

    Returns ``masks`` (B, 3n) uint64 - hands, taken cards, the trick card of
    each seat (0 if none), seats counted from ``seat`` - and the leader's and
    the seat to play's relative seat (B,) each.
    """
    n = len(positions[0][0])
    order = [(seat + k) % n for k in range(n)]
    masks = np.zeros((len(positions), 3 * n), np.uint64)
    leader = np.zeros(len(positions), np.int64)
    to_play = np.zeros(len(positions), np.int64)
    for i, (hands, taken, cards, lead) in enumerate(positions):
        played = [0] * n
        for j, c in enumerate(cards):
            played[(lead + j) % n] = 1 << c
        masks[i] = [hands[p] for p in order] + [taken[p] for p in order] + \
            [played[p] for p in order]
        leader[i] = (lead - seat) % n
        to_play[i] = (lead + len(cards) - seat) % n
    return masks, leader, to_play


def bits(masks: np.ndarray, size: int) -> np.ndarray:
    """(B, k) uint64 bitmasks -> (B, k, size) uint8 bits."""
    shifts = np.arange(size, dtype=np.uint64)
    return ((masks[:, :, None] >> shifts) & np.uint64(1)).astype(np.uint8)


def features(card_bits: np.ndarray, leader: np.ndarray, to_play: np.ndarray, n: int,
             suits: int, numbers: int) -> np.ndarray:
    """The network's input (float32): the card bits, the two seats one-hot, and per seat and
    suit the cards in hand, the cards taken and their score (written once for numpy; the
    trainer's torch twin, ``training.leaf``, computes exactly this)."""
    b = card_bits.shape[0]
    x = card_bits.astype(np.float32)
    per_suit = x.reshape(b, 3 * n, suits, numbers)
    hand_count = per_suit[:, :n].sum(-1)
    taken = per_suit[:, n:2 * n]
    count = taken.sum(-1)
    value = (taken * np.arange(1, numbers + 1, dtype=np.float32)).sum(-1)
    score = np.where(count >= 3, count, value)
    eye = np.eye(n, dtype=np.float32)
    return np.concatenate([x.reshape(b, -1), eye[leader], eye[to_play],
                           hand_count.reshape(b, -1) / numbers,
                           np.minimum(count, 4).reshape(b, -1) / 4,
                           score.reshape(b, -1) / (2 * numbers),
                           score.sum(-1) / SCALE], axis=1)


def input_size(n: int, suits: int, numbers: int) -> int:
    return 3 * n * suits * numbers + 2 * n + 3 * n * suits + n


class LeafModel:
    """The trained value: positions -> each seat's predicted round score.

    The file is ONNX (made by ``training/fit/leaf_value.py``: ``layers`` dense layers,
    ReLU between them, input ``features``, output ``scores`` in units of
    :data:`SCALE`), its meta JSON in the model's metadata (``stichzoo``:
    game, players, suits, numbers, the training games).  It runs in
    onnxruntime on one thread, as the shipped bots do: numpy's BLAS would
    spread a batch over every core, and a search's think time is measured on
    one.
    """

    def __init__(self, session, meta: dict):
        self.meta = meta
        self.session = session

    @classmethod
    def load(cls, path: str | Path) -> LeafModel:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(str(path), sess_options=options,
                                           providers=["CPUExecutionProvider"])
            meta = json.loads(session.get_modelmeta().custom_metadata_map["stichzoo"])
        except Exception as e:  # onnxruntime raises its own classes; a foreign ONNX: KeyError
            raise ValueError(f"leaf: {path} is no leaf value model "
                             f"({str(e).splitlines()[0][:160]})") from None
        return cls(session, meta)

    def check(self, game: Game) -> None:
        """ValueError unless the model was trained for this game and table."""
        want = {"game": game.name, "num_players": game.num_players,
                "numbers": game.lookups.numbers}
        got = {k: self.meta.get(k) for k in want}
        if got != want:
            raise ValueError(f"leaf value model for {got}, not for this table {want}")

    def forward(self, x: np.ndarray) -> np.ndarray:
        """(B, n) round scores for a batch of :func:`features`."""
        return self.session.run(["scores"], {"features": x})[0] * SCALE

    def predict(self, positions: list[Position], seat: int) -> np.ndarray:
        """(B, n) predicted round scores, seats counted from ``seat``."""
        n = int(self.meta["num_players"])
        suits, numbers = int(self.meta["suits"]), int(self.meta["numbers"])
        masks, leader, to_play = rows(positions, seat)
        x = features(bits(masks, suits * numbers), leader, to_play, n, suits, numbers)
        return self.forward(x)


class LeafValue:
    """PIMC's leaf hook (``pimc:leaf=...``): every searched action's margin in every world.

    ``values(worlds, actions, seat)`` -> (worlds, actions) margins: the
    seat's predicted round score minus the others' mean (PIMC's own measure,
    ``search.margin``), exact where the action ends the round.  One forward
    pass for the whole decision.
    """

    def __init__(self, game: Game, model: LeafModel, depth: int = 0):
        if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= 15:
            raise ValueError(f"leaf: depth={depth!r}; the tricks played out before the value "
                             f"are an integer from 0 to 15")
        if game.name != "hoch_tief":
            raise ValueError(f"leaf: {game.name} has no leaf value yet (games: hoch_tief)")
        model.check(game)
        self.game = game
        self.model = model
        self.depth = depth

    @classmethod
    def of(cls, game: Game, which: str, depth: int = 0) -> LeafValue:
        """From a spec's ``leaf=``: a game name (the bundled model) or a file."""
        path = FOLDER / f"{which}.onnx" if which == game.name else Path(which)
        if not path.is_file():
            raise ValueError(f"leaf: no model file {path}")
        return cls(game, LeafModel.load(path), depth)

    def values(self, worlds: list[GameState], actions: list[int], seat: int,
               rng) -> np.ndarray:
        t = self.game.lookups
        n = self.game.num_players
        depth = self.depth
        after = [advance(play(position(w), a, t), depth, t, rng)
                 for w in worlds for a in actions]
        open_ = [i for i, p in enumerate(after) if not over(p)]
        out = np.empty((len(after), n), np.float64)
        if open_:
            out[open_] = self.model.predict([after[i] for i in open_], seat)
        for i, p in enumerate(after):
            if over(p):
                s = scores(p, t)
                out[i] = [s[(seat + k) % n] for k in range(n)]
        margins = out[:, 0] - out[:, 1:].mean(axis=1)
        return margins.reshape(len(worlds), len(actions))


__all__ = ["FOLDER", "SCALE", "LeafModel", "LeafValue", "Position", "advance", "bits",
           "features",
           "input_size", "over", "play", "position", "rows", "scores"]
