/* Wunder Punkt in C: the rules core of envs/wunder_punkt/rules.py and the
 * default observation of envs/wunder_punkt/encode.py, decision for decision
 * and float for float.
 *
 * Why: the batch engine and the searches step millions of decisions; the
 * Python core costs microseconds a decision, this file well under one.  The
 * Python core stays the referee (tests/envs/kernel/test_wunder_punkt.py
 * plays both from the same seeds and compares every field).
 *
 * The game, as the rule book tells it (3 to 6 players):
 *
 *   A trick game without a follow rule in which every suit but the led one
 *   is trump, and in which each player secretly chooses a "sore" suit that
 *   hurts them: sore cards cost their number, every other card taken is
 *   worth +1.
 *
 *   Cards.  52 cards, suits clubs, diamonds, hearts, spades; card id
 *   suit * 13 + rank, rank 0 = Ace .. 12 = King.  Every card has a number:
 *   Ace 0, 2..10 as printed, Jack 11, Queen 12, King 13.  Cards in play by
 *   player count (every suit cut alike): 3: A-9 (12 each), 4: A-K (13 each),
 *   5: A-10 (8 each), 6: A-Q (8 each); 3 with larger_hands: A-Q (16 each).
 *   Each round all cards in play are dealt one at a time, starting left of
 *   the dealer.
 *
 *   Sore suit.  Every player lays one card of their hand face down, in turn
 *   from left of the dealer (the dealer last); when the dealer has laid
 *   theirs all are revealed.  The suit of the laid card is the player's sore
 *   suit; the card stays out of the hand and counts for its owner.
 *
 *   Tricks.  Left of the dealer leads the first trick, the winner of a trick
 *   the next.  No follow rule: any card may be played.  The led suit is the
 *   suit of the first card (an Ace too).  Aces are passed over; a non-Ace of
 *   a foreign suit beats every led-suit card; the highest number wins, the
 *   first played on equal numbers; a trick of Aces only is won by nobody -
 *   its cards leave the game and the same player leads again.
 *
 *   Scoring.  Over a player's won cards plus their own sore card: a card of
 *   the sore suit counts minus its number, any other card +1.  The deal
 *   moves one seat left each round; as many rounds as players (or the
 *   rounds option).  Highest total wins; equal totals share.
 *
 * Actions: 0..51 play that card; 52..103 lay card a - 52 as the sore card.
 *
 * Options (envs/wunder_punkt/kernel.py, kernel_options): num_players,
 * larger_hands (0/1), num_rounds (the rounds actually played), first_dealer.
 *
 * The state is one flat struct (wp_state) followed by the deck orders of
 * every round (num_rounds x cards in play bytes), so it clones by memcpy.
 */
#include "kz.h"

#define WP_DECK 52
#define WP_RANKS 13
#define WP_SUITS 4
#define WP_ACTIONS (2 * WP_DECK)
#define WP_MAX_ROUNDS 100
#define WP_DECK_MASK ((1ULL << WP_DECK) - 1)

enum { SORE = 0, PLAY = 1, GAME_OVER = 2 };  /* PHASE_NAMES: sore, play, game_over */

typedef struct {
    kz_head h;
    int32_t dealer;        /* seat dealing this round */
    int32_t leader;        /* seat leading the current trick */
    int32_t trick_len;     /* cards in the current trick (n: the last trick, game over) */
    int8_t sore[KZ_MAX_PLAYERS];    /* laid sore card per seat, -1 before the pick */
    uint8_t trick[KZ_MAX_PLAYERS];  /* the current trick's cards in play order */
    uint64_t hands[KZ_MAX_PLAYERS];
    uint64_t won[KZ_MAX_PLAYERS];   /* cards taken this round */
    uint64_t removed;               /* cards of all-Ace tricks, out of the game */
    uint8_t orders[];               /* num_rounds deck orders, order_len cards each */
} wp_state;

/* The observation's pieces, in encode.py's observation_layout order. */
typedef struct {
    int32_t n, num_rounds, first_dealer, order_len;
    uint64_t used;                  /* the cards in play */
    uint8_t used_list[WP_DECK];     /* the same, ascending: the deal's starting order */
    int32_t o_hand, o_phase, o_in_play, o_progress, o_dealer, o_picked, o_sore_cards,
        o_sore_suits, o_leader, o_trick, o_won, o_removed, o_round_scores, o_scores;
    float in_play_row[WP_DECK];     /* the constant cards_in_play piece */
} wp_tables;

#define TABLES(cfg) ((const wp_tables *)(const void *)(cfg)->game)

static inline int card_suit(int c) { return c / WP_RANKS; }
/* Ace 0, 2..10 as printed, Jack 11, Queen 12, King 13 */
static inline int card_number(int c) { int r = c % WP_RANKS; return r ? r + 1 : 0; }

static const uint64_t SUIT_MASK[WP_SUITS] = {
    0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39};

/* -- configuration ------------------------------------------------------------ */

static int wp_configure(kz_config *cfg, const int64_t *opt, int nopt, char *err, size_t errlen) {
    if (nopt != 4) {
        kz_set_err(err, errlen, "wunder_punkt: 4 options needed (num_players, larger_hands, "
                   "num_rounds, first_dealer)");
        return -1;
    }
    int64_t n = opt[0], larger = opt[1], rounds = opt[2], first = opt[3];
    if (n < 3 || n > 6) {
        kz_set_err(err, errlen, "wunder_punkt: num_players must be 3..6");
        return -1;
    }
    if (larger != 0 && larger != 1) {
        kz_set_err(err, errlen, "wunder_punkt: larger_hands must be 0 or 1");
        return -1;
    }
    if (larger && n != 3) {
        kz_set_err(err, errlen, "wunder_punkt: larger_hands is a 3-player variant");
        return -1;
    }
    if (rounds < 1 || rounds > WP_MAX_ROUNDS) {
        kz_set_err(err, errlen, "wunder_punkt: num_rounds must be 1..100");
        return -1;
    }
    if (first < 0 || first >= n) {
        kz_set_err(err, errlen, "wunder_punkt: first_dealer must be a seat");
        return -1;
    }
    memset(cfg->game, 0, sizeof cfg->game);
    wp_tables *t = (wp_tables *)(void *)cfg->game;
    int np = (int)n;
    t->n = np;
    t->num_rounds = (int)rounds;
    t->first_dealer = (int)first;
    /* ranks 0..top-1 of every suit are in play */
    static const int TOP[7] = {0, 0, 0, 9, 13, 10, 12};
    int top = larger ? 12 : TOP[np];
    t->used = 0;
    for (int s = 0; s < WP_SUITS; s++) t->used |= ((1ULL << top) - 1) << (s * WP_RANKS);
    int k = 0;
    for (int c = 0; c < WP_DECK; c++)
        if ((t->used >> c) & 1) t->used_list[k++] = (uint8_t)c;
    t->order_len = k;
    for (int c = 0; c < WP_DECK; c++) t->in_play_row[c] = (float)((t->used >> c) & 1);
    int off = 0;
    t->o_hand = off; off += WP_DECK;
    t->o_phase = off; off += 3;
    t->o_in_play = off; off += WP_DECK;
    t->o_progress = off; off += 1;
    t->o_dealer = off; off += np;
    t->o_picked = off; off += np;
    t->o_sore_cards = off; off += np * WP_DECK;
    t->o_sore_suits = off; off += np * WP_SUITS;
    t->o_leader = off; off += np;
    t->o_trick = off; off += np * WP_DECK;
    t->o_won = off; off += np * WP_DECK;
    t->o_removed = off; off += WP_DECK;
    t->o_round_scores = off; off += np;
    t->o_scores = off; off += np;

    cfg->num_players = np;
    cfg->num_actions = WP_ACTIONS;
    cfg->obs_size = off;
    cfg->num_orders = (int)rounds;
    cfg->order_len = k;
    size_t size = sizeof(wp_state) + (size_t)rounds * (size_t)k;
    cfg->state_size = (int32_t)((size + 7) & ~(size_t)7);
    for (int i = 0; i < KZ_MAX_OPTIONS; i++) cfg->opt[i] = i < nopt ? opt[i] : 0;
    return 0;
}

/* Game.deal: one independent shuffle of the cards in play (ascending) per round. */
static void wp_deal(const kz_config *cfg, kz_random *r, uint8_t *orders) {
    const wp_tables *t = TABLES(cfg);
    for (int i = 0; i < t->num_rounds; i++) {
        uint8_t *o = orders + (size_t)i * t->order_len;
        memcpy(o, t->used_list, (size_t)t->order_len);
        kz_shuffle(r, o, t->order_len);
    }
}

/* -- the rules ------------------------------------------------------------------ */

/* start_round: deal every card in play one at a time from left of the dealer;
 * the sore picks open, left of the dealer first. */
static void start_round(const wp_tables *t, wp_state *s, int round_index) {
    int n = t->n;
    int dealer = (t->first_dealer + round_index) % n;
    const uint8_t *order = s->orders + (size_t)round_index * t->order_len;
    s->h.round_index = round_index;
    s->dealer = dealer;
    for (int p = 0; p < KZ_MAX_PLAYERS; p++) {
        s->hands[p] = 0;
        s->won[p] = 0;
        s->sore[p] = -1;
        s->trick[p] = 0;
    }
    int p = (dealer + 1) % n;
    for (int k = 0; k < t->order_len; k++) {
        s->hands[p] |= 1ULL << order[k];
        if (++p == n) p = 0;
    }
    s->removed = 0;
    s->leader = (dealer + 1) % n;
    s->trick_len = 0;
    s->h.phase = SORE;
    s->h.current_player = (dealer + 1) % n;
}

static int wp_start(const kz_config *cfg, void *state, const uint8_t *orders, char *err,
                    size_t errlen) {
    const wp_tables *t = TABLES(cfg);
    /* checked_orders: every order a shuffle of the cards in play */
    for (int r = 0; r < t->num_rounds; r++) {
        const uint8_t *o = orders + (size_t)r * t->order_len;
        uint64_t seen = 0;
        for (int k = 0; k < t->order_len; k++) {
            if (o[k] >= WP_DECK || !((t->used >> o[k]) & 1) || ((seen >> o[k]) & 1)) {
                kz_set_err(err, errlen, "wunder_punkt: a deck order must hold each of the "
                           "cards in play once");
                return -1;
            }
            seen |= 1ULL << o[k];
        }
    }
    memset(state, 0, (size_t)cfg->state_size);
    wp_state *s = (wp_state *)state;
    memcpy(s->orders, orders, (size_t)t->num_rounds * t->order_len);
    start_round(t, s, 0);
    return 0;
}

static int wp_valid(const kz_config *cfg, const void *state, char *err, size_t errlen) {
    const wp_tables *t = TABLES(cfg);
    const wp_state *s = (const wp_state *)state;
    int n = t->n;
#define BAD(msg) do { kz_set_err(err, errlen, "wunder_punkt: bad state: " msg); return -1; } while (0)
    if (s->h.phase < SORE || s->h.phase > GAME_OVER) BAD("phase");
    if (s->h.over != 0 && s->h.over != 1) BAD("over");
    if (s->h.truncated != 0) BAD("truncated");
    if (s->h.over != (s->h.phase == GAME_OVER)) BAD("over does not match phase");
    if (s->h.round_index < 0 || s->h.round_index >= t->num_rounds) BAD("round_index");
    if (s->h.decisions < 0 || s->h.decisions > (1 << 30)) BAD("decisions");
    for (int p = 0; p < KZ_MAX_PLAYERS; p++)
        if (s->h.totals[p] < -1000000 || s->h.totals[p] > 1000000) BAD("totals");
    if (s->h.phase == GAME_OVER ? s->h.current_player != -1
                                : (s->h.current_player < 0 || s->h.current_player >= n))
        BAD("current_player");
    if (s->dealer < 0 || s->dealer >= n) BAD("dealer");
    if (s->leader < 0 || s->leader >= n) BAD("leader");
    /* a trick in play is never complete; the last one stays complete at game over */
    if (s->trick_len < 0 || s->trick_len > (s->h.phase == GAME_OVER ? n : n - 1))
        BAD("trick length");
    for (int i = 0; i < s->trick_len; i++)
        if (s->trick[i] >= WP_DECK) BAD("trick card");
    if (s->removed & ~t->used) BAD("removed");
    for (int p = 0; p < n; p++) {
        if (s->hands[p] & ~t->used) BAD("hand");
        if (s->won[p] & ~t->used) BAD("won");
        if (s->sore[p] < -1 || s->sore[p] >= WP_DECK) BAD("sore card");
        /* after the reveal every seat has its sore card: scoring reads its suit */
        if (s->h.phase != SORE && s->sore[p] < 0) BAD("sore card missing after the reveal");
    }
    for (int p = n; p < KZ_MAX_PLAYERS; p++)
        if (s->hands[p] || s->won[p]) BAD("cards of a seat not at the table");
    /* the deck orders deal the later rounds: every byte a card id below 52
     * (eight at a time: a byte b < 128 gets its top bit from b + 76 iff b >= 52) */
    size_t len = (size_t)t->num_rounds * (size_t)t->order_len, i = 0;
    uint64_t bad = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x;
        memcpy(&x, s->orders + i, 8);
        bad |= (x | (x + 0x4C4C4C4C4C4C4C4CULL)) & 0x8080808080808080ULL;
    }
    for (; i < len; i++) bad |= s->orders[i] >= WP_DECK;
    if (bad) BAD("deck order");
    return 0;
#undef BAD
}

static void wp_legal(const kz_config *cfg, const void *state, uint64_t *mask) {
    (void)cfg;
    const wp_state *s = (const wp_state *)state;
    mask[0] = mask[1] = 0;
    if (s->h.phase == PLAY) {
        /* no follow rule: every card in hand */
        mask[0] = s->hands[s->h.current_player];
    } else if (s->h.phase == SORE) {
        /* lay any card of the hand: action 52 + card */
        uint64_t hand = s->hands[s->h.current_player];
        mask[0] = hand << WP_DECK;
        mask[1] = hand >> (64 - WP_DECK);
    }
}

/* Position (in play order) of the winning card, or -1 if every card is an Ace.
 * Aces are passed over; a foreign-suit card beats the led suit; the highest
 * number wins, the first played keeps a tie. */
static int trick_winner(const uint8_t *cards, int len) {
    int led = card_suit(cards[0]);
    int best_foreign = -1, best_foreign_num = 0, best_led = -1, best_led_num = 0;
    for (int i = 0; i < len; i++) {
        int num = card_number(cards[i]);
        if (num == 0) continue;
        if (card_suit(cards[i]) != led) {
            if (num > best_foreign_num) { best_foreign = i; best_foreign_num = num; }
        } else if (num > best_led_num) {
            best_led = i; best_led_num = num;
        }
    }
    return best_foreign >= 0 ? best_foreign : best_led;
}

/* card_points: cards of the sore suit count minus their number, every other +1 */
static int card_points(uint64_t cards, int sore_suit) {
    uint64_t sore = cards & SUIT_MASK[sore_suit];
    int pts = kz_popcount64(cards ^ sore);
    while (sore) {
        pts -= card_number(kz_lowbit64(sore));
        sore &= sore - 1;
    }
    return pts;
}

/* a seat's round score: its won cards plus its own sore card */
static int round_score(const wp_state *s, int p) {
    int sc = s->sore[p];
    return card_points(s->won[p] | (1ULL << sc), card_suit(sc));
}

static int wp_apply(const kz_config *cfg, void *state, int action, int32_t *deltas) {
    const wp_tables *t = TABLES(cfg);
    wp_state *s = (wp_state *)state;
    int n = t->n;
    int seat = s->h.current_player;
    s->h.decisions++;
    if (s->h.phase != PLAY) {
        /* the sore pick: the card leaves the hand, face down until the dealer has picked */
        int card = action - WP_DECK;
        s->hands[seat] ^= 1ULL << card;
        s->sore[seat] = (int8_t)card;
        if (seat == s->dealer) {  /* the dealer picks last: reveal all, left of dealer leads */
            s->h.phase = PLAY;
            s->h.current_player = s->leader;
        } else {
            s->h.current_player = seat + 1 == n ? 0 : seat + 1;
        }
        return 0;
    }
    /* a card to the trick */
    s->hands[seat] ^= 1ULL << action;
    s->trick[s->trick_len++] = (uint8_t)action;
    if (s->trick_len < n) {
        s->h.current_player = seat + 1 == n ? 0 : seat + 1;
        return 0;
    }
    int pos = trick_winner(s->trick, n);
    uint64_t taken = 0;
    for (int i = 0; i < n; i++) taken |= 1ULL << s->trick[i];
    int winner;
    if (pos >= 0) {
        winner = (s->leader + pos) % n;
        s->won[winner] |= taken;
    } else {  /* only Aces: nobody wins, the cards leave, the same player leads again */
        winner = s->leader;
        s->removed |= taken;
    }
    if (s->hands[winner]) {
        s->leader = winner;
        s->trick_len = 0;
        s->h.current_player = winner;
        return 0;
    }
    /* the hands are empty: score the round (won cards plus own sore card) */
    for (int p = 0; p < n; p++) {
        int sc = round_score(s, p);
        deltas[p] = sc;
        s->h.totals[p] += sc;
    }
    int flags = KZ_DELTAS;
    if (s->h.round_index + 1 < t->num_rounds) {
        start_round(t, s, s->h.round_index + 1);
    } else {  /* the last round: game over, the last trick stays on the table */
        s->h.over = 1;
        s->h.phase = GAME_OVER;
        s->h.current_player = -1;
        flags |= KZ_OVER;
    }
    return flags;
}

/* -- the observation (WunderPunktEncoder.encode) ----------------------------------- */

static inline void put_bits(float *out, uint64_t mask) {
    while (mask) {
        out[kz_lowbit64(mask)] = 1.0f;
        mask &= mask - 1;
    }
}

static void wp_encode(const kz_config *cfg, const void *state, int seat, float *out) {
    const wp_tables *t = TABLES(cfg);
    const wp_state *s = (const wp_state *)state;
    int n = t->n;
    memset(out, 0, sizeof(float) * (size_t)cfg->obs_size);
    put_bits(out + t->o_hand, s->hands[seat]);
    out[t->o_phase + s->h.phase] = 1.0f;
    memcpy(out + t->o_in_play, t->in_play_row, sizeof t->in_play_row);
    /* rounds completed / rounds in the game: Python int / int, then float32 */
    out[t->o_progress] = (float)((double)(s->h.round_index + (s->h.phase == GAME_OVER)) /
                                 (double)t->num_rounds);
    out[t->o_dealer + (s->dealer - seat + n) % n] = 1.0f;
    int revealed = s->h.phase != SORE;  /* others' picks are face up once all have picked */
    for (int rel = 0; rel < n; rel++) {
        int p = seat + rel;
        if (p >= n) p -= n;
        int card = s->sore[p];
        if (card >= 0) {
            out[t->o_picked + rel] = 1.0f;  /* a face-down card on the table is public */
            if (revealed || p == seat) {
                out[t->o_sore_cards + rel * WP_DECK + card] = 1.0f;
                out[t->o_sore_suits + rel * WP_SUITS + card_suit(card)] = 1.0f;
            }
        }
        put_bits(out + t->o_won + rel * WP_DECK, s->won[p]);
    }
    out[t->o_leader + (s->leader - seat + n) % n] = 1.0f;
    for (int i = 0; i < s->trick_len; i++)
        out[t->o_trick + ((s->leader + i - seat + 2 * n) % n) * WP_DECK + s->trick[i]] = 1.0f;
    put_bits(out + t->o_removed, s->removed);
    if (s->h.phase == PLAY) {  /* public only once the sore cards are face up */
        for (int rel = 0; rel < n; rel++) {
            int p = seat + rel;
            if (p >= n) p -= n;
            out[t->o_round_scores + rel] = (float)((double)round_score(s, p) / 100.0);
        }
    }
    for (int rel = 0; rel < n; rel++) {
        int p = seat + rel;
        if (p >= n) p -= n;
        out[t->o_scores + rel] = (float)((double)s->h.totals[p] / 100.0);
    }
}

/* GameState.winners: the highest total wins, equal totals share */
static void wp_win_share(const kz_config *cfg, const void *state, double *share) {
    const wp_state *s = (const wp_state *)state;
    int n = TABLES(cfg)->n;
    int32_t best = s->h.totals[0];
    for (int p = 1; p < n; p++)
        if (s->h.totals[p] > best) best = s->h.totals[p];
    int k = 0;
    for (int p = 0; p < n; p++) k += s->h.totals[p] == best;
    for (int p = 0; p < n; p++) share[p] = s->h.totals[p] == best ? 1.0 / k : 0.0;
}

const kz_game kz_wunder_punkt = {
    "wunder_punkt",
    wp_configure,
    wp_deal,
    wp_start,
    wp_valid,
    wp_legal,
    wp_apply,
    wp_encode,
    wp_win_share,
};
