/* Hoch & Tief ("high & low") in C: the rules core of envs/hoch_tief/rules.py
 * and the default observation of envs/hoch_tief/encode.py, for the kernel.
 *
 * Why: the batch engine and the search step this game millions of times;
 * the Python core costs microseconds a decision, this file a small part of
 * one.  The Python core stays the referee: tests/envs/kernel/
 * test_hoch_tief.py plays both side by side, decision for decision and
 * observation float for float.
 *
 * The game (3 to 6 players), as the rule book (envs/hoch_tief/rules.md) says:
 *  - Five suits A..E, numbered 1..3n (n players), so that every player gets
 *    15 cards; all cards in use are dealt.  Card id = suit * 3n + number - 1.
 *  - n rounds by default (option `rounds`); seat `first_dealer` deals the
 *    first, the deal moves one seat left every round.  Cards are dealt one
 *    at a time starting left of the dealer; that player leads first.
 *  - You must follow the led suit if you can; if you cannot, play any card.
 *  - When everyone has played, only numbers count: the highest card is the
 *    highest number (among equal numbers the one played last), the lowest
 *    card the lowest number (among equal numbers the one played last).
 *    The player of the lowest card takes the highest card; the player of
 *    the highest card takes all the other cards and leads the next trick.
 *    All cards equal: the last card is both, its player takes the trick.
 *  - Taken cards lie face up.  At the end of a round, per suit: 1 or 2
 *    taken cards score their printed numbers, 3 or more score 1 point each.
 *  - After the last round the highest total wins; equal totals share.
 *
 * Representation: a set of cards (a hand, a seat's taken cards) is a mask
 * over card ids in two 64-bit words (at most 90 cards), as the legal mask
 * is; a suit is a precomputed mask, so "the cards of the led suit" is two
 * ANDs and a suit's score a popcount.  The observation's card pieces are
 * written straight from the masks, four floats per nibble.
 */
#include "hoch_tief.h"

static void add_card(uint64_t *mask, int c) { mask[c >> 6] |= (uint64_t)1 << (c & 63); }

/* -- configure ----------------------------------------------------------------- */

static int ht_configure(kz_config *cfg, const int64_t *opt, int nopt, char *err, size_t errlen) {
    if (nopt != OPT_COUNT) {
        kz_set_err(err, errlen, "hoch_tief: 3 options needed (num_players, rounds, first_dealer)");
        return -1;
    }
    int64_t n = opt[OPT_PLAYERS], rounds = opt[OPT_ROUNDS], fd = opt[OPT_FIRST_DEALER];
    if (n < 3 || n > 6) {
        kz_set_err(err, errlen, "hoch_tief: num_players must lie in 3..6");
        return -1;
    }
    if (rounds < 1 || rounds > HT_MAX_ROUNDS) {
        kz_set_err(err, errlen, "hoch_tief: rounds must lie in 1..50");
        return -1;
    }
    if (fd < 0 || fd >= n) {
        kz_set_err(err, errlen, "hoch_tief: first_dealer must be a seat");
        return -1;
    }
    typedef char tables_fit_kz_config_game[sizeof(ht_tables) <= sizeof(cfg->game) ? 1 : -1];
    (void)sizeof(tables_fit_kz_config_game);
    ht_tables *t = (ht_tables *)cfg->game;
    memset(t, 0, sizeof *t);
    t->n = (int32_t)n;
    t->m = 3 * t->n;
    t->size = HT_SUITS * t->m;
    t->rounds = (int32_t)rounds;
    t->first_dealer = (int32_t)fd;
    for (int i = 0; i < 2 * t->n; i++) t->mod[i] = i % t->n;
    /* card id = suit * 3n + number - 1 */
    for (int c = 0; c < t->size; c++) {
        t->suit[c] = (uint8_t)(c / t->m);
        t->number[c] = (uint8_t)(c % t->m + 1);
        add_card(t->suit_mask[c / t->m], c);
        add_card(t->deck_mask, c);
    }
    int size = t->size, np = t->n, off = 0;
    t->o_hand = off; off += size;
    t->o_phase = off; off += 2;
    t->o_round = off; off += 1;
    t->o_trick_progress = off; off += 1;
    t->o_dealer = off; off += np;
    t->o_leader = off; off += np;
    t->o_led = off; off += HT_SUITS;
    t->o_current = off; off += np * size;
    t->o_taken = off; off += np * size;
    t->o_taken_score = off; off += np;
    t->o_played = off; off += size;
    t->o_voids = off; off += np * HT_SUITS;
    t->o_scores = off; off += np;
    t->obs_size = off;

    cfg->num_players = t->n;
    cfg->num_actions = size;
    cfg->obs_size = off;
    cfg->num_orders = t->rounds;
    cfg->order_len = size;
    /* the orders trail the struct; rounded up to 8 bytes so rows stay aligned */
    cfg->state_size = (int32_t)((sizeof(ht_state) + (size_t)(t->rounds * size) + 7) & ~(size_t)7);
    return 0;
}

/* -- the deal ------------------------------------------------------------------ */

/* Game.deal: one shuffle of the card ids 0..15n-1 per round, drawn up front. */
static void ht_deal(const kz_config *cfg, kz_random *r, uint8_t *orders) {
    const ht_tables *t = tables(cfg);
    for (int k = 0; k < t->rounds; k++) {
        uint8_t *o = orders + k * t->size;
        for (int c = 0; c < t->size; c++) o[c] = (uint8_t)c;
        kz_shuffle(r, o, t->size);
    }
}

/* start_round: deal round `round` from its deck order (every card, one at a
 * time, starting left of the dealer); that player leads the first trick. */
static void start_round(const ht_tables *t, ht_state *s, int round) {
    int n = t->n;
    s->h.round_index = round;
    s->dealer = (t->first_dealer + round) % n;
    memset(s->hand, 0, sizeof s->hand);
    memset(s->taken, 0, sizeof s->taken);
    memset(s->score, 0, sizeof s->score);
    memset(s->voids, 0, sizeof s->voids);
    const uint8_t *order = s->orders + round * t->size;
    int p = t->mod[s->dealer + 1];
    for (int k = 0; k < t->size; k++) {
        add_card(s->hand[p], order[k]);
        if (++p == n) p = 0;
    }
    s->tricks_played = 0;
    s->leader = t->mod[s->dealer + 1];
    s->ntrick = 0;
    s->h.current_player = s->leader;
}

static int ht_start(const kz_config *cfg, void *state, const uint8_t *orders, char *err,
                    size_t errlen) {
    const ht_tables *t = tables(cfg);
    /* Game.checked_orders: every order holds each card in play once */
    for (int k = 0; k < t->rounds; k++) {
        uint8_t seen[HT_MAX_CARDS];
        memset(seen, 0, sizeof seen);
        const uint8_t *o = orders + k * t->size;
        for (int i = 0; i < t->size; i++) {
            if (o[i] >= t->size || seen[o[i]]) {
                kz_set_err(err, errlen, "hoch_tief: a deck order must hold each card in play once");
                return -1;
            }
            seen[o[i]] = 1;
        }
    }
    ht_state *s = (ht_state *)state;
    memset(s, 0, (size_t)cfg->state_size);
    memcpy(s->orders, orders, (size_t)(t->rounds * t->size));
    s->h.phase = PLAY;
    start_round(t, s, 0);
    return 0;
}

/* -- checking a state ---------------------------------------------------------- */

static int bad(char *err, size_t errlen, const char *msg) {
    kz_set_err(err, errlen, msg);
    return -1;
}

/* 1 when some byte of o[0..len) is >= size (size < 128): bytes >= 128 show
 * their top bit, and b + (128 - size) reaches 128 exactly when b >= size. */
static int any_byte_at_least(const uint8_t *o, int len, int size) {
    const uint64_t top = 0x8080808080808080ULL;
    const uint64_t add = 0x0101010101010101ULL * (uint64_t)(128 - size);
    uint64_t acc = 0;
    int i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, o + i, 8);
        acc |= w | ((w & ~top) + add);
    }
    for (; i < len; i++) acc |= o[i] >= size ? top : 0;
    return (acc & top) != 0;
}

static int ht_valid(const kz_config *cfg, const void *state, char *err, size_t errlen) {
    const ht_tables *t = tables(cfg);
    const ht_state *s = (const ht_state *)state;
    int n = t->n;
    if (s->h.phase != PLAY && s->h.phase != GAME_OVER) return bad(err, errlen, "hoch_tief: bad phase");
    if (s->h.over != (s->h.phase == GAME_OVER)) return bad(err, errlen, "hoch_tief: bad over");
    if (s->h.truncated != 0) return bad(err, errlen, "hoch_tief: bad truncated");
    if (s->h.phase == PLAY ? (s->h.current_player < 0 || s->h.current_player >= n)
                           : s->h.current_player != -1)
        return bad(err, errlen, "hoch_tief: bad current_player");
    if (s->h.round_index < 0 || s->h.round_index >= t->rounds)
        return bad(err, errlen, "hoch_tief: bad round_index");
    if (s->h.decisions < 0 || s->h.decisions > (1 << 30))
        return bad(err, errlen, "hoch_tief: bad decisions");
    for (int p = 0; p < n; p++)  /* a round adds at most 5 x 35 */
        if (s->h.totals[p] < -(1 << 30) || s->h.totals[p] > (1 << 30))
            return bad(err, errlen, "hoch_tief: bad totals");
    if (s->dealer < 0 || s->dealer >= n) return bad(err, errlen, "hoch_tief: bad dealer");
    if (s->leader < 0 || s->leader >= n) return bad(err, errlen, "hoch_tief: bad trick leader");
    if (s->tricks_played < 0 || s->tricks_played > HT_HAND)
        return bad(err, errlen, "hoch_tief: bad tricks_played");
    /* in play a trick is never complete (it is resolved at once); after the
     * game the last trick stays, complete */
    if (s->h.phase == PLAY ? (s->ntrick < 0 || s->ntrick >= n) : s->ntrick != n)
        return bad(err, errlen, "hoch_tief: bad trick length");
    for (int i = 0; i < s->ntrick; i++)
        if (s->trick[i] >= t->size) return bad(err, errlen, "hoch_tief: bad trick card");
    uint64_t cards[W] = {0, 0};
    uint32_t voids = 0;
    for (int p = 0; p < n; p++) {
        voids |= s->voids[p];
        for (int w = 0; w < W; w++) cards[w] |= s->hand[p][w] | s->taken[p][w];
    }
    if (voids >> HT_SUITS) return bad(err, errlen, "hoch_tief: bad voids");
    if ((cards[0] & ~t->deck_mask[0]) | (cards[1] & ~t->deck_mask[1]))
        return bad(err, errlen, "hoch_tief: bad card in a hand or taken");
    /* the deck orders of the rounds still to deal */
    int next = s->h.round_index + 1;
    if (next < t->rounds &&
        any_byte_at_least(s->orders + next * t->size, (t->rounds - next) * t->size, t->size))
        return bad(err, errlen, "hoch_tief: bad card in a deck order");
    return 0;
}

/* -- legal actions --------------------------------------------------------------- */

/* Follow the led suit if you can; if you cannot (or you lead), any card. */
static void ht_legal(const kz_config *cfg, const void *state, uint64_t *mask) {
    const ht_tables *t = tables(cfg);
    const ht_state *s = (const ht_state *)state;
    mask[0] = mask[1] = 0;
    if (s->h.phase != PLAY) return;
    const uint64_t *hand = s->hand[s->h.current_player];
    mask[0] = hand[0];
    mask[1] = hand[1];
    if (s->ntrick) {
        const uint64_t *follow = t->suit_mask[t->suit[s->trick[0]]];
        uint64_t a = hand[0] & follow[0], b = hand[1] & follow[1];
        if (a | b) {
            mask[0] = a;
            mask[1] = b;
        }
    }
}

/* -- apply ------------------------------------------------------------------------- */

static int ht_apply(const kz_config *cfg, void *state, int card, int32_t *deltas) {
    const ht_tables *t = tables(cfg);
    ht_state *s = (ht_state *)state;
    int n = t->n;
    int seat = s->h.current_player;
    s->h.decisions++;
    s->hand[seat][card >> 6] ^= (uint64_t)1 << (card & 63);
    if (s->ntrick) {
        int led = t->suit[s->trick[0]];
        if (t->suit[card] != led) s->voids[seat] |= (uint8_t)(1u << led);  /* showed out */
    }
    s->trick[s->ntrick++] = (uint8_t)card;
    if (s->ntrick < n) {
        s->h.current_player = t->mod[seat + 1];
        return 0;
    }
    /* The trick is complete: suits no longer matter.  Highest and lowest
     * number; among equal numbers the card played last counts (>=, <=). */
    int hi = 0, lo = 0;
    int top = t->number[s->trick[0]], low = top;
    for (int i = 1; i < n; i++) {
        int v = t->number[s->trick[i]];
        if (v >= top) { hi = i; top = v; }
        if (v <= low) { lo = i; low = v; }
    }
    int high_seat = t->mod[s->leader + hi];
    int low_seat = t->mod[s->leader + lo];
    /* the player of the lowest card takes the highest card; the player of
     * the highest card all the others (the same seat when all are equal) */
    for (int i = 0; i < n; i++) add_card(s->taken[i == hi ? low_seat : high_seat], s->trick[i]);
    s->score[low_seat] = ht_score_taken(t, s->taken[low_seat]);
    s->score[high_seat] = ht_score_taken(t, s->taken[high_seat]);
    s->tricks_played++;
    if (s->hand[high_seat][0] | s->hand[high_seat][1]) {  /* the highest card leads next */
        s->leader = high_seat;
        s->ntrick = 0;
        s->h.current_player = high_seat;
        return 0;
    }
    /* the round is over: the taken cards score */
    for (int p = 0; p < n; p++) {
        deltas[p] = s->score[p];
        s->h.totals[p] += s->score[p];
    }
    if (s->h.round_index + 1 < t->rounds) {  /* the deal moves one seat left */
        start_round(t, s, s->h.round_index + 1);
        return KZ_DELTAS;
    }
    s->h.over = 1;  /* after the last round the highest total wins */
    s->h.phase = GAME_OVER;
    s->h.current_player = -1;
    return KZ_DELTAS | KZ_OVER;
}

/* -- the observation ------------------------------------------------------------------ */

/* bit j of a nibble as 4 floats */
static const float NIB[16][4] = {
    {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0},
    {0, 0, 1, 0}, {1, 0, 1, 0}, {0, 1, 1, 0}, {1, 1, 1, 0},
    {0, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}, {1, 1, 0, 1},
    {0, 0, 1, 1}, {1, 0, 1, 1}, {0, 1, 1, 1}, {1, 1, 1, 1},
};

/* out[c] = 1.0 or 0.0 for every card c < 15n of a mask (no memset first),
 * four floats at a time: up to 3 zeroes land past the end, so the piece
 * after it must be written after it. */
static void put_dense(const ht_tables *t, float *out, const uint64_t *mask) {
    int k = 0;
    for (int w = 0; w < W && k < t->size; w++) {
        uint64_t x = mask[w];
        for (int j = 0; j < 16 && k < t->size; j++, k += 4) {
            memcpy(out + k, NIB[x & 15], sizeof NIB[0]);
            x >>= 4;
        }
    }
}

/* HochTiefEncoder.encode: seats relative to the observer (0 = me).  The
 * pieces are written in layout order (see put_dense); the sparse ones
 * (phase .. current_trick) are cleared first. */
static void ht_encode(const kz_config *cfg, const void *state, int seat, float *out) {
    const ht_tables *t = tables(cfg);
    const ht_state *s = (const ht_state *)state;
    int n = t->n, size = t->size;
    put_dense(t, out + t->o_hand, s->hand[seat]);
    memset(out + t->o_phase, 0, sizeof(float) * (size_t)(t->o_taken - t->o_phase));
    out[t->o_phase + s->h.phase] = 1.0f;
    out[t->o_round] =
        (float)((double)(s->h.round_index + (s->h.phase == GAME_OVER)) / (double)t->rounds);
    out[t->o_trick_progress] = (float)((double)s->tricks_played / (double)HT_HAND);
    out[t->o_dealer + t->mod[s->dealer - seat + n]] = 1.0f;
    int lead = t->mod[s->leader - seat + n];
    out[t->o_leader + lead] = 1.0f;
    uint64_t played[W] = {0, 0};
    if (s->ntrick) out[t->o_led + t->suit[s->trick[0]]] = 1.0f;
    for (int i = 0; i < s->ntrick; i++) {
        int c = s->trick[i];
        out[t->o_current + t->mod[lead + i] * size + c] = 1.0f;
        add_card(played, c);
    }
    for (int rel = 0; rel < n; rel++) {
        const uint64_t *tk = s->taken[t->mod[seat + rel]];
        put_dense(t, out + t->o_taken + rel * size, tk);
        played[0] |= tk[0];
        played[1] |= tk[1];
    }
    for (int rel = 0; rel < n; rel++)
        out[t->o_taken_score + rel] = (float)((double)s->score[t->mod[seat + rel]] / 100.0);
    put_dense(t, out + t->o_played, played);  /* every card played this round */
    for (int rel = 0; rel < n; rel++) {
        int a = t->mod[seat + rel];
        uint32_t v = s->voids[a];
        float *o = out + t->o_voids + rel * HT_SUITS;
        for (int su = 0; su < HT_SUITS; su++) o[su] = (float)(v >> su & 1);
        out[t->o_scores + rel] = (float)((double)s->h.totals[a] / 100.0);
    }
}

/* GameState.winners: the highest total wins; equal totals share. */
static void ht_win_share(const kz_config *cfg, const void *state, double *share) {
    const ht_tables *t = tables(cfg);
    const ht_state *s = (const ht_state *)state;
    int32_t best = s->h.totals[0];
    for (int p = 1; p < t->n; p++)
        if (s->h.totals[p] > best) best = s->h.totals[p];
    int k = 0;
    for (int p = 0; p < t->n; p++) k += s->h.totals[p] == best;
    for (int p = 0; p < t->n; p++) share[p] = s->h.totals[p] == best ? 1.0 / k : 0.0;
}

const kz_game kz_hoch_tief = {
    "hoch_tief",
    ht_configure,
    ht_deal,
    ht_start,
    ht_valid,
    ht_legal,
    ht_apply,
    ht_encode,
    ht_win_share,
};
