/* Wizard's state and tables, shared by wizard.c (the rules) and
 * wizard_search.c (PIMC in the kernel).  Moved here unchanged from wizard.c.
 */
#ifndef WIZARD_H
#define WIZARD_H

#include "kz.h"

#define WZ_DECK 60
#define WZ_SUITS 4
#define WZ_NUMBERS 13
#define WZ_WIZARD0 52 /* ids 52..55 */
#define WZ_JESTER0 56 /* ids 56..59 */
#define WZ_FULL ((1ULL << WZ_DECK) - 1)
#define WZ_WIZARDS (0xFULL << WZ_WIZARD0)
#define WZ_JESTERS (0xFULL << WZ_JESTER0)
#define WZ_FREE (WZ_WIZARDS | WZ_JESTERS) /* may always be played */
#define WZ_PACK 12                        /* hand sizes per option int, 5 bits each */
#define WZ_MAX_ROUNDS ((KZ_MAX_OPTIONS - 4) * WZ_PACK)

/* phases: PHASE_NAMES = ("choose_trump", "bid", "play", "game_over") */
enum { CHOOSE_TRUMP, BID, PLAY, GAME_OVER };

#define NO_TRUMP (-1)
#define TRUMP_PENDING (-2) /* a Wizard was turned; the dealer has not chosen yet */
#define LEAD_NONE (-1)     /* nothing but Jesters so far: the next non-Jester sets the suit */
#define LEAD_FREE (-2)     /* the first non-Jester was a Wizard: nothing to follow */

/* The state: kz_head, then the round in play, then every deck order. */
typedef struct {
    kz_head h;
    uint64_t hands[KZ_MAX_PLAYERS]; /* bit c: card c */
    uint64_t played;                /* every card played this round */
    int8_t bids[KZ_MAX_PLAYERS];    /* -1: not yet */
    uint8_t tricks_won[KZ_MAX_PLAYERS];
    uint8_t voids[KZ_MAX_PLAYERS];  /* bit s: showed out of suit s this round */
    uint8_t trick[KZ_MAX_PLAYERS];  /* the current trick's cards, in play order */
    int8_t trick_len;
    int8_t leader;     /* seat that led the current trick */
    int8_t follow;     /* suit to follow 0..3, LEAD_NONE or LEAD_FREE */
    int8_t trump;      /* 0..3, NO_TRUMP or TRUMP_PENDING */
    int8_t trump_card; /* the turned card, -1: none */
    int8_t dealer;
    int8_t hand_size;
    int8_t pad;
    uint8_t orders[]; /* num_rounds x 60: the deck order of every round */
} wz_state;

/* cfg->game: the options and the observation layout's offsets */
typedef struct {
    int32_t n, max_hand, h1, num_rounds, first_dealer, dbr, bid0, trump0;
    /* offsets of the observation pieces (encode.py's observation_layout) */
    int32_t o_hand, o_trump_suit, o_trump_card, o_phase, o_hand_size, o_progress, o_dealer,
        o_bids, o_tricks, o_leader, o_trick, o_played, o_voids, o_restriction, o_scores;
    uint8_t round_size[WZ_MAX_ROUNDS];
    uint64_t suit_mask[WZ_SUITS];
    int8_t card_suit[WZ_DECK]; /* suit 0..3, -1 for Wizards and Jesters */
} wz_tables;

typedef char wz_tables_fit[sizeof(wz_tables) <= sizeof(((kz_config *)0)->game) ? 1 : -1];

#define T(cfg) ((const wz_tables *)(const void *)(cfg)->game)

/* A round's score: 20 + 10 a trick when the bid is met, else -10 per trick off
 * (the rules' count and the search's play-outs alike). */
static inline int wz_round_score(int bid, int tricks) {
    if (bid == tricks) return 20 + 10 * tricks;
    return -10 * (tricks > bid ? tricks - bid : bid - tricks);
}

#endif
