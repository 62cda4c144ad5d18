/* The heuristic priors of MCTS in C: PythonTree.prior_rates of margo_gtp/players/python_tree.py,
 * which scores every move with HeuristicPlayer.evaluate (players/heuristic.py) and turns the
 * scores into prior win rates. The same features, the same double operations in the same
 * order (the build turns off floating-point contraction), so the same rates as Python's,
 * bit for bit (tests/test_search_prior.py compares them on random positions).
 *
 * It runs on search threads without the GIL: no Python object is touched, and the position
 * is changed (each move pushed, looked at, undone) and left as it was. With patterns on
 * (PriorParams.patterns), prior_rates mixes in the learned patterns' rates
 * (search_patterns.c), float for float as PythonTree.prior_rates (tests/test_patterns.py).
 */
#include "search_core.h"

/* heuristic.group_report for one colour: groups, balls in groups with one freedom, and
 * the freedoms summed over the groups */
typedef struct {
    long groups, in_atari, freedoms;
} GroupReport;

static int report_cb(State *s, int colour, const W *group, const W *freedoms, void *ctx) {
    GroupReport *g = ctx;
    int count = popcount_bits(freedoms, s->nw);
    g->groups += 1;
    g->freedoms += count;
    if (count == 1) g->in_atari += popcount_bits(group, s->nw);
    return 0;
}

static void group_report(State *s, int colour, GroupReport *out) {
    memset(out, 0, sizeof(*out));
    each_group(s, colour, report_cb, out);
}

/* The column and row of point i (geometry.py: points run level by level, then row by
 * row, then column by column; level l has (size - l)**2 points). */
static void point_xy(const State *s, int i, int *x, int *y) {
    int size = s->geo->size, level = s->geo->pts[i].level, first = 0;
    for (int l = 0; l < level; l++) first += (size - l) * (size - l);
    int side = size - level;
    *x = (i - first) % side;
    *y = (i - first) / side;
}

/* HeuristicPlayer._pass_value: a pass that ends the game is worth +decisive when colour
 * then wins, -decisive when not (a draw included); any other pass -decisive / 2.
 * A pass is legal only with allow_pass, so a game that goes on after it has no outcome. */
static int pass_value(State *s, int colour, const PriorParams *pp, double *out) {
    if (commit(s, CODE_PASS, colour, NULL) < 0) return -1;
    double value = -pp->decisive / 2;
    if (s->end_term != END_NONE) {
        int winner = -1;
        if (s->end_term == END_TWO_PASSES) {
            long sc[2];
            territory_score(s, sc);
            double white = sc[0] + pp->komi, black = (double)sc[1];
            winner = white > black ? 0 : (black > white ? 1 : -1);
        } else {
            winner = s->end_winner;
        }
        value = winner == colour ? pp->decisive : -pp->decisive;
    }
    undo(s);
    *out = value;
    return 0;
}

/* HeuristicPlayer.evaluate(board, move, colour) with the weights of pp */
static int evaluate(State *s, int code, int colour, const PriorParams *pp, double *out) {
    if (code == CODE_PASS) return pass_value(s, colour, pp, out);
    Res r;
    if (check_play(s, code, colour, &r)) return PRIOR_ILLEGAL;
    long captured_before = s->cap[colour];
    if (commit(s, code, colour, code >= 0 ? &r : NULL) < 0) return -1;
    long captures = s->cap[colour] - captured_before;
    GroupReport own, enemy;
    group_report(s, colour, &own);
    group_report(s, colour ^ 1, &enemy);
    undo(s);
    double score = (pp->captures * captures + pp->own_in_atari * own.in_atari + pp->enemy_in_atari * enemy.in_atari +
                    pp->own_groups * own.groups + pp->enemy_groups * enemy.groups +
                    pp->freedoms * (own.freedoms - enemy.freedoms));
    long plies = (long)s->nstack;
    if (code >= 0 && plies < pp->centre_moves) {
        int x, y;
        point_xy(s, code, &x, &y);
        double centre = (double)(s->geo->size - 1 - s->geo->pts[code].level) / 2;
        double distance = fabs(x - centre) + fabs(y - centre);
        score -= pp->centre * distance * (1 - (double)plies / (double)pp->centre_moves);
    }
    *out = score;
    return 0;
}

/* PythonTree._heuristic_rates */
static int heuristic_rates(State *s, int to_move, const int32_t *codes, int n, const PriorParams *pp,
                           double *rates) {
    if (n <= 0) return 0;
    for (int k = 0; k < n; k++) {
        int err = evaluate(s, codes[k], to_move, pp, &rates[k]);
        if (err) return err;
    }
    double top = rates[0];
    for (int k = 1; k < n; k++) if (rates[k] > top) top = rates[k]; /* max(scores) */
    for (int k = 0; k < n; k++) rates[k] = pp->low + (pp->high - pp->low) * exp((rates[k] - top) / pp->temp);
    return 0;
}

/* PythonTree.prior_rates: the heuristic rates, or with patterns their mix with the pattern
 * rates of the placements (patterns.rates_of of their log strengths), the same double
 * operations in the same order as the Python. */
int prior_rates(State *s, int to_move, const int32_t *codes, int n, const PriorParams *pp, double *rates) {
    if (n <= 0) return 0;
    if (!pp->patterns) return heuristic_rates(s, to_move, codes, n, pp, rates);
    double mix = pp->pattern_mix;
    int placements = 0;
    for (int k = 0; k < n; k++) placements += codes[k] >= 0;
    if (mix < 1 || placements < n) {
        int err = heuristic_rates(s, to_move, codes, n, pp, rates);
        if (err) return err;
    } else {
        for (int k = 0; k < n; k++) rates[k] = 0.0;
    }
    if (!placements) return 0;
    int32_t *points = PyMem_RawMalloc((size_t)placements * sizeof(int32_t));
    double *logs = PyMem_RawMalloc((size_t)placements * sizeof(double));
    if (!points || !logs) {
        PyMem_RawFree(points);
        PyMem_RawFree(logs);
        return PRIOR_NO_MEMORY;
    }
    for (int k = 0, j = 0; k < n; k++) if (codes[k] >= 0) points[j++] = codes[k];
    int status = pattern_log_strengths(s, to_move, points, placements, pp->patterns, logs);
    if (status == PATTERN_OK) {
        double top = logs[0];
        for (int j = 1; j < placements; j++) if (logs[j] > top) top = logs[j]; /* max(logs) */
        for (int k = 0, j = 0; k < n; k++) {
            if (codes[k] < 0) continue;
            double rate = pp->low + (pp->high - pp->low) * exp(logs[j++] - top);
            rates[k] = (1 - mix) * rates[k] + mix * rate;
        }
    }
    PyMem_RawFree(points);
    PyMem_RawFree(logs);
    return status == PATTERN_OK ? PRIOR_OK : status == PATTERN_NO_MEMORY ? PRIOR_NO_MEMORY : PRIOR_ILLEGAL;
}
