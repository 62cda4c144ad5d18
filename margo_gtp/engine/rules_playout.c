/* Random playouts: Python's own Mersenne Twister (so a seeded random.Random plays the same
 * game on both cores), splitmix64 (MCTS's generator, Board.seeded_playout), or any draw
 * function the caller gives (the glue's calls a Python random()), and the playout loop of
 * random_playout in margo_gtp/engine/playout.py. */
#include "rules_core.h"

uint32_t mt_next(MT *m) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (m->index >= 624) {
        int kk;
        for (kk = 0; kk < 624 - 397; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + 397] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < 623; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (m->mt[623] & 0x80000000U) | (m->mt[0] & 0x7fffffffU);
        m->mt[623] = m->mt[396] ^ (y >> 1) ^ mag01[y & 0x1U];
        m->index = 0;
    }
    y = m->mt[m->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

double mt_random(MT *m) {
    uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

static uint64_t sm_next(SplitMix *g) {
    uint64_t z = (g->x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double sm_random(SplitMix *g) { return (double)(sm_next(g) >> 11) * (1.0 / 9007199254740992.0); }
double draw_mt(void *m) { return mt_random((MT *)m); }
double draw_sm(void *g) { return sm_random((SplitMix *)g); }

/* Board._random_playout, with `draw` giving uniform doubles in [0, 1): candidates are tried
 * in random order without replacement and the first legal one is played. Returns the
 * moves played, or a failure status: RULES_NO_MEMORY; RULES_DRAW_FAILED when a draw is
 * negative; RULES_BOARD_CHANGED when a draw changed the board (a draw function that calls
 * back into Python may: as CPython's "dictionary changed size during iteration", the
 * candidates describe a position that is gone). */
long playout(State *s, draw_fn draw, void *gen, long max_moves) {
    int nw = s->nw, count = s->count;
    const W *playable = s->geo->up_to_level + (size_t)s->top_level * nw;
    int *cands = malloc((count + 1) * sizeof(int));
    int *where = malloc((count + 1) * sizeof(int));
    if (!cands || !where) {
        free(cands);
        free(where);
        return RULES_NO_MEMORY;
    }
    int n = 0;
    for (int i = 0; i < count; i++) where[i] = -1;
    const W *supp = BITS(s, B_SUPP);
    for (int w = 0; w < nw; w++) {
        W x = supp[w] & playable[w];
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            where[i] = n;
            cands[n++] = i;
        }
    }
    long played = 0;
    Res r;
    W before[MAXW];
    if (stack_reserve(s, max_moves < 1024 ? max_moves : 1024) < 0) { /* most 9x9 games fit */
        played = RULES_NO_MEMORY;
        goto done;
    }
    while (played < max_moves && s->end_term == END_NONE) {
        int c = s->to_move;
        int k = n;
        int extra = s->allow_pass ? 1 : 0;
        int sl = swap_legal(s, c);
        if (sl) extra++;
        int chosen = -3; /* none */
        while (k + extra) {
            uint64_t version = s->version;
            double x = draw(gen);
            if (!(x >= 0.0) || s->version != version) {
                played = x >= 0.0 ? RULES_BOARD_CHANGED : RULES_DRAW_FAILED;
                goto done;
            }
            int pick = (int)(x * (k + extra));
            if (pick >= k) { /* a pass or a swap, both always legal when offered */
                chosen = (pick == k && sl) ? CODE_SWAP : CODE_PASS;
                break;
            }
            int i = cands[pick];
            if (resolve(s, i, c, &r)) {
                chosen = i;
                break;
            }
            k--;
            int j = cands[k];
            cands[pick] = j;
            cands[k] = i;
            where[j] = pick;
            where[i] = k;
        }
        if (chosen == -3) break; /* the side to move has no legal move: game over (R17) */
        memcpy(before, supp, nw * sizeof(W));
        if (commit(s, chosen, c, chosen >= 0 ? &r : NULL) < 0) {
            played = RULES_NO_MEMORY;
            break;
        }
        played++;
        for (int w = 0; w < nw; w++) {
            W x = (before[w] ^ supp[w]) & playable[w];
            while (x) {
                int i = w * 64 + __builtin_ctzll(x);
                x &= x - 1;
                if (where[i] < 0) {
                    where[i] = n;
                    cands[n++] = i;
                } else {
                    int pos = where[i];
                    int last = cands[--n];
                    if (last != i) {
                        cands[pos] = last;
                        where[last] = pos;
                    }
                    where[i] = -1;
                }
            }
        }
    }
done:
    free(cands);
    free(where);
    return played;
}
