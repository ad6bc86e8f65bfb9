/* Wizard's PIMC in the kernel: policies/search.py's fast path, draw for draw.
 *
 * Why: a PIMC decision samples 12 worlds (WizardGame.determinize: the other
 * hands re-dealt, the deck orders of later rounds re-shuffled) and plays
 * every legal action out to the end of the round in each (rollout_playout,
 * FastHeuristic's cards on bitmasks).  In Python that is milliseconds a
 * decision; here the same worlds and play-outs cost a small fraction.
 *
 * Exactly the same values as the Python loop for the same random.Random:
 * every draw of WizardGame.determinize is made here in the same order with
 * the same MT outputs (envs/wizard/rules.py: deal_hidden's shuffles, the
 * fallback _deal_constrained with its random.choices, world_of's shuffles of
 * each seat's dealt cards, of the undealt rest and of every later round's
 * deck), and the play-out draws nothing (FastHeuristic is deterministic),
 * as policies/games/wizard.py's rollout_playout.  The value is
 * search_value: the seat's own score change over the round.  Floating point
 * (the bid's trick estimate) is computed operation for operation as Python
 * computes it (doubles, libm's pow, no contraction into fused multiply-adds),
 * so a bid is the bid the Python player makes.
 * tests/policies/test_kernel_search_wizard.py compares the values and the
 * generator's state afterwards with the Python loop over many positions.
 *
 * What the seat may not see is never read from the root, except where the
 * Python determinize reads it from the true state too: the other hands' sizes
 * (public) and nothing else; the current round's deck order is rebuilt from
 * the world's own cards (it is never read again after the deal) and every
 * later round's order re-shuffled from card-id order.
 *
 * A world is a state on the stack, a play-out a struct copy: no allocation.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "wizard.h"

/* doubles as Python computes them: no a * b + c fused into one rounding */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#define WS_EXACT
#elif defined(__GNUC__)
#define WS_EXACT __attribute__((optimize("fp-contract=off")))
#else
#define WS_EXACT
#endif

/* the largest Wizard state: the head and the deck orders of WZ_MAX_ROUNDS rounds */
#define WS_STATE_MAX (offsetof(wz_state, orders) + (size_t)WZ_MAX_ROUNDS * WZ_DECK)
typedef union {
    wz_state s;
    uint8_t bytes[WS_STATE_MAX];
    uint64_t align;
} ws_buf;

#define DETERMINIZE_TRIES 40 /* rules.py _DETERMINIZE_TRIES */
#define KINDS 5              /* four suits, then Wizards and Jesters ("free") */

/* -- the rollout player: policies/games/wizard.py --------------------------------- */

/* power(card, trump) with the Jesters' strength `jester` (0, or 35: kept back) */
static inline int power(int c, int trump, int jester) {
    if (c >= WZ_JESTER0) return jester;
    if (c >= WZ_WIZARD0) return 40;
    int v = c % WZ_NUMBERS + 1;
    return c / WZ_NUMBERS == trump ? v + 20 : v;
}

/* _first(cards, _STRONGEST / _WEAKEST...): the lowest card id of the strongest
 * (weakest) power group the cards meet; cards is not empty */
static inline int strongest(uint64_t cards, int trump) {
    int best = -1, bp = -1;
    for (; cards; cards &= cards - 1) {
        int c = kz_lowbit64(cards), p = power(c, trump, 0);
        if (p > bp) best = c, bp = p;
    }
    return best;
}

static inline int weakest(uint64_t cards, int trump, int jester) {
    int best = -1, bp = 1000;
    for (; cards; cards &= cards - 1) {
        int c = kz_lowbit64(cards), p = power(c, trump, jester);
        if (p < bp) best = c, bp = p;
    }
    return best;
}

/* beats(card, best, trump): card played now takes the trick from `best` */
static inline int beats(int card, int best, int trump) {
    if (best >= WZ_WIZARD0 && best < WZ_JESTER0) return 0; /* the first Wizard wins */
    if (card >= WZ_JESTER0) return 0;
    if (card >= WZ_WIZARD0 || best >= WZ_JESTER0) return 1; /* a Wizard; or only Jesters so far */
    int cs = card / WZ_NUMBERS, bs = best / WZ_NUMBERS;
    if (cs == bs) return card > best;
    return cs == trump;
}

static inline uint64_t beaten_by(uint64_t cards, int best, int trump) {
    uint64_t out = 0;
    for (; cards; cards &= cards - 1) {
        int c = kz_lowbit64(cards);
        if (beats(c, best, trump)) out |= 1ULL << c;
    }
    return out;
}

/* fast_card: FastHeuristic's card from the legal cards (a bitmask) */
static int fast_card(uint64_t legal, int best, int led, int trump, int need, int last) {
    if (!(legal & (legal - 1))) return kz_lowbit64(legal);
    if (!led) return need > 0 ? strongest(legal, trump) : weakest(legal, trump, 35);
    uint64_t beaten = beaten_by(legal, best, trump);
    if (need > 0) { /* short of the bid: the cheapest winner, else the cheapest card but a Jester */
        uint64_t win = legal & beaten;
        return win ? weakest(win, trump, 0) : weakest(legal, trump, 35);
    }
    uint64_t lose = legal & ~beaten; /* at or over the bid: the highest loser */
    if (lose) return strongest(lose, trump);
    return last ? strongest(legal, trump) : weakest(legal, trump, 0);
}

/* choose_trump: the suit with the most weight (1 + number / 13 a card), summed in
 * card order from 0 as Python 3.11's sum() adds floats */
static WS_EXACT int choose_trump(uint64_t hand) {
    int best = 0;
    double best_w = -1.0;
    for (int suit = 0; suit < WZ_SUITS; suit++) {
        uint64_t cards = hand & (((1ULL << WZ_NUMBERS) - 1) << (suit * WZ_NUMBERS));
        double w = 0.0;
        for (; cards; cards &= cards - 1) {
            int c = kz_lowbit64(cards);
            w += 1.0 + (double)(c % WZ_NUMBERS + 1) / (double)WZ_NUMBERS;
        }
        if (w > best_w) best = suit, best_w = w;
    }
    return best;
}

static const double SIDE_SHORT[5] = {0.0, 0.4, 0.8, 0.8, 0.8};
#define SIDE_CUT 0.3
#define SIDE_SLOPE 1.3
#define LONG_HAND 7
#define LONG_SHRINK 0.025

/* _hold_chance: the chance that `card`, leading now, is still ahead after k more players */
static WS_EXACT double hold_chance(const wz_tables *t, int card, uint64_t unseen, int trump, int k,
                                   int h) {
    if (k <= 0) return 1.0;
    if (card >= WZ_WIZARD0 && card < WZ_JESTER0) return 1.0;
    if (card >= WZ_JESTER0) return 0.0;
    int u = kz_popcount64(unseen);
    if (!u) return 1.0;
    int m = h <= 1 ? 1 : 2;
    int suit = card / WZ_NUMBERS;
    uint64_t higher = unseen & t->suit_mask[suit] & ~((2ULL << card) - 1);
    double danger = (double)kz_popcount64(higher) + (double)kz_popcount64(unseen & WZ_WIZARDS) / (double)m;
    if (trump >= 0 && suit != trump) {
        int same = kz_popcount64(unseen & t->suit_mask[suit]);
        double v = pow(1.0 - (double)same / (double)u, (double)h);
        double trumps = (double)kz_popcount64(unseen & t->suit_mask[trump]) * v;
        danger += trumps;
    }
    double q = danger / (double)u;
    if (!(q < 1.0)) q = 1.0; /* min(1.0, q) */
    return pow(1.0 - q, (double)(k * m));
}

/* estimate_tricks: the expected tricks of `hand` */
static WS_EXACT double estimate_tricks(const wz_tables *t, uint64_t hand, uint64_t unseen, int trump,
                                       int n) {
    int h = kz_popcount64(hand);
    double total = 0.0;
    for (uint64_t cards = hand; cards; cards &= cards - 1) {
        int c = kz_lowbit64(cards);
        if (c >= WZ_JESTER0) continue;
        if (c >= WZ_WIZARD0) {
            total += 1.0;
            continue;
        }
        double p = hold_chance(t, c, unseen, trump, n - 1, h);
        if (c / WZ_NUMBERS != trump) {
            if (h < 5) {
                p = p * SIDE_SHORT[h];
            } else {
                double cut = p - SIDE_CUT;
                p = (cut > 0.0 ? cut : 0.0) * SIDE_SLOPE; /* max(0.0, p - SIDE_CUT) */
            }
        }
        total += p;
    }
    if (h > LONG_HAND) {
        double shrink = LONG_SHRINK * (double)((h < 15 ? h : 15) - LONG_HAND);
        total *= 1.0 - shrink;
    }
    return total;
}

/* A world's trick estimates.  A bid's estimate reads the bidder's hand, the cards it
 * has seen (its hand and the turned card: nothing is played while bidding) and the
 * trump - all fixed in a world while it bids, whatever the searched action - so each
 * (seat, trump) is estimated once a world, not once a rollout: the same double. */
typedef struct {
    uint8_t known[KZ_MAX_PLAYERS][WZ_SUITS + 1];
    double est[KZ_MAX_PLAYERS][WZ_SUITS + 1];
} ws_estimates;

/* heuristic_bid: the rounded estimate, within 0..hand_size; under the dealer's
 * restriction the nearer allowed side */
static WS_EXACT int heuristic_bid(const kz_config *cfg, const wz_state *s, int seat,
                                  ws_estimates *memo) {
    const wz_tables *t = T(cfg);
    int trump = s->trump >= 0 ? s->trump : -1;
    double est;
    if (memo && !s->played && memo->known[seat][trump + 1]) {
        est = memo->est[seat][trump + 1];
    } else {
        uint64_t hand = s->hands[seat];
        uint64_t seen = hand | s->played;
        if (s->trump_card >= 0) seen |= 1ULL << s->trump_card;
        est = estimate_tricks(t, hand, WZ_FULL & ~seen, trump, t->n);
        if (memo && !s->played) {
            memo->known[seat][trump + 1] = 1;
            memo->est[seat][trump + 1] = est;
        }
    }
    int hs = s->hand_size;
    int bid = (int)(est + 0.5);
    if (bid < 0) bid = 0;
    if (bid > hs) bid = hs;
    uint64_t mask[KZ_MASK_WORDS] = {0};
    kz_wizard.legal(cfg, s, mask);
    int a = t->bid0 + bid;
    if (!(mask[a >> 6] >> (a & 63) & 1))
        bid = est > (double)bid && bid < hs ? bid + 1 : (bid > 0 ? bid - 1 : 1);
    return bid;
}

/* rules.py trick_winner: position of the winning card */
static int trick_winner(const uint8_t *cards, int len, int trump) {
    for (int i = 0; i < len; i++)
        if (cards[i] >= WZ_WIZARD0 && cards[i] < WZ_JESTER0) return i;
    if (trump >= 0) {
        int best = -1;
        for (int i = 0; i < len; i++)
            if (cards[i] < WZ_WIZARD0 && cards[i] / WZ_NUMBERS == trump && (best < 0 || cards[i] > cards[best]))
                best = i;
        if (best >= 0) return best;
    }
    int lead = -1, best = 0;
    for (int i = 0; i < len; i++) {
        int c = cards[i];
        if (c < WZ_WIZARD0) {
            if (lead < 0) {
                lead = c / WZ_NUMBERS;
                best = i;
            } else if (c / WZ_NUMBERS == lead && c > cards[best]) {
                best = i;
            }
        }
    }
    return best;
}

/* rollout_playout: the round played out from s (in the round, not over) by
 * FastHeuristic; the seat's score of the round.  s is changed (a copy); memo: the
 * world's estimates (ws_estimates). */
/* the bids still to make (and a trump to choose), by FastHeuristic through the rules, as
 * Python's rollout_playout makes them */
static void finish_bids(const kz_config *cfg, wz_state *s, ws_estimates *memo) {
    const wz_tables *t = T(cfg);
    int32_t deltas[KZ_MAX_PLAYERS];
    while (s->h.phase != PLAY) {
        int seat = s->h.current_player, a;
        if (s->h.phase == CHOOSE_TRUMP)
            a = t->trump0 + choose_trump(s->hands[seat]);
        else
            a = t->bid0 + heuristic_bid(cfg, s, seat, memo);
        kz_wizard.apply(cfg, s, a, deltas);
    }
}

static int playout(const kz_config *cfg, wz_state *s, int who, ws_estimates *memo) {
    const wz_tables *t = T(cfg);
    finish_bids(cfg, s, memo);
    int n = t->n, trump = s->trump;
    uint64_t hands[KZ_MAX_PLAYERS];
    int won[KZ_MAX_PLAYERS];
    for (int p = 0; p < n; p++) hands[p] = s->hands[p], won[p] = s->tricks_won[p];
    int played = s->trick_len, leader = s->leader, follow = s->follow,
        seat = s->h.current_player;
    int winner = played ? trick_winner(s->trick, played, trump) : 0;
    int best = played ? s->trick[winner] : -1;
    for (;;) {
        uint64_t hand = hands[seat], legal = hand;
        if (follow >= 0) { /* follow suit if you can; Wizards and Jesters are always free */
            uint64_t same = hand & t->suit_mask[follow];
            if (same) legal = same | (hand & WZ_FREE);
        }
        int card = fast_card(legal, best, played > 0, trump, s->bids[seat] - won[seat],
                             played == n - 1);
        hands[seat] = hand ^ (1ULL << card);
        if (follow == LEAD_NONE && card < WZ_JESTER0) /* the first non-Jester sets the suit */
            follow = card >= WZ_WIZARD0 ? LEAD_FREE : card / WZ_NUMBERS;
        if (!played || beats(card, best, trump)) best = card, winner = played;
        played++;
        if (played < n) {
            seat = seat + 1 < n ? seat + 1 : 0;
            continue;
        }
        seat = (leader + winner) % n;
        won[seat]++;
        if (!hands[seat]) return wz_round_score(s->bids[who], won[who]);
        leader = seat, played = 0, follow = LEAD_NONE;
    }
}

/* -- the world: WizardGame.determinize ------------------------------------------ */

/* Random.choices(options, weights)[0] for positive int weights: random() * total,
 * then bisect_right over the cumulative weights within [0, k - 1] */
static int choose_weighted(kz_random *r, const int *weights, int k) {
    int cum[KZ_MAX_PLAYERS + 1], total = 0;
    for (int i = 0; i < k; i++) cum[i] = total += weights[i];
    double x = kz_random_double(r) * (double)total;
    int lo = 0, hi = k - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x < (double)cum[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* _deal_constrained: cards in random order, each to a random bin that may hold it,
 * weighted by room, only where the rest can still be placed (Hall's condition over
 * the five kinds).  bins others' hands, then bin `bins`: the undealt rest. */
static int deal_constrained(const uint8_t *cards, int ncards, const int *sizes,
                            const uint64_t *bans, int bins, kz_random *r, uint64_t *hands,
                            char *err, size_t errlen) {
    static const uint64_t suit13 = (1ULL << WZ_NUMBERS) - 1;
    uint64_t kind_mask[KINDS];
    for (int s = 0; s < WZ_SUITS; s++) kind_mask[s] = suit13 << (s * WZ_NUMBERS);
    kind_mask[4] = WZ_FREE;
    int caps[KZ_MAX_PLAYERS + 1], rest = ncards;
    for (int b = 0; b < bins; b++) caps[b] = sizes[b], rest -= sizes[b];
    caps[bins] = rest;
    int allowed[KZ_MAX_PLAYERS + 1]; /* bit t: bin may hold kind t */
    for (int b = 0; b < bins; b++) {
        allowed[b] = 0;
        for (int k = 0; k < KINDS; k++)
            if (!(bans[b] & kind_mask[k])) allowed[b] |= 1 << k;
    }
    allowed[bins] = (1 << KINDS) - 1;
    uint8_t kinds[WZ_DECK];
    int left[KINDS] = {0};
    for (int i = 0; i < ncards; i++) {
        int c = cards[i];
        kinds[i] = (uint8_t)(c < WZ_WIZARD0 ? c / WZ_NUMBERS : 4);
        left[kinds[i]]++;
    }
    /* per non-empty set of kinds: the bins that take any of them */
    int takers[32];
    for (int sub = 1; sub < 32; sub++) {
        takers[sub] = 0;
        for (int b = 0; b <= bins; b++)
            if (allowed[b] & sub) takers[sub] |= 1 << b;
    }
    uint8_t order[WZ_DECK];
    for (int i = 0; i < ncards; i++) order[i] = (uint8_t)i;
    kz_shuffle(r, order, ncards);
    for (int b = 0; b < bins; b++) hands[b] = 0;
    for (int j = 0; j < ncards; j++) {
        int i = order[j], c = cards[i], t = kinds[i];
        left[t]--;
        int options[KZ_MAX_PLAYERS + 1], weights[KZ_MAX_PLAYERS + 1], k = 0;
        for (int b = 0; b <= bins; b++)
            if (caps[b] && (allowed[b] >> t & 1)) options[k++] = b;
        int b;
        for (;;) { /* weighted by room; a bin that leaves no deal is dropped */
            if (!k) {
                kz_set_err(err, errlen, "no deal of the hidden cards fits the voids seen");
                return -1;
            }
            for (int x = 0; x < k; x++) weights[x] = caps[options[x]];
            int pick = choose_weighted(r, weights, k);
            b = options[pick];
            caps[b]--;
            int ok = 1;
            for (int sub = 1; sub < 32 && ok; sub++) {
                int need = 0, room = 0;
                for (int u = 0; u < KINDS; u++)
                    if (sub >> u & 1) need += left[u];
                if (!need) continue;
                for (int bb = 0; bb <= bins; bb++)
                    if (takers[sub] >> bb & 1) room += caps[bb];
                if (need > room) ok = 0;
            }
            if (ok) break;
            caps[b]++;
            for (int x = pick; x + 1 < k; x++) options[x] = options[x + 1]; /* options.remove(b) */
            k--;
        }
        if (b < bins) hands[b] |= 1ULL << c;
    }
    return 0;
}

/* deal_hidden: shuffle and deal until no hand breaks its voids (40 tries where any
 * void is known, else one), then the constrained deal.  cards is shuffled in place:
 * afterwards it is the pool in the order the deal drew it. */
static int deal_hidden(uint8_t *cards, int ncards, const int *sizes, const uint64_t *bans,
                       int bins, kz_random *r, uint64_t *hands, char *err, size_t errlen) {
    int any = 0;
    for (int b = 0; b < bins; b++) any |= bans[b] != 0;
    int tries = any ? DETERMINIZE_TRIES : 1;
    for (int k = 0; k < tries; k++) {
        kz_shuffle(r, cards, ncards);
        int at = 0, b = 0;
        for (; b < bins; b++) {
            uint64_t h = 0;
            for (int j = 0; j < sizes[b]; j++) h |= 1ULL << cards[at + j];
            if (h & bans[b]) break;
            hands[b] = h;
            at += sizes[b];
        }
        if (b == bins) return 0;
    }
    return deal_constrained(cards, ncards, sizes, bans, bins, r, hands, err, errlen);
}

/* determinize(root, seat): w becomes a copy of root with what `seat` cannot see
 * re-drawn, drawing from r exactly what WizardGame.determinize draws. */
static int determinize(const kz_config *cfg, const wz_state *root, int seat, kz_random *r,
                       wz_state *w, char *err, size_t errlen) {
    const wz_tables *t = T(cfg);
    int n = t->n, hs = root->hand_size, tc = root->trump_card;
    memcpy(w, root, (size_t)cfg->state_size);
    /* hidden_part: the unseen cards in id order, the other seats, their sizes and voids */
    uint64_t seen = root->hands[seat] | root->played;
    if (tc >= 0) seen |= 1ULL << tc;
    uint8_t pool[WZ_DECK];
    int np = 0;
    for (int c = 0; c < WZ_DECK; c++)
        if (!(seen >> c & 1)) pool[np++] = (uint8_t)c;
    int others[KZ_MAX_PLAYERS], sizes[KZ_MAX_PLAYERS], bins = 0, dealt_count = 0;
    uint64_t bans[KZ_MAX_PLAYERS], dealt[KZ_MAX_PLAYERS];
    for (int p = 0; p < n; p++) {
        if (p == seat) continue;
        others[bins] = p;
        sizes[bins] = kz_popcount64(root->hands[p]);
        dealt_count += sizes[bins];
        bans[bins] = 0;
        for (int s = 0; s < WZ_SUITS; s++)
            if (root->voids[p] >> s & 1) bans[bins] |= t->suit_mask[s];
        bins++;
    }
    /* the card counts a real game has (valid() does not tie the turned card to the
     * hands): the deal and the rebuilt order below stay within their arrays */
    uint64_t held = root->played;
    int too_many = 0;
    for (int p = 0; p < n; p++) {
        held |= root->hands[p];
        too_many |= kz_popcount64(root->hands[p]) > hs;
    }
    if (too_many || dealt_count > np || n * hs + (tc >= 0) > WZ_DECK
        || (tc >= 0 && held >> tc & 1)
        || kz_popcount64(root->played) + kz_popcount64(root->hands[seat]) + dealt_count != n * hs) {
        kz_set_err(err, errlen, "the state's card counts do not add up");
        return -1;
    }
    if (deal_hidden(pool, np, sizes, bans, bins, r, dealt, err, errlen) < 0) return -1;
    uint64_t others_cards = 0;
    for (int b = 0; b < bins; b++) {
        w->hands[others[b]] = dealt[b];
        others_cards |= dealt[b];
    }
    if (root->h.phase == GAME_OVER) return 0;
    /* this round's order: each seat's cards at its dealing positions, shuffled (Python
     * shuffles each seat's hand and plays; who played which card is not in the state,
     * so the played cards fill the seats' missing places in id order - the order is
     * never read again, the draws are the same: one shuffle of hand_size cards a seat) */
    int ri = root->h.round_index;
    uint8_t *order = w->orders + (size_t)ri * WZ_DECK;
    uint64_t spare = root->played;
    for (int p = 0; p < n; p++) {
        uint8_t cards[WZ_DECK];
        int k = 0;
        for (uint64_t h = w->hands[p]; h; h &= h - 1) cards[k++] = (uint8_t)kz_lowbit64(h);
        while (k < hs) {
            cards[k++] = (uint8_t)kz_lowbit64(spare);
            spare &= spare - 1;
        }
        kz_shuffle(r, cards, hs);
        int first = ((p - root->dealer - 1) % n + n) % n;
        for (int j = 0; j < hs; j++) order[first + j * n] = cards[j];
    }
    int pos = n * hs;
    if (tc >= 0) order[pos++] = (uint8_t)tc;
    /* the undealt rest, in the order the deal drew the pool */
    int nr = 0;
    uint8_t rest[WZ_DECK];
    for (int i = 0; i < np; i++)
        if (!(others_cards >> pool[i] & 1)) rest[nr++] = pool[i];
    kz_shuffle(r, rest, nr);
    memcpy(order + pos, rest, (size_t)nr);
    /* every later round: shuffled from card-id order */
    for (int j = ri + 1; j < t->num_rounds; j++) {
        uint8_t *o = w->orders + (size_t)j * WZ_DECK;
        for (int c = 0; c < WZ_DECK; c++) o[c] = (uint8_t)c;
        kz_shuffle(r, o, WZ_DECK);
    }
    return 0;
}

/* -- the exact endgame (max^n) --------------------------------------------------------
 *
 * From a world in the play phase (every hand known, every bid made), the rest of the
 * round solved exactly: for each legal card of the seat to act, `seat`'s round score when
 * every seat plays perfectly from there on.  Max^n: each seat plays the card that
 * maximises its own round score, ties to the lowest card id (strict > over ascending
 * ids).  Not paranoid: Wizard scores every seat against its own bid, so the others are no
 * coalition against the seat - a seat that has its tricks ducks, one short takes.  Two
 * Wizards (two Jesters) in one hand play alike, so only the lowest of each is tried: the
 * tie rule would pick it anyway (policies/games/wizard.py _one_of_each_kind says why).
 * policies/games/wizard.py endgame_values is the Python referee, value for value.
 */
typedef struct {
    uint64_t hands[KZ_MAX_PLAYERS];
    uint8_t won[KZ_MAX_PLAYERS];
    uint8_t trick[KZ_MAX_PLAYERS];
    int8_t ntrick, leader, follow;
} we_world;

typedef struct {
    const wz_tables *t;
    int n, trump;
    const int8_t *bids;
    long nodes, max_nodes;
} we_solver;

static int we_scores(we_solver *S, const we_world *s, int32_t *out);

/* The legal cards of `who` with one card of each class of cards that play alike: one
 * Wizard, one Jester, and of a run of a suit's cards with no card of another hand or of
 * the trick between them (ids in a suit follow the numbers), the lowest.  Such cards take
 * and lose the same tricks against every card still to come, and their places among the
 * hand's ids keep their order against every other class, so each subtree is the same and
 * the tie rule (the lowest id of the best) picks the class's lowest card: the values are
 * those of trying every card (tests/policies/test_endgame_search_wizard.py checks the
 * kernel against the referee, which tries one Wizard and one Jester only, and the referee
 * against a brute force that tries every card). */
static uint64_t we_distinct(const we_solver *S, const we_world *s, int who, uint64_t legal) {
    uint64_t wizards = legal & WZ_WIZARDS, jesters = legal & WZ_JESTERS;
    uint64_t keep = (wizards & -wizards) | (jesters & -jesters);
    uint64_t others = 0;
    for (int p = 0; p < S->n; p++)
        if (p != who) others |= s->hands[p];
    for (int i = 0; i < s->ntrick; i++) others |= 1ULL << s->trick[i];
    for (int su = 0; su < WZ_SUITS; su++) {
        uint64_t cards = legal & S->t->suit_mask[su];
        int last = -1;
        for (; cards; cards &= cards - 1) {
            int c = kz_lowbit64(cards);
            /* the cards strictly between the last one kept in the run and this one */
            if (last < 0 || (others & ((1ULL << c) - (2ULL << last)))) keep |= 1ULL << c;
            last = c;
        }
    }
    return keep;
}

/* the seat `who` plays `card` in s (a copy), then the round's scores under max^n:
 * 0, or 1 past the node budget */
static int we_after(we_solver *S, const we_world *s, int who, int card, int32_t *out) {
    we_world c = *s;
    c.hands[who] ^= 1ULL << card;
    if (c.follow == LEAD_NONE && card < WZ_JESTER0) /* the first non-Jester sets the suit */
        c.follow = (int8_t)(card >= WZ_WIZARD0 ? LEAD_FREE : card / WZ_NUMBERS);
    c.trick[c.ntrick++] = (uint8_t)card;
    if (c.ntrick == S->n) {
        int winner = (c.leader + trick_winner(c.trick, S->n, S->trump)) % S->n;
        c.won[winner]++;
        c.ntrick = 0;
        c.leader = (int8_t)winner;
        c.follow = LEAD_NONE;
    }
    return we_scores(S, &c, out);
}

static int we_scores(we_solver *S, const we_world *s, int32_t *out) {
    int n = S->n;
    if (++S->nodes > S->max_nodes) return 1;
    int who = (s->leader + s->ntrick) % n;
    uint64_t hand = s->hands[who];
    if (!hand) { /* a trick ended with every hand empty: the round is over */
        for (int p = 0; p < n; p++) out[p] = wz_round_score(S->bids[p], s->won[p]);
        return 0;
    }
    uint64_t legal = hand;
    if (s->follow >= 0) { /* follow suit if you can; Wizards and Jesters are always free */
        uint64_t same = hand & S->t->suit_mask[s->follow];
        if (same) legal = same | (hand & WZ_FREE);
    }
    legal = we_distinct(S, s, who, legal);
    int32_t sc[KZ_MAX_PLAYERS];
    int have = 0;
    for (; legal; legal &= legal - 1) {
        if (we_after(S, s, who, kz_lowbit64(legal), sc)) return 1;
        if (!have || sc[who] > out[who]) {
            have = 1;
            memcpy(out, sc, (size_t)n * sizeof *out);
        }
    }
    return 0;
}

static void we_world_of(const wz_state *st, int n, we_world *w) {
    memset(w, 0, sizeof *w);
    for (int p = 0; p < n; p++) {
        w->hands[p] = st->hands[p];
        w->won[p] = st->tricks_won[p];
    }
    memcpy(w->trick, st->trick, sizeof w->trick);
    w->ntrick = st->trick_len;
    w->leader = st->leader;
    w->follow = st->follow;
}

static void we_solver_of(const kz_config *cfg, const wz_state *st, long max_nodes, we_solver *S) {
    S->t = T(cfg);
    S->n = S->t->n;
    S->trump = st->trump;
    S->bids = st->bids;
    S->nodes = 0;
    S->max_nodes = max_nodes;
}

/* the round from s (in the round, not over) solved: the bids still to make as the
 * play-out makes them, then max^n; the seat's round score.  s is changed (a copy). */
static int solve_round(const kz_config *cfg, wz_state *s, int seat, ws_estimates *memo) {
    finish_bids(cfg, s, memo);
    we_world w;
    we_world_of(s, T(cfg)->n, &w);
    we_solver S;
    we_solver_of(cfg, s, LONG_MAX, &S);
    int32_t sc[KZ_MAX_PLAYERS];
    we_scores(&S, &w, sc);
    return sc[seat];
}

/* kz_search.solve: see kz.h.  values[i]: the i-th legal card of the seat to act. */
static int wz_solve(const kz_config *cfg, const void *state, int seat, double *values,
                    long max_nodes, long *nodes, char *err, size_t errlen) {
    const wz_state *st = (const wz_state *)state;
    int n = T(cfg)->n;
    *nodes = 0;
    if (st->h.phase != PLAY || st->h.over || st->h.truncated || st->h.current_player < 0) {
        kz_set_err(err, errlen, "the round is not in its play phase");
        return -1;
    }
    if (seat < 0 || seat >= n) {
        kz_set_err(err, errlen, "seat out of range");
        return -1;
    }
    we_world w;
    we_world_of(st, n, &w);
    we_solver S;
    we_solver_of(cfg, st, max_nodes, &S);
    S.nodes = 1; /* the root */
    uint64_t mask[KZ_MASK_WORDS] = {0};
    kz_wizard.legal(cfg, st, mask);
    int nacts = 0, mover = st->h.current_player;
    int32_t sc[KZ_MAX_PLAYERS];
    for (int c = 0; c < WZ_DECK; c++) {
        if (!(mask[c >> 6] >> (c & 63) & 1)) continue;
        if (we_after(&S, &w, mover, c, sc)) {
            *nodes = max_nodes;
            return 0;
        }
        values[nacts++] = (double)sc[seat];
    }
    *nodes = S.nodes;
    if (!nacts) {
        kz_set_err(err, errlen, "the seat to act holds no card");
        return -1;
    }
    return nacts;
}

/* -- the search -------------------------------------------------------------------- */

static int wz_pimc(const kz_config *cfg, const void *state, int seat, const int32_t *actions,
                   int nacts, int worlds, int rollouts, int endgame, kz_random *r, double *values,
                   char *err, size_t errlen) {
    const wz_state *root = (const wz_state *)state;
    if ((size_t)cfg->state_size > WS_STATE_MAX) {
        kz_set_err(err, errlen, "state larger than the search's buffer");
        return -1;
    }
    int round_index = root->h.round_index;
    /* the exact endgame: from `endgame` cards in the hand of the seat to act, each world's
     * rest of the round is solved in place of its play-out - in the play phase, and in the
     * bid phase after the other bids made as the play-out makes them (a bid valued by the
     * round solved with every hand known) */
    int solving = endgame > 0 && (root->h.phase == PLAY || root->h.phase == BID)
                  && kz_popcount64(root->hands[root->h.current_player]) <= endgame;
    int32_t deltas[KZ_MAX_PLAYERS];
    ws_buf world, play;
    ws_estimates memo;
    for (int w = 0; w < worlds; w++) {
        if (determinize(cfg, root, seat, r, &world.s, err, errlen) < 0) return -1;
        memset(&memo.known, 0, sizeof memo.known);
        for (int i = 0; i < nacts; i++) {
            memcpy(play.bytes, world.bytes, (size_t)cfg->state_size);
            kz_wizard.apply(cfg, &play.s, actions[i], deltas);
            double v;
            if (play.s.h.round_index == round_index && !play.s.h.over)
                v = (double)(solving ? solve_round(cfg, &play.s, seat, &memo)
                                     : playout(cfg, &play.s, seat, &memo));
            else /* the action ended the round: its score change */
                v = (double)(play.s.h.totals[seat] - root->h.totals[seat]);
            /* neither the play-out nor the solve draws: every rollout of a world is the same */
            double *out = values + ((size_t)w * nacts + i) * rollouts;
            for (int k = 0; k < rollouts; k++) out[k] = v;
        }
    }
    return 0;
}

const kz_search kz_wizard_search = {"wizard", wz_pimc, wz_solve};
