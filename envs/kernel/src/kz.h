/* stichzoo's compiled rules kernel: what every game's C file provides.
 *
 * Why a kernel: every decision of the batch engine and every play-out of
 * the search stepped a rules state written in Python (about 5 us a
 * decision).  The same rules in plain C99 cost well under a microsecond.
 * The Python core (envs/<game>/rules.py) stays the referee: every game here
 * is checked against it decision for decision (tests/envs/kernel/), and
 * STICHZOO_KERNEL=python switches the kernel off.
 *
 * Rules of the road for a game's file (envs/kernel/src/<game>.c):
 *  - a state is one flat struct starting with kz_head, no pointers, so
 *    it lives in a numpy byte array, clones by memcpy and replays nothing;
 *  - the deck orders drawn at the deal live inside the state;
 *  - nothing here trusts a state: kz_game.valid checks every field the
 *    other functions use as an index before they run (module.c calls it),
 *    so a corrupted state from Python becomes a Python exception;
 *  - apply is only called with an action whose legal bit is set;
 *  - encode writes the whole observation row (zeroes included), exactly
 *    as the Python encoder does, float for float.
 */
#ifndef KZ_H
#define KZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define KZ_MAX_PLAYERS 6
#define KZ_MASK_WORDS 2   /* up to 128 action ids (Geheimtrumpf has 105) */
#define KZ_MAX_OPTIONS 32

/* apply's result flags */
#define KZ_DELTAS 1     /* deltas[] holds the score change of this action (a round ended) */
#define KZ_OVER 2       /* the game is over */
#define KZ_TRUNCATED 4  /* the game was cut off at a limit */

/* Shared bookkeeping at the start of every game's state (Python reads it). */
typedef struct {
    int32_t current_player;   /* -1 once nobody is to act */
    int32_t phase;            /* index into the game's PHASE_NAMES */
    int32_t over;             /* 0/1 */
    int32_t truncated;        /* 0/1 */
    int32_t round_index;      /* the round (deal) being played, 0-based */
    int32_t decisions;        /* actions applied so far */
    int32_t totals[KZ_MAX_PLAYERS];
} kz_head;

/* A game under fixed options, filled by kz_game.configure. */
typedef struct {
    int32_t num_players;
    int32_t num_actions;
    int32_t obs_size;
    int32_t num_orders;       /* deck orders per game */
    int32_t order_len;        /* cards per deck order */
    int32_t state_size;       /* bytes of one state (the game's struct) */
    int64_t opt[KZ_MAX_OPTIONS];  /* the options as Python passed them */
    uint8_t game[8192];       /* the game's own precomputed tables, if any */
} kz_config;

/* CPython's random.Random (MT19937), so a deal drawn here is the deal
 * random.Random(seed) draws in the Python core, card for card. */
typedef struct {
    uint32_t mt[624];
    int index;
} kz_random;

void kz_random_seed(kz_random *r, uint64_t seed);  /* random.Random(seed), seed >= 0 */
uint32_t kz_random_u32(kz_random *r);

typedef struct {
    const char *name;   /* the registry's name, e.g. "wizard" */
    /* Check options opt[0..nopt) (the order the game's Python adapter
     * documents) and fill cfg; return 0, or -1 with a message in err. */
    int (*configure)(kz_config *cfg, const int64_t *opt, int nopt, char *err, size_t errlen);
    /* Game.deal(random.Random(seed)) flattened: num_orders x order_len bytes. */
    void (*deal)(const kz_config *cfg, kz_random *r, uint8_t *orders);
    /* Game.new_state(orders): the first round dealt, its first decision pending.
     * Return 0, or -1 with err when the orders are not shuffles of the right cards. */
    int (*start)(const kz_config *cfg, void *state, const uint8_t *orders, char *err, size_t errlen);
    /* 0 when every field is in range; -1 with a message naming the field. */
    int (*valid)(const kz_config *cfg, const void *state, char *err, size_t errlen);
    /* legal action ids of the seat to act, bit a of mask[a / 64] */
    void (*legal)(const kz_config *cfg, const void *state, uint64_t *mask);
    /* GameState.apply(action) for a legal action (it counts head.decisions): returns KZ_* flags;
     * deltas (num_players) is written when KZ_DELTAS is set. */
    int (*apply)(const kz_config *cfg, void *state, int action, int32_t *deltas);
    /* the observation of seat `seat` (absolute), cfg->obs_size floats */
    void (*encode)(const kz_config *cfg, const void *state, int seat, float *out);
    /* GameState.winners() as win shares (1/k for each of k winners) */
    void (*win_share)(const kz_config *cfg, const void *state, double *share);
} kz_game;

/* A game's search in the kernel (envs/kernel/src/<game>_search.c), optional.
 *
 * pimc: PIMC as policies/search.py plays it on its fast path, draw for draw:
 * for each of `worlds` worlds, the game's determinize for `seat` from the
 * root state `root`, then for each of the `nacts` actions and each of the
 * `rollouts` rollouts a clone with the action applied, played out to the end
 * of the round by the game's rollout player, valued by the game's search
 * value: values[(w * nacts + i) * rollouts + k].  Every random draw comes
 * from `r`, in the order the Python search draws from its random.Random, so
 * the same seed gives the same values.  endgame > 0: where the seat to act
 * holds at most `endgame` cards, each world's rest of the round is solved
 * exactly (solve's rule and value) in place of its play-outs - every rollout
 * slot gets that value and no play-out draw is made; a game without a solver
 * refuses endgame > 0.  Returns 0, or -1 with err.
 *
 * solve (optional, NULL where a game has none): the exact endgame.  From `state`
 * taken as a world (every hand as it stands in the state: the true deal or one
 * sampled by determinize), the rest of the current round solved exactly under
 * the game's rule (its file says which: max^n or paranoid, and how ties break):
 * values[i] is the value for `seat` (the game's search value, the one pimc's
 * play-outs give) of the round's end under perfect play after the i-th legal
 * action of the seat to act, in ascending id order; values has room for
 * cfg->num_actions.  At most max_nodes positions are visited; *nodes says how
 * many were.  Returns the number of legal actions (>= 1), 0 when the budget ran
 * out before the solve finished (values then unset), or -1 with err. */
typedef struct {
    const char *name;
    int (*pimc)(const kz_config *cfg, const void *root, int seat, const int32_t *actions,
                int nacts, int worlds, int rollouts, int endgame, kz_random *r,
                double *values, char *err, size_t errlen);
    int (*solve)(const kz_config *cfg, const void *state, int seat, double *values,
                 long max_nodes, long *nodes, char *err, size_t errlen);
} kz_search;

/* random.Random's draws the deals and the searches mirror */
/* kz_random_u32 with the tempering inlined: the searches draw a few thousand numbers a
 * world, and the call was a third of their time.  The same numbers: kz_random_u32 runs
 * whenever the block must be refilled. */
static inline uint32_t kz_random_next(kz_random *r) {
    if (r->index >= 624) return kz_random_u32(r);
    uint32_t y = r->mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}
/* getrandbits(k), 0 < k <= 32 */
static inline uint32_t kz_random_bits(kz_random *r, int k) { return kz_random_next(r) >> (32 - k); }
/* Random._randbelow(n) (randrange(n), choice over n items), n >= 1 */
static inline uint32_t kz_random_below(kz_random *r, uint32_t n) {
    int k = 32 - __builtin_clz(n);  /* n.bit_length() */
    uint32_t x = kz_random_bits(r, k);
    while (x >= n) x = kz_random_bits(r, k);
    return x;
}
/* random.random(): 53 bits, as CPython's random_random */
static inline double kz_random_double(kz_random *r) {
    uint32_t a = kz_random_next(r) >> 5, b = kz_random_next(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}
/* random.shuffle(cards) as envs/core/game.py's shuffle does it: Fisher-Yates from the
 * top, each place drawn by _randbelow */
static inline void kz_shuffle(kz_random *r, uint8_t *cards, int n) {
    for (int i = n - 1; i > 0; i--) {
        uint32_t j = kz_random_below(r, (uint32_t)i + 1);
        uint8_t c = cards[i];
        cards[i] = cards[j];
        cards[j] = c;
    }
}

extern const kz_game kz_wizard, kz_wunder_punkt, kz_silberne_ananas, kz_hoch_tief,
    kz_geheimtrumpf;

/* helpers every game uses */
/* the bits set, without a library call (the build has no -mpopcnt, so
 * __builtin_popcountll would call libgcc) */
static inline int kz_popcount64(uint64_t x) {
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
static inline int kz_lowbit64(uint64_t x) { return __builtin_ctzll(x); }
static inline void kz_set_err(char *err, size_t errlen, const char *msg) {
    if (errlen) { strncpy(err, msg, errlen - 1); err[errlen - 1] = 0; }
}

#endif
