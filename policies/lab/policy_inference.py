"""Policy-based inference for Wizard's PIMC: worlds weighted by the shipped network (issue 29).

``pimc:policy=S`` (optionally ``candidates=K``, ``plays=P``) draws each
decision's worlds by importance resampling:

1. ``K`` candidate deals of the hidden hands, drawn as PIMC draws them
   (``game.deal_others``: uniform among the deals that keep every void seen);
2. each candidate's weight is the likelihood of the other seats' observed
   decisions this round under the shipped Wizard network
   (``policies/bots/wizard/model.onnx``, onnxruntime), tempered by the
   strength: ``likelihood ** S``.  The decisions judged are every other seat's
   bid this round and, with ``plays=P``, its last ``P`` card plays (each with
   two or more legal cards in that world);
3. the search's ``N`` worlds are ``N`` distinct candidates drawn without
   replacement in proportion to the weights (Efraimidis-Spirakis keys), so
   no rollout is spent twice on one deal; only those are built into worlds
   (``game.world_of``).

A decision's observation in a candidate world is what its player saw then:
its hand then (its hidden cards in the world plus the cards it played this
round from that decision on) and the public facts of that time.  The public
part does not depend on the world, so it is encoded once per search decision
by replaying the round's public history (the hands in the replay hold only
the cards their seats played, and the seat's own); per candidate only the
hand bits (and, for a card play, the legal mask) change, and all candidates'
decisions go through the network in one ``session.run``.

It reads only what the seat may know: its own hand, the public history of
the round (bids, plays, the turned card, scores) and the sampled hands.  The
network's input is the bot's own observation (the env's encoder), with one
change for tables other than the full game the bot was trained on (the
one-round probes): ``round_progress`` says where a round of this hand size
lies in the full game.

Numpy and onnxruntime only; no torch.
"""

from __future__ import annotations

import math
import random

import numpy as np

from stichzoo.envs.core.game import Game
from stichzoo.envs.wizard.rules import (
    BID,
    DECK_SIZE,
    FREE,
    JESTER0,
    PLAY,
    SUIT_MASK,
    WIZARD0,
    HiddenDeal,
    WizardState,
    played_this_round,
)
from stichzoo.policies.base import encoder_for

#: a decision's probability is floored here, so that one move the network finds absurd
#: lowers a world's weight a lot but never to zero
FLOOR = 1e-4
_BITS = np.arange(DECK_SIZE, dtype=np.int64)


def _bits_of(masks: np.ndarray) -> np.ndarray:
    """(..., ) int64 bitmasks -> (..., 60) float32 bits."""
    return ((masks[..., None] >> _BITS) & 1).astype(np.float32)


class Decisions:
    """The other seats' decisions of the round that the likelihood judges, in one decision's view.

    ``obs``: (D, size) float32 observations with the hand piece empty;
    ``seats``: whose decision; ``later``: the cards that seat played this round from that
    decision on (its hand then is its hand now plus these); ``actions``: what it chose;
    ``masks``: (D, actions) float32 legal masks for bids (independent of the hand), zero rows
    for plays; ``follow``: for plays the suit mask to follow (0: any card).
    """

    __slots__ = ("actions", "follow", "is_play", "later", "masks", "obs", "seats")

    def __init__(self, obs, seats, later, actions, masks, follow, is_play):
        self.obs = obs
        self.seats = seats
        self.later = later
        self.actions = actions
        self.masks = masks
        self.follow = follow
        self.is_play = is_play

    def __len__(self) -> int:
        return len(self.seats)


class PolicyInference:
    """PIMC's world sampler for ``pimc:policy=S``: see the module docstring."""

    def __init__(self, game: Game, strength: float = 1.0, candidates: int | None = None,
                 plays: int = 0, bot: str = "bot:wizard"):
        if game.name != "wizard":
            raise ValueError(f"pimc: {game.name} has no policy inference (policy=) yet")
        if isinstance(strength, bool) or not isinstance(strength, (int, float)) \
                or not 0 < strength <= 10:
            raise ValueError(f"pimc: policy={strength!r}; the strength is a number in (0, 10]")
        if candidates is not None and (isinstance(candidates, bool)
                                       or not isinstance(candidates, int)
                                       or not 1 <= candidates <= 1024):
            raise ValueError(f"pimc: candidates={candidates!r}; an integer from 1 to 1024 (at "
                             f"least the worlds)")
        if isinstance(plays, bool) or not isinstance(plays, int) or not 0 <= plays <= 64:
            raise ValueError(f"pimc: plays={plays!r}; the other seats' latest card plays "
                             f"judged, an integer from 0 to 64")
        from stichzoo.policies.runtimes.onnx_policy import bot_folder, load_model

        model = load_model(bot_folder(bot))  # checked against the game its manifest names
        theirs = model.game
        self.encoder = encoder_for(game)
        if theirs.num_players != game.num_players \
                or encoder_for(theirs).layout.describe() != self.encoder.layout.describe() \
                or theirs.num_actions != game.num_actions:
            raise ValueError(f"pimc: policy= judges with {bot}, a {theirs.num_players}-player "
                             f"network; this table has {game.num_players} players")
        self._model = model  # keeps the shared session alive
        self.session = model.session
        self.game = game
        self.strength = float(strength)
        self.candidates = candidates
        self.plays = plays
        self._bot_rounds = list(theirs.round_sizes)
        self._same_rounds = list(game.round_sizes) == self._bot_rounds
        self._hand0 = self.encoder.layout.offsets["hand"]
        self._progress = self.encoder.layout.offsets["round_progress"]
        self._cache_key = None
        self._cache: Decisions | None = None

    # -- PIMC's hooks --------------------------------------------------------------

    def __call__(self, world: WizardState, seat: int) -> float:
        return 1.0  # every world :meth:`sample` gives is kept

    def sample(self, root: WizardState, seat: int, rng: random.Random,
               count: int) -> list[WizardState]:
        """The search's ``count`` worlds for this decision (see the module docstring)."""
        game = self.game
        decisions = self.decisions(root, seat)
        if not len(decisions):  # nothing to explain: the uniform worlds, no extra draws
            return [game.world_of(root, seat, game.deal_others(root, seat, rng), rng)
                    for _ in range(count)]
        k = max(count, self.candidates or 3 * count)
        hands, pool = self.candidate_hands(root, seat, rng, k)
        logl = self.log_likelihoods(decisions, hands)
        keys = self.keys(logl, [rng.random() for _ in range(k)])
        chosen = sorted(range(k), key=lambda i: (-keys[i], i))[:count]
        return [game.world_of(root, seat, HiddenDeal(hands[i], pool), rng) for i in chosen]

    def candidate_hands(self, root: WizardState, seat: int, rng: random.Random,
                        k: int) -> tuple[list[list[int]], list[int]]:
        """``k`` re-deals of the hidden hands, uniform among those that keep every void seen
        (as ``game.deal_others``), drawn together with numpy: random permutations of the
        unseen cards, those that break a void thrown away (exact rejection); if that keeps
        failing, the rest by ``deal_others``.  Returns every seat's hands per candidate and
        the unseen cards (the pool ``world_of`` takes the undealt rest from)."""
        unseen, others, sizes, ban_list = self.game.hidden_part(root, seat)
        bans = np.array(ban_list, np.int64)
        cards = np.int64(1) << np.array(unseen, np.int64)
        gen = np.random.default_rng(rng.getrandbits(63))
        out: list[list[int]] = []
        for _ in range(4):
            want = k - len(out)
            if not want:
                break
            rows = want if not bans.any() else 3 * want
            perm = np.argsort(gen.random((rows, len(unseen))), axis=1)
            bits = cards[perm]
            dealt = np.empty((rows, len(others)), np.int64)
            at = 0
            for i, size in enumerate(sizes):
                dealt[:, i] = np.bitwise_or.reduce(bits[:, at:at + size], axis=1) if size else 0
                at += size
            ok = ~(dealt & bans).any(axis=1)
            for row in dealt[ok][:want].tolist():
                hands = root.hands[:]
                for p, h in zip(others, row):
                    hands[p] = h
                out.append(hands)
        while len(out) < k:  # voids that almost no random deal keeps: the exact sampler
            out.append(self.game.deal_others(root, seat, rng).hands)
        return out, unseen

    def keys(self, logl: np.ndarray, uniforms: list[float]) -> list[float]:
        """Efraimidis-Spirakis keys ``log(u) / w`` with ``w = likelihood ** S`` (relative to
        the likeliest): the ``count`` largest keys are a draw without replacement in
        proportion to ``w``."""
        w = self.strength * (logl - float(np.max(logl)))
        return [math.log(max(u, 1e-300)) * math.exp(-float(x)) for u, x in zip(uniforms, w)]

    # -- the likelihood ------------------------------------------------------------

    def log_likelihoods(self, decisions: Decisions, hands: list[list[int]]) -> np.ndarray:
        """Each candidate's summed log-probability of the decisions (floored at
        :data:`FLOOR`): one network call for all candidates x decisions."""
        k, d = len(hands), len(decisions)
        now = np.array([[h[p] for p in decisions.seats] for h in hands], np.int64)  # (k, d)
        held = now | decisions.later[None, :]  # each decision's hand then
        obs = np.broadcast_to(decisions.obs, (k, d, decisions.obs.shape[1])).copy()
        h0 = self._hand0
        obs[:, :, h0:h0 + DECK_SIZE] = _bits_of(held)
        masks = np.broadcast_to(decisions.masks, (k, d, decisions.masks.shape[1])).copy()
        if decisions.is_play.any():
            follow = decisions.follow[None, :]
            suited = held & follow
            legal = np.where((follow != 0) & (suited != 0), held & (follow | FREE), held)
            plays = decisions.is_play
            masks[:, plays, :DECK_SIZE] = _bits_of(legal[:, plays])
        probs = self.session.run(["probabilities"], {
            "observation": obs.reshape(k * d, -1),
            "action_mask": masks.reshape(k * d, -1)})[0].reshape(k, d, -1)
        p = np.take_along_axis(probs, np.broadcast_to(decisions.actions[None, :, None],
                                                      (k, d, 1)), axis=2)[:, :, 0]
        return np.log(np.maximum(p.astype(np.float64), FLOOR)).sum(axis=1)

    def decisions(self, root: WizardState, seat: int) -> Decisions:
        """The judged decisions of this search decision (cached for the same view)."""
        m = self._round_actions(root)
        key = (seat, root.round_index, tuple(root.history[len(root.history) - m:]),
               root.hands[seat], tuple(root.totals))
        if key != self._cache_key:
            self._cache = self._replay(root, seat)
            self._cache_key = key
        return self._cache

    @staticmethod
    def _round_actions(root: WizardState) -> int:
        """How many of the history's last entries are this round's: bids, plays and the
        dealer's trump choice."""
        bids = sum(b >= 0 for b in root.bids)
        # a Wizard turned and the dealer has chosen the trump
        chose = WIZARD0 <= root.trump_card < JESTER0 and root.phase in (BID, PLAY)
        return bids + root.played.bit_count() + chose

    def _replay(self, root: WizardState, seat: int) -> Decisions:
        """Replay the round's public history; encode each judged decision's public view."""
        n = root.num_players
        m = self._round_actions(root)
        acts = root.history[len(root.history) - m:] if m else []
        played_by = played_this_round(root)
        s = root.clone()
        # open the round from a public deck order: only the turned card's place matters,
        # and every hand is overwritten at once with what is known of it
        r = root.hand_size
        order = [c for c in range(DECK_SIZE) if c != root.trump_card]
        if root.trump_card >= 0:
            order.insert(n * r, root.trump_card)
        orders = list(root.deck_orders)
        orders[root.round_index] = tuple(order)
        s.deck_orders = orders
        s.start_round(root.round_index)
        s.totals = root.totals[:]
        s.hands = [played_by[p] | (root.hands[p] if p == seat else 0) for p in range(n)]
        plays_left = [0] * n  # cards each seat plays from this point of the replay on
        for p, a in acts:
            if a < DECK_SIZE:
                plays_left[p] |= 1 << a
        # the other seats' card plays judged: the last ``plays`` of them
        other_plays = [i for i, (p, a) in enumerate(acts) if p != seat and a < DECK_SIZE]
        judged_plays = set(other_plays[len(other_plays) - self.plays:]) if self.plays else set()
        size = self.encoder.layout.size
        rows, seats, later, actions, masks, follow, is_play = [], [], [], [], [], [], []
        bid0 = self.game.bid0
        for i, (p, a) in enumerate(acts):
            judged = p != seat and ((s.phase == BID and a >= bid0) or i in judged_plays)
            if judged:
                out = np.zeros(size, np.float32)
                self.encoder.encode(s, p, out)
                out[self._hand0:self._hand0 + DECK_SIZE] = 0.0
                if not self._same_rounds and s.hand_size in self._bot_rounds:
                    out[self._progress] = self._bot_rounds.index(s.hand_size) / len(
                        self._bot_rounds)
                mask = np.zeros(self.game.num_actions, np.float32)
                play = s.phase == PLAY
                if not play:
                    legal = s.legal_mask()
                    mask[[b for b in range(self.game.num_actions) if legal >> b & 1]] = 1.0
                rows.append(out)
                seats.append(p)
                later.append(plays_left[p])
                actions.append(a)
                masks.append(mask)
                follow.append(SUIT_MASK[s.follow] if play and s.follow >= 0 else 0)
                is_play.append(play)
            if a < DECK_SIZE:
                plays_left[p] &= ~(1 << a)
            s.apply(a)
        if not rows:
            return Decisions(np.zeros((0, size), np.float32), [], np.zeros(0, np.int64),
                             np.zeros(0, np.int64), np.zeros((0, self.game.num_actions),
                                                            np.float32),
                             np.zeros(0, np.int64), np.zeros(0, bool))
        return Decisions(np.stack(rows), seats, np.array(later, np.int64),
                         np.array(actions, np.int64), np.stack(masks),
                         np.array(follow, np.int64), np.array(is_play, bool))


__all__ = ["FLOOR", "Decisions", "PolicyInference"]
