"""Geheimtrumpf as a PettingZoo AEC environment.

| | |
|---|---|
| Import | `from stichzoo.envs import geheimtrumpf_v4` |
| Agents | `player_0` .. `player_{n-1}`, n = 3 or 4 |
| Actions | `Discrete(105)`: play card, take card, draft task, choose task, check task |
| Observation | `Dict(observation=Box(float32), action_mask=Box(int8))` |

Geheimtrumpf in brief: 36 cards (Ace..9 in four suits) lie face up in nine
rows and are drafted one row at a time; only the start player knows the
round's trump suit and trump value, and after each row the env announces
who would have won it as a trick - the evidence from which the others
deduce the trumps.  Each player holds four tasks ("no trick", "exactly 2",
"most tricks", "last trick", "no clubs" ...), chooses one per round in
secret, and checks it off if the nine tricks go that way; the start player
checks off one of theirs by meeting a task someone else chose and missed.
The first to check all four wins.  The full rules are in
``envs/geheimtrumpf/rules.py``.

Phases (each its own action range; the ``phase`` piece tells which is live):
task draft (game start, 4 picks each, round-robin) -> per round: card
draft (9 rows) -> task choice (all but the start player) -> 9 tricks ->
check-off (the start player's decision, only when earned).

Observation Space
    One float32 vector of named pieces, seats relative to the observer
    (0 = me, 1 = my left neighbour, ...):

    - ``phase`` (6): task_draft, card_draft, task_choice, play, check_off, game_over
    - ``start_player`` (n): this round's start player
    - ``round_progress`` (1): rounds begun / round_limit
    - ``tasks_held``, ``tasks_checked`` (n x 11 each): every seat's tasks (public)
    - ``trumps_known`` (1), ``trump_suit`` (5: H, D, S, C, none), ``trump_value``
      (10: A..9, none): zero while this seat may not know them (non-start
      players during the draft)
    - ``layout`` (9 x 36): per row its face-up cards still to be taken (with
      3 players the face-down fourth card never appears)
    - ``draft_row`` (10): the row being drafted; last slot once the draft is over
    - ``row_leads`` (9 x n): per row the seat with first choice
    - ``draft`` (9 x n x 36): per row, per seat, the card it took
    - ``row_winners`` (9 x n): the announced winner of each finished row
    - ``hands`` (n x 36): every seat's cards (drafted cards lie face up)
    - ``chosen`` (n x 11): chosen tasks; own at once, the others' once all are revealed
    - ``trick_leaders`` (9 x n), ``tricks`` (9 x n x 36): every trick of the
      round so far, the current one included, card per seat
    - ``tricks_won`` (n x 10): tricks won this round, one-hot, from the
      play phase on (before the round's first trick is taken: 0 for every
      seat; then through the check-off); all zero during the drafts and the
      task choice
    - ``won_cards`` (n x 36): the cards in each seat's tricks

    The reading (new in v1, ``envs/geheimtrumpf/reading.py``): facts the
    rules derive from the pieces above, so that a network need not learn the
    ranking rules to use them:

    - ``trump_candidates`` (50: suit none, H, D, S, C x value none, A..9,
      index (suit + 1) x 10 + value): the trump draws that agree with every
      announced row winner; the true draw alone once this seat knows the
      trumps; all zero in the task draft
    - in the play phase only (all zero otherwise): ``trumps`` (36) the cards
      that are trumps; ``led_beaters`` (36) per card the share of the other
      35 that would beat it if it were led; ``trick_winner`` (n) the seat
      winning the current trick (all zero before its first card);
      ``takes_trick`` (36) the cards of this seat's hand that would win the
      current trick if played now (leading: every card); ``overtake`` (36)
      per card of ``takes_trick`` the share of the seats still to play after
      it holding a legal card that beats it; ``safe`` (36) the cards of
      ``takes_trick`` that no seat still to play can beat

    The draft reading (new in v2, ``envs/geheimtrumpf/chances.py``), for the
    seat choosing a card in the card draft only (all zero for the others and
    in every other phase) - the heuristic's rough chance estimates, which
    the v1 network's card draft lacked:

    - ``take_chances`` (36): per card of the row, the chance of the seat's
      best open task if it takes the card and drafts toward that task in
      the later rows
    - ``task_chances`` (11): per open task, its best ``take_chances`` value
      over the row
    - ``win_chances`` (36): per card, its chance to win a trick under the
      trumps as the seat knows them (averaged over ``trump_candidates``
      while they are secret)

    The task state (new in v3), in the play phase only: ``task_state`` (n x
    8) per relative seat with a chosen task - wants tricks (an exact count
    not yet reached, or "most"), ducks (an exact count reached, or
    "fewest"), missed (an exact count passed, or a "no suit" task's suit
    won), the tricks an exact count still needs / 3, and the suit (H, D, S,
    C) a "no suit" task still keeps clean; all zero for "last trick" and
    for the start player, who chose none

    The trick reading (new in v4, ``envs/geheimtrumpf/steering.py``), for
    the seat to play only: ``trick_reading`` (36 x (n + 4)) per legal card,
    the relative seat that takes the current trick when the seats still to
    play answer as the heuristic steers them to their tasks (every hand and
    task is public in play), and the printed suits (H, D, S, C) among the
    trick's cards; all zero for the other cards

    ``env.state()`` adds the true trumps, every chosen task, the set-aside
    cards (3 players) and the seat to act, for centralised critics.

    Suit order: ``trump_suit`` lists the suits hearts, diamonds, spades,
    clubs (H, D, S, C) - the card id order, and the order in which a hand
    shows them (``envs/geheimtrumpf/display.py``).

    After the game (every agent terminated, or truncated at
    ``round_limit``) each seat's observation holds only the tasks and where
    the game stopped: ``phase`` is game_over and the ``action_mask`` all
    zero; ``start_player`` is the last round's start player;
    ``round_progress`` is the rounds begun / ``round_limit``;
    ``tasks_held`` and ``tasks_checked`` are every seat's at the end; every
    other piece (trumps, layout, draft, hands, chosen tasks, tricks,
    ``tricks_won``, ``won_cards``, the reading) is all zero.

Legal Actions Mask
    ``action_mask`` marks exactly the legal actions of the agent to act (all
    zero for everybody else).  Task draft: tasks the seat does not hold and
    fewer than two players hold.  Card draft: the face-up cards left in the
    current row.  Task choice: the seat's unchecked tasks.  Play: the follow
    rule (trump-suit and trump-value cards form one trump suit; a trump led
    asks for any trump; a trump-value card never follows its printed
    suit).  Check-off: the start player's unchecked tasks.

Action Space
    ``0..35``: play that card (AH..9H, AD..9D, AS..9S, AC..9C).  ``36..71``:
    take that card from the current row.  ``72..82``: pick task 0..10 in
    the task draft.  ``83..93``: choose task 0..10 for this round.
    ``94..104``: check off task 0..10.  Tasks: no_trick, one_trick,
    two_tricks, three_tricks, most_tricks, fewest_tricks, last_trick,
    no_hearts, no_diamonds, no_spades, no_clubs.
    ``env.unwrapped.game.action_label(a)`` names an action.

Rewards
    ``reward="score"`` (default): +1 (times ``reward_scale``) to a player
    at the step a task of theirs is checked off - the last card of a round
    for the choosers, the check-off action for the start player.
    ``reward="win"``: at the end only, the players with all four tasks
    checked share +1; a truncated game gives nothing.  ``reward="margin"``:
    at the same steps as ``score``, each player's +1s less the mean of the
    others' (so the others get -1/(n-1) for each task checked), times
    ``reward_scale`` - a task the player stops another from checking is worth
    as much as one of its own, as in the duplicate tournaments' score
    difference.  ``reward_scale`` scales ``score`` and ``margin`` rewards
    only: the win shares are paid unscaled.

Arguments
    ``geheimtrumpf_v4.env(num_players=4, round_limit=50, first_start=0,
    reward="score", reward_scale=1.0, render_mode=None,
    show_all_hands=False)``.  ``round_limit``: rounds after which a game
    without a winner is truncated.  ``first_start``: the seat that starts
    the task draft and the first round.  ``show_all_hands``: renders show
    the secrets (trumps, choices).  ``render_mode``: ``"ansi"`` (the table
    as text), ``"human"`` (that text printed after every step) or
    ``"rgb_array"`` (a picture of the table, an ``HxWx3`` uint8 array;
    needs ``stichzoo[render]``); see "Rendering and video" in the
    environments' overview.

    ``reset(seed=None, options=None)``: the arguments above fix the game, so
    any of them in ``options`` is refused with a ValueError naming it; reset
    has no options of its own and ignores other keys (as PettingZoo expects).

Version History
    v0: first release.  v1: the reading pieces (``trump_candidates`` and the
    play-phase pieces).  v2: the draft reading.  v3: the task state.  v4: the
    trick reading.  The rules are those of v0 throughout; a bot refuses an
    observation version other than its own.
"""

from __future__ import annotations

from stichzoo.envs.core.aec import CardGameEnv, wrap
from stichzoo.envs.geheimtrumpf.encode import GeheimtrumpfEncoder
from stichzoo.envs.geheimtrumpf.rules import GeheimtrumpfGame


class raw_env(CardGameEnv):
    game_cls = GeheimtrumpfGame
    encoder_cls = GeheimtrumpfEncoder
    metadata = {"name": "geheimtrumpf_v4", "render_modes": ["ansi", "human", "rgb_array"],
                "render_fps": 1, "is_parallelizable": False}


def env(**kwargs):
    """Geheimtrumpf wrapped with PettingZoo's standard wrappers (see module doc)."""
    return wrap(raw_env(**kwargs))
