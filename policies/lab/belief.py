"""Belief model: where each card a seat cannot see lies, learned from self-play (issue 29).

A belief model reads one seat's own view - the env's observation plus the
cards each other seat played this round (public, but not in the observation,
which keeps only the played set) - and gives, for every card, a distribution
over its locations relative to the seat: the hand of the seat 1, 2, ... places
to its left, or no hand (Wizard: undealt).  It is trained by
``python -m stichzoo.training.lab fit belief <game>`` (``training/lab/belief.py``, torch);
here is the play-time side, numpy only: the forward pass, the constrained draw and its
log-likelihood.

**The draw** (:func:`walk`): the unseen cards one by one - those that some
location may not hold (a void) first, then the rest, each group by card id -
each placed
at location ``b`` with chance proportional to ``(p[c, b] / prior[b]) ** temper
x room[b]`` among the locations that may still take it: not void in its suit,
room left, and a place left for every card still to come (Hall's condition
over the sets of locations, kept exactly).  ``p`` is the model's
distribution, ``prior[b]`` the share of the unseen cards location ``b`` holds
(the flat model's ``p``), ``room[b]`` its places still free.  With the flat
model the weights are the room alone: without voids that is exactly the
uniform deal, card by card (hypergeometric); with voids it is close to the
uniform deal - the "uniform sampler" whose log-likelihood the model is
measured against is this same walk with the flat model, so both keep the
hard constraints the same way.  Every drawn world keeps the hand sizes, the
voids, the seat's own hand and the played cards by construction.

**In the search** (``pimc:belief=wizard`` or ``pimc:belief=PATH``, with
``temper=`` below 1 to soften the model): :class:`BeliefInference` draws each
world from the model - one forward pass per decision, one walk per world -
through PIMC's inference hooks (``draft``/``finish``), so the rest of the
search is unchanged.

Geheimtrumpf hides no card that matters (every hand is public) but two
categorical secrets - the trumps during the draft, the task choices before
the reveal: its model, side and inference are ``policies/lab/belief_secrets.py``,
reached through :data:`SECRETS` (``adapter``, ``BeliefInference.of``).
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import NamedTuple

import numpy as np

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import Game, GameState
from stichzoo.envs.core.tricks import plays_by_seat
from stichzoo.envs.hoch_tief.rules import HAND_SIZE
from stichzoo.envs.registry import env_module
from stichzoo.envs.silberne_ananas import rules as ananas
from stichzoo.envs.wizard.rules import (
    DECK_SIZE,
    JESTER0,
    NUM_SUITS,
    NUMBERS,
    SUIT_MASK,
    WIZARD0,
    HiddenDeal,
    played_this_round,
)
from stichzoo.envs.wunder_punkt import rules as punkt
from stichzoo.policies.lab.belief_model import ModelInference, SavedModel, bundled


class Hidden(NamedTuple):
    """What a seat cannot see and the hard constraints on it.

    ``cards``: the unseen cards, ascending; per location (relative seat 1..n-1,
    then the rest: undealt) ``sizes`` - how many of them it holds - and
    ``bans`` - a bitmask of the cards it cannot hold (its voids; the rest: 0).
    """

    cards: list[int]
    sizes: list[int]
    bans: list[int]


#: per card: its suit one-hot (none for Wizards and Jesters)
_SUIT = np.array([[1.0 if c < WIZARD0 and c // NUMBERS == k else 0.0 for k in range(NUM_SUITS)]
                  for c in range(DECK_SIZE)], np.float32)
#: per card: which cards of its suit are above it
_ABOVE = np.array([[1.0 if c < WIZARD0 and d < WIZARD0 and d // NUMBERS == c // NUMBERS and d > c
                    else 0.0 for d in range(DECK_SIZE)] for c in range(DECK_SIZE)], np.float32)
#: per card, fixed: suit one-hot, number / 13, Wizard, Jester
_CONST = np.concatenate([_SUIT, np.array(
    [[(c % NUMBERS + 1) / NUMBERS if c < WIZARD0 else 0.0, float(WIZARD0 <= c < JESTER0),
      float(c >= JESTER0)] for c in range(DECK_SIZE)], np.float32)], axis=1)


def placed_hands(root: GameState, seat: int, hidden: Hidden, locations: list[int]) -> list[int]:
    """The hands with each hidden card where ``locations`` puts it: location ``b`` is the seat
    ``b + 1`` places on from ``seat``; ``n - 1`` (Wizard's undealt cards) is no hand."""
    n = root.num_players
    hands = root.hands[:]
    for rel in range(1, n):
        hands[(seat + rel) % n] = 0
    for c, b in zip(hidden.cards, locations):
        if b < n - 1:
            hands[(seat + b + 1) % n] |= 1 << c
    return hands


class WizardBelief:
    """Wizard's side of a belief model: the input, the constraints, the labels, the world."""

    def __init__(self, game: Game):
        self.game = game
        self.n = n = game.num_players
        self.locations = n  # n - 1 other seats, then undealt
        self.encoder = env_module(game.name).raw_env.encoder_cls(game)
        self.obs_size = self.encoder.layout.size
        self.size = self.obs_size + (n - 1) * DECK_SIZE
        self.deck = DECK_SIZE
        self.card_size = _CONST.shape[1] + 2 + (n - 1)

    def features(self, state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The seat's observation, then per other seat (relative 1..n-1) its cards played this
        round: who played what is public, but the observation keeps only the played set."""
        if out is None:
            out = np.zeros(self.size, np.float32)
        self.encoder.encode(state, seat, out[:self.obs_size])
        out[self.obs_size:] = 0.0
        played = played_this_round(state)
        base = self.obs_size
        for rel in range(1, self.n):
            for c in bit_list(played[(seat + rel) % self.n]):
                out[base + (rel - 1) * DECK_SIZE + c] = 1.0
        return out

    def card_features(self, features: np.ndarray) -> np.ndarray:
        """Per card, what it is and what is known around it, from the features alone
        (``(..., deck, k)``; batched): its suit (4), trump or not, its number / 13, Wizard,
        Jester, the unseen cards of its suit above it / 13, and per other seat (relative
        1..n-1) whether that seat is void in its suit."""
        o = self.encoder.layout.offsets
        x = features
        hand = x[..., o["hand"]:o["hand"] + DECK_SIZE]
        played = x[..., o["played"]:o["played"] + DECK_SIZE]
        turned = x[..., o["trump_card"]:o["trump_card"] + DECK_SIZE]
        unseen = 1.0 - hand - played - turned
        trump = x[..., o["trump_suit"]:o["trump_suit"] + NUM_SUITS] @ _SUIT.T
        higher = unseen @ _ABOVE.T / NUMBERS
        voids = x[..., o["voids"]:o["voids"] + self.n * NUM_SUITS]
        void = [voids[..., r * NUM_SUITS:(r + 1) * NUM_SUITS] @ _SUIT.T for r in range(1, self.n)]
        const = np.broadcast_to(_CONST, (*x.shape[:-1], *_CONST.shape))
        return np.concatenate([const, trump[..., None], higher[..., None],
                               *(v[..., None] for v in void)], axis=-1).astype(np.float32)

    def hidden(self, state: GameState, seat: int) -> Hidden:
        """The unseen cards and where they may lie (hand sizes, voids), as ``deal_others``."""
        n = self.n
        seen = state.hands[seat] | state.played
        if state.trump_card >= 0:
            seen |= 1 << state.trump_card
        cards = [c for c in range(DECK_SIZE) if not (seen >> c) & 1]
        sizes, bans = [], []
        for rel in range(1, n):
            p = (seat + rel) % n
            sizes.append(state.hands[p].bit_count())
            ban = 0
            for suit in range(NUM_SUITS):
                if state.voids[p] >> suit & 1:
                    ban |= SUIT_MASK[suit]
            bans.append(ban)
        sizes.append(len(cards) - sum(sizes))
        bans.append(0)
        return Hidden(cards, sizes, bans)

    def truth(self, state: GameState, seat: int, hidden: Hidden) -> list[int]:
        """Where each of ``hidden.cards`` really lies (an index into the locations)."""
        where = {}
        for rel in range(1, self.n):
            for c in bit_list(state.hands[(seat + rel) % self.n]):
                where[c] = rel - 1
        return [where.get(c, self.n - 1) for c in hidden.cards]

    def stage(self, state: GameState) -> str:
        """The phase a sample is reported under: bid (trump choice too), play early (the
        first half of the round's cards), play late."""
        if state.phase_name != "play":
            return "bid"
        early = state.played.bit_count() < self.n * state.hand_size / 2
        return "play early" if early else "play late"

    def view_key(self, state: GameState, seat: int) -> tuple:
        """Everything the seat's features depend on, for caching: its hand, the turned card,
        the public history."""
        return (seat, state.hands[seat], state.trump_card, state.round_index,
                tuple(state.history))

    def world(self, root: GameState, seat: int, hidden: Hidden, locations: list[int],
              rng: random.Random) -> GameState:
        """The world whose hidden hands are ``locations`` (the rest of the deal as ``world_of``)."""
        hands = placed_hands(root, seat, hidden, locations)
        return self.game.world_of(root, seat, HiddenDeal(hands, hidden.cards), rng)




class DealtBelief:
    """The side of a game whose unseen cards all lie in the other hands (Hoch & Tief, Silberne
    Ananas, Wunder Punkt): the features, the seats' plays and the true hands, written once.

    A subclass sets ``locations``, ``card_size`` and its card tables, and says how many
    cards have been played this round (:meth:`played_count`).
    """

    def __init__(self, game: Game, deck: int):
        self.game = game
        self.n = game.num_players
        self.encoder = env_module(game.name).raw_env.encoder_cls(game)
        self.obs_size = self.encoder.layout.size
        self.deck = deck
        self.size = self.obs_size + (self.n - 1) * deck

    def played_count(self, state: GameState) -> int:
        """Cards played this round (or deal), the current trick included."""
        return state.played.bit_count()

    def played(self, state: GameState) -> list[int]:
        """Each seat's cards played this round (or deal)."""
        return plays_by_seat(state.history, self.n, self.played_count(state), self.deck)

    def features(self, state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The seat's observation, then per other seat (relative 1..n-1) its cards played this
        round (the observation keeps which cards are out, not who played which)."""
        if out is None:
            out = np.zeros(self.size, np.float32)
        self.encoder.encode(state, seat, out[:self.obs_size])
        out[self.obs_size:] = 0.0
        played = self.played(state)
        for rel in range(1, self.n):
            for c in bit_list(played[(seat + rel) % self.n]):
                out[self.obs_size + (rel - 1) * self.deck + c] = 1.0
        return out

    def holders(self, state: GameState, seat: int) -> dict[int, int]:
        """Where each card of the other hands lies: its location, the relative seat - 1."""
        return {c: rel - 1 for rel in range(1, self.n)
                for c in bit_list(state.hands[(seat + rel) % self.n])}

    def truth(self, state: GameState, seat: int, hidden: Hidden) -> list[int]:
        where = self.holders(state, seat)
        return [where[c] for c in hidden.cards]

    def banned(self, state: GameState, player: int) -> int:
        """The cards ``player`` cannot hold, as everybody saw (none: no follow rule)."""
        return 0

    def hidden(self, state: GameState, seat: int) -> Hidden:
        """The other hands' cards and where they may lie (hand sizes, :meth:`banned`)."""
        cards, sizes, bans = 0, [], []
        for rel in range(1, self.n):
            p = (seat + rel) % self.n
            cards |= state.hands[p]
            sizes.append(state.hands[p].bit_count())
            bans.append(self.banned(state, p))
        return Hidden(bit_list(cards), sizes, bans)

    def view_key(self, state: GameState, seat: int) -> tuple:
        return (seat, state.hands[seat], state.round_index, tuple(state.history))

    def world(self, root: GameState, seat: int, hidden: Hidden, locations: list[int],
              rng: random.Random) -> GameState:
        return self.game.world_of(root, placed_hands(root, seat, hidden, locations), rng)


class HochTiefBelief(DealtBelief):
    """Hoch & Tief's side: every card is dealt, so the locations are the other seats alone."""

    def __init__(self, game: Game):
        super().__init__(game, game.lookups.size)
        n = self.n
        self.locations = n - 1
        self.lookups = t = game.lookups
        suits = len(t.suit_mask)
        self._suit = np.array([[1.0 if t.suit[c] == k else 0.0 for k in range(suits)]
                               for c in range(t.size)], np.float32)
        self._above = np.array([[1.0 if t.suit[d] == t.suit[c] and d > c else 0.0
                                 for d in range(t.size)] for c in range(t.size)], np.float32)
        number = np.array([t.number[c] / t.numbers for c in range(t.size)], np.float32)
        self._const = np.concatenate([self._suit, number[:, None]], axis=1)
        self.card_size = self._const.shape[1] + 2 + (n - 1)

    def played_count(self, state: GameState) -> int:
        return state.tricks_played * self.n + len(state.trick.cards)

    def card_features(self, features: np.ndarray) -> np.ndarray:
        """Per card (batched, from the features alone): its suit (5), number / 3n, the unseen
        cards of its suit above and below it / 3n, per other seat whether it is void in its
        suit."""
        o = self.encoder.layout.offsets
        x = features
        size, t = self.deck, self.lookups
        hand = x[..., o["hand"]:o["hand"] + size]
        played = x[..., o["played"]:o["played"] + size]
        unseen = 1.0 - hand - played
        above = unseen @ self._above.T / t.numbers
        below = unseen @ self._above / t.numbers
        suits = self._suit.shape[1]
        voids = x[..., o["voids"]:o["voids"] + self.n * suits]
        void = [voids[..., r * suits:(r + 1) * suits] @ self._suit.T for r in range(1, self.n)]
        const = np.broadcast_to(self._const, (*x.shape[:-1], *self._const.shape))
        return np.concatenate([const, above[..., None], below[..., None],
                               *(v[..., None] for v in void)], axis=-1).astype(np.float32)

    def banned(self, state: GameState, player: int) -> int:
        """The suits ``player`` showed out of."""
        return sum(mask for suit, mask in enumerate(self.lookups.suit_mask)
                   if state.voids[player] >> suit & 1)

    def stage(self, state: GameState) -> str:
        """play early (the first half of the round's cards), play late."""
        early = state.tricks_played * 2 < HAND_SIZE
        return "play early" if early else "play late"


class SilberneAnanasBelief(DealtBelief):
    """Silberne Ananas' side: the other two hands hold every unseen card (all 33 are dealt);
    besides the voids, a seat that showed out without playing the Joker cannot hold it."""

    def __init__(self, game: Game):
        super().__init__(game, ananas.DECK_SIZE)
        n = self.n
        self.locations = n - 1
        deck, suit = ananas.DECK_SIZE, ananas.CARD_SUIT
        self._suit = np.array([[1.0 if suit[c] == k else 0.0 for k in range(ananas.NUM_SUITS)]
                               for c in range(deck)], np.float32)
        self._above = np.array([[1.0 if suit[c] >= 0 and suit[d] == suit[c] and d > c else 0.0
                                 for d in range(deck)] for c in range(deck)], np.float32)
        rank = np.array([(c % ananas.NUM_RANKS + 1) / ananas.NUM_RANKS if suit[c] >= 0 else 0.0
                         for c in range(deck)], np.float32)
        joker = np.array([float(c == ananas.JOKER) for c in range(deck)], np.float32)
        self._const = np.concatenate([self._suit, rank[:, None], joker[:, None]], axis=1)
        self.card_size = self._const.shape[1] + 2 + (n - 1)

    def card_features(self, features: np.ndarray) -> np.ndarray:
        """Per card (batched, from the features alone): its suit (4, none for the Joker), rank
        / 8, Joker, the unseen cards of its suit above and below it / 8, and per other seat
        whether it cannot hold the card (void in its suit; for the Joker: showed out without
        playing it)."""
        o = self.encoder.layout.offsets
        x = features
        hand = x[..., o["hand"]:o["hand"] + ananas.DECK_SIZE]
        played = x[..., o["played"]:o["played"] + ananas.DECK_SIZE]
        unseen = 1.0 - hand - played
        above = unseen @ self._above.T / ananas.NUM_RANKS
        below = unseen @ self._above / ananas.NUM_RANKS
        voids = x[..., o["voids"]:o["voids"] + self.n * ananas.NUM_SUITS]
        no_joker = x[..., o["no_joker"]:o["no_joker"] + self.n]
        banned = []
        for r in range(1, self.n):
            b = voids[..., r * ananas.NUM_SUITS:(r + 1) * ananas.NUM_SUITS] @ self._suit.T
            b[..., ananas.JOKER] = no_joker[..., r]
            banned.append(b)
        const = np.broadcast_to(self._const, (*x.shape[:-1], *self._const.shape))
        return np.concatenate([const, above[..., None], below[..., None],
                               *(b[..., None] for b in banned)], axis=-1).astype(np.float32)

    def banned(self, state: GameState, player: int) -> int:
        """The suits ``player`` showed out of, and the Joker once it cannot hold it."""
        return ananas.banned_cards(state, player)

    def stage(self, state: GameState) -> str:
        """play early (the first five tricks of the deal), play late."""
        early = state.played.bit_count() < 5 * self.n
        return "play early" if early else "play late"

    def view_key(self, state: GameState, seat: int) -> tuple:
        return (seat, state.hands[seat], state.deal_index, tuple(state.history))


class WunderPunktBelief(DealtBelief):
    """Wunder Punkt's side: every card in play is dealt and nobody must follow, so no void is
    ever shown; before the reveal each other seat that has picked holds one face-down sore
    card among its cards.  The locations: the hand of the seat 1..n-1 places to the left,
    then the face-down pick of the seat 1..n-1 places to the left (room 1 before the reveal
    for a seat that has picked, else 0)."""

    def __init__(self, game: Game):
        super().__init__(game, punkt.DECK_SIZE)
        n = self.n
        self.locations = 2 * (n - 1)
        suit, number = punkt.CARD_SUIT, punkt.CARD_NUMBER
        self._suit = np.array([[1.0 if suit[c] == k else 0.0 for k in range(punkt.NUM_SUITS)]
                               for c in range(self.deck)], np.float32)
        self._above = np.array([[1.0 if suit[d] == suit[c] and number[d] > number[c] else 0.0
                                 for d in range(self.deck)] for c in range(self.deck)],
                               np.float32)
        self._const = np.concatenate(
            [self._suit, np.array([[number[c] / 13, float(number[c] == 0)]
                                   for c in range(self.deck)], np.float32)], axis=1)
        self.card_size = self._const.shape[1] + 3 + (n - 1)

    def card_features(self, features: np.ndarray) -> np.ndarray:
        """Per card (batched, from the features alone): its suit (4), number / 13, Ace, whether
        the seat has not seen it, the unseen cards of its suit numbered above and below it
        / 13, and per other seat (relative 1..n-1) whether its revealed sore suit is the
        card's."""
        o = self.encoder.layout.offsets
        x, size, n = features, self.deck, self.n

        def piece(name: str, k: int = 1):
            return x[..., o[name]:o[name] + k * size]

        def per_seat(name: str):
            return sum(piece(name, n)[..., r * size:(r + 1) * size] for r in range(n))

        seen = (piece("hand") + per_seat("sore_cards") + per_seat("current_trick")
                + per_seat("won") + piece("removed"))
        unseen = np.clip(piece("cards_in_play") - seen, 0.0, 1.0)
        above = unseen @ self._above.T / 13
        below = unseen @ self._above / 13
        suits = x[..., o["sore_suits"]:o["sore_suits"] + n * punkt.NUM_SUITS]
        sore = [suits[..., r * punkt.NUM_SUITS:(r + 1) * punkt.NUM_SUITS] @ self._suit.T
                for r in range(1, n)]
        const = np.broadcast_to(self._const, (*x.shape[:-1], *self._const.shape))
        return np.concatenate([const, unseen[..., None], above[..., None], below[..., None],
                               *(v[..., None] for v in sore)], axis=-1).astype(np.float32)

    def _pending(self, state: GameState, p: int) -> bool:
        return state.phase_name == "sore" and state.sore_cards[p] >= 0

    def hidden(self, state: GameState, seat: int) -> Hidden:
        """The other hands' cards and the face-down picks, where they may lie (sizes only)."""
        hands = super().hidden(state, seat)
        cards, picks = 0, []  # the face-down picks
        for rel in range(1, self.n):
            p = (seat + rel) % self.n
            pending = self._pending(state, p)
            if pending:
                cards |= 1 << state.sore_cards[p]
            picks.append(int(pending))
        return Hidden(sorted(hands.cards + bit_list(cards)), hands.sizes + picks,
                      hands.bans + [0] * (self.n - 1))

    def truth(self, state: GameState, seat: int, hidden: Hidden) -> list[int]:
        where = self.holders(state, seat)
        for rel in range(1, self.n):
            p = (seat + rel) % self.n
            if self._pending(state, p):
                where[state.sore_cards[p]] = self.n - 1 + rel - 1
        return [where[c] for c in hidden.cards]

    def stage(self, state: GameState) -> str:
        """sore (before the reveal), play early (the first half of the round's cards), play
        late."""
        if state.phase_name == "sore":
            return "sore"
        early = state.played.bit_count() * 2 < len(self.game.used_list)
        return "play early" if early else "play late"

    def view_key(self, state: GameState, seat: int) -> tuple:
        return (seat, state.hands[seat], state.sore_cards[seat], state.round_index,
                tuple(state.history))

    def world(self, root: GameState, seat: int, hidden: Hidden, locations: list[int],
              rng: random.Random) -> GameState:
        n = self.n
        picks = root.sore_cards[:]
        for c, b in zip(hidden.cards, locations):
            if b >= n - 1:  # a face-down sore pick; placed_hands leaves it out of the hands
                picks[(seat + b - (n - 1) + 1) % n] = c
        return self.game.world_of(root, placed_hands(root, seat, hidden, locations), picks,
                                  rng)


#: the games with a belief model, by name
ADAPTERS = {"wizard": WizardBelief, "hoch_tief": HochTiefBelief,
            "silberne_ananas": SilberneAnanasBelief, "wunder_punkt": WunderPunktBelief}


#: the games whose hidden part is a few categorical secrets, not card locations: their side,
#: model and inference live in ``policies/lab/belief_secrets.py`` (Geheimtrumpf: the trumps
#: during the draft, the task choices before the reveal)
SECRETS = ("geheimtrumpf",)


def adapter(game: Game):
    """The game's belief side (:class:`WizardBelief` ...); ValueError for a game without one."""
    if game.name in SECRETS:
        from stichzoo.policies.lab.belief_secrets import adapter as secrets_adapter

        return secrets_adapter(game)
    if game.name not in ADAPTERS:
        raise ValueError(f"belief: {game.name} has no belief model yet "
                         f"(games: {', '.join((*ADAPTERS, *SECRETS))})")
    return ADAPTERS[game.name](game)


class BeliefModel(SavedModel):
    """A trained belief network, numpy only: features -> per card, a distribution over locations.

    Card by card with shared weights, so that a few thousand games teach it
    (a plain network from the features to every card's locations learned the
    training deals by heart and was worse than uniform on new ones):

    - the context: an MLP (ReLU) of the seat's features;
    - per card: one ReLU layer of the context and the card's own features
      (the game's :meth:`card_features`: suit, trump, rank, the unseen cards
      above it, the voids in its suit), the same weights for every card;
    - its logits per location: a linear layer of that, plus a learned bias per
      card and location.

    The file (``.npz``): ``c{i}w, c{i}b`` (the context layers), ``kh, kf, kb``
    (the card layer: from the context, from the card features, bias), ``ow,
    ob`` (the output), ``bias`` (deck x locations) and ``meta`` (JSON: game,
    players, input size, locations, context layers).
    """

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict):
        super().__init__(arrays, meta)
        self.deck = int(meta["deck"])
        self.locations = int(meta["locations"])
        self.context = [(arrays[f"c{i}w"], arrays[f"c{i}b"])
                        for i in range(int(meta["context_layers"]))]
        self.kh, self.kf, self.kb = arrays["kh"], arrays["kf"], arrays["kb"]
        self.ow, self.ob, self.bias = arrays["ow"], arrays["ob"], arrays["bias"]

    @staticmethod
    def table_keys(side) -> dict:
        return {"locations": side.locations}

    def probabilities(self, features: np.ndarray, cards: np.ndarray) -> np.ndarray:
        """``(deck, locations)`` probabilities for one feature vector and its card features
        ``(deck, k)`` (or a batch of both: leading axes)."""
        h = features
        for w, b in self.context:
            h = np.maximum(h @ w + b, 0.0)
        z = np.maximum((h @ self.kh)[..., None, :] + cards @ self.kf + self.kb, 0.0)
        x = z @ self.ow + self.ob + self.bias
        x = x - x.max(axis=-1, keepdims=True)
        np.exp(x, out=x)
        return x / x.sum(axis=-1, keepdims=True)


def flat(hidden: Hidden) -> list[list[float]]:
    """The flat model's weights: every card, every location alike (the uniform sampler)."""
    return [[1.0] * len(hidden.sizes) for _ in hidden.cards]


def ratios(probs: np.ndarray, hidden: Hidden, temper: float = 1.0) -> list[list[float]]:
    """Per unseen card, the walk's weights ``(p / prior) ** temper`` over the locations."""
    total = len(hidden.cards)
    prior = np.array([s / total if s else 1.0 for s in hidden.sizes])
    r = probs[hidden.cards] / prior
    if temper != 1.0:
        r = r ** temper
    return np.maximum(r, 1e-12).tolist()


class Plan(NamedTuple):
    """What :func:`walk` precomputes from a :class:`Hidden` (once per decision in the search).

    ``order``: the walk's order of the unseen cards (indices into
    ``hidden.cards``): first the constrained ones (some location may not hold
    them), then the free ones, each group ascending; ``patterns``: per card
    the set of locations that may hold it; ``slack``: per set of locations
    ``B``, its room minus the cards that may lie only within ``B``;
    ``constrained``: how many cards lead the order.
    """

    order: list[int]
    patterns: list[int]
    slack: list[int]
    containing: list[list[int]]
    constrained: int


def plan(hidden: Hidden) -> Plan:
    """The walk's order and Hall bookkeeping for ``hidden``; ValueError if no deal fits."""
    sizes, bans = hidden.sizes, hidden.bans
    nb = len(sizes)
    full = (1 << nb) - 1
    patterns = []
    for c in hidden.cards:
        p = 0
        for b in range(nb):
            if not (bans[b] >> c) & 1:
                p |= 1 << b
        patterns.append(p)
    bound = [i for i, p in enumerate(patterns) if p != full]
    free = [i for i, p in enumerate(patterns) if p == full]
    slack = [sum(sizes[b] for b in range(nb) if B >> b & 1) for B in range(full + 1)]
    for p in patterns:
        for B in range(full + 1):
            if p & ~B == 0:
                slack[B] -= 1
    if min(slack) < 0 or 0 in patterns:
        raise ValueError("belief: no deal of the unseen cards fits the constraints")
    containing = [[B for B in range(full + 1) if B >> b & 1] for b in range(nb)]
    return Plan(bound + free, patterns, slack, containing, len(bound))


def walk(weights: list[list[float]], hidden: Hidden, rng: random.Random | None = None,
         truth: list[int] | None = None, steps: Plan | None = None,
         want_log: bool = True) -> tuple[list[int], float]:
    """The constrained draw of the module docstring: (locations, log-probability).

    With ``rng``: draw the locations (one per card of ``hidden.cards``).  With
    ``truth``: follow them and return their log-probability under the same
    walk (the measure of a model: :func:`log_likelihood`); ``want_log=False``
    skips the log-probability of a draw (0.0), for speed.  The order
    (:class:`Plan`): the cards some location may not hold first, then the free
    ones, each group by card id.  Feasibility is Hall's condition over the
    sets of locations: for every set ``B``, the cards still to place that may
    lie only in ``B`` fit into ``B``'s room - kept as a slack per set.  Once
    the constrained cards are placed any free card fits anywhere with room, so
    the free cards (all of them, before any void is shown) cost no check.
    """
    steps = steps or plan(hidden)
    patterns, containing = steps.patterns, steps.containing
    nb = len(hidden.sizes)
    full = (1 << nb) - 1
    slack = steps.slack[:]
    room = list(hidden.sizes)
    out = [0] * len(patterns)
    logp = 0.0
    log = math.log
    score = truth is not None or want_log
    for k, i in enumerate(steps.order):
        w = weights[i]
        if k < steps.constrained:
            p = patterns[i]
            for B in range(full + 1):  # this card no longer waits for a place
                if p & ~B == 0:
                    slack[B] += 1
            options = [b for b in range(nb) if p >> b & 1 and room[b]
                       and min(slack[B] for B in containing[b]) >= 1]
        else:
            options = [b for b in range(nb) if room[b]]
        ws = [w[b] * room[b] for b in options]
        total = sum(ws)
        if truth is not None:
            j = options.index(truth[i])
        else:
            r = rng.random() * total
            j = 0
            while j < len(ws) - 1 and r >= ws[j]:
                r -= ws[j]
                j += 1
        b = options[j]
        if score:
            logp += log(ws[j] / total)
        room[b] -= 1
        if k < steps.constrained:
            for B in containing[b]:
                slack[B] -= 1
        out[i] = b
    return out, logp


def log_likelihood(weights: list[list[float]], hidden: Hidden, truth: list[int]) -> float:
    """The log-probability of the true locations under :func:`walk` with ``weights``."""
    return walk(weights, hidden, truth=truth)[1]


class BeliefInference(ModelInference):
    """PIMC's worlds drawn from a belief model (``pimc:belief=...``): PIMC's inference hooks.

    ``draft`` draws the hidden locations by :func:`walk` (every world kept:
    chance 1), ``finish`` builds the world.  The forward pass runs once per
    decision: the weights are kept for the root state they were made for.
    It reads only the seat's features and the constraints - what the seat
    may know.
    """

    @staticmethod
    def side_of(game: Game):
        return adapter(game)

    @classmethod
    def of(cls, game: Game, which: str, temper: float = 1.0):
        """From a spec's ``belief=``: a game name (the bundled model) or a file.  A game of
        :data:`SECRETS` gets its own inference (``belief_secrets.SecretsInference``)."""
        if game.name in SECRETS:
            from stichzoo.policies.lab.belief_secrets import SecretsInference

            return SecretsInference.of(game, which, temper)
        path = bundled(which) if which in ADAPTERS else Path(which)
        if not path.is_file():
            raise ValueError(f"belief: no model file {path}")
        return cls(game, BeliefModel.load(path), temper)

    def answer(self, root: GameState, seat: int) -> tuple[Hidden, list[list[float]], Plan]:
        """The decision's constraints, walk weights and plan."""
        hidden = self.side.hidden(root, seat)
        x = self.side.features(root, seat)
        probs = self.model.probabilities(x, self.side.card_features(x))
        return hidden, ratios(probs, hidden, self.temper), plan(hidden)

    def draft(self, root: GameState, seat: int, rng: random.Random):
        hidden, weights, steps = self.weights(root, seat)
        return walk(weights, hidden, rng, steps=steps, want_log=False)[0], 1.0

    def finish(self, root: GameState, seat: int, locations: list[int],
               rng: random.Random) -> GameState:
        hidden, _, _ = self.weights(root, seat)
        return self.side.world(root, seat, hidden, locations, rng)
