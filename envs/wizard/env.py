"""Wizard as a PettingZoo AEC environment.

| | |
|---|---|
| Import | `from stichzoo.envs import wizard_v0` |
| Agents | `player_0` .. `player_{n-1}`, n = 3..6 |
| Actions | `Discrete(60 + 60/n + 1 + 4)` |
| Observation | `Dict(observation=Box(float32), action_mask=Box(int8))` |

Wizard in brief: 60 cards (1-13 in four suits, four Wizards, four
Jesters); round ``r`` deals ``r`` cards, a turned card fixes trump, every
player bids how many tricks they will take, and exact bids score
``20 + 10 * tricks`` while misses lose 10 per trick off.  The full rules are
in ``envs/wizard/rules.py``.

Observation Space
    One float32 vector of named pieces, seats relative to the observer
    (0 = me, 1 = my left neighbour, ...):

    - ``hand`` (60): own cards, by card id (B1..B13, R1.., G1.., Y1.., W1-4, N1-4)
    - ``trump_suit`` (5): B, R, G, Y, or no trump; all zero while the dealer chooses
    - ``trump_card`` (61): the turned card; the last slot when none was turned
    - ``phase`` (4): choose_trump, bid, play, game_over
    - ``hand_size`` (60/n): this round's hand size, one-hot
    - ``round_progress`` (1): rounds completed / rounds in the game
    - ``dealer`` (n): relative seat of the dealer
    - ``bids`` (n x (60/n + 1)): each seat's bid, one-hot; zero until it bids
    - ``tricks_won`` (n x (60/n + 1)): each seat's tricks this round, one-hot
    - ``trick_leader`` (n): who leads the current trick
    - ``current_trick`` (n x 60): each seat's card in the current trick
    - ``played`` (60): every card played this round
    - ``voids`` (n x 4): suits each seat has shown out of this round (public)
    - ``dealer_restriction`` (1): 1 when the dealer's bid restriction is on
    - ``scores`` (n): game totals / 100

    Nothing another player holds is encoded.  ``env.state()`` adds all hands
    and the seat to act, for centralised critics.

    Suit order: ``voids`` and ``trump_suit`` list the suits blue, red,
    green, yellow (B, R, G, Y) - the card id order, and the order in which
    a hand shows them (``envs/wizard/display.py``).

    After the game (every agent terminated) each seat's observation keeps
    the last round as its last trick left it: ``phase`` is game_over and
    the ``action_mask`` all zero; ``hand`` and ``hand_size`` are all zero;
    ``round_progress`` is 1; ``trump_suit``, ``trump_card``, ``dealer``,
    ``bids``, ``tricks_won``, ``played`` (every card of the round) and
    ``voids`` are the last round's; ``trick_leader`` and ``current_trick``
    hold its last trick, complete; ``scores`` are the final totals / 100.

Legal Actions Mask
    ``action_mask`` marks exactly the legal actions of the agent to act (all
    zero for everybody else): in play the follow-suit rule with Wizards and
    Jesters always free; in bidding ``0..r`` (minus the dealer's forbidden
    bid when the restriction is on); when a Wizard was turned, the dealer's
    four suits.

Action Space
    ``0..59``: play that card.  ``60 .. 60 + 60/n``: bid 0 .. 60/n.  The last
    four: choose blue, red, green, yellow as trump.  ``env.unwrapped.game.action_label(a)``
    names an action.

Rewards
    ``reward="score"`` (default): each round's score change at the end of
    the round, times ``reward_scale``.  ``reward="win"``: at the end only,
    the winners share +1 (equal totals share).  ``reward="margin"``: each
    round's score change less the mean of the others' changes, times
    ``reward_scale`` (the margins of a round sum to zero).  ``reward_scale``
    scales ``score`` and ``margin`` rewards only: the win shares are paid
    unscaled.

Arguments
    ``wizard_v0.env(num_players=4, rounds=None, dealer_bid_restriction=False,
    first_dealer=0, reward="score", reward_scale=1.0, render_mode=None,
    show_all_hands=False)``.  ``rounds``: list of hand sizes to play (e.g.
    ``[5]`` for one round of five cards); None plays the full 60/n rounds.

    ``render_mode``: ``"ansi"`` (the table as text), ``"human"`` (that text
    printed after every step) or ``"rgb_array"`` (a picture of the table, an
    ``HxWx3`` uint8 array; needs ``stichzoo[render]``); see "Rendering and
    video" in the environments' overview.  ``show_all_hands``: render every
    hand, not only the hand of the seat to act.

    ``reset(seed=None, options=None)``: the arguments above fix the game, so
    any of them in ``options`` is refused with a ValueError naming it; reset
    has no options of its own and ignores other keys (as PettingZoo expects).

Version History
    v0: first release.
"""

from __future__ import annotations

from stichzoo.envs.core.aec import CardGameEnv, wrap
from stichzoo.envs.wizard.encode import WizardEncoder
from stichzoo.envs.wizard.rules import WizardGame


class raw_env(CardGameEnv):
    game_cls = WizardGame
    encoder_cls = WizardEncoder
    metadata = {"name": "wizard_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "render_fps": 1, "is_parallelizable": False}


def env(**kwargs):
    """Wizard wrapped with PettingZoo's standard wrappers (see module doc)."""
    return wrap(raw_env(**kwargs))
