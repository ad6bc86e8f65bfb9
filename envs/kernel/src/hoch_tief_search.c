/* Hoch & Tief's PIMC in the kernel: PIMCPolicy.values' fast path, draw for draw.
 *
 * Why: PIMC (policies/search.py) spends its think time in Python sampling
 * worlds (HochTiefGame.determinize) and playing each searched card out to
 * the end of the round (policies/games/hoch_tief.py's uniform_playout).  The
 * same worlds and play-outs here, on bitmasks, cost a small part of that.
 * The search's values must not change: every random draw below is the one
 * the Python loop makes from its random.Random, in the same order, so the
 * same seed gives the same values and the bot chooses exactly what it chose
 * (tests/policies/test_kernel_search_hoch_tief.py compares both).
 *
 * What the Python loop draws, per world (rules.py):
 *  - constrained_deal: the cards of the other hands (the pool) re-dealt into
 *    hands of the same sizes, a hand getting none of a suit its seat showed
 *    out of: up to 64 shuffles of the pool (rejection), then _exact_deal
 *    (counting deals suit by suit, in big integers: randrange over counts of
 *    up to ~2^163), and where counting would pass its budget _mixed_deal (a
 *    weighted random deal and a chain of swaps);
 *  - world_of: one shuffle of each seat's 15 dealt cards (the current round's
 *    deck order) and one of the whole deck per later round.  Neither is read
 *    by a play-out that stops at the end of the round, so here they are only
 *    drawn, not built;
 * then per searched card and rollout: the card, and one randrange(legal
 * cards) per card to the end of the round (uniform_playout's k-th lowest
 * legal card), valued by the score margin (search.score_gain).
 *
 * A world is a bare struct on the stack (hands, taken cards, the trick);
 * a clone is a struct copy.  Only the exact deal needs a scratch block
 * (its counts' memo), allocated once per search the first time it is needed.
 */
#include <stdlib.h>
#include <limits.h>

#include "hoch_tief.h"

static int err_out(char *err, size_t errlen, const char *msg) {
    kz_set_err(err, errlen, msg);
    return -1;
}

/* -- random.Random's draws ----------------------------------------------------------- */

/* the draws of a shuffle of `len` items whose result nobody reads */
static void skip_shuffle(kz_random *r, int len) {
    for (int i = len - 1; i > 0; i--) (void)kz_random_below(r, (uint32_t)i + 1);
}

/* random.random(), then bisect_right(cum[0..len), random() * cum[len-1], 0, len - 1):
 * the index random.choices(population, weights)[0] picks (Python 3.11). */
static int choices_index(kz_random *r, const int *cum, int len) {
    double total = (double)cum[len - 1];
    double x = kz_random_double(r) * total;
    int lo = 0, hi = len - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x < (double)cum[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* -- a world and its play-out ------------------------------------------------------ */

typedef struct {
    uint64_t hand[KZ_MAX_PLAYERS][W];
    uint64_t taken[KZ_MAX_PLAYERS][W];
    uint8_t trick[KZ_MAX_PLAYERS];
    int32_t ntrick;
    int32_t leader;
} hs_world;

/* The seat to act plays `card`: HochTiefState.apply (rules.take on bare masks).
 * Returns the next seat to act, or -1 when the round is over. */
static int play(const ht_tables *t, hs_world *s, int seat, int card) {
    int n = t->n;
    s->hand[seat][card >> 6] ^= (uint64_t)1 << (card & 63);
    s->trick[s->ntrick++] = (uint8_t)card;
    if (s->ntrick < n) return t->mod[seat + 1];
    /* highest and lowest number, ties to the card played last (rules.high_low) */
    int hi = 0, lo = 0;
    int top = t->number[s->trick[0]], low = top;
    for (int i = 1; i < n; i++) {
        int v = t->number[s->trick[i]];
        if (v >= top) { hi = i; top = v; }
        if (v <= low) { lo = i; low = v; }
    }
    int high_seat = t->mod[s->leader + hi], low_seat = t->mod[s->leader + lo];
    for (int i = 0; i < n; i++) {
        int c = s->trick[i];
        s->taken[i == hi ? low_seat : high_seat][c >> 6] |= (uint64_t)1 << (c & 63);
    }
    s->ntrick = 0;
    s->leader = high_seat;
    return (s->hand[high_seat][0] | s->hand[high_seat][1]) ? high_seat : -1;
}

/* uniform_playout from the seat `seat` on: one randrange(legal cards) per card, the
 * k-th lowest legal card (what rng.choice(bit_list(legal)) picks), to the round's end. */
static void play_out(const ht_tables *t, hs_world *s, int seat, kz_random *r) {
    while (seat >= 0) {
        const uint64_t *hand = s->hand[seat];
        uint64_t l0 = hand[0], l1 = hand[1];
        if (s->ntrick) {
            const uint64_t *follow = t->suit_mask[t->suit[s->trick[0]]];
            uint64_t a = l0 & follow[0], b = l1 & follow[1];
            if (a | b) { l0 = a; l1 = b; }
        }
        int c0 = kz_popcount64(l0);
        uint32_t k = kz_random_below(r, (uint32_t)(c0 + kz_popcount64(l1)));
        int base = 0;
        uint64_t x = l0;
        if ((int)k >= c0) { k -= (uint32_t)c0; x = l1; base = 64; }
        while (k--) x &= x - 1;
        seat = play(t, s, seat, base + __builtin_ctzll(x));
    }
}

/* search.score_gain of the round's scores: the seat's minus the others' mean
 * (rewards.margin: (sum - mine) / (n - 1) in floating point, then mine minus that) */
static double margin_of(int n, const int32_t *sc, int seat) {
    int sum = 0;
    for (int p = 0; p < n; p++) sum += sc[p];
    double others = (double)(sum - sc[seat]) / (double)(n - 1);
    return (double)sc[seat] - others;
}

/* margin_of the scores of a world's taken cards */
static double margin(const ht_tables *t, const hs_world *s, int seat) {
    int32_t sc[KZ_MAX_PLAYERS];
    for (int p = 0; p < t->n; p++) sc[p] = ht_score_taken(t, s->taken[p]);
    return margin_of(t->n, sc, seat);
}

/* -- big counts (the exact deal): unsigned integers of 256 bits --------------------------
 * The number of deals of at most 75 cards into five hands of 15 is below 2^163. */

#define BIG_LIMBS 4
typedef struct { uint64_t w[BIG_LIMBS]; } big;

static void big_set(big *a, uint64_t v) {
    memset(a, 0, sizeof *a);
    a->w[0] = v;
}
static int big_zero(const big *a) {
    for (int i = 0; i < BIG_LIMBS; i++)
        if (a->w[i]) return 0;
    return 1;
}
static int big_cmp(const big *a, const big *b) {
    for (int i = BIG_LIMBS - 1; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}
/* a += b; 1 on overflow */
static int big_add(big *a, const big *b) {
    uint64_t carry = 0;
    for (int i = 0; i < BIG_LIMBS; i++) {
        uint64_t s = a->w[i] + carry;
        uint64_t c1 = s < carry;
        uint64_t s2 = s + b->w[i];
        carry = c1 | (s2 < s);
        a->w[i] = s2;
    }
    return carry != 0;
}
/* a -= b, b <= a */
static void big_sub(big *a, const big *b) {
    uint64_t borrow = 0;
    for (int i = 0; i < BIG_LIMBS; i++) {
        uint64_t d = a->w[i] - b->w[i];
        uint64_t b1 = a->w[i] < b->w[i];
        uint64_t d2 = d - borrow;
        uint64_t b2 = d < borrow;
        a->w[i] = d2;
        borrow = b1 | b2;
    }
}
/* out = a * m; 1 on overflow */
static int big_mul(big *out, const big *a, uint64_t m) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < BIG_LIMBS; i++) {
        unsigned __int128 p = (unsigned __int128)a->w[i] * m + carry;
        out->w[i] = (uint64_t)p;
        carry = p >> 64;
    }
    return carry != 0;
}
static int big_bit_length(const big *a) {
    for (int i = BIG_LIMBS - 1; i >= 0; i--)
        if (a->w[i]) return 64 * i + 64 - __builtin_clzll(a->w[i]);
    return 0;
}
/* getrandbits(k), 0 < k <= 256: 32-bit words from the least significant up, the last
 * one cut to its top bits (CPython's _random_Random_getrandbits_impl) */
static void big_getrandbits(kz_random *r, int k, big *out) {
    memset(out, 0, sizeof *out);
    int words = (k - 1) / 32 + 1;
    for (int i = 0; i < words; i++, k -= 32) {
        uint32_t v = kz_random_next(r);
        if (k < 32) v >>= (32 - k);
        out->w[i / 2] |= (uint64_t)v << (32 * (i % 2));
    }
}
/* Random._randbelow(n) for n >= 1 (randrange(n)) */
static void big_randbelow(kz_random *r, const big *n, big *out) {
    int k = big_bit_length(n);
    big_getrandbits(r, k, out);
    while (big_cmp(out, n) >= 0) big_getrandbits(r, k, out);
}

/* -- the deal of the hidden cards (rules.constrained_deal) ----------------------------- */

#define MAX_OTHERS (KZ_MAX_PLAYERS - 1)
#define MAX_POOL (MAX_OTHERS * HT_HAND)
#define COUNT_BUDGET 3000 /* rules._COUNT_BUDGET */
#define REJECTION_TRIES 64
#define MEMO_SIZE 16384   /* at most ~2 x COUNT_BUDGET counts are memoised */

/* what every world of one search shares: who the other seats are and what they may hold */
typedef struct {
    int m;                    /* other seats */
    int others[MAX_OTHERS];   /* their seats, ascending */
    int sizes[MAX_OTHERS];    /* their hand sizes */
    uint64_t banned[MAX_OTHERS][W];  /* the pool's cards of the suits each showed out of */
    int npool;
    uint8_t pool[MAX_POOL];   /* bit_list(pool): ascending */
} hs_deal;

typedef struct {
    uint8_t x[MAX_OTHERS];    /* cards of the suit per group */
    uint64_t w;               /* multinomial weight (u <= 18 cards: fits) */
} hs_split;

typedef struct {
    uint64_t key;
    uint32_t gen;             /* == hs_exact.gen: the entry is in use */
    big val;
} hs_memo;

/* _exact_deal's working memory: one search's counts, kept for all its worlds */
typedef struct {
    int counted;              /* exact_count's result + 2; 0: not counted yet */
    int budget_counted;       /* the budget exact_count left */
    uint32_t gen;
    int budget;
    int ng, nsuits, last;
    int group_size[MAX_OTHERS];             /* members per group */
    int group_member[MAX_OTHERS][MAX_OTHERS];
    int caps0[MAX_OTHERS];
    int suit_len[HT_SUITS];
    uint8_t suit_cards[HT_SUITS][3 * KZ_MAX_PLAYERS];
    int nallowed[HT_SUITS];
    uint32_t allowed[HT_SUITS];             /* bit g: group g may take the suit */
    int split_start[HT_SUITS], split_count[HT_SUITS];
    int nsplits;
    hs_split splits[COUNT_BUDGET];
    big option_w[COUNT_BUDGET];
    int option_split[COUNT_BUDGET];
    hs_memo memo[MEMO_SIZE];
    int memo_used;
    uint64_t fact[3 * KZ_MAX_PLAYERS + 1];
} hs_exact;

enum { DEAL_OK = 0, DEAL_TOO_HARD = 1, DEAL_FAIL = -1 };

/* splits(u, gis): every way to put u cards into the groups `allowed` (within caps0),
 * in the order of the Python recursion (the first group's count outermost, the last
 * group taking the rest), charged to the budget. */
static int add_splits(hs_exact *e, int si) {
    int u = e->suit_len[si];
    int gis[MAX_OTHERS], ng = 0;
    for (int g = 0; g < e->ng; g++)
        if (e->allowed[si] >> g & 1) gis[ng++] = g;
    e->split_start[si] = e->nsplits;
    int cur[MAX_OTHERS] = {0};
    /* iterative form of rec(k, rem): x[k] from 0 up for k < ng - 1 */
    int rem[MAX_OTHERS + 1];
    int k = 0;
    rem[0] = u;
    int count = 0;
    if (ng == 0) {
        e->split_count[si] = 0;
        return DEAL_OK;
    }
    cur[gis[0]] = 0;
    for (;;) {
        if (k == ng - 1) {
            int g = gis[k];
            if (rem[k] <= e->caps0[g]) {
                if (e->nsplits >= COUNT_BUDGET) return DEAL_TOO_HARD;  /* budget surely gone */
                hs_split *sp = &e->splits[e->nsplits++];
                memset(sp->x, 0, sizeof sp->x);
                uint64_t w = e->fact[u];
                for (int j = 0; j < ng - 1; j++) sp->x[gis[j]] = (uint8_t)cur[gis[j]];
                sp->x[g] = (uint8_t)rem[k];
                for (int j = 0; j < e->ng; j++) w /= e->fact[sp->x[j]];
                sp->w = w;
                count++;
            }
            /* back up to the deepest group that can still take one more */
            k--;
            while (k >= 0) {
                int gk = gis[k];
                int lim = rem[k] < e->caps0[gk] ? rem[k] : e->caps0[gk];
                if (cur[gk] < lim) break;
                cur[gk] = 0;
                k--;
            }
            if (k < 0) break;
            cur[gis[k]]++;
            rem[k + 1] = rem[k] - cur[gis[k]];
            k++;
            continue;
        }
        /* descend with x = 0 */
        cur[gis[k]] = 0;
        rem[k + 1] = rem[k];
        k++;
    }
    e->split_count[si] = count;
    e->budget -= count;
    return e->budget < 0 ? DEAL_TOO_HARD : DEAL_OK;
}

static uint64_t memo_key(int i, const int *caps, int ng) {
    uint64_t key = (uint64_t)i;
    for (int g = 0; g < ng; g++) key |= (uint64_t)caps[g] << (3 + 7 * g);
    return key;
}

/* ways(i, caps): the deals of suits i.. into the groups' remaining room caps */
static int ways(hs_exact *e, int i, const int *caps, big *out) {
    int ng = e->ng;
    if (i == e->last) { /* the last suit fills what is left */
        for (int g = 0; g < ng; g++)
            if (!(e->allowed[i] >> g & 1) && caps[g]) {
                big_set(out, 0);
                return DEAL_OK;
            }
        uint64_t w = e->fact[e->suit_len[i]];
        for (int g = 0; g < ng; g++) w /= e->fact[caps[g]];
        big_set(out, w);
        return DEAL_OK;
    }
    uint64_t key = memo_key(i, caps, ng);
    uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ULL) >> 50) & (MEMO_SIZE - 1);
    while (e->memo[h].gen == e->gen) {
        if (e->memo[h].key == key) {
            *out = e->memo[h].val;
            return DEAL_OK;
        }
        h = (h + 1) & (MEMO_SIZE - 1);
    }
    int cnt = e->split_count[i];
    e->budget -= cnt;
    if (e->budget < 0) return DEAL_TOO_HARD;
    big total, sub, prod;
    big_set(&total, 0);
    const hs_split *sp = e->splits + e->split_start[i];
    for (int j = 0; j < cnt; j++) {
        int nxt[MAX_OTHERS], ok = 1;
        for (int g = 0; g < ng; g++) {
            nxt[g] = caps[g] - sp[j].x[g];
            if (nxt[g] < 0) ok = 0;
        }
        if (!ok) continue;
        int rc = ways(e, i + 1, nxt, &sub);
        if (rc != DEAL_OK) return rc;
        if (big_mul(&prod, &sub, sp[j].w) || big_add(&total, &prod)) return DEAL_FAIL;
    }
    /* the slot found above may have been taken by the recursion: look again */
    h = (uint32_t)((key * 0x9E3779B97F4A7C15ULL) >> 50) & (MEMO_SIZE - 1);
    while (e->memo[h].gen == e->gen) h = (h + 1) & (MEMO_SIZE - 1);
    if (++e->memo_used > MEMO_SIZE * 3 / 4) return DEAL_FAIL;
    e->memo[h].gen = e->gen;
    e->memo[h].key = key;
    e->memo[h].val = total;
    *out = total;
    return DEAL_OK;
}

/* rules._exact_deal, its first half: group the seats, sort the suits and count the deals
 * (ways).  It draws nothing and depends only on the pool, the sizes and the voids - the
 * same in every world of a search - so a search counts once and keeps the memo (the
 * Python function counts again per world, to the same counts and the same budget).
 * DEAL_OK, DEAL_TOO_HARD (counting passed the budget: the mixed deal), or DEAL_FAIL
 * (no deal fits; a count past 256 bits). */
static int exact_count(const ht_tables *t, const hs_deal *d, hs_exact *e) {
    int m = d->m;
    e->gen = 1;  /* counted once per search, in a zeroed block: every entry is free */
    e->memo_used = 0;
    e->budget = COUNT_BUDGET;
    e->nsplits = 0;
    /* groups: each seat with a banned card alone, then the free seats together */
    int ng = 0, nfree = 0, freeg[MAX_OTHERS];
    for (int j = 0; j < m; j++) {
        if (d->banned[j][0] | d->banned[j][1]) {
            e->group_size[ng] = 1;
            e->group_member[ng][0] = j;
            ng++;
        } else {
            freeg[nfree++] = j;
        }
    }
    if (nfree) {
        e->group_size[ng] = nfree;
        for (int k = 0; k < nfree; k++) e->group_member[ng][k] = freeg[k];
        ng++;
    }
    e->ng = ng;
    for (int g = 0; g < ng; g++) {
        e->caps0[g] = 0;
        for (int k = 0; k < e->group_size[g]; k++) e->caps0[g] += d->sizes[e->group_member[g][k]];
    }
    /* the pool's suits (non-empty ones), and which groups may take each */
    int ns = 0, slen[HT_SUITS], nal[HT_SUITS];
    uint8_t scards[HT_SUITS][3 * KZ_MAX_PLAYERS];
    uint32_t al[HT_SUITS];
    for (int su = 0; su < HT_SUITS; su++) {
        int k = 0;
        for (int i = 0; i < d->npool; i++)
            if (t->suit[d->pool[i]] == su) scards[ns][k++] = d->pool[i];
        if (!k) continue;
        slen[ns] = k;
        int c = scards[ns][0];
        al[ns] = 0;
        nal[ns] = 0;
        for (int g = 0; g < ng; g++) {
            int j = e->group_member[g][0];
            if (e->group_size[g] > 1 || !(d->banned[j][c >> 6] >> (c & 63) & 1)) {
                al[ns] |= 1u << g;
                nal[ns]++;
            }
        }
        ns++;
    }
    /* the suit with the most ways to split goes last: a stable sort by (allowed, cards) */
    int order[HT_SUITS];
    for (int i = 0; i < ns; i++) {
        int j = i;
        while (j > 0 && (nal[order[j - 1]] > nal[i] ||
                         (nal[order[j - 1]] == nal[i] && slen[order[j - 1]] > slen[i]))) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (int i = 0; i < ns; i++) {
        int o = order[i];
        e->suit_len[i] = slen[o];
        memcpy(e->suit_cards[i], scards[o], (size_t)slen[o]);
        e->allowed[i] = al[o];
        e->nallowed[i] = nal[o];
    }
    e->nsuits = ns;
    e->last = ns - 1;
    for (int i = 0; i < e->last; i++) {
        int rc = add_splits(e, i);
        if (rc != DEAL_OK) return rc;
    }
    big total;
    int rc = ways(e, 0, e->caps0, &total);
    if (rc != DEAL_OK) return rc;
    if (big_zero(&total)) return DEAL_FAIL;
    e->budget_counted = e->budget;
    return DEAL_OK;
}

/* rules._exact_deal, its second half, after exact_count: draw suit by suit, each split in
 * proportion to the deals it leaves (every count it reads is in the memo), then the
 * groups' cards to their seats.  DEAL_OK with hands[j] for the other seats j. */
static int exact_draw(const hs_deal *d, hs_exact *e, kz_random *r, uint64_t hands[][W]) {
    int ng = e->ng, ns = e->nsuits, rc;
    e->budget = e->budget_counted;
    int caps[MAX_OTHERS];
    memcpy(caps, e->caps0, sizeof caps);
    uint8_t got[MAX_OTHERS][MAX_POOL];
    int ngot[MAX_OTHERS] = {0};
    for (int i = 0; i < ns; i++) {
        int x[MAX_OTHERS];
        if (i == e->last) {
            memcpy(x, caps, sizeof x);
        } else {
            const hs_split *sp = e->splits + e->split_start[i];
            int nopt = 0;
            big sum, sub;
            big_set(&sum, 0);
            for (int j = 0; j < e->split_count[i]; j++) {
                int nxt[MAX_OTHERS], ok = 1;
                for (int g = 0; g < ng; g++) {
                    nxt[g] = caps[g] - sp[j].x[g];
                    if (nxt[g] < 0) ok = 0;
                }
                if (!ok) continue;
                rc = ways(e, i + 1, nxt, &sub);
                if (rc != DEAL_OK) return rc;
                big *w = &e->option_w[nopt];
                if (big_mul(w, &sub, sp[j].w)) return DEAL_FAIL;
                if (!big_zero(w)) {
                    if (big_add(&sum, w)) return DEAL_FAIL;
                    e->option_split[nopt++] = j;
                }
            }
            if (!nopt) return DEAL_FAIL;
            big pick_r;
            big_randbelow(r, &sum, &pick_r);
            int pick = 0;
            while (big_cmp(&pick_r, &e->option_w[pick]) >= 0) {
                big_sub(&pick_r, &e->option_w[pick]);
                pick++;
            }
            for (int g = 0; g < ng; g++) x[g] = sp[e->option_split[pick]].x[g];
        }
        uint8_t cs[3 * KZ_MAX_PLAYERS];
        memcpy(cs, e->suit_cards[i], (size_t)e->suit_len[i]);
        kz_shuffle(r, cs, e->suit_len[i]);
        int at = 0;
        for (int g = 0; g < ng; g++) {
            for (int k = 0; k < x[g]; k++) got[g][ngot[g]++] = cs[at++];
            caps[g] -= x[g];
        }
    }
    for (int g = 0; g < ng; g++) {
        kz_shuffle(r, got[g], ngot[g]);
        int at = 0;
        for (int k = 0; k < e->group_size[g]; k++) {
            int j = e->group_member[g][k];
            hands[j][0] = hands[j][1] = 0;
            for (int q = 0; q < d->sizes[j]; q++) {
                int c = got[g][at++];
                hands[j][c >> 6] |= (uint64_t)1 << (c & 63);
            }
        }
    }
    return DEAL_OK;
}

static int banned_has(const hs_deal *d, int j, int c) { return (int)(d->banned[j][c >> 6] >> (c & 63) & 1); }

/* rules._mixed_deal: a random valid deal (the most constrained cards first, each to a
 * hand weighted by its room), then 30 x the pool's size random swaps that keep it valid */
static int mixed_deal(const hs_deal *d, kz_random *r, uint64_t hands[][W]) {
    int m = d->m, np = d->npool;
    uint8_t cards[MAX_POOL];
    memcpy(cards, d->pool, (size_t)np);
    int nallowed[HT_MAX_CARDS];
    for (int i = 0; i < np; i++) {
        int c = cards[i], k = 0;
        for (int j = 0; j < m; j++) k += !banned_has(d, j, c);
        nallowed[c] = k;
    }
    int8_t owner[HT_MAX_CARDS];
    int ok = 0;
    for (int attempt = 0; attempt < 200 && !ok; attempt++) {
        kz_shuffle(r, cards, np);
        for (int i = 1; i < np; i++) { /* stable: by the number of hands allowed */
            uint8_t c = cards[i];
            int j = i;
            while (j > 0 && nallowed[cards[j - 1]] > nallowed[c]) {
                cards[j] = cards[j - 1];
                j--;
            }
            cards[j] = c;
        }
        int room[MAX_OTHERS];
        memcpy(room, d->sizes, sizeof room);
        ok = 1;
        for (int i = 0; i < np; i++) {
            int c = cards[i];
            int opts[MAX_OTHERS], cum[MAX_OTHERS], no = 0, acc = 0;
            for (int j = 0; j < m; j++)
                if (!banned_has(d, j, c) && room[j]) {
                    opts[no] = j;
                    acc += room[j];
                    cum[no++] = acc;
                }
            if (!no) {
                ok = 0;
                break;
            }
            int j = opts[choices_index(r, cum, no)];
            room[j]--;
            owner[c] = (int8_t)j;
        }
    }
    if (!ok) return DEAL_FAIL;
    uint8_t held[MAX_OTHERS][HT_HAND];
    int nheld[MAX_OTHERS] = {0};
    for (int i = 0; i < np; i++) {
        int c = cards[i], j = owner[c];
        if (nheld[j] >= HT_HAND) return DEAL_FAIL;
        held[j][nheld[j]++] = (uint8_t)c;
    }
    /* slots (j, i) for j, i < sizes[j]: slot s is hand slot_j[s], place slot_i[s] */
    uint8_t slot_j[MAX_POOL], slot_i[MAX_POOL];
    int ns = 0;
    for (int j = 0; j < m; j++)
        for (int i = 0; i < d->sizes[j]; i++) {
            slot_j[ns] = (uint8_t)j;
            slot_i[ns++] = (uint8_t)i;
        }
    if (m > 1 && ns) {
        for (int it = 0; it < 30 * np; it++) {
            int s1 = (int)kz_random_below(r, (uint32_t)ns);
            int s2 = (int)kz_random_below(r, (uint32_t)ns);
            int j1 = slot_j[s1], i1 = slot_i[s1], j2 = slot_j[s2], i2 = slot_i[s2];
            if (j1 == j2) continue;
            int a = held[j1][i1], b = held[j2][i2];
            if (!(banned_has(d, j2, a) || banned_has(d, j1, b))) {
                held[j1][i1] = (uint8_t)b;
                held[j2][i2] = (uint8_t)a;
            }
        }
    }
    for (int j = 0; j < m; j++) {
        hands[j][0] = hands[j][1] = 0;
        for (int i = 0; i < nheld[j]; i++) {
            int c = held[j][i];
            hands[j][c >> 6] |= (uint64_t)1 << (c & 63);
        }
    }
    return DEAL_OK;
}

/* rules.constrained_deal: the other seats' hands (hands[j] for j < d->m) */
static int constrained_deal(const ht_tables *t, const hs_deal *d, hs_exact **scratch,
                            kz_random *r, uint64_t hands[][W], char *err, size_t errlen) {
    int m = d->m, np = d->npool;
    uint8_t cards[MAX_POOL];
    memcpy(cards, d->pool, (size_t)np);
    for (int attempt = 0; attempt < REJECTION_TRIES; attempt++) {
        kz_shuffle(r, cards, np);
        int i = 0, j = 0;
        for (; j < m; j++) {
            uint64_t h[W] = {0, 0};
            for (int k = 0; k < d->sizes[j]; k++, i++) h[cards[i] >> 6] |= (uint64_t)1 << (cards[i] & 63);
            if ((h[0] & d->banned[j][0]) | (h[1] & d->banned[j][1])) break;
            hands[j][0] = h[0];
            hands[j][1] = h[1];
        }
        if (j == m) return 0;
    }
    if (!*scratch) {
        *scratch = calloc(1, sizeof(hs_exact));
        if (!*scratch) return err_out(err, errlen, "out of memory for the exact deal");
        hs_exact *e = *scratch;
        e->fact[0] = 1;
        for (int k = 1; k <= 3 * KZ_MAX_PLAYERS; k++) e->fact[k] = e->fact[k - 1] * (uint64_t)k;
    }
    hs_exact *e = *scratch;
    if (!e->counted) e->counted = exact_count(t, d, e) + 2;
    int rc = e->counted - 2;
    if (rc == DEAL_OK) rc = exact_draw(d, e, r, hands);
    if (rc == DEAL_TOO_HARD) rc = mixed_deal(d, r, hands);
    if (rc != DEAL_OK)
        return err_out(err, errlen, "no deal of the hidden cards fits the observed voids");
    return 0;
}

/* a state's hands, taken cards and trick as a world (the root of a search or a solve) */
static void world_of_state(const ht_state *root, hs_world *base) {
    memset(base, 0, sizeof *base);
    memcpy(base->hand, root->hand, sizeof base->hand);
    memcpy(base->taken, root->taken, sizeof base->taken);
    memcpy(base->trick, root->trick, sizeof base->trick);
    base->ntrick = root->ntrick;
    base->leader = root->leader;
}

/* -- the exact endgame (max^n) --------------------------------------------------------
 *
 * From a state whose hands are all known (the true state, or one sampled world), the rest
 * of the current round solved exactly: for each legal card of the seat to act, the value
 * for `seat` of the round's end when every seat plays perfectly from there on.
 *
 * The rule is max^n, not paranoid.  Hoch & Tief is not zero-sum between a seat and the
 * rest: a round's scores do not add up to a constant (three or more cards of a suit score
 * their count, fewer their printed numbers), and every seat plays for its own score.
 * Paranoid (all others minimise the seat's margin) would value every card as if the
 * table conspired against the seat, which the bots it stands in for (PIMC, the network,
 * the heuristic) do not; max^n values the play each seat would choose for itself, the
 * same objective PIMC's play-outs estimate.  The price: max^n has no alpha-beta (no
 * deep pruning in a general-sum game), so it searches the whole tree, bounded by a node
 * budget; a transposition table at trick boundaries cuts the orders of tricks that lead
 * to the same hands and the same taken cards.
 *
 * Each seat p maximises its own margin, the value PIMC's play-outs use (margin(): its
 * round score minus the mean of the others'), compared exactly as the integer
 * n * score[p] - sum(scores) (the margin times n - 1: the same order, no rounding).  Ties: the
 * lowest card id among the seat's best (strict > over ascending ids), so a node's value
 * is one well-defined vector of round scores.  A seat's value under this rule is what
 * the Python brute force (tests/policies/test_kernel_endgame_hoch_tief.py) computes over
 * the rules core, card for card.
 *
 * Work: nodes are the positions visited (each card played, each round end, each table
 * hit counts one); past max_nodes the solve stops and reports "not solved".
 */

#define TT_BITS 14
#define TT_SIZE (1 << TT_BITS)

typedef struct {
    uint64_t key[4 * KZ_MAX_PLAYERS];  /* hands, then taken (the root's cards in play only) */
    int32_t score[KZ_MAX_PLAYERS];     /* the round's scores under max^n from there */
    uint8_t leader;
    uint8_t used;
} hs_tt_entry;

typedef struct {
    const ht_tables *t;
    int n;
    long nodes, max_nodes;
    uint64_t live[W];        /* the cards in play at the root (hands and the trick) */
    hs_tt_entry *tt;         /* NULL: no table */
    int nkey;                /* words of a key: 4n */
} hs_solver;

static int tt_key(const hs_solver *S, const hs_world *s, uint64_t *key) {
    int n = S->n, k = 0;
    for (int p = 0; p < n; p++) {
        key[k++] = s->hand[p][0];
        key[k++] = s->hand[p][1];
    }
    for (int p = 0; p < n; p++) {
        key[k++] = s->taken[p][0] & S->live[0];
        key[k++] = s->taken[p][1] & S->live[1];
    }
    uint64_t h = 0x9E3779B97F4A7C15ULL * (uint64_t)(s->leader + 1);
    for (int i = 0; i < k; i++) h = (h ^ key[i]) * 0xff51afd7ed558ccdULL, h ^= h >> 29;
    return (int)(h >> (64 - TT_BITS));
}

/* The round's scores from s (the seat `seat` to act; -1: the round is over) under max^n:
 * 0, or 1 when the node budget ran out. */
static int solve_node(hs_solver *S, const hs_world *s, int seat, int32_t *out) {
    const ht_tables *t = S->t;
    int n = S->n;
    if (++S->nodes > S->max_nodes) return 1;
    if (seat < 0) {
        for (int p = 0; p < n; p++) out[p] = ht_score_taken(t, s->taken[p]);
        return 0;
    }
    uint64_t key[4 * KZ_MAX_PLAYERS];
    int slot = -1;
    if (S->tt && s->ntrick == 0) {
        slot = tt_key(S, s, key);
        for (int probe = 0; probe < 4; probe++) {
            hs_tt_entry *e = &S->tt[(slot + probe) & (TT_SIZE - 1)];
            if (!e->used) break;
            if (e->leader == s->leader && !memcmp(e->key, key, (size_t)S->nkey * 8)) {
                memcpy(out, e->score, (size_t)n * sizeof *out);
                return 0;
            }
        }
    }
    uint64_t l0 = s->hand[seat][0], l1 = s->hand[seat][1];
    if (s->ntrick) {
        const uint64_t *follow = t->suit_mask[t->suit[s->trick[0]]];
        uint64_t a = l0 & follow[0], b = l1 & follow[1];
        if (a | b) { l0 = a; l1 = b; }
    }
    int32_t best[KZ_MAX_PLAYERS], sc[KZ_MAX_PLAYERS];
    long best_key = 0;
    int have = 0;
    for (int w = 0; w < W; w++)
        for (uint64_t x = w ? l1 : l0; x; x &= x - 1) {
            hs_world c = *s;
            int next = play(t, &c, seat, 64 * w + __builtin_ctzll(x));
            if (solve_node(S, &c, next, sc)) return 1;
            long sum = 0;
            for (int p = 0; p < n; p++) sum += sc[p];
            long k = (long)n * sc[seat] - sum;
            if (!have || k > best_key) { /* ascending ids, strict: the lowest best card */
                have = 1;
                best_key = k;
                memcpy(best, sc, (size_t)n * sizeof *best);
            }
        }
    memcpy(out, best, (size_t)n * sizeof *out);
    if (slot >= 0) {
        for (int probe = 0; probe < 4; probe++) {
            hs_tt_entry *e = &S->tt[(slot + probe) & (TT_SIZE - 1)];
            if (e->used && probe < 3) continue;
            memcpy(e->key, key, (size_t)S->nkey * 8);  /* a free slot, or the last one replaced */
            memcpy(e->score, best, (size_t)n * sizeof *best);
            e->leader = (uint8_t)s->leader;
            e->used = 1;
            break;
        }
    }
    return 0;
}

/* A solver for the hands of `base` (the cards in play: hands and the trick in play); its
 * table where the endgame is large enough to pay for one.  0, or -1 out of memory. */
static int solver_init(hs_solver *S, const ht_tables *t, const hs_world *base, long max_nodes) {
    int n = t->n, cards = 0;
    memset(S, 0, sizeof *S);
    S->t = t;
    S->n = n;
    S->max_nodes = max_nodes;
    S->nkey = 4 * n;
    for (int p = 0; p < n; p++) {
        S->live[0] |= base->hand[p][0];
        S->live[1] |= base->hand[p][1];
        cards += kz_popcount64(base->hand[p][0]) + kz_popcount64(base->hand[p][1]);
    }
    for (int i = 0; i < base->ntrick; i++)
        S->live[base->trick[i] >> 6] |= (uint64_t)1 << (base->trick[i] & 63);
    /* the table pays from four cards a hand (4 players, k = 4: a fifth fewer nodes at the
     * median, a third fewer at p95); below, its allocation costs more than it saves */
    if (cards >= 4 * n) {
        S->tt = calloc(TT_SIZE, sizeof(hs_tt_entry));
        if (!S->tt) return -1;
    }
    return 0;
}

/* kz_search.solve: see kz.h.  values[i]: the i-th legal card of the seat to act, in
 * ascending id order. */
static int ht_solve(const kz_config *cfg, const void *state, int seat, double *values,
                    long max_nodes, long *nodes, char *err, size_t errlen) {
    const ht_tables *t = tables(cfg);
    const ht_state *root = (const ht_state *)state;
    int n = t->n;
    *nodes = 0;
    if (root->h.phase != PLAY || root->h.over || root->h.truncated || root->h.current_player < 0)
        return err_out(err, errlen, "the game is over");
    if (seat < 0 || seat >= n) return err_out(err, errlen, "seat out of range");
    hs_world base;
    world_of_state(root, &base);
    hs_solver S;
    if (solver_init(&S, t, &base, max_nodes) < 0)
        return err_out(err, errlen, "out of memory for the endgame table");
    int mover = root->h.current_player;
    uint64_t l0 = base.hand[mover][0], l1 = base.hand[mover][1];
    if (base.ntrick) {
        const uint64_t *follow = t->suit_mask[t->suit[base.trick[0]]];
        uint64_t a = l0 & follow[0], b = l1 & follow[1];
        if (a | b) { l0 = a; l1 = b; }
    }
    int nacts = 0, rc = 0;
    int32_t sc[KZ_MAX_PLAYERS];
    S.nodes = 1;  /* the root */
    for (int w = 0; w < W && !rc; w++)
        for (uint64_t x = w ? l1 : l0; x && !rc; x &= x - 1) {
            hs_world c = base;
            int next = play(t, &c, mover, 64 * w + __builtin_ctzll(x));
            if (solve_node(&S, &c, next, sc)) rc = 1;
            else values[nacts++] = margin_of(n, sc, seat);
        }
    free(S.tt);
    *nodes = S.nodes > max_nodes ? max_nodes : S.nodes;
    if (!rc && !nacts) return err_out(err, errlen, "the seat to act holds no card");
    return rc ? 0 : nacts;
}

/* -- PIMC ---------------------------------------------------------------------------- */

static int ht_pimc(const kz_config *cfg, const void *root_state, int seat, const int32_t *actions,
                   int nacts, int worlds, int rollouts, int endgame, kz_random *r, double *values,
                   char *err, size_t errlen) {
    const ht_tables *t = tables(cfg);
    const ht_state *root = (const ht_state *)root_state;
    int n = t->n;
    if (root->h.phase != PLAY) return err_out(err, errlen, "the game is over");
    /* determinize's fixed part: the pool of the other hands, their sizes and voids */
    hs_deal d;
    memset(&d, 0, sizeof d);
    uint64_t pool[W] = {0, 0};
    for (int p = 0; p < n; p++) {
        if (p == seat) continue;
        int j = d.m++;
        d.others[j] = p;
        d.sizes[j] = kz_popcount64(root->hand[p][0]) + kz_popcount64(root->hand[p][1]);
        pool[0] |= root->hand[p][0];
        pool[1] |= root->hand[p][1];
    }
    for (int j = 0; j < d.m; j++) {
        uint32_t v = root->voids[d.others[j]];
        for (int su = 0; su < HT_SUITS; su++)
            if (v >> su & 1)
                for (int w = 0; w < W; w++) d.banned[j][w] |= t->suit_mask[su][w] & pool[w];
    }
    for (int w = 0; w < W; w++)
        for (uint64_t x = pool[w]; x; x &= x - 1)
            d.pool[d.npool++] = (uint8_t)(64 * w + __builtin_ctzll(x));
    hs_world base;
    world_of_state(root, &base);
    int later_rounds = t->rounds - root->h.round_index - 1;
    /* the exact endgame: from `endgame` cards in the hand of the seat to act, each world's
     * rest of the round is solved (max^n, as Kernel.solve) instead of played out; one
     * solver, and its table, serves every world: the live cards are the same in each */
    int mover = root->h.current_player;
    int solving = endgame > 0 && kz_popcount64(root->hand[mover][0])
                                 + kz_popcount64(root->hand[mover][1]) <= endgame;
    hs_solver S;
    if (solving && solver_init(&S, t, &base, LONG_MAX) < 0)
        return err_out(err, errlen, "out of memory for the endgame table");
    hs_exact *scratch = NULL;
    int rc = 0;
    for (int w = 0; w < worlds && rc == 0; w++) {
        /* game.determinize(root, seat, rng) */
        uint64_t hands[MAX_OTHERS][W];
        rc = constrained_deal(t, &d, &scratch, r, hands, err, errlen);
        if (rc) break;
        hs_world world = base;
        for (int j = 0; j < d.m; j++) {
            world.hand[d.others[j]][0] = hands[j][0];
            world.hand[d.others[j]][1] = hands[j][1];
        }
        /* world_of: the current round's deck order from each seat's 15 dealt cards (its
         * hand and what it played this round), then a fresh order per later round */
        for (int p = 0; p < n; p++) skip_shuffle(r, HT_HAND);
        for (int k = 0; k < later_rounds; k++) skip_shuffle(r, t->size);
        for (int i = 0; i < nacts; i++) {
            hs_world after = world;
            int next = play(t, &after, mover, actions[i]);
            if (solving) {  /* every rollout slot the exact value: no draw */
                int32_t sc[KZ_MAX_PLAYERS];
                solve_node(&S, &after, next, sc);  /* no node budget: LONG_MAX */
                double v = margin_of(n, sc, seat);
                for (int k = 0; k < rollouts; k++)
                    values[((size_t)w * nacts + i) * rollouts + k] = v;
                continue;
            }
            for (int k = 0; k < rollouts; k++) {
                hs_world s = after;
                play_out(t, &s, next, r);  /* nothing to play when the card ended the round */
                values[((size_t)w * nacts + i) * rollouts + k] = margin(t, &s, seat);
            }
        }
    }
    free(scratch);
    if (solving) free(S.tt);
    return rc;
}

const kz_search kz_hoch_tief_search = {"hoch_tief", ht_pimc, ht_solve};
