/* The MCTS search in C: what margo_gtp/players/_search.c (the Python glue) and the
 * search_*.c files share. The search uses the rules core through its header only
 * (margo_gtp/engine/rules_core.h), as KataGo's cpp/search uses cpp/game.
 *
 *   search_eval.c    mcts.heuristic_evaluator / territory_evaluator -> heuristic, simulate
 *   search_policy.c  playout_policy.HeavyPolicy                     -> heavy_playout
 *   search_uct.c     mcts._child_score                              -> uct_score
 */
#ifndef MARGO_SEARCH_CORE_H
#define MARGO_SEARCH_CORE_H

#include "rules_core.h"

/* search_eval.c: prm = (scale_min, scale_per_point, freedom_value, short_of_freedoms_loss,
 * group_cost, ladder_depth); both return -2 with an exception set on a memory error. */
double heuristic(StateObject *s, double komi, const double prm[6]);
double simulate(StateObject *s, uint64_t seed, long max_moves, double komi, int territory_scoring, int evaluator,
                const double prm[6]);

/* search_policy.c: moves played, -1 with an exception set on a memory error. */
long heavy_playout(StateObject *s, MT *m, long max_moves, double tactics);

/* search_uct.c: UCT_OK with the score in *out, or which error Python's arithmetic would raise. */
enum { UCT_OK = 0, UCT_ZERO_DIVISION = 1, UCT_DOMAIN_ERROR = 2 };
int uct_score(double visits, double wins, double rave_n, double rave_w, double log_parent, double uct_c,
              double rave_k, double prior_visits, double prior_wins, double *out);

#endif /* MARGO_SEARCH_CORE_H */
