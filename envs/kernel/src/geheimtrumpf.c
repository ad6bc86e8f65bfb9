/* Geheimtrumpf - the rules and the observation's plain pieces, in C.
 *
 * Why: the batch engine and the search step a Geheimtrumpf state hundreds
 * of thousands of times a second; the Python core (envs/geheimtrumpf/
 * rules.py) costs microseconds a decision.  This file is the same rules,
 * decision for decision, and the same observation (encode.py's `encode`),
 * float for float; the Python core stays the referee
 * (tests/envs/kernel/test_geheimtrumpf.py plays both side by side).
 * The reading pieces of the observation (reading.py, chances.py,
 * steering.py) live in geheimtrumpf_reading.c; encode calls it.
 *
 * The rules, as the rule book tells them (3 or 4 players):
 *
 * Cards.  36 number cards, Ace (1, lowest) .. 9 in hearts, diamonds,
 * spades, clubs; id suit * 9 + value - 1.  The trumps are drawn from two
 * stacks that are part of every round's deck order: the trump-suit stack
 * (10H 10D 10S 10C JK, ids 36..40; joker: no trump suit) and the trump-
 * value stack (V1..V9 VJK, ids 41..50; joker: no trump value).  The bottom
 * card of each stack (order[40], order[50]) fixes this round's trumps.
 *
 * Tasks (0..10): no trick, exactly 1, 2, 3 tricks, most tricks (more than
 * every other), fewest tricks (fewer than every other), the last trick, no
 * heart / diamond / spade / club among the cards of one's tricks.  A task
 * may be held by at most two players.
 *
 * Task draft (once, at game start): from the first start player, clockwise
 * round after round, each picks a task until everyone holds four.
 *
 * A round (the start player moves one seat left every round):
 *  1. Card draft: the 36 cards lie face up in 9 rows of 4 (3 players: the
 *     4th card of each row is set aside face down).  Left of the start
 *     player chooses first in row 1, then clockwise; first choice moves
 *     one seat left each row.  Each finished row is judged as a trick led
 *     by the first chooser's card and its winner is announced.  Only the
 *     start player knows the trumps until the draft is over.
 *  2. Task choice: everyone but the start player, clockwise from the start
 *     player's left, secretly picks one unchecked task.
 *  3. Nine tricks, left of the start player leads the first, the winner
 *     the next.  Trumps are the trump-suit cards and every card of the
 *     trump value (which then has no printed suit in play): each card has
 *     one effective suit, TRUMP or its printed suit, which must be
 *     followed if possible.  Ranking: the trump value in the trump suit
 *     (Obertrumpf); the other trump-value cards (equal: the first played
 *     wins); the trump suit 9..A; the highest card of the led suit.
 *  4. Check-off: each chooser who met their task checks it off.  The start
 *     player, if their own result meets a task another player chose and
 *     missed, checks off one of their own unchecked tasks (a decision).
 * Game end: after a round, every player with four tasks checked wins; with
 * no winner after round_limit rounds the game is truncated.
 *
 * Options (envs/geheimtrumpf/kernel.py): [num_players, round_limit,
 * first_start].
 */
#include "geheimtrumpf.h"

/* The reading pieces come from geheimtrumpf_reading.c; these do nothing when
 * that file is not linked in. */
__attribute__((weak)) void gt_write_reading(const kz_config *cfg, const gt_state *s, int seat,
                                            float *out) {
    (void)cfg; (void)s; (void)seat; (void)out;
}
__attribute__((weak)) void gt_configure_reading(kz_config *cfg) { (void)cfg; }

/* the cards of each value (all four suits) */
static uint64_t value_mask(int value) {
    uint64_t m = 0;
    if (value >= 1)
        for (int s = 0; s < GT_SUITS; s++) m |= 1ULL << (s * GT_VALUES + value - 1);
    return m;
}

static gt_tables *tables_mut(kz_config *cfg) { return (gt_tables *)(void *)cfg->game; }

static size_t state_bytes(int round_limit) {
    size_t b = offsetof(gt_state, orders) + (size_t)round_limit * GT_DECK;
    return (b + 7) & ~(size_t)7;
}

/* -- options and tables ----------------------------------------------------------- */

static int gt_configure(kz_config *cfg, const int64_t *opt, int nopt, char *err, size_t errlen) {
    if (nopt != 3) {
        kz_set_err(err, errlen, "geheimtrumpf: 3 options expected [num_players, round_limit, "
                                "first_start]");
        return -1;
    }
    int64_t n = opt[0], limit = opt[1], first = opt[2];
    if (n < 3 || n > 4) {
        kz_set_err(err, errlen, "geheimtrumpf: option num_players must be an integer in 3..4");
        return -1;
    }
    if (limit < 1 || limit > 10000) {
        kz_set_err(err, errlen, "geheimtrumpf: option round_limit must be an integer in 1..10000");
        return -1;
    }
    if (first < 0 || first >= n) {
        kz_set_err(err, errlen, "geheimtrumpf: option first_start must be a seat");
        return -1;
    }
    memset(cfg->game, 0, sizeof cfg->game);
    gt_tables *t = tables_mut(cfg);
    t->n = (int32_t)n;
    t->round_limit = (int32_t)limit;
    t->first_start = (int32_t)first;
    /* the observation layout: encode.observation_layout(n), piece after piece */
    int o = 0;
#define PIECE(name, size) do { t->o_##name = o; o += (size); } while (0)
    int N = (int)n;
    PIECE(phase, 6);
    PIECE(start_player, N);
    PIECE(round_progress, 1);
    PIECE(tasks_held, N * GT_TASKS);
    PIECE(tasks_checked, N * GT_TASKS);
    PIECE(trumps_known, 1);
    PIECE(trump_suit, GT_SUITS + 1);
    PIECE(trump_value, GT_VALUES + 1);
    PIECE(layout, GT_ROWS * GT_CARDS);
    PIECE(draft_row, GT_ROWS + 1);
    PIECE(row_leads, GT_ROWS * N);
    PIECE(draft, GT_ROWS * N * GT_CARDS);
    PIECE(row_winners, GT_ROWS * N);
    PIECE(hands, N * GT_CARDS);
    PIECE(chosen, N * GT_TASKS);
    PIECE(trick_leaders, GT_ROWS * N);
    PIECE(tricks, GT_ROWS * N * GT_CARDS);
    PIECE(tricks_won, N * (GT_ROWS + 1));
    PIECE(won_cards, N * GT_CARDS);
    PIECE(trump_candidates, GT_DRAWS);
    PIECE(trumps, GT_CARDS);
    PIECE(led_beaters, GT_CARDS);
    PIECE(trick_winner, N);
    PIECE(takes_trick, GT_CARDS);
    PIECE(overtake, GT_CARDS);
    PIECE(safe, GT_CARDS);
    PIECE(take_chances, GT_CARDS);
    PIECE(task_chances, GT_TASKS);
    PIECE(win_chances, GT_CARDS);
    PIECE(task_state, N * 8);
    PIECE(trick_reading, GT_CARDS * (N + 4));
#undef PIECE
    /* every trump draw (rules._make_trumps): the trumps and their power.
     * Obertrumpf 30, the other trump-value cards 20, the trump suit 10 + value,
     * non-trumps 0 (they rank by value within the led suit only). */
    for (int suit = -1; suit < GT_SUITS; suit++)
        for (int value = 0; value <= GT_VALUES; value++) {
            int d = gt_draw_index(suit, value);
            uint64_t suit_cards = suit >= 0 ? gt_suit_mask(suit) : 0;
            uint64_t value_cards = value_mask(value);
            t->mask[d] = suit_cards | value_cards;
            for (int c = 0; c < GT_CARDS; c++) {
                int p = 0;
                if ((value_cards >> c) & 1) p = gt_card_suit(c) == suit ? 30 : 20;
                else if ((suit_cards >> c) & 1) p = 10 + gt_card_value(c);
                t->power[d][c] = (uint8_t)p;
            }
        }
    cfg->num_players = (int32_t)n;
    cfg->num_actions = GT_NUM_ACTIONS;
    cfg->obs_size = o;
    cfg->num_orders = (int32_t)limit;
    cfg->order_len = GT_DECK;
    cfg->state_size = (int32_t)state_bytes((int)limit);
    gt_configure_reading(cfg);
    return 0;
}

/* Game.deal: every round's deck order drawn up front - round_limit shuffles of
 * the 36 number cards, then as many of the suit stack, then of the value stack
 * (Game.shuffles draws them in that order); order i = numbers + suits + values. */
static void gt_deal(const kz_config *cfg, kz_random *r, uint8_t *orders) {
    int count = cfg->num_orders;
    for (int i = 0; i < count; i++) {
        uint8_t *o = orders + (size_t)i * GT_DECK;
        for (int c = 0; c < GT_CARDS; c++) o[c] = (uint8_t)c;
        kz_shuffle(r, o, GT_CARDS);
    }
    for (int i = 0; i < count; i++) {
        uint8_t *o = orders + (size_t)i * GT_DECK + GT_SUIT_STACK0;
        for (int c = 0; c < GT_VALUE_STACK0 - GT_SUIT_STACK0; c++) o[c] = (uint8_t)(GT_SUIT_STACK0 + c);
        kz_shuffle(r, o, GT_VALUE_STACK0 - GT_SUIT_STACK0);
    }
    for (int i = 0; i < count; i++) {
        uint8_t *o = orders + (size_t)i * GT_DECK + GT_VALUE_STACK0;
        for (int c = 0; c < GT_DECK - GT_VALUE_STACK0; c++) o[c] = (uint8_t)(GT_VALUE_STACK0 + c);
        kz_shuffle(r, o, GT_DECK - GT_VALUE_STACK0);
    }
}

/* rules.check_order: the 36 number cards, then the suit stack, then the value stack */
static int order_ok(const uint8_t *order) {
    uint64_t seen = 0;
    for (int i = 0; i < GT_DECK; i++) {
        int c = order[i];
        int lo = i < GT_SUIT_STACK0 ? 0 : i < GT_VALUE_STACK0 ? GT_SUIT_STACK0 : GT_VALUE_STACK0;
        int hi = i < GT_SUIT_STACK0 ? GT_SUIT_STACK0 : i < GT_VALUE_STACK0 ? GT_VALUE_STACK0 : GT_DECK;
        if (c < lo || c >= hi || ((seen >> c) & 1)) return 0;
        seen |= 1ULL << c;
    }
    return 1;
}

/* -- the rules ---------------------------------------------------------------------- */

/* rules.trick_winner: position (in play order) of the winning card.  The highest
 * power wins (the first played among equals); with no trump, the highest card of
 * the led card's printed suit. */
static int trick_winner(const uint8_t *power, const uint8_t *cards, int len) {
    int lead = cards[0];
    int lead_suit = gt_card_suit(lead);
    int best = 0;
    int best_key = power[lead] ? power[lead] : gt_card_value(lead);
    for (int i = 1; i < len; i++) {
        int c = cards[i];
        int key = power[c];
        if (!key && gt_card_suit(c) == lead_suit) key = gt_card_value(c);
        if (key > best_key) { best = i; best_key = key; }
    }
    return best;
}

/* rules.task_met: whether seat's result of the round meets task */
static int task_met(const gt_state *s, int n, int task, int seat) {
    const uint8_t *won = s->tricks_won;
    if (task <= GT_THREE_TRICKS) return won[seat] == task;
    if (task == GT_MOST_TRICKS) {
        for (int p = 0; p < n; p++)
            if (p != seat && won[p] >= won[seat]) return 0;
        return 1;
    }
    if (task == GT_FEWEST_TRICKS) {
        for (int p = 0; p < n; p++)
            if (p != seat && won[p] <= won[seat]) return 0;
        return 1;
    }
    if (task == GT_LAST_TRICK) return s->last_winner == seat;
    return !(s->won_cards[seat] & gt_suit_mask(task - GT_NO_SUIT0));
}

/* clear_round: no trumps known, no rows, hands or tricks */
static void clear_round(gt_state *s, int n) {
    s->trump_suit = -1;
    s->trump_value = 0;
    s->draw = 0;
    s->trump_mask = 0;
    memset(s->rows, 0, sizeof s->rows);
    s->layout = 0;
    memset(s->hands, 0, sizeof s->hands);
    s->rows_drafted = 0;
    memset(s->draft_rows, 0, sizeof s->draft_rows);
    memset(s->row_winners, 0, sizeof s->row_winners);
    s->row_len = 0;
    memset(s->row_cards, 0, sizeof s->row_cards);
    memset(s->chosen, -1, sizeof s->chosen);
    memset(s->tricks_won, 0, sizeof s->tricks_won);
    memset(s->won_cards, 0, sizeof s->won_cards);
    s->num_tricks = 0;
    memset(s->trick_leaders, 0, sizeof s->trick_leaders);
    memset(s->trick_winners, 0, sizeof s->trick_winners);
    memset(s->tricks, 0, sizeof s->tricks);
    s->trick_leader = (uint8_t)((s->start + 1) % n);
    s->trick_len = 0;
    memset(s->trick_cards, 0, sizeof s->trick_cards);
    s->follow = 0;
    s->last_winner = -1;
}

/* start_round: deal round ri from its deck order.  The start player moves one seat
 * left every round; row i is order[4i .. 4i+n) (3 players: the 4th card lies face
 * down, out of play); the bottom card of each stack fixes the trumps; left of the
 * start player chooses first. */
static void start_round(const gt_tables *t, gt_state *s, int ri) {
    int n = t->n;
    s->head.round_index = ri;
    s->start = (t->first_start + ri) % n;
    clear_round(s, n);
    const uint8_t *order = s->orders + (size_t)ri * GT_DECK;
    int suit = order[GT_VALUE_STACK0 - 1] - GT_SUIT_STACK0;      /* 0..4, 4: joker */
    int value = order[GT_DECK - 1] - GT_VALUE_STACK0 + 1;        /* 1..10, 10: joker */
    s->trump_suit = (int8_t)(suit < GT_SUITS ? suit : -1);
    s->trump_value = (int8_t)(value <= GT_VALUES ? value : 0);
    s->draw = (uint8_t)gt_draw_index(s->trump_suit, s->trump_value);
    s->trump_mask = t->mask[s->draw];
    uint64_t layout = 0;
    for (int r = 0; r < GT_ROWS; r++) {
        uint64_t m = 0;
        for (int i = 0; i < n; i++) m |= 1ULL << order[r * GT_ROW_LEN + i];
        s->rows[r] = m;
        layout |= m;
    }
    s->layout = layout;
    s->head.phase = GT_CARD_DRAFT;
    s->head.current_player = (s->start + 1) % n;
}

static void end_game(gt_state *s, int truncated) {
    if (truncated) s->head.truncated = 1;
    else s->head.over = 1;
    s->head.phase = GT_GAME_OVER;
    s->head.current_player = -1;
}

/* Game.new_state: the task draft begins with the first start player */
static int gt_start(const kz_config *cfg, void *state, const uint8_t *orders, char *err,
                    size_t errlen) {
    const gt_tables *t = gt_tables_of(cfg);
    int n = t->n;
    for (int i = 0; i < t->round_limit; i++)
        if (!order_ok(orders + (size_t)i * GT_DECK)) {
            kz_set_err(err, errlen, "geheimtrumpf: a deck order must hold the 36 number cards, "
                                    "then the five trump-suit cards (10H 10D 10S 10C JK), then "
                                    "the ten trump-value cards (V1..V9 VJK), each once");
            return -1;
        }
    gt_state *s = (gt_state *)state;
    memset(s, 0, (size_t)cfg->state_size);
    memcpy(s->orders, orders, (size_t)t->round_limit * GT_DECK);
    s->head.current_player = t->first_start;
    s->head.phase = GT_TASK_DRAFT;
    s->start = t->first_start;
    clear_round(s, n);
    return 0;
}

#define BAD(msg) do { kz_set_err(err, errlen, "geheimtrumpf: invalid state: " msg); return -1; } while (0)

/* whether a byte of a[0..len) exceeds limit (<= 127): eight bytes at a time, the
 * "has a byte greater than n" word trick */
static inline int any_byte_above(const uint8_t *a, int len, unsigned limit) {
    const uint64_t ones = 0x0101010101010101ULL;
    uint64_t bad = 0;
    int i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x;
        memcpy(&x, a + i, 8);
        bad |= (x + ones * (127 - limit)) | x;
    }
    if (i < len) {
        uint64_t x = 0;
        memcpy(&x, a + i, (size_t)(len - i));
        bad |= (x + ones * (127 - limit)) | x;
    }
    return (bad & ones * 128) != 0;
}

/* Every field legal, apply and encode (and the reading) use as an index or a loop
 * bound, and the counts the phase's decisions rely on.  The unused slots of the
 * fixed arrays are zero in every state the rules make (clear_round), so the
 * arrays are checked whole. */
static int gt_valid(const kz_config *cfg, const void *state, char *err, size_t errlen) {
    const gt_tables *t = gt_tables_of(cfg);
    const gt_state *s = (const gt_state *)state;
    int n = t->n;
    int phase = s->head.phase;
    if (phase < GT_TASK_DRAFT || phase > GT_GAME_OVER) BAD("phase");
    int cur = s->head.current_player;
    if (phase == GT_GAME_OVER ? cur != -1 : (cur < 0 || cur >= n)) BAD("current_player");
    if ((uint32_t)s->head.over > 1 || (uint32_t)s->head.truncated > 1) BAD("over/truncated");
    if ((phase == GT_GAME_OVER) != (s->head.over + s->head.truncated == 1)) BAD("over/truncated");
    int ri = s->head.round_index;
    if (ri < 0 || ri >= t->round_limit) BAD("round_index");
    if (s->head.decisions < 0 || s->head.decisions == INT32_MAX) BAD("decisions");
    uint64_t cards = s->layout | s->follow;
    int won = 0;
    for (int p = 0; p < n; p++) {
        if ((uint32_t)s->head.totals[p] > GT_TASKS_PER_PLAYER) BAD("totals");
        if (s->held[p] & ~GT_ALL_TASKS) BAD("held");
        if (s->checked[p] & ~s->held[p]) BAD("checked");
        if (kz_popcount64(s->checked[p]) != s->head.totals[p]) BAD("totals");
        if (s->chosen[p] < -1 || s->chosen[p] >= GT_TASKS) BAD("chosen");
        cards |= s->hands[p] | s->won_cards[p];
        won += s->tricks_won[p];
    }
    for (int r = 0; r < GT_ROWS; r++) cards |= s->rows[r];
    if (cards & ~GT_ALL_CARDS) BAD("a card mask");
    if (any_byte_above(s->task_holders, GT_TASKS, GT_MAX_HOLDERS)) BAD("task_holders");
    if (s->start < 0 || s->start >= n) BAD("start");
    if (s->trump_suit < -1 || s->trump_suit >= GT_SUITS) BAD("trump_suit");
    if (s->trump_value < 0 || s->trump_value > GT_VALUES) BAD("trump_value");
    if (s->draw != gt_draw_index(s->trump_suit, s->trump_value)) BAD("draw");
    if (s->trump_mask != t->mask[s->draw]) BAD("trump_mask");
    if (s->last_winner < -1 || s->last_winner >= n) BAD("last_winner");
    int rd = s->rows_drafted;
    if (rd > GT_ROWS) BAD("rows_drafted");
    if (s->row_len >= n) BAD("row_len");
    if (any_byte_above(&s->draft_rows[0][0], GT_ROWS * GT_ROW_LEN, GT_CARDS - 1)
        || any_byte_above(s->row_cards, GT_ROW_LEN, GT_CARDS - 1)) BAD("draft cards");
    if (any_byte_above((const uint8_t *)s->row_winners, GT_ROWS, (unsigned)n - 1)) BAD("row_winners");
    int nt = s->num_tricks;
    if (nt > GT_ROWS) BAD("num_tricks");
    if (won != nt || any_byte_above(s->tricks_won, n, GT_ROWS)) BAD("tricks_won");
    if (any_byte_above(s->trick_leaders, GT_ROWS, (unsigned)n - 1)
        || any_byte_above(s->trick_winners, GT_ROWS, (unsigned)n - 1)) BAD("trick_leaders");
    if (any_byte_above(&s->tricks[0][0], GT_ROWS * GT_ROW_LEN, GT_CARDS - 1)
        || any_byte_above(s->trick_cards, GT_ROW_LEN, GT_CARDS - 1)) BAD("trick cards");
    if (s->trick_leader >= n) BAD("trick_leader");
    if (s->trick_len > n) BAD("trick_len");
    /* what the phase's decisions rely on */
    switch (phase) {
    case GT_TASK_DRAFT: {
        int picks = 0;
        for (int p = 0; p < n; p++) picks += kz_popcount64(s->held[p]);
        if (s->head.decisions >= GT_TASKS_PER_PLAYER * n || s->head.decisions != picks || ri != 0)
            BAD("decisions");
        break;
    }
    case GT_CARD_DRAFT: {
        if (rd >= GT_ROWS) BAD("rows_drafted");
        int first = (s->start + 1 + rd) % n;
        if (cur != (first + s->row_len) % n) BAD("current_player");
        for (int p = 0; p < n; p++)  /* one card a finished row, and this row's if taken */
            if (kz_popcount64(s->hands[p]) != rd + ((p - first + n) % n < s->row_len))
                BAD("hands");
        break;
    }
    case GT_TASK_CHOICE:
        if (rd != GT_ROWS || s->row_len) BAD("rows_drafted");
        if (cur == s->start) BAD("current_player");
        for (int p = 0; p < n; p++)
            if (kz_popcount64(s->hands[p]) != GT_ROWS) BAD("hands");
        break;
    case GT_PLAY:
        if (rd != GT_ROWS || nt >= GT_ROWS || s->trick_len >= n) BAD("num_tricks");
        if (cur != (s->trick_leader + s->trick_len) % n) BAD("current_player");
        for (int i = 0; i < s->trick_len; i++) {
            int p = (s->trick_leader + i) % n;
            if (kz_popcount64(s->hands[p]) != GT_ROWS - nt - 1) BAD("hands");
        }
        for (int i = s->trick_len; i < n; i++) {
            int p = (s->trick_leader + i) % n;
            if (kz_popcount64(s->hands[p]) != GT_ROWS - nt) BAD("hands");
        }
        if ((s->trick_len == 0) != (s->follow == 0)) BAD("follow");
        break;
    case GT_CHECK_OFF:
        if (cur != s->start) BAD("current_player");
        if (nt != GT_ROWS) BAD("num_tricks");
        break;
    default:
        break;
    }
    /* the deck order the next decision may deal (start_round reads it): after the
     * last task pick, the last card of a round, or the start player's check */
    int deals = phase == GT_TASK_DRAFT ? s->head.decisions == GT_TASKS_PER_PLAYER * n - 1
              : phase == GT_PLAY ? nt == GT_ROWS - 1 && s->trick_len == n - 1
              : phase == GT_CHECK_OFF;
    int next = phase == GT_TASK_DRAFT ? 0 : ri + 1;
    if (deals && next < t->round_limit && !order_ok(s->orders + (size_t)next * GT_DECK))
        BAD("deck order");
    return 0;
}

/* follow rule (tricks.follow_mask): the cards of the effective suit led, if held */
static inline uint64_t follow_mask(uint64_t hand, uint64_t follow) {
    if (follow) {
        uint64_t same = hand & follow;
        if (same) return same;
    }
    return hand;
}

static void gt_legal(const kz_config *cfg, const void *state, uint64_t *mask) {
    const gt_state *s = (const gt_state *)state;
    (void)cfg;
    int seat = s->head.current_player;
    uint64_t lo = 0, hi = 0;  /* action bits 0..63, 64..127 */
    switch (s->head.phase) {
    case GT_PLAY:  /* play a card of the effective suit led if you can, else any */
        lo = follow_mask(s->hands[seat], s->follow);
        break;
    case GT_CARD_DRAFT: {  /* take any face-up card of the row being drafted */
        uint64_t m = s->rows[s->rows_drafted] & s->layout;  /* ids 36..71 */
        lo = m << GT_TAKE0;
        hi = m >> (64 - GT_TAKE0);
        break;
    }
    case GT_TASK_DRAFT: {  /* a task not yet held by me, held by fewer than two */
        unsigned full = 0;
        for (int task = 0; task < GT_TASKS; task++)
            if (s->task_holders[task] >= GT_MAX_HOLDERS) full |= 1u << task;
        uint64_t m = GT_ALL_TASKS & ~s->held[seat] & ~full;  /* ids 72..82 */
        hi = m << (GT_DRAFT_TASK0 - 64);
        break;
    }
    case GT_TASK_CHOICE:  /* one of my unchecked tasks, ids 83..93 */
        hi = (uint64_t)(s->held[seat] & ~s->checked[seat] & GT_ALL_TASKS) << (GT_CHOOSE_TASK0 - 64);
        break;
    case GT_CHECK_OFF:  /* the start player checks one unchecked task, ids 94..104 */
        hi = (uint64_t)(s->held[seat] & ~s->checked[seat] & GT_ALL_TASKS) << (GT_CHECK0 - 64);
        break;
    default:
        break;
    }
    mask[0] = lo;
    mask[1] = hi;
}

/* the start player's reward: met a task another chose and missed */
static int start_may_check(const gt_state *s, int n) {
    int start = s->start;
    for (int p = 0; p < n; p++) {
        int task = s->chosen[p];
        if (p != start && task >= 0 && !task_met(s, n, task, p) && task_met(s, n, task, start))
            return 1;
    }
    return 0;
}

/* after a round: all four tasks checked wins; else the next round, or the round limit */
static int end_round(const gt_tables *t, gt_state *s) {
    int n = t->n;
    int done = 0;
    for (int p = 0; p < n; p++)
        if (s->head.totals[p] == GT_TASKS_PER_PLAYER) done = 1;
    if (done) {
        end_game(s, 0);
        return KZ_OVER;
    }
    if (s->head.round_index + 1 >= t->round_limit) {
        end_game(s, 1);
        return KZ_TRUNCATED;
    }
    start_round(t, s, s->head.round_index + 1);
    return 0;
}

static int gt_apply(const kz_config *cfg, void *state, int action, int32_t *deltas) {
    const gt_tables *t = gt_tables_of(cfg);
    gt_state *s = (gt_state *)state;
    int n = t->n;
    int seat = s->head.current_player;
    s->head.decisions++;
    switch (s->head.phase) {
    case GT_PLAY: {
        int card = action - GT_PLAY0;
        s->hands[seat] ^= 1ULL << card;
        if (!s->trick_len) s->follow = gt_group(s->trump_mask, card);
        s->trick_cards[s->trick_len++] = (uint8_t)card;
        if (s->trick_len < n) {
            s->head.current_player = (seat + 1) % n;
            return 0;
        }
        /* the trick is complete: its winner takes it and leads the next */
        int winner = (s->trick_leader + trick_winner(t->power[s->draw], s->trick_cards, n)) % n;
        s->tricks_won[winner]++;
        uint64_t won = 0;
        for (int i = 0; i < n; i++) won |= 1ULL << s->trick_cards[i];
        s->won_cards[winner] |= won;
        int k = s->num_tricks++;
        s->trick_leaders[k] = s->trick_leader;
        s->trick_winners[k] = (uint8_t)winner;
        memcpy(s->tricks[k], s->trick_cards, GT_ROW_LEN);
        s->last_winner = (int8_t)winner;
        if (s->hands[winner]) {
            s->trick_leader = (uint8_t)winner;
            s->trick_len = 0;
            memset(s->trick_cards, 0, sizeof s->trick_cards);
            s->follow = 0;
            s->head.current_player = winner;
            return 0;
        }
        /* the ninth trick: each chooser who met the chosen task checks it off */
        for (int p = 0; p < n; p++) deltas[p] = 0;
        for (int p = 0; p < n; p++) {
            int task = s->chosen[p];
            if (p != s->start && task >= 0 && task_met(s, n, task, p)) {
                s->checked[p] |= (uint16_t)(1u << task);
                s->head.totals[p]++;
                deltas[p] = 1;
            }
        }
        if (start_may_check(s, n)) {
            s->head.phase = GT_CHECK_OFF;
            s->head.current_player = s->start;
            return KZ_DELTAS;
        }
        return KZ_DELTAS | end_round(t, s);
    }
    case GT_CARD_DRAFT: {
        int card = action - GT_TAKE0;
        s->hands[seat] |= 1ULL << card;
        s->layout &= ~(1ULL << card);
        s->row_cards[s->row_len++] = (uint8_t)card;
        if (s->row_len < n) {
            s->head.current_player = (seat + 1) % n;
            return 0;
        }
        /* the row is complete: judged as a trick led by the first chooser's card,
         * its winner announced */
        int row = s->rows_drafted;
        int first = (s->start + 1 + row) % n;
        int winner = (first + trick_winner(t->power[s->draw], s->row_cards, n)) % n;
        memcpy(s->draft_rows[row], s->row_cards, GT_ROW_LEN);
        s->row_winners[row] = (int8_t)winner;
        s->rows_drafted = (uint8_t)(row + 1);
        s->row_len = 0;
        memset(s->row_cards, 0, sizeof s->row_cards);
        if (row + 1 < GT_ROWS) {
            s->head.current_player = (s->start + 2 + row) % n;  /* first choice moves left */
        } else {  /* trumps revealed; the others choose their tasks */
            s->head.phase = GT_TASK_CHOICE;
            s->head.current_player = (s->start + 1) % n;
        }
        return 0;
    }
    case GT_TASK_CHOICE: {
        s->chosen[seat] = (int8_t)(action - GT_CHOOSE_TASK0);
        int next = (seat + 1) % n;
        if (next != s->start) {
            s->head.current_player = next;
            return 0;
        }
        /* all have chosen: revealed together, and left of the start player leads */
        s->head.phase = GT_PLAY;
        s->head.current_player = s->trick_leader;
        return 0;
    }
    case GT_TASK_DRAFT: {
        int task = action - GT_DRAFT_TASK0;
        s->held[seat] |= (uint16_t)(1u << task);
        s->task_holders[task]++;
        if (s->head.decisions < GT_TASKS_PER_PLAYER * n)
            s->head.current_player = (seat + 1) % n;
        else
            start_round(t, s, 0);
        return 0;
    }
    case GT_CHECK_OFF: {
        int task = action - GT_CHECK0;
        s->checked[seat] |= (uint16_t)(1u << task);
        s->head.totals[seat]++;
        for (int p = 0; p < n; p++) deltas[p] = 0;
        deltas[seat] = 1;
        return KZ_DELTAS | end_round(t, s);
    }
    default:
        return 0;
    }
}

/* -- the observation (encode.GeheimtrumpfEncoder.encode) ------------------------------ */

static inline void put_bits(float *out, uint64_t mask) {
    while (mask) {
        out[kz_lowbit64(mask)] = 1.0f;
        mask &= mask - 1;
    }
}

/* x mod n for 0 <= x < 2n (no division in the loops below) */
static inline int wrap(int x, int n) { return x >= n ? x - n : x; }

static void gt_encode(const kz_config *cfg, const void *state, int seat, float *out) {
    const gt_tables *t = gt_tables_of(cfg);
    const gt_state *s = (const gt_state *)state;
    int n = t->n;
    int phase = s->head.phase;
    memset(out, 0, sizeof(float) * (size_t)cfg->obs_size);
    out[t->o_phase + phase] = 1.0f;
    out[t->o_start_player + wrap(s->start - seat + n, n)] = 1.0f;
    out[t->o_round_progress] =
        (float)((double)(s->head.round_index + (phase != GT_TASK_DRAFT)) / (double)t->round_limit);
    for (int rel = 0, p = seat; rel < n; rel++, p = wrap(p + 1, n)) {
        put_bits(out + t->o_tasks_held + rel * GT_TASKS, s->held[p]);
        put_bits(out + t->o_tasks_checked + rel * GT_TASKS, s->checked[p]);
    }
    if (phase == GT_TASK_DRAFT || phase == GT_GAME_OVER) return;
    /* the trumps: the start player knows them all round, the others after the draft */
    if (phase != GT_CARD_DRAFT || seat == s->start) {
        out[t->o_trump_suit + (s->trump_suit >= 0 ? s->trump_suit : GT_SUITS)] = 1.0f;
        out[t->o_trump_value + (s->trump_value ? s->trump_value - 1 : GT_VALUES)] = 1.0f;
        out[t->o_trumps_known] = 1.0f;
    }
    if (s->layout)
        for (int r = 0; r < GT_ROWS; r++)
            put_bits(out + t->o_layout + r * GT_CARDS, s->rows[r] & s->layout);
    /* the draft: per row begun, its first chooser, the cards taken, the winner */
    int row = s->rows_drafted;
    out[t->o_draft_row + row] = 1.0f;
    int last = row + 1 < GT_ROWS ? row + 1 : GT_ROWS;
    float *lead_col = out + t->o_row_leads, *win_col = out + t->o_row_winners;
    float *draft = out + t->o_draft;
    int lead = wrap(wrap(s->start - seat + n, n) + 1, n);  /* relative first chooser */
    for (int r = 0; r < last; r++, lead = wrap(lead + 1, n)) {
        lead_col[r * n + lead] = 1.0f;
        const uint8_t *taken = r < row ? s->draft_rows[r] : s->row_cards;
        int len = r < row ? n : s->row_len;
        for (int i = 0, pos = lead; i < len; i++, pos = wrap(pos + 1, n))
            draft[(r * n + pos) * GT_CARDS + taken[i]] = 1.0f;
        if (r < row) win_col[r * n + wrap(s->row_winners[r] - seat + n, n)] = 1.0f;
    }
    /* every hand is public; the chosen tasks: one's own at once, the others' once
     * all are revealed (play and check-off) */
    int revealed = phase == GT_PLAY || phase == GT_CHECK_OFF;
    for (int rel = 0, p = seat; rel < n; rel++, p = wrap(p + 1, n)) {
        put_bits(out + t->o_hands + rel * GT_CARDS, s->hands[p]);
        int task = s->chosen[p];
        if (task >= 0 && (rel == 0 || revealed)) out[t->o_chosen + rel * GT_TASKS + task] = 1.0f;
    }
    gt_write_reading(cfg, s, seat, out);
    if (!revealed) return;
    /* the tricks so far, the current one included (even before its first card) */
    float *leaders = out + t->o_trick_leaders, *tricks = out + t->o_tricks;
    int nt = s->num_tricks;
    for (int k = 0; k <= nt && k < GT_ROWS; k++) {
        int current = k == nt;
        int l = wrap((current ? s->trick_leader : s->trick_leaders[k]) - seat + n, n);
        const uint8_t *cards = current ? s->trick_cards : s->tricks[k];
        int len = current ? s->trick_len : n;
        leaders[k * n + l] = 1.0f;
        for (int i = 0, pos = l; i < len; i++, pos = wrap(pos + 1, n))
            tricks[(k * n + pos) * GT_CARDS + cards[i]] = 1.0f;
    }
    for (int rel = 0, p = seat; rel < n; rel++, p = wrap(p + 1, n)) {
        out[t->o_tricks_won + rel * (GT_ROWS + 1) + s->tricks_won[p]] = 1.0f;
        put_bits(out + t->o_won_cards + rel * GT_CARDS, s->won_cards[p]);
    }
}

/* winners(): every seat with all four tasks checked, once the game is over (not
 * truncated); they share the win */
static void gt_win_share(const kz_config *cfg, const void *state, double *share) {
    const gt_state *s = (const gt_state *)state;
    int n = cfg->num_players;
    int k = 0;
    for (int p = 0; p < n; p++) share[p] = 0.0;
    if (!s->head.over) return;
    for (int p = 0; p < n; p++) k += s->head.totals[p] == GT_TASKS_PER_PLAYER;
    for (int p = 0; p < n; p++)
        if (s->head.totals[p] == GT_TASKS_PER_PLAYER) share[p] = 1.0 / k;
}

const kz_game kz_geheimtrumpf = {
    "geheimtrumpf", gt_configure, gt_deal, gt_start, gt_valid,
    gt_legal, gt_apply, gt_encode, gt_win_share,
};
