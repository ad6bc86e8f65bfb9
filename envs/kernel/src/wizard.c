/* Wizard in C: envs/wizard/rules.py and encode.py's default encoder, ported.
 *
 * Why: the batch engine and the search step Wizard millions of times; the
 * Python core costs microseconds a decision, this file a small fraction of
 * one.  The Python core stays the referee: tests/envs/kernel/test_wizard.py
 * plays the same seeds in both and compares every decision (legal mask,
 * seat to act, phase, score deltas, totals, observation float for float).
 *
 * The game (3 to 6 players), as the rule book tells it:
 *
 * Deck.  60 cards: 1..13 in four suits - blue, red, green, yellow - plus
 * four Wizards (highest) and four Jesters (lowest).  Card ids as in Python:
 * suit card suit * 13 + number - 1 (0..51), Wizards 52..55, Jesters 56..59.
 *
 * Rounds.  60 / n rounds; round r (1-based) deals r cards to each player
 * (option `rounds`: only the listed hand sizes).  first_dealer deals the
 * first round, the deal moves one seat left each round; cards are dealt one
 * at a time, starting left of the dealer.
 *
 * Trump.  The top card of the rest is turned: a suit card makes its suit
 * trump, a Jester means no trump, a Wizard lets the dealer choose a suit (a
 * decision).  When no card is left (the last round of a full game) there is
 * no trump.
 *
 * Bidding.  Starting left of the dealer, each player bids 0..r tricks.  With
 * dealer_bid_restriction the dealer, bidding last, may not make the bids
 * add up to r.
 *
 * Play.  Left of the dealer leads the first trick, a trick's winner the
 * next.  Wizards and Jesters may always be played.  The suit to follow is
 * the suit of the first non-Jester card; if that card is a Wizard nothing
 * has to be followed.  Holding the suit to follow, a player must play it
 * (or a Wizard or a Jester).
 *
 * Trick winner.  The first Wizard; else the highest trump; else the highest
 * card of the suit to follow; only Jesters: the first Jester.
 *
 * Score per round.  Bid met exactly: 20 + 10 * tricks; otherwise
 * -10 * |tricks - bid|.  Highest total after the last round wins; equal
 * totals share the win.
 *
 * Actions (WizardGame): 0..59 play that card; 60 + b bid b (0..60/n); then
 * four actions choosing blue, red, green, yellow as trump.
 *
 * Options, in the order envs/wizard/kernel.py's kernel_options gives them:
 *   opt[0] num_players (3..6), opt[1] dealer_bid_restriction (0/1),
 *   opt[2] first_dealer (0..n-1), opt[3] the number of rounds R,
 *   opt[4..] the hand sizes of the R rounds, packed 12 to an int: round k
 *   in bits 5 * (k % 12) of opt[4 + k / 12].
 */
#include "wizard.h"

/* Position (in play order) of the card that wins the trick: the first
 * Wizard; else the highest trump; else the highest card of the suit to
 * follow (first non-Jester); if only Jesters, the first Jester. */
static int trick_winner(const wz_tables *t, const uint8_t *cards, int len, int trump) {
    for (int i = 0; i < len; i++)
        if (cards[i] >= WZ_WIZARD0 && cards[i] < WZ_JESTER0) return i;
    if (trump >= 0) {
        int best = -1;
        for (int i = 0; i < len; i++)
            if (t->card_suit[cards[i]] == trump && (best < 0 || cards[i] > cards[best])) best = i;
        if (best >= 0) return best;
    }
    int lead = -1, best = 0;
    for (int i = 0; i < len; i++) {
        int c = cards[i];
        if (c < WZ_WIZARD0) {
            if (lead < 0) {
                lead = t->card_suit[c];
                best = i;
            } else if (t->card_suit[c] == lead && c > cards[best]) {
                best = i;
            }
        }
    }
    return best; /* only Jesters: position 0, the first Jester */
}

/* -- configure ---------------------------------------------------------------- */

static int wz_configure(kz_config *cfg, const int64_t *opt, int nopt, char *err, size_t errlen) {
    if (nopt < 4) {
        kz_set_err(err, errlen, "wizard: options are num_players, dealer_bid_restriction, "
                                "first_dealer, rounds, hand sizes");
        return -1;
    }
    int64_t n = opt[0], dbr = opt[1], first = opt[2], rounds = opt[3];
    if (n < 3 || n > 6) {
        kz_set_err(err, errlen, "wizard: num_players must be 3..6");
        return -1;
    }
    if (dbr != 0 && dbr != 1) {
        kz_set_err(err, errlen, "wizard: dealer_bid_restriction must be 0 or 1");
        return -1;
    }
    if (first < 0 || first >= n) {
        kz_set_err(err, errlen, "wizard: first_dealer must be 0..num_players-1");
        return -1;
    }
    if (rounds < 1 || rounds > WZ_MAX_ROUNDS) {
        kz_set_err(err, errlen, "wizard: the number of rounds must be 1..336");
        return -1;
    }
    if (nopt != 4 + (rounds + WZ_PACK - 1) / WZ_PACK) {
        kz_set_err(err, errlen, "wizard: wrong number of packed hand sizes");
        return -1;
    }
    memset(cfg->game, 0, sizeof cfg->game);
    wz_tables *t = (wz_tables *)(void *)cfg->game;
    int max_hand = WZ_DECK / (int)n;
    for (int k = 0; k < rounds; k++) {
        int64_t r = (opt[4 + k / WZ_PACK] >> (5 * (k % WZ_PACK))) & 31;
        if (r < 1 || r > max_hand) {
            kz_set_err(err, errlen, "wizard: a hand size must be 1..60/num_players");
            return -1;
        }
        t->round_size[k] = (uint8_t)r;
    }
    t->n = (int32_t)n;
    t->max_hand = max_hand;
    t->h1 = max_hand + 1;
    t->num_rounds = (int32_t)rounds;
    t->first_dealer = (int32_t)first;
    t->dbr = (int32_t)dbr;
    t->bid0 = WZ_DECK;
    t->trump0 = WZ_DECK + max_hand + 1;
    for (int s = 0; s < WZ_SUITS; s++) t->suit_mask[s] = ((1ULL << WZ_NUMBERS) - 1) << (s * WZ_NUMBERS);
    for (int c = 0; c < WZ_DECK; c++) t->card_suit[c] = (int8_t)(c < WZ_WIZARD0 ? c / WZ_NUMBERS : -1);

    int o = 0, nn = (int)n;
    t->o_hand = o;        o += WZ_DECK;
    t->o_trump_suit = o;  o += WZ_SUITS + 1;
    t->o_trump_card = o;  o += WZ_DECK + 1;
    t->o_phase = o;       o += 4;
    t->o_hand_size = o;   o += max_hand;
    t->o_progress = o;    o += 1;
    t->o_dealer = o;      o += nn;
    t->o_bids = o;        o += nn * (max_hand + 1);
    t->o_tricks = o;      o += nn * (max_hand + 1);
    t->o_leader = o;      o += nn;
    t->o_trick = o;       o += nn * WZ_DECK;
    t->o_played = o;      o += WZ_DECK;
    t->o_voids = o;       o += nn * WZ_SUITS;
    t->o_restriction = o; o += 1;
    t->o_scores = o;      o += nn;

    cfg->num_players = (int32_t)n;
    cfg->num_actions = t->trump0 + WZ_SUITS;
    cfg->obs_size = o;
    cfg->num_orders = (int32_t)rounds;
    cfg->order_len = WZ_DECK;
    size_t size = offsetof(wz_state, orders) + (size_t)rounds * WZ_DECK;
    cfg->state_size = (int32_t)((size + 7) & ~(size_t)7);
    for (int i = 0; i < KZ_MAX_OPTIONS; i++) cfg->opt[i] = i < nopt ? opt[i] : 0;
    return 0;
}

/* -- the deal ------------------------------------------------------------------- */

/* WizardGame.deal: one shuffle of the 60 cards (in id order) per round. */
static void wz_deal(const kz_config *cfg, kz_random *r, uint8_t *orders) {
    for (int k = 0; k < T(cfg)->num_rounds; k++) {
        uint8_t *o = orders + k * WZ_DECK;
        for (int c = 0; c < WZ_DECK; c++) o[c] = (uint8_t)c;
        kz_shuffle(r, o, WZ_DECK);
    }
}

/* WizardState.start_round: deal round `r` from its deck order and open it;
 * totals and the decision count stay. */
static void start_round(const wz_tables *t, wz_state *s, int r) {
    int n = t->n;
    int hs = t->round_size[r];
    int dealer = (t->first_dealer + r) % n;
    const uint8_t *order = s->orders + r * WZ_DECK;
    s->h.round_index = r;
    s->hand_size = (int8_t)hs;
    s->dealer = (int8_t)dealer;
    /* one card at a time, starting left of the dealer */
    memset(s->hands, 0, sizeof s->hands);
    int seat = (dealer + 1) % n;
    for (int k = 0; k < n * hs; k++) {
        s->hands[seat] |= 1ULL << order[k];
        if (++seat == n) seat = 0;
    }
    memset(s->bids, -1, sizeof s->bids);
    memset(s->tricks_won, 0, sizeof s->tricks_won);
    memset(s->voids, 0, sizeof s->voids);
    memset(s->trick, 0, sizeof s->trick);
    s->played = 0;
    s->trick_len = 0;
    s->leader = (int8_t)((dealer + 1) % n);
    s->follow = LEAD_NONE;
    /* the turned card: suit -> trump, Jester -> none, Wizard -> the dealer chooses */
    if (n * hs < WZ_DECK) {
        int c = order[n * hs];
        s->trump_card = (int8_t)c;
        s->trump = (int8_t)(c >= WZ_JESTER0 ? NO_TRUMP : c >= WZ_WIZARD0 ? TRUMP_PENDING : t->card_suit[c]);
    } else { /* last round: no card left to turn */
        s->trump_card = -1;
        s->trump = NO_TRUMP;
    }
    if (s->trump == TRUMP_PENDING) {
        s->h.phase = CHOOSE_TRUMP;
        s->h.current_player = dealer;
    } else {
        s->h.phase = BID;
        s->h.current_player = (dealer + 1) % n;
    }
}

static int wz_start(const kz_config *cfg, void *state, const uint8_t *orders, char *err,
                    size_t errlen) {
    const wz_tables *t = T(cfg);
    for (int k = 0; k < t->num_rounds; k++) {
        uint64_t seen = 0;
        for (int i = 0; i < WZ_DECK; i++) {
            int c = orders[k * WZ_DECK + i];
            if (c >= WZ_DECK || (seen >> c & 1)) {
                kz_set_err(err, errlen, "wizard: a deck order must hold each of the 60 cards "
                                        "in play once");
                return -1;
            }
            seen |= 1ULL << c;
        }
    }
    wz_state *s = (wz_state *)state;
    memset(s, 0, (size_t)cfg->state_size);
    memcpy(s->orders, orders, (size_t)t->num_rounds * WZ_DECK);
    start_round(t, s, 0);
    return 0;
}

/* -- the checks ------------------------------------------------------------------ */

#define BAD(msg)                                           \
    do {                                                   \
        kz_set_err(err, errlen, "wizard state: " msg);     \
        return -1;                                         \
    } while (0)

/* Every field legal/apply/encode index with, in range; and the card counts of
 * a real game (hands disjoint, sizes matching the tricks played, tricks won
 * at most the hand size), so that apply cannot take a state out of range
 * either.  Of the deck orders only the next round's is read (the one apply
 * may deal): a later one is checked in its turn, a dealt one never read. */
static int wz_valid(const kz_config *cfg, const void *state, char *err, size_t errlen) {
    const wz_tables *t = T(cfg);
    const wz_state *s = (const wz_state *)state;
    int n = t->n;
    int phase = s->h.phase;
    if (phase < CHOOSE_TRUMP || phase > GAME_OVER) BAD("phase out of range");
    if (s->h.over < 0 || s->h.over > 1 || s->h.truncated < 0 || s->h.truncated > 1)
        BAD("over/truncated must be 0 or 1");
    if ((phase == GAME_OVER) != (s->h.over || s->h.truncated))
        BAD("phase game_over exactly when the game is over");
    if (phase == GAME_OVER ? s->h.current_player != -1
                           : (s->h.current_player < 0 || s->h.current_player >= n))
        BAD("current_player out of range");
    if (s->h.round_index < 0 || s->h.round_index >= t->num_rounds) BAD("round_index out of range");
    if (s->h.decisions < 0 || s->h.decisions > (1 << 30)) BAD("decisions out of range");
    for (int p = 0; p < n; p++)
        if (s->h.totals[p] < -(1 << 30) || s->h.totals[p] > (1 << 30)) BAD("totals out of range");
    int hs = s->hand_size;
    if (hs != t->round_size[s->h.round_index]) BAD("hand_size is not the round's");
    if (s->dealer != (t->first_dealer + s->h.round_index) % n) BAD("dealer is not the round's");
    if (s->trump < TRUMP_PENDING || s->trump >= WZ_SUITS) BAD("trump out of range");
    if ((phase == CHOOSE_TRUMP) != (s->trump == TRUMP_PENDING)) BAD("trump pending outside choose_trump");
    if (s->trump_card < -1 || s->trump_card >= WZ_DECK) BAD("trump_card out of range");
    if (s->follow < LEAD_FREE || s->follow >= WZ_SUITS) BAD("follow out of range");
    if (s->leader < 0 || s->leader >= n) BAD("trick leader out of range");
    if (s->trick_len < 0 || s->trick_len > n) BAD("trick length out of range");
    for (int i = 0; i < s->trick_len; i++)
        if (s->trick[i] >= WZ_DECK) BAD("trick card out of range");
    int done = 0;
    uint64_t seen = s->played;
    if (seen & ~WZ_FULL) BAD("played cards out of range");
    for (int p = 0; p < n; p++) {
        if (s->bids[p] < -1 || s->bids[p] > hs) BAD("bid out of range");
        if (s->tricks_won[p] > hs) BAD("tricks_won out of range");
        if (s->voids[p] >= 1 << WZ_SUITS) BAD("voids out of range");
        if (s->hands[p] & (seen | ~WZ_FULL)) BAD("hand overlaps another or out of range");
        seen |= s->hands[p];
        done += s->tricks_won[p];
    }
    /* the hand sizes: hand_size less the tricks done, less one for a card in this trick */
    if (phase == PLAY) {
        if (s->trick_len >= n || done >= hs) BAD("trick or tricks_won out of range in play");
        if (s->h.current_player != (s->leader + s->trick_len) % n) BAD("current_player is not the trick's");
        for (int p = 0; p < n; p++) {
            int pos = (p - s->leader + n) % n;
            if (kz_popcount64(s->hands[p]) != hs - done - (pos < s->trick_len))
                BAD("hand size does not match the tricks played");
        }
    } else if (phase == GAME_OVER) {
        if (done > hs) BAD("tricks_won out of range");
        for (int p = 0; p < n; p++)
            if (s->hands[p]) BAD("cards in hand after the game");
    } else {
        if (s->trick_len || done) BAD("a trick before play");
        for (int p = 0; p < n; p++)
            if (kz_popcount64(s->hands[p]) != hs) BAD("hand size is not the round's");
    }
    /* the next round's deck order (start_round shifts by its bytes; a later
     * round's is checked here before its turn comes): a byte b >= 60 has
     * bit 7 set in b | (b + 68), eight bytes at a time (a carry out of one
     * byte only follows a byte that is itself >= 188) */
    uint64_t bad = 0;
    if (s->h.round_index + 1 < t->num_rounds) {
        const uint8_t *o = s->orders + (s->h.round_index + 1) * WZ_DECK;
        uint64_t w;
        uint32_t h;
        for (int i = 0; i < 56; i += 8) {
            memcpy(&w, o + i, 8);
            bad |= (w | (w + 0x4444444444444444ULL)) & 0x8080808080808080ULL;
        }
        memcpy(&h, o + 56, 4);
        bad |= (h | (h + 0x44444444U)) & 0x80808080U;
    }
    if (bad) BAD("deck order card out of range");
    return 0;
}

/* -- the rules ---------------------------------------------------------------------- */

static void wz_legal(const kz_config *cfg, const void *state, uint64_t *mask) {
    const wz_tables *t = T(cfg);
    const wz_state *s = (const wz_state *)state;
    mask[0] = mask[1] = 0;
    switch (s->h.phase) {
    case PLAY: {
        /* follow suit if you can; Wizards and Jesters always */
        uint64_t hand = s->hands[s->h.current_player];
        if (s->follow >= 0) {
            uint64_t same = hand & t->suit_mask[s->follow];
            if (same) hand = same | (hand & WZ_FREE);
        }
        mask[0] = hand;
        break;
    }
    case BID: {
        /* bids 0..hand_size; under the restriction the dealer may not make
         * the bids add up to the hand size (the dealer's own -1 counted) */
        int hs = s->hand_size, forbidden = -1;
        if (t->dbr && s->h.current_player == s->dealer) {
            int sum = 0;
            for (int p = 0; p < t->n; p++) sum += s->bids[p];
            int rest = hs - sum - 1;
            if (rest >= 0 && rest <= hs) forbidden = rest;
        }
        for (int b = 0; b <= hs; b++) {
            if (b == forbidden) continue;
            int a = t->bid0 + b;
            mask[a >> 6] |= 1ULL << (a & 63);
        }
        break;
    }
    case CHOOSE_TRUMP:
        for (int k = 0; k < WZ_SUITS; k++) {
            int a = t->trump0 + k;
            mask[a >> 6] |= 1ULL << (a & 63);
        }
        break;
    default:
        break;
    }
}

/* the round is over: score it, deal the next or end the game */
static int score_round(const wz_tables *t, wz_state *s, int32_t *deltas) {
    int n = t->n;
    for (int p = 0; p < n; p++) {
        int d = wz_round_score(s->bids[p], s->tricks_won[p]);
        s->h.totals[p] += d;
        deltas[p] = d;
    }
    if (s->h.round_index + 1 < t->num_rounds) {
        start_round(t, s, s->h.round_index + 1);
        return KZ_DELTAS;
    }
    s->h.over = 1;
    s->h.phase = GAME_OVER;
    s->h.current_player = -1;
    return KZ_DELTAS | KZ_OVER;
}

static int wz_apply(const kz_config *cfg, void *state, int action, int32_t *deltas) {
    const wz_tables *t = T(cfg);
    wz_state *s = (wz_state *)state;
    int n = t->n;
    int seat = s->h.current_player;
    s->h.decisions++;
    switch (s->h.phase) {
    case PLAY: {
        int card = action;
        s->hands[seat] ^= 1ULL << card;
        s->played |= 1ULL << card;
        int suit = t->card_suit[card];
        if (s->follow >= 0) {
            if (suit >= 0 && suit != s->follow)
                s->voids[seat] |= (uint8_t)(1 << s->follow); /* showed out of the suit to follow */
        } else if (s->follow == LEAD_NONE && card < WZ_JESTER0) {
            /* the first non-Jester sets the suit; a Wizard frees the trick */
            s->follow = (int8_t)(card >= WZ_WIZARD0 ? LEAD_FREE : suit);
        }
        s->trick[s->trick_len++] = (uint8_t)card;
        if (s->trick_len < n) {
            s->h.current_player = seat + 1 == n ? 0 : seat + 1;
            return 0;
        }
        int winner = (s->leader + trick_winner(t, s->trick, n, s->trump)) % n;
        s->tricks_won[winner]++;
        if (s->hands[winner]) { /* the winner leads the next trick */
            s->leader = (int8_t)winner;
            s->trick_len = 0;
            s->follow = LEAD_NONE;
            s->h.current_player = winner;
            return 0;
        }
        return score_round(t, s, deltas);
    }
    case BID:
        s->bids[seat] = (int8_t)(action - t->bid0);
        if (seat == s->dealer) { /* the dealer bids last; left of the dealer leads */
            s->h.phase = PLAY;
            s->h.current_player = s->leader;
        } else {
            s->h.current_player = seat + 1 == n ? 0 : seat + 1;
        }
        return 0;
    case CHOOSE_TRUMP:
        s->trump = (int8_t)(action - t->trump0);
        s->h.phase = BID;
        s->h.current_player = (s->dealer + 1) % n;
        return 0;
    default:
        return 0;
    }
}

/* -- the observation (WizardEncoder.encode) ------------------------------------------- */

/* the 60 bits of a card set as 0/1 floats, four at a time */
static const float NIBBLE[16][4] = {
    {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {1, 0, 1, 0},
    {0, 1, 1, 0}, {1, 1, 1, 0}, {0, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}, {1, 1, 0, 1},
    {0, 0, 1, 1}, {1, 0, 1, 1}, {0, 1, 1, 1}, {1, 1, 1, 1},
};

static void put_bits(float *out, uint64_t cards) {
    for (int c = 0; c < WZ_DECK; c += 4) memcpy(out + c, NIBBLE[cards >> c & 15], sizeof NIBBLE[0]);
}

static void wz_encode(const kz_config *cfg, const void *state, int seat, float *out) {
    const wz_tables *t = T(cfg);
    const wz_state *s = (const wz_state *)state;
    int n = t->n, h1 = t->h1, phase = s->h.phase;
    memset(out, 0, (size_t)cfg->obs_size * sizeof(float));
    put_bits(out + t->o_hand, s->hands[seat]);
    put_bits(out + t->o_played, s->played);
    if (s->trump != TRUMP_PENDING)
        out[t->o_trump_suit + (s->trump != NO_TRUMP ? s->trump : WZ_SUITS)] = 1.0f;
    out[t->o_trump_card + (s->trump_card >= 0 ? s->trump_card : WZ_DECK)] = 1.0f;
    out[t->o_phase + phase] = 1.0f;
    if (phase != GAME_OVER) out[t->o_hand_size + s->hand_size - 1] = 1.0f;
    out[t->o_progress] =
        (float)((double)(s->h.round_index + (phase == GAME_OVER)) / (double)t->num_rounds);
    out[t->o_dealer + (s->dealer - seat + n) % n] = 1.0f;
    for (int rel = 0, a = seat; rel < n; rel++, a = a + 1 == n ? 0 : a + 1) {
        if (s->bids[a] >= 0) out[t->o_bids + rel * h1 + s->bids[a]] = 1.0f;
        out[t->o_tricks + rel * h1 + s->tricks_won[a]] = 1.0f;
        int v = s->voids[a];
        for (int suit = 0; suit < WZ_SUITS; suit++)
            if (v >> suit & 1) out[t->o_voids + rel * WZ_SUITS + suit] = 1.0f;
        out[t->o_scores + rel] = (float)((double)s->h.totals[a] / 100.0);
    }
    out[t->o_leader + (s->leader - seat + n) % n] = 1.0f;
    for (int i = 0; i < s->trick_len; i++) {
        int rel = (s->leader + i - seat + 2 * n) % n;
        out[t->o_trick + rel * WZ_DECK + s->trick[i]] = 1.0f;
    }
    out[t->o_restriction] = (float)t->dbr;
}

/* GameState.winners(): the highest total; equal totals share the win */
static void wz_win_share(const kz_config *cfg, const void *state, double *share) {
    const wz_state *s = (const wz_state *)state;
    int n = T(cfg)->n, best = s->h.totals[0], k = 0;
    for (int p = 1; p < n; p++)
        if (s->h.totals[p] > best) best = s->h.totals[p];
    for (int p = 0; p < n; p++) k += s->h.totals[p] == best;
    for (int p = 0; p < n; p++) share[p] = s->h.totals[p] == best ? 1.0 / k : 0.0;
}

const kz_game kz_wizard = {
    "wizard", wz_configure, wz_deal, wz_start, wz_valid, wz_legal, wz_apply, wz_encode,
    wz_win_share,
};
