/* The MarGo rules core in plain C: its types, status codes and functions, shared by the
 * files that hold them, by the search (margo_gtp/players/search_*.c) and by the Python glue.
 * No Python here: as KataGo's cpp/game has no bindings, this header and the rules_*.c files
 * include no Python.h, touch no Python object and set no Python exception. A function that
 * can fail returns a status (RulesStatus below); the glue alone (native_glue.h, used by
 * _native.c and ../players/_search.c) turns a status into a Python exception.
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
 *   rules_state.c     a state's life (state_start, state_copy, state_load, state_reset,
 *                     state_free)
 *   rules_scoring.c   Board._each_group, group_at, zombies, territory_masks, scores, outcome
 *   rules_playout.c   Board.random_playout / seeded_playout -> playout (with Python's own
 *                     Mersenne Twister, splitmix64, or any draw function the caller gives)
 *   native_glue.h     the Python objects over Geometry and State, status -> exception
 *   _native.c         the Python glue: the Geometry and State types (native.py uses them)
 *
 * The search (margo_gtp/players/_search.c and search_*.c: evaluator, heavy playout policy,
 * UCT) uses the rules through this header only; setup.py compiles these rules files into
 * both extensions from one list (see docs/native-core.md, "Two rooms, two extensions").
 *
 * Bit sets are arrays of 64-bit words over the flat point index of geometry.py (level, row,
 * column); a 19x19 board has 2470 points, so MAXW = 39 words. Per-point relations (support,
 * resting, neighbours with their crossing points, ...) are short index lists, so a group walk
 * costs the same on every board size. Memory comes from malloc (thread-safe: the search
 * threads run the rules without the GIL). C99, no dependency beyond the C library.
 */
#ifndef MARGO_RULES_CORE_H
#define MARGO_RULES_CORE_H

#include <stddef.h>
#include <stdlib.h>
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

/* What a rules function answers: RULES_OK, why a move is illegal (positive: check_play's
 * reasons in Board._prepare's order; native.py words them as the reference's
 * IllegalMoveError), or why the call failed (negative, so `< 0` tests for any failure). */
typedef enum {
    RULES_OK = 0,
    RULES_ILLEGAL_GAME_OVER = 1,     /* the game is over */
    RULES_ILLEGAL_PASS = 2,          /* passing is not allowed */
    RULES_ILLEGAL_SWAP = 3,          /* swap: not the second player's second turn, or swap off */
    RULES_ILLEGAL_OFF_BOARD = 4,     /* the code is no point of this board */
    RULES_ILLEGAL_OCCUPIED = 5,      /* the point holds a ball */
    RULES_ILLEGAL_UNSUPPORTED = 6,   /* the point is not supported */
    RULES_ILLEGAL_ABOVE_TOP = 7,     /* the point is above max_level */
    RULES_ILLEGAL_SUICIDE = 8,       /* suicide or repetition */
    RULES_NO_MEMORY = -1,            /* an allocation failed; the state is as before the call */
    RULES_DRAW_FAILED = -2,          /* playout: the draw function failed (it keeps its own error) */
    RULES_BOARD_CHANGED = -3,        /* playout: the draw function changed the board */
    RULES_LOAD_BOTH_COLOURS = -4,    /* state_load: a point holds both colours */
    RULES_LOAD_UNSUPPORTED = -5,     /* state_load: a ball is not supported */
} RulesStatus;

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

typedef struct Geometry {
    int size, count, nw;
    Pt *pts;
    /* The group walk's table, compact for the cache: per point the number of contacts,
     * then (neighbour, crossing a, crossing b) int16 triples, then the own-freedom
     * neighbours (level 0 only) and all same-level neighbours. */
    struct Walk { int8_t nadj, npn, nnb, pad; int16_t adj[12][3]; int16_t pn[4], nb[4]; } *walk;
    W *plane;        /* nw */
    W *level_mask;   /* size * nw */
    W *up_to_level;  /* size * nw */
    uint64_t *zob[2]; /* Zobrist keys per colour and point (filled by the caller: geometry.py's) */
    uint64_t ztm[2];  /* ... and of the side to move */
} Geometry;

/* ------------------------------------------------------------------ position (rules_position.c) */

typedef struct {
    int colour, code, to_move, passes, swapped, end_term, end_winner;
    long cap0, cap1, end_margin;
    uint64_t key, bkey;
} Entry;

typedef struct State {
    const Geometry *geo; /* not owned: it must outlive the state */
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
    ptrdiff_t nstack, capstack;
    uint64_t *pos;
    ptrdiff_t npos, cappos;
    /* multiset of repetition keys (open addressing; zero counts stay as tombstones) */
    uint64_t *hkey;
    int32_t *hcount;
    uint8_t *hused;
    size_t hcap, hfill;
    /* scratch */
    int *walk;
    /* bumped by every change of the position (commit, undo, set_root, load): a playout
     * whose draw function calls back into Python sees whether the callback changed the board */
    uint64_t version;
} State;

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

/* -- resolving a placement */

typedef struct {
    W bits[NB * MAXW]; /* white, black, buried, supported empty, unsettled */
    uint64_t key, bkey, rk;
    long removed[2];
} Res;

#define RB(r, k) ((r)->bits + (k) * MAXW)

static inline int swap_legal(const State *s, int c) {
    return s->swap_on && s->nstack == 1 && s->stack[0].code >= 0 && c == s->to_move && s->end_term == END_NONE;
}

static inline int candidate(const State *s, int i) {
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

/* A generator: uniform doubles in [0, 1) from its state; a negative answer means it failed
 * (the playout stops with RULES_DRAW_FAILED; the generator keeps its own error). */
typedef double (*draw_fn)(void *);

/* ------------------------------------------------------------------ functions */

/* rules_geometry.c: the tables of a size x size board (2..19) into g, zobrist keys zero
 * (the caller fills zob and ztm); RULES_OK or RULES_NO_MEMORY (g then holds nothing to
 * free). geometry_free frees what geometry_init allocated (a zeroed g too). */
int geometry_init(Geometry *g, int size);
void geometry_free(Geometry *g);

/* rules_state.c: a state's life. state_start makes the empty board of s->geo the root
 * with to_move to play; s must be zeroed with geo and the rule fields (all_freedoms ...
 * fcw) set. state_copy makes dst (uninitialised) an independent copy of src, history
 * included. state_free frees what a state owns (also after a failed start or copy).
 * state_reset: the empty board, history cleared. state_load: set the balls (bit sets of
 * s->nw words) and what derives from them, then the caller calls set_root. */
int state_start(State *s, int to_move);
int state_copy(State *dst, const State *src);
void state_free(State *s);
int state_reset(State *s, int to_move);
int state_load(State *s, const W *white, const W *black);

int h_resize(State *s, size_t cap);
int probe(const State *s, int start, const W *mine, const W *theirs, const W *free, W *seen);
int has_top(const State *s, const W *group, const W *occ);
void free_points(const State *s, const W *occ, const W *supported, W *free);
int resolve(const State *s, int i, int c, Res *r);
int stack_reserve(State *s, ptrdiff_t more);
int commit(State *s, int code, int c, const Res *r);
void state_clear_history(State *s);
int set_root(State *s, int to_move);
int check_play(State *s, int code, int c, Res *r);
void undo(State *s);
int next_legal_placement(const State *s, int c, int from);
int has_legal_placement(State *s, int c);

/* rules_scoring.c */
typedef int (*group_fn)(State *s, int colour, const W *group, const W *freedoms, void *ctx);
int group_at(State *s, int colour, int i, W *group, W *freedoms);
int each_group(State *s, int colour, group_fn fn, void *ctx);
void each_group_unsettled(State *s, W *out);
int zombie_cb(State *s, int colour, const W *group, const W *freedoms, void *ctx);
void zombie_mask(State *s, W *out);
void territory(State *s, const W *zombies, W *terr0, W *terr1);
void territory_score(State *s, long out[2]);
double result_of_scores(double white, double black);
double result_if_over(State *s, double komi, int territory_scoring);

/* rules_playout.c */
uint32_t mt_next(MT *m); /* genrand_uint32 of _randommodule.c */
double mt_random(MT *m);
double draw_mt(void *m);
double draw_sm(void *g);
/* The moves played (>= 0), or a failure status: RULES_NO_MEMORY, RULES_DRAW_FAILED,
 * RULES_BOARD_CHANGED (moves played before it stay played). */
long playout(State *s, draw_fn draw, void *gen, long max_moves);

#endif /* MARGO_RULES_CORE_H */
