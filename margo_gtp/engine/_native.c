/* The native MarGo rules core: the same rules as margo_gtp/engine/board.py, in C99.
 *
 * PEP 399 style: board.py is the readable reference, this file mirrors its state layout
 * (balls per colour, buried balls, supported empty points, unsettled balls, a Zobrist key
 * of all balls and one of the buried balls) and its algorithms function by function:
 *
 *   Board._probe / _scan / _has_top      -> probe / scan / has_top
 *   Board._resolve / _cascade            -> resolve / cascade
 *   Board._commit / pop                  -> commit / State.pop
 *   Board._placement_legal, legal_moves  -> placement_legal / State.legal_moves
 *   Board.random_playout                 -> State.random_playout (Python's own Mersenne
 *                                           Twister, so a seeded playout plays the same game)
 *   Board._each_group, territory_masks   -> each_group / territory
 *
 * Bit sets are arrays of 64-bit words over the flat point index of geometry.py (level, row,
 * column); a 19x19 board has 2470 points, so MAXW = 39 words. Per-point relations (support,
 * resting, neighbours with their crossing points, ...) are short index lists, so a group walk
 * costs the same on every board size. Written against the plain CPython C API: no build or
 * runtime dependency beyond a C compiler.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#define MAXW 39
#define NB 5 /* bit sets of a state: white, black, buried, supported empty, unsettled */
#define B_WHITE 0
#define B_BLACK 1
#define B_BURIED 2
#define B_SUPP 3
#define B_UNS 4

typedef uint64_t W;

#define TEST(b, i) (((b)[(i) >> 6] >> ((i) & 63)) & 1)
#define SETB(b, i) ((b)[(i) >> 6] |= (W)1 << ((i) & 63))
#define CLRB(b, i) ((b)[(i) >> 6] &= ~((W)1 << ((i) & 63)))
#define FLIPB(b, i) ((b)[(i) >> 6] ^= (W)1 << ((i) & 63))

enum { KO_SITUATIONAL = 0, KO_POSITIONAL = 1, KO_SIMPLE = 2, KO_NONE = 3 };
enum { END_NONE = 0, END_TWO_PASSES = 1, END_FIRST_CAPTURE = 2 };
#define CODE_PASS (-1)
#define CODE_SWAP (-2)

/* ------------------------------------------------------------------ geometry */

typedef struct {
    int level;
    int nsup, sup[4];         /* support: the four points below (R2) */
    int nrest, rest[4];       /* resting: the points above that rest on this one */
    int nnb, nb[4];           /* same-level orthogonal neighbours (R9b) ... */
    int ca[4], cb[4];         /* ... and the two crossing points of that contact, or -1 (R10) */
    int npn, pn[4];           /* level-0 neighbours for level-0 points (own freedoms, R12) */
    int nunder, ua[4], ub[4], uo[4]; /* contacts below this ball it crosses: pair a-b, other o */
    int buries, buried_by;    /* index or -1 (R8) */
    int nadj;                 /* every contact in one list for the group walk: resting, */
    struct { int j, ca, cb; } adj[12]; /* neighbours with their crossings, then support */
} Pt;

typedef struct {
    PyObject_HEAD
    int size, count, nw;
    Pt *pts;
    /* The group walk's table, compact for the cache: per point the number of contacts,
     * then (neighbour, crossing a, crossing b) int16 triples, then the own-freedom
     * neighbours (level 0 only) and all same-level neighbours. */
    struct Walk { int8_t nadj, npn, nnb, pad; int16_t adj[12][3]; int16_t pn[4], nb[4]; } *walk;
    W *plane;        /* nw */
    W *level_mask;   /* size * nw */
    W *up_to_level;  /* size * nw */
    uint64_t *zob[2];
    uint64_t ztm[2];
    PyObject *moves; /* tuple: Move per point index */
    PyObject *pass_move, *swap_move;
    PyObject *colours; /* (Colour.WHITE, Colour.BLACK) */
} GeoObject;

static int at(int size, int x, int y, int l) {
    if (l < 0 || l >= size) return -1;
    int side = size - l;
    if (x < 0 || y < 0 || x >= side || y >= side) return -1;
    int off = 0;
    for (int k = 0; k < l; k++) off += (size - k) * (size - k);
    return off + y * side + x;
}

static void Geo_dealloc(GeoObject *g) {
    PyMem_Free(g->pts);
    PyMem_Free(g->walk);
    PyMem_Free(g->plane);
    PyMem_Free(g->level_mask);
    PyMem_Free(g->up_to_level);
    PyMem_Free(g->zob[0]);
    PyMem_Free(g->zob[1]);
    Py_XDECREF(g->moves);
    Py_XDECREF(g->pass_move);
    Py_XDECREF(g->swap_move);
    Py_XDECREF(g->colours);
    Py_TYPE(g)->tp_free((PyObject *)g);
}

static int read_u64_tuple(PyObject *seq, uint64_t *out, Py_ssize_t n, const char *what) {
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: a tuple of %zd ints expected", what, n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PyTuple_GET_ITEM(seq, k);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError, "%s: ints expected", what);
            return -1;
        }
        unsigned long long v = PyLong_AsUnsignedLongLong(item);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
        out[k] = v;
    }
    return 0;
}

/* Geometry(size, zobrist_white, zobrist_black, zobrist_to_move, moves, pass_move, swap_move, colours) */
static PyObject *Geo_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    int size;
    PyObject *zw, *zb, *ztm, *moves, *pass_move, *swap_move, *colours;
    if (kwds && PyDict_Size(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Geometry takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "iOOOOOOO!", &size, &zw, &zb, &ztm, &moves, &pass_move, &swap_move, &PyTuple_Type,
                          &colours))
        return NULL;
    if (PyTuple_GET_SIZE(colours) != 2) {
        PyErr_SetString(PyExc_ValueError, "colours: a tuple (white, black) expected");
        return NULL;
    }
    if (size < 2 || size > 19) {
        PyErr_Format(PyExc_ValueError, "size must be 2..19, not %d", size);
        return NULL;
    }
    int count = 0;
    for (int l = 0; l < size; l++) count += (size - l) * (size - l);
    int nw = (count + 63) / 64;
    if (!PyTuple_Check(moves) || PyTuple_GET_SIZE(moves) != count) {
        PyErr_Format(PyExc_ValueError, "moves: a tuple of %d moves expected", count);
        return NULL;
    }
    GeoObject *g = (GeoObject *)type->tp_alloc(type, 0);
    if (!g) return NULL;
    g->size = size;
    g->count = count;
    g->nw = nw;
    g->pts = PyMem_Calloc(count, sizeof(Pt));
    g->walk = PyMem_Calloc(count, sizeof(struct Walk));
    g->plane = PyMem_Calloc(nw, sizeof(W));
    g->level_mask = PyMem_Calloc((size_t)size * nw, sizeof(W));
    g->up_to_level = PyMem_Calloc((size_t)size * nw, sizeof(W));
    g->zob[0] = PyMem_Calloc(count, sizeof(uint64_t));
    g->zob[1] = PyMem_Calloc(count, sizeof(uint64_t));
    if (!g->pts || !g->walk || !g->plane || !g->level_mask || !g->up_to_level || !g->zob[0] || !g->zob[1]) {
        Py_DECREF(g);
        return PyErr_NoMemory();
    }
    if (read_u64_tuple(zw, g->zob[0], count, "zobrist_white") < 0 ||
        read_u64_tuple(zb, g->zob[1], count, "zobrist_black") < 0 ||
        read_u64_tuple(ztm, g->ztm, 2, "zobrist_to_move") < 0) {
        Py_DECREF(g);
        return NULL;
    }
    Py_INCREF(moves);
    g->moves = moves;
    Py_INCREF(pass_move);
    g->pass_move = pass_move;
    Py_INCREF(swap_move);
    g->swap_move = swap_move;
    Py_INCREF(colours);
    g->colours = colours;
    int i = 0;
    for (int l = 0; l < size; l++) {
        int side = size - l;
        for (int y = 0; y < side; y++) {
            for (int x = 0; x < side; x++, i++) {
                Pt *p = &g->pts[i];
                p->level = l;
                SETB(g->level_mask + (size_t)l * nw, i);
                if (l == 0) SETB(g->plane, i);
                if (l) {
                    int s[4] = {at(size, x, y, l - 1), at(size, x + 1, y, l - 1), at(size, x, y + 1, l - 1),
                                at(size, x + 1, y + 1, l - 1)};
                    for (int k = 0; k < 4; k++) if (s[k] >= 0) p->sup[p->nsup++] = s[k];
                }
                int r[4] = {at(size, x - 1, y - 1, l + 1), at(size, x, y - 1, l + 1), at(size, x - 1, y, l + 1),
                            at(size, x, y, l + 1)};
                for (int k = 0; k < 4; k++) if (r[k] >= 0) p->rest[p->nrest++] = r[k];
                /* east, west, north, south with their crossing points (geometry.py _crossings) */
                int nbrs[4] = {at(size, x + 1, y, l), at(size, x - 1, y, l), at(size, x, y + 1, l), at(size, x, y - 1, l)};
                int cr[4][2] = {{at(size, x, y - 1, l + 1), at(size, x, y, l + 1)},
                                {at(size, x - 1, y - 1, l + 1), at(size, x - 1, y, l + 1)},
                                {at(size, x - 1, y, l + 1), at(size, x, y, l + 1)},
                                {at(size, x - 1, y - 1, l + 1), at(size, x, y - 1, l + 1)}};
                for (int k = 0; k < 4; k++) {
                    if (nbrs[k] < 0) continue;
                    int a = cr[k][0], b = cr[k][1];
                    if (a < 0 || b < 0) a = b = -1;
                    p->nb[p->nnb] = nbrs[k];
                    p->ca[p->nnb] = a;
                    p->cb[p->nnb] = b;
                    p->nnb++;
                    if (l == 0) p->pn[p->npn++] = nbrs[k];
                }
                if (l >= 1) {
                    int below[4][3] = {
                        {at(size, x, y, l - 1), at(size, x + 1, y, l - 1), at(size, x, y - 1, l)},
                        {at(size, x, y + 1, l - 1), at(size, x + 1, y + 1, l - 1), at(size, x, y + 1, l)},
                        {at(size, x, y, l - 1), at(size, x, y + 1, l - 1), at(size, x - 1, y, l)},
                        {at(size, x + 1, y, l - 1), at(size, x + 1, y + 1, l - 1), at(size, x + 1, y, l)}};
                    for (int k = 0; k < 4; k++) {
                        if (below[k][2] < 0) continue;
                        p->ua[p->nunder] = below[k][0];
                        p->ub[p->nunder] = below[k][1];
                        p->uo[p->nunder] = below[k][2];
                        p->nunder++;
                    }
                }
                /* The walk pops the last contact pushed first: supports last, so a walk dives
                 * to the board plane, where the freedoms are unless all_freedoms (a living
                 * group is found sooner; 36 -> 31 balls visited per playout move). */
                for (int k = 0; k < p->nrest; k++) p->adj[p->nadj].j = p->rest[k], p->adj[p->nadj].ca = -1, p->nadj++;
                for (int k = 0; k < p->nnb; k++) {
                    p->adj[p->nadj].j = p->nb[k];
                    p->adj[p->nadj].ca = p->ca[k];
                    p->adj[p->nadj].cb = p->cb[k];
                    p->nadj++;
                }
                for (int k = 0; k < p->nsup; k++) p->adj[p->nadj].j = p->sup[k], p->adj[p->nadj].ca = -1, p->nadj++;
                p->buries = l >= 2 ? at(size, x + 1, y + 1, l - 2) : -1;
                p->buried_by = at(size, x - 1, y - 1, l + 2);
            }
        }
    }
    for (int k = 0; k < count; k++) {
        const Pt *p = &g->pts[k];
        struct Walk *wk = &g->walk[k];
        wk->nadj = (int8_t)p->nadj;
        for (int m = 0; m < p->nadj; m++) {
            wk->adj[m][0] = (int16_t)p->adj[m].j;
            wk->adj[m][1] = (int16_t)p->adj[m].ca;
            wk->adj[m][2] = (int16_t)p->adj[m].cb;
        }
        wk->npn = (int8_t)p->npn;
        for (int m = 0; m < p->npn; m++) wk->pn[m] = (int16_t)p->pn[m];
        wk->nnb = (int8_t)p->nnb;
        for (int m = 0; m < p->nnb; m++) wk->nb[m] = (int16_t)p->nb[m];
    }
    for (int l = 0; l < size; l++) {
        W *dst = g->up_to_level + (size_t)l * nw;
        for (int k = 0; k <= l; k++)
            for (int w = 0; w < nw; w++) dst[w] |= g->level_mask[(size_t)k * nw + w];
    }
    return (PyObject *)g;
}

static PyTypeObject GeoType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "margo_gtp.engine._native.Geometry",
    .tp_basicsize = sizeof(GeoObject),
    .tp_dealloc = (destructor)Geo_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Precomputed tables of one board size (see geometry.py)",
    .tp_new = Geo_new,
};

/* ------------------------------------------------------------------ state */

typedef struct {
    int colour, code, to_move, passes, swapped, end_term, end_winner;
    long cap0, cap1, end_margin;
    uint64_t key, bkey;
} Entry;

typedef struct {
    PyObject_HEAD
    GeoObject *geo;
    int nw, count;
    /* rules */
    int all_freedoms, bridge_cutting, top_level, single_pass, ko_rule, top_view, allow_pass, swap_on, fcw;
    /* position */
    W bits[NB * MAXW];
    W root[2 * MAXW];
    int root_to_move;
    uint64_t key, bkey;
    int to_move, passes, swapped, end_term, end_winner;
    long cap[2], end_margin;
    /* history */
    Entry *stack;
    W *stack_bits;
    Py_ssize_t nstack, capstack;
    uint64_t *pos;
    Py_ssize_t npos, cappos;
    /* multiset of repetition keys (open addressing; zero counts stay as tombstones) */
    uint64_t *hkey;
    int32_t *hcount;
    uint8_t *hused;
    size_t hcap, hfill;
    /* scratch */
    int *walk;
    /* bumped by every change of the position (commit, undo, set_root, load): a playout
     * that calls back into Python sees whether the callback changed the board */
    uint64_t version;
} StateObject;

#define BITS(s, k) ((s)->bits + (k) * MAXW)

static inline int any(const W *a, int nw) {
    for (int w = 0; w < nw; w++) if (a[w]) return 1;
    return 0;
}

static inline int popcount_bits(const W *a, int nw) {
    int n = 0;
    for (int w = 0; w < nw; w++) n += __builtin_popcountll(a[w]);
    return n;
}

/* -- repetition multiset */

static int h_resize(StateObject *s, size_t cap) {
    uint64_t *ok = s->hkey;
    int32_t *oc = s->hcount;
    uint8_t *ou = s->hused;
    size_t ocap = s->hcap;
    uint64_t *nk = PyMem_Calloc(cap, sizeof(uint64_t));
    int32_t *nc = PyMem_Calloc(cap, sizeof(int32_t));
    uint8_t *nu = PyMem_Calloc(cap, 1);
    if (!nk || !nc || !nu) {
        PyMem_Free(nk);
        PyMem_Free(nc);
        PyMem_Free(nu);
        PyErr_NoMemory();
        return -1;
    }
    s->hkey = nk;
    s->hcount = nc;
    s->hused = nu;
    s->hcap = cap;
    s->hfill = 0;
    for (size_t k = 0; k < ocap; k++) {
        if (ou[k] && oc[k] > 0) {
            size_t h = (size_t)((ok[k] * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);
            while (nu[h]) h = (h + 1) & (cap - 1);
            nu[h] = 1;
            nk[h] = ok[k];
            nc[h] = oc[k];
            s->hfill++;
        }
    }
    PyMem_Free(ok);
    PyMem_Free(oc);
    PyMem_Free(ou);
    return 0;
}

static inline size_t h_find(const StateObject *s, uint64_t key) {
    size_t mask = s->hcap - 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
    while (s->hused[h] && s->hkey[h] != key) h = (h + 1) & mask;
    return h;
}

static inline int h_count(const StateObject *s, uint64_t key) {
    size_t h = h_find(s, key);
    return s->hused[h] ? s->hcount[h] : 0;
}

static int h_add(StateObject *s, uint64_t key, int delta) {
    if (delta > 0 && (s->hfill + 1) * 2 > s->hcap) {
        size_t live = 0;
        for (size_t k = 0; k < s->hcap; k++) live += s->hused[k] && s->hcount[k] > 0;
        size_t cap = s->hcap;
        while ((live + 1) * 4 > cap) cap *= 2;
        if (h_resize(s, cap) < 0) return -1;
    }
    size_t h = h_find(s, key);
    if (!s->hused[h]) {
        s->hused[h] = 1;
        s->hkey[h] = key;
        s->hcount[h] = 0;
        s->hfill++;
    }
    s->hcount[h] += delta;
    return 0;
}

static int positions_push(StateObject *s, uint64_t key) {
    if (s->npos == s->cappos) {
        Py_ssize_t cap = s->cappos ? s->cappos * 2 : 64;
        uint64_t *p = PyMem_Realloc(s->pos, cap * sizeof(uint64_t));
        if (!p) {
            PyErr_NoMemory();
            return -1;
        }
        s->pos = p;
        s->cappos = cap;
    }
    if (h_add(s, key, 1) < 0) return -1;
    s->pos[s->npos++] = key;
    return 0;
}

static inline uint64_t repetition_key(const StateObject *s, uint64_t key, uint64_t bkey, int to_move) {
    if (s->top_view) key ^= bkey;
    if (s->ko_rule != KO_POSITIONAL) key ^= s->geo->ztm[to_move];
    return key;
}

static inline int repeats(const StateObject *s, uint64_t key) {
    if (s->ko_rule == KO_NONE) return 0;
    if (s->ko_rule == KO_SIMPLE) return s->npos >= 2 && s->pos[s->npos - 2] == key;
    return h_count(s, key) > 0;
}

/* -- groups */

static inline int has_free(const StateObject *s, const Pt *p, const W *free) {
    if (s->all_freedoms) {
        for (int k = 0; k < p->nnb; k++) if (TEST(free, p->nb[k])) return 1;
    } else {
        for (int k = 0; k < p->npn; k++) if (TEST(free, p->pn[k])) return 1;
    }
    return 0;
}

/* The group of the ball at `start` (balls of `mine`, contacts cut by `theirs`): returns 1
 * with the group in `seen` if it has no freedom in `free` (NULL: never look), else 0 with
 * `seen` holding balls of that living group (Board._probe). */
static int probe(const StateObject *s, int start, const W *mine, const W *theirs, const W *free, W *seen) {
    const struct Walk *table = s->geo->walk;
    int *walk = s->walk;
    int nw = s->nw, top = 0, cuts = s->bridge_cutting, af = s->all_freedoms;
    W avail[MAXW]; /* balls of the colour not reached yet: one test per contact */
    for (int w = 0; w < nw; w++) {
        avail[w] = mine[w];
        seen[w] = 0;
    }
    CLRB(avail, start);
    SETB(seen, start);
    walk[top++] = start;
    while (top) {
        const struct Walk *p = &table[walk[--top]];
        if (free) {
            const int16_t *f = af ? p->nb : p->pn;
            int n = af ? p->nnb : p->npn;
            for (int k = 0; k < n; k++) if (TEST(free, f[k])) return 0;
        }
        for (int k = 0; k < p->nadj; k++) {
            int j = p->adj[k][0];
            if (!TEST(avail, j)) continue;
            int ca = p->adj[k][1];
            if (ca >= 0 && cuts && TEST(theirs, ca) && TEST(theirs, p->adj[k][2]))
                continue; /* both crossing points hold enemy balls: the contact is cut */
            CLRB(avail, j);
            SETB(seen, j);
            walk[top++] = j;
        }
    }
    return 1;
}

static int has_top(const StateObject *s, const W *group, const W *occ) {
    const Pt *pts = s->geo->pts;
    for (int w = 0; w < s->nw; w++) {
        W x = group[w];
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            const Pt *p = &pts[i];
            int covered = 0;
            for (int k = 0; k < p->nrest; k++) if (TEST(occ, p->rest[k])) { covered = 1; break; }
            if (!covered) return 1;
        }
    }
    return 0;
}

/* Whether the ball at q has a contact, not cut, with a ball of `set` (a probe from q would
 * reach it at once). */
static inline int touches(const StateObject *s, int q, const W *set, const W *theirs) {
    const struct Walk *p = &s->geo->walk[q];
    for (int k = 0; k < p->nadj; k++) {
        int j = p->adj[k][0];
        if (!TEST(set, j)) continue;
        int ca = p->adj[k][1];
        if (ca >= 0 && s->bridge_cutting && TEST(theirs, ca) && TEST(theirs, p->adj[k][2])) continue;
        return 1;
    }
    return 0;
}

/* Board._scan: the union of the freedomless groups holding a ball of `seeds` (into `dead`,
 * may be NULL: then return 1 at the first such group). With `occ`, only groups with a ball
 * to lift count.
 *
 * The seeds are the balls around one placement, so several often share a group: a seed
 * touching a ball already shown to be in a living group (`alive`: the balls a probe
 * reached before it found a freedom, and the seeds with a freedom of their own) is in that
 * group too, and needs no probe of its own (the probe would end in that group). */
static int scan(const StateObject *s, const W *seeds_in, const W *mine, const W *theirs, const W *free,
                const W *occ, W *dead, const W *alive_in) {
    int nw = s->nw;
    W seeds[MAXW], seen[MAXW], alive[MAXW];
    memcpy(seeds, seeds_in, nw * sizeof(W));
    if (alive_in) { /* balls the caller already knows to be in living groups */
        memcpy(alive, alive_in, nw * sizeof(W));
        for (int w = 0; w < nw; w++) seeds[w] &= ~alive[w];
    } else {
        memset(alive, 0, nw * sizeof(W));
    }
    if (dead) memset(dead, 0, nw * sizeof(W));
    int found = 0, some_alive = alive_in != NULL;
    const Pt *pts = s->geo->pts;
    for (int w = 0; w < nw; w++) {
        while (seeds[w]) {
            int q = w * 64 + __builtin_ctzll(seeds[w]);
            seeds[w] &= seeds[w] - 1;
            if (free && has_free(s, &pts[q], free)) {
                SETB(alive, q);
                some_alive = 1;
                continue;
            }
            if (some_alive && touches(s, q, alive, theirs)) {
                SETB(alive, q);
                continue;
            }
            int freedomless = probe(s, q, mine, theirs, free, seen);
            for (int v = 0; v < nw; v++) seeds[v] &= ~seen[v];
            if (!freedomless) {
                for (int v = 0; v < nw; v++) alive[v] |= seen[v];
                some_alive = 1;
                continue;
            }
            if (occ == NULL || has_top(s, seen, occ)) {
                found = 1;
                if (!dead) return 1;
                for (int v = 0; v < nw; v++) dead[v] |= seen[v];
            }
        }
    }
    return found;
}

static void free_points(const StateObject *s, const W *occ, const W *supported, W *free) {
    if (s->all_freedoms) {
        memcpy(free, supported, s->nw * sizeof(W));
    } else {
        for (int w = 0; w < s->nw; w++) free[w] = s->geo->plane[w] & ~occ[w];
    }
}

/* -- resolving a placement */

typedef struct {
    W bits[NB * MAXW]; /* white, black, buried, supported empty, unsettled */
    uint64_t key, bkey, rk;
    long removed[2];
} Res;

#define RB(r, k) ((r)->bits + (k) * MAXW)

/* Board._cascade: R13 step 3 and the suicide test of step 4. */
static int cascade(const StateObject *s, int i, int c, W *balls0, W *balls1, W *buried, uint64_t *key, uint64_t *bkey,
                   W *supported, W *seeds_own, W *seeds_opp, long removed[2], W *unsettled, const W *first_dead) {
    int nw = s->nw;
    const GeoObject *g = s->geo;
    const Pt *pts = g->pts;
    W *balls[2] = {balls0, balls1};
    W seeds[2][MAXW];
    memcpy(seeds[c], seeds_own, nw * sizeof(W));
    memcpy(seeds[c ^ 1], seeds_opp, nw * sizeof(W));
    W mine[MAXW], occ[MAXW], free[MAXW], dead[MAXW], lifted[MAXW], unsupported[MAXW];
    removed[0] = removed[1] = 0;
    int side = c ^ 1, idle = 0;
    while (idle < 2) {
        W *theirs = balls[side ^ 1];
        for (int w = 0; w < nw; w++) {
            mine[w] = balls[side][w] & ~buried[w];
            occ[w] = mine[w] | theirs[w] | buried[w];
            seeds[side][w] &= mine[w];
        }
        free_points(s, occ, supported, free);
        if (first_dead) { /* the first step's scan, already made by resolve */
            memcpy(dead, first_dead, nw * sizeof(W));
            first_dead = NULL;
        } else {
            scan(s, seeds[side], mine, theirs, free, NULL, dead, NULL);
        }
        memset(seeds[side], 0, nw * sizeof(W));
        memset(lifted, 0, nw * sizeof(W));
        int any_lifted = 0;
        for (int w = nw - 1; w >= 0; w--) { /* top-down: the highest index is on the highest level */
            W x = dead[w];
            while (x) {
                int t = 63 - __builtin_clzll(x);
                x ^= (W)1 << t;
                int r = w * 64 + t;
                const Pt *p = &pts[r];
                int covered = 0;
                for (int k = 0; k < p->nrest; k++) if (TEST(occ, p->rest[k])) { covered = 1; break; }
                if (!covered) {
                    CLRB(occ, r);
                    SETB(lifted, r);
                    any_lifted = 1;
                }
            }
        }
        if (any_lifted) {
            if (side == c && TEST(lifted, i)) return 0; /* the placed ball itself was captured */
            idle = 0;
            memset(unsupported, 0, nw * sizeof(W));
            for (int w = 0; w < nw; w++) balls[side][w] ^= lifted[w];
            removed[side] += popcount_bits(lifted, nw);
            for (int w = 0; w < nw; w++) {
                W x = lifted[w];
                while (x) {
                    int r = w * 64 + __builtin_ctzll(x);
                    x &= x - 1;
                    const Pt *p = &pts[r];
                    *key ^= g->zob[side][r];
                    for (int k = 0; k < p->nsup; k++) { /* released zombies */
                        int q = p->sup[k];
                        if (TEST(balls[0], q)) SETB(seeds[0], q);
                        if (TEST(balls[1], q)) SETB(seeds[1], q);
                    }
                    for (int k = 0; k < p->nrest; k++) SETB(unsupported, p->rest[k]);
                    int u = p->buries;
                    if (u >= 0 && TEST(buried, u) && !(pts[u].buried_by >= 0 && TEST(occ, pts[u].buried_by))) {
                        CLRB(buried, u); /* un-buried: may now be taken (revealed capture) */
                        int uc = TEST(balls[0], u) ? 0 : 1;
                        *bkey ^= g->zob[uc][u];
                        SETB(seeds[uc], u);
                    }
                }
            }
            for (int w = 0; w < nw; w++) supported[w] &= ~unsupported[w];
            for (int w = 0; w < nw; w++) {
                W x = lifted[w];
                while (x) {
                    int r = w * 64 + __builtin_ctzll(x);
                    x &= x - 1;
                    const Pt *p = &pts[r];
                    int ok = 1;
                    for (int k = 0; k < p->nsup; k++) if (!TEST(occ, p->sup[k])) { ok = 0; break; }
                    if (ok) SETB(supported, r);
                }
            }
            if (s->all_freedoms) {
                for (int w = 0; w < nw; w++) {
                    W x = unsupported[w];
                    while (x) {
                        int r = w * 64 + __builtin_ctzll(x);
                        x &= x - 1;
                        const Pt *p = &pts[r];
                        for (int k = 0; k < p->nnb; k++) {
                            int q = p->nb[k];
                            if (TEST(balls[0], q)) SETB(seeds[0], q);
                            if (TEST(balls[1], q)) SETB(seeds[1], q);
                        }
                    }
                }
            }
        } else {
            idle++;
        }
        if (s->single_pass) break;
        side ^= 1;
    }
    W *own = balls[c], *opp = balls[c ^ 1];
    for (int w = 0; w < nw; w++) {
        occ[w] = balls0[w] | balls1[w];
        mine[w] = own[w] & ~buried[w];
    }
    free_points(s, occ, supported, free);
    if (!TEST(own, i)) return 0;
    if (!has_free(s, &pts[i], free) && probe(s, i, mine, opp, free, dead)) return 0;
    memset(unsettled, 0, nw * sizeof(W));
    if (s->single_pass) {
        W sd[MAXW];
        for (int w = 0; w < nw; w++) sd[w] = seeds[c][w] & mine[w];
        CLRB(sd, i);
        if (scan(s, sd, mine, opp, free, occ, NULL, NULL)) return 0; /* own group left freedomless ("illegal") */
        /* The single pass does not follow up what its removals released or un-buried:
         * remember the opponent's groups it left freedomless and liftable. */
        W theirs[MAXW];
        for (int w = 0; w < nw; w++) {
            theirs[w] = opp[w] & ~buried[w];
            sd[w] = seeds[c ^ 1][w] & theirs[w];
        }
        scan(s, sd, theirs, own, free, occ, unsettled, NULL);
    }
    return 1;
}

/* Board._resolve: what placing colour c at point i does; 1 (result in *r) or 0 if illegal.
 * i must be an empty supported point within max_level. */
static int resolve(const StateObject *s, int i, int c, Res *r) {
    int nw = s->nw;
    const GeoObject *g = s->geo;
    const Pt *pts = g->pts;
    const Pt *p = &pts[i];
    W *own = RB(r, c), *opp = RB(r, c ^ 1), *buried = RB(r, B_BURIED), *supported = RB(r, B_SUPP);
    W *unsettled = RB(r, B_UNS);
    const W *s_uns = BITS(s, B_UNS);
    memcpy(own, BITS(s, c), nw * sizeof(W));
    memcpy(opp, BITS(s, c ^ 1), nw * sizeof(W));
    memcpy(buried, BITS(s, B_BURIED), nw * sizeof(W));
    memcpy(supported, BITS(s, B_SUPP), nw * sizeof(W));
    SETB(own, i);
    W occ[MAXW], free[MAXW], seeds_opp[MAXW], seeds_own[MAXW], mine[MAXW], tmp[MAXW];
    for (int w = 0; w < nw; w++) occ[w] = own[w] | opp[w];
    uint64_t bkey = s->bkey;
    uint64_t key = s->key ^ g->zob[c][i];
    CLRB(supported, i);
    for (int k = 0; k < p->nrest; k++) {
        const Pt *q = &pts[p->rest[k]];
        int ok = 1;
        for (int m = 0; m < q->nsup; m++) if (!TEST(occ, q->sup[m])) { ok = 0; break; }
        if (ok) SETB(supported, p->rest[k]);
    }
    free_points(s, occ, supported, free);
    memset(seeds_opp, 0, nw * sizeof(W));
    memset(seeds_own, 0, nw * sizeof(W));
    int level = p->level;
    if (level == 0 || s->all_freedoms) {
        for (int k = 0; k < p->nnb; k++) if (TEST(opp, p->nb[k])) SETB(seeds_opp, p->nb[k]);
    }
    SETB(seeds_own, i);
    if (level) {
        if (s->bridge_cutting) {
            for (int k = 0; k < p->nunder; k++) {
                if (TEST(opp, p->ua[k]) && TEST(opp, p->ub[k]) && TEST(own, p->uo[k])) {
                    SETB(seeds_opp, p->ua[k]);
                    SETB(seeds_opp, p->ub[k]);
                }
            }
        }
        if (level >= 2) {
            int j = p->buries;
            const Pt *q = &pts[j];
            SETB(buried, j);
            W *side = TEST(own, j) ? own : opp;
            W *seeds = TEST(own, j) ? seeds_own : seeds_opp;
            bkey ^= g->zob[TEST(own, j) ? c : c ^ 1][j];
            for (int k = 0; k < q->nsup; k++) if (TEST(side, q->sup[k])) SETB(seeds, q->sup[k]);
            for (int k = 0; k < q->nrest; k++) if (TEST(side, q->rest[k])) SETB(seeds, q->rest[k]);
            for (int k = 0; k < q->nnb; k++) if (TEST(side, q->nb[k])) SETB(seeds, q->nb[k]);
        }
    }
    int slow;
    W dead_opp[MAXW]; /* the enemy's freedomless groups around the placement */
    const W *first_dead = NULL;
    if (any(s_uns, nw)) {
        slow = 1;
        for (int w = 0; w < nw; w++) {
            seeds_opp[w] |= s_uns[w] & opp[w];
            seeds_own[w] |= s_uns[w] & own[w];
        }
    } else {
        for (int w = 0; w < nw; w++) {
            mine[w] = opp[w] & ~buried[w];
            tmp[w] = seeds_opp[w] & mine[w];
        }
        /* All of them, not just the first with a ball to lift: the cascade's first step
         * needs exactly this scan, so it is not made twice. */
        slow = scan(s, tmp, mine, own, free, NULL, dead_opp, NULL) && has_top(s, dead_opp, occ);
        first_dead = dead_opp;
        if (!slow) {
            W seen[MAXW]; /* balls of the placed ball's group, which lives */
            for (int w = 0; w < nw; w++) mine[w] = own[w] & ~buried[w];
            if (has_free(s, p, free)) {
                memset(seen, 0, nw * sizeof(W));
                SETB(seen, i);
            } else if (probe(s, i, mine, opp, free, seen)) {
                return 0; /* suicide */
            }
            for (int w = 0; w < nw; w++) tmp[w] = seeds_own[w] & mine[w];
            CLRB(tmp, i);
            slow = scan(s, tmp, mine, opp, free, occ, NULL, seen);
        }
    }
    if (!slow) {
        memset(unsettled, 0, nw * sizeof(W));
        r->removed[0] = r->removed[1] = 0;
    } else {
        if (!cascade(s, i, c, RB(r, 0), RB(r, 1), buried, &key, &bkey, supported, seeds_own, seeds_opp, r->removed,
                     unsettled, first_dead))
            return 0;
    }
    uint64_t rk = repetition_key(s, key, bkey, c ^ 1);
    if (repeats(s, rk)) return 0;
    r->key = key;
    r->bkey = bkey;
    r->rk = rk;
    return 1;
}

/* Board._placement_legal: the cheap exact shortcut for a board-plane move that has a
 * freedom of its own and captures nothing, else the full resolution. */
static int placement_legal(const StateObject *s, int i, int c, Res *r) {
    const GeoObject *g = s->geo;
    const Pt *p = &g->pts[i];
    if (p->level == 0 && !s->all_freedoms && !any(BITS(s, B_UNS), s->nw)) {
        const W *w0 = BITS(s, 0), *w1 = BITS(s, 1), *opp = BITS(s, c ^ 1);
#define EMPTY0(q) ((q) != i && !TEST(w0, q) && !TEST(w1, q))
        int own_free = 0;
        for (int k = 0; k < p->npn; k++) if (EMPTY0(p->pn[k])) { own_free = 1; break; }
        if (own_free) {
            int all_ok = 1;
            for (int k = 0; k < p->nnb && all_ok; k++) {
                int e = p->nb[k];
                if (!TEST(opp, e)) continue;
                const Pt *q = &g->pts[e];
                int ok = 0;
                for (int m = 0; m < q->npn; m++) if (EMPTY0(q->pn[m])) { ok = 1; break; }
                if (!ok) all_ok = 0;
            }
#undef EMPTY0
            if (all_ok) {
                uint64_t key = s->key ^ g->zob[c][i];
                return !repeats(s, repetition_key(s, key, s->bkey, c ^ 1));
            }
        }
    }
    return resolve(s, i, c, r);
}

/* -- committing and undoing */

/* Room on the undo stack for `more` entries (one allocation rather than repeated
 * doublings, each copying the whole stack). */
static int stack_reserve(StateObject *s, Py_ssize_t more) {
    Py_ssize_t cap = s->nstack + more;
    if (cap <= s->capstack) return 0;
    Entry *e = PyMem_Realloc(s->stack, cap * sizeof(Entry));
    if (!e) {
        PyErr_NoMemory();
        return -1;
    }
    s->stack = e;
    W *b = PyMem_Realloc(s->stack_bits, (size_t)cap * NB * s->nw * sizeof(W));
    if (!b) {
        PyErr_NoMemory();
        return -1;
    }
    s->stack_bits = b;
    s->capstack = cap;
    return 0;
}

static int stack_push(StateObject *s, int c, int code) {
    int nw = s->nw;
    if (s->nstack == s->capstack) {
        Py_ssize_t cap = s->capstack ? s->capstack * 2 : 64;
        Entry *e = PyMem_Realloc(s->stack, cap * sizeof(Entry));
        if (!e) {
            PyErr_NoMemory();
            return -1;
        }
        s->stack = e;
        W *b = PyMem_Realloc(s->stack_bits, (size_t)cap * NB * nw * sizeof(W));
        if (!b) {
            PyErr_NoMemory();
            return -1;
        }
        s->stack_bits = b;
        s->capstack = cap;
    }
    Entry *e = &s->stack[s->nstack];
    e->colour = c;
    e->code = code;
    e->to_move = s->to_move;
    e->passes = s->passes;
    e->swapped = s->swapped;
    e->end_term = s->end_term;
    e->end_winner = s->end_winner;
    e->end_margin = s->end_margin;
    e->cap0 = s->cap[0];
    e->cap1 = s->cap[1];
    e->key = s->key;
    e->bkey = s->bkey;
    W *dst = s->stack_bits + (size_t)s->nstack * NB * nw;
    for (int k = 0; k < NB; k++) memcpy(dst + k * nw, BITS(s, k), nw * sizeof(W));
    s->nstack++;
    return 0;
}

/* Board._commit; r is the resolution of a placement (NULL for pass and swap). */
static int commit(StateObject *s, int code, int c, const Res *r) {
    if (stack_push(s, c, code) < 0) return -1;
    s->version++;
    if (code >= 0) {
        if (positions_push(s, r->rk) < 0) {
            s->nstack--;
            return -1;
        }
        for (int k = 0; k < NB; k++) memcpy(BITS(s, k), RB(r, k), s->nw * sizeof(W));
        s->key = r->key;
        s->bkey = r->bkey;
        s->to_move = c ^ 1;
        s->passes = 0;
        long rw = r->removed[0], rb = r->removed[1];
        if (rw || rb) {
            s->cap[0] += rb;
            s->cap[1] += rw;
            if (s->fcw) {
                long enemy_removed = c == 0 ? rb : rw;
                s->end_term = END_FIRST_CAPTURE;
                s->end_winner = enemy_removed ? c : c ^ 1;
                s->end_margin = rw + rb;
            }
        }
    } else if (code == CODE_PASS) {
        s->to_move = c ^ 1;
        s->passes++;
        if (s->passes >= 2) {
            s->end_term = END_TWO_PASSES;
            s->end_winner = -1;
            s->end_margin = 0;
        }
    } else {
        s->swapped = 1;
    }
    return 0;
}

static int swap_legal(const StateObject *s, int c) {
    return s->swap_on && s->nstack == 1 && s->stack[0].code >= 0 && c == s->to_move && s->end_term == END_NONE;
}

static inline int candidate(const StateObject *s, int i) {
    const W *playable = s->geo->up_to_level + (size_t)s->top_level * s->nw;
    return TEST(BITS(s, B_SUPP), i) && TEST(playable, i);
}

/* ------------------------------------------------------------------ Python <-> bit sets */

static PyObject *bits_to_int(const W *b, int nw) {
    unsigned char buf[MAXW * 8];
    for (int w = 0; w < nw; w++)
        for (int k = 0; k < 8; k++) buf[w * 8 + k] = (unsigned char)(b[w] >> (8 * k));
    return _PyLong_FromByteArray(buf, (size_t)nw * 8, 1, 0);
}

static int int_to_bits(PyObject *obj, W *b, int nw, int count) {
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "a bit set must be an int");
        return -1;
    }
    if (_PyLong_Sign(obj) < 0) {
        PyErr_SetString(PyExc_ValueError, "a bit set must not be negative");
        return -1;
    }
    if ((Py_ssize_t)_PyLong_NumBits(obj) > count) {
        PyErr_Format(PyExc_ValueError, "bit set has points beyond the %d of this board", count);
        return -1;
    }
    unsigned char buf[MAXW * 8];
#if PY_VERSION_HEX >= 0x030D0000
    if (_PyLong_AsByteArray((PyLongObject *)obj, buf, (size_t)nw * 8, 1, 0, 1) < 0) return -1;
#else
    if (_PyLong_AsByteArray((PyLongObject *)obj, buf, (size_t)nw * 8, 1, 0) < 0) return -1;
#endif
    for (int w = 0; w < nw; w++) {
        W x = 0;
        for (int k = 0; k < 8; k++) x |= (W)buf[w * 8 + k] << (8 * k);
        b[w] = x;
    }
    return 0;
}

/* ------------------------------------------------------------------ State type */

static PyTypeObject StateType;

static void State_dealloc(StateObject *s) {
    Py_XDECREF(s->geo);
    PyMem_Free(s->stack);
    PyMem_Free(s->stack_bits);
    PyMem_Free(s->pos);
    PyMem_Free(s->hkey);
    PyMem_Free(s->hcount);
    PyMem_Free(s->hused);
    PyMem_Free(s->walk);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int state_alloc_tables(StateObject *s) {
    s->walk = PyMem_Calloc(s->count + 1, sizeof(int));
    if (!s->walk) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void state_clear_history(StateObject *s) {
    s->nstack = 0;
    s->npos = 0;
    if (s->hcap) {
        memset(s->hused, 0, s->hcap);
        s->hfill = 0;
    }
}

static int set_root(StateObject *s, int to_move) {
    int nw = s->nw;
    s->version++;
    s->to_move = to_move;
    s->cap[0] = s->cap[1] = 0;
    s->passes = 0;
    s->swapped = 0;
    s->end_term = END_NONE;
    s->end_winner = -1;
    s->end_margin = 0;
    state_clear_history(s);
    memcpy(s->root, BITS(s, 0), nw * sizeof(W));
    memcpy(s->root + MAXW, BITS(s, 1), nw * sizeof(W));
    s->root_to_move = to_move;
    return positions_push(s, repetition_key(s, s->key, s->bkey, to_move));
}

static int parse_colour(PyObject *obj, int *c) {
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v != 0 && v != 1) {
        PyErr_Format(PyExc_ValueError, "colour must be 0 (white) or 1 (black), not %ld", v);
        return -1;
    }
    *c = (int)v;
    return 0;
}

/* State(geometry, all_freedoms, bridge_cutting, top_level, single_pass, ko_rule, top_view,
 *       allow_pass, swap, first_capture_wins, to_move) */
static PyObject *State_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *geo;
    int af, bc, top, sp, ko, tv, ap, sw, fcw, to_move;
    if (kwds && PyDict_Size(kwds)) {
        PyErr_SetString(PyExc_TypeError, "State takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!ppipippppi", &GeoType, &geo, &af, &bc, &top, &sp, &ko, &tv, &ap, &sw, &fcw, &to_move))
        return NULL;
    GeoObject *g = (GeoObject *)geo;
    if (top < 0 || top >= g->size) return PyErr_Format(PyExc_ValueError, "top_level must be 0..%d", g->size - 1);
    if (ko < 0 || ko > 3) return PyErr_Format(PyExc_ValueError, "ko_rule code must be 0..3");
    if (to_move != 0 && to_move != 1) return PyErr_Format(PyExc_ValueError, "to_move must be 0 or 1");
    StateObject *s = (StateObject *)type->tp_alloc(type, 0);
    if (!s) return NULL;
    Py_INCREF(geo);
    s->geo = g;
    s->nw = g->nw;
    s->count = g->count;
    s->all_freedoms = af;
    s->bridge_cutting = bc;
    s->top_level = top;
    s->single_pass = sp;
    s->ko_rule = ko;
    s->top_view = tv;
    s->allow_pass = ap;
    s->swap_on = sw;
    s->fcw = fcw;
    if (state_alloc_tables(s) < 0 || h_resize(s, 64) < 0) {
        Py_DECREF(s);
        return NULL;
    }
    memcpy(BITS(s, B_SUPP), g->plane, s->nw * sizeof(W));
    if (set_root(s, to_move) < 0) {
        Py_DECREF(s);
        return NULL;
    }
    return (PyObject *)s;
}

static PyObject *State_copy(StateObject *s, PyObject *unused) {
    StateObject *o = (StateObject *)StateType.tp_alloc(&StateType, 0);
    if (!o) return NULL;
    /* everything but the object header and the owned buffers */
    size_t head = offsetof(StateObject, geo);
    memcpy((char *)o + head, (char *)s + head, sizeof(StateObject) - head);
    Py_INCREF(o->geo);
    o->stack = NULL;
    o->stack_bits = NULL;
    o->pos = NULL;
    o->hkey = NULL;
    o->hcount = NULL;
    o->hused = NULL;
    o->walk = NULL;
    o->capstack = o->cappos = 0;
    o->hcap = o->hfill = 0;
    if (state_alloc_tables(o) < 0) goto fail;
    if (s->nstack) {
        Py_ssize_t cap = s->nstack + 16;
        o->stack = PyMem_Malloc(cap * sizeof(Entry));
        o->stack_bits = PyMem_Malloc((size_t)cap * NB * s->nw * sizeof(W));
        if (!o->stack || !o->stack_bits) {
            PyErr_NoMemory();
            goto fail;
        }
        memcpy(o->stack, s->stack, s->nstack * sizeof(Entry));
        memcpy(o->stack_bits, s->stack_bits, (size_t)s->nstack * NB * s->nw * sizeof(W));
        o->capstack = cap;
    }
    {
        Py_ssize_t cap = s->npos + 16;
        o->pos = PyMem_Malloc(cap * sizeof(uint64_t));
        if (!o->pos) {
            PyErr_NoMemory();
            goto fail;
        }
        memcpy(o->pos, s->pos, s->npos * sizeof(uint64_t));
        o->cappos = cap;
    }
    o->hkey = PyMem_Malloc(s->hcap * sizeof(uint64_t));
    o->hcount = PyMem_Malloc(s->hcap * sizeof(int32_t));
    o->hused = PyMem_Malloc(s->hcap);
    if (!o->hkey || !o->hcount || !o->hused) {
        PyErr_NoMemory();
        goto fail;
    }
    memcpy(o->hkey, s->hkey, s->hcap * sizeof(uint64_t));
    memcpy(o->hcount, s->hcount, s->hcap * sizeof(int32_t));
    memcpy(o->hused, s->hused, s->hcap);
    o->hcap = s->hcap;
    o->hfill = s->hfill;
    return (PyObject *)o;
fail:
    Py_DECREF(o);
    return NULL;
}

/* reset(to_move): the empty board, history cleared (Board.clear) */
static PyObject *State_reset(StateObject *s, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    memset(s->bits, 0, sizeof(s->bits));
    memcpy(BITS(s, B_SUPP), s->geo->plane, s->nw * sizeof(W));
    s->key = s->bkey = 0;
    if (set_root(s, c) < 0) return NULL;
    Py_RETURN_NONE;
}

/* load(white, black): set the balls and recompute what derives from them (Board._load);
 * the caller then calls set_root. */
static void each_group_unsettled(StateObject *s, W *out);

static PyObject *State_load(StateObject *s, PyObject *args) {
    PyObject *wo, *bo;
    if (!PyArg_ParseTuple(args, "OO", &wo, &bo)) return NULL;
    int nw = s->nw;
    W wb[MAXW] = {0}, bb[MAXW] = {0};
    if (int_to_bits(wo, wb, nw, s->count) < 0 || int_to_bits(bo, bb, nw, s->count) < 0) return NULL;
    const GeoObject *g = s->geo;
    W occ[MAXW];
    for (int w = 0; w < nw; w++) {
        if (wb[w] & bb[w]) {
            PyErr_SetString(PyExc_ValueError, "a point holds both colours");
            return NULL;
        }
        occ[w] = wb[w] | bb[w];
    }
    for (int i = 0; i < s->count; i++) { /* every ball must be supported */
        if (!TEST(occ, i)) continue;
        const Pt *p = &g->pts[i];
        for (int k = 0; k < p->nsup; k++)
            if (!TEST(occ, p->sup[k])) {
                PyErr_SetString(PyExc_ValueError, "a ball is not supported");
                return NULL;
            }
    }
    memset(s->bits, 0, sizeof(s->bits));
    memcpy(BITS(s, 0), wb, nw * sizeof(W));
    memcpy(BITS(s, 1), bb, nw * sizeof(W));
    uint64_t key = 0, bkey = 0;
    W *buried = BITS(s, B_BURIED), *supp = BITS(s, B_SUPP);
    for (int i = 0; i < s->count; i++) {
        const Pt *p = &g->pts[i];
        if (TEST(occ, i)) {
            int colour = TEST(wb, i) ? 0 : 1;
            key ^= g->zob[colour][i];
            if (p->buried_by >= 0 && TEST(occ, p->buried_by)) {
                SETB(buried, i);
                bkey ^= g->zob[colour][i];
            }
        } else {
            int ok = 1;
            for (int k = 0; k < p->nsup; k++) if (!TEST(occ, p->sup[k])) { ok = 0; break; }
            if (ok) SETB(supp, i);
        }
    }
    s->key = key;
    s->bkey = bkey;
    s->version++;
    each_group_unsettled(s, BITS(s, B_UNS));
    Py_RETURN_NONE;
}

static PyObject *State_set_root(StateObject *s, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    if (set_root(s, c) < 0) return NULL;
    Py_RETURN_NONE;
}

/* play(code, colour): 0 if played, else why not: 1 game over, 2 pass not allowed, 3 swap
 * not legal, 4 off the board, 5 occupied, 6 not supported, 7 above max_level, 8 suicide
 * or repetition (Board._prepare's order). */
static int check_play(StateObject *s, int code, int c, Res *r) {
    if (s->end_term != END_NONE) return 1;
    if (code == CODE_PASS) return s->allow_pass ? 0 : 2;
    if (code == CODE_SWAP) return swap_legal(s, c) ? 0 : 3;
    if (code < 0 || code >= s->count) return 4;
    if (TEST(BITS(s, 0), code) || TEST(BITS(s, 1), code)) return 5;
    if (!TEST(BITS(s, B_SUPP), code)) return 6;
    if (!candidate(s, code)) return 7;
    return resolve(s, code, c, r) ? 0 : 8;
}

static int parse_code_colour(StateObject *s, PyObject *args, int *code, int *c) {
    PyObject *co;
    if (!PyArg_ParseTuple(args, "iO", code, &co)) return -1;
    if (co == Py_None) {
        *c = s->to_move;
        return 0;
    }
    return parse_colour(co, c);
}

static PyObject *State_play(StateObject *s, PyObject *args) {
    int code, c;
    if (parse_code_colour(s, args, &code, &c) < 0) return NULL;
    Res r;
    int why = check_play(s, code, c, &r);
    if (why) return PyLong_FromLong(why);
    if (commit(s, code, c, code >= 0 ? &r : NULL) < 0) return NULL;
    return PyLong_FromLong(0);
}

static PyObject *State_check(StateObject *s, PyObject *args) {
    int code, c;
    if (parse_code_colour(s, args, &code, &c) < 0) return NULL;
    Res r;
    return PyLong_FromLong(check_play(s, code, c, &r));
}

static PyObject *code_move(StateObject *s, int code) {
    PyObject *m = code >= 0 ? PyTuple_GET_ITEM(s->geo->moves, code)
                            : (code == CODE_PASS ? s->geo->pass_move : s->geo->swap_move);
    Py_INCREF(m);
    return m;
}

static void undo(StateObject *s);

/* pop(): undo the last move; returns its Move. IndexError at the root. */
static PyObject *State_pop(StateObject *s, PyObject *unused) {
    if (!s->nstack) {
        PyErr_SetString(PyExc_IndexError, "pop from a board with no moves since the root");
        return NULL;
    }
    int code = s->stack[s->nstack - 1].code;
    undo(s);
    return code_move(s, code);
}

/* Undo the last move exactly (the stack must not be empty). */
static void undo(StateObject *s) {
    int nw = s->nw;
    s->version++;
    Entry *e = &s->stack[--s->nstack];
    W *src = s->stack_bits + (size_t)s->nstack * NB * nw;
    for (int k = 0; k < NB; k++) memcpy(BITS(s, k), src + k * nw, nw * sizeof(W));
    s->key = e->key;
    s->bkey = e->bkey;
    s->to_move = e->to_move;
    s->passes = e->passes;
    s->swapped = e->swapped;
    s->end_term = e->end_term;
    s->end_winner = e->end_winner;
    s->end_margin = e->end_margin;
    s->cap[0] = e->cap0;
    s->cap[1] = e->cap1;
    if (e->code >= 0) {
        uint64_t rk = s->pos[--s->npos];
        h_add(s, rk, -1); /* never grows: cannot fail */
    }
}

/* The first point from index `from` on where colour c may place a ball (supported, empty,
 * within max_level, legal), or -1: the loop shared by legal_moves and has_legal_placement. */
static int next_legal_placement(const StateObject *s, int c, int from) {
    int nw = s->nw;
    const W *playable = s->geo->up_to_level + (size_t)s->top_level * nw;
    const W *supp = BITS(s, B_SUPP);
    Res r;
    for (int w = from >> 6; w < nw; w++) {
        W x = supp[w] & playable[w];
        if (w == from >> 6) x &= ~(W)0 << (from & 63);
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            if (placement_legal(s, i, c, &r)) return i;
        }
    }
    return -1;
}

static PyObject *State_legal_moves(StateObject *s, PyObject *arg) {
    int c;
    if (arg == Py_None) c = s->to_move;
    else if (parse_colour(arg, &c) < 0) return NULL;
    PyObject *out = PyList_New(0);
    if (!out || s->end_term != END_NONE) return out;
    for (int i = next_legal_placement(s, c, 0); i >= 0; i = next_legal_placement(s, c, i + 1)) {
        if (PyList_Append(out, PyTuple_GET_ITEM(s->geo->moves, i)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    if (swap_legal(s, c) && PyList_Append(out, s->geo->swap_move) < 0) goto fail;
    if (s->allow_pass && PyList_Append(out, s->geo->pass_move) < 0) goto fail;
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *State_has_legal_placement(StateObject *s, PyObject *arg) {
    int c;
    if (arg == Py_None) c = s->to_move;
    else if (parse_colour(arg, &c) < 0) return NULL;
    return PyBool_FromLong(next_legal_placement(s, c, 0) >= 0);
}

static PyObject *State_swap_legal(StateObject *s, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    return PyBool_FromLong(swap_legal(s, c));
}

/* -- Python's Mersenne Twister (CPython Modules/_randommodule.c), so that a seeded
 *    random.Random drives the same playout on both cores */

typedef struct {
    uint32_t mt[624];
    int index;
} MT;

static uint32_t mt_next(MT *m) {
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

static double mt_random(MT *m) {
    uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

static int mt_from_tuple(PyObject *t, MT *m) {
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

static PyObject *mt_to_tuple(const MT *m) {
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

/* A small explicit generator for the MCTS bulk playout (splitmix64, Steele et al. 2014). */
typedef struct {
    uint64_t x;
} SplitMix;

static uint64_t sm_next(SplitMix *g) {
    uint64_t z = (g->x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double sm_random(SplitMix *g) { return (double)(sm_next(g) >> 11) * (1.0 / 9007199254740992.0); }

/* Board.random_playout, with `draw` giving uniform doubles in [0, 1). Returns moves played or -1. */
typedef double (*draw_fn)(void *);
static double draw_mt(void *m) { return mt_random((MT *)m); }
static double draw_sm(void *g) { return sm_random((SplitMix *)g); }

/* Any other generator: call its random() (a Python callable); an error or a value outside
 * [0, 1) leaves a Python exception set, which stops the playout. */
static double draw_py(void *fn) {
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

/* Board._random_playout's error when the generator's random() pushed or popped a move on
 * the board being played out (as CPython's "dictionary changed size during iteration") */
#define BOARD_CHANGED "board changed during random_playout (the generator's random() played or undid a move)"

static long playout(StateObject *s, draw_fn draw, void *gen, long max_moves) {
    int nw = s->nw, count = s->count;
    const W *playable = s->geo->up_to_level + (size_t)s->top_level * nw;
    int *cands = PyMem_Malloc((count + 1) * sizeof(int));
    int *where = PyMem_Malloc((count + 1) * sizeof(int));
    if (!cands || !where) {
        PyMem_Free(cands);
        PyMem_Free(where);
        PyErr_NoMemory();
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
    PyMem_Free(cands);
    PyMem_Free(where);
    return played;
}

/* random_playout(mt_state, max_moves) -> (moves played, new mt_state) */
static PyObject *State_random_playout(StateObject *s, PyObject *args) {
    PyObject *t;
    long max_moves;
    if (!PyArg_ParseTuple(args, "O!l", &PyTuple_Type, &t, &max_moves)) return NULL;
    MT m;
    if (mt_from_tuple(t, &m) < 0) return NULL;
    long played = playout(s, draw_mt, &m, max_moves);
    if (played < 0) return NULL;
    PyObject *nt = mt_to_tuple(&m);
    if (!nt) return NULL;
    return Py_BuildValue("(lN)", played, nt);
}

/* callback_playout(random, max_moves) -> moves played, drawing from random() */
static PyObject *State_callback_playout(StateObject *s, PyObject *args) {
    PyObject *fn;
    long max_moves;
    if (!PyArg_ParseTuple(args, "Ol", &fn, &max_moves)) return NULL;
    if (!PyCallable_Check(fn)) return PyErr_Format(PyExc_TypeError, "random must be callable");
    long played = playout(s, draw_py, fn, max_moves);
    if (played < 0) return NULL;
    return PyLong_FromLong(played);
}

/* seeded_playout(seed, max_moves) -> moves played, with the splitmix64 generator */
static PyObject *State_seeded_playout(StateObject *s, PyObject *args) {
    unsigned long long seed;
    long max_moves;
    if (!PyArg_ParseTuple(args, "Kl", &seed, &max_moves)) return NULL;
    SplitMix g = {seed};
    long played = playout(s, draw_sm, &g, max_moves);
    if (played < 0) return NULL;
    return PyLong_FromLong(played);
}

/* -- groups, zombies, territory */

/* For every group of colour c (ascending by lowest ball): group and freedoms. Calls fn. */
typedef int (*group_fn)(StateObject *s, int colour, const W *group, const W *freedoms, void *ctx);

/* The freedoms (points of `free` next to a ball, R12) of the balls of `group`, into out. */
static void group_freedoms(const StateObject *s, const W *group, const W *free, W *out) {
    const Pt *pts = s->geo->pts;
    memset(out, 0, s->nw * sizeof(W));
    for (int v = 0; v < s->nw; v++) {
        W x = group[v];
        while (x) {
            const Pt *p = &pts[v * 64 + __builtin_ctzll(x)];
            x &= x - 1;
            int n = s->all_freedoms ? p->nnb : p->npn;
            const int *f = s->all_freedoms ? p->nb : p->pn;
            for (int k = 0; k < n; k++) if (TEST(free, f[k])) SETB(out, f[k]);
        }
    }
}

/* The group of `colour` holding the ball at i (into group) and its freedoms (into
 * freedoms): the number of freedoms, or -1 when i holds no non-buried ball of `colour`. */
static int group_at(StateObject *s, int colour, int i, W *group, W *freedoms) {
    int nw = s->nw;
    if (!TEST(BITS(s, colour), i) || TEST(BITS(s, B_BURIED), i)) return -1;
    W mine[MAXW], occ[MAXW], free[MAXW];
    for (int w = 0; w < nw; w++) {
        mine[w] = BITS(s, colour)[w] & ~BITS(s, B_BURIED)[w];
        occ[w] = BITS(s, 0)[w] | BITS(s, 1)[w];
    }
    free_points(s, occ, BITS(s, B_SUPP), free);
    probe(s, i, mine, BITS(s, colour ^ 1), NULL, group);
    group_freedoms(s, group, free, freedoms);
    return popcount_bits(freedoms, nw);
}

static int each_group(StateObject *s, int colour, group_fn fn, void *ctx) {
    int nw = s->nw;
    const W *buried = BITS(s, B_BURIED);
    W occ[MAXW], free[MAXW], mine[MAXW], todo[MAXW], group[MAXW], freedoms[MAXW];
    for (int w = 0; w < nw; w++) occ[w] = BITS(s, 0)[w] | BITS(s, 1)[w];
    free_points(s, occ, BITS(s, B_SUPP), free);
    const W *theirs = BITS(s, colour ^ 1);
    for (int w = 0; w < nw; w++) mine[w] = BITS(s, colour)[w] & ~buried[w];
    memcpy(todo, mine, nw * sizeof(W));
    for (int w = 0; w < nw; w++) {
        while (todo[w]) {
            int q = w * 64 + __builtin_ctzll(todo[w]);
            probe(s, q, mine, theirs, NULL, group);
            for (int v = 0; v < nw; v++) todo[v] &= ~group[v];
            group_freedoms(s, group, free, freedoms);
            if (fn(s, colour, group, freedoms, ctx) < 0) return -1;
        }
    }
    return 0;
}

static int unsettled_cb(StateObject *s, int colour, const W *group, const W *freedoms, void *ctx) {
    W *out = ctx;
    W occ[MAXW];
    for (int w = 0; w < s->nw; w++) occ[w] = BITS(s, 0)[w] | BITS(s, 1)[w];
    if (!any(freedoms, s->nw) && has_top(s, group, occ))
        for (int w = 0; w < s->nw; w++) out[w] |= group[w];
    return 0;
}

/* Board._unsettled_mask */
static void each_group_unsettled(StateObject *s, W *out) {
    memset(out, 0, s->nw * sizeof(W));
    each_group(s, 0, unsettled_cb, out);
    each_group(s, 1, unsettled_cb, out);
}

static int zombie_cb(StateObject *s, int colour, const W *group, const W *freedoms, void *ctx) {
    W *out = ctx;
    if (any(freedoms, s->nw)) return 0;
    const Pt *pts = s->geo->pts;
    for (int w = 0; w < s->nw; w++) {
        W x = group[w];
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            const Pt *p = &pts[i];
            for (int k = 0; k < p->nrest; k++)
                if (TEST(BITS(s, 0), p->rest[k]) || TEST(BITS(s, 1), p->rest[k])) {
                    SETB(out, i);
                    break;
                }
        }
    }
    return 0;
}

/* Board._zombie_mask */
static void zombie_mask(StateObject *s, W *out) {
    memset(out, 0, s->nw * sizeof(W));
    each_group(s, 0, zombie_cb, out);
    each_group(s, 1, zombie_cb, out);
}

/* Board.territory_masks */
static void territory(StateObject *s, const W *zombies, W *terr0, W *terr1) {
    int nw = s->nw;
    const GeoObject *g = s->geo;
    const Pt *pts = g->pts;
    W occ[MAXW], alive[2][MAXW], empty[MAXW], todo[MAXW], region[MAXW], border[MAXW], base[MAXW];
    W *terr[2] = {terr0, terr1};
    int *walk = s->walk;
    for (int w = 0; w < nw; w++) {
        occ[w] = BITS(s, 0)[w] | BITS(s, 1)[w];
        alive[0][w] = BITS(s, 0)[w] & ~zombies[w];
        alive[1][w] = BITS(s, 1)[w] & ~zombies[w];
        empty[w] = g->plane[w] & ~occ[w];
        todo[w] = empty[w];
        terr0[w] = terr1[w] = 0;
    }
    for (int w = 0; w < nw; w++) {
        while (todo[w]) {
            int start = w * 64 + __builtin_ctzll(todo[w]);
            memset(region, 0, nw * sizeof(W));
            memset(border, 0, nw * sizeof(W));
            int top = 0;
            SETB(region, start);
            walk[top++] = start;
            while (top) { /* flood the empty region on level 0 */
                const Pt *p = &pts[walk[--top]];
                for (int k = 0; k < p->nnb; k++) {
                    int q = p->nb[k];
                    SETB(border, q);
                    if (TEST(empty, q) && !TEST(region, q)) {
                        SETB(region, q);
                        walk[top++] = q;
                    }
                }
            }
            for (int v = 0; v < nw; v++) todo[v] &= ~region[v];
            for (int c = 0; c < 2; c++) {
                int mine = 0, other = 0;
                for (int v = 0; v < nw; v++) {
                    mine |= (border[v] & alive[c][v]) != 0;
                    other |= (border[v] & alive[c ^ 1][v]) != 0;
                }
                if (mine && !other)
                    for (int v = 0; v < nw; v++) terr[c][v] |= region[v];
            }
        }
    }
    /* R19: territory climbs only the playable levels (up to max_level): no ball can stand above. */
    const W *playable = g->up_to_level + (size_t)s->top_level * nw;
    for (int c = 0; c < 2; c++) {
        for (int w = 0; w < nw; w++) base[w] = alive[c][w] | terr[c][w];
        for (int w = 0; w < nw; w++) { /* ascending index = level by level: supports come first */
            W x = ~g->plane[w] & ~occ[w] & playable[w];
            if (w == nw - 1 && s->count % 64) x &= ((W)1 << (s->count % 64)) - 1;
            while (x) {
                int i = w * 64 + __builtin_ctzll(x);
                x &= x - 1;
                const Pt *p = &pts[i];
                int ok = 1;
                for (int k = 0; k < p->nsup; k++) if (!TEST(base, p->sup[k])) { ok = 0; break; }
                if (ok) {
                    SETB(terr[c], i);
                    SETB(base, i);
                }
            }
        }
    }
}

static PyObject *State_zombie_mask(StateObject *s, PyObject *unused) {
    W z[MAXW];
    zombie_mask(s, z);
    return bits_to_int(z, s->nw);
}

/* territory_masks(zombies or None) -> (white, black) */
static PyObject *State_territory_masks(StateObject *s, PyObject *arg) {
    W z[MAXW] = {0}, t0[MAXW], t1[MAXW];
    if (arg == Py_None) zombie_mask(s, z);
    else if (int_to_bits(arg, z, s->nw, s->count) < 0) return NULL;
    territory(s, z, t0, t1);
    return Py_BuildValue("(NN)", bits_to_int(t0, s->nw), bits_to_int(t1, s->nw));
}

/* territory_score() -> (white, black) ball-and-territory counts of R19, komi not added */
static void territory_score(StateObject *s, long out[2]) {
    int nw = s->nw;
    W z[MAXW], t[2][MAXW];
    zombie_mask(s, z);
    territory(s, z, t[0], t[1]);
    for (int c = 0; c < 2; c++) {
        long n = 0;
        for (int w = 0; w < nw; w++)
            n += __builtin_popcountll(BITS(s, c)[w] & ~z[w]) + __builtin_popcountll(BITS(s, c ^ 1)[w] & z[w]) +
                 __builtin_popcountll(t[c][w]);
        out[c] = n;
    }
}

static PyObject *State_territory_score(StateObject *s, PyObject *unused) {
    long out[2];
    territory_score(s, out);
    return Py_BuildValue("(ll)", out[0], out[1]);
}

static int list_cb(StateObject *s, int colour, const W *group, const W *freedoms, void *ctx) {
    PyObject *item = Py_BuildValue("(iNN)", colour, bits_to_int(group, s->nw), bits_to_int(freedoms, s->nw));
    if (!item) return -1;
    int rc = PyList_Append((PyObject *)ctx, item);
    Py_DECREF(item);
    return rc;
}

/* groups(colour or None) -> [(colour, group, freedoms)] (Board._each_group) */
static PyObject *State_groups(StateObject *s, PyObject *arg) {
    int lo = 0, hi = 1;
    if (arg != Py_None) {
        int c;
        if (parse_colour(arg, &c) < 0) return NULL;
        lo = hi = c;
    }
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (int c = lo; c <= hi; c++) {
        if (each_group(s, c, list_cb, out) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* -- the MCTS bulk call: a seeded playout and the leaf evaluation in one crossing
 *    (margo_gtp/players/mcts.py: playout, heuristic_evaluator, territory_evaluator) */

static int has_legal_placement(StateObject *s, int c) {
    int nw = s->nw;
    const W *playable = s->geo->up_to_level + (size_t)s->top_level * nw;
    const W *supp = BITS(s, B_SUPP);
    Res r;
    for (int w = 0; w < nw; w++) {
        W x = supp[w] & playable[w];
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            if (placement_legal(s, i, c, &r)) return 1;
        }
    }
    return 0;
}

static double result_of_scores(double white, double black) {
    return white > black ? 1.0 : (black > white ? 0.0 : 0.5);
}

/* White's result (1, 0 or 1/2) if the game is over (Board.outcome), else -1. */
static double result_if_over(StateObject *s, double komi, int territory_scoring) {
    long sc[2];
    if (s->end_term == END_TWO_PASSES) {
        territory_score(s, sc);
        return result_of_scores(sc[0] + komi, (double)sc[1]);
    }
    if (s->end_term == END_FIRST_CAPTURE) return s->end_winner < 0 ? 0.5 : (s->end_winner == 0 ? 1.0 : 0.0);
    if (s->allow_pass || has_legal_placement(s, s->to_move) || swap_legal(s, s->to_move)) return -1.0;
    if (territory_scoring) {
        territory_score(s, sc);
    } else {
        sc[0] = popcount_bits(BITS(s, 0), s->nw);
        sc[1] = popcount_bits(BITS(s, 1), s->nw);
    }
    return result_of_scores(sc[0] + komi, (double)sc[1]);
}

typedef struct {
    int n;
    int *size, *liberties, *last_liberty, *first_ball;
} GroupStats;

static int stats_cb(StateObject *s, int colour, const W *group, const W *freedoms, void *ctx) {
    GroupStats *g = ctx;
    g->size[g->n] = popcount_bits(group, s->nw);
    g->liberties[g->n] = popcount_bits(freedoms, s->nw);
    int last = -1;
    for (int w = 0; w < s->nw; w++) if (freedoms[w]) { last = w * 64 + __builtin_ctzll(freedoms[w]); break; }
    g->last_liberty[g->n] = last;
    int first = -1;
    for (int w = 0; w < s->nw; w++) if (group[w]) { first = w * 64 + __builtin_ctzll(group[w]); break; }
    g->first_ball[g->n] = first;
    g->n++;
    return 0;
}

/* mcts._freedoms_through: the freedoms of colour's group holding the ball at i (into out);
 * returns their number, or -1 when i holds no unburied ball of colour (it was taken). */
static int freedoms_through(StateObject *s, int colour, int i, W *out) {
    W group[MAXW];
    return group_at(s, colour, i, group, out);
}

/* -- the heavy playout policy (margo_gtp/players/playout_policy.py, ported move for move) */

#define HEAVY_MAX 64

static inline int single_bit_index(const W *set, int nw) {
    for (int w = 0; w < nw; w++) if (set[w]) return w * 64 + __builtin_ctzll(set[w]);
    return -1;
}

/* playout_policy._escapes: does the legal placement at i (resolved in *r) capture, or
 * leave colour c's group there with two freedoms or more? The board is left unchanged. */
static int heavy_escapes(StateObject *s, int i, int c, const Res *r, int *err) {
    long before = s->cap[c];
    if (commit(s, i, c, r) < 0) {
        *err = 1;
        return 0;
    }
    int ok = s->cap[c] > before;
    if (!ok) {
        W group[MAXW], freedoms[MAXW];
        ok = group_at(s, c, i, group, freedoms) >= 2;
    }
    undo(s);
    return ok;
}

/* playout_policy.local_reply: colour c's (to move) tactical answer to the last move, or
 * -1 when none applies; on an answer, *r holds its resolution. -2 on a memory error. */
static int heavy_reply(StateObject *s, int c, Res *r) {
    if (!s->nstack) return -1;
    int p = s->stack[s->nstack - 1].code;
    if (p < 0) return -1; /* a pass or a swap */
    const GeoObject *g = s->geo;
    const Pt *pp = &g->pts[p];
    int nw = s->nw, enemy = c ^ 1, err = 0;
    const W *buried = BITS(s, B_BURIED);
    W balls[2][MAXW], near[MAXW], seen[MAXW];
    for (int w = 0; w < nw; w++) {
        balls[0][w] = BITS(s, 0)[w] & ~buried[w];
        balls[1][w] = BITS(s, 1)[w] & ~buried[w];
        near[w] = seen[w] = 0;
    }
    SETB(near, p);
    for (int k = 0; k < pp->nnb; k++) SETB(near, pp->nb[k]);
    for (int k = 0; k < pp->nsup; k++) SETB(near, pp->sup[k]);
    for (int k = 0; k < pp->nrest; k++) SETB(near, pp->rest[k]);
    int captures[HEAVY_MAX], escapes[HEAVY_MAX], ncap = 0, nesc = 0;
    for (int w = 0; w < nw; w++) {
        W x = near[w] & (balls[0][w] | balls[1][w]);
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            if (TEST(seen, i)) continue;
            int owner = TEST(balls[0], i) ? 0 : 1;
            W group[MAXW], freedoms[MAXW];
            int n = group_at(s, owner, i, group, freedoms);
            for (int v = 0; v < nw; v++) seen[v] |= group[v];
            if (n == 1) { /* exactly one freedom */
                if (owner == enemy) captures[ncap++] = single_bit_index(freedoms, nw);
                else escapes[nesc++] = single_bit_index(freedoms, nw);
            }
        }
    }
    for (int k = 0; k < ncap; k++) if (check_play(s, captures[k], c, r) == 0) return captures[k];
    for (int k = 0; k < nesc; k++) {
        if (check_play(s, escapes[k], c, r) == 0) {
            int ok = heavy_escapes(s, escapes[k], c, r, &err);
            if (err) return -2;
            if (ok) return escapes[k];
        }
    }
    if (!s->bridge_cutting) return -1;
    /* Bridges (R10): the crossing points the last move touched. */
    const W *mine = balls[c], *theirs = balls[enemy];
    W crossings[MAXW], occupied[MAXW];
    for (int w = 0; w < nw; w++) {
        crossings[w] = 0;
        occupied[w] = BITS(s, 0)[w] | BITS(s, 1)[w];
    }
    for (int k = 0; k < pp->nrest; k++) SETB(crossings, pp->rest[k]);
    for (int k = 0; k < pp->nunder; k++) SETB(crossings, pp->uo[k]);
    int cuts[HEAVY_MAX], ncut = 0;
    for (int w = 0; w < nw; w++) {
        W x = crossings[w] & ~occupied[w];
        while (x) {
            int q = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            const Pt *pq = &g->pts[q];
            int supported = 1;
            for (int k = 0; k < pq->nsup; k++) if (!TEST(occupied, pq->sup[k])) supported = 0;
            if (!supported) continue;
            for (int k = 0; k < pq->nunder; k++) {
                int a = pq->ua[k], b = pq->ub[k], o = pq->uo[k];
                if (TEST(mine, a) && TEST(mine, b) && TEST(theirs, o)) { /* one more enemy ball cuts us: connect */
                    if (check_play(s, q, c, r) == 0) return q;
                } else if (TEST(theirs, a) && TEST(theirs, b) && TEST(mine, o)) { /* we hold one crossing: cut */
                    cuts[ncut++] = q;
                }
            }
        }
    }
    for (int k = 0; k < ncut; k++) if (check_play(s, cuts[k], c, r) == 0) return cuts[k];
    return -1;
}

/* HeavyPolicy.play with its Mersenne Twister: at each move, with probability `tactics`
 * the local reply, else (or when there is none) one uniformly random legal move, drawn
 * as Board.random_playout draws it. The same draws in the same order, so the same game
 * as the Python policy. Returns the moves played, -1 on a memory error. */
static long heavy_playout(StateObject *s, MT *m, long max_moves, double tactics) {
    long played = 0;
    Res r;
    while (played < max_moves) {
        int move = -1;
        if (mt_random(m) < tactics) {
            move = heavy_reply(s, s->to_move, &r);
            if (move == -2) return -1;
        }
        if (move >= 0) {
            if (commit(s, move, s->to_move, &r) < 0) return -1;
        } else {
            long one = playout(s, draw_mt, m, 1);
            if (one < 0) return -1;
            if (one == 0) break; /* no legal move, or the game is over */
        }
        played++;
    }
    return played;
}

/* heavy_playout(mt_state, max_moves, tactics) -> (moves played, new mt_state) */
static PyObject *State_heavy_playout(StateObject *s, PyObject *args) {
    PyObject *t;
    long max_moves;
    double tactics;
    if (!PyArg_ParseTuple(args, "O!ld", &PyTuple_Type, &t, &max_moves, &tactics)) return NULL;
    MT m;
    if (mt_from_tuple(t, &m) < 0) return NULL;
    long played = heavy_playout(s, &m, max_moves, tactics);
    if (played < 0) return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    PyObject *nt = mt_to_tuple(&m);
    if (!nt) return NULL;
    return Py_BuildValue("(lN)", played, nt);
}

static int ladder_captures(StateObject *s, int attacker, int ball, const W *liberties, int depth);

/* mcts.can_escape: colour, to move, saves its group whose last freedom is point i by
 * playing there: legal and captures, or leaves the group three freedoms or more, or two
 * that a ladder of at most `depth` more ataris cannot take. 1 yes, 0 no, -1 memory error. */
static int can_escape(StateObject *s, int colour, int i, int depth) {
    Res r;
    if (check_play(s, i, colour, &r)) return 0;
    long before = s->cap[colour];
    if (commit(s, i, colour, &r) < 0) return -1;
    int escaped = s->cap[colour] > before;
    if (!escaped) {
        W liberties[MAXW];
        int count = freedoms_through(s, colour, i, liberties);
        if (count >= 3 || (count == 2 && depth <= 0)) {
            escaped = 1;
        } else if (count == 2) {
            int taken = ladder_captures(s, colour ^ 1, i, liberties, depth);
            escaped = taken < 0 ? -1 : !taken;
        }
    }
    undo(s);
    return escaped;
}

/* mcts.ladder_captures: attacker, to move, takes the group holding `ball`, whose two
 * freedoms are `liberties`, by an atari on one of them that the group cannot escape
 * (can_escape with depth - 1). 1 yes, 0 no, -1 memory error. */
static int ladder_captures(StateObject *s, int attacker, int ball, const W *liberties, int depth) {
    int nw = s->nw, defender = attacker ^ 1;
    for (int w = 0; w < nw; w++) {
        W x = liberties[w];
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            Res r;
            if (check_play(s, i, attacker, &r)) continue;
            if (commit(s, i, attacker, &r) < 0) return -1;
            W left[MAXW];
            int count = freedoms_through(s, defender, ball, left);
            int taken = count <= 0;
            if (count == 1) {
                int last = -1;
                for (int v = 0; v < nw; v++) if (left[v]) { last = v * 64 + __builtin_ctzll(left[v]); break; }
                int escapes = can_escape(s, defender, last, depth - 1);
                if (escapes < 0) {
                    undo(s);
                    return -1;
                }
                taken = !escapes;
            }
            undo(s);
            if (taken) return 1;
        }
    }
    return 0;
}

/* mcts.heuristic_evaluator; prm = (scale_min, scale_per_point, freedom_value,
 * short_of_freedoms_loss, group_cost, ladder_depth). Returns -2 on a memory error. */
/* One group walk per colour serves both the zombie mask of the territory score and the
 * group statistics (the position does not change in between: can_escape runs after). */
typedef struct {
    W *zombies;
    GroupStats *stats;
} EvalWalk;

static int eval_cb(StateObject *s, int colour, const W *group, const W *freedoms, void *ctx) {
    EvalWalk *e = ctx;
    zombie_cb(s, colour, group, freedoms, e->zombies);
    return stats_cb(s, colour, group, freedoms, &e->stats[colour]);
}

static double heuristic(StateObject *s, double komi, const double prm[6]) {
    int nw = s->nw;
    GroupStats stats[2];
    int *buf = PyMem_Malloc(8 * (s->count + 1) * sizeof(int));
    int ladder_depth = (int)prm[5];
    if (!buf) {
        PyErr_NoMemory();
        return -2.0;
    }
    for (int colour = 0; colour < 2; colour++) {
        stats[colour].n = 0;
        stats[colour].size = buf + 4 * colour * (s->count + 1);
        stats[colour].liberties = stats[colour].size + s->count + 1;
        stats[colour].last_liberty = stats[colour].liberties + s->count + 1;
        stats[colour].first_ball = stats[colour].last_liberty + s->count + 1;
    }
    W z[MAXW], t[2][MAXW];
    memset(z, 0, nw * sizeof(W));
    EvalWalk walk = {z, stats};
    each_group(s, 0, eval_cb, &walk); /* as zombie_mask: white, then black */
    each_group(s, 1, eval_cb, &walk);
    territory(s, z, t[0], t[1]);
    long sc[2];
    for (int c = 0; c < 2; c++) { /* as territory_score */
        long n = 0;
        for (int w = 0; w < nw; w++)
            n += __builtin_popcountll(BITS(s, c)[w] & ~z[w]) + __builtin_popcountll(BITS(s, c ^ 1)[w] & z[w]) +
                 __builtin_popcountll(t[c][w]);
        sc[c] = n;
    }
    double margin = (sc[0] + komi) - (double)sc[1];
    int mover = s->to_move;
    for (int colour = 0; colour < 2; colour++) {
        double sign = colour == 0 ? 1.0 : -1.0;
        GroupStats *g = &stats[colour];
        long freedoms = 0;
        for (int k = 0; k < g->n; k++) {
            int count = g->liberties[k];
            freedoms += count;
            if (count == 1) {
                int escapes = colour == mover ? can_escape(s, colour, g->last_liberty[k], ladder_depth) : 0;
                if (escapes < 0) {
                    PyMem_Free(buf);
                    return -2.0;
                }
                if (!escapes) margin -= sign * g->size[k];
            } else if (count == 2) {
                int taken = 0;
                if (colour != mover && ladder_depth > 0) {
                    W liberties[MAXW];
                    freedoms_through(s, colour, g->first_ball[k], liberties);
                    taken = ladder_captures(s, mover, g->first_ball[k], liberties, ladder_depth);
                    if (taken < 0) {
                        PyMem_Free(buf);
                        return -2.0;
                    }
                }
                margin -= sign * (taken ? 1.0 : prm[3]) * g->size[k];
            }
        }
        margin += sign * (prm[2] * freedoms - prm[4] * g->n);
    }
    PyMem_Free(buf);
    int empty = 0;
    for (int w = 0; w < s->nw; w++) empty += __builtin_popcountll(s->geo->plane[w] & ~(BITS(s, 0)[w] | BITS(s, 1)[w]));
    double scale = prm[0] + prm[1] * empty;
    return 1.0 / (1.0 + exp(-margin / scale));
}

/* simulate(seed, max_moves, komi, territory_scoring, evaluator, params) -> White's result:
 * a splitmix64 playout of at most max_moves moves, then the exact result if the game is
 * over, else the evaluator (0 heuristic, 1 territory sign). */
static PyObject *State_simulate(StateObject *s, PyObject *args) {
    unsigned long long seed;
    long max_moves;
    double komi;
    int territory_scoring, evaluator;
    double prm[6];
    if (!PyArg_ParseTuple(args, "Kldpi(dddddd)", &seed, &max_moves, &komi, &territory_scoring, &evaluator, &prm[0],
                          &prm[1], &prm[2], &prm[3], &prm[4], &prm[5]))
        return NULL;
    if (evaluator != 0 && evaluator != 1) return PyErr_Format(PyExc_ValueError, "evaluator must be 0 or 1");
    if (max_moves > 0) {
        SplitMix g = {seed};
        if (playout(s, draw_sm, &g, max_moves) < 0) return NULL;
    }
    double result = result_if_over(s, komi, territory_scoring);
    if (result < 0) {
        if (evaluator == 1) {
            long sc[2];
            territory_score(s, sc);
            result = result_of_scores(sc[0] + komi, (double)sc[1]);
        } else {
            result = heuristic(s, komi, prm);
            if (result < -1.5) return NULL;
        }
    }
    return PyFloat_FromDouble(result);
}

/* history(start, as_colours) -> [(colour, Move)] for the moves after the first `start`;
 * colours as ints, or as the Geometry's colour objects when as_colours is true */
static PyObject *State_history(StateObject *s, PyObject *args) {
    Py_ssize_t start;
    int as_colours = 0;
    if (!PyArg_ParseTuple(args, "n|p", &start, &as_colours)) return NULL;
    if (start < 0) start = 0;
    if (start > s->nstack) start = s->nstack;
    PyObject *out = PyList_New(s->nstack - start);
    if (!out) return NULL;
    for (Py_ssize_t k = start; k < s->nstack; k++) {
        PyObject *item = as_colours
            ? Py_BuildValue("(ON)", PyTuple_GET_ITEM(s->geo->colours, s->stack[k].colour), code_move(s, s->stack[k].code))
            : Py_BuildValue("(iN)", s->stack[k].colour, code_move(s, s->stack[k].code));
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k - start, item);
    }
    return out;
}

/* played_points(start) -> (white set, black set) of the point indices placed after ply
 * `start` (Board.played_points_since: the AMAF sets of MCTS, without Move objects). */
static PyObject *State_played_points(StateObject *s, PyObject *arg) {
    Py_ssize_t start = PyLong_AsSsize_t(arg);
    if (start == -1 && PyErr_Occurred()) return NULL;
    if (start < 0) start = 0;
    PyObject *sets[2] = {PySet_New(NULL), PySet_New(NULL)};
    if (!sets[0] || !sets[1]) goto fail;
    for (Py_ssize_t k = start; k < s->nstack; k++) {
        if (s->stack[k].code < 0) continue;
        PyObject *point = PyLong_FromLong(s->stack[k].code);
        if (!point) goto fail;
        int err = PySet_Add(sets[s->stack[k].colour], point);
        Py_DECREF(point);
        if (err < 0) goto fail;
    }
    return Py_BuildValue("(NN)", sets[0], sets[1]);
fail:
    Py_XDECREF(sets[0]);
    Py_XDECREF(sets[1]);
    return NULL;
}

static PyObject *State_peek(StateObject *s, PyObject *unused) {
    if (!s->nstack) Py_RETURN_NONE;
    return code_move(s, s->stack[s->nstack - 1].code);
}

static PyObject *State_mask(StateObject *s, PyObject *arg) {
    long k = PyLong_AsLong(arg);
    if (k == -1 && PyErr_Occurred()) return NULL;
    if (k < 0 || k >= NB) return PyErr_Format(PyExc_ValueError, "mask index must be 0..%d", NB - 1);
    return bits_to_int(BITS(s, k), s->nw);
}

static PyObject *State_root_mask(StateObject *s, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    return bits_to_int(s->root + c * MAXW, s->nw);
}

static PyObject *State_get(StateObject *s, PyObject *arg) {
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= s->count) return PyErr_Format(PyExc_IndexError, "point index out of range");
    if (TEST(BITS(s, 0), i)) return PyLong_FromLong(0);
    if (TEST(BITS(s, 1), i)) return PyLong_FromLong(1);
    Py_RETURN_NONE;
}

/* group_at(index) -> (group, freedoms) of the non-buried ball there, or None (Board.group_at) */
static PyObject *State_group_at(StateObject *s, PyObject *arg) {
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= s->count) return PyErr_Format(PyExc_IndexError, "point index out of range");
    W group[MAXW], freedoms[MAXW];
    int colour = TEST(BITS(s, 0), i) ? 0 : 1;
    if (group_at(s, colour, (int)i, group, freedoms) < 0) Py_RETURN_NONE; /* empty or buried */
    return Py_BuildValue("(NN)", bits_to_int(group, s->nw), bits_to_int(freedoms, s->nw));
}

static PyObject *State_counts(StateObject *s, PyObject *unused) {
    return Py_BuildValue("(ii)", popcount_bits(BITS(s, 0), s->nw), popcount_bits(BITS(s, 1), s->nw));
}

/* info() -> (to_move, captured_white, captured_black, passes, swapped, end_term, end_winner,
 *            end_margin, ply, key, buried_key, root_to_move) */
static PyObject *State_info(StateObject *s, PyObject *unused) {
    return Py_BuildValue("(illiiiilnKKi)", s->to_move, s->cap[0], s->cap[1], s->passes, s->swapped, s->end_term,
                         s->end_winner, s->end_margin, s->nstack, (unsigned long long)s->key,
                         (unsigned long long)s->bkey, s->root_to_move);
}

static PyObject *State_get_to_move(StateObject *s, void *unused) { return PyLong_FromLong(s->to_move); }
static PyObject *State_get_ply(StateObject *s, void *unused) { return PyLong_FromSsize_t(s->nstack); }
static PyObject *State_get_key(StateObject *s, void *unused) { return PyLong_FromUnsignedLongLong(s->key); }
static PyObject *State_get_end(StateObject *s, void *unused) { return PyLong_FromLong(s->end_term); }

static PyMethodDef State_methods[] = {
    {"copy", (PyCFunction)State_copy, METH_NOARGS, "an independent copy, history included"},
    {"reset", (PyCFunction)State_reset, METH_O, "reset(to_move): the empty board"},
    {"load", (PyCFunction)State_load, METH_VARARGS, "load(white, black): set the balls (then set_root)"},
    {"set_root", (PyCFunction)State_set_root, METH_O, "set_root(to_move): the position becomes the root"},
    {"play", (PyCFunction)State_play, METH_VARARGS, "play(code, colour|None) -> 0 or the reason code"},
    {"check", (PyCFunction)State_check, METH_VARARGS, "check(code, colour|None) -> 0 or the reason code"},
    {"pop", (PyCFunction)State_pop, METH_NOARGS, "undo the last move; returns it"},
    {"peek", (PyCFunction)State_peek, METH_NOARGS, "the last move or None"},
    {"legal_moves", (PyCFunction)State_legal_moves, METH_O, "legal_moves(colour|None) -> [Move]"},
    {"has_legal_placement", (PyCFunction)State_has_legal_placement, METH_O, "has_legal_placement(colour|None)"},
    {"swap_legal", (PyCFunction)State_swap_legal, METH_O, "swap_legal(colour)"},
    {"random_playout", (PyCFunction)State_random_playout, METH_VARARGS,
     "random_playout(mt_state, max_moves) -> (played, mt_state)"},
    {"callback_playout", (PyCFunction)State_callback_playout, METH_VARARGS,
     "callback_playout(random, max_moves) -> played (any generator's random())"},
    {"seeded_playout", (PyCFunction)State_seeded_playout, METH_VARARGS,
     "seeded_playout(seed, max_moves) -> played (splitmix64 generator)"},
    {"simulate", (PyCFunction)State_simulate, METH_VARARGS,
     "simulate(seed, max_moves, komi, territory_scoring, evaluator, params) -> White's result"},
    {"zombie_mask", (PyCFunction)State_zombie_mask, METH_NOARGS, "zombies as a bit set"},
    {"territory_masks", (PyCFunction)State_territory_masks, METH_O, "territory_masks(zombies|None)"},
    {"territory_score", (PyCFunction)State_territory_score, METH_NOARGS, "(white, black) R19 counts, no komi"},
    {"groups", (PyCFunction)State_groups, METH_O, "groups(colour|None) -> [(colour, group, freedoms)]"},
    {"history", (PyCFunction)State_history, METH_VARARGS, "history(start, as_colours=False) -> [(colour, Move)]"},
    {"played_points", (PyCFunction)State_played_points, METH_O, "(white, black) sets of point indices placed after ply"},
    {"mask", (PyCFunction)State_mask, METH_O, "mask(k): 0 white, 1 black, 2 buried, 3 supported empty, 4 unsettled"},
    {"root_mask", (PyCFunction)State_root_mask, METH_O, "root_mask(colour)"},
    {"get", (PyCFunction)State_get, METH_O, "get(index) -> 0, 1 or None"},
    {"group_at", (PyCFunction)State_group_at, METH_O, "group_at(index) -> (group, freedoms) or None"},
    {"heavy_playout", (PyCFunction)State_heavy_playout, METH_VARARGS,
     "heavy_playout(mt_state, max_moves, tactics) -> (played, mt_state)"},
    {"counts", (PyCFunction)State_counts, METH_NOARGS, "(white balls, black balls)"},
    {"info", (PyCFunction)State_info, METH_NOARGS, "the scalar state as a tuple"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef State_getset[] = {
    {"to_move", (getter)State_get_to_move, NULL, "colour to move (0 white, 1 black)", NULL},
    {"ply", (getter)State_get_ply, NULL, "moves since the root", NULL},
    {"key", (getter)State_get_key, NULL, "Zobrist key of all balls", NULL},
    {"end", (getter)State_get_end, NULL, "0 playing, 1 two passes, 2 first capture", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "margo_gtp.engine._native.State",
    .tp_basicsize = sizeof(StateObject),
    .tp_dealloc = (destructor)State_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A MarGo position with its history (the state of board.Board, in C)",
    .tp_methods = State_methods,
    .tp_getset = State_getset,
    .tp_new = State_new,
};

/* ------------------------------------------------------------------ MCTS tree policy */

/* uct_select(children, log_parent, uct_c, rave_k, prior_visits, prior_wins) -> the child of
 * highest UCT+RAVE score, the first on ties, or None if no score exceeds -1.0: the selection
 * loop of margo_gtp.players.mcts (MctsPlayer._descend, mcts._child_score), the same double
 * operations in the same order (so the same floats and the same choice; the build turns
 * off floating-point contraction), reading each child's n, w, rave_n and rave_w. */
static PyObject *str_n, *str_w, *str_rave_n, *str_rave_w;

static int read_number(PyObject *obj, PyObject *name, double *out) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (!v) return -1;
    *out = PyFloat_AsDouble(v); /* ints below 2**53 convert exactly, as Python's mixed arithmetic does */
    Py_DECREF(v);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* The UCT+RAVE score of one child (mcts._child_score), into *out; -1 with an exception set
 * when an attribute is missing or the arithmetic fails as Python's would. */
static int child_score(PyObject *child, double log_parent, double uct_c, double rave_k, double prior_visits,
                       double prior_wins, double *out) {
    double visits, wins, rave_n, rave_w;
    if (read_number(child, str_n, &visits) < 0 || read_number(child, str_w, &wins) < 0 ||
        read_number(child, str_rave_n, &rave_n) < 0)
        return -1;
    double n = visits + prior_visits;
    if (n == 0.0) {
        PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero");
        return -1;
    }
    double q = (wins + prior_wins) / n;
    if (rave_n != 0.0) {
        if (read_number(child, str_rave_w, &rave_w) < 0) return -1;
        double beta = 0.0;
        if (rave_k != 0.0) {
            double d = 3 * visits + rave_k;
            if (d == 0.0) {
                PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero");
                return -1;
            }
            double r = rave_k / d;
            if (r < 0.0) {
                PyErr_SetString(PyExc_ValueError, "math domain error");
                return -1;
            }
            beta = sqrt(r);
        }
        q = beta * (rave_w / rave_n) + (1 - beta) * q;
    }
    double u = log_parent / n;
    if (u < 0.0) {
        PyErr_SetString(PyExc_ValueError, "math domain error");
        return -1;
    }
    *out = q + uct_c * sqrt(u);
    return 0;
}

static PyObject *uct_select(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "uct_select takes 6 arguments (%zd given)", nargs);
    PyObject *children = args[0];
    if (!PyList_Check(children)) return PyErr_Format(PyExc_TypeError, "children must be a list");
    double log_parent = PyFloat_AsDouble(args[1]), uct_c = PyFloat_AsDouble(args[2]);
    double rave_k = PyFloat_AsDouble(args[3]), prior_visits = PyFloat_AsDouble(args[4]);
    double prior_wins = PyFloat_AsDouble(args[5]);
    if (PyErr_Occurred()) return NULL;
    /* A child's attribute getter may run Python code that changes the list (and drops the
     * last reference to a child): each child is held by a strong reference while it is read,
     * the best so far too, and the length is read again at every step, as Python's own
     * `for child in children` does (so both loops see the same children). */
    PyObject *best = Py_NewRef(Py_None);
    double best_score = -1.0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(children); k++) {
        PyObject *child = Py_NewRef(PyList_GET_ITEM(children, k));
        double score;
        if (child_score(child, log_parent, uct_c, rave_k, prior_visits, prior_wins, &score) < 0) {
            Py_DECREF(child);
            Py_DECREF(best);
            return NULL;
        }
        if (score > best_score) {
            Py_SETREF(best, child);
            best_score = score;
        } else {
            Py_DECREF(child);
        }
    }
    return best;
}

static PyMethodDef native_functions[] = {
    {"uct_select", (PyCFunction)(void (*)(void))uct_select, METH_FASTCALL,
     "uct_select(children, log_parent, uct_c, rave_k, prior_visits, prior_wins) -> best child or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native", "The native MarGo rules core (see native.py).", -1, native_functions, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&GeoType) < 0 || PyType_Ready(&StateType) < 0) return NULL;
    if (!(str_n = PyUnicode_InternFromString("n")) || !(str_w = PyUnicode_InternFromString("w")) ||
        !(str_rave_n = PyUnicode_InternFromString("rave_n")) || !(str_rave_w = PyUnicode_InternFromString("rave_w")))
        return NULL;
    PyObject *m = PyModule_Create(&native_module);
    if (!m) return NULL;
    Py_INCREF(&GeoType);
    if (PyModule_AddObject(m, "Geometry", (PyObject *)&GeoType) < 0) goto fail;
    Py_INCREF(&StateType);
    if (PyModule_AddObject(m, "State", (PyObject *)&StateType) < 0) goto fail;
    if (PyModule_AddIntConstant(m, "MAX_WORDS", MAXW) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
