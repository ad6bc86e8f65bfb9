"""Silberne Ananas as a PettingZoo AEC environment.

| | |
|---|---|
| Import | `from stichzoo.envs import silberne_ananas_v1` |
| Agents | `player_0`, `player_1`, `player_2` (exactly three) |
| Actions | `Discrete(36)` |
| Observation | `Dict(observation=Box(float32, (387,)), action_mask=Box(int8, (36,)))` |

Silberne Ananas in brief: 32 cards (A K Q J 10 9 8 7 in four suits) plus
a Joker, 11 cards each, 11 tricks, follow suit.  A trick goes to the odd
one out - the middle card when all three share a suit, else the card of the
odd suit, else the card of the odd colour - and the Joker's player gives
the Joker's trick to whoever they like.  Each player scores own tricks
plus twice the tricks of the right neighbour; the middle score gets +10,
and the middle total wins the match to 100.  The full rules are in
``envs/silberne_ananas/rules.py``.

Observation Space
    One float32 vector (387) of named pieces, seats relative to the
    observer (0 = me, 1 = my left neighbour, 2 = my right neighbour):

    - ``hand`` (33): own cards, by card id (7h..Ah, 7d..Ad, 7s..As, 7c..Ac, Joker)
    - ``phase`` (3): play, give_trick, game_over
    - ``dealer`` (3): relative seat of the dealer
    - ``deal_progress`` (1): deals completed / most deals the game can last
    - ``trick_leader`` (3): who leads the current trick
    - ``current_trick`` (3 x 33): each seat's card in the current trick (the
      complete trick while the Joker's player decides the gift)
    - ``lead_suit`` (5): the suit to follow h, d, s, c, or none
    - ``played`` (33): every card played this deal
    - ``voids`` (3 x 4): suits each seat has shown out of this deal (public)
    - ``no_joker`` (3): seats that cannot hold the Joker (they showed out
      without playing it, or the Joker's trick has been taken; while that
      trick is on the table and during its gift decision the Joker shows in
      ``played`` and ``trick``, and ``no_joker`` is not yet set for all)
    - ``tricks_won`` (3 x 12): each seat's tricks this deal, one-hot 0..11
    - ``scores`` (3): game totals / 100
    - ``rules`` (3): match (1) or single deal (0), alone variant, target / 100

    The reading (new in v1, ``envs/silberne_ananas/reading.py``): facts the
    rules derive from the pieces above, so that a network need not learn the
    odd-one-out trick rule and the scoring to use them:

    - ``taker_values`` (3 x 3): per relative seat, its value (0..1, a chance
      of winning) of the current trick going to each relative seat - the
      tricks still to come split uniformly at random, then the exact result
      if the deal ends the game, else the match standing
      (``envs/silberne_ananas/standing.py``); the values the heuristic bot
      steers by
    - ``best_taker`` (3 x 3): per relative seat, one-hot, the seat it values
      most as taker - where a Joker's player gives the trick
    - for the seat to play only (all zero for the others and in the gift):
      ``card_takers`` (3 x 33), per relative seat and own legal card, the
      chance that the seat takes the trick if the card is played now (third
      to play: exact, a Joker going to its player's best taker; second: the
      last seat plays its best legal card, its hand drawn uniformly among
      the deals consistent with what this seat has seen; leading: the second
      seat plays a uniformly drawn card it may hold, following suit with the
      chance that it can, the last seat replying as before - an
      approximation); ``card_values`` (33), per own legal card its value for
      this seat (``taker_values`` weighted by ``card_takers``), scaled so that
      the best legal card is 1 and the worst 0 (all 1 when equal)

    Nothing another player holds is encoded.  ``env.state()`` adds all hands
    and the seat to act, for centralised critics.

    Suit order: ``voids`` and ``lead_suit`` list the suits hearts,
    diamonds, spades, clubs (h, d, s, c) - the card id order, and the order
    in which a hand shows them (``envs/silberne_ananas/display.py``).

    After the game (every agent terminated) each seat's observation keeps
    the last deal as its last trick left it: ``phase`` is game_over and the
    ``action_mask`` all zero; ``hand`` is all zero; ``deal_progress`` is the
    deals played / the most deals the game can last (1 only for a single
    deal or a match that lasted that long); ``dealer``, ``played`` (all 33
    cards), ``voids`` and ``tricks_won`` are the last deal's; ``no_joker``
    is 1 for every seat (the Joker falls in every deal); ``trick_leader``
    and ``current_trick`` hold the last trick, complete, and ``lead_suit``
    is "none"; ``scores`` are the final totals / 100; ``rules`` is
    unchanged; the reading is all zero.

Legal Actions Mask
    ``action_mask`` marks exactly the legal actions of the agent to act (all
    zero for everybody else): in play, the cards of the led suit if the
    player holds any; else the Joker if held; else every card.  Leading, the
    Joker is masked out unless it is the last card in hand.  After a trick
    containing the Joker, only the three gift actions of the Joker's player.

Action Space
    ``0..32``: play that card (suit-major: 7h 8h 9h 10h Jh Qh Kh Ah = 0..7,
    then diamonds, spades, clubs; 32 = the Joker).  ``33``: give the Joker's
    trick to myself; ``34``: to my left neighbour; ``35``: to my right
    neighbour.  The taker leads next.  ``env.unwrapped.game.action_label(a)``
    names an action.

Rewards
    ``reward="score"`` (default): at the end of every deal each seat
    receives its deal score (own tricks + 2 x right neighbour's tricks, +10
    for the middle score), times ``reward_scale``; the per-deal rewards sum
    to 43.  ``reward="win"``: at the end only, the winners share +1 (the
    middle total; see the rules for ties and the alone variant).
    ``reward="standing"``: the same +1, paid as it becomes likely - after
    every deal each seat receives the change of its chance of ending in the
    middle (``envs/silberne_ananas/standing.py``), and the last deal pays
    the win share less the chance before it.  A match's rewards sum to the
    win share less the start's chance (the same for every play), so the
    best play is that of ``"win"`` (potential-based shaping) with a signal
    every deal.  In the alone variant the chance is still the middle's: a
    weaker hint, the same best play.  ``reward="margin"``: each deal score
    less the mean of the other two, times ``reward_scale`` - offered as in
    every game, but like ``score`` it pays the high score, not the middle
    this game is won by.  ``reward_scale`` scales ``score`` and ``margin``
    rewards only: ``win`` and ``standing`` pay their win shares and chances
    unscaled.

Arguments
    ``silberne_ananas_v1.env(num_players=3, match=True, target_score=100,
    alone_variant=False, first_dealer=0, reward="score", reward_scale=1.0,
    render_mode=None, show_all_hands=False)``.

    - ``num_players``: accepted only as 3.
    - ``match``: True plays deals until a total reaches ``target_score``
      (at most ``3 * (target_score - 1) // 43 + 1`` deals, 7 for 100);
      False plays one deal, won by the middle deal score.
    - ``target_score``: 1..1000, the total that ends a match.
    - ``alone_variant``: the seed's variant - the only player at or over
      the target wins, or the only one below it when two reached it
      (match play only).
    - ``first_dealer``: seat dealing the first deal (0..2).

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
    v1: the reading pieces (``taker_values``, ``best_taker``, ``card_takers``,
    ``card_values``) appended to the observation (237 -> 387 floats); the
    rules are unchanged.  Bots trained on v0 are refused.
"""

from __future__ import annotations

from stichzoo.envs.core.aec import CardGameEnv, wrap
from stichzoo.envs.silberne_ananas.encode import SilberneAnanasEncoder
from stichzoo.envs.silberne_ananas.rules import SilberneAnanasGame


class raw_env(CardGameEnv):
    game_cls = SilberneAnanasGame
    encoder_cls = SilberneAnanasEncoder
    metadata = {"name": "silberne_ananas_v1", "render_modes": ["ansi", "human", "rgb_array"],
                "render_fps": 1, "is_parallelizable": False}


def env(**kwargs):
    """Silberne Ananas wrapped with PettingZoo's standard wrappers (see module doc)."""
    return wrap(raw_env(**kwargs))
