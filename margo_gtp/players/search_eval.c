/* The leaf evaluation of MCTS: C ports of margo_gtp/players/evaluate.py's heuristic_evaluator
 * (with can_escape and ladder_captures, its ladder reading) and territory_evaluator, and
 * the bulk call that plays a seeded playout and evaluates its end in one crossing. The same
 * double operations in the same order as the Python, so the same results. */
#include "search_core.h"

typedef struct {
    int n;
    int *size, *liberties, *last_liberty, *first_ball;
} GroupStats;

static int stats_cb(State *s, int colour, const W *group, const W *freedoms, void *ctx) {
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

/* evaluate._freedoms_through: the freedoms of colour's group holding the ball at i (into out);
 * returns their number, or -1 when i holds no unburied ball of colour (it was taken). */
static int freedoms_through(State *s, int colour, int i, W *out) {
    W group[MAXW];
    return group_at(s, colour, i, group, out);
}

static int ladder_captures(State *s, int attacker, int ball, const W *liberties, int depth);

/* evaluate.can_escape: colour, to move, saves its group whose last freedom is point i by
 * playing there: legal and captures, or leaves the group three freedoms or more, or two
 * that a ladder of at most `depth` more ataris cannot take. 1 yes, 0 no, -1 memory error. */
static int can_escape(State *s, int colour, int i, int depth) {
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

/* evaluate.ladder_captures: attacker, to move, takes the group holding `ball`, whose two
 * freedoms are `liberties`, by an atari on one of them that the group cannot escape
 * (can_escape with depth - 1). 1 yes, 0 no, -1 memory error. */
static int ladder_captures(State *s, int attacker, int ball, const W *liberties, int depth) {
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

/* evaluate.heuristic_evaluator; prm = (scale_min, scale_per_point, freedom_value,
 * short_of_freedoms_loss, group_cost, ladder_depth). Returns -2 on a memory error. */
/* One group walk per colour serves both the zombie mask of the territory score and the
 * group statistics (the position does not change in between: can_escape runs after). */
typedef struct {
    W *zombies;
    GroupStats *stats;
} EvalWalk;

static int eval_cb(State *s, int colour, const W *group, const W *freedoms, void *ctx) {
    EvalWalk *e = ctx;
    zombie_cb(s, colour, group, freedoms, e->zombies);
    return stats_cb(s, colour, group, freedoms, &e->stats[colour]);
}

double heuristic(State *s, double komi, const double prm[6], double *count) {
    int nw = s->nw;
    GroupStats stats[2];
    int *buf = PyMem_RawMalloc(8 * (s->count + 1) * sizeof(int));
    int ladder_depth = (int)prm[5];
    if (!buf) {
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
    if (count) *count = margin;
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
                    PyMem_RawFree(buf);
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
                        PyMem_RawFree(buf);
                        return -2.0;
                    }
                }
                margin -= sign * (taken ? 1.0 : prm[3]) * g->size[k];
            }
        }
        margin += sign * (prm[2] * freedoms - prm[4] * g->n);
    }
    PyMem_RawFree(buf);
    int empty = 0;
    for (int w = 0; w < s->nw; w++) empty += __builtin_popcountll(s->geo->plane[w] & ~(BITS(s, 0)[w] | BITS(s, 1)[w]));
    double scale = prm[0] + prm[1] * empty;
    return 1.0 / (1.0 + exp(-margin / scale));
}

/* The final score of a finished game (the scores Board.outcome compares): the territory
 * count after two passes or under territory scoring, else the balls (R18). */
static double over_margin(State *s, double komi, int territory_scoring) {
    long sc[2];
    if (s->end_term == END_TWO_PASSES || territory_scoring) {
        territory_score(s, sc);
    } else {
        sc[0] = popcount_bits(BITS(s, 0), s->nw);
        sc[1] = popcount_bits(BITS(s, 1), s->nw);
    }
    return (sc[0] + komi) - (double)sc[1];
}

double final_margin(State *s, double komi, int territory_scoring) {
    if (result_if_over(s, komi, territory_scoring) >= 0) return over_margin(s, komi, territory_scoring);
    long sc[2];
    territory_score(s, sc);
    return (sc[0] + komi) - (double)sc[1];
}

/* The MCTS bulk call (evaluate.seeded_playout): a splitmix64 playout of at most max_moves moves
 * (Board.seeded_playout), then White's result: exact (1, 0 or 1/2) if the game is over,
 * else evaluator 0 (heuristic, with prm) or 1 (the sign of the territory count); the final
 * score margin (final_margin, from the counts the result was scored from) in *margin,
 * when margin is not NULL. Returns -2 on a memory error (no exception set). */
double simulate(State *s, uint64_t seed, long max_moves, double komi, int territory_scoring, int evaluator,
                const double prm[6], double *margin) {
    if (max_moves > 0) {
        SplitMix g = {seed};
        if (playout(s, draw_sm, &g, max_moves) < 0) return -2.0;
    }
    double result = result_if_over(s, komi, territory_scoring);
    if (result >= 0) {
        if (margin) *margin = over_margin(s, komi, territory_scoring);
        return result;
    }
    if (evaluator == 1) {
        long sc[2];
        territory_score(s, sc);
        if (margin) *margin = (sc[0] + komi) - (double)sc[1];
        return result_of_scores(sc[0] + komi, (double)sc[1]);
    }
    return heuristic(s, komi, prm, margin);
}
