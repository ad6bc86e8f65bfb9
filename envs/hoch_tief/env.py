"""Hoch & Tief as a PettingZoo AEC environment.

| | |
|---|---|
| Import | `from stichzoo.envs import hoch_tief_v0` |
| Agents | `player_0` .. `player_{n-1}`, n = 3..6 |
| Actions | `Discrete(15n)` |
| Observation | `Dict(observation=Box(float32), action_mask=Box(int8))` |

Hoch & Tief in brief: five suits A-E numbered ``1..3n``, 15 cards each, all
dealt.  Follow the led suit if you can.  When a trick is complete, suits no
longer matter: the player of the lowest number takes the highest card, the
player of the highest number takes all the others and leads (ties: the card
played last counts highest, and lowest).  Taken cards lie face up.  Per
suit, 1 or 2 taken cards score their numbers, 3 or more score 1 each.  The
full rules are in ``envs/hoch_tief/rules.py``.

Cards are written as suit letter plus number: ``"A7"``, ``"E12"``.  Card
id = ``suit * 3n + number - 1``; ``env.unwrapped.game.deck`` converts.

Observation Space
    One float32 vector of named pieces, seats relative to the observer
    (0 = me, 1 = my left neighbour, ...); ``D = 15n`` cards:

    - ``hand`` (D): own cards, by card id
    - ``phase`` (2): play, game_over
    - ``round_progress`` (1): rounds completed / rounds in the game
    - ``trick_progress`` (1): tricks completed this round / 15
    - ``dealer`` (n): relative seat of this round's dealer
    - ``trick_leader`` (n): who leads the current trick
    - ``led_suit`` (5): suit of the current trick's first card; zero before the lead
    - ``current_trick`` (n x D): each seat's card in the current trick
    - ``taken`` (n x D): the cards each seat has taken face up this round
    - ``taken_score`` (n): what each seat's taken cards would score now / 100
    - ``played`` (D): every card played this round
    - ``voids`` (n x 5): suits each seat has shown out of this round (public)
    - ``scores`` (n): game totals / 100

    Suit order: ``voids`` and ``led_suit`` list the suits A, B, C, D, E -
    the card id order, and the order in which a hand shows them
    (``envs/hoch_tief/display.py``).

    After the game (every agent terminated) each seat's observation keeps
    the last round as its last trick left it: ``phase`` is game_over and
    the ``action_mask`` all zero; ``hand`` is all zero; ``round_progress``
    and ``trick_progress`` are 1; ``dealer``, ``taken``, ``taken_score``
    (what the last round's taken cards scored), ``played`` (every card of
    the round) and ``voids`` are the last round's; ``trick_leader``,
    ``led_suit`` and ``current_trick`` hold its last trick, complete;
    ``scores`` are the final totals / 100.

    Taken cards are public, so every seat sees every seat's taken cards.
    Nothing another player holds is encoded.  ``env.state()`` adds all
    hands and the seat to act, for centralised critics.

Legal Actions Mask
    ``action_mask`` marks exactly the legal cards of the agent to act (all
    zero for everybody else): the cards of the led suit if it holds any,
    else its whole hand (also when leading).

Action Space
    ``0 .. 15n - 1``: play that card; playing is the only decision.
    ``env.unwrapped.game.action_label(a)`` names an action.

Rewards
    ``reward="score"`` (default): each round's score at the end of the
    round, times ``reward_scale``.  ``reward="win"``: at the end only, the
    winners share +1 (equal totals share).  ``reward="margin"``: each
    round's score less the mean of the others' scores that round, times
    ``reward_scale`` (the margins of a round sum to zero).  ``reward_scale``
    scales ``score`` and ``margin`` rewards only: the win shares are paid
    unscaled.

Arguments
    ``hoch_tief_v0.env(num_players=4, rounds=None, first_dealer=0,
    reward="score", reward_scale=1.0, render_mode=None,
    show_all_hands=False)``.  ``rounds``: number of rounds, 1..50; None
    plays ``n`` (everybody deals once).  ``first_dealer``: seat that deals
    round 1; the deal moves left each round.

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
from stichzoo.envs.hoch_tief.encode import HochTiefEncoder
from stichzoo.envs.hoch_tief.rules import HochTiefGame


class raw_env(CardGameEnv):
    game_cls = HochTiefGame
    encoder_cls = HochTiefEncoder
    metadata = {"name": "hoch_tief_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "render_fps": 1, "is_parallelizable": False}


def env(**kwargs):
    """Hoch & Tief wrapped with PettingZoo's standard wrappers (see module doc)."""
    return wrap(raw_env(**kwargs))
