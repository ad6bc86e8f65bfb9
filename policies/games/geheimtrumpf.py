"""Geheimtrumpf bots: a rule-based heuristic and the hints for the search bot.

The game in one line: draft a hand from face-up rows while deducing the
secret trumps from the announced row winners, then pick one of your tasks
("no trick", "exactly two", "no hearts" ...) and play to meet it.

Heuristic (reads only what its seat sees: the public hands, rows, row
winners and tasks, the trumps once it knows them, its own task choice and
the others' once revealed):

* **Card strength** (``envs/geheimtrumpf/chances.py``, which the
  observation's draft reading shares).  Under a trump draw each card gets a
  static chance to win a trick (Obertrumpf ~1, other trump-value cards,
  trump suit by rank, plain cards by rank in their suit, damped by how many
  trumps exist) and a chance to win the *last* trick.  A seat that does not
  know the trumps averages these chances over every (suit, value) draw that
  agrees with all row winners announced so far
  (:func:`stichzoo.envs.geheimtrumpf.rules.consistent_trumps`).  A hand's
  trick count is then a Poisson-binomial of its cards' chances.
* **Task draft** (game start): a fixed preference order measured in
  duplicate play against the other orders - "one trick" (one sure winner,
  the rest low), "last trick" (keep the top trump), "most tricks", then the
  "no suit" tasks (at most two of them), then "no trick", "fewest", "two",
  "three" - so the four tasks mix counts, control and avoidance and most
  hands fit one of them.
* **Card draft**: for every unchecked task, project the hand to the end of
  the draft (each later row gives the card that task wants: low for "no
  trick"/"fewest"/"no suit" - no cards of the forbidden suit -, high for
  "most", a mix that lands on the count for "exactly k", one top trump for
  "last trick") and estimate the chance to meet the task; take the row card
  that maximises the best task's chance.
* **Task choice**: the unchecked task with the highest estimated chance
  under the now revealed trumps ("most"/"fewest" compare with the other
  players' public hands).
* **Play** (``envs/geheimtrumpf/steering.py``, which the observation's
  trick reading shares): steer to the task - win tricks while short of the count or for
  "most", duck otherwise (the highest card that cannot win, or the card most
  likely to be overtaken), keep the top trump for "last trick", shed cards
  of the forbidden suit into others' tricks; winning leads use cards no
  other hand can beat (all hands are public).  The start player, who chose
  nothing, adopts the chosen task of another player that its own hand meets
  best (it checks off a task when it meets one another player missed).
* **Check-off**: the unchecked task that is hardest to meet ("three",
  "two", "no trick", "fewest", "one", "last", "most", then the "no suit"
  tasks; measured success rates), so the easy ones stay for later rounds.

Search hints: the rollout policy (:class:`Rollout`) is the heuristic with a
cheap card draft (one target strength per seat from its open tasks, read
off the sampled world's trumps); the value is the round's tasks-checked
margin (the default :func:`stichzoo.policies.search.score_gain`).  At 3 worlds a
full 4-player game with one PIMC seat and three heuristics takes ~0.85 s
(3 players ~0.65 s) on one core; every draft, choice and play decision of
the round is searched.
"""

from __future__ import annotations

import random

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.geheimtrumpf.chances import (
    CARD_CHANCES,
    belief,
    row_chances,
    task_chance,
    trick_dist,
)
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    CHECK_OFF,
    FEWEST_TRICKS,
    LAST_TRICK,
    MOST_TRICKS,
    NO_SUIT0,
    NO_TRICK,
    NUM_TASKS,
    PLAY,
    ROWS,
    TASK_CHOICE,
    TASK_DRAFT,
    THREE_TRICKS,
)
from stichzoo.envs.geheimtrumpf.steering import play_card, play_for, target, task_chances
from stichzoo.policies.base import Decision
from stichzoo.policies.hooks import SearchHooks

#: PIMC budget: ~0.85 s per 4-player game with one PIMC seat (see the module docstring)
SEARCH_DEFAULTS = {"worlds": 3, "rollouts": 1, "horizon": "round"}
#: the learned search (the ``search`` spec, the ladder's learned-search rungs, the served
#: "hard" level): the shipped network decides the task draft, the card draft and the task
#: choice alone (``follow=``), the search guided by it plays the cards.  The guided search's
#: gain lay in those phases (+0.59 of its +0.62 tasks, docs/lab/search.md), and PIMC values a
#: draft pick by one round played out in 3 worlds while the network learned its picks from
#: whole games; followed, they are the network's, at a third of PIMC's think time
#: (docs/lab/endgame.md).
LEARNED_SEARCH = "pimc:guide=bot:geheimtrumpf,follow=task_draft+card_draft+task_choice"

#: task draft preference, best first (tasks the heuristic meets most often)
DRAFT_ORDER = (1, LAST_TRICK, MOST_TRICKS, 7, 8, 9, 10, NO_TRICK, FEWEST_TRICKS, 2, THREE_TRICKS)
MAX_NO_SUIT = 2
#: check-off preference: hardest first
HARD_ORDER = (THREE_TRICKS, 2, NO_TRICK, FEWEST_TRICKS, 1, LAST_TRICK, MOST_TRICKS, 10, 9, 8, 7)

# -- the heuristic ------------------------------------------------------------------------


class Heuristic:
    """Drafts toward its tasks from the row evidence, chooses the best-fitting task, steers."""

    name = "heuristic"
    draft_order = DRAFT_ORDER
    max_no_suit = MAX_NO_SUIT
    #: card draft: weight of the second-best task's chance (keeps a fallback open)
    hedge = 0.0

    def __init__(self, game, seed: int | None = None):
        self.game = game
        self.rng = random.Random(seed)  # unused: the heuristic is deterministic

    def act(self, decision: Decision) -> int:
        s = decision.state
        seat = decision.seat
        g = self.game
        phase = s.phase
        if phase == PLAY:
            return self.play(s, seat)
        if phase == CARD_DRAFT:
            return g.TAKE0 + self.take(s, seat)
        if phase == TASK_CHOICE:
            return g.CHOOSE_TASK0 + self.choose(s, seat)
        if phase == CHECK_OFF:
            return g.CHECK0 + self.check_off(s, seat)
        if phase == TASK_DRAFT:
            return g.DRAFT_TASK0 + self.draft_task(s, seat)
        raise ValueError(f"geheimtrumpf heuristic: nothing to decide in phase {s.phase_name}")

    # -- task draft and check-off ------------------------------------------------------

    def draft_task(self, s, seat: int) -> int:
        legal = s.legal_mask() >> s.game.DRAFT_TASK0
        held = s.held[seat]
        no_suit = sum(1 for t in range(NO_SUIT0, NUM_TASKS) if (held >> t) & 1)
        for t in self.draft_order:
            if (legal >> t) & 1 and not (t >= NO_SUIT0 and no_suit >= self.max_no_suit):
                return t
        return bit_list(legal)[0]

    @staticmethod
    def check_off(s, seat: int) -> int:
        open_tasks = s.held[seat] & ~s.checked[seat]
        for t in HARD_ORDER:
            if (open_tasks >> t) & 1:
                return t
        return bit_list(open_tasks)[0]

    # -- card draft ----------------------------------------------------------------------

    def take(self, s, seat: int) -> int:
        cands = bit_list(s.rows[s.draft_row] & s.layout)
        if len(cands) == 1:
            return cands[0]
        win, table = row_chances(s, seat)
        best_card, best_val = cands[0], -1.0
        hedge = self.hedge
        for c in cands:
            vals = sorted(table[c].values(), reverse=True)
            val = vals[0] + (hedge * vals[1] if hedge and len(vals) > 1 else 0.0)
            # tie-break: keep the chance to deny nothing; prefer lower strength a tiny bit
            val -= 1e-4 * win[c]
            if val > best_val:
                best_card, best_val = c, val
        return best_card

    # -- task choice ---------------------------------------------------------------------

    def choose(self, s, seat: int) -> int:
        tasks = bit_list(s.held[seat] & ~s.checked[seat])
        if len(tasks) == 1:
            return tasks[0]
        chances = self.task_chances(s, seat, tasks)
        return tasks[chances.index(max(chances))]

    #: estimated chance of each task for a seat (shared with the play's steering)
    task_chances = staticmethod(task_chances)

    # -- play: the steering of envs/geheimtrumpf/steering.py ------------------------------

    #: the task a seat plays for: its choice, or for the start player the best other's
    target = staticmethod(target)

    def play(self, s, seat: int) -> int:
        legal = bit_list(s.legal_mask())
        if len(legal) == 1:
            return legal[0]
        return play_for(s, seat, legal, target(s, seat))


# -- search hints --------------------------------------------------------------------------


class Rollout(Heuristic):
    """The heuristic with a cheap card draft, for PIMC rollouts in a sampled world.

    The rollout plays inside a world drawn by ``determinize``, where the
    trumps are a sample, so it may read them.  Each seat drafts toward its
    easiest open task by a single target strength: low cards for a "few
    tricks" or "no suit" task, high cards for "most", a count's share per
    row for "exactly k" (the heuristic's projection costs ~80 us a card).
    """

    name = "heuristic-rollout"

    def take(self, s, seat: int) -> int:
        cands = bit_list(s.rows[s.draft_row] & s.layout)
        if len(cands) == 1:
            return cands[0]
        win = CARD_CHANCES[(s.trumps.suit, s.trumps.value)][0]
        open_tasks = s.held[seat] & ~s.checked[seat]
        hand = s.hands[seat]
        if open_tasks & _LOW_TASKS:
            return min(cands, key=lambda c: win[c])
        if open_tasks >> MOST_TRICKS & 1:
            return max(cands, key=lambda c: win[c])
        k = next(t for t in (1, 2, THREE_TRICKS) if open_tasks >> t & 1)
        have = sum(win[c] for c in bit_list(hand))
        left = ROWS - s.draft_row
        target = (k - have) / left
        return min(cands, key=lambda c: abs(win[c] - target))


_LOW_TASKS = sum(1 << t for t in (NO_TRICK, FEWEST_TRICKS, LAST_TRICK, 7, 8, 9, 10))


def rollout_policy(game, seed: int | None = None) -> Rollout:
    """PIMC rollouts: the heuristic's play and task choice, a cheap draft."""
    return Rollout(game, seed=seed)


#: what PIMC needs of Geheimtrumpf (policies/hooks.py)
SEARCH = SearchHooks(defaults=SEARCH_DEFAULTS, learned_search=LEARNED_SEARCH,
                     rollout_policy=rollout_policy)

__all__ = ["LEARNED_SEARCH", "SEARCH", "SEARCH_DEFAULTS", "Heuristic", "Rollout", "belief",
           "play_card",
           "rollout_policy", "task_chance", "trick_dist"]
