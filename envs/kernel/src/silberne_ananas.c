/* Silberne Ananas in C: envs/silberne_ananas/rules.py, and encode.py's
 * default encoder with the reading pieces of reading.py and standing.py,
 * ported.
 *
 * Why: the batch engine and the search step the game millions of times; the
 * Python core costs microseconds a decision and its reading pieces (exact
 * enumerations over the unseen cards, the match standing) 1.7 ms an
 * observation.  Here a decision and its observation cost a small fraction
 * of that.  The Python core stays the referee:
 * tests/envs/kernel/test_silberne_ananas.py plays the same seeds in both and
 * compares every decision (legal mask, seat to act, phase, score deltas,
 * totals, win shares, observation float for float, reading included).
 *
 * The game (exactly 3 players), as the rule book tells it:
 *
 * Deck.  32 cards A K Q J 10 9 8 7 in four suits - hearts and diamonds red,
 * spades and clubs black - plus one Joker: 33 cards, all dealt, 11 to each
 * player, one at a time starting left of the dealer.  Card ids as in
 * Python: suit * 8 + rank (suits h d s c, ranks 7 (0) .. A (7)), so within a
 * suit a higher id is a higher card; the Joker is 32.  Cards have no point
 * values.
 *
 * Dealer.  first_dealer deals the first deal; the deal moves one seat left
 * every deal.  The player left of the dealer leads the first of the 11
 * tricks; whoever takes a trick leads the next.
 *
 * Play.  Following suit is compulsory, and the Joker is no card of any
 * suit: a player holding the led suit must play one of it.  A player who
 * cannot follow and holds the Joker must play the Joker; otherwise any
 * card.  The Joker may be led only as the player's last card (the eleventh
 * trick); then nothing has to be followed in that trick.
 *
 * Who takes a trick without the Joker - the odd one out, never the highest:
 * three cards of one suit: the middle card; exactly two of one suit: the
 * card of the other suit; three suits: two share a colour, the card of the
 * other colour takes it.  With the Joker, the Joker's player decides who
 * takes the complete trick - self, left or right neighbour (a decision of
 * its own, the give phase).  Whoever takes it leads next.
 *
 * Score per deal.  1 point per own trick plus 2 per trick of the right
 * neighbour (seat - 1); the three scores sum to 33 and never tie; the
 * middle score earns a bonus of 10.
 *
 * Match (default).  Deal scores accumulate; the game ends after the first
 * deal at which someone has target_score or more.  The middle total wins;
 * the two highest equal: the third wins; the two lowest equal: they share;
 * all equal: all share.  alone_variant: the only player at or over the
 * target wins, or with two over it the only one below; all three over: the
 * middle rule.  match=0: a single deal, its middle score (the bonus) wins.
 * A match lasts at most 3 * (target - 1) / 43 + 1 deals (43 points a deal),
 * and that many deck orders are drawn up front.
 *
 * Actions: 0..32 play that card; 33, 34, 35 give the Joker's trick to the
 * Joker's player, its left neighbour, its right neighbour.
 *
 * Options, in the order envs/silberne_ananas/kernel.py's kernel_options
 * gives them: opt[0] num_players (3), opt[1] match (0/1), opt[2]
 * target_score (1..1000), opt[3] alone_variant (0/1, match only), opt[4]
 * first_dealer (0..2), opt[5] max_deals (the deck orders a game draws).
 *
 * The reading (observation version 1, reading.py).  taker_values: per seat,
 * its value of the trick going to each taker - the tricks still to come
 * split uniformly at random (multinomial), then the exact match result if
 * the deal ends the game, else standing.py's chance of finishing in the
 * middle (Gauss-Hermite quadrature over a normal drift).  Its deal-end
 * values depend only on the totals before the deal and how the 11 tricks
 * fall (78 splits), so the state keeps them, computed once when a deal
 * starts, and the taker values, recomputed when a trick is taken: encode
 * then only reads them (Python memoises the same values in dicts).  The
 * card pieces (card_takers, card_values) for the seat to play follow
 * reading.py step for step: the constrained uniform dealing of
 * determinize (cards only one of the other two may hold, voids, the
 * Joker), binomial coefficients from a table, and every float operation
 * in Python's order (no fused multiply-add) so that each value is the
 * Python float bit for bit.
 *
 * Cost (one core): a decision with its observation about 2 us in a match,
 * 0.8 us in a single deal.  Half of the match's is the deal-end values: 78
 * ends x 3 seats x 9 nodes x 2 erf calls when a deal starts (the first
 * deal's come precomputed with the options), about 50 us a deal; the card
 * pieces of a lead (every card against every reply) are the next largest.
 */
/* a * b + c rounded twice, as Python computes it: never fused into one
 * multiply-add (-march=native would allow it), so every float is Python's */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>

#include "kz.h"

#define SA_PLAYERS 3
#define SA_DECK 33
#define SA_SUITS 4
#define SA_RANKS 8
#define SA_HAND 11
#define SA_JOKER 32
#define SA_GIVE0 33 /* give actions 33 self, 34 left, 35 right */
#define SA_ACTIONS 36
#define SA_BONUS 10
#define SA_DEAL_POINTS 33
#define SA_FULL ((1ULL << SA_DECK) - 1)
#define SA_JOKER_BIT (1ULL << SA_JOKER)
#define SA_SUIT_MASK(s) (0xFFULL << (8 * (s))) /* s in 0..3 only */
#define SA_SPLITS 78 /* ways 11 tricks fall to 3 seats: (t0, t1), t2 = 11 - t0 - t1 */
#define SA_NO_SUIT (-1) /* empty trick, or the Joker was led: nothing to follow */

/* phases: PHASE_NAMES = ("play", "give_trick", "game_over") */
enum { PLAY, GIVE, GAME_OVER };

/* the observation (encode.py's observation_layout), piece offsets */
enum {
    O_HAND = 0,
    O_PHASE = O_HAND + SA_DECK,
    O_DEALER = O_PHASE + 3,
    O_PROGRESS = O_DEALER + SA_PLAYERS,
    O_LEADER = O_PROGRESS + 1,
    O_TRICK = O_LEADER + SA_PLAYERS,
    O_LEAD_SUIT = O_TRICK + SA_PLAYERS * SA_DECK,
    O_PLAYED = O_LEAD_SUIT + SA_SUITS + 1,
    O_VOIDS = O_PLAYED + SA_DECK,
    O_NO_JOKER = O_VOIDS + SA_PLAYERS * SA_SUITS,
    O_TRICKS = O_NO_JOKER + SA_PLAYERS,
    O_SCORES = O_TRICKS + SA_PLAYERS * (SA_HAND + 1),
    O_RULES = O_SCORES + SA_PLAYERS,
    O_TAKER_VALUES = O_RULES + 3,
    O_BEST_TAKER = O_TAKER_VALUES + SA_PLAYERS * SA_PLAYERS,
    O_CARD_TAKERS = O_BEST_TAKER + SA_PLAYERS * SA_PLAYERS,
    O_CARD_VALUES = O_CARD_TAKERS + SA_PLAYERS * SA_DECK,
    OBS_SIZE = O_CARD_VALUES + SA_DECK, /* 387 */
};

/* The state: kz_head, the deal in play, the reading's caches, every deck order. */
typedef struct {
    kz_head h;                      /* round_index is the deal index */
    uint64_t hands[SA_PLAYERS];     /* bit c: card c */
    uint64_t played;                /* every card played this deal (current trick included) */
    /* deal_end_values for each way the 11 tricks can fall, from the totals
     * before this deal (index split_index(t0, t1)); computed when the deal starts */
    double end_value[SA_SPLITS][SA_PLAYERS];
    /* taker_values: w[seat][taker], for the tricks taken so far this deal */
    double w[SA_PLAYERS][SA_PLAYERS];
    int8_t leader;                  /* seat that led the current trick */
    int8_t trick_len;               /* cards in the current trick (3 while the gift is decided) */
    int8_t lead_suit;               /* suit to follow 0..3, or SA_NO_SUIT */
    int8_t joker_seat;              /* who played the Joker to this trick, -1: nobody */
    int8_t bonus_seat;              /* the middle seat of the last finished deal, -1: none */
    uint8_t trick[SA_PLAYERS];      /* the current trick's cards, in play order */
    uint8_t tricks_won[SA_PLAYERS]; /* this deal */
    uint8_t voids[SA_PLAYERS];      /* bit s: showed out of suit s this deal */
    uint8_t no_joker[SA_PLAYERS];   /* 1: cannot hold the Joker (showed out, or it is out) */
    uint8_t orders[];               /* max_deals x 33: the deck order of every deal */
} sa_state;

/* cfg->game: the options and the reading's exact tables */
typedef struct {
    int32_t match, target, alone, first_dealer, max_deals;
    int32_t split_off[SA_HAND + 1]; /* first entry of multinomial(r) in split_p */
    /* multinomial(r) of reading.py, r = 0..11, in its order (a outer, b inner):
     * r! / (a! b! c!) / 3**r */
    double split_p[364];
    uint32_t comb[SA_DECK + 1][SA_HAND + 1]; /* math.comb(n, k), 0 when k > n */
    /* end_value of a deal from totals 0, 0, 0 (every first deal: the costliest,
     * all 78 ends need the standing) */
    double first_end_value[SA_SPLITS][SA_PLAYERS];
} sa_tables;

typedef char sa_tables_fit[sizeof(sa_tables) <= sizeof(((kz_config *)0)->game) ? 1 : -1];

#define T(cfg) ((const sa_tables *)(const void *)(cfg)->game)

/* standing.py: the 9-point Gauss-Hermite rule for E[f(Z)], Z standard normal,
 * as numpy's hermegauss(9) gives it, weights over sqrt(2 pi) (bit for bit) */
static const double GH_W[9] = {
    0x1.76e6ab51a911dp-16, 0x1.6d940d8468e19p-9, 0x1.98ea4ad2e4ea3p-5,
    0x1.f3e9643fc0932p-3,  0x1.a01a01a01a01ap-2, 0x1.f3e9643fc0932p-3,
    0x1.98ea4ad2e4ea3p-5,  0x1.6d940d8468e19p-9, 0x1.76e6ab51a911dp-16,
};
static const double GH_X[9] = {
    -0x1.20d0d4069d86cp+2, -0x1.9a4b7f60758f1p+1, -0x1.09d6279197adap+1,
    -0x1.05f4154b6bccfp+0, 0x0.0p+0,              0x1.05f4154b6bccfp+0,
    0x1.09d6279197adap+1,  0x1.9a4b7f60758f1p+1,  0x1.20d0d4069d86cp+2,
};
#define DEAL_SIGMA 8.0   /* spread of one seat's deal score around the others', per deal */
#define LEADER_GAIN 17.0 /* points the leader gains per deal on average */

static inline int suit_of(int c) { return c < SA_JOKER ? c >> 3 : -1; }
static inline int next_seat(int p) { return p == 2 ? 0 : p + 1; }
static inline int rel_seat(int p, int seat) { return (p - seat + SA_PLAYERS) % SA_PLAYERS; }
static inline int split_index(int t0, int t1) { return t0 * 12 - t0 * (t0 - 1) / 2 + t1; }

/* -- who takes a trick ------------------------------------------------------------ */

/* Position (in play order) of the card that takes a Joker-free trick - the
 * odd one out: three of one suit -> the middle card; two of one suit -> the
 * card of the other suit; three suits -> the card whose colour the other two
 * do not share (colour: hearts, diamonds red; spades, clubs black). */
static int trick_winner(int c0, int c1, int c2) {
    int s0 = c0 >> 3, s1 = c1 >> 3, s2 = c2 >> 3;
    if (s0 == s1) {
        if (s1 != s2) return 2;
        /* one suit: ids rise with rank, so the middle id is the middle card */
        if (c0 < c1) return c1 < c2 ? 1 : (c0 > c2 ? 0 : 2);
        return c1 > c2 ? 1 : (c0 < c2 ? 0 : 2);
    }
    if (s0 == s2) return 1;
    if (s1 == s2) return 0;
    int k0 = s0 >> 1, k1 = s1 >> 1, k2 = s2 >> 1;
    if (k0 == k1) return 2;
    return k0 == k2 ? 1 : 0;
}

/* reading.py's third_takers(a, b): per position in the trick, the mask of
 * the Joker-free third cards d with which the trick a, b, d goes to that
 * position (trick_winner for every d, by whole suits at once). */
static void third_takers(int a, int b, uint64_t *m) {
    int sa = a >> 3, sb = b >> 3;
    m[0] = m[1] = m[2] = 0;
    if (sa == sb) {
        uint64_t suit = SA_SUIT_MASK(sa);
        m[2] = (SA_FULL & ~SA_JOKER_BIT) & ~suit; /* another suit: the odd card */
        int lo = a < b ? a : b, hi = a < b ? b : a;
        /* of the same suit: below lo the middle is lo, above hi it is hi,
         * from lo to hi (both included, as trick_winner has it) the third */
        uint64_t below = suit & ((1ULL << lo) - 1);
        uint64_t above = suit & ~((2ULL << hi) - 1);
        m[a == lo ? 0 : 1] |= below;
        m[a == hi ? 0 : 1] |= above;
        m[2] |= suit & ~below & ~above;
        return;
    }
    for (int sd = 0; sd < SA_SUITS; sd++) {
        int pos;
        if (sd == sa) pos = 1;
        else if (sd == sb) pos = 0;
        else {
            int ka = sa >> 1, kb = sb >> 1, kd = sd >> 1;
            pos = ka == kb ? 2 : (ka == kd ? 1 : 0);
        }
        m[pos] |= SA_SUIT_MASK(sd);
    }
}

/* The seat with the middle of three scores: sorted(range(3), key=scores)[1]
 * (a stable sort, as Python's). */
static void sort3(const int32_t *v, int *o) {
    o[0] = 0; o[1] = 1; o[2] = 2;
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && v[o[j - 1]] > v[o[j]]; j--) {
            int x = o[j]; o[j] = o[j - 1]; o[j - 1] = x;
        }
}

static int middle_seat(const int32_t *scores) {
    int o[3];
    sort3(scores, o);
    return o[1];
}

/* Match winners by totals (win[s] = 1 for a winner), returns how many:
 * the middle total wins; the two highest equal -> the third; [decision] the
 * two lowest equal -> they share; all equal -> all share. */
static int middle_rule(const int32_t *totals, int *win) {
    int o[3];
    sort3(totals, o);
    int a = totals[o[0]], b = totals[o[1]], c = totals[o[2]];
    win[0] = win[1] = win[2] = 0;
    if (a == b && b == c) { win[0] = win[1] = win[2] = 1; return 3; }
    if (b == c) { win[o[0]] = 1; return 1; }
    if (a == b) { win[o[0]] = win[o[1]] = 1; return 2; }
    win[o[1]] = 1;
    return 1;
}

/* The winners of a match that ended on totals: the seed's alone variant (the
 * only one at/over the target wins, or with two over it the only one below;
 * [decision] otherwise the middle rule) or the middle rule. */
static int match_winners(const sa_tables *t, const int32_t *totals, int *win) {
    if (t->alone) {
        int reached = 0;
        for (int p = 0; p < SA_PLAYERS; p++) reached += totals[p] >= t->target;
        if (reached == 1 || reached == 2) {
            for (int p = 0; p < SA_PLAYERS; p++)
                win[p] = reached == 1 ? totals[p] >= t->target : totals[p] < t->target;
            return 1; /* one seat over, or one below */
        }
    }
    return middle_rule(totals, win);
}

/* -- the reading: values of how a deal ends ------------------------------------------ */

static double phi(double x) { return 0.5 * (1.0 + erf(x * 0.7071067811865476)); }

/* standing.py's match_value: the chance-like value of `seat` finishing in the
 * middle from these totals, every total drifting by a normal noise of
 * DEAL_SIGMA points per deal left (the leader's distance to the target over
 * LEADER_GAIN, at least 1). */
static double match_value_now(const int32_t *totals, int seat, int target);

/* match_value depends on the totals, the seat and the target alone, and a match's
 * totals come back again and again (every deal end of every game from them: the
 * 78 ends of a deal's start share most of theirs), while each costs 18 erf calls -
 * half of a match's time in the batch engine.  A process-wide direct-mapped memo
 * returns the very same double.  The kernel's calls hold the GIL (module.c never
 * releases it), so one thread at a time reads and writes it. */
#define SA_MEMO_SIZE 65536
typedef struct {
    int32_t totals[SA_PLAYERS];
    int32_t key;  /* (target * 4 + seat) + 1; 0: empty */
    double value;
} sa_memo_entry;
static sa_memo_entry sa_memo[SA_MEMO_SIZE];

static double match_value(const int32_t *totals, int seat, int target) {
    int32_t key = target * 4 + seat + 1;
    uint32_t h = (uint32_t)totals[0] * 2654435761U ^ (uint32_t)totals[1] * 40503U
                 ^ (uint32_t)totals[2] * 2246822519U ^ (uint32_t)key * 3266489917U;
    sa_memo_entry *e = &sa_memo[(h ^ (h >> 16)) & (SA_MEMO_SIZE - 1)];
    if (e->key == key && e->totals[0] == totals[0] && e->totals[1] == totals[1]
        && e->totals[2] == totals[2])
        return e->value;
    double v = match_value_now(totals, seat, target);
    e->key = key;
    memcpy(e->totals, totals, sizeof e->totals);
    e->value = v;
    return v;
}

static double match_value_now(const int32_t *totals, int seat, int target) {
    int mx = totals[0];
    for (int p = 1; p < SA_PLAYERS; p++)
        if (totals[p] > mx) mx = totals[p];
    double dl = (double)(target - mx) / LEADER_GAIN;
    double deals_left = dl > 1.0 ? dl : 1.0;
    double sigma = DEAL_SIGMA * sqrt(deals_left);
    double me = (double)totals[seat];
    double ta = (double)totals[seat == 0 ? 1 : 0];
    double tb = (double)totals[seat == 2 ? 1 : 2];
    double v = 0.0;
    for (int i = 0; i < 9; i++) {
        double x = me + sigma * GH_X[i];
        double fa = phi((x - ta) / sigma);
        double fb = phi((x - tb) / sigma);
        v += GH_W[i] * (fa * (1.0 - fb) + fb * (1.0 - fa));
    }
    return v;
}

/* reading.py's deal_end_values: per seat, the value of the deal ending with
 * tricks (t0, t1, t2) from the totals before it - the middle score's 1 in a
 * single deal; the win shares if the deal ends the match; else the standing. */
static void deal_end_values(const sa_tables *t, const int32_t *totals, int t0, int t1, int t2,
                            double *v) {
    int32_t base[SA_PLAYERS] = {t0 + 2 * t2, t1 + 2 * t0, t2 + 2 * t1};
    int mid = middle_seat(base);
    if (!t->match) {
        for (int p = 0; p < SA_PLAYERS; p++) v[p] = p == mid ? 1.0 : 0.0;
        return;
    }
    int32_t now[SA_PLAYERS];
    int mx = 0;
    for (int p = 0; p < SA_PLAYERS; p++) {
        now[p] = totals[p] + base[p] + (p == mid ? SA_BONUS : 0);
        if (p == 0 || now[p] > mx) mx = now[p];
    }
    if (mx >= t->target) {
        int win[SA_PLAYERS];
        int k = match_winners(t, now, win);
        for (int p = 0; p < SA_PLAYERS; p++) v[p] = win[p] ? 1.0 / k : 0.0;
        return;
    }
    for (int p = 0; p < SA_PLAYERS; p++) v[p] = match_value(now, p, t->target);
}

/* every deal end from these totals (see sa_state.end_value) */
static void end_values(const sa_tables *t, const int32_t *totals, double (*ev)[SA_PLAYERS]) {
    for (int t0 = 0; t0 <= SA_HAND; t0++)
        for (int t1 = 0; t0 + t1 <= SA_HAND; t1++)
            deal_end_values(t, totals, t0, t1, SA_HAND - t0 - t1, ev[split_index(t0, t1)]);
}

static void fill_end_values(const sa_tables *t, sa_state *s) {
    if (!s->h.totals[0] && !s->h.totals[1] && !s->h.totals[2])
        memcpy(s->end_value, t->first_end_value, sizeof s->end_value);
    else
        end_values(t, s->h.totals, s->end_value);
}

/* reading.py's taker_values: w[seat][taker], the deal-end value expected by
 * seat if taker takes the trick in progress and the rest fall uniformly. */
static void fill_taker_values(const sa_tables *t, sa_state *s) {
    int t0 = s->tricks_won[0], t1 = s->tricks_won[1], t2 = s->tricks_won[2];
    int r = SA_HAND - (t0 + t1 + t2) - 1;
    const double *p = t->split_p + t->split_off[r];
    for (int taker = 0; taker < SA_PLAYERS; taker++) {
        int b0 = t0 + (taker == 0), b1 = t1 + (taker == 1);
        double acc0 = 0.0, acc1 = 0.0, acc2 = 0.0;
        int i = 0;
        for (int a = 0; a <= r; a++)
            for (int b = 0; b <= r - a; b++, i++) {
                const double *v = s->end_value[split_index(b0 + a, b1 + b)];
                acc0 += p[i] * v[0];
                acc1 += p[i] * v[1];
                acc2 += p[i] * v[2];
            }
        s->w[0][taker] = acc0;
        s->w[1][taker] = acc1;
        s->w[2][taker] = acc2;
    }
}

/* -- configure ---------------------------------------------------------------------- */

static int sa_configure(kz_config *cfg, const int64_t *opt, int nopt, char *err, size_t errlen) {
    if (nopt != 6) {
        kz_set_err(err, errlen, "silberne_ananas: options are num_players, match, target_score, "
                                "alone_variant, first_dealer, max_deals");
        return -1;
    }
    int64_t n = opt[0], match = opt[1], target = opt[2], alone = opt[3], first = opt[4],
            deals = opt[5];
    if (n != SA_PLAYERS) {
        kz_set_err(err, errlen, "silberne_ananas is played by exactly 3 players");
        return -1;
    }
    if ((match != 0 && match != 1) || (alone != 0 && alone != 1)) {
        kz_set_err(err, errlen, "silberne_ananas: match and alone_variant must be 0 or 1");
        return -1;
    }
    if (target < 1 || target > 1000) {
        kz_set_err(err, errlen, "silberne_ananas: target_score must be 1..1000");
        return -1;
    }
    if (alone && !match) {
        kz_set_err(err, errlen, "silberne_ananas: alone_variant needs match");
        return -1;
    }
    if (first < 0 || first >= SA_PLAYERS) {
        kz_set_err(err, errlen, "silberne_ananas: first_dealer must be 0..2");
        return -1;
    }
    /* max_deals: 43 points a deal, so 3 * (T - 1) / 43 + 1 deals reach the target */
    int64_t want = match ? 3 * (target - 1) / (SA_DEAL_POINTS + SA_BONUS) + 1 : 1;
    if (deals != want) {
        kz_set_err(err, errlen, "silberne_ananas: max_deals is not the options'");
        return -1;
    }
    memset(cfg->game, 0, sizeof cfg->game);
    sa_tables *t = (sa_tables *)(void *)cfg->game;
    t->match = (int32_t)match;
    t->target = (int32_t)target;
    t->alone = (int32_t)alone;
    t->first_dealer = (int32_t)first;
    t->max_deals = (int32_t)deals;
    /* binomials, exact: comb(n, k) = comb(n-1, k-1) + comb(n-1, k) */
    for (int a = 0; a <= SA_DECK; a++)
        for (int k = 0; k <= SA_HAND; k++)
            t->comb[a][k] = k == 0 ? 1 : a == 0 ? 0 : t->comb[a - 1][k - 1] + (k <= a - 1 ? t->comb[a - 1][k] : 0);
    /* multinomial(r): factorials exact in a double (11! < 2^53), one division
     * each as Python divides ints, then by 3**r */
    double fact[SA_HAND + 1];
    fact[0] = 1.0;
    for (int i = 1; i <= SA_HAND; i++) fact[i] = fact[i - 1] * i;
    int i = 0;
    for (int r = 0; r <= SA_HAND; r++) {
        t->split_off[r] = i;
        double pow3 = 1.0;
        for (int k = 0; k < r; k++) pow3 *= 3.0;
        for (int a = 0; a <= r; a++)
            for (int b = 0; b <= r - a; b++) {
                int c = r - a - b;
                double p = fact[r] / (fact[a] * fact[b] * fact[c]);
                t->split_p[i++] = p / pow3;
            }
    }
    static const int32_t zero[SA_PLAYERS] = {0, 0, 0};
    end_values(t, zero, t->first_end_value);
    cfg->num_players = SA_PLAYERS;
    cfg->num_actions = SA_ACTIONS;
    cfg->obs_size = OBS_SIZE;
    cfg->num_orders = (int32_t)deals;
    cfg->order_len = SA_DECK;
    size_t size = offsetof(sa_state, orders) + (size_t)deals * SA_DECK;
    cfg->state_size = (int32_t)((size + 7) & ~(size_t)7);
    for (int k = 0; k < KZ_MAX_OPTIONS; k++) cfg->opt[k] = k < nopt ? opt[k] : 0;
    return 0;
}

/* -- the deal ------------------------------------------------------------------------- */

/* SilberneAnanasGame.deal: one shuffle of the 33 cards (in id order) per deal
 * the game can last. */
static void sa_deal(const kz_config *cfg, kz_random *r, uint8_t *orders) {
    for (int k = 0; k < T(cfg)->max_deals; k++) {
        uint8_t *o = orders + k * SA_DECK;
        for (int c = 0; c < SA_DECK; c++) o[c] = (uint8_t)c;
        kz_shuffle(r, o, SA_DECK);
    }
}

/* start_deal: deal `d` from its deck order (11 cards each, one at a time,
 * starting left of the dealer) and open it; totals and decisions stay.  The
 * reading's caches follow the new totals. */
static void start_deal(const sa_tables *t, sa_state *s, int d) {
    int dealer = (t->first_dealer + d) % SA_PLAYERS;
    const uint8_t *order = s->orders + d * SA_DECK;
    s->h.round_index = d;
    s->hands[0] = s->hands[1] = s->hands[2] = 0;
    int seat = next_seat(dealer);
    for (int k = 0; k < SA_DECK; k++) {
        s->hands[seat] |= 1ULL << order[k];
        seat = next_seat(seat);
    }
    s->played = 0;
    memset(s->tricks_won, 0, sizeof s->tricks_won);
    memset(s->voids, 0, sizeof s->voids);
    memset(s->no_joker, 0, sizeof s->no_joker);
    memset(s->trick, 0, sizeof s->trick);
    s->trick_len = 0;
    s->leader = (int8_t)next_seat(dealer);
    s->lead_suit = SA_NO_SUIT;
    s->joker_seat = -1;
    s->h.phase = PLAY;
    s->h.current_player = next_seat(dealer);
    fill_end_values(t, s);
    fill_taker_values(t, s);
}

static int sa_start(const kz_config *cfg, void *state, const uint8_t *orders, char *err,
                    size_t errlen) {
    const sa_tables *t = T(cfg);
    for (int k = 0; k < t->max_deals; k++) {
        uint64_t seen = 0;
        for (int i = 0; i < SA_DECK; i++) {
            int c = orders[k * SA_DECK + i];
            if (c >= SA_DECK || (seen >> c & 1)) {
                kz_set_err(err, errlen, "silberne_ananas: a deck order must hold each of the "
                                        "33 cards in play once");
                return -1;
            }
            seen |= 1ULL << c;
        }
    }
    sa_state *s = (sa_state *)state;
    memset(s, 0, (size_t)cfg->state_size);
    memcpy(s->orders, orders, (size_t)t->max_deals * SA_DECK);
    s->bonus_seat = -1;
    start_deal(t, s, 0);
    return 0;
}

/* -- the checks ----------------------------------------------------------------------- */

#define BAD(msg)                                                \
    do {                                                        \
        kz_set_err(err, errlen, "silberne_ananas state: " msg); \
        return -1;                                              \
    } while (0)

/* Every field legal/apply/encode index with, in range; and the card counts of
 * a real deal (hands disjoint, sizes matching the tricks taken, the trick
 * and the suit to follow agreeing), so that apply cannot take a state out
 * of range either (a deal always ends after exactly 11 tricks). */
static int sa_valid(const kz_config *cfg, const void *state, char *err, size_t errlen) {
    const sa_tables *t = T(cfg);
    const sa_state *s = (const sa_state *)state;
    int phase = s->h.phase;
    if (phase < PLAY || phase > GAME_OVER) BAD("phase out of range");
    if (s->h.over < 0 || s->h.over > 1 || s->h.truncated != 0) BAD("over/truncated out of range");
    if ((phase == GAME_OVER) != (s->h.over == 1)) BAD("phase game_over exactly when the game is over");
    if (phase == GAME_OVER ? s->h.current_player != -1
                           : (s->h.current_player < 0 || s->h.current_player >= SA_PLAYERS))
        BAD("current_player out of range");
    if (s->h.round_index < 0 || s->h.round_index >= t->max_deals) BAD("deal index out of range");
    if (s->h.decisions < 0 || s->h.decisions > (1 << 30)) BAD("decisions out of range");
    /* totals: any value a few thousand deals cannot overflow (a real game's are
     * 0..target + 42, but a match ends after max_deals deals whatever they are) */
    for (int p = 0; p < SA_PLAYERS; p++)
        if (s->h.totals[p] < -(1 << 24) || s->h.totals[p] > (1 << 24)) BAD("totals out of range");
    if (s->leader < 0 || s->leader >= SA_PLAYERS) BAD("trick leader out of range");
    if (s->trick_len < 0 || s->trick_len > SA_PLAYERS) BAD("trick length out of range");
    if (s->lead_suit < SA_NO_SUIT || s->lead_suit >= SA_SUITS) BAD("lead suit out of range");
    if (s->joker_seat < -1 || s->joker_seat >= SA_PLAYERS) BAD("joker seat out of range");
    if (s->bonus_seat < -1 || s->bonus_seat >= SA_PLAYERS) BAD("bonus seat out of range");
    uint64_t seen = s->played, in_trick = 0;
    if (seen & ~SA_FULL) BAD("played cards out of range");
    int joker_pos = -1;
    for (int i = 0; i < s->trick_len; i++) {
        int c = s->trick[i];
        if (c >= SA_DECK) BAD("trick card out of range");
        if (in_trick >> c & 1) BAD("a card twice in the trick");
        in_trick |= 1ULL << c;
        if (c == SA_JOKER) joker_pos = i;
    }
    if (in_trick & ~s->played) BAD("a trick card not played");
    int done = 0;
    for (int p = 0; p < SA_PLAYERS; p++) {
        if (s->tricks_won[p] > SA_HAND) BAD("tricks_won out of range");
        if (s->voids[p] >= 1 << SA_SUITS) BAD("voids out of range");
        if (s->no_joker[p] > 1) BAD("no_joker out of range");
        if (s->hands[p] & (seen | ~SA_FULL)) BAD("hand overlaps another or out of range");
        seen |= s->hands[p];
        done += s->tricks_won[p];
    }
    if (phase == GAME_OVER) {
        if (done > SA_HAND) BAD("tricks_won out of range");
        return 0;
    }
    /* in a deal: the hand sizes are 11 less the tricks taken, less one for a
     * card in this trick; the trick agrees with the suit to follow and the Joker */
    if (done >= SA_HAND) BAD("tricks_won out of range in a deal");
    if (phase == PLAY ? s->trick_len >= SA_PLAYERS : s->trick_len != SA_PLAYERS)
        BAD("trick length does not match the phase");
    if (seen != SA_FULL) BAD("cards missing from the hands and the cards played");
    for (int p = 0; p < SA_PLAYERS; p++) {
        int pos = rel_seat(p, s->leader);
        if (kz_popcount64(s->hands[p]) != SA_HAND - done - (pos < s->trick_len))
            BAD("hand size does not match the tricks played");
    }
    if (s->trick_len == 0 ? s->lead_suit != SA_NO_SUIT
                          : s->lead_suit != suit_of(s->trick[0]))
        BAD("lead suit is not the trick's");
    if (joker_pos < 0 ? s->joker_seat != -1 : s->joker_seat != (s->leader + joker_pos) % SA_PLAYERS)
        BAD("joker seat is not the trick's");
    if (phase == GIVE ? s->h.current_player != s->joker_seat
                      : s->h.current_player != (s->leader + s->trick_len) % SA_PLAYERS)
        BAD("current_player is not the trick's");
    /* the next deal's deck order (the one apply may deal): each card once */
    if (s->h.round_index + 1 < t->max_deals) {
        const uint8_t *o = s->orders + (s->h.round_index + 1) * SA_DECK;
        uint64_t cards = 0;
        for (int i = 0; i < SA_DECK; i++) cards |= 1ULL << (o[i] & 63);
        if (cards != SA_FULL) BAD("the next deck order is not the 33 cards");
    }
    return 0;
}

/* -- the rules ------------------------------------------------------------------------- */

static void sa_legal(const kz_config *cfg, const void *state, uint64_t *mask) {
    const sa_state *s = (const sa_state *)state;
    (void)cfg;
    mask[0] = mask[1] = 0;
    if (s->h.phase == PLAY) {
        uint64_t hand = s->hands[s->h.current_player];
        if (s->trick_len) {
            /* follow suit if you can; else the Joker if you hold it; else anything
             * (the Joker led: nothing to follow) */
            if (s->lead_suit >= 0) {
                uint64_t same = hand & SA_SUIT_MASK(s->lead_suit);
                if (same) hand = same;
                else if (hand & SA_JOKER_BIT) hand = SA_JOKER_BIT;
            }
        } else if ((hand & SA_JOKER_BIT) && hand != SA_JOKER_BIT) {
            hand ^= SA_JOKER_BIT; /* the Joker may be led only as the last card */
        }
        mask[0] = hand;
    } else if (s->h.phase == GIVE) {
        mask[0] = 7ULL << SA_GIVE0;
    }
}

/* the deal is over: score it (own tricks + 2 x the right neighbour's, the
 * middle score's bonus), deal the next or end the game */
static int score_deal(const sa_tables *t, sa_state *s, int32_t *deltas) {
    const uint8_t *tw = s->tricks_won;
    int32_t scores[SA_PLAYERS] = {tw[0] + 2 * tw[2], tw[1] + 2 * tw[0], tw[2] + 2 * tw[1]};
    int bonus = middle_seat(scores);
    scores[bonus] += SA_BONUS;
    s->bonus_seat = (int8_t)bonus;
    int mx = 0;
    for (int p = 0; p < SA_PLAYERS; p++) {
        s->h.totals[p] += scores[p];
        deltas[p] = scores[p];
        if (p == 0 || s->h.totals[p] > mx) mx = s->h.totals[p];
    }
    /* cannot run past the drawn orders (max_deals); the guard is for a
     * state whose totals were tampered with */
    if (t->match && mx < t->target && s->h.round_index + 1 < t->max_deals) {
        start_deal(t, s, s->h.round_index + 1);
        return KZ_DELTAS;
    }
    s->h.over = 1;
    s->h.phase = GAME_OVER;
    s->h.current_player = -1;
    return KZ_DELTAS | KZ_OVER;
}

/* `taker` takes the complete trick and leads the next (or the deal ends) */
static int take(const sa_tables *t, sa_state *s, int taker, int32_t *deltas) {
    s->tricks_won[taker]++;
    if (s->joker_seat >= 0) /* the Joker is out for everybody */
        s->no_joker[0] = s->no_joker[1] = s->no_joker[2] = 1;
    s->joker_seat = -1;
    s->lead_suit = SA_NO_SUIT;
    s->h.phase = PLAY;
    if (s->hands[taker]) {
        s->leader = (int8_t)taker;
        s->trick_len = 0;
        memset(s->trick, 0, sizeof s->trick);
        s->h.current_player = taker;
        fill_taker_values(t, s);
        return 0;
    }
    return score_deal(t, s, deltas); /* the last trick stays on the table */
}

static int sa_apply(const kz_config *cfg, void *state, int action, int32_t *deltas) {
    const sa_tables *t = T(cfg);
    sa_state *s = (sa_state *)state;
    int seat = s->h.current_player;
    s->h.decisions++;
    if (s->h.phase == GIVE) /* self, left (+1) or right (+2) of the Joker's player */
        return take(t, s, (seat + action - SA_GIVE0) % SA_PLAYERS, deltas);
    int card = action;
    s->hands[seat] ^= 1ULL << card;
    s->played |= 1ULL << card;
    int k = s->trick_len;
    if (card == SA_JOKER) {
        s->joker_seat = (int8_t)seat;
        if (k && s->lead_suit >= 0) s->voids[seat] |= (uint8_t)(1 << s->lead_suit); /* void */
    } else if (!k) {
        s->lead_suit = (int8_t)suit_of(card);
    } else if (s->lead_suit >= 0 && suit_of(card) != s->lead_suit) {
        /* showed out - and had they held the Joker, they would have had to play it */
        s->voids[seat] |= (uint8_t)(1 << s->lead_suit);
        s->no_joker[seat] = 1;
    }
    s->trick[k] = (uint8_t)card;
    s->trick_len = (int8_t)(k + 1);
    if (k + 1 < SA_PLAYERS) {
        s->h.current_player = next_seat(seat);
        return 0;
    }
    if (s->joker_seat >= 0) { /* the Joker's player gives the trick */
        s->h.phase = GIVE;
        s->h.current_player = s->joker_seat;
        return 0;
    }
    int pos = trick_winner(s->trick[0], s->trick[1], s->trick[2]);
    return take(t, s, (s->leader + pos) % SA_PLAYERS, deltas);
}

/* -- the reading: who takes the trick for each card of the seat to play ------------------ */

/* How `seat` sees another seat's hand (reading.py's deal_model): the cards
 * only it may hold (the other one is banned from them), the cards either may
 * hold, and how many of those it holds - the constrained uniform dealing of
 * determinize. */
typedef struct {
    uint64_t forced, free;
    int m, nf;          /* nf: the free cards' count */
    uint64_t have;      /* bit x: ratio[x] computed */
    double ratio[SA_DECK + 1]; /* comb(nf - x, m) / comb(nf, m), as needed */
    /* best_reply's last answer and the sets it came from (many cards of the
     * seat split the last hand alike) */
    int keyed;
    uint64_t key[3 * SA_PLAYERS];
    double kdist[SA_PLAYERS];
} sa_model;

/* the cards seat p cannot hold, as everybody saw: suits shown out of; the
 * Joker once p showed out without playing it, or it is out */
static uint64_t bans(const sa_state *s, int p) {
    uint64_t m = s->no_joker[p] ? SA_JOKER_BIT : 0;
    for (int su = 0; su < SA_SUITS; su++)
        if (s->voids[p] >> su & 1) m |= SA_SUIT_MASK(su);
    return m;
}

static sa_model deal_model(const sa_state *s, int seat, int p, uint64_t without) {
    int other = 3 - seat - p;
    uint64_t pool = SA_FULL & ~(s->hands[seat] | s->played | without);
    uint64_t ban_p = bans(s, p), ban_o = bans(s, other);
    sa_model md;
    md.forced = pool & ban_o & ~ban_p;
    md.free = pool & ~ban_p & ~ban_o;
    md.m = kz_popcount64(s->hands[p]) - kz_popcount64(md.forced);
    md.nf = kz_popcount64(md.free);
    md.have = 0;
    md.keyed = 0;
    return md;
}

/* math.comb for the table's range (k <= 11 < n + 1 always here; 0 outside) */
static inline double comb(const sa_tables *t, int n, int k) {
    if (n < 0 || n > SA_DECK || k < 0 || k > SA_HAND) return 0.0;
    return (double)t->comb[n][k];
}

/* the chance that the hand of the model holds none of `mask` */
static inline double avoid(const sa_tables *t, uint64_t mask, sa_model *md) {
    if (mask & md->forced) return 0.0;
    if (md->m <= 0) return 1.0;
    int x = kz_popcount64(mask & md->free); /* <= nf <= 33 */
    if (!(md->have >> x & 1)) {
        md->ratio[x] = comb(t, md->nf - x, md->m) / comb(t, md->nf, md->m);
        md->have |= 1ULL << x;
    }
    return md->ratio[x];
}

/* reading.py's best_reply: per taker, the chance that the last seat (model),
 * playing its legal card best for itself (takers in pref order; the Joker:
 * its best taker), makes it take the trick; takers: third_takers of the
 * trick's first two cards, led by seat `first`.  It follows suit if it can,
 * else plays the Joker if it holds it, else any card. */
static void best_reply(const sa_tables *t, sa_model *md, int lead, const uint64_t *takers,
                       int first, const int *pref, double *dist) {
    uint64_t poss = md->forced | md->free;
    uint64_t follow = poss & SA_SUIT_MASK(lead);
    uint64_t groups[3] = {follow, poss & SA_JOKER_BIT, poss & ~follow & ~SA_JOKER_BIT};
    uint64_t by_seat[SA_PLAYERS]; /* takers by seat instead of position */
    int second = next_seat(first);
    by_seat[first] = takers[0];
    by_seat[second] = takers[1];
    by_seat[next_seat(second)] = takers[2];
    /* the cards of each group that go to each taker, in the order they count */
    uint64_t sets[3 * SA_PLAYERS];
    for (int g = 0; g < 3; g++) {
        uint64_t group = groups[g];
        for (int i = 0; i < SA_PLAYERS; i++) {
            int tk = pref[i];
            sets[g * SA_PLAYERS + i] = group == SA_JOKER_BIT ? (i == 0 ? group : 0)
                                                             : group & by_seat[tk];
        }
    }
    if (md->keyed && !memcmp(sets, md->key, sizeof sets)) {
        memcpy(dist, md->kdist, sizeof md->kdist);
        return;
    }
    uint64_t avoided = 0;
    double left = 0.0; /* avoid(avoided), once computed */
    int have_left = 0;
    dist[0] = dist[1] = dist[2] = 0.0;
    for (int j = 0; j < 3 * SA_PLAYERS; j++) {
        if (!sets[j]) continue;
        int tk = pref[j % SA_PLAYERS];
        double before = have_left ? left : avoid(t, avoided, md);
        avoided |= sets[j];
        left = avoid(t, avoided, md);
        have_left = 1;
        dist[tk] += before - left;
    }
    md->keyed = 1;
    memcpy(md->key, sets, sizeof sets);
    memcpy(md->kdist, dist, sizeof md->kdist);
}

/* reading.py's reply_model: (card, chance) for the card seat p plays to a
 * trick led in suit `lead`, as `seat` sees it: a card of the suit, uniformly,
 * with the chance that p holds the suit; else the Joker if it must; else an
 * off-suit card, uniformly (off-suit cards stand for their suit by its 7). */
static int reply_model(const sa_tables *t, const sa_state *s, int seat, int p, int lead,
                       uint8_t *cards, double *chance) {
    int other = 3 - seat - p;
    uint64_t pool = SA_FULL & ~(s->hands[seat] | s->played);
    uint64_t ban_p = bans(s, p), ban_o = bans(s, other);
    uint64_t forced = pool & ban_o & ~ban_p;
    uint64_t free = pool & ~ban_p & ~ban_o;
    int m = kz_popcount64(s->hands[p]) - kz_popcount64(forced);
    int nf = kz_popcount64(free);
    uint64_t lmask = SA_SUIT_MASK(lead);
    uint64_t forced_l = forced & lmask, free_l = free & lmask;
    int u = kz_popcount64(free_l);
    double p_none;
    if (forced_l) p_none = 0.0;
    else if (m <= 0 || nf == 0) p_none = 1.0;
    else p_none = comb(t, nf - u, m) / comb(t, nf, m);
    int n = 0;
    uint64_t follow = forced_l | free_l;
    if (follow && p_none < 1.0) {
        double share = (1.0 - p_none) / (double)kz_popcount64(follow);
        for (uint64_t f = follow; f; f &= f - 1) {
            cards[n] = (uint8_t)kz_lowbit64(f);
            chance[n++] = share;
        }
    }
    if (p_none > 0.0) {
        double pj;
        if (forced & SA_JOKER_BIT) pj = 1.0;
        else if ((free & SA_JOKER_BIT) && nf - u > 0) {
            double x = (double)m / (double)(nf - u);
            pj = x < 1.0 ? x : 1.0;
        } else pj = 0.0;
        uint64_t off = (forced | free) & ~lmask & ~SA_JOKER_BIT;
        int counts[SA_SUITS], total = 0;
        for (int su = 0; su < SA_SUITS; su++) {
            counts[su] = kz_popcount64(off & SA_SUIT_MASK(su));
            total += counts[su];
        }
        if (!total) pj = ((forced | free) & SA_JOKER_BIT) ? 1.0 : 0.0;
        if (pj > 0.0) {
            cards[n] = SA_JOKER;
            chance[n++] = p_none * pj;
        }
        if (total)
            for (int su = 0; su < SA_SUITS; su++)
                if (counts[su]) {
                    cards[n] = (uint8_t)(su * SA_RANKS);
                    chance[n++] = p_none * (1.0 - pj) * (double)counts[su] / (double)total;
                }
    }
    return n;
}

/* the first taker a seat values most (row.index(max(row))) */
static int best_of(const double *row) {
    int b = 0;
    for (int k = 1; k < SA_PLAYERS; k++)
        if (row[k] > row[b]) b = k;
    return b;
}

/* takers by value, highest first, equal values in seat order (Python's stable sort) */
static void pref_of(const double *row, int *pref) {
    pref[0] = 0; pref[1] = 1; pref[2] = 2;
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && -row[pref[j - 1]] > -row[pref[j]]; j--) {
            int x = pref[j]; pref[j] = pref[j - 1]; pref[j - 1] = x;
        }
}

/* reading.py's card_takers: per legal card of `seat` (to play), the chance
 * per absolute seat of taking the trick.  Third to play it is exact; second
 * the last seat replies as best_reply; leading, the second seat by
 * reply_model and the last by best_reply. */
static void card_takers(const sa_tables *t, const sa_state *s, int seat, uint64_t legal,
                        double (*out)[SA_PLAYERS]) {
    const int k = s->trick_len, leader = s->leader;
    int gift[SA_PLAYERS]; /* a Joker's player gives the trick to its best taker */
    for (int p = 0; p < SA_PLAYERS; p++) gift[p] = best_of(s->w[p]);
    uint64_t rest = legal;
    for (uint64_t l = legal; l; l &= l - 1) {
        int c = kz_lowbit64(l);
        out[c][0] = out[c][1] = out[c][2] = 0.0;
    }
    if (k && s->lead_suit < 0) { /* the Joker led (last trick): its player decides */
        for (uint64_t l = legal; l; l &= l - 1) out[kz_lowbit64(l)][gift[leader]] = 1.0;
        return;
    }
    int jpos = -1; /* the Joker in the trick, played now or before */
    for (int i = 0; i < k; i++)
        if (s->trick[i] == SA_JOKER) jpos = i;
    if (jpos >= 0 || (legal & SA_JOKER_BIT)) {
        uint64_t sure = jpos >= 0 ? legal : SA_JOKER_BIT;
        int giver = gift[(leader + (jpos >= 0 ? jpos : k)) % SA_PLAYERS];
        for (uint64_t l = sure; l; l &= l - 1) out[kz_lowbit64(l)][giver] = 1.0;
        rest &= ~sure;
    }
    if (!rest) return;
    if (k == 2) {
        for (; rest; rest &= rest - 1) {
            int c = kz_lowbit64(rest);
            out[c][(leader + trick_winner(s->trick[0], s->trick[1], c)) % SA_PLAYERS] = 1.0;
        }
        return;
    }
    if (k == 1) {
        int last = next_seat(seat), pref[SA_PLAYERS];
        sa_model md = deal_model(s, seat, last, 0);
        pref_of(s->w[last], pref);
        for (; rest; rest &= rest - 1) {
            int c = kz_lowbit64(rest);
            uint64_t takers[SA_PLAYERS];
            third_takers(s->trick[0], c, takers);
            best_reply(t, &md, s->lead_suit, takers, leader, pref, out[c]);
            if (c >> 3 != s->lead_suit) {
                /* showing out: the rest of this suit goes alike (suits alone decide) */
                uint64_t same = rest & SA_SUIT_MASK(c >> 3) & ~(1ULL << c);
                for (uint64_t l = same; l; l &= l - 1) memcpy(out[kz_lowbit64(l)], out[c], sizeof out[c]);
                rest &= ~same;
            }
        }
        return;
    }
    /* leading */
    int p2 = next_seat(seat), p3 = next_seat(p2), pref[SA_PLAYERS];
    pref_of(s->w[p3], pref);
    sa_model base = deal_model(s, seat, p3, 0); /* without nothing: off-suit seconds */
    /* by the suit led: the second seat's replies once, each reply's model of the
     * last hand once for every card of the suit (each card's sums still run in
     * the order of the replies, as in Python) */
    for (int lead = 0; lead < SA_SUITS; lead++) {
        uint64_t mine = rest & SA_SUIT_MASK(lead);
        if (!mine) continue;
        uint8_t cards[SA_DECK];
        double chance[SA_DECK];
        int count = reply_model(t, s, seat, p2, lead, cards, chance);
        for (int j = 0; j < count; j++) {
            int d2 = cards[j];
            double q2 = chance[j];
            if (d2 == SA_JOKER) {
                for (uint64_t l = mine; l; l &= l - 1) out[kz_lowbit64(l)][gift[p2]] += q2;
                continue;
            }
            uint64_t takers[SA_PLAYERS];
            double dist[SA_PLAYERS];
            if (suit_of(d2) != lead) {
                /* an off-suit second card: who takes it depends on the suits
                 * alone, the same for every card of the suit led */
                third_takers(kz_lowbit64(mine), d2, takers);
                best_reply(t, &base, lead, takers, seat, pref, dist);
                for (uint64_t l = mine; l; l &= l - 1)
                    for (int tk = 0; tk < SA_PLAYERS; tk++) out[kz_lowbit64(l)][tk] += q2 * dist[tk];
                continue;
            }
            sa_model md = deal_model(s, seat, p3, 1ULL << d2);
            for (uint64_t l = mine; l; l &= l - 1) {
                int c = kz_lowbit64(l);
                third_takers(c, d2, takers);
                best_reply(t, &md, lead, takers, seat, pref, dist);
                for (int tk = 0; tk < SA_PLAYERS; tk++) out[c][tk] += q2 * dist[tk];
            }
        }
    }
}

/* reading.py's write_reading (the columns already 0) */
static void write_reading(const sa_tables *t, const sa_state *s, int seat, float *out) {
    if (s->h.phase == GAME_OVER) return;
    for (int r = 0; r < SA_PLAYERS; r++) {
        const double *row = s->w[(seat + r) % SA_PLAYERS];
        for (int tk = 0; tk < SA_PLAYERS; tk++)
            out[O_TAKER_VALUES + r * SA_PLAYERS + tk] = (float)row[(seat + tk) % SA_PLAYERS];
        out[O_BEST_TAKER + r * SA_PLAYERS + rel_seat(best_of(row), seat)] = 1.0f;
    }
    if (s->h.phase != PLAY || s->h.current_player != seat) return;
    uint64_t legal[KZ_MASK_WORDS];
    sa_legal(NULL, s, legal);
    if (!legal[0]) return;
    double dist[SA_DECK][SA_PLAYERS], values[SA_DECK];
    card_takers(t, s, seat, legal[0], dist);
    const double *mine = s->w[seat];
    double hi = 0.0, lo = 0.0;
    int first = 1;
    for (uint64_t l = legal[0]; l; l &= l - 1) {
        int c = kz_lowbit64(l);
        double tot = 0.0 + dist[c][0] + dist[c][1] + dist[c][2]; /* sum(): left to right */
        double v = 0.0;
        for (int tk = 0; tk < SA_PLAYERS; tk++) {
            double share = tot > 0 ? dist[c][tk] / tot : 0.0;
            out[O_CARD_TAKERS + rel_seat(tk, seat) * SA_DECK + c] = (float)share;
            v += share * mine[tk];
        }
        values[c] = v;
        if (first || v > hi) hi = v;
        if (first || v < lo) lo = v;
        first = 0;
    }
    for (uint64_t l = legal[0]; l; l &= l - 1) {
        int c = kz_lowbit64(l);
        out[O_CARD_VALUES + c] = hi - lo > 1e-12 ? (float)((values[c] - lo) / (hi - lo)) : 1.0f;
    }
}

/* -- the observation (SilberneAnanasEncoder.encode) -------------------------------------- */

static void sa_encode(const kz_config *cfg, const void *state, int seat, float *out) {
    const sa_tables *t = T(cfg);
    const sa_state *s = (const sa_state *)state;
    int phase = s->h.phase, dealer = (t->first_dealer + s->h.round_index) % SA_PLAYERS;
    memset(out, 0, (size_t)OBS_SIZE * sizeof(float));
    for (uint64_t b = s->hands[seat]; b; b &= b - 1) out[O_HAND + kz_lowbit64(b)] = 1.0f;
    for (uint64_t b = s->played; b; b &= b - 1) out[O_PLAYED + kz_lowbit64(b)] = 1.0f;
    out[O_PHASE + phase] = 1.0f;
    out[O_DEALER + rel_seat(dealer, seat)] = 1.0f;
    out[O_PROGRESS] =
        (float)((double)(s->h.round_index + (phase == GAME_OVER)) / (double)t->max_deals);
    out[O_LEADER + rel_seat(s->leader, seat)] = 1.0f;
    for (int i = 0; i < s->trick_len; i++)
        out[O_TRICK + rel_seat((s->leader + i) % SA_PLAYERS, seat) * SA_DECK + s->trick[i]] = 1.0f;
    out[O_LEAD_SUIT + (s->lead_suit >= 0 ? s->lead_suit : SA_SUITS)] = 1.0f;
    for (int rel = 0; rel < SA_PLAYERS; rel++) {
        int p = (seat + rel) % SA_PLAYERS;
        for (int su = 0; su < SA_SUITS; su++)
            if (s->voids[p] >> su & 1) out[O_VOIDS + rel * SA_SUITS + su] = 1.0f;
        if (s->no_joker[p]) out[O_NO_JOKER + rel] = 1.0f;
        out[O_TRICKS + rel * (SA_HAND + 1) + s->tricks_won[p]] = 1.0f;
        out[O_SCORES + rel] = (float)((double)s->h.totals[p] / 100.0);
    }
    out[O_RULES] = (float)t->match;
    out[O_RULES + 1] = (float)t->alone;
    out[O_RULES + 2] = (float)((double)t->target / 100.0);
    write_reading(t, s, seat, out);
}

/* GameState.winners(): a single deal - its middle seat; a match - the rule
 * the options select (see match_winners) */
static void sa_win_share(const kz_config *cfg, const void *state, double *share) {
    const sa_tables *t = T(cfg);
    const sa_state *s = (const sa_state *)state;
    int win[SA_PLAYERS], k;
    if (!t->match && s->bonus_seat >= 0) {
        win[0] = win[1] = win[2] = 0;
        win[s->bonus_seat] = 1;
        k = 1;
    } else if (!t->match) {
        k = middle_rule(s->h.totals, win);
    } else {
        k = match_winners(t, s->h.totals, win);
    }
    for (int p = 0; p < SA_PLAYERS; p++) share[p] = win[p] ? 1.0 / k : 0.0;
}

const kz_game kz_silberne_ananas = {
    "silberne_ananas", sa_configure, sa_deal, sa_start, sa_valid, sa_legal, sa_apply, sa_encode,
    sa_win_share,
};
