/* The CPython face of the rules kernel: stichzoo.envs.kernel._kernel.
 *
 * One type, Kernel(name, options), holds a game under fixed options (its
 * kz_config) and steps states that live in numpy uint8 arrays, one row per
 * game.  Every call checks the buffers it gets (size, item size) and every
 * state it touches (the game's valid()), so nothing Python passes in can
 * crash the process: a wrong buffer is a TypeError/ValueError, a corrupted
 * state a KernelStateError, an action outside the mask the illegal-action
 * error the Python core raises (set once by stichzoo.envs.kernel).
 *
 * The batch calls (step, observe, new_games) loop in C over many games so
 * that a decision costs no Python at all; the one-game calls (legal, apply,
 * encode) serve the AEC-style checks of the differential test.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "kz.h"

static PyObject *IllegalAction = NULL;  /* set by set_errors; ValueError until then */
static PyObject *StateError = NULL;     /* KernelStateError, a ValueError */

static const kz_game *const GAMES[] = {
#ifdef KZ_HAVE_WIZARD
    &kz_wizard,
#endif
#ifdef KZ_HAVE_WUNDER_PUNKT
    &kz_wunder_punkt,
#endif
#ifdef KZ_HAVE_SILBERNE_ANANAS
    &kz_silberne_ananas,
#endif
#ifdef KZ_HAVE_HOCH_TIEF
    &kz_hoch_tief,
#endif
#ifdef KZ_HAVE_GEHEIMTRUMPF
    &kz_geheimtrumpf,
#endif
    NULL,
};

/* the searches: weak, so a game without a <game>_search.c links without one */
extern const kz_search kz_wizard_search __attribute__((weak));
extern const kz_search kz_wunder_punkt_search __attribute__((weak));
extern const kz_search kz_silberne_ananas_search __attribute__((weak));
extern const kz_search kz_hoch_tief_search __attribute__((weak));
extern const kz_search kz_geheimtrumpf_search __attribute__((weak));

static const kz_search *search_of(const char *name) {
    const kz_search *all[] = {&kz_wizard_search, &kz_wunder_punkt_search,
                              &kz_silberne_ananas_search, &kz_hoch_tief_search,
                              &kz_geheimtrumpf_search};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i] && strcmp(all[i]->name, name) == 0) return all[i];
    return NULL;
}

typedef struct {
    PyObject_HEAD
    const kz_game *g;
    kz_config cfg;
} Kernel;

/* -- buffers ----------------------------------------------------------------- */

typedef struct {
    Py_buffer view;
    int held;
} Buf;

static void buf_release(Buf *b) {
    if (b->held) PyBuffer_Release(&b->view);
    b->held = 0;
}

/* A C-contiguous buffer of items of `itemsize` bytes, writable if asked,
 * whose byte length is a multiple of `row` bytes (row > 0) or exactly `len`. */
static int buf_get(PyObject *obj, Buf *b, const char *what, Py_ssize_t itemsize, int writable) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    b->held = 0;
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a %sC-contiguous array", what,
                     writable ? "writable " : "");
        return -1;
    }
    b->held = 1;
    if (b->view.itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s must have items of %zd bytes, got %zd", what,
                     itemsize, b->view.itemsize);
        buf_release(b);
        return -1;
    }
    return 0;
}

static int buf_states(Kernel *k, PyObject *obj, Buf *b, Py_ssize_t *n) {
    if (buf_get(obj, b, "states", 1, 1) < 0) return -1;
    if (b->view.len % k->cfg.state_size) {
        PyErr_Format(PyExc_ValueError, "states must be rows of %d bytes (Kernel.new_states)",
                     (int)k->cfg.state_size);
        buf_release(b);
        return -1;
    }
    *n = b->view.len / k->cfg.state_size;
    return 0;
}

static int check_len(Buf *b, const char *what, Py_ssize_t want_items) {
    if (b->view.len / b->view.itemsize != want_items) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd items, got %zd", what, want_items,
                     b->view.len / b->view.itemsize);
        return -1;
    }
    return 0;
}

static inline void *state_at(Kernel *k, Buf *b, Py_ssize_t i) {
    return (char *)b->view.buf + (size_t)i * (size_t)k->cfg.state_size;
}

static int check_index(Py_ssize_t i, Py_ssize_t n) {
    if (i < 0 || i >= n) {
        PyErr_Format(PyExc_IndexError, "game index %zd out of range 0..%zd", i, n - 1);
        return -1;
    }
    return 0;
}

/* the game's valid(), turned into KernelStateError naming the game row */
static int check_state(Kernel *k, const void *s, Py_ssize_t i) {
    char err[200];
    err[0] = 0;
    const kz_head *h = (const kz_head *)s;
    if (h->current_player < -1 || h->current_player >= k->cfg.num_players
        || (h->over != 0 && h->over != 1) || (h->truncated != 0 && h->truncated != 1)) {
        PyErr_Format(StateError, "game %zd: corrupted state (seat to act %d, over %d, truncated %d)",
                     i, h->current_player, h->over, h->truncated);
        return -1;
    }
    if (k->g->valid(&k->cfg, s, err, sizeof err) != 0) {
        PyErr_Format(StateError, "game %zd: corrupted state: %s", i, err[0] ? err : "invalid");
        return -1;
    }
    return 0;
}

static inline int is_legal(const uint64_t *mask, int64_t a, int num_actions) {
    return a >= 0 && a < num_actions && ((mask[a >> 6] >> (a & 63)) & 1);
}

static PyObject *mask_to_int(const uint64_t *mask) {
    PyObject *lo = PyLong_FromUnsignedLongLong(mask[0]);
    PyObject *hi = PyLong_FromUnsignedLongLong(mask[1]);
    PyObject *sh = PyLong_FromLong(64);
    PyObject *t = NULL, *r = NULL;
    if (lo && hi && sh && (t = PyNumber_Lshift(hi, sh))) r = PyNumber_Or(t, lo);
    Py_XDECREF(lo); Py_XDECREF(hi); Py_XDECREF(sh); Py_XDECREF(t);
    return r;
}

/* -- the type ----------------------------------------------------------------- */

static int Kernel_init(Kernel *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"name", "options", NULL};
    const char *name;
    PyObject *options;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sO", kwlist, &name, &options)) return -1;
    const kz_game *g = NULL;
    for (int i = 0; GAMES[i]; i++)
        if (strcmp(GAMES[i]->name, name) == 0) g = GAMES[i];
    if (!g) {
        PyErr_Format(PyExc_ValueError, "the kernel has no game %R", PyTuple_GET_ITEM(args, 0));
        return -1;
    }
    PyObject *seq = PySequence_Fast(options, "options must be a sequence of ints");
    if (!seq) return -1;
    Py_ssize_t nopt = PySequence_Fast_GET_SIZE(seq);
    if (nopt > KZ_MAX_OPTIONS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "at most %d kernel options, got %zd", KZ_MAX_OPTIONS, nopt);
        return -1;
    }
    int64_t opt[KZ_MAX_OPTIONS];
    for (Py_ssize_t i = 0; i < nopt; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        opt[i] = v;
    }
    Py_DECREF(seq);
    memset(&self->cfg, 0, sizeof self->cfg);
    for (Py_ssize_t i = 0; i < nopt; i++) self->cfg.opt[i] = opt[i];
    char err[200];
    err[0] = 0;
    if (g->configure(&self->cfg, opt, (int)nopt, err, sizeof err) != 0) {
        PyErr_Format(PyExc_ValueError, "%s: %s", g->name, err[0] ? err : "bad options");
        return -1;
    }
    if (self->cfg.state_size <= (int)sizeof(kz_head) || self->cfg.num_players < 1
        || self->cfg.num_players > KZ_MAX_PLAYERS || self->cfg.num_actions < 1
        || self->cfg.num_actions > 64 * KZ_MASK_WORDS || self->cfg.obs_size < 1) {
        PyErr_Format(PyExc_SystemError, "%s: configure left an inconsistent config", g->name);
        return -1;
    }
    self->g = g;
    return 0;
}

static PyObject *Kernel_deal(Kernel *self, PyObject *arg) {
    unsigned long long seed = PyLong_AsUnsignedLongLong(arg);
    if (seed == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    Py_ssize_t n = (Py_ssize_t)self->cfg.num_orders * self->cfg.order_len;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    if (!out) return NULL;
    kz_random r;
    kz_random_seed(&r, (uint64_t)seed);
    self->g->deal(&self->cfg, &r, (uint8_t *)PyBytes_AS_STRING(out));
    return out;
}

static PyObject *Kernel_start(Kernel *self, PyObject *args) {
    PyObject *sobj, *oobj;
    Py_ssize_t i, n;
    if (!PyArg_ParseTuple(args, "OnO", &sobj, &i, &oobj)) return NULL;
    Buf s, o;
    if (buf_states(self, sobj, &s, &n) < 0) return NULL;
    if (check_index(i, n) < 0 || buf_get(oobj, &o, "orders", 1, 0) < 0) { buf_release(&s); return NULL; }
    PyObject *ret = NULL;
    if (check_len(&o, "orders", (Py_ssize_t)self->cfg.num_orders * self->cfg.order_len) == 0) {
        char err[200];
        err[0] = 0;
        void *st = state_at(self, &s, i);
        memset(st, 0, self->cfg.state_size);
        if (self->g->start(&self->cfg, st, (const uint8_t *)o.view.buf, err, sizeof err) != 0)
            PyErr_Format(PyExc_ValueError, "%s: %s", self->g->name, err[0] ? err : "bad deck orders");
        else
            ret = Py_NewRef(Py_None);
    }
    buf_release(&o);
    buf_release(&s);
    return ret;
}

/* replay(states, i, orders, actions): a new game from deck orders, then the
 * actions (bytes or uint8, one id each), every one checked against the mask:
 * the kernel's twin of a Python state, rebuilt from its deck orders and history. */
static PyObject *Kernel_replay(Kernel *self, PyObject *args) {
    PyObject *sobj, *oobj, *aobj;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "OnOO", &sobj, &i, &oobj, &aobj)) return NULL;
    PyObject *r = PyObject_CallMethod((PyObject *)self, "start", "OnO", sobj, i, oobj);
    if (!r) return NULL;
    Py_DECREF(r);
    Buf s, a;
    Py_ssize_t n;
    if (buf_states(self, sobj, &s, &n) < 0) return NULL;
    if (buf_get(aobj, &a, "actions", 1, 0) < 0) { buf_release(&s); return NULL; }
    void *st = state_at(self, &s, i);
    const uint8_t *acts = a.view.buf;
    PyObject *ret = Py_None;
    for (Py_ssize_t j = 0; j < a.view.len; j++) {
        kz_head *h = st;
        uint64_t mask[KZ_MASK_WORDS] = {0};
        if (!h->over && !h->truncated && h->current_player >= 0) self->g->legal(&self->cfg, st, mask);
        if (!is_legal(mask, acts[j], self->cfg.num_actions)) {
            PyErr_Format(IllegalAction ? IllegalAction : PyExc_ValueError,
                         "replay: action %d (decision %zd) is not legal", acts[j], j);
            ret = NULL;
            break;
        }
        int32_t deltas[KZ_MAX_PLAYERS];
        self->g->apply(&self->cfg, st, acts[j], deltas);
    }
    buf_release(&a);
    buf_release(&s);
    Py_XINCREF(ret);
    return ret;
}

static PyObject *Kernel_new_games(Kernel *self, PyObject *args) {
    PyObject *sobj, *robj, *seedobj;
    if (!PyArg_ParseTuple(args, "OOO", &sobj, &robj, &seedobj)) return NULL;
    Buf s, r, sd;
    Py_ssize_t n;
    if (buf_states(self, sobj, &s, &n) < 0) return NULL;
    if (buf_get(robj, &r, "rows", 8, 0) < 0) { buf_release(&s); return NULL; }
    if (buf_get(seedobj, &sd, "seeds", 8, 0) < 0) { buf_release(&r); buf_release(&s); return NULL; }
    PyObject *ret = NULL;
    Py_ssize_t k = r.view.len / 8;
    if (check_len(&sd, "seeds", k) == 0) {
        const int64_t *rows = (const int64_t *)r.view.buf;
        const uint64_t *seeds = (const uint64_t *)sd.view.buf;
        size_t olen = (size_t)self->cfg.num_orders * self->cfg.order_len;
        uint8_t *orders = PyMem_Malloc(olen);
        ret = Py_None;
        for (Py_ssize_t j = 0; orders && j < k; j++) {
            if (check_index(rows[j], n) < 0) { ret = NULL; break; }
            kz_random rnd;
            kz_random_seed(&rnd, seeds[j]);
            self->g->deal(&self->cfg, &rnd, orders);
            void *st = state_at(self, &s, rows[j]);
            memset(st, 0, self->cfg.state_size);
            char err[200];
            err[0] = 0;
            if (self->g->start(&self->cfg, st, orders, err, sizeof err) != 0) {
                PyErr_Format(PyExc_SystemError, "%s: its own deal was refused: %s", self->g->name, err);
                ret = NULL;
                break;
            }
        }
        if (!orders) PyErr_NoMemory(), ret = NULL;
        PyMem_Free(orders);
        Py_XINCREF(ret);
    }
    buf_release(&sd);
    buf_release(&r);
    buf_release(&s);
    return ret;
}

/* one game: fetch states row i, checked */
static void *one_state(Kernel *self, PyObject *sobj, Py_ssize_t i, Buf *s) {
    Py_ssize_t n;
    if (buf_states(self, sobj, s, &n) < 0) return NULL;
    if (check_index(i, n) < 0) { buf_release(s); return NULL; }
    void *st = state_at(self, s, i);
    if (check_state(self, st, i) < 0) { buf_release(s); return NULL; }
    return st;
}

static PyObject *Kernel_valid(Kernel *self, PyObject *args) {
    PyObject *sobj;
    Py_ssize_t i;
    Buf s;
    if (!PyArg_ParseTuple(args, "On", &sobj, &i)) return NULL;
    if (!one_state(self, sobj, i, &s)) return NULL;
    buf_release(&s);
    Py_RETURN_NONE;
}

static PyObject *Kernel_legal(Kernel *self, PyObject *args) {
    PyObject *sobj;
    Py_ssize_t i;
    Buf s;
    if (!PyArg_ParseTuple(args, "On", &sobj, &i)) return NULL;
    void *st = one_state(self, sobj, i, &s);
    if (!st) return NULL;
    uint64_t mask[KZ_MASK_WORDS] = {0};
    const kz_head *h = st;
    if (!h->over && !h->truncated && h->current_player >= 0) self->g->legal(&self->cfg, st, mask);
    buf_release(&s);
    return mask_to_int(mask);
}

static PyObject *Kernel_apply(Kernel *self, PyObject *args) {
    PyObject *sobj;
    Py_ssize_t i;
    long action;
    Buf s;
    if (!PyArg_ParseTuple(args, "Onl", &sobj, &i, &action)) return NULL;
    void *st = one_state(self, sobj, i, &s);
    if (!st) return NULL;
    kz_head *h = st;
    uint64_t mask[KZ_MASK_WORDS] = {0};
    if (!h->over && !h->truncated && h->current_player >= 0) self->g->legal(&self->cfg, st, mask);
    if (!is_legal(mask, action, self->cfg.num_actions)) {
        buf_release(&s);
        PyErr_Format(IllegalAction ? IllegalAction : PyExc_ValueError,
                     "game %zd: illegal action %ld for player_%d%s", i, action, h->current_player,
                     (h->over || h->truncated) ? " (the game is over)" : "");
        return NULL;
    }
    int32_t deltas[KZ_MAX_PLAYERS] = {0};
    int flags = self->g->apply(&self->cfg, st, (int)action, deltas);
    buf_release(&s);
    PyObject *d = PyTuple_New(self->cfg.num_players);
    if (!d) return NULL;
    for (int p = 0; p < self->cfg.num_players; p++)
        PyTuple_SET_ITEM(d, p, PyLong_FromLong(deltas[p]));
    return Py_BuildValue("(iN)", flags, d);
}

static PyObject *Kernel_encode(Kernel *self, PyObject *args) {
    PyObject *sobj, *oobj;
    Py_ssize_t i;
    int seat;
    Buf s, o;
    if (!PyArg_ParseTuple(args, "OniO", &sobj, &i, &seat, &oobj)) return NULL;
    void *st = one_state(self, sobj, i, &s);
    if (!st) return NULL;
    if (seat < 0 || seat >= self->cfg.num_players) {
        buf_release(&s);
        PyErr_Format(PyExc_ValueError, "seat %d out of range 0..%d", seat, self->cfg.num_players - 1);
        return NULL;
    }
    if (buf_get(oobj, &o, "out", 4, 1) < 0) { buf_release(&s); return NULL; }
    PyObject *ret = NULL;
    if (check_len(&o, "out", self->cfg.obs_size) == 0) {
        self->g->encode(&self->cfg, st, seat, (float *)o.view.buf);
        ret = Py_NewRef(Py_None);
    }
    buf_release(&o);
    buf_release(&s);
    return ret;
}

static PyObject *Kernel_win_share(Kernel *self, PyObject *args) {
    PyObject *sobj;
    Py_ssize_t i;
    Buf s;
    if (!PyArg_ParseTuple(args, "On", &sobj, &i)) return NULL;
    void *st = one_state(self, sobj, i, &s);
    if (!st) return NULL;
    double share[KZ_MAX_PLAYERS] = {0};
    self->g->win_share(&self->cfg, st, share);
    buf_release(&s);
    PyObject *t = PyTuple_New(self->cfg.num_players);
    if (!t) return NULL;
    for (int p = 0; p < self->cfg.num_players; p++) PyTuple_SET_ITEM(t, p, PyFloat_FromDouble(share[p]));
    return t;
}

static PyObject *Kernel_head(Kernel *self, PyObject *args) {
    PyObject *sobj;
    Py_ssize_t i, n;
    Buf s;
    if (!PyArg_ParseTuple(args, "On", &sobj, &i)) return NULL;
    if (buf_states(self, sobj, &s, &n) < 0) return NULL;
    if (check_index(i, n) < 0) { buf_release(&s); return NULL; }
    kz_head h;
    memcpy(&h, state_at(self, &s, i), sizeof h);
    buf_release(&s);
    PyObject *totals = PyTuple_New(self->cfg.num_players);
    if (!totals) return NULL;
    for (int p = 0; p < self->cfg.num_players; p++) PyTuple_SET_ITEM(totals, p, PyLong_FromLong(h.totals[p]));
    return Py_BuildValue("{s:i,s:i,s:O,s:O,s:i,s:i,s:N}", "current_player", h.current_player,
                         "phase", h.phase, "over", h.over ? Py_True : Py_False,
                         "truncated", h.truncated ? Py_True : Py_False, "round_index",
                         h.round_index, "decisions", h.decisions, "totals", totals);
}

/* step(states, rows, actions, deltas, flags) -> -1, or the position j of the
 * first illegal action (nothing applied then).  rows, actions: int64 (k,);
 * deltas: int32 (N, num_players); flags: uint8 (N,).  Rows not stepped keep
 * their deltas and flags (the caller clears them). */
static PyObject *Kernel_step(Kernel *self, PyObject *args) {
    PyObject *sobj, *robj, *aobj, *dobj, *fobj;
    if (!PyArg_ParseTuple(args, "OOOOO", &sobj, &robj, &aobj, &dobj, &fobj)) return NULL;
    Buf s, r, a, d, f;
    Py_ssize_t n;
    if (buf_states(self, sobj, &s, &n) < 0) return NULL;
    PyObject *ret = NULL;
    int got = 1;
    if (buf_get(robj, &r, "rows", 8, 0) < 0) got = 0;
    else if (buf_get(aobj, &a, "actions", 8, 0) < 0) { buf_release(&r); got = 0; }
    else if (buf_get(dobj, &d, "deltas", 4, 1) < 0) { buf_release(&a); buf_release(&r); got = 0; }
    else if (buf_get(fobj, &f, "flags", 1, 1) < 0) { buf_release(&d); buf_release(&a); buf_release(&r); got = 0; }
    if (!got) { buf_release(&s); return NULL; }
    Py_ssize_t k = r.view.len / 8;
    const int P = self->cfg.num_players;
    if (check_len(&a, "actions", k) < 0 || check_len(&d, "deltas", n * P) < 0
        || check_len(&f, "flags", n) < 0) goto done;
    const int64_t *rows = r.view.buf;
    const int64_t *acts = a.view.buf;
    int32_t *deltas = d.view.buf;
    uint8_t *flags = f.view.buf;
    Py_ssize_t bad = -1;
    /* each game at most once: a second action for a game was checked against the
     * state before the first was applied, so it could be illegal when applied */
    uint8_t *seen = PyMem_Calloc((size_t)n, 1);
    if (!seen) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t j = 0; j < k; j++) {
        if (check_index(rows[j], n) < 0) { PyMem_Free(seen); goto done; }
        if (seen[rows[j]]++) {
            PyMem_Free(seen);
            PyErr_Format(PyExc_ValueError, "step: game %lld is named twice in rows",
                         (long long)rows[j]);
            goto done;
        }
    }
    PyMem_Free(seen);
    for (Py_ssize_t j = 0; j < k; j++) {  /* check everything before changing anything */
        if (check_index(rows[j], n) < 0) goto done;
        void *st = state_at(self, &s, rows[j]);
        if (check_state(self, st, rows[j]) < 0) goto done;
        const kz_head *h = st;
        uint64_t mask[KZ_MASK_WORDS] = {0};
        if (!h->over && !h->truncated && h->current_player >= 0) self->g->legal(&self->cfg, st, mask);
        if (!is_legal(mask, acts[j], self->cfg.num_actions)) {
            bad = j;
            break;
        }
    }
    if (bad < 0) {
        for (Py_ssize_t j = 0; j < k; j++) {
            kz_head *h = state_at(self, &s, rows[j]);
            flags[rows[j]] = (uint8_t)self->g->apply(&self->cfg, h, (int)acts[j], deltas + rows[j] * P);
        }
    }
    ret = PyLong_FromSsize_t(bad);
done:
    buf_release(&f); buf_release(&d); buf_release(&a); buf_release(&r); buf_release(&s);
    return ret;
}

/* observe(states, rows or None, obs, mask, to_act, encode=True): the seat to
 * act, its legal mask (0/1 int8) and, with encode, its observation, for the
 * games `rows` (all when None), written at their rows.  A finished game gets
 * to_act -1, an empty mask and the observation of seat 0. */
static PyObject *Kernel_observe(Kernel *self, PyObject *args) {
    PyObject *sobj, *robj, *oobj, *mobj, *tobj;
    int encode = 1;
    if (!PyArg_ParseTuple(args, "OOOOO|p", &sobj, &robj, &oobj, &mobj, &tobj, &encode)) return NULL;
    Buf s, r, o, m, t;
    Py_ssize_t n;
    r.held = 0;
    if (buf_states(self, sobj, &s, &n) < 0) return NULL;
    if (robj != Py_None && buf_get(robj, &r, "rows", 8, 0) < 0) { buf_release(&s); return NULL; }
    if (buf_get(oobj, &o, "obs", 4, 1) < 0) { buf_release(&r); buf_release(&s); return NULL; }
    if (buf_get(mobj, &m, "mask", 1, 1) < 0) { buf_release(&o); buf_release(&r); buf_release(&s); return NULL; }
    if (buf_get(tobj, &t, "to_act", 8, 1) < 0) { buf_release(&m); buf_release(&o); buf_release(&r); buf_release(&s); return NULL; }
    PyObject *ret = NULL;
    const int A = self->cfg.num_actions, O = self->cfg.obs_size;
    if (check_len(&o, "obs", n * O) < 0 || check_len(&m, "mask", n * A) < 0
        || check_len(&t, "to_act", n) < 0) goto done;
    Py_ssize_t k = r.held ? r.view.len / 8 : n;
    const int64_t *rows = r.held ? r.view.buf : NULL;
    for (Py_ssize_t j = 0; j < k; j++) {
        Py_ssize_t i = rows ? rows[j] : j;
        if (check_index(i, n) < 0) goto done;
        const void *st = state_at(self, &s, i);
        if (check_state(self, st, i) < 0) goto done;
        const kz_head *h = st;
        uint64_t mask[KZ_MASK_WORDS] = {0};
        int seat = h->current_player;
        if (!h->over && !h->truncated && seat >= 0) self->g->legal(&self->cfg, st, mask);
        int8_t *mrow = (int8_t *)m.view.buf + (size_t)i * A;
        for (int x = 0; x < A; x++) mrow[x] = (int8_t)((mask[x >> 6] >> (x & 63)) & 1);
        ((int64_t *)t.view.buf)[i] = seat;
        if (encode) self->g->encode(&self->cfg, st, seat >= 0 ? seat : 0, (float *)o.view.buf + (size_t)i * O);
    }
    ret = Py_NewRef(Py_None);
done:
    buf_release(&t); buf_release(&m); buf_release(&o); buf_release(&r); buf_release(&s);
    return ret;
}

/* pimc(states, i, seat, actions, worlds, rollouts, mt, endgame=0) -> (values, mt): see kz_search.
 * actions: int32 (nacts,); mt: random.Random's getstate()[1], the tuple of 624
 * words and the position; the second result is that tuple after the draws
 * (for setstate), values the float64 bytes of (worlds, nacts, rollouts). */
static PyObject *Kernel_pimc(Kernel *self, PyObject *args) {
    PyObject *sobj, *aobj, *mobj;
    Py_ssize_t i;
    int seat, worlds, rollouts, endgame = 0;
    if (!PyArg_ParseTuple(args, "OniOiiO|i", &sobj, &i, &seat, &aobj, &worlds, &rollouts, &mobj,
                          &endgame))
        return NULL;
    const kz_search *search = search_of(self->g->name);
    if (!search || !search->pimc) {
        PyErr_Format(PyExc_NotImplementedError, "%s has no search in the kernel", self->g->name);
        return NULL;
    }
    if (seat < 0 || seat >= self->cfg.num_players || worlds < 1 || worlds > 100000
        || rollouts < 1 || rollouts > 1000 || endgame < 0 || endgame > 60) {
        PyErr_Format(PyExc_ValueError, "pimc: seat %d, worlds %d, rollouts %d or endgame %d out "
                     "of range", seat, worlds, rollouts, endgame);
        return NULL;
    }
    if (endgame > 0 && !search->solve) {
        PyErr_Format(PyExc_NotImplementedError, "%s has no endgame solver in the kernel",
                     self->g->name);
        return NULL;
    }
    kz_random r;
    if (!PyTuple_Check(mobj) || PyTuple_GET_SIZE(mobj) != 625) {
        PyErr_SetString(PyExc_TypeError, "pimc: mt must be random.Random().getstate()[1]");
        return NULL;
    }
    for (int j = 0; j < 625; j++) {
        unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(mobj, j));
        if (v == (unsigned long)-1 && PyErr_Occurred()) return NULL;
        if (v > 0xFFFFFFFFUL || (j == 624 && v > 624)) {
            PyErr_SetString(PyExc_ValueError, "pimc: not a random.Random state");
            return NULL;
        }
        if (j < 624) r.mt[j] = (uint32_t)v;
        else r.index = (int)v;
    }
    Buf s, a;
    void *st = one_state(self, sobj, i, &s);
    if (!st) return NULL;
    if (buf_get(aobj, &a, "actions", 4, 0) < 0) { buf_release(&s); return NULL; }
    PyObject *ret = NULL;
    Py_ssize_t nacts = a.view.len / 4;
    const kz_head *h = st;
    uint64_t mask[KZ_MASK_WORDS] = {0};
    if (h->over || h->truncated || h->current_player != seat) {
        PyErr_Format(PyExc_ValueError, "pimc: seat %d is not to act", seat);
        goto done;
    }
    self->g->legal(&self->cfg, st, mask);
    for (Py_ssize_t j = 0; j < nacts; j++)
        if (!is_legal(mask, ((const int32_t *)a.view.buf)[j], self->cfg.num_actions)) {
            PyErr_Format(IllegalAction ? IllegalAction : PyExc_ValueError,
                         "pimc: action %d is not legal", ((const int32_t *)a.view.buf)[j]);
            goto done;
        }
    Py_ssize_t count = (Py_ssize_t)worlds * nacts * rollouts;
    PyObject *out = PyBytes_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(double));
    if (!out) goto done;
    char err[200];
    err[0] = 0;
    if (search->pimc(&self->cfg, st, seat, a.view.buf, (int)nacts, worlds, rollouts, endgame, &r,
                     (double *)PyBytes_AS_STRING(out), err, sizeof err) != 0) {
        Py_DECREF(out);
        PyErr_Format(PyExc_ValueError, "%s pimc: %s", self->g->name, err[0] ? err : "failed");
        goto done;
    }
    PyObject *mt = PyTuple_New(625);
    if (!mt) { Py_DECREF(out); goto done; }
    for (int j = 0; j < 625; j++) {
        PyObject *v = PyLong_FromUnsignedLong(j < 624 ? r.mt[j] : (unsigned long)r.index);
        if (!v) { Py_DECREF(mt); Py_DECREF(out); goto done; }
        PyTuple_SET_ITEM(mt, j, v);
    }
    ret = Py_BuildValue("(NN)", out, mt);
done:
    buf_release(&a); buf_release(&s);
    return ret;
}

/* solve(states, i, max_nodes, seat=None) -> ({action: value}, nodes) or None: see
 * kz_search.solve.  The state is taken as a world (all hands as they stand); seat:
 * whose value (the seat to act when None).  None: the node budget ran out. */
static PyObject *Kernel_solve(Kernel *self, PyObject *args) {
    PyObject *sobj, *seatobj = Py_None;
    Py_ssize_t i;
    long long max_nodes;
    if (!PyArg_ParseTuple(args, "OnL|O", &sobj, &i, &max_nodes, &seatobj)) return NULL;
    const kz_search *search = search_of(self->g->name);
    if (!search || !search->solve) {
        PyErr_Format(PyExc_NotImplementedError, "%s has no endgame solver in the kernel",
                     self->g->name);
        return NULL;
    }
    if (max_nodes < 1 || max_nodes > 1000000000000LL) {
        PyErr_Format(PyExc_ValueError, "solve: max_nodes %lld out of range (1 to 1e12)", max_nodes);
        return NULL;
    }
    long seat = -1;
    if (seatobj != Py_None) {
        seat = PyLong_AsLong(seatobj);
        if (seat == -1 && PyErr_Occurred()) return NULL;
        if (seat < 0 || seat >= self->cfg.num_players) {
            PyErr_Format(PyExc_ValueError, "solve: seat %ld out of range", seat);
            return NULL;
        }
    }
    Buf s;
    void *st = one_state(self, sobj, i, &s);
    if (!st) return NULL;
    PyObject *ret = NULL;
    const kz_head *h = st;
    if (h->over || h->truncated || h->current_player < 0) {
        PyErr_SetString(PyExc_ValueError, "solve: nobody is to act");
        goto done;
    }
    if (seat < 0) seat = h->current_player;
    uint64_t mask[KZ_MASK_WORDS] = {0};
    self->g->legal(&self->cfg, st, mask);
    double values[KZ_MASK_WORDS * 64];
    long nodes = 0;
    char err[200];
    err[0] = 0;
    int got = search->solve(&self->cfg, st, (int)seat, values, (long)max_nodes, &nodes, err, sizeof err);
    if (got < 0) {
        PyErr_Format(PyExc_ValueError, "%s solve: %s", self->g->name, err[0] ? err : "failed");
        goto done;
    }
    if (got == 0) {
        ret = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *d = PyDict_New();
    if (!d) goto done;
    int j = 0;
    for (int a = 0; a < self->cfg.num_actions && a < KZ_MASK_WORDS * 64; a++) {
        if (!(mask[a >> 6] >> (a & 63) & 1)) continue;
        if (j >= got) break;
        PyObject *k = PyLong_FromLong(a), *v = PyFloat_FromDouble(values[j++]);
        if (!k || !v || PyDict_SetItem(d, k, v) < 0) {
            Py_XDECREF(k); Py_XDECREF(v); Py_DECREF(d);
            goto done;
        }
        Py_DECREF(k); Py_DECREF(v);
    }
    if (j != got) {
        Py_DECREF(d);
        PyErr_Format(PyExc_ValueError, "%s solve: %d values for %d legal actions", self->g->name, got, j);
        goto done;
    }
    ret = Py_BuildValue("(Nl)", d, nodes);
done:
    buf_release(&s);
    return ret;
}

static PyObject *Kernel_get(Kernel *self, void *which) {
    switch ((intptr_t)which) {
    case 0: return PyLong_FromLong(self->cfg.num_players);
    case 1: return PyLong_FromLong(self->cfg.num_actions);
    case 2: return PyLong_FromLong(self->cfg.obs_size);
    case 3: return PyLong_FromLong(self->cfg.num_orders);
    case 4: return PyLong_FromLong(self->cfg.order_len);
    case 5: return PyLong_FromLong(self->cfg.state_size);
    case 7: return PyBool_FromLong(search_of(self->g->name) != NULL);
    case 8: {
        const kz_search *search = search_of(self->g->name);
        return PyBool_FromLong(search != NULL && search->solve != NULL);
    }
    default: return PyUnicode_FromString(self->g->name);
    }
}

static PyGetSetDef Kernel_getset[] = {
    {"num_players", (getter)Kernel_get, NULL, "seats at the table", (void *)0},
    {"num_actions", (getter)Kernel_get, NULL, "flat action ids", (void *)1},
    {"obs_size", (getter)Kernel_get, NULL, "floats in one observation", (void *)2},
    {"num_orders", (getter)Kernel_get, NULL, "deck orders a game draws", (void *)3},
    {"order_len", (getter)Kernel_get, NULL, "cards in one deck order", (void *)4},
    {"state_size", (getter)Kernel_get, NULL, "bytes of one state", (void *)5},
    {"name", (getter)Kernel_get, NULL, "the game's name", (void *)6},
    {"has_search", (getter)Kernel_get, NULL, "whether the game has pimc in the kernel", (void *)7},
    {"has_solver", (getter)Kernel_get, NULL, "whether the game has an exact endgame in the kernel",
     (void *)8},
    {NULL},
};

static PyMethodDef Kernel_methods[] = {
    {"deal", (PyCFunction)Kernel_deal, METH_O, "deal(seed) -> bytes: Game.deal(random.Random(seed)), flat"},
    {"start", (PyCFunction)Kernel_start, METH_VARARGS, "start(states, i, orders): a new game from deck orders"},
    {"replay", (PyCFunction)Kernel_replay, METH_VARARGS, "replay(states, i, orders, actions): start, then apply every action (checked)"},
    {"new_games", (PyCFunction)Kernel_new_games, METH_VARARGS, "new_games(states, rows, seeds): deal and start"},
    {"valid", (PyCFunction)Kernel_valid, METH_VARARGS, "valid(states, i): raise KernelStateError if corrupted"},
    {"legal", (PyCFunction)Kernel_legal, METH_VARARGS, "legal(states, i) -> int bitmask"},
    {"apply", (PyCFunction)Kernel_apply, METH_VARARGS, "apply(states, i, action) -> (flags, deltas)"},
    {"encode", (PyCFunction)Kernel_encode, METH_VARARGS, "encode(states, i, seat, out)"},
    {"win_share", (PyCFunction)Kernel_win_share, METH_VARARGS, "win_share(states, i) -> tuple"},
    {"head", (PyCFunction)Kernel_head, METH_VARARGS, "head(states, i) -> dict of the shared fields"},
    {"step", (PyCFunction)Kernel_step, METH_VARARGS, "step(states, rows, actions, deltas, flags) -> -1 or first illegal"},
    {"solve", (PyCFunction)Kernel_solve, METH_VARARGS, "solve(states, i, max_nodes, seat=None) -> ({action: value}, nodes), or None past the budget"},
    {"pimc", (PyCFunction)Kernel_pimc, METH_VARARGS, "pimc(states, i, seat, actions, worlds, rollouts, mt, endgame=0) -> (float64 values, mt after)"},
    {"observe", (PyCFunction)Kernel_observe, METH_VARARGS, "observe(states, rows|None, obs, mask, to_act, encode=True)"},
    {NULL},
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stichzoo.envs.kernel._kernel.Kernel",
    .tp_basicsize = sizeof(Kernel),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Kernel(name, options): one game under fixed options, stepping states in arrays",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Kernel_init,
    .tp_methods = Kernel_methods,
    .tp_getset = Kernel_getset,
};

static PyObject *set_errors(PyObject *mod, PyObject *cls) {
    (void)mod;
    Py_XINCREF(cls);
    Py_XSETREF(IllegalAction, cls);
    Py_RETURN_NONE;
}

static PyObject *games(PyObject *mod, PyObject *unused) {
    (void)mod; (void)unused;
    PyObject *t = PyList_New(0);
    for (int i = 0; t && GAMES[i]; i++) {
        PyObject *s = PyUnicode_FromString(GAMES[i]->name);
        if (!s || PyList_Append(t, s) < 0) { Py_XDECREF(s); Py_DECREF(t); return NULL; }
        Py_DECREF(s);
    }
    return t;
}

static PyMethodDef module_methods[] = {
    {"set_errors", set_errors, METH_O, "set_errors(cls): the exception raised for an illegal action"},
    {"games", games, METH_NOARGS, "games() -> the games compiled in"},
    {NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_kernel", "stichzoo's compiled rules kernel (see kz.h)", -1, module_methods,
};

PyMODINIT_FUNC PyInit__kernel(void) {
    if (PyType_Ready(&KernelType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    StateError = PyErr_NewExceptionWithDoc("stichzoo.envs.kernel._kernel.KernelStateError",
                                           "A state array the kernel refuses: corrupted or of another game.",
                                           PyExc_ValueError, NULL);
    if (!StateError || PyModule_AddObjectRef(m, "KernelStateError", StateError) < 0
        || PyModule_AddObjectRef(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
