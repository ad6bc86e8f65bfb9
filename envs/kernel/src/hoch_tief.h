/* Hoch & Tief's state and tables, shared by hoch_tief.c (the rules) and
 * hoch_tief_search.c (PIMC in the kernel).  Moved here unchanged from hoch_tief.c.
 */
#ifndef HOCH_TIEF_H
#define HOCH_TIEF_H

#include "kz.h"

#define HT_SUITS 5
#define HT_HAND 15        /* cards per player, whatever the player count */
#define HT_MAX_ROUNDS 50  /* rules.MAX_ROUNDS */
#define HT_MAX_CARDS (HT_SUITS * 3 * KZ_MAX_PLAYERS)
#define W KZ_MASK_WORDS   /* 64-bit words of a card mask */

enum { PLAY = 0, GAME_OVER = 1 };  /* rules.PHASE_NAMES: play, game_over */

/* options, in kernel.py's kernel_options order */
enum { OPT_PLAYERS, OPT_ROUNDS, OPT_FIRST_DEALER, OPT_COUNT };

/* the precomputed tables, in kz_config.game */
typedef struct {
    int32_t n;             /* players */
    int32_t m;             /* numbers per suit, 3n */
    int32_t size;          /* cards, 15n */
    int32_t rounds;
    int32_t first_dealer;
    int32_t mod[2 * KZ_MAX_PLAYERS];  /* mod[i] = i % n for 0 <= i < 2n */
    uint64_t suit_mask[HT_SUITS][W];  /* the cards of suit s */
    uint64_t deck_mask[W];            /* every card in play */
    uint8_t suit[HT_MAX_CARDS];       /* suit of card c, 0..4 */
    uint8_t number[HT_MAX_CARDS];     /* its printed number, 1..3n */
    /* observation offsets (encode.observation_layout's pieces, in order) */
    int32_t o_hand, o_phase, o_round, o_trick_progress, o_dealer, o_leader, o_led,
        o_current, o_taken, o_taken_score, o_played, o_voids, o_scores, obs_size;
} ht_tables;

typedef struct {
    kz_head h;
    int32_t dealer;          /* this round's dealer */
    int32_t leader;          /* leads the current trick */
    int32_t tricks_played;   /* finished tricks this round, 0..15 */
    int32_t ntrick;          /* cards in the current trick (n once the game is over) */
    uint8_t trick[KZ_MAX_PLAYERS];   /* the current trick's cards, in play order */
    uint8_t voids[KZ_MAX_PLAYERS];   /* per seat, bit s: showed out of suit s this round */
    uint64_t hand[KZ_MAX_PLAYERS][W];
    uint64_t taken[KZ_MAX_PLAYERS][W];  /* face up, this round */
    int32_t score[KZ_MAX_PLAYERS];   /* what each seat's taken cards score now */
    uint8_t orders[];        /* rounds x size: the deck order of every round */
} ht_state;

static const ht_tables *tables(const kz_config *cfg) { return (const ht_tables *)cfg->game; }

/* rules.score_taken: per suit, 1 or 2 cards score their printed numbers,
 * 3 or more score one point each (the rules' apply and the search's play-outs alike). */
static inline int ht_score_taken(const ht_tables *t, const uint64_t *taken) {
    int total = 0;
    for (int su = 0; su < HT_SUITS; su++) {
        uint64_t a = taken[0] & t->suit_mask[su][0], b = taken[1] & t->suit_mask[su][1];
        int k = kz_popcount64(a) + kz_popcount64(b);
        if (k >= 3) {
            total += k;
        } else {
            for (; a; a &= a - 1) total += t->number[kz_lowbit64(a)];
            for (; b; b &= b - 1) total += t->number[64 + kz_lowbit64(b)];
        }
    }
    return total;
}

#endif
