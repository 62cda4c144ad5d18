/* The exact solver of small MarGo boards (issue 38): negamax alpha-beta over the ball
 * margin, with a transposition table keyed by the position's Zobrist key reduced over the
 * board's 8 symmetries. Plain C like the rules core it plays through (rules_core.h): no
 * Python here; margo_gtp/players/_solver.c is its glue, docs/solving.md its account.
 *
 * Situational superko. A position's value depends on the positions played before it (the
 * graph-history-interaction problem): under situational superko, on exactly the set of
 * them. The search plays on a rules-core State, so every legality test sees the real
 * history of the line; and the table key is the position together with that set (both seen
 * through the same symmetry), so a hit is a node with the same position and the same
 * earlier positions: its value is the same, whatever the order they came in. A first
 * design kept only "history-free" results under the bare position key; on 2x2 it gave a
 * wrong value (a result reused where an earlier position would have come back in the
 * subtree), which the brute force and the proof checker caught. The verification still
 * decides: the proof checker (proof_check.py) replays every line of a proof with the full
 * history, and the brute force (brute_force.py), which uses no table, must agree.
 *
 * Long lines. With no passing, captures and refills under superko make lines of hundreds
 * of plies; a depth-first search that follows each to its end never comes back. So the
 * search is iterative deepening with a pessimistic horizon: a line cut at the horizon
 * counts as the worst result for one side, the pessimist, and by the monotonicity of
 * minimax in its leaves the pessimist's lower bounds are then true; any other bound is true
 * only when no line below it was cut. The table keeps only true bounds, plus, tagged with
 * the horizon and the pessimist, the others for reuse within the same iteration (where a
 * result built on them counts as cut). solver.c's negamax and solver_search have the rule.
 */
#ifndef MARGO_SOLVER_CORE_H
#define MARGO_SOLVER_CORE_H

#include "rules_core.h"

#define SOLVER_MAX_SIZE 5      /* 55 points: every margin fits an int8 bound */
#define SOLVER_MAX_POINTS 55
#define SOLVER_MAX_PLY 4000    /* deeper than any line seen; deeper aborts the search */
#define SOLVER_INF 100         /* beyond every margin (|margin| <= 55) */
#define SOLVER_FIRST_HORIZON 8 /* the first iteration's lines, in plies from the root */

/* One table slot (40 bytes): the key (a shared entry's or a history entry's, solver.c); the
 * points the subtree's search touched and the ball counts of the positions it asked about
 * (in the canonical frame: see solver.c, "Sharing results between histories"); proven bounds on the node's value for the side to move (lower == upper:
 * exact); bounds that hold only for one remaining horizon and one pessimist (cut_lower,
 * cut_upper, valid while `cut_tag` is the node's: see solver.c); the best move in the
 * canonical frame (-1: none); and the effort (the bit length of the subtree's node count)
 * that decides which of a bucket's two slots a result replaces. */
typedef struct {
    uint64_t key;
    uint64_t touched;                      /* a point set (sizes <= 5: one 64-bit word) */
    uint64_t counts[2];                    /* ball counts asked, by side to move (solver.c) */
    int8_t lower, upper;
    int8_t cut_lower, cut_upper;
    uint16_t cut_tag;                      /* 2 * (plies left to the horizon) + pessimist + 2; 0: none */
    int8_t best;
    uint8_t effort;
} SolverEntry;

typedef struct {
    Geometry geo;
    State state;                           /* the line searched, with its real history */
    int ready;                             /* geo and state built (solver_free frees them) */
    int symmetry[8][SOLVER_MAX_POINTS];    /* point -> its image under each symmetry */
    int inverse[8][SOLVER_MAX_POINTS];
    SolverEntry *table;
    size_t table_mask;                     /* entries - 1 (a power of two) */
    uint64_t nodes, node_limit;            /* node_limit 0: none */
    uint64_t history[8];                   /* the set of positions before the node, per image */
    uint64_t *past;                        /* SOLVER_MAX_PLY x (white, black): the balls of the
                                              positions of the line, by ply from the empty board */
    uint64_t *past_keys;                   /* SOLVER_MAX_PLY x 8: their images' keys */
    int aborted, too_deep, deepest;         /* deepest: the longest line searched, in plies */
    int root_ply, horizon, pessimist;      /* the iteration: lines stop at root_ply + horizon; the
                                              side (0 White, 1 Black) the horizon counts against */
    uint64_t resume_key;                   /* the root and window of the last unfinished search ... */
    int resume_alpha, resume_beta, resume_horizon; /* ... and its horizon, to go on from there */
    int first_horizon;                     /* a search not resumed starts its rounds here if
                                              deeper than SOLVER_FIRST_HORIZON (a run resumed
                                              from its checkpoint); 0: not set */
    Res *results;                          /* SOLVER_MAX_PLY: each ply's resolution scratch */
    int *moves;                            /* SOLVER_MAX_PLY * points */
} Solver;

/* Build a solver for the default rules on a size x size board (2..SOLVER_MAX_SIZE) with
 * 2^table_bits table entries; RULES_OK or RULES_NO_MEMORY (then solver_free it). */
int solver_init(Solver *sv, int size, int table_bits);
void solver_free(Solver *sv);

/* The empty board, White to move, with no history: the start of every line. */
int solver_reset(Solver *sv);

/* Play one move of the line to be solved; RULES_OK or why it is illegal (rules_core.h). */
int solver_play(Solver *sv, int code);

/* The value (ball margin for the side to move, under perfect play) of the current
 * position, within [alpha, beta] in the fail-soft sense: a result <= alpha is an upper
 * bound, >= beta a lower bound, else exact. *best: a best move at the root (-1 when the
 * game is over). Iterative deepening with a pessimistic horizon (solver.c): every answer
 * is proven, none rests on a cut-off line. Stops early when node_limit is passed
 * (sv->aborted set, the answer meaningless; what was proven stays in the table, and the
 * same call goes on at the horizon it had reached). */
int solver_search(Solver *sv, int alpha, int beta, int *best);

#endif /* MARGO_SOLVER_CORE_H */
