"""Determinised Monte-Carlo search (PIMC) for all five games.

Perfect-information Monte Carlo: the seat cannot see the other hands, so it
samples worlds that agree with everything it has seen
(``game.determinize(state, seat, rng)``: hands re-dealt with the voids it
has observed, secret choices and future deals re-drawn), tries every legal
action in each world, plays each out with a cheap rollout policy and takes
the action with the best average value.  It needs nothing from a game but
cloning, ``determinize`` and the scores, so one implementation serves all
five; a game may lend a better rollout policy or value (its policy module's
``rollout_policy`` and ``search_value``).

Rollouts stop at the end of the current round (``horizon="round"``) by
default: in these games a round's score is settled within the round, and a
whole-game rollout costs 10-20x more for little extra signal.

The learned search bot (``pimc:guide=bot:wizard``) is the same search with a
trained network as its prior: the network, reading only the seat's own
observation, names its ``keep`` most likely actions, and the search spends
the work it would have spread over every legal action on those few - more
worlds each, so less sampling noise where it matters.
The network costs one forward pass per decision; the think time stays that
of plain PIMC at the same budget (``scripts/bench/search_time.py`` measures it).
``phases=`` names the phases where the guide prunes (elsewhere the search is
plain PIMC, every legal action searched); ``follow=`` those where the
network decides alone.  A game's ``GUIDE_DEFAULTS`` set them where measured:
Wunder Punkt's learned search asks its network only for the sore card, where
PIMC's one-round evaluation picks worse, and plays the cards as plain PIMC.

Every search also says what it thinks of each action: :meth:`PIMCPolicy.values`
gives each legal action's mean value over its worlds with a standard error,
and its difference to the chosen action paired world by world (the worlds
are shared, so the deal's luck cancels).  ``act`` plays the action of
exactly those values - one search, read two ways - and the bot server's
hints (``POST /bots/{name}/hint``) are these values.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import Game, GameState
from stichzoo.envs.core.rewards import margin  # score_gain's measure; re-exported
from stichzoo.policies.base import Decision, Policy, check_phases

#: value of a finished rollout for ``seat``: (state at the root, state at the end, seat) -> float
ValueFn = Callable[[GameState, GameState, int], float]

#: a game's inference: (sampled world, seat) -> how well the world explains what the other seats
#: did, as a keep chance in [0, 1] (1: as likely as any world can be).  An inference may also
#: judge a cheaper draft: ``draft(root, seat, rng) -> (draft, chance)`` and
#: ``finish(root, seat, draft, rng) -> world`` for the draft the sampler keeps; or draw all of a
#: decision's worlds at once: ``sample(root, seat, rng, count) -> worlds`` (``pimc:policy=``,
#: importance resampling, ``policies/lab/policy_inference.py``).
Inference = Callable[[GameState, int], float]


class LeafHook(Protocol):
    """A learned value at the leaves (``pimc:leaf=``, ``policies/runtimes/leaf_value.py``), in
    place of the play-outs: each searched action's margin in each sampled world, one batch per
    decision."""

    def values(self, worlds: list[GameState], actions: list[int], seat: int,
               rng: random.Random) -> Any:
        """(worlds, actions) margins (an array with ``.T.tolist()``); ``rng``: the search's,
        for any play-out before the value."""


def score_gain(root: GameState, end: GameState, seat: int) -> float:
    """The seat's score change over the rollout, minus the mean change of the others.

    The margin rather than the own score: in every game here the game is won
    against the table, and a move that costs everybody equally is neutral.
    """
    return margin([end.totals[i] - root.totals[i] for i in range(len(end.totals))], seat)


#: a game's fast play-out of one round: (state in a round, rng) -> the round's scores, the cards
#: those PIMC's own play-out with the same rollout player (None: uniform) would play, drawing
#: from the rng exactly what it draws (Hoch & Tief's uniform, Wizard's rollout player)
Playout = Callable[[GameState, random.Random], list[int]]


class _RoundEnd:
    """A fast play-out's end as a value function reads it: the totals after the round."""

    __slots__ = ("totals",)

    def __init__(self, root: GameState, scores: list[int]):
        self.totals = [t + d for t, d in zip(root.totals, scores, strict=True)]


@dataclass(frozen=True)
class ActionValue:
    """What the search thinks of one legal action.

    ``value`` is the mean of the search's value (``ValueFn``: by default the
    seat's score margin over the rest of the round) over ``worlds`` sampled
    worlds x the rollouts in each; ``stderr`` its standard error over the
    worlds (a world is the unit: rollouts in one world share its deal).
    ``difference`` is ``value`` minus the chosen action's value and
    ``difference_stderr`` its standard error from the per-world differences:
    every action was played in the same worlds, so the luck of a deal that
    lifts or sinks both actions cancels (usually tighter than the two
    ``stderr`` together would say).  An action the search did
    not play (outside the guide's candidates, or a forced move) has
    ``value`` None, ``worlds`` 0 and a ``reason``.  A standard error needs
    two worlds: with one it is None.
    """

    action: int
    value: float | None
    stderr: float | None
    worlds: int
    difference: float | None
    difference_stderr: float | None
    reason: str | None = None


@dataclass(frozen=True)
class SearchValues:
    """One search: the action ``act`` plays, why, and every legal action's value (by id)."""

    action: int
    why: str
    values: tuple[ActionValue, ...]

    def of(self, action: int) -> ActionValue:
        """The value of one legal action; KeyError for an action that is not legal."""
        for v in self.values:
            if v.action == action:
                return v
        raise KeyError(action)


def _stderr(xs: list[float]) -> float | None:
    """The standard error of the mean of ``xs`` (None for fewer than two).

    Plain floats, not ``statistics.variance`` (exact fractions, ~50x
    slower): every move computes these, and they must not add think time.
    """
    n = len(xs)
    if n < 2:
        return None
    mean = sum(xs) / n
    return (sum((x - mean) ** 2 for x in xs) / ((n - 1) * n)) ** 0.5


def _by_guide(probs) -> Callable[[int], tuple[float, int]]:
    """Sort key of actions by the guide: the likeliest first, ties to the lower id, so a
    choice never depends on the order the actions came in."""
    return lambda action: (-float(probs[action]), action)


def _phases(game: Game, key: str, value, guide) -> tuple[str, ...]:
    """``follow=`` / ``phases=`` as a tuple of the game's phase names (``+`` joins several;
    ``none`` or empty: no phase), refused by name when unknown or without a guide."""
    named = tuple(value.split("+")) if isinstance(value, str) else tuple(value)
    named = tuple(p for p in named if p and p != "none")
    if not named:
        return ()
    if guide is None:
        raise ValueError(f"pimc: {key} needs a guide (pimc:guide=bot:<game>,{key}=<phase>)")
    try:
        check_phases(game, named)
    except ValueError as e:
        raise ValueError(f"pimc: {key}={'+'.join(named)}; {e} (join several with +)") from None
    return named


class PIMCPolicy:
    """PIMC search with a budget of ``worlds`` sampled worlds x ``rollouts`` per action."""

    name = "pimc"

    def __init__(self, game: Game, worlds: int = 12, rollouts: int = 1, seed: int | None = None,
                 rollout: Policy | None = None, value: ValueFn | None = None,
                 horizon: str = "round", guide=None, keep: int = 3, trust: float = 0.0,
                 infer: Inference | None = None, tries: int = 8, playout: Playout | None = None,
                 world_cost: float = 1.0, follow: str | tuple[str, ...] = (),
                 phases: str | tuple[str, ...] = (), leaf: LeafHook | None = None,
                 kernel: bool = False, endgame: int = 0,
                 solver: Callable[..., list[float]] | None = None,
                 endgame_phases: tuple[str, ...] = ("play",)):
        if worlds < 1 or rollouts < 1:
            raise ValueError("pimc: worlds and rollouts must be at least 1")
        if (isinstance(world_cost, bool) or not isinstance(world_cost, (int, float))
                or not 0 <= world_cost <= 100):
            raise ValueError(f"pimc: world_cost={world_cost!r}; a world's sampling cost in "
                             f"rollouts is a number from 0 to 100")
        if isinstance(tries, bool) or not isinstance(tries, int) or not 1 <= tries <= 64:
            raise ValueError(f"pimc: tries={tries!r}; the worlds drawn per kept world must be "
                             f"an integer from 1 to 64")
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise ValueError(f"pimc: keep={keep!r}; the guide's candidates must be an "
                             f"integer of at least 1")
        if isinstance(trust, bool) or not isinstance(trust, (int, float)) or not 0 <= trust <= 10:
            raise ValueError(f"pimc: trust={trust!r}; it is a number of standard errors "
                             f"from 0 to 10")
        if trust and guide is None:
            raise ValueError("pimc: trust needs a guide (pimc:guide=bot:<game>,trust=1)")
        if guide is not None and not callable(getattr(guide, "probabilities", None)):
            raise ValueError("pimc: the guide must be a trained network (bot:, onnx: or ppo:) "
                             "that gives action probabilities")
        follow = _phases(game, "follow", follow, guide)
        phases = _phases(game, "phases", phases, guide)
        if horizon not in ("round", "game"):
            raise ValueError(f"pimc: horizon={horizon!r}; choose 'round' or 'game'")
        if leaf is not None and (rollouts != 1 or horizon != "round"):
            raise ValueError("pimc: a leaf value replaces the play-out of the round: "
                             "rollouts=1 and horizon=round")
        if not hasattr(game, "determinize"):
            raise ValueError(f"pimc: {game.name} has no determinize(); search needs it")
        if isinstance(endgame, bool) or not isinstance(endgame, int) or not 0 <= endgame <= 6:
            raise ValueError(f"pimc: endgame={endgame!r}; it is the cards a hand from which the "
                             f"round is solved exactly, an integer from 0 (never) to 6")
        if endgame and solver is None:
            raise ValueError(f"pimc: endgame={endgame}; {game.name} has no exact endgame")
        if endgame and horizon != "round":
            raise ValueError("pimc: the exact endgame solves the round: horizon=round")
        self.game = game
        self.worlds = worlds
        self.rollouts = rollouts
        self.rng = random.Random(seed)
        self.rollout = rollout
        self.value = value or score_gain
        self.horizon = horizon
        self.guide = guide
        self.keep = keep
        self.world_cost = float(world_cost)
        self.follow = follow
        self.phases = phases
        self.trust = float(trust)
        self.infer = infer
        self.tries = tries
        # the fast path plays exactly the round the rollout player (None: uniform) would play,
        # valued by the search's value of its totals; the caller pairs it with its rollout
        self.playout = playout if horizon == "round" else None
        self.leaf = leaf
        # the exact endgame (pimc:endgame=K): from K cards in the hand of the seat to act,
        # each world's rest of the round is solved (``solver``: the game's hooks.endgame)
        self.endgame = endgame
        self.solver = solver if endgame else None
        self.endgame_phases = tuple(endgame_phases)
        # the kernel's twin of the fast path (envs/kernel/src/<game>_search.c): the same
        # worlds, play-outs and draws in C, where the game has one and the spec asked for
        # the game's own play-out and value (``kernel``; STICHZOO_KERNEL=python: never)
        self._kernel = None
        self._kernel_plays = kernel and self.playout is not None and leaf is None
        if (self._kernel_plays or (kernel and endgame)) and infer is None:
            from stichzoo.envs.kernel import load

            k = load(game)
            if k is not None and k.has_search and (k.has_solver or not endgame):
                from stichzoo.envs.registry import env_module

                self._kernel = k
                self._kernel_rows = k.new_states(1)
                self._encoder = env_module(game.name).raw_env.encoder_cls(game)
        if guide is not None:
            self.name = "pimc+guide"

    def candidates(self, decision: Decision, legal: list[int]) -> tuple[list[int], int]:
        """The actions to search and the worlds for each, at the budget of searching all.

        Without a guide: every legal action, ``worlds`` worlds.  With one: the
        guide's ``keep`` most likely actions (ties to the lower id) and as
        many worlds as the plain search's cost buys.  A world costs its
        sampling (``world_cost`` rollouts: ``determinize`` re-deals and
        rebuilds the round - about one rollout in Wizard and Geheimtrumpf,
        two in Hoch & Tief, whose play-outs run on bare bitmasks, a fifth
        in Wunder Punkt and Silberne Ananas, whose rollout players think)
        plus one rollout per action searched in it, so ``worlds`` x
        (legal + c) = W x (keep + c).  The games' ``SEARCH_DEFAULTS`` set c
        from a profile of the search (cProfile: ``determinize`` against the
        play-outs), so the learned search thinks as long as plain PIMC.
        """
        chosen, worlds, _ = self._candidates(decision, legal)
        return chosen, worlds

    def _candidates(self, decision: Decision, legal: list[int]):
        """:meth:`candidates` and the guide's probabilities (None where it was not asked),
        so that ``trust`` needs no second forward pass."""
        if self.guide is None or (len(legal) <= self.keep and not self.trust):
            return legal, self.worlds, None
        if self.phases and decision.state.phase_name not in self.phases:
            return legal, self.worlds, None  # a phase the guide is not asked in: plain PIMC
        probs = self.guide.probabilities(decision.observation, decision.action_mask)
        ranked = sorted(legal, key=_by_guide(probs))
        chosen = sorted(ranked[:self.keep])
        c = self.world_cost
        return chosen, int(self.worlds * (len(legal) + c) // (len(chosen) + c)), probs

    def act(self, decision: Decision) -> int:
        return self.values(decision).action

    def values(self, decision: Decision) -> SearchValues:
        """Search the decision: the action to play and every legal action's value.

        The same rollouts, in the same order and from the same RNG, as the
        search has always played, so ``act`` (which is this method's
        ``action``) plays what it did before values were reported.  A forced
        move is not searched: its one action has no value.
        """
        legal = decision.legal_actions
        if len(legal) == 1:
            return SearchValues(legal[0], "the only legal action", (ActionValue(
                legal[0], None, None, 0, None, None, "the only legal action: not searched"),))
        phase = decision.state.phase_name
        if phase in self.follow:
            return self._followed(decision, legal, phase)
        searched, worlds, probs = self._candidates(decision, legal)
        seat = decision.seat
        root = decision.state
        totals = [0.0] * len(searched)
        # each world's summed rollout values per action: the standard errors and trust read it
        per_world = [[0.0] * worlds for _ in searched]
        sample = self.game.determinize if self.infer is None else self._inferred
        playout, round_index = self.playout, root.round_index
        batch = getattr(self.infer, "sample", None)
        if batch is not None:  # an inference that draws all the decision's worlds at once
            drawn = iter(batch(root, seat, self.rng, worlds))
            sample = lambda root, seat, rng: next(drawn)  # noqa: E731
        grid = None
        solving = (bool(self.endgame) and phase in self.endgame_phases
                   and root.hands[seat].bit_count() <= self.endgame)
        if self._kernel is not None and batch is None and self.infer is None and (
                solving or self._kernel_plays):
            grid = self._kernel_values(root, seat, searched, worlds, solving)
        if grid is None and solving:  # the exact endgame: each world solved, no play-out draws
            grid = [[[value] * self.rollouts
                     for value in self.solver(sample(root, seat, self.rng), searched, seat)]
                    for _ in range(worlds)]
        if grid is not None:  # the same sums, in the same order, as the loop below
            for w in range(worlds):
                for i in range(len(searched)):
                    for value in grid[w][i]:
                        totals[i] += value
                        per_world[i][w] += value
        elif self.leaf is not None:  # one forward pass values every action in every world
            grid = self.leaf.values([sample(root, seat, self.rng) for _ in range(worlds)],
                                    searched, seat, self.rng)
            per_world = grid.T.tolist()
            totals = [sum(row) for row in per_world]
        else:
            for w in range(worlds):
                world = sample(root, seat, self.rng)
                for i, action in enumerate(searched):
                    for _ in range(self.rollouts):
                        s = world.clone()
                        s.apply(action)
                        if playout is not None and s.round_index == round_index and not s.over:
                            value = self.value(root, _RoundEnd(root, playout(s, self.rng)),
                                               seat)
                        else:
                            self._play_out(s, round_index)
                            value = self.value(root, s, seat)
                        totals[i] += value
                        per_world[i][w] += value
        # ties: the lowest action id, so the choice does not depend on rng state
        best = totals.index(max(totals))
        chosen, why = best, "the best value"
        if self.trust and probs is not None and worlds > 1:
            chosen = self._trusted(per_world, best, probs, searched)
            why = (f"the guide's favourite among the actions within trust={self.trust:g} "
                   f"standard errors of the best")
        return SearchValues(searched[chosen], why,
                            self._action_values(legal, searched, totals, per_world, chosen))

    def _kernel_values(self, root: GameState, seat: int, searched: list[int],
                       worlds: int, solving: bool = False) -> list | None:
        """Every world's play-out values, (worlds, actions, rollouts), from the kernel's
        search - drawn from this search's generator exactly as the loops in :meth:`values`
        draw; each world solved exactly where ``solving`` - or None where the root has no
        kernel twin (the loops run then)."""
        import numpy as np

        from stichzoo.envs.kernel import twin

        k = self._kernel
        if twin(k, root, self._kernel_rows, self._encoder) is None:
            return None
        version, internal, gauss = self.rng.getstate()
        # the endgame argument only where it solves: the call stays the plain one elsewhere
        extra = (self.endgame,) if solving else ()
        raw, internal = k.pimc(self._kernel_rows, 0, seat, np.array(searched, np.int32),
                               worlds, self.rollouts, internal, *extra)
        self.rng.setstate((version, internal, gauss))
        return np.frombuffer(raw, np.float64).reshape(worlds, len(searched),
                                                      self.rollouts).tolist()

    def _followed(self, decision: Decision, legal: list[int], phase: str) -> SearchValues:
        """A phase the guide decides alone (``follow``): its favourite, nothing searched.

        Where the network's choice is measured better than what PIMC's own
        evaluation would pick - Wunder Punkt's sore card, valued by PIMC from
        one round played out by its rollout player in a few worlds, while the
        network learned it from the outcome of whole games - the search
        defers to it (ties to the lower id), at no search cost.
        """
        probs = self.guide.probabilities(decision.observation, decision.action_mask)
        action = min(legal, key=_by_guide(probs))
        why = f"the guide's favourite: the {phase} phase is the network's (follow)"
        return SearchValues(action, why, tuple(
            ActionValue(a, None, None, 0, None, None,
                        f"not searched: the guide decides the {phase} phase") for a in legal))

    def _inferred(self, root: GameState, seat: int, rng: random.Random) -> GameState:
        """A world drawn by what the other seats did: rejection sampling from the uniform worlds.

        Each uniform world (``determinize``) is kept with the chance the game's
        inference gives it - how well its hidden hands explain the bids and
        plays seen so far - so the kept worlds follow the posterior, not the
        prior.  After ``tries`` draws without a keep the likeliest of them is
        taken: the cost per world is bounded, and a table whose moves no
        world explains well still gets its best guesses.
        """
        infer = self.infer
        # an inference may judge a cheaper draft of the world (Wizard: the hands alone) and
        # build the world only for the draft it keeps; by default the draft is the world
        draft = getattr(infer, "draft", None)
        finish = getattr(infer, "finish", None)
        best, best_chance = None, -1.0
        for _ in range(self.tries):
            if draft is None:
                candidate = self.game.determinize(root, seat, rng)
                chance = infer(candidate, seat)
            else:
                candidate, chance = draft(root, seat, rng)
            if rng.random() < chance:
                break
            if chance > best_chance:
                best, best_chance = candidate, chance
        else:
            candidate = best
        return candidate if finish is None else finish(root, seat, candidate, rng)

    def _action_values(self, legal: list[int], searched: list[int], totals: list[float],
                       per_world: list[list[float]], chosen: int) -> tuple[ActionValue, ...]:
        """Each legal action's :class:`ActionValue` from the rollouts of :meth:`values`."""
        n = self.rollouts
        worlds = len(per_world[chosen])
        means = per_world if n == 1 else [[v / n for v in row] for row in per_world]
        top = totals[chosen] / (worlds * n)
        index = {a: i for i, a in enumerate(searched)}
        out = []
        for action in legal:
            i = index.get(action)
            if i is None:
                out.append(ActionValue(action, None, None, 0, None, None,
                                       f"not searched: outside the guide's {len(searched)} "
                                       f"candidates"))
                continue
            value = totals[i] / (worlds * n)
            diffs = [v - c for v, c in zip(means[i], means[chosen], strict=True)]
            out.append(ActionValue(action, value, _stderr(means[i]), worlds,
                                   0.0 if i == chosen else value - top,
                                   0.0 if i == chosen else _stderr(diffs)))
        return tuple(out)

    def _trusted(self, per_world: list[list[float]], best: int, probs, legal: list[int]) -> int:
        """The guide's favourite among the actions the search cannot tell from its best.

        Each candidate was played out in the same worlds as the best, so the
        paired difference per world measures how much worse it is with the
        deal's luck taken out; a candidate within ``trust`` standard errors of
        the best is as good as the search can tell, and there the network -
        trained on the outcome of millions of whole games, not on one
        round's rollouts by a heuristic - breaks the tie.
        """
        n = len(per_world[best])
        level = []
        for i, vals in enumerate(per_world):
            diffs = [b - v for b, v in zip(per_world[best], vals, strict=True)]
            mean = statistics.fmean(diffs)
            if mean <= self.trust * (statistics.variance(diffs, mean) / n) ** 0.5:
                level.append(i)
        order = _by_guide(probs)
        return min(level, key=lambda i: order(legal[i]))

    def _play_out(self, s: GameState, round_index: int) -> None:
        stop_at_round = self.horizon == "round"
        rollout = self.rollout
        choice = self.rng.choice
        game = self.game
        while not (s.over or s.truncated):
            if stop_at_round and s.round_index != round_index:
                return
            if rollout is None:
                s.apply(choice(bit_list(s.legal_mask())))
            else:
                s.apply(rollout.act(Decision(game, s)))
