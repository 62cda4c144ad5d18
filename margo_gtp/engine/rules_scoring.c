/* Groups, zombies, territory, scores and the outcome of a finished game: Board._each_group,
 * group_at, _zombie_mask, territory_masks and score of margo_gtp/engine/python_core.py. */
#include "rules_core.h"

/* The freedoms (points of `free` next to a ball, R12) of the balls of `group`, into out. */
static void group_freedoms(const State *s, const W *group, const W *free, W *out) {
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
int group_at(State *s, int colour, int i, W *group, W *freedoms) {
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

/* For every group of colour c (ascending by lowest ball): group and freedoms. Calls fn. */
int each_group(State *s, int colour, group_fn fn, void *ctx) {
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

static int unsettled_cb(State *s, int colour, const W *group, const W *freedoms, void *ctx) {
    W *out = ctx;
    W occ[MAXW];
    for (int w = 0; w < s->nw; w++) occ[w] = BITS(s, 0)[w] | BITS(s, 1)[w];
    if (!any(freedoms, s->nw) && has_top(s, group, occ))
        for (int w = 0; w < s->nw; w++) out[w] |= group[w];
    return 0;
}

/* Board._unsettled_mask */
void each_group_unsettled(State *s, W *out) {
    memset(out, 0, s->nw * sizeof(W));
    each_group(s, 0, unsettled_cb, out);
    each_group(s, 1, unsettled_cb, out);
}

int zombie_cb(State *s, int colour, const W *group, const W *freedoms, void *ctx) {
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
void zombie_mask(State *s, W *out) {
    memset(out, 0, s->nw * sizeof(W));
    each_group(s, 0, zombie_cb, out);
    each_group(s, 1, zombie_cb, out);
}

/* Board.territory_masks */
void territory(State *s, const W *zombies, W *terr0, W *terr1) {
    int nw = s->nw;
    const Geometry *g = s->geo;
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

/* territory_score() -> (white, black) ball-and-territory counts of R19, komi not added */
void territory_score(State *s, long out[2]) {
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

double result_of_scores(double white, double black) {
    return white > black ? 1.0 : (black > white ? 0.0 : 0.5);
}

/* White's result (1, 0 or 1/2) if the game is over (Board.outcome), else -1. */
double result_if_over(State *s, double komi, int territory_scoring) {
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
