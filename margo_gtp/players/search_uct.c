/* The selection score of MCTS (searcher._child_score): UCT blended with the AMAF value (RAVE,
 * Gelly & Silver 2007), the same double operations in the same order as the Python (the
 * build turns off floating-point contraction, so beta * amaf + (1 - beta) * q is not fused
 * into one rounding), so the same floats and the same choices. */
#include "search_core.h"

int uct_score(double visits, double wins, double rave_n, double rave_w, double log_parent, double uct_c,
              double rave_k, double prior_visits, double prior_wins, double *out) {
    double n = visits + prior_visits;
    if (n == 0.0) return UCT_ZERO_DIVISION;
    double q = (wins + prior_wins) / n;
    if (rave_n != 0.0) {
        double beta = 0.0;
        if (rave_k != 0.0) {
            double d = 3 * visits + rave_k;
            if (d == 0.0) return UCT_ZERO_DIVISION;
            double r = rave_k / d;
            if (r < 0.0) return UCT_DOMAIN_ERROR;
            beta = sqrt(r);
        }
        q = beta * (rave_w / rave_n) + (1 - beta) * q;
    }
    double u = log_parent / n;
    if (u < 0.0) return UCT_DOMAIN_ERROR;
    *out = q + uct_c * sqrt(u);
    return UCT_OK;
}
