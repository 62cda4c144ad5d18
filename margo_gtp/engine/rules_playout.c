/* Random playouts: Python's own Mersenne Twister (so a seeded random.Random plays the same
 * game on both cores), splitmix64 (MCTS's generator, Board.seeded_playout), or any Python
 * callable, and the playout loop of random_playout in margo_gtp/engine/playout.py. */
#include "rules_core.h"

uint32_t mt_next(MT *m) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (m->index >= 624) {
        int kk;
        for (kk = 0; kk < 624 - 397; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + 397] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < 623; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (m->mt[623] & 0x80000000U) | (m->mt[0] & 0x7fffffffU);
        m->mt[623] = m->mt[396] ^ (y >> 1) ^ mag01[y & 0x1U];
        m->index = 0;
    }
    y = m->mt[m->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

double mt_random(MT *m) {
    uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

int mt_from_tuple(PyObject *t, MT *m) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 625) {
        PyErr_SetString(PyExc_ValueError, "generator state: a tuple of 625 ints expected (random.Random.getstate()[1])");
        return -1;
    }
    for (int k = 0; k < 624; k++) {
        unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(t, k));
        if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
        if (v > 0xffffffffUL) {
            PyErr_SetString(PyExc_ValueError, "generator state: words must fit 32 bits");
            return -1;
        }
        m->mt[k] = (uint32_t)v;
    }
    long index = PyLong_AsLong(PyTuple_GET_ITEM(t, 624));
    if (index == -1 && PyErr_Occurred()) return -1;
    if (index < 0 || index > 624) {
        PyErr_SetString(PyExc_ValueError, "generator state: index out of range");
        return -1;
    }
    m->index = (int)index;
    return 0;
}

PyObject *mt_to_tuple(const MT *m) {
    PyObject *t = PyTuple_New(625);
    if (!t) return NULL;
    for (int k = 0; k < 624; k++) {
        PyObject *v = PyLong_FromUnsignedLong(m->mt[k]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, v);
    }
    PyObject *v = PyLong_FromLong(m->index);
    if (!v) {
        Py_DECREF(t);
        return NULL;
    }
    PyTuple_SET_ITEM(t, 624, v);
    return t;
}

static uint64_t sm_next(SplitMix *g) {
    uint64_t z = (g->x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double sm_random(SplitMix *g) { return (double)(sm_next(g) >> 11) * (1.0 / 9007199254740992.0); }
double draw_mt(void *m) { return mt_random((MT *)m); }
double draw_sm(void *g) { return sm_random((SplitMix *)g); }

/* Any other generator: call its random() (a Python callable); an error or a value outside
 * [0, 1) leaves a Python exception set, which stops the playout. */
double draw_py(void *fn) {
    if (PyErr_Occurred()) return 0.0;
    PyObject *v = PyObject_CallNoArgs((PyObject *)fn);
    if (!v) return 0.0;
    double x = PyFloat_AsDouble(v);
    Py_DECREF(v);
    if (x == -1.0 && PyErr_Occurred()) return 0.0;
    if (!(x >= 0.0 && x < 1.0)) {
        PyErr_SetString(PyExc_ValueError, "random() returned a value outside [0, 1)");
        return 0.0;
    }
    return x;
}

/* Board._random_playout, with `draw` giving uniform doubles in [0, 1): candidates are tried
 * in random order without replacement and the first legal one is played. Returns the
 * moves played, or -1 with an exception set. With draw_py, a random() that changed the
 * board stops the loop with BOARD_CHANGED (as CPython's "dictionary changed size during
 * iteration"): the candidates describe a position that is gone. */
long playout(StateObject *s, draw_fn draw, void *gen, long max_moves) {
    int nw = s->nw, count = s->count;
    const W *playable = s->geo->up_to_level + (size_t)s->top_level * nw;
    int *cands = PyMem_RawMalloc((count + 1) * sizeof(int));
    int *where = PyMem_RawMalloc((count + 1) * sizeof(int));
    if (!cands || !where) {
        PyMem_RawFree(cands);
        PyMem_RawFree(where);
        rules_no_memory();
        return -1;
    }
    int n = 0;
    for (int i = 0; i < count; i++) where[i] = -1;
    const W *supp = BITS(s, B_SUPP);
    for (int w = 0; w < nw; w++) {
        W x = supp[w] & playable[w];
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            where[i] = n;
            cands[n++] = i;
        }
    }
    long played = 0;
    Res r;
    W before[MAXW];
    if (stack_reserve(s, max_moves < 1024 ? max_moves : 1024) < 0) { /* most 9x9 games fit */
        played = -1;
        goto done;
    }
    while (played < max_moves && s->end_term == END_NONE) {
        int c = s->to_move;
        int k = n;
        int extra = s->allow_pass ? 1 : 0;
        int sl = swap_legal(s, c);
        if (sl) extra++;
        int chosen = -3; /* none */
        while (k + extra) {
            uint64_t version = s->version;
            int pick = (int)(draw(gen) * (k + extra));
            if (draw == draw_py && (PyErr_Occurred() || s->version != version)) {
                if (!PyErr_Occurred()) /* the candidates describe a position that is gone */
                    PyErr_SetString(PyExc_RuntimeError, BOARD_CHANGED);
                played = -1;
                goto done;
            }
            if (pick >= k) { /* a pass or a swap, both always legal when offered */
                chosen = (pick == k && sl) ? CODE_SWAP : CODE_PASS;
                break;
            }
            int i = cands[pick];
            if (resolve(s, i, c, &r)) {
                chosen = i;
                break;
            }
            k--;
            int j = cands[k];
            cands[pick] = j;
            cands[k] = i;
            where[j] = pick;
            where[i] = k;
        }
        if (chosen == -3) break; /* the side to move has no legal move: game over (R17) */
        memcpy(before, supp, nw * sizeof(W));
        if (commit(s, chosen, c, chosen >= 0 ? &r : NULL) < 0) {
            played = -1;
            break;
        }
        played++;
        for (int w = 0; w < nw; w++) {
            W x = (before[w] ^ supp[w]) & playable[w];
            while (x) {
                int i = w * 64 + __builtin_ctzll(x);
                x &= x - 1;
                if (where[i] < 0) {
                    where[i] = n;
                    cands[n++] = i;
                } else {
                    int pos = where[i];
                    int last = cands[--n];
                    if (last != i) {
                        cands[pos] = last;
                        where[last] = pos;
                    }
                    where[i] = -1;
                }
            }
        }
    }
done:
    PyMem_RawFree(cands);
    PyMem_RawFree(where);
    return played;
}
