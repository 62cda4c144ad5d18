/* The MarGo rules core in C: its types and functions, shared by the files that hold them
 * and by the Python glue that uses them.
 *
 * PEP 399 style: margo_gtp/engine/python_core.py is the readable reference (PythonCore, the
 * core a Board holds; its playout loop in playout.py); the C core mirrors
 * its state layout (balls per colour, buried balls, supported empty points, unsettled
 * balls, a Zobrist key of all balls and one of the buried balls) and its algorithms
 * function by function:
 *
 *   rules_geometry.c  the point tables of a board size (geometry.py)
 *   rules_position.c  Board._probe / _scan / _has_top    -> probe / scan / has_top
 *                     Board._resolve / _cascade          -> resolve / cascade
 *                     Board._commit / pop                -> commit / undo
 *                     Board._placement_legal             -> placement_legal, next_legal_placement
 *                     repetition (superko) multiset, root, history
 *   rules_scoring.c   Board._each_group, group_at, zombies, territory_masks, scores, outcome
 *   rules_playout.c   Board.random_playout / seeded_playout -> playout (with Python's own
 *                     Mersenne Twister, splitmix64, or a Python callable)
 *   _native.c         the Python glue: the Geometry and State types (native.py uses them)
 *
 * The search (margo_gtp/players/_search.c and search_*.c: evaluator, heavy playout policy,
 * UCT) uses the rules through this header only; setup.py compiles these rules files into
 * both extensions (see docs/native-core.md, "Two rooms, two extensions").
 *
 * Bit sets are arrays of 64-bit words over the flat point index of geometry.py (level, row,
 * column); a 19x19 board has 2470 points, so MAXW = 39 words. Per-point relations (support,
 * resting, neighbours with their crossing points, ...) are short index lists, so a group walk
 * costs the same on every board size. Written against the plain CPython C API: no build or
 * runtime dependency beyond a C compiler. Functions that fail return -1 (or NULL) with a
 * Python exception set.
 */
#ifndef MARGO_RULES_CORE_H
#define MARGO_RULES_CORE_H

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

/* ------------------------------------------------------------------ geometry (rules_geometry.c) */

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

/* ------------------------------------------------------------------ position (rules_position.c) */

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

/* Memory for the rules and the search comes from PyMem_Raw* (thread-safe, no GIL needed),
 * so the search threads (players/search_tree.c) can run the rules with the GIL released.
 * A thread without the GIL must not set a Python exception: it sets rules_without_gil, and
 * a memory error is then only the return code (the search turns it into MemoryError once
 * it holds the GIL again). */
extern __thread int rules_without_gil;
static inline void rules_no_memory(void) {
    if (!rules_without_gil) PyErr_NoMemory();
}

static inline int any(const W *a, int nw) {
    for (int w = 0; w < nw; w++) if (a[w]) return 1;
    return 0;
}

static inline int popcount_bits(const W *a, int nw) {
    int n = 0;
    for (int w = 0; w < nw; w++) n += __builtin_popcountll(a[w]);
    return n;
}

/* -- resolving a placement */

typedef struct {
    W bits[NB * MAXW]; /* white, black, buried, supported empty, unsettled */
    uint64_t key, bkey, rk;
    long removed[2];
} Res;

#define RB(r, k) ((r)->bits + (k) * MAXW)

static inline int swap_legal(const StateObject *s, int c) {
    return s->swap_on && s->nstack == 1 && s->stack[0].code >= 0 && c == s->to_move && s->end_term == END_NONE;
}

static inline int candidate(const StateObject *s, int i) {
    const W *playable = s->geo->up_to_level + (size_t)s->top_level * s->nw;
    return TEST(BITS(s, B_SUPP), i) && TEST(playable, i);
}

/* ------------------------------------------------------------------ random playout (rules_playout.c) */

/* Python's Mersenne Twister (CPython Modules/_randommodule.c), so that a seeded
 * random.Random drives the same playout on both cores */

typedef struct {
    uint32_t mt[624];
    int index;
} MT;

/* A small explicit generator for the MCTS bulk playout (splitmix64, Steele et al. 2014). */
typedef struct {
    uint64_t x;
} SplitMix;

/* A generator: uniform doubles in [0, 1) from its state. */
typedef double (*draw_fn)(void *);

/* ------------------------------------------------------------------ functions */

/* rules_geometry.c: fill the point tables of g (size, count, nw and the buffers set). */
void geometry_build(GeoObject *g);

/* rules_position.c */
int h_resize(StateObject *s, size_t cap);
int probe(const StateObject *s, int start, const W *mine, const W *theirs, const W *free, W *seen);
int has_top(const StateObject *s, const W *group, const W *occ);
void free_points(const StateObject *s, const W *occ, const W *supported, W *free);
int resolve(const StateObject *s, int i, int c, Res *r);
int stack_reserve(StateObject *s, Py_ssize_t more);
int commit(StateObject *s, int code, int c, const Res *r);
void state_clear_history(StateObject *s);
int set_root(StateObject *s, int to_move);
int check_play(StateObject *s, int code, int c, Res *r);
void undo(StateObject *s);
int next_legal_placement(const StateObject *s, int c, int from);
int has_legal_placement(StateObject *s, int c);

/* rules_scoring.c */
typedef int (*group_fn)(StateObject *s, int colour, const W *group, const W *freedoms, void *ctx);
int group_at(StateObject *s, int colour, int i, W *group, W *freedoms);
int each_group(StateObject *s, int colour, group_fn fn, void *ctx);
void each_group_unsettled(StateObject *s, W *out);
int zombie_cb(StateObject *s, int colour, const W *group, const W *freedoms, void *ctx);
void zombie_mask(StateObject *s, W *out);
void territory(StateObject *s, const W *zombies, W *terr0, W *terr1);
void territory_score(StateObject *s, long out[2]);
double result_of_scores(double white, double black);
double result_if_over(StateObject *s, double komi, int territory_scoring);

/* rules_playout.c */
#define BOARD_CHANGED "board changed during random_playout (the generator's random() played or undid a move)"
uint32_t mt_next(MT *m); /* genrand_uint32 of _randommodule.c */
double mt_random(MT *m);
int mt_from_tuple(PyObject *t, MT *m);
PyObject *mt_to_tuple(const MT *m);
double draw_mt(void *m);
double draw_sm(void *g);
double draw_py(void *fn);
long playout(StateObject *s, draw_fn draw, void *gen, long max_moves);

#endif /* MARGO_RULES_CORE_H */
