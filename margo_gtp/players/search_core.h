/* The MCTS search in C: what margo_gtp/players/_search.c (the Python glue) and the
 * search_*.c files share. The search uses the rules core through its header only
 * (margo_gtp/engine/rules_core.h), as KataGo's cpp/search uses cpp/game.
 *
 *   search_eval.c    evaluate.heuristic_evaluator / territory_evaluator -> heuristic, simulate
 *   search_policy.c  playout_policy.HeavyPolicy                         -> heavy_playout
 *   search_uct.c     searcher._child_score                              -> uct_score
 *   search_prior.c   PythonTree.prior_rates (HeuristicPlayer.evaluate)   -> prior_rates
 *   search_tree.c    PythonTree.search (_descend, _expand, _backup)      -> tree_search
 *   search_patterns.c patterns.features                                 -> pattern_features
 *   search_glue.c    (for _search.c) settings by field name in, the tree's lists out
 *
 * (PythonTree is margo_gtp/players/python_tree.py, the reference these ports are tested
 * against.) The settings come from a SearchConfig (search_config.py), which _search.c reads
 * (search_glue.c) by field name once per call into the structs below.
 */
#ifndef MARGO_SEARCH_CORE_H
#define MARGO_SEARCH_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h> /* PyMem_Raw* (and tree_new_root's MemoryError): unlike the rules, the search is not plain C yet */

#include "rules_core.h"

#include <pthread.h>

/* search_eval.c: prm = (scale_min, scale_per_point, freedom_value, short_of_freedoms_loss,
 * group_cost, ladder_depth); both return -2 on a memory error (no exception set). */
double heuristic(State *s, double komi, const double prm[6], double *count);
/* simulate also gives the simulation's final score margin in *margin (final_margin), unless
 * margin is NULL (then it computes none) */
double simulate(State *s, uint64_t seed, long max_moves, double komi, int territory_scoring, int evaluator,
                const double prm[6], double *margin);
/* evaluate.final_margin: White's score minus Black's (komi included) of the position s: the
 * rules' final score when the game is over (the scores Board.outcome compares), else the
 * R19 territory count both evaluators start from. */
double final_margin(State *s, double komi, int territory_scoring);

/* search_policy.c: moves played, -1 on a memory error (no exception set). */
long heavy_playout(State *s, MT *m, long max_moves, double tactics);

/* search_uct.c: UCT_OK with the score in *out, or which error Python's arithmetic would raise. */
enum { UCT_OK = 0, UCT_ZERO_DIVISION = 1, UCT_DOMAIN_ERROR = 2 };
int uct_score(double visits, double wins, double rave_n, double rave_w, double log_parent, double uct_c,
              double rave_k, double prior_visits, double prior_wins, double *out);

/* search_tree.c: a node of the tree (mcts.Node); children are consecutive in the pool. */
typedef struct {
    double w, rave_w, prior;  /* wins and AMAF wins for `player`, the heuristic prior */
    int64_t n, rave_n;        /* visits (with virtual prior visits), AMAF visits */
    int32_t first_child;      /* index of the first child, -1 until expanded */
    int32_t nchildren;        /* 0 once expanded: a terminal position */
    int32_t code, point;      /* the move (point index, CODE_PASS, CODE_SWAP; -3 at the root), AMAF key or -1 */
    int32_t in_flight;        /* simulations through this node not backed up yet (virtual loss) */
    int8_t player, primed;    /* the colour that made `code`; priors given to the children */
    int8_t expanding;         /* a thread is making its children (outside the lock) */
} TreeNode;

/* The final score margins (final_margin) of the `scored` simulations through a node, for
 * its `player` (their sum) and squared (their sum): what scoreLead and scoreStdev read.
 * They live beside the pool (Tree.scores, indexed as the nodes), and only in a tree whose
 * searches were asked for them (tree_count_scores): a search nobody reads scores from (a
 * plain genmove, the bench) neither computes the margin nor carries 24 more bytes a node
 * through the cache (88 bytes a node had cost 12% of the simulations on 9x9). */
typedef struct {
    double sum, sq;
    int64_t scored;
} NodeScore;

typedef struct {
    TreeNode *nodes;
    NodeScore *scores;             /* NULL: not counted; else at least cap entries */
    int32_t count, cap, max_nodes; /* the pool never grows past max_nodes */
} Tree;

/* A node's score sums: zeros in a tree that does not count them. */
static inline NodeScore tree_score(const Tree *t, const TreeNode *node) {
    NodeScore none = {0.0, 0.0, 0};
    return t->scores ? t->scores[node - t->nodes] : none;
}

/* The SearchConfig fields the search reads (_search.c's read_search_params, by name) */
typedef struct {
    double uct_c, rave_k, uct_prior_visits, uct_prior_wins, prior_value;
    long expand_visits, prior_depth, prior_visits, decided_every, playout_moves;
    int early_stop, territory_scoring, evaluator;
    double komi, eval[6];
} SearchParams;

/* search_prior.c: the prior win rates of moves, as PythonTree.prior_rates gives them:
 * HeuristicPlayer.evaluate's one-ply score of each move (its Weights below), then
 * low + (high - low) * exp((score - best score) / temp). This is the search's one entry
 * point for priors: the tree calls prior_rates at each expansion within prior_depth of the
 * root (and when it primes a reused tree), on the thread's own position, without the lock
 * and without the GIL. With patterns on, the learned pattern priors (search_patterns.c) are mixed in
 * here, as PythonTree.prior_rates mixes them. */
typedef struct {
    /* heuristic.Weights */
    double captures, own_in_atari, enemy_in_atari, own_groups, enemy_groups, freedoms, centre;
    long centre_moves;        /* plies of the game during which the centre term counts */
    double decisive;          /* a pass that ends the game: +decisive won, -decisive not */
    double low, high, temp;   /* SearchConfig.prior_low, prior_high, prior_temp */
    double komi;              /* the rules' komi: who wins when a pass ends the game */
    /* the learned patterns (search_patterns.c, PythonTree.prior_rates): NULL for none, else
     * the dense table of log gammas, mixed in as (1 - mix) * heuristic + mix * pattern rate */
    const double *patterns;
    double pattern_mix;
} PriorParams;

enum { PRIOR_OK = 0, PRIOR_NO_MEMORY = -1, PRIOR_ILLEGAL = -2 };

/* The prior rates of the n moves `codes` (point index, CODE_PASS, CODE_SWAP; each legal)
 * of colour to_move in s, into rates. s is changed during the call and restored. Returns
 * PRIOR_OK, PRIOR_NO_MEMORY or PRIOR_ILLEGAL (a move is not legal); no exception set. */
int prior_rates(State *s, int to_move, const int32_t *codes, int n, const PriorParams *pp, double *rates);

/* Why a search stopped early; the glue raises the matching Python exception. */
enum {
    SEARCH_OK = 0,
    SEARCH_NO_MEMORY,  /* MemoryError */
    SEARCH_ILLEGAL,    /* RuntimeError: a child's move is illegal in its position */
    SEARCH_NOT_NUMBER, /* ValueError: a child's score is not a number */
    SEARCH_CALLBACK,   /* the tick (a stop or progress callback) raised: its exception */
};

typedef struct SearchShared SearchShared;
typedef struct SearchRun SearchRun;

/* The outside's say in a running search (set by the glue; all zero: none). `halt` is a flag
 * another thread sets (the glue's StopFlag, read atomically before every simulation: the
 * search ends after the simulations in flight). `tick` is called by thread `ticker` alone
 * (the first), between two of its simulations, every `tick_seconds`, without the tree lock
 * (it may read the tree by search_read); 1 stops the search, -1 fails it (SEARCH_CALLBACK). */
typedef int (*tick_fn)(void *ctx, SearchShared *sh);
typedef struct {
    const int *halt;
    tick_fn tick;
    void *tick_ctx;
    double tick_seconds;
    const SearchRun *ticker;
} SearchControl;

/* What the search threads share; every field below `lock` is read and written under it. */
struct SearchShared {
    Tree *tree;
    const SearchParams *prm;
    const PriorParams *priors; /* NULL: no priors */
    /* NULL: every legal move everywhere; else move_limits[colour * (count + 2) + code + 2]
     * is the depth (the root 0) from which colour may play code (avoidMoves/allowMoves,
     * native_search.limit_table): a node shallower than limits_depth, where some limit
     * holds, gets only the legal moves whose limit is at most its depth */
    const int32_t *move_limits;
    int32_t limits_depth;
    int32_t root;
    int colour;
    long playouts;            /* < 0: no limit */
    int has_deadline;
    double deadline, start;   /* time.perf_counter() seconds */
    pthread_mutex_t lock;     /* the tree, and the fields below */
    long claimed, done;       /* simulations started, backed up */
    int stop;                 /* the budget is spent, the move decided, or an error */
    int error;                /* SEARCH_OK or why the search failed (the first error) */
    int pool_full;            /* an expansion was refused: max_nodes reached */
    SearchControl control;    /* stop flag and tick (set before the search, then read only) */
    /* the tree counts the score sums (Tree.scores non-NULL), set before the threads start:
     * tree->scores itself is rewritten, under the lock, whenever the pool grows, so a
     * thread may not read it unlocked even to test it for NULL */
    int count_scores;
};

/* One search thread: its own position, generator and scratch. */
struct SearchRun {
    SearchShared *sh;
    State *work;        /* the root position, changed during a simulation and restored */
    MT *mt;                   /* thread 0: the player's generator; others: seeded from it */
    int32_t *codes;           /* count + 2 move codes */
    double *rates;            /* count + 2 prior rates */
    int32_t *path, *path_codes, *path_colours; /* nodes, root first; the moves into path[1..], their colours */
    int path_cap;
    /* ownership (NULL: not counted): for each point index, how many of this thread's
     * simulations ended with a White ball there (owner[i]) and with a Black one
     * (owner[count + i]), and how many simulations were counted; the thread's own arrays,
     * summed by the glue after the search, so the hot loop takes no lock for them */
    int64_t *owner;
    long owner_playouts;
    pthread_t thread;
};

int32_t tree_new_root(Tree *t, int player, double prior_value);
void tree_free(Tree *t);
/* From now on the tree counts the score sums of every simulation (a kept tree, in every
 * later search too): Tree.scores made, zero for the nodes already there. 0, or -1 when the
 * allocation fails (no exception set). */
int tree_count_scores(Tree *t);
int tree_advance(Tree *t, int32_t *root, int code, int colour);
/* PythonTree.search from sh->root by `threads` threads on the one tree (runs[0] runs on the
 * calling thread, which must not hold the GIL; the others are started here): until
 * sh->playouts simulations or sh->deadline. Simulations backed up; sh->error says if the
 * search failed (no Python exception is set). */
long tree_search(SearchShared *sh, SearchRun *runs, int threads);
/* read(ctx, tree, root, simulations backed up) with the tree still (for the tick's progress
 * reports); its answer. */
int search_read(SearchShared *sh, int (*read)(void *ctx, const Tree *t, int32_t root, long done), void *ctx);

/* search_patterns.c: the learned patterns' features (patterns.features) of the n moves
 * `codes` for `colour`, PATTERN_GROUPS values per move into out. The position is played and
 * undone, so it is unchanged. No Python exception is set (it may run without the GIL). */
#define PATTERN_GROUPS 17
enum { PATTERN_OK = 0, PATTERN_NO_MEMORY = -1, PATTERN_NOT_A_POINT = -2, PATTERN_ILLEGAL = -3 };
int pattern_features(State *s, int colour, const int32_t *codes, int n, int32_t *out);
/* The log strength (the sum of the features' log gammas) of each move, from the dense table
 * of PATTERN_TABLE_SIZE log gammas (the groups one after the other, pattern_group_sizes):
 * what the priors mix in (patterns.pattern_rates). Same return values. */
#define PATTERN_TABLE_SIZE 390797 /* the sum of pattern_group_sizes */
extern const int pattern_group_sizes[PATTERN_GROUPS];
int pattern_log_strengths(State *s, int colour, const int32_t *codes, int n, const double *table,
                          double *out);

/* search_glue.c (for _search.c): the settings by field name, 0, or -1 with a Python
 * exception set (a missing field is a TypeError that names it). read_eval_params: the
 * heuristic evaluator's prm (search_eval.c) from a SearchConfig; read_search_params: a
 * search's SearchParams from it, komi and the scoring being the rules'; read_priors: the
 * PriorParams from a Priors (players/c_tree.py), its pattern table borrowed from `priors`. */
int read_eval_params(PyObject *config, double prm[6]);
int read_search_params(PyObject *config, double komi, int territory_scoring, SearchParams *prm);
int read_priors(PyObject *priors, double komi, PriorParams *pp);
/* search_glue.c: the move limits (SearchShared.move_limits) from None or bytes of
 * 2 * (count + 2) native int32 (each >= 0), copied into *limits (PyMem_RawMalloc; NULL for
 * None) with their largest in *depth; 0, or -1 with a ValueError set. */
int read_move_limits(PyObject *obj, int count, int32_t **limits, int32_t *depth);
/* search_glue.c: the tree below root as Python lists; NULL with an exception set. tree_nodes:
 * every node in preorder as (depth, code, n, w, rave_n, rave_w, prior, score_sum, score_sq,
 * scored); root_children: the root's children with their principal variations. */
PyObject *tree_nodes(const Tree *t, int32_t root);
PyObject *root_children(const Tree *t, int32_t root);

#endif /* MARGO_SEARCH_CORE_H */
