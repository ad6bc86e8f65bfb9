"""Wunder Punkt as a PettingZoo AEC environment.

| | |
|---|---|
| Import | `from stichzoo.envs import wunder_punkt_v0` |
| Agents | `player_0` .. `player_{n-1}`, n = 3..6 |
| Actions | `Discrete(104)`: 52 "play" + 52 "sore" |
| Observation | `Dict(observation=Box(float32), action_mask=Box(int8))` |

Wunder Punkt in brief: a trick game without a follow rule in which every
suit but the led one beats the led suit and Aces (number 0) never win.
Before each round every player secretly lays one card from their hand: its
suit is their sore suit - every card of it they own at the end costs its
number (Ace 0 ... King 13), every other card they took is worth +1.  The
decks per player count (3: A-9, 4: A-K, 5: A-10, 6: A-Q; 3 players with
``larger_hands``: A-Q), the winner rules and the scoring are in
``envs/wunder_punkt/rules.py``.

Turn structure
    Each round has two phases.  ``sore``: one AEC turn per player, starting
    left of the dealer and ending with the dealer, in which the player lays
    a card from their hand face down.  Nobody's observation shows another
    player's pick until all have picked; then all are face up for the rest
    of the round.  ``play``: tricks, the player left of the dealer leading
    the first.

Observation Space
    One float32 vector of named pieces, seats relative to the observer
    (0 = me, 1 = my left neighbour, ...):

    - ``hand`` (52): own cards by card id (clubs A..K, diamonds, hearts, spades)
    - ``phase`` (3): sore, play, game_over
    - ``cards_in_play`` (52): the cards used with this player count
    - ``round_progress`` (1): rounds completed / rounds in the game
    - ``dealer`` (n): relative seat of the dealer
    - ``picked`` (n): which seats have laid their (face-down) sore card
    - ``sore_cards`` (n x 52): each seat's sore card - one's own as soon as
      laid, the others' only after all have picked
    - ``sore_suits`` (n x 4): each seat's sore suit, same visibility
    - ``trick_leader`` (n): who leads the current trick
    - ``current_trick`` (n x 52): each seat's card in the current trick
    - ``won`` (n x 52): the cards each seat took this round (perfect recall
      of tricks played face up)
    - ``removed`` (52): cards of all-Ace tricks, out of the game
    - ``round_scores`` (n): each seat's score this round so far / 100 (0
      until the picks are revealed)
    - ``scores`` (n): game totals / 100

    Nothing another player holds, and no unrevealed pick, is encoded.
    ``env.state()`` adds all hands, all picks and the seat to act, for
    centralised critics.

    Suit order: ``sore_suits`` lists the suits clubs, diamonds, hearts,
    spades (c, d, h, s) - the card id order, and the order in which a hand
    shows them (``envs/wunder_punkt/display.py``).

    After the game (every agent terminated) each seat's observation keeps
    the last round as its last trick left it: ``phase`` is game_over and
    the ``action_mask`` all zero; ``hand`` is all zero; ``round_progress``
    is 1; ``cards_in_play`` is unchanged; ``dealer``, ``picked`` (every
    seat), ``sore_cards`` and ``sore_suits`` (every seat's, face up),
    ``won`` and ``removed`` are the last round's; ``trick_leader`` and
    ``current_trick`` hold its last trick, complete; ``round_scores`` is all
    zero (the round's scores are in the totals); ``scores`` are the final
    totals / 100.

Legal Actions Mask
    ``action_mask`` marks exactly the legal actions of the agent to act (all
    zero for everybody else).  In the ``sore`` phase: ``52 + c`` for every
    card ``c`` in hand.  In the ``play`` phase: every card in hand (there is
    no follow rule).

Action Space
    ``0..51`` ("play"): play that card.  ``52..103`` ("sore"): lay card
    ``a - 52`` as the sore card.  Card ids are ``suit * 13 + rank`` with
    suits c, d, h, s and ranks A, 2..10, J, Q, K;
    ``env.unwrapped.game.action_label(a)`` names an action (``"7h"``,
    ``"sore Qs"``).

Rewards
    ``reward="score"`` (default): each round's score at the end of the
    round, times ``reward_scale``.  ``reward="win"``: at the end only, the
    winners share +1 (equal totals share).  ``reward="margin"``: each
    round's score less the mean of the others' scores that round, times
    ``reward_scale`` (the margins of a round sum to zero).  ``reward_scale``
    scales ``score`` and ``margin`` rewards only: the win shares are paid
    unscaled.

Arguments
    ``wunder_punkt_v0.env(num_players=4, larger_hands=False, rounds=None,
    first_dealer=0, reward="score", reward_scale=1.0, render_mode=None,
    show_all_hands=False)``.  ``larger_hands``: 3 players with A-Q (16
    cards each).  ``rounds``: a fixed number of rounds (1..100); None plays
    one per player.  ``first_dealer``: the seat dealing round 1.

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
from stichzoo.envs.wunder_punkt.encode import WunderPunktEncoder
from stichzoo.envs.wunder_punkt.rules import WunderPunktGame


class raw_env(CardGameEnv):
    game_cls = WunderPunktGame
    encoder_cls = WunderPunktEncoder
    metadata = {"name": "wunder_punkt_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "render_fps": 1, "is_parallelizable": False}


def env(**kwargs):
    """Wunder Punkt wrapped with PettingZoo's standard wrappers (see module doc)."""
    return wrap(raw_env(**kwargs))
