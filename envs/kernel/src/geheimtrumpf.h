/* Geheimtrumpf in the compiled kernel: the state and the tables that
 * geheimtrumpf.c (the rules and the observation's plain pieces) and
 * geheimtrumpf_reading.c (the reading pieces: reading.py, chances.py,
 * steering.py) share.
 *
 * The state is the Python GeheimtrumpfState (envs/geheimtrumpf/rules.py)
 * flattened: card sets as 36-bit masks (card id suit * 9 + value - 1,
 * suits H D S C), task sets as 11-bit masks, lists as fixed arrays with a
 * count.  All seats are absolute.  The deck orders of every round follow
 * the struct (a flexible array), so the state is one flat block.
 *
 * Stable: fields are only ever added at the end (before orders), never
 * moved or retyped.
 */
#ifndef GEHEIMTRUMPF_H
#define GEHEIMTRUMPF_H

#include "kz.h"

#define GT_CARDS 36          /* number cards AH..9C, ids 0..35 */
#define GT_VALUES 9
#define GT_SUITS 4
#define GT_ROWS 9            /* draft rows = tricks per round */
#define GT_ROW_LEN 4
#define GT_TASKS 11
#define GT_TASKS_PER_PLAYER 4
#define GT_MAX_HOLDERS 2
#define GT_MAX_PLAYERS 4
#define GT_DECK 51           /* one deck order: 36 cards, 5 suit-stack, 10 value-stack cards */
#define GT_SUIT_STACK0 36
#define GT_VALUE_STACK0 41
#define GT_DRAWS 50          /* trump draws (suit -1..3) x (value 0..9) */
#define GT_ALL_CARDS ((1ULL << GT_CARDS) - 1)
#define GT_ALL_TASKS ((1u << GT_TASKS) - 1)

/* action ids (GeheimtrumpfGame) */
#define GT_PLAY0 0
#define GT_TAKE0 36
#define GT_DRAFT_TASK0 72
#define GT_CHOOSE_TASK0 83
#define GT_CHECK0 94
#define GT_NUM_ACTIONS 105

/* phases (PHASE_NAMES) */
enum { GT_TASK_DRAFT, GT_CARD_DRAFT, GT_TASK_CHOICE, GT_PLAY, GT_CHECK_OFF, GT_GAME_OVER };

/* tasks */
enum { GT_NO_TRICK, GT_ONE_TRICK, GT_TWO_TRICKS, GT_THREE_TRICKS, GT_MOST_TRICKS,
       GT_FEWEST_TRICKS, GT_LAST_TRICK, GT_NO_SUIT0 /* 7..10: no H, D, S, C won */ };

static inline int gt_card_suit(int c) { return c / GT_VALUES; }       /* printed suit 0..3 */
static inline int gt_card_value(int c) { return c % GT_VALUES + 1; }  /* 1..9 */
static inline uint64_t gt_suit_mask(int suit) { return 0x1FFULL << (suit * GT_VALUES); }
/* draw index = the column in trump_candidates: (suit + 1) * 10 + value */
static inline int gt_draw_index(int suit, int value) { return (suit + 1) * 10 + value; }

typedef struct {
    kz_head head;                 /* phase = PHASE_NAMES index; totals = tasks checked */
    /* -- card masks (bit c = card c) -- */
    uint64_t trump_mask;          /* trumps.mask: the trump-suit and trump-value cards */
    uint64_t rows[GT_ROWS];       /* rows[r]: the face-up cards of row r (n of them) */
    uint64_t layout;              /* face-up cards not yet taken */
    uint64_t hands[GT_MAX_PLAYERS];
    uint64_t won_cards[GT_MAX_PLAYERS];  /* the cards of the tricks each seat won */
    uint64_t follow;              /* effective suit of the current trick's lead (0: none) */
    /* -- ints -- */
    int32_t start;                /* this round's start player */
    int8_t trump_suit;            /* 0..3, -1: none (joker) */
    int8_t trump_value;           /* 1..9, 0: none (joker) */
    uint8_t draw;                 /* gt_draw_index(trump_suit, trump_value), 0..49 */
    int8_t last_winner;           /* winner of the last finished trick, -1 none */
    uint16_t held[GT_MAX_PLAYERS];     /* task masks drafted */
    uint16_t checked[GT_MAX_PLAYERS];  /* task masks checked off */
    uint8_t task_holders[GT_TASKS];    /* players holding each task (0..2) */
    int8_t chosen[GT_MAX_PLAYERS];     /* this round's chosen task, -1 none */
    uint8_t tricks_won[GT_MAX_PLAYERS];
    /* card draft: rows_drafted = len(draft_rows) = draft_row (0..9) */
    uint8_t rows_drafted;
    uint8_t draft_rows[GT_ROWS][GT_ROW_LEN];  /* finished rows, cards in take order (n) */
    int8_t row_winners[GT_ROWS];              /* announced winner of each finished row */
    uint8_t row_len;                          /* len(row_cards): cards taken of the row 0..n-1 */
    uint8_t row_cards[GT_ROW_LEN];            /* this row's cards taken so far, in take order */
    /* play: num_tricks = len(tricks) (0..9) finished tricks */
    uint8_t num_tricks;
    uint8_t trick_leaders[GT_ROWS];           /* finished tricks: leader */
    uint8_t trick_winners[GT_ROWS];           /* finished tricks: winner */
    uint8_t tricks[GT_ROWS][GT_ROW_LEN];      /* finished tricks: cards in play order (n) */
    uint8_t trick_leader;                     /* current trick (s.trick): leader */
    uint8_t trick_len;                        /* its cards so far (n after the 9th trick) */
    uint8_t trick_cards[GT_ROW_LEN];          /* its cards in play order */
    /* every round's deck order, round_limit x GT_DECK bytes (Game.deal's) */
    uint8_t orders[];
} gt_state;

/* What configure precomputes (in kz_config.game). */
#define GT_READING_BYTES 5600
typedef struct {
    int32_t n, round_limit, first_start;
    /* observation offsets, one per Piece of encode.observation_layout(n) */
    int32_t o_phase, o_start_player, o_round_progress, o_tasks_held, o_tasks_checked,
        o_trumps_known, o_trump_suit, o_trump_value, o_layout, o_draft_row, o_row_leads,
        o_draft, o_row_winners, o_hands, o_chosen, o_trick_leaders, o_tricks, o_tricks_won,
        o_won_cards, o_trump_candidates, o_trumps, o_led_beaters, o_trick_winner,
        o_takes_trick, o_overtake, o_safe, o_take_chances, o_task_chances, o_win_chances,
        o_task_state, o_trick_reading;
    uint64_t mask[GT_DRAWS];              /* Trumps.mask per draw index */
    uint8_t power[GT_DRAWS][GT_CARDS];    /* Trumps.power per draw index (0, 11..19, 20, 30) */
    /* free for geheimtrumpf_reading.c's own tables, filled by gt_configure_reading */
    uint8_t reading[GT_READING_BYTES];
} gt_tables;

/* Trumps.group[c]: all trumps for a trump, else c's printed suit without the trumps */
static inline uint64_t gt_group(uint64_t trump_mask, int c) {
    return ((trump_mask >> c) & 1) ? trump_mask : gt_suit_mask(gt_card_suit(c)) & ~trump_mask;
}

static inline const gt_tables *gt_tables_of(const kz_config *cfg) {
    return (const gt_tables *)(const void *)cfg->game;
}

/* geheimtrumpf_reading.c: write the reading pieces (trump_candidates .. trick_reading)
 * of seat's view into the full row out (every other column already written, the
 * reading columns zero).  Called by encode unless the phase is task_draft or game_over.
 * s has passed geheimtrumpf.c's valid: every card id < 36, seat < n, mask within 36
 * bits (tasks 11), count within its array; the fixed arrays' unused slots are zero;
 * in play the hands hold 9 - num_tricks cards (one fewer for the seats that played
 * to the current trick), trick_len < n and follow != 0 exactly when trick_len > 0;
 * in the card draft rows_drafted < 9. */
void gt_write_reading(const kz_config *cfg, const gt_state *s, int seat, float *out);
/* geheimtrumpf_reading.c: fill gt_tables.reading (called at the end of configure). */
void gt_configure_reading(kz_config *cfg);

#endif
