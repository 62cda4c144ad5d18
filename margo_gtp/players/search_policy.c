/* The heavy playout policy of margo_gtp/players/playout_policy.py, ported move for move:
 * the local reply to the last move (capture, escape with the one-move check, connect or cut
 * at a bridge), else one move of the uniform random playout, from the same draws of the
 * same Mersenne Twister, so the same game as the Python policy. */
#include "search_core.h"

#define HEAVY_MAX 64

static inline int single_bit_index(const W *set, int nw) {
    for (int w = 0; w < nw; w++) if (set[w]) return w * 64 + __builtin_ctzll(set[w]);
    return -1;
}

/* playout_policy._escapes: does the legal placement at i (resolved in *r) capture, or
 * leave colour c's group there with two freedoms or more? The board is left unchanged. */
static int heavy_escapes(State *s, int i, int c, const Res *r, int *err) {
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
static int heavy_reply(State *s, int c, Res *r) {
    if (!s->nstack) return -1;
    int p = s->stack[s->nstack - 1].code;
    if (p < 0) return -1; /* a pass or a swap */
    const Geometry *g = s->geo;
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
long heavy_playout(State *s, MT *m, long max_moves, double tactics) {
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
