/* Geheimtrumpf's reading pieces in the compiled kernel: what the Python
 * encoder fills from envs/geheimtrumpf/reading.py (write_reading: versions
 * 1..4), chances.py (the draft reading's chance estimates) and steering.py
 * (the trick played ahead), float for float.
 *
 * Every float is computed as the Python code computes it: Python floats are
 * C doubles, every sum runs left to right in the Python order, ties of
 * min/max/sorted go to the first element in the Python iteration order
 * (ascending card or task ids), and a value is rounded to float32 only where
 * the Python code stores it into the numpy row.  Contracting a * b + c into
 * one fused multiply-add would change the last bit, hence the pragma below.
 *
 * The tables (per trump draw: the keys and the cards above each key in a
 * trick led in each suit, CARD_CHANCES, led_beaters; per lead suit and pair
 * of cards the draws under which one ranks below the other) depend on no
 * option: they are static (about 140 KB), built once by gt_configure_reading
 * (or on first use).  Nothing is cached between calls: the Python caches
 * (reading._candidates, chances._belief_cache, led_beaters, _ranks) only
 * memoise.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "geheimtrumpf.h"

#define NO_DRAW_KEYS 31  /* keys 0..30: plain values 1..9, trump suit 11..19, 20, 30 */
#define DIST_MAX 320     /* a trick distribution: tricks won (< 256) + hand (<= 36) + 1 */

/* -- the static tables ------------------------------------------------------------ */

static struct {
    int ready;
    uint64_t mask[GT_DRAWS];                         /* Trumps.mask */
    uint8_t power[GT_DRAWS][GT_CARDS];               /* Trumps.power */
    /* reading._ranks: key per card in a trick led in suit l; cards whose key beats k */
    uint8_t key[GT_DRAWS][GT_SUITS][GT_CARDS];
    uint64_t above[GT_DRAWS][GT_SUITS][NO_DRAW_KEYS];
    float led[GT_DRAWS][GT_CARDS];                   /* reading.led_beaters, as stored */
    double win[GT_DRAWS][GT_CARDS];                  /* chances.CARD_CHANCES[draw][0] */
    double last[GT_DRAWS][GT_CARDS];                 /* chances.CARD_CHANCES[draw][1] */
    /* lt[l][a][b]: the draws (bit d) under which a ranks below b in a trick led in l */
    uint64_t lt[GT_SUITS][GT_CARDS][GT_CARDS];
} R;

static const double PLAIN[9] = {0.9, 0.55, 0.3, 0.15, 0.08, 0.05, 0.03, 0.02, 0.02};
/* chances._MOST / _FEWEST per table size (3, 4), by own trick count 0..9 */
static const double MOST[2][10] = {{0, 0, 0.03, 0.2, 0.55, 0.85, 0.97, 1, 1, 1},
                                   {0, 0, 0.05, 0.35, 0.7, 0.95, 1, 1, 1, 1}};
static const double FEWEST[2][10] = {{0.9, 0.6, 0.25, 0.05, 0, 0, 0, 0, 0, 0},
                                     {0.85, 0.45, 0.1, 0, 0, 0, 0, 0, 0, 0}};

static inline uint64_t value_mask(int value) {  /* VALUE_MASK[value] (0: none) */
    return value ? 0x8040201ULL << (value - 1) : 0;
}

static inline uint64_t group_of(uint64_t mask, int c) { return gt_group(mask, c); }

/* rules.trick_winner: the position of the winning card among cards[0..len) */
static int trick_winner(const uint8_t *cards, int len, const uint8_t *power) {
    int lead = cards[0];
    int lead_suit = gt_card_suit(lead);
    int best = 0;
    int best_key = power[lead] ? power[lead] : gt_card_value(lead);
    for (int i = 1; i < len; i++) {
        int c = cards[i];
        int key = power[c];
        if (!key && gt_card_suit(c) == lead_suit) key = gt_card_value(c);
        if (key > best_key) {
            best = i;
            best_key = key;
        }
    }
    return best;
}

/* chances._card_chances for draw d */
static void card_chances(int d) {
    int suit = d / 10 - 1, value = d % 10;
    const uint8_t *power = R.power[d];
    uint64_t mask = R.mask[d];
    int n_trumps = kz_popcount64(mask);
    double damp = 1.0 - (double)n_trumps / 14;
    if (!(damp > 0.2)) damp = 0.2;  /* max(0.2, x): the first unless x is greater */
    double *win = R.win[d], *last = R.last[d];
    for (int c = 0; c < GT_CARDS; c++) {
        int p = power[c];
        double w, ll;
        if (p == 30) {
            w = 0.97;
            ll = 0.95;
        } else if (p == 20) {
            w = suit >= 0 ? 0.8 : 0.75;
            ll = suit >= 0 ? 0.55 : 0.45;
        } else if (p) {
            int above = 0;
            for (int e = 0; e < GT_CARDS; e++)
                if (10 < power[e] && power[e] < 20 && power[e] > p) above++;
            w = 0.75 - 0.1 * above;
            if (!(w > 0.12)) w = 0.12;
            ll = 0.5 - 0.1 * above;
            if (!(ll > 0.03)) ll = 0.03;
        } else {
            uint64_t g = group_of(mask, c);
            int above = 0;
            for (int e = 0; e < GT_CARDS; e++)
                if (((g >> e) & 1) && gt_card_value(e) > gt_card_value(c)) above++;
            w = PLAIN[above] * damp;
            ll = n_trumps == 0 ? (above == 0 ? 0.3 : 0.05) : 0.02;
        }
        win[c] = w;
        last[c] = ll;
    }
    double sum = 0.0;
    for (int c = 0; c < GT_CARDS; c++) sum += win[c];
    double scale = 9.0 / sum * 1.0;  /* * (NUM_CARDS / 36) */
    for (int c = 0; c < GT_CARDS; c++) {
        double x = win[c] * scale;
        win[c] = x < 0.99 ? x : 0.99;  /* min(0.99, x) */
    }
    (void)value;
}

static void build_tables(void) {
    for (int d = 0; d < GT_DRAWS; d++) {
        int suit = d / 10 - 1, value = d % 10;
        uint64_t suit_cards = suit >= 0 ? gt_suit_mask(suit) : 0;
        uint64_t value_cards = value_mask(value);
        R.mask[d] = suit_cards | value_cards;
        for (int c = 0; c < GT_CARDS; c++) {
            int p = 0;
            if ((value_cards >> c) & 1)
                p = gt_card_suit(c) == suit ? 30 : 20;
            else if ((suit_cards >> c) & 1)
                p = 10 + gt_card_value(c);
            R.power[d][c] = (uint8_t)p;
        }
        const uint8_t *power = R.power[d];
        for (int l = 0; l < GT_SUITS; l++) {
            uint8_t *key = R.key[d][l];
            for (int c = 0; c < GT_CARDS; c++)
                key[c] = power[c] ? power[c] : (gt_card_suit(c) == l ? gt_card_value(c) : 0);
            for (int k = 0; k < NO_DRAW_KEYS; k++) {
                uint64_t m = 0;
                for (int c = 0; c < GT_CARDS; c++)
                    if (key[c] > k) m |= 1ULL << c;
                R.above[d][l][k] = m;
            }
        }
        for (int c = 0; c < GT_CARDS; c++) {  /* led_beaters */
            int beat = 0;
            for (int e = 0; e < GT_CARDS; e++) {
                if (e == c) continue;
                uint8_t two[2] = {(uint8_t)c, (uint8_t)e};
                if (trick_winner(two, 2, power) == 1) beat++;
            }
            R.led[d][c] = (float)((double)beat / (GT_CARDS - 1));
        }
        card_chances(d);
    }
    for (int l = 0; l < GT_SUITS; l++)
        for (int a = 0; a < GT_CARDS; a++)
            for (int b = 0; b < GT_CARDS; b++) {
                uint64_t m = 0;
                for (int d = 0; d < GT_DRAWS; d++)
                    if (R.key[d][l][a] < R.key[d][l][b]) m |= 1ULL << d;
                R.lt[l][a][b] = m;
            }
    R.ready = 1;
}

void gt_configure_reading(kz_config *cfg) {
    (void)cfg;
    if (!R.ready) build_tables();
}

/* -- helpers ---------------------------------------------------------------------- */

static inline int mod(int a, int n) { return ((a % n) + n) % n; }

static inline uint64_t follow_mask(uint64_t hand, uint64_t follow) {
    if (follow) {
        uint64_t same = hand & follow;
        if (same) return same;
    }
    return hand;
}

/* agreeing_trumps: the draws (bit d) under which every finished row was won as
 * announced (a row is judged as a trick led by its first chooser's card).  The card
 * at place w wins a trick when every card before it ranks below it and none after
 * it ranks above it (trick_winner: the first of the highest keys). */
static uint64_t agreeing(const gt_state *s, int n) {
    uint64_t cands = (1ULL << GT_DRAWS) - 1;
    int nr = s->rows_drafted < GT_ROWS ? s->rows_drafted : GT_ROWS;
    for (int r = 0; r < nr && cands; r++) {
        int w = s->row_winners[r];
        if (w < 0 || w >= n) return 0;  /* no draw announces a seat that is not there */
        int want = mod(w - (s->start + 1 + r), n);  /* the winning card's place */
        const uint8_t *cards = s->draft_rows[r];
        uint64_t (*lt)[GT_CARDS] = R.lt[gt_card_suit(cards[0])];
        int cw = cards[want];
        for (int i = 0; i < want; i++) cands &= lt[cards[i]][cw];
        for (int i = want + 1; i < n; i++) cands &= ~lt[cw][cards[i]];
    }
    return cands;
}

/* chances.belief: win / last chances per card as seat sees the trumps; cands: the
 * agreeing draws (used when the trumps are secret to seat); the last-trick chances
 * only when need_last */
static void belief(const gt_state *s, int seat, uint64_t cands, int need_last,
                   const double **win, const double **last, double *restrict wbuf,
                   double *restrict lbuf) {
    int phase = s->head.phase;
    if (phase != GT_TASK_DRAFT && (phase != GT_CARD_DRAFT || seat == s->start)) {
        *win = R.win[s->draw];
        *last = R.last[s->draw];
        return;
    }
    int k = kz_popcount64(cands);
    for (int c = 0; c < GT_CARDS; c++) wbuf[c] = 0.0;
    for (uint64_t m = cands; m; m &= m - 1) {
        const double *restrict w = R.win[kz_lowbit64(m)];
        for (int c = 0; c < GT_CARDS; c++) wbuf[c] += w[c];
    }
    /* the true draw always agrees, so k >= 1 in any reachable state (Python would
     * divide by zero): zeros then */
    if (k)
        for (int c = 0; c < GT_CARDS; c++) wbuf[c] = wbuf[c] / k;
    *win = wbuf;
    *last = lbuf;
    if (!need_last) return;
    for (int c = 0; c < GT_CARDS; c++) lbuf[c] = 0.0;
    for (uint64_t m = cands; m; m &= m - 1) {
        const double *restrict ll = R.last[kz_lowbit64(m)];
        for (int c = 0; c < GT_CARDS; c++) lbuf[c] += ll[c];
    }
    if (k)
        for (int c = 0; c < GT_CARDS; c++) lbuf[c] = lbuf[c] / k;
}

/* one probability more in a trick distribution (one pass of trick_dist's loop) over
 * d[0..len), keeping only the first `keep` entries: entry k of the result reads entries
 * k - 1 and k only, so the kept ones are exact.  Returns the new length. */
static inline int dist_step(double *d, int len, double p, int keep) {
    double q = 1.0 - p;
    int out = len + 1 < keep ? len + 1 : keep;
    int k = out - 1;
    if (k == len) {  /* the new top entry: 0.0 + d[len - 1] * p */
        d[k] = d[k - 1] * p;
        k--;
    }
    for (; k > 0; k--) {
        double a = d[k - 1] * p;
        double b = d[k] * q;
        d[k] = a + b;
    }
    d[0] = d[0] * q;
    return out;
}

/* chances.trick_dist for probs[0..m): writes m + 1 entries to d */
static int trick_dist(const double *probs, int m, double *d) {
    int len = 1;
    d[0] = 1.0;
    for (int i = 0; i < m; i++) len = dist_step(d, len, probs[i], m + 1);
    return len;
}

/* chances.task_chance; others: nothers distributions (for most / fewest), or none */
static double task_chance(int task, const double *dist, int len, int n, double last,
                          int suit_cards, int nothers, const double *const *others,
                          const int *olen) {
    if (task <= GT_THREE_TRICKS) return task < len ? dist[task] : 0.0;
    if (task == GT_LAST_TRICK) return last;
    if (task == GT_MOST_TRICKS || task == GT_FEWEST_TRICKS) {
        int most = task == GT_MOST_TRICKS;
        if (nothers < 0) {
            const double *chances = (most ? MOST : FEWEST)[n == 3 ? 0 : 1];
            double sum = 0.0;
            for (int k = 0; k < len; k++) sum += dist[k] * chances[k < 9 ? k : 9];
            return sum;
        }
        double total = 0.0;
        for (int k = 0; k < len; k++) {
            double x = dist[k];
            if (x < 1e-6) continue;
            double pr = x;
            for (int j = 0; j < nothers; j++) {
                const double *od = others[j];
                double sum = 0.0;
                if (most) {
                    int hi = k < olen[j] ? k : olen[j];
                    for (int i = 0; i < hi; i++) sum += od[i];
                } else {
                    for (int i = k + 1; i < olen[j]; i++) sum += od[i];
                }
                pr *= sum;
            }
            total += pr;
        }
        return total;
    }
    double a = 0.45 - 0.08 * suit_cards;
    if (!(a > 0.05)) a = 0.05;
    double p1 = len > 1 ? dist[1] : 0.0;
    double p2 = len > 2 ? dist[2] : 0.0;
    return dist[0] + p1 * a + p2 * a * a;
}

/* the stable sort's pick: the element at place k (0 or 1, at most m - 1) of
 * sorted(items, key=keys) - ascending, equal keys in the given order, so the place-0
 * element is the first of the least keys and the place-1 one the first of the least
 * among the others; items[0..m), m >= 1 */
static int pick_sorted(const int *items, const double *keys, int m, int k) {
    int first = 0;
    for (int i = 1; i < m; i++)
        if (keys[i] < keys[first]) first = i;
    if (!k || m < 2) return items[first];
    int second = first ? 0 : 1;
    for (int i = second + 1; i < m; i++)
        if (i != first && keys[i] < keys[second]) second = i;
    return items[second];
}

/* -- the draft reading (chances.row_chances, reading.write_draft) -------------------- */

/* What chances.projected_chance does for each (row card c, open task t), arranged so
 * that the work common to many pairs is done once, in the same operations:
 *  - probs = the hand's chances, then win[c], then one per later row (its pick for t):
 *    the trick distribution of the hand is shared by all pairs, the one with win[c]
 *    by all tasks of c;
 *  - the later rows' picks depend on t (and for "exactly k" the raise on c);
 *  - a task that reads only entries 0..j of the distribution keeps only those (no
 *    trick: 0, "no suit": 0..2, exactly k: 0..k, fewest: 0..3 - the weights of the
 *    others are 0 and adding 0.0 changes no sum); "most" reads them all. */
typedef struct {
    int nfut;
    int fut[GT_ROWS][GT_ROW_LEN], flen[GT_ROWS], fk[GT_ROWS];
} future_rows;

/* values[0..len) sorted ascending (a row holds 3 or 4 cards: a sorting network of
 * min / max, no branch to mispredict; values only, so equal ones may swap) */
static inline void cswap(double *v, int i, int j) {
    double a = v[i], b = v[j];
    v[i] = b < a ? b : a;
    v[j] = b < a ? a : b;
}

static inline void sort_values(double *v, int len) {
    if (len == 4) {
        cswap(v, 0, 1), cswap(v, 2, 3), cswap(v, 0, 2), cswap(v, 1, 3), cswap(v, 1, 2);
    } else if (len == 3) {
        cswap(v, 0, 1), cswap(v, 1, 2), cswap(v, 0, 1);
    } else if (len == 2) {
        cswap(v, 0, 1);
    }
}

static void write_draft(const gt_tables *T, const gt_state *s, int seat, int n, uint64_t cands,
                        float *out) {
    unsigned tasks = s->held[seat] & ~s->checked[seat] & GT_ALL_TASKS;
    double wbuf[GT_CARDS], lbuf[GT_CARDS];
    const double *win, *last;
    belief(s, seat, cands, (tasks >> GT_LAST_TRICK) & 1, &win, &last, wbuf, lbuf);
    float *ow = out + T->o_win_chances;
    for (int c = 0; c < GT_CARDS; c++) ow[c] = (float)win[c];
    int row = s->rows_drafted;
    if (row >= GT_ROWS || !tasks) return;
    uint64_t left = s->rows[row] & s->layout & GT_ALL_CARDS;
    if (!left) return;
    /* the hand: its distribution, its chances' sum, its best last-trick chance */
    uint64_t hand = s->hands[seat] & GT_ALL_CARDS;
    double dh[GT_CARDS + 2], sum_h = 0.0, last_h = 0.0;
    int lh = 1, hn = 0;
    dh[0] = 1.0;
    for (uint64_t m = hand; m; m &= m - 1) {
        int x = kz_lowbit64(m);
        lh = dist_step(dh, lh, win[x], GT_CARDS + 2);
        sum_h += win[x];
        if (!hn || last[x] > last_h) last_h = last[x];
        hn++;
    }
    future_rows f;
    f.nfut = 0;
    for (int r = row + 1; r < GT_ROWS; r++) {
        int len = 0;
        for (uint64_t m = s->rows[r] & GT_ALL_CARDS; m && len < GT_ROW_LEN; m &= m - 1)
            f.fut[f.nfut][len++] = kz_lowbit64(m);
        if (!len) continue;  /* an empty row (no reachable state): Python raises */
        f.flen[f.nfut] = len;
        f.fk[f.nfut] = mod(seat - (s->start + 1 + r), n) ? 1 : 0;
        f.nfut++;
    }
    int nfut = f.nfut;
    int full = hn + 1 + nfut + 1;  /* len(trick_dist(probs)) */
    /* per task: the later rows' chances (fp), and what else it needs.  Only "no suit"
     * picks a card (its key sets the forbidden suit apart); the others read a value of
     * the row sorted by chance: the k-th lowest (no trick, fewest), the k-th highest
     * (most), both (exactly k), the k-th highest last-trick chance (last trick) */
    double fp[GT_TASKS][GT_ROWS];
    int fbad[GT_TASKS] = {0}, hbad[GT_TASKS] = {0};
    double flast = 0.0;
    int have_flast = 0;
    double lows0[GT_ROWS], gains[GT_ROWS], sum_l = 0.0;
    int order[GT_ROWS];
    unsigned by_value = tasks & ((1u << GT_NO_TRICK) | (1u << GT_ONE_TRICK) | (1u << GT_TWO_TRICKS)
                                 | (1u << GT_THREE_TRICKS) | (1u << GT_MOST_TRICKS)
                                 | (1u << GT_FEWEST_TRICKS));
    for (int r = 0; r < nfut && (by_value || (tasks >> GT_LAST_TRICK) & 1); r++) {
        int len = f.flen[r], k = f.fk[r] < len - 1 ? f.fk[r] : len - 1;
        double v[GT_ROW_LEN] = {0.0, 0.0, 0.0, 0.0};  /* len >= 1 */
        if (by_value) {
            for (int i = 0; i < len; i++) v[i] = win[f.fut[r][i]];
            sort_values(v, len);
            fp[GT_NO_TRICK][r] = v[k];                  /* sorted(...)[min(k, len - 1)] */
            fp[GT_MOST_TRICKS][r] = v[len - 1 - k];     /* sorted(..., reverse=True)[..] */
            lows0[r] = v[k];
            gains[r] = v[len - 1 - f.fk[r] > 0 ? len - 1 - f.fk[r] : 0] - v[k];
        }
        if ((tasks >> GT_LAST_TRICK) & 1) {
            for (int i = 0; i < len; i++) v[i] = last[f.fut[r][i]];
            sort_values(v, len);
            if (!have_flast || v[len - 1 - k] > flast) {
                flast = v[len - 1 - k];
                have_flast = 1;
            }
        }
    }
    for (unsigned m = tasks >> GT_NO_SUIT0; m; m &= m - 1) {
        int t = GT_NO_SUIT0 + __builtin_ctz(m);
        uint64_t bad = gt_suit_mask(t - GT_NO_SUIT0);
        for (int r = 0; r < nfut; r++) {
            double key[GT_ROW_LEN];
            for (int i = 0; i < f.flen[r]; i++) {
                int x = f.fut[r][i];
                key[i] = win[x] + (((bad >> x) & 1) ? 0.3 : 0.0);
            }
            int pick = pick_sorted(f.fut[r], key, f.flen[r], f.fk[r]);
            fp[t][r] = win[pick];
            fbad[t] += (int)((bad >> pick) & 1);
        }
        hbad[t] = kz_popcount64(hand & bad);
    }
    /* exactly k (k = 1..3; 0 is "no trick"): the sum of the lows, the raise order */
    if ((tasks >> GT_ONE_TRICK) & 7) {
        for (int r = 0; r < nfut; r++) sum_l += lows0[r];
        for (int i = 0; i < nfut; i++) {  /* sorted(range, key=-gains): stable */
            int j = i;
            while (j > 0 && -gains[order[j - 1]] > -gains[i]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
    }
    float *otake = out + T->o_take_chances, *otask = out + T->o_task_chances;
    double dc[GT_CARDS + 3], d[GT_CARDS + GT_ROWS + 3];
    for (uint64_t mc = left; mc; mc &= mc - 1) {
        int c = kz_lowbit64(mc);
        for (int i = 0; i < lh; i++) dc[i] = dh[i];
        int lc = dist_step(dc, lh, win[c], GT_CARDS + 3);
        double low_d0 = 0.0, low_few = 0.0;
        int low_ready = 0;
        for (unsigned m = tasks; m; m &= m - 1) {
            int t = __builtin_ctz(m);
            double v;
            if (t >= GT_NO_SUIT0) {
                int len = lc < 3 ? lc : 3;
                for (int i = 0; i < len; i++) d[i] = dc[i];
                for (int r = 0; r < nfut; r++) len = dist_step(d, len, fp[t][r], 3);
                int suit_cards = hbad[t] + (int)((gt_suit_mask(t - GT_NO_SUIT0) >> c) & 1) + fbad[t];
                v = task_chance(t, d, full, n, 0.0, suit_cards, -1, NULL, NULL);
            } else if (t == GT_LAST_TRICK) {
                double best = hn ? last_h : last[c];
                if (hn && last[c] > best) best = last[c];
                if (have_flast && flast > best) best = flast;
                v = best;
            } else if (t == GT_MOST_TRICKS) {
                int len = lc;
                for (int i = 0; i < len; i++) d[i] = dc[i];
                for (int r = 0; r < nfut; r++) len = dist_step(d, len, fp[t][r], GT_CARDS + GT_ROWS + 3);
                v = task_chance(t, d, len, n, 0.0, 0, -1, NULL, NULL);
            } else if (t == GT_NO_TRICK || t == GT_FEWEST_TRICKS) {
                if (!low_ready) {
                    int len = lc < 4 ? lc : 4;
                    for (int i = 0; i < len; i++) d[i] = dc[i];
                    for (int r = 0; r < nfut; r++) len = dist_step(d, len, fp[GT_NO_TRICK][r], 4);
                    low_d0 = d[0];
                    low_few = task_chance(GT_FEWEST_TRICKS, d, len, n, 0.0, 0, -1, NULL, NULL);
                    low_ready = 1;
                }
                v = t == GT_NO_TRICK ? low_d0 : low_few;
            } else {  /* exactly t: all later rows low, then raise rows while the mean gets closer */
                double lows[GT_ROWS];
                for (int r = 0; r < nfut; r++) lows[r] = lows0[r];
                double mean = (sum_h + win[c]) + sum_l;
                double td = (double)t;
                for (int o = 0; o < nfut; o++) {
                    int i = order[o];
                    double up = mean + gains[i] - td;
                    double now = mean - td;
                    if ((up < 0 ? -up : up) < (now < 0 ? -now : now)) {
                        mean += gains[i];
                        lows[i] += gains[i];
                    }
                }
                int len = lc < t + 1 ? lc : t + 1;
                for (int i = 0; i < len; i++) d[i] = dc[i];
                for (int r = 0; r < nfut; r++) len = dist_step(d, len, lows[r], t + 1);
                v = task_chance(t, d, full, n, 0.0, 0, -1, NULL, NULL);
            }
            /* `v > out[..]` compares in float32 (numpy 2: the Python float is weak) */
            float fv = (float)v;
            if (fv > otake[c]) otake[c] = fv;
            if (fv > otask[t]) otask[t] = fv;
        }
    }
}

/* -- the task state (version 3) ------------------------------------------------------ */

static void write_task_state(const gt_tables *T, const gt_state *s, int seat, int n,
                             float *out) {
    for (int rel = 0; rel < n; rel++) {
        int p = (seat + rel) % n;
        int task = s->chosen[p];
        if (task < 0 || task >= GT_TASKS) continue;
        float *col = out + T->o_task_state + rel * 8;
        int won = s->tricks_won[p];
        if (task <= GT_THREE_TRICKS) {
            int need = task - won;
            col[need > 0 ? 0 : need == 0 ? 1 : 2] = 1.0f;
            col[3] = (float)((double)(need > 0 ? need : 0) / 3);
        } else if (task == GT_MOST_TRICKS) {
            col[0] = 1.0f;
        } else if (task == GT_FEWEST_TRICKS) {
            col[1] = 1.0f;
        } else if (task >= GT_NO_SUIT0) {
            int suit = task - GT_NO_SUIT0;
            if (s->won_cards[p] & gt_suit_mask(suit))
                col[2] = 1.0f;
            else
                col[4 + suit] = 1.0f;
        }
    }
}

/* -- steering (the trick played ahead) ----------------------------------------------- */

/* steering.task_chances for the tasks of mask `tasks` (ascending) of seat; writes one
 * chance per task to out, returns their count */
static int task_chances(const gt_state *s, int seat, int n, uint64_t cands, unsigned tasks,
                        double *out) {
    double wbuf[GT_CARDS], lbuf[GT_CARDS];
    const double *win, *last;
    belief(s, seat, cands, 1, &win, &last, wbuf, lbuf);
    double dists[GT_MAX_PLAYERS][DIST_MAX];
    int dlen[GT_MAX_PLAYERS];
    /* every seat's distribution only for "most" / "fewest" (the others' are read there
     * only) */
    int all = (tasks >> GT_MOST_TRICKS) & 3;
    for (int p = 0; p < n; p++) {
        if (p != seat && !all) continue;
        double probs[GT_CARDS];
        int m = 0;
        for (uint64_t h = s->hands[p] & GT_ALL_CARDS; h; h &= h - 1) probs[m++] = win[kz_lowbit64(h)];
        int z = s->tricks_won[p];
        for (int i = 0; i < z; i++) dists[p][i] = 0.0;
        dlen[p] = z + trick_dist(probs, m, dists[p] + z);
    }
    const double *others[GT_MAX_PLAYERS];
    int olen[GT_MAX_PLAYERS], no = 0;
    for (int p = 0; p < n && all; p++)
        if (p != seat) {
            others[no] = dists[p];
            olen[no++] = dlen[p];
        }
    uint64_t hand = s->hands[seat] & GT_ALL_CARDS;
    double best_last = 0.0;
    if (hand) {
        best_last = last[kz_lowbit64(hand)];
        for (uint64_t h = hand & (hand - 1); h; h &= h - 1)
            if (last[kz_lowbit64(h)] > best_last) best_last = last[kz_lowbit64(h)];
    }
    if (s->head.phase == GT_PLAY && s->num_tricks == GT_ROWS)
        best_last = s->last_winner == seat ? 1.0 : 0.0;
    int k = 0;
    for (unsigned m = tasks; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        double v;
        if (t >= GT_NO_SUIT0) {
            uint64_t bad = gt_suit_mask(t - GT_NO_SUIT0);
            if (s->won_cards[seat] & bad)
                v = 0.0;
            else
                v = task_chance(t, dists[seat], dlen[seat], n, 0.0, kz_popcount64(hand & bad),
                                -1, NULL, NULL);
        } else if (t == GT_MOST_TRICKS || t == GT_FEWEST_TRICKS) {
            v = task_chance(t, dists[seat], dlen[seat], n, 0.0, 0, no, others, olen);
        } else {
            v = task_chance(t, dists[seat], dlen[seat], n, best_last, 0, -1, NULL, NULL);
        }
        out[k++] = v;
    }
    return k;
}

/* steering.target: the task seat plays for */
static int target(const gt_state *s, int seat, int n, uint64_t cands) {
    int t = s->chosen[seat];
    if (t >= 0 && t < GT_TASKS) return t;
    unsigned m = 0;
    for (int p = 0; p < n; p++)
        if (p != seat && s->chosen[p] >= 0 && s->chosen[p] < GT_TASKS) m |= 1u << s->chosen[p];
    if (!m) return GT_NO_TRICK;
    double ch[GT_TASKS];
    int k = task_chances(s, seat, n, cands, m, ch);
    int best = 0;
    for (int i = 1; i < k; i++)
        if (ch[i] > ch[best]) best = i;
    for (int i = 0; i < best; i++) m &= m - 1;
    return __builtin_ctz(m);
}

/* the fields steering.play_for reads, for a trick played ahead (steering._Ahead) */
typedef struct {
    int n, draw, leader, len;
    uint8_t cards[8];
    uint64_t hands[GT_MAX_PLAYERS];
    uint64_t follow;
    const uint8_t *power;
    const double *win;  /* CARD_CHANCES[true draw][0] */
} ahead;

/* steering._beaters > 0: whether a seat after `seat` could beat key */
static int any_beater(const ahead *a, int seat, int key, int lead_suit) {
    uint64_t above = R.above[a->draw][lead_suit][key];
    int later = a->n - a->len;  /* range(1, n - len(cards)) */
    for (int i = 1; i < later; i++) {
        int p = (seat + i) % a->n;
        if (follow_mask(a->hands[p], a->follow) & above) return 1;
    }
    return 0;
}

/* steering.play_card with a card led (respond always has one) */
static int play_card(const ahead *a, int seat, uint64_t legal, int want, uint64_t avoid) {
    const double *win = a->win;
    int lead_suit = gt_card_suit(a->cards[0]);
    const uint8_t *key = R.key[a->draw][lead_suit];
    int best_key = 0;
    for (int i = 0; i < a->len; i++)
        if (key[a->cards[i]] > best_key) best_key = key[a->cards[i]];
    uint64_t winning = 0, losing = 0;
    for (uint64_t m = legal; m; m &= m - 1) {
        int c = kz_lowbit64(m);
        if (key[c] > best_key)
            winning |= 1ULL << c;
        else
            losing |= 1ULL << c;
    }
    int best = -1;
    if (want) {
        if (winning) {
            for (uint64_t m = winning; m; m &= m - 1) {  /* min(safe, key=win) */
                int c = kz_lowbit64(m);
                if (!any_beater(a, seat, key[c], lead_suit) && (best < 0 || win[c] < win[best]))
                    best = c;
            }
            if (best >= 0) return best;
            for (uint64_t m = winning; m; m &= m - 1) {  /* max(winning, key=_key) */
                int c = kz_lowbit64(m);
                if (best < 0 || key[c] > key[best]) best = c;
            }
            return best;
        }
        for (uint64_t m = losing; m; m &= m - 1) {  /* min(losing, key=win) */
            int c = kz_lowbit64(m);
            if (best < 0 || win[c] < win[best]) best = c;
        }
        return best;
    }
    if (avoid && (losing & avoid)) {
        for (uint64_t m = losing & avoid; m; m &= m - 1) {  /* max(bad, key=win) */
            int c = kz_lowbit64(m);
            if (best < 0 || win[c] > win[best]) best = c;
        }
        return best;
    }
    if (losing) {
        for (uint64_t m = losing; m; m &= m - 1) {
            int c = kz_lowbit64(m);
            if (best < 0 || win[c] > win[best]) best = c;
        }
        return best;
    }
    uint64_t beatable = 0;
    for (uint64_t m = winning; m; m &= m - 1) {
        int c = kz_lowbit64(m);
        if (any_beater(a, seat, key[c], lead_suit)) beatable |= 1ULL << c;
    }
    if (avoid) {
        uint64_t clean = (beatable ? beatable : winning) & ~avoid;
        if (clean) {
            beatable = beatable ? clean : 0;
            winning = clean;
        }
    }
    if (beatable) {
        for (uint64_t m = beatable; m; m &= m - 1) {  /* min(beatable, key=_key) */
            int c = kz_lowbit64(m);
            if (best < 0 || key[c] < key[best]) best = c;
        }
        return best;
    }
    for (uint64_t m = winning; m; m &= m - 1) {  /* max(winning, key=win) */
        int c = kz_lowbit64(m);
        if (best < 0 || win[c] > win[best]) best = c;
    }
    return best;
}

/* steering.play_for */
static int play_for(const ahead *a, const gt_state *s, int seat, uint64_t legal, int task) {
    int won = s->tricks_won[seat];
    uint64_t avoid = task >= GT_NO_SUIT0 ? gt_suit_mask(task - GT_NO_SUIT0) : 0;
    int want = task <= GT_THREE_TRICKS ? won < task : task == GT_MOST_TRICKS;
    if (task == GT_LAST_TRICK) {
        /* keep: max(hand, key=(power, value)), the first of equals */
        const uint8_t *power = a->power;
        int keep = -1;
        for (uint64_t m = a->hands[seat] & GT_ALL_CARDS; m; m &= m - 1) {
            int c = kz_lowbit64(m);
            if (keep < 0 || power[c] > power[keep]
                || (power[c] == power[keep] && gt_card_value(c) > gt_card_value(keep)))
                keep = c;
        }
        uint64_t rest = keep >= 0 ? legal & ~(1ULL << keep) : legal;
        if (!rest) rest = legal;
        if (s->num_tricks == GT_ROWS - 1) return play_card(a, seat, legal, 1, 0);
        return play_card(a, seat, rest, 0, 0);
    }
    return play_card(a, seat, legal, want, avoid);
}

/* steering.respond: the trick's cards (returned count) after the seat to play plays card */
static int respond(const gt_state *s, int n, int cur, int card, const int *targets, ahead *a) {
    a->len = 0;
    for (int i = 0; i < s->trick_len; i++) a->cards[a->len++] = s->trick_cards[i];
    a->cards[a->len++] = (uint8_t)card;
    for (int p = 0; p < n; p++) a->hands[p] = s->hands[p] & GT_ALL_CARDS;
    a->hands[cur] &= ~(1ULL << card);
    a->follow = s->follow ? s->follow : group_of(s->trump_mask, card);
    int later = n - s->trick_len;
    for (int i = 1; i < later; i++) {
        int p = (cur + i) % n;
        uint64_t legal = follow_mask(a->hands[p], a->follow);
        if (!legal) break;  /* an empty hand (no reachable state): Python raises */
        int d = (legal & (legal - 1)) ? play_for(a, s, p, legal, targets[p]) : kz_lowbit64(legal);
        a->cards[a->len++] = (uint8_t)d;
        a->hands[p] &= ~(1ULL << d);
    }
    return a->len;
}

static void write_trick_reading(const gt_tables *T, const gt_state *s, int seat, int n,
                                uint64_t cands, float *out) {
    int width = n + 4;
    int targets[GT_MAX_PLAYERS] = {0, 0, 0, 0};
    int later = n - s->trick_len;
    for (int i = 1; i < later; i++) {
        int p = (seat + i) % n;
        targets[p] = target(s, p, n, cands);
    }
    ahead a;
    a.n = n;
    a.draw = s->draw;
    a.leader = s->trick_leader;
    a.power = R.power[s->draw];
    a.win = R.win[s->draw];
    uint64_t legal = follow_mask(s->hands[seat] & GT_ALL_CARDS, s->follow);
    for (uint64_t m = legal; m; m &= m - 1) {
        int c = kz_lowbit64(m);
        int len = respond(s, n, seat, c, targets, &a);
        float *col = out + T->o_trick_reading + c * width;
        col[mod(s->trick_leader + trick_winner(a.cards, len, a.power) - seat, n)] = 1.0f;
        for (int i = 0; i < len; i++) col[n + gt_card_suit(a.cards[i])] = 1.0f;
    }
}

/* -- write_reading --------------------------------------------------------------------- */

void gt_write_reading(const kz_config *cfg, const gt_state *s, int seat, float *out) {
    if (!R.ready) build_tables();
    const gt_tables *T = gt_tables_of(cfg);
    int n = cfg->num_players;
    int phase = s->head.phase;
    if (phase == GT_TASK_DRAFT || phase == GT_GAME_OVER || n < 3 || n > GT_MAX_PLAYERS
        || seat < 0 || seat >= n || s->draw >= GT_DRAWS)
        return;
    int known = phase != GT_CARD_DRAFT || seat == s->start;
    uint64_t cands = 0;
    if (known) {
        out[T->o_trump_candidates + s->draw] = 1.0f;
    } else {
        cands = agreeing(s, n);
        for (uint64_t m = cands; m; m &= m - 1) out[T->o_trump_candidates + kz_lowbit64(m)] = 1.0f;
    }
    if (phase == GT_CARD_DRAFT) {
        if (seat == s->head.current_player) write_draft(T, s, seat, n, cands, out);
        return;
    }
    if (phase != GT_PLAY) return;
    write_task_state(T, s, seat, n, out);
    if (seat == s->head.current_player && s->trick_len < n)
        write_trick_reading(T, s, seat, n, cands, out);
    int d = s->draw;
    float *ol = out + T->o_led_beaters;
    for (int c = 0; c < GT_CARDS; c++) ol[c] = R.led[d][c];
    for (uint64_t m = s->trump_mask & GT_ALL_CARDS; m; m &= m - 1)
        out[T->o_trumps + kz_lowbit64(m)] = 1.0f;
    int k = s->trick_len < n ? s->trick_len : n;
    int nlater = n - k - 1 > 0 ? n - k - 1 : 0;  /* later_seats(s, seat) */
    uint64_t later[GT_MAX_PLAYERS], legal_later[GT_MAX_PLAYERS];
    for (int i = 0; i < nlater; i++) later[i] = s->hands[(seat + 1 + i) % n] & GT_ALL_CARDS;
    float *otake = out + T->o_takes_trick, *oover = out + T->o_overtake, *osafe = out + T->o_safe;
    const uint8_t *keys = NULL;
    const uint64_t *above = NULL;
    int best = 0;
    if (k) {
        int lead = gt_card_suit(s->trick_cards[0]);
        keys = R.key[d][lead];
        above = R.above[d][lead];
        int at = 0;
        best = keys[s->trick_cards[0]];
        for (int i = 1; i < k; i++)
            if (keys[s->trick_cards[i]] > best) {
                best = keys[s->trick_cards[i]];
                at = i;
            }
        out[T->o_trick_winner + mod(s->trick_leader + at - seat, n)] = 1.0f;
        for (int i = 0; i < nlater; i++) legal_later[i] = follow_mask(later[i], s->follow);
    }
    for (uint64_t m = s->hands[seat] & GT_ALL_CARDS; m; m &= m - 1) {
        int c = kz_lowbit64(m);
        int key;
        if (k) {
            key = keys[c];
            if (key <= best) continue;
        } else {  /* leading: the card sets the suit to follow and is winning so far */
            int lead = gt_card_suit(c);
            keys = R.key[d][lead];
            above = R.above[d][lead];
            key = keys[c];
            uint64_t follow = group_of(s->trump_mask, c);
            for (int i = 0; i < nlater; i++) legal_later[i] = follow_mask(later[i], follow);
        }
        otake[c] = 1.0f;
        int beat = 0;
        for (int i = 0; i < nlater; i++)
            if (legal_later[i] & above[key]) beat++;
        if (nlater) oover[c] = (float)((double)beat / nlater);
        if (!beat) osafe[c] = 1.0f;
    }
}
