/* CPython's random.Random in C: MT19937 seeded as random.seed(int) seeds it.
 *
 * Why: every game draws its deck orders with random.Random(deck_seed) and
 * envs/core/game.py's shuffle; drawing them here gives the kernel the very
 * deals of the Python core (tests compare them seed for seed) without a
 * call back into Python for every new game.
 */
#include "kz.h"

static void init_genrand(kz_random *r, uint32_t s) {
    uint32_t *mt = r->mt;
    mt[0] = s;
    for (int i = 1; i < 624; i++)
        mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
    r->index = 624;
}

/* init_by_array of the reference implementation, as CPython's random_seed calls it */
static void init_by_array(kz_random *r, const uint32_t *key, int keylen) {
    uint32_t *mt = r->mt;
    init_genrand(r, 19650218U);
    int i = 1, j = 0;
    int k = 624 > keylen ? 624 : keylen;
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++; j++;
        if (i >= 624) { mt[0] = mt[623]; i = 1; }
        if (j >= keylen) j = 0;
    }
    for (k = 623; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= 624) { mt[0] = mt[623]; i = 1; }
    }
    mt[0] = 0x80000000U;
    r->index = 624;
}

void kz_random_seed(kz_random *r, uint64_t seed) {
    uint32_t key[2];
    int keylen;
    key[0] = (uint32_t)(seed & 0xFFFFFFFFU);
    key[1] = (uint32_t)(seed >> 32);
    keylen = key[1] ? 2 : 1;  /* CPython: the int's 32-bit words, at least one */
    init_by_array(r, key, keylen);
}

uint32_t kz_random_u32(kz_random *r) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t *mt = r->mt;
    uint32_t y;
    if (r->index >= 624) {
        int kk;
        for (kk = 0; kk < 624 - 397; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + 397] ^ (y >> 1) ^ mag01[y & 1U];
        }
        for (; kk < 623; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 1U];
        }
        y = (mt[623] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[623] = mt[396] ^ (y >> 1) ^ mag01[y & 1U];
        r->index = 0;
    }
    y = mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}
