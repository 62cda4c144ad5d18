/* A position and its history: the repetition (superko) multiset, the group walk (probe,
 * scan, has_top), resolving a placement (resolve, cascade: R13), committing and undoing a
 * move, the root and the legal placements (a state's life, start ... free, is rules_state.c).
 * PythonCore._probe ... pop of margo_gtp/engine/python_core.py, function by function. */
#include "rules_core.h"

/* -- repetition multiset */

int h_resize(State *s, size_t cap) {
    uint64_t *ok = s->hkey;
    int32_t *oc = s->hcount;
    uint8_t *ou = s->hused;
    size_t ocap = s->hcap;
    uint64_t *nk = calloc(cap, sizeof(uint64_t));
    int32_t *nc = calloc(cap, sizeof(int32_t));
    uint8_t *nu = calloc(cap, 1);
    if (!nk || !nc || !nu) {
        free(nk);
        free(nc);
        free(nu);
        return RULES_NO_MEMORY;
    }
    s->hkey = nk;
    s->hcount = nc;
    s->hused = nu;
    s->hcap = cap;
    s->hfill = 0;
    for (size_t k = 0; k < ocap; k++) {
        if (ou[k] && oc[k] > 0) {
            size_t h = (size_t)((ok[k] * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);
            while (nu[h]) h = (h + 1) & (cap - 1);
            nu[h] = 1;
            nk[h] = ok[k];
            nc[h] = oc[k];
            s->hfill++;
        }
    }
    free(ok);
    free(oc);
    free(ou);
    return 0;
}

static inline size_t h_find(const State *s, uint64_t key) {
    size_t mask = s->hcap - 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
    while (s->hused[h] && s->hkey[h] != key) h = (h + 1) & mask;
    return h;
}

static inline int h_count(const State *s, uint64_t key) {
    size_t h = h_find(s, key);
    return s->hused[h] ? s->hcount[h] : 0;
}

static int h_add(State *s, uint64_t key, int delta) {
    if (delta > 0 && (s->hfill + 1) * 2 > s->hcap) {
        size_t live = 0;
        for (size_t k = 0; k < s->hcap; k++) live += s->hused[k] && s->hcount[k] > 0;
        size_t cap = s->hcap;
        while ((live + 1) * 4 > cap) cap *= 2;
        if (h_resize(s, cap) < 0) return RULES_NO_MEMORY;
    }
    size_t h = h_find(s, key);
    if (!s->hused[h]) {
        s->hused[h] = 1;
        s->hkey[h] = key;
        s->hcount[h] = 0;
        s->hfill++;
    }
    s->hcount[h] += delta;
    return 0;
}

static int positions_push(State *s, uint64_t key) {
    if (s->npos == s->cappos) {
        ptrdiff_t cap = s->cappos ? s->cappos * 2 : 64;
        uint64_t *p = realloc(s->pos, cap * sizeof(uint64_t));
        if (!p) {
            return RULES_NO_MEMORY;
        }
        s->pos = p;
        s->cappos = cap;
    }
    if (h_add(s, key, 1) < 0) return RULES_NO_MEMORY;
    s->pos[s->npos++] = key;
    return 0;
}

static inline uint64_t repetition_key(const State *s, uint64_t key, uint64_t bkey, int to_move) {
    if (s->top_view) key ^= bkey;
    if (s->ko_rule != KO_POSITIONAL) key ^= s->geo->ztm[to_move];
    return key;
}

static inline int repeats(const State *s, uint64_t key) {
    if (s->ko_rule == KO_NONE) return 0;
    if (s->ko_rule == KO_SIMPLE) return s->npos >= 2 && s->pos[s->npos - 2] == key;
    return h_count(s, key) > 0;
}

/* -- groups */

static inline int has_free(const State *s, const Pt *p, const W *free) {
    if (s->all_freedoms) {
        for (int k = 0; k < p->nnb; k++) if (TEST(free, p->nb[k])) return 1;
    } else {
        for (int k = 0; k < p->npn; k++) if (TEST(free, p->pn[k])) return 1;
    }
    return 0;
}

/* The group of the ball at `start` (balls of `mine`, contacts cut by `theirs`): returns 1
 * with the group in `seen` if it has no freedom in `free` (NULL: never look), else 0 with
 * `seen` holding balls of that living group (Board._probe). */
int probe(const State *s, int start, const W *mine, const W *theirs, const W *free, W *seen) {
    const struct Walk *table = s->geo->walk;
    int *walk = s->walk;
    int nw = s->nw, top = 0, cuts = s->bridge_cutting, af = s->all_freedoms;
    W avail[MAXW]; /* balls of the colour not reached yet: one test per contact */
    for (int w = 0; w < nw; w++) {
        avail[w] = mine[w];
        seen[w] = 0;
    }
    CLRB(avail, start);
    SETB(seen, start);
    walk[top++] = start;
    while (top) {
        const struct Walk *p = &table[walk[--top]];
        if (free) {
            const int16_t *f = af ? p->nb : p->pn;
            int n = af ? p->nnb : p->npn;
            for (int k = 0; k < n; k++) if (TEST(free, f[k])) return 0;
        }
        for (int k = 0; k < p->nadj; k++) {
            int j = p->adj[k][0];
            if (!TEST(avail, j)) continue;
            int ca = p->adj[k][1];
            if (ca >= 0 && cuts && TEST(theirs, ca) && TEST(theirs, p->adj[k][2]))
                continue; /* both crossing points hold enemy balls: the contact is cut */
            CLRB(avail, j);
            SETB(seen, j);
            walk[top++] = j;
        }
    }
    return 1;
}

int has_top(const State *s, const W *group, const W *occ) {
    const Pt *pts = s->geo->pts;
    for (int w = 0; w < s->nw; w++) {
        W x = group[w];
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            const Pt *p = &pts[i];
            int covered = 0;
            for (int k = 0; k < p->nrest; k++) if (TEST(occ, p->rest[k])) { covered = 1; break; }
            if (!covered) return 1;
        }
    }
    return 0;
}

/* Whether the ball at q has a contact, not cut, with a ball of `set` (a probe from q would
 * reach it at once). */
static inline int touches(const State *s, int q, const W *set, const W *theirs) {
    const struct Walk *p = &s->geo->walk[q];
    for (int k = 0; k < p->nadj; k++) {
        int j = p->adj[k][0];
        if (!TEST(set, j)) continue;
        int ca = p->adj[k][1];
        if (ca >= 0 && s->bridge_cutting && TEST(theirs, ca) && TEST(theirs, p->adj[k][2])) continue;
        return 1;
    }
    return 0;
}

/* Board._scan: the union of the freedomless groups holding a ball of `seeds` (into `dead`,
 * may be NULL: then return 1 at the first such group). With `occ`, only groups with a ball
 * to lift count.
 *
 * The seeds are the balls around one placement, so several often share a group: a seed
 * touching a ball already shown to be in a living group (`alive`: the balls a probe
 * reached before it found a freedom, and the seeds with a freedom of their own) is in that
 * group too, and needs no probe of its own (the probe would end in that group). */
static int scan(const State *s, const W *seeds_in, const W *mine, const W *theirs, const W *free,
                const W *occ, W *dead, const W *alive_in) {
    int nw = s->nw;
    W seeds[MAXW], seen[MAXW], alive[MAXW];
    memcpy(seeds, seeds_in, nw * sizeof(W));
    if (alive_in) { /* balls the caller already knows to be in living groups */
        memcpy(alive, alive_in, nw * sizeof(W));
        for (int w = 0; w < nw; w++) seeds[w] &= ~alive[w];
    } else {
        memset(alive, 0, nw * sizeof(W));
    }
    if (dead) memset(dead, 0, nw * sizeof(W));
    int found = 0, some_alive = alive_in != NULL;
    const Pt *pts = s->geo->pts;
    for (int w = 0; w < nw; w++) {
        while (seeds[w]) {
            int q = w * 64 + __builtin_ctzll(seeds[w]);
            seeds[w] &= seeds[w] - 1;
            if (free && has_free(s, &pts[q], free)) {
                SETB(alive, q);
                some_alive = 1;
                continue;
            }
            if (some_alive && touches(s, q, alive, theirs)) {
                SETB(alive, q);
                continue;
            }
            int freedomless = probe(s, q, mine, theirs, free, seen);
            for (int v = 0; v < nw; v++) seeds[v] &= ~seen[v];
            if (!freedomless) {
                for (int v = 0; v < nw; v++) alive[v] |= seen[v];
                some_alive = 1;
                continue;
            }
            if (occ == NULL || has_top(s, seen, occ)) {
                found = 1;
                if (!dead) return 1;
                for (int v = 0; v < nw; v++) dead[v] |= seen[v];
            }
        }
    }
    return found;
}

void free_points(const State *s, const W *occ, const W *supported, W *free) {
    if (s->all_freedoms) {
        memcpy(free, supported, s->nw * sizeof(W));
    } else {
        for (int w = 0; w < s->nw; w++) free[w] = s->geo->plane[w] & ~occ[w];
    }
}

/* Board._cascade: R13 step 3 and the suicide test of step 4. */
static int cascade(const State *s, int i, int c, W *balls0, W *balls1, W *buried, uint64_t *key, uint64_t *bkey,
                   W *supported, W *seeds_own, W *seeds_opp, long removed[2], W *unsettled, const W *first_dead) {
    int nw = s->nw;
    const Geometry *g = s->geo;
    const Pt *pts = g->pts;
    W *balls[2] = {balls0, balls1};
    W seeds[2][MAXW];
    memcpy(seeds[c], seeds_own, nw * sizeof(W));
    memcpy(seeds[c ^ 1], seeds_opp, nw * sizeof(W));
    W mine[MAXW], occ[MAXW], free[MAXW], dead[MAXW], lifted[MAXW], unsupported[MAXW];
    removed[0] = removed[1] = 0;
    int side = c ^ 1, idle = 0;
    while (idle < 2) {
        W *theirs = balls[side ^ 1];
        for (int w = 0; w < nw; w++) {
            mine[w] = balls[side][w] & ~buried[w];
            occ[w] = mine[w] | theirs[w] | buried[w];
            seeds[side][w] &= mine[w];
        }
        free_points(s, occ, supported, free);
        if (first_dead) { /* the first step's scan, already made by resolve */
            memcpy(dead, first_dead, nw * sizeof(W));
            first_dead = NULL;
        } else {
            scan(s, seeds[side], mine, theirs, free, NULL, dead, NULL);
        }
        memset(seeds[side], 0, nw * sizeof(W));
        memset(lifted, 0, nw * sizeof(W));
        int any_lifted = 0;
        for (int w = nw - 1; w >= 0; w--) { /* top-down: the highest index is on the highest level */
            W x = dead[w];
            while (x) {
                int t = 63 - __builtin_clzll(x);
                x ^= (W)1 << t;
                int r = w * 64 + t;
                const Pt *p = &pts[r];
                int covered = 0;
                for (int k = 0; k < p->nrest; k++) if (TEST(occ, p->rest[k])) { covered = 1; break; }
                if (!covered) {
                    CLRB(occ, r);
                    SETB(lifted, r);
                    any_lifted = 1;
                }
            }
        }
        if (any_lifted) {
            if (side == c && TEST(lifted, i)) return 0; /* the placed ball itself was captured */
            idle = 0;
            memset(unsupported, 0, nw * sizeof(W));
            for (int w = 0; w < nw; w++) balls[side][w] ^= lifted[w];
            removed[side] += popcount_bits(lifted, nw);
            for (int w = 0; w < nw; w++) {
                W x = lifted[w];
                while (x) {
                    int r = w * 64 + __builtin_ctzll(x);
                    x &= x - 1;
                    const Pt *p = &pts[r];
                    *key ^= g->zob[side][r];
                    for (int k = 0; k < p->nsup; k++) { /* released zombies */
                        int q = p->sup[k];
                        if (TEST(balls[0], q)) SETB(seeds[0], q);
                        if (TEST(balls[1], q)) SETB(seeds[1], q);
                    }
                    for (int k = 0; k < p->nrest; k++) SETB(unsupported, p->rest[k]);
                    int u = p->buries;
                    if (u >= 0 && TEST(buried, u) && !(pts[u].buried_by >= 0 && TEST(occ, pts[u].buried_by))) {
                        CLRB(buried, u); /* un-buried: may now be taken (revealed capture) */
                        int uc = TEST(balls[0], u) ? 0 : 1;
                        *bkey ^= g->zob[uc][u];
                        SETB(seeds[uc], u);
                    }
                }
            }
            for (int w = 0; w < nw; w++) supported[w] &= ~unsupported[w];
            for (int w = 0; w < nw; w++) {
                W x = lifted[w];
                while (x) {
                    int r = w * 64 + __builtin_ctzll(x);
                    x &= x - 1;
                    const Pt *p = &pts[r];
                    int ok = 1;
                    for (int k = 0; k < p->nsup; k++) if (!TEST(occ, p->sup[k])) { ok = 0; break; }
                    if (ok) SETB(supported, r);
                }
            }
            if (s->all_freedoms) {
                for (int w = 0; w < nw; w++) {
                    W x = unsupported[w];
                    while (x) {
                        int r = w * 64 + __builtin_ctzll(x);
                        x &= x - 1;
                        const Pt *p = &pts[r];
                        for (int k = 0; k < p->nnb; k++) {
                            int q = p->nb[k];
                            if (TEST(balls[0], q)) SETB(seeds[0], q);
                            if (TEST(balls[1], q)) SETB(seeds[1], q);
                        }
                    }
                }
            }
        } else {
            idle++;
        }
        if (s->single_pass) break;
        side ^= 1;
    }
    W *own = balls[c], *opp = balls[c ^ 1];
    for (int w = 0; w < nw; w++) {
        occ[w] = balls0[w] | balls1[w];
        mine[w] = own[w] & ~buried[w];
    }
    free_points(s, occ, supported, free);
    if (!TEST(own, i)) return 0;
    if (!has_free(s, &pts[i], free) && probe(s, i, mine, opp, free, dead)) return 0;
    memset(unsettled, 0, nw * sizeof(W));
    if (s->single_pass) {
        W sd[MAXW];
        for (int w = 0; w < nw; w++) sd[w] = seeds[c][w] & mine[w];
        CLRB(sd, i);
        if (scan(s, sd, mine, opp, free, occ, NULL, NULL)) return 0; /* own group left freedomless ("illegal") */
        /* The single pass does not follow up what its removals released or un-buried:
         * remember the opponent's groups it left freedomless and liftable. */
        W theirs[MAXW];
        for (int w = 0; w < nw; w++) {
            theirs[w] = opp[w] & ~buried[w];
            sd[w] = seeds[c ^ 1][w] & theirs[w];
        }
        scan(s, sd, theirs, own, free, occ, unsettled, NULL);
    }
    return 1;
}

/* Board._resolve: what placing colour c at point i does; 1 (result in *r) or 0 if illegal.
 * i must be an empty supported point within max_level. */
int resolve(const State *s, int i, int c, Res *r) {
    int nw = s->nw;
    const Geometry *g = s->geo;
    const Pt *pts = g->pts;
    const Pt *p = &pts[i];
    W *own = RB(r, c), *opp = RB(r, c ^ 1), *buried = RB(r, B_BURIED), *supported = RB(r, B_SUPP);
    W *unsettled = RB(r, B_UNS);
    const W *s_uns = BITS(s, B_UNS);
    memcpy(own, BITS(s, c), nw * sizeof(W));
    memcpy(opp, BITS(s, c ^ 1), nw * sizeof(W));
    memcpy(buried, BITS(s, B_BURIED), nw * sizeof(W));
    memcpy(supported, BITS(s, B_SUPP), nw * sizeof(W));
    SETB(own, i);
    W occ[MAXW], free[MAXW], seeds_opp[MAXW], seeds_own[MAXW], mine[MAXW], tmp[MAXW];
    for (int w = 0; w < nw; w++) occ[w] = own[w] | opp[w];
    uint64_t bkey = s->bkey;
    uint64_t key = s->key ^ g->zob[c][i];
    CLRB(supported, i);
    for (int k = 0; k < p->nrest; k++) {
        const Pt *q = &pts[p->rest[k]];
        int ok = 1;
        for (int m = 0; m < q->nsup; m++) if (!TEST(occ, q->sup[m])) { ok = 0; break; }
        if (ok) SETB(supported, p->rest[k]);
    }
    free_points(s, occ, supported, free);
    memset(seeds_opp, 0, nw * sizeof(W));
    memset(seeds_own, 0, nw * sizeof(W));
    int level = p->level;
    if (level == 0 || s->all_freedoms) {
        for (int k = 0; k < p->nnb; k++) if (TEST(opp, p->nb[k])) SETB(seeds_opp, p->nb[k]);
    }
    SETB(seeds_own, i);
    if (level) {
        if (s->bridge_cutting) {
            for (int k = 0; k < p->nunder; k++) {
                if (TEST(opp, p->ua[k]) && TEST(opp, p->ub[k]) && TEST(own, p->uo[k])) {
                    SETB(seeds_opp, p->ua[k]);
                    SETB(seeds_opp, p->ub[k]);
                }
            }
        }
        if (level >= 2) {
            int j = p->buries;
            const Pt *q = &pts[j];
            SETB(buried, j);
            W *side = TEST(own, j) ? own : opp;
            W *seeds = TEST(own, j) ? seeds_own : seeds_opp;
            bkey ^= g->zob[TEST(own, j) ? c : c ^ 1][j];
            for (int k = 0; k < q->nsup; k++) if (TEST(side, q->sup[k])) SETB(seeds, q->sup[k]);
            for (int k = 0; k < q->nrest; k++) if (TEST(side, q->rest[k])) SETB(seeds, q->rest[k]);
            for (int k = 0; k < q->nnb; k++) if (TEST(side, q->nb[k])) SETB(seeds, q->nb[k]);
        }
    }
    int slow;
    W dead_opp[MAXW]; /* the enemy's freedomless groups around the placement */
    const W *first_dead = NULL;
    if (any(s_uns, nw)) {
        slow = 1;
        for (int w = 0; w < nw; w++) {
            seeds_opp[w] |= s_uns[w] & opp[w];
            seeds_own[w] |= s_uns[w] & own[w];
        }
    } else {
        for (int w = 0; w < nw; w++) {
            mine[w] = opp[w] & ~buried[w];
            tmp[w] = seeds_opp[w] & mine[w];
        }
        /* All of them, not just the first with a ball to lift: the cascade's first step
         * needs exactly this scan, so it is not made twice. */
        slow = scan(s, tmp, mine, own, free, NULL, dead_opp, NULL) && has_top(s, dead_opp, occ);
        first_dead = dead_opp;
        if (!slow) {
            W seen[MAXW]; /* balls of the placed ball's group, which lives */
            for (int w = 0; w < nw; w++) mine[w] = own[w] & ~buried[w];
            if (has_free(s, p, free)) {
                memset(seen, 0, nw * sizeof(W));
                SETB(seen, i);
            } else if (probe(s, i, mine, opp, free, seen)) {
                return 0; /* suicide */
            }
            for (int w = 0; w < nw; w++) tmp[w] = seeds_own[w] & mine[w];
            CLRB(tmp, i);
            slow = scan(s, tmp, mine, opp, free, occ, NULL, seen);
        }
    }
    if (!slow) {
        memset(unsettled, 0, nw * sizeof(W));
        r->removed[0] = r->removed[1] = 0;
    } else {
        if (!cascade(s, i, c, RB(r, 0), RB(r, 1), buried, &key, &bkey, supported, seeds_own, seeds_opp, r->removed,
                     unsettled, first_dead))
            return 0;
    }
    uint64_t rk = repetition_key(s, key, bkey, c ^ 1);
    if (repeats(s, rk)) return 0;
    r->key = key;
    r->bkey = bkey;
    r->rk = rk;
    return 1;
}

/* Board._placement_legal: the cheap exact shortcut for a board-plane move that has a
 * freedom of its own and captures nothing, else the full resolution. */
static int placement_legal(const State *s, int i, int c, Res *r) {
    const Geometry *g = s->geo;
    const Pt *p = &g->pts[i];
    if (p->level == 0 && !s->all_freedoms && !any(BITS(s, B_UNS), s->nw)) {
        const W *w0 = BITS(s, 0), *w1 = BITS(s, 1), *opp = BITS(s, c ^ 1);
#define EMPTY0(q) ((q) != i && !TEST(w0, q) && !TEST(w1, q))
        int own_free = 0;
        for (int k = 0; k < p->npn; k++) if (EMPTY0(p->pn[k])) { own_free = 1; break; }
        if (own_free) {
            int all_ok = 1;
            for (int k = 0; k < p->nnb && all_ok; k++) {
                int e = p->nb[k];
                if (!TEST(opp, e)) continue;
                const Pt *q = &g->pts[e];
                int ok = 0;
                for (int m = 0; m < q->npn; m++) if (EMPTY0(q->pn[m])) { ok = 1; break; }
                if (!ok) all_ok = 0;
            }
#undef EMPTY0
            if (all_ok) {
                uint64_t key = s->key ^ g->zob[c][i];
                return !repeats(s, repetition_key(s, key, s->bkey, c ^ 1));
            }
        }
    }
    return resolve(s, i, c, r);
}

/* -- committing and undoing */

/* The undo stack's entries and bit sets reallocated to hold `cap` entries. */
static int stack_grow(State *s, ptrdiff_t cap) {
    Entry *e = realloc(s->stack, cap * sizeof(Entry));
    if (!e) {
        return RULES_NO_MEMORY;
    }
    s->stack = e;
    W *b = realloc(s->stack_bits, (size_t)cap * NB * s->nw * sizeof(W));
    if (!b) {
        return RULES_NO_MEMORY;
    }
    s->stack_bits = b;
    s->capstack = cap;
    return 0;
}

/* Room on the undo stack for `more` entries (one allocation rather than repeated
 * doublings, each copying the whole stack). */
int stack_reserve(State *s, ptrdiff_t more) {
    ptrdiff_t cap = s->nstack + more;
    return cap <= s->capstack ? 0 : stack_grow(s, cap);
}

static int stack_push(State *s, int c, int code) {
    int nw = s->nw;
    if (s->nstack == s->capstack && stack_grow(s, s->capstack ? s->capstack * 2 : 64) < 0) return RULES_NO_MEMORY;
    Entry *e = &s->stack[s->nstack];
    e->colour = c;
    e->code = code;
    e->to_move = s->to_move;
    e->passes = s->passes;
    e->swapped = s->swapped;
    e->end_term = s->end_term;
    e->end_winner = s->end_winner;
    e->end_margin = s->end_margin;
    e->cap0 = s->cap[0];
    e->cap1 = s->cap[1];
    e->key = s->key;
    e->bkey = s->bkey;
    W *dst = s->stack_bits + (size_t)s->nstack * NB * nw;
    for (int k = 0; k < NB; k++) memcpy(dst + k * nw, BITS(s, k), nw * sizeof(W));
    s->nstack++;
    return 0;
}

/* Board._commit; r is the resolution of a placement (NULL for pass and swap). */
int commit(State *s, int code, int c, const Res *r) {
    if (stack_push(s, c, code) < 0) return RULES_NO_MEMORY;
    s->version++;
    if (code >= 0) {
        if (positions_push(s, r->rk) < 0) {
            s->nstack--;
            return RULES_NO_MEMORY;
        }
        for (int k = 0; k < NB; k++) memcpy(BITS(s, k), RB(r, k), s->nw * sizeof(W));
        s->key = r->key;
        s->bkey = r->bkey;
        s->to_move = c ^ 1;
        s->passes = 0;
        long rw = r->removed[0], rb = r->removed[1];
        if (rw || rb) {
            s->cap[0] += rb;
            s->cap[1] += rw;
            if (s->fcw) {
                long enemy_removed = c == 0 ? rb : rw;
                s->end_term = END_FIRST_CAPTURE;
                s->end_winner = enemy_removed ? c : c ^ 1;
                s->end_margin = rw + rb;
            }
        }
    } else if (code == CODE_PASS) {
        s->to_move = c ^ 1;
        s->passes++;
        if (s->passes >= 2) {
            s->end_term = END_TWO_PASSES;
            s->end_winner = -1;
            s->end_margin = 0;
        }
    } else {
        s->swapped = 1;
    }
    return 0;
}

void state_clear_history(State *s) {
    s->nstack = 0;
    s->npos = 0;
    if (s->hcap) {
        memset(s->hused, 0, s->hcap);
        s->hfill = 0;
    }
}

int set_root(State *s, int to_move) {
    int nw = s->nw;
    s->version++;
    s->to_move = to_move;
    s->cap[0] = s->cap[1] = 0;
    s->passes = 0;
    s->swapped = 0;
    s->end_term = END_NONE;
    s->end_winner = -1;
    s->end_margin = 0;
    state_clear_history(s);
    memcpy(s->root, BITS(s, 0), nw * sizeof(W));
    memcpy(s->root + MAXW, BITS(s, 1), nw * sizeof(W));
    s->root_to_move = to_move;
    return positions_push(s, repetition_key(s, s->key, s->bkey, to_move));
}

/* May colour c play code? RULES_OK (a placement's resolution in r), else why not, in
 * Board._prepare's order: RULES_ILLEGAL_GAME_OVER ... RULES_ILLEGAL_SUICIDE. */
int check_play(State *s, int code, int c, Res *r) {
    if (s->end_term != END_NONE) return RULES_ILLEGAL_GAME_OVER;
    if (code == CODE_PASS) return s->allow_pass ? RULES_OK : RULES_ILLEGAL_PASS;
    if (code == CODE_SWAP) return swap_legal(s, c) ? RULES_OK : RULES_ILLEGAL_SWAP;
    if (code < 0 || code >= s->count) return RULES_ILLEGAL_OFF_BOARD;
    if (TEST(BITS(s, 0), code) || TEST(BITS(s, 1), code)) return RULES_ILLEGAL_OCCUPIED;
    if (!TEST(BITS(s, B_SUPP), code)) return RULES_ILLEGAL_UNSUPPORTED;
    if (!candidate(s, code)) return RULES_ILLEGAL_ABOVE_TOP;
    return resolve(s, code, c, r) ? RULES_OK : RULES_ILLEGAL_SUICIDE;
}


/* Undo the last move exactly (the stack must not be empty). */
void undo(State *s) {
    int nw = s->nw;
    s->version++;
    Entry *e = &s->stack[--s->nstack];
    W *src = s->stack_bits + (size_t)s->nstack * NB * nw;
    for (int k = 0; k < NB; k++) memcpy(BITS(s, k), src + k * nw, nw * sizeof(W));
    s->key = e->key;
    s->bkey = e->bkey;
    s->to_move = e->to_move;
    s->passes = e->passes;
    s->swapped = e->swapped;
    s->end_term = e->end_term;
    s->end_winner = e->end_winner;
    s->end_margin = e->end_margin;
    s->cap[0] = e->cap0;
    s->cap[1] = e->cap1;
    if (e->code >= 0) {
        uint64_t rk = s->pos[--s->npos];
        h_add(s, rk, -1); /* never grows: cannot fail */
    }
}

/* The first point from index `from` on where colour c may place a ball (supported, empty,
 * within max_level, legal), or -1: the loop shared by legal_moves and has_legal_placement. */
int next_legal_placement(const State *s, int c, int from) {
    int nw = s->nw;
    const W *playable = s->geo->up_to_level + (size_t)s->top_level * nw;
    const W *supp = BITS(s, B_SUPP);
    Res r;
    for (int w = from >> 6; w < nw; w++) {
        W x = supp[w] & playable[w];
        if (w == from >> 6) x &= ~(W)0 << (from & 63);
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            if (placement_legal(s, i, c, &r)) return i;
        }
    }
    return -1;
}

/* True if colour c has a legal placement (Board.has_legal_placement). */
int has_legal_placement(State *s, int c) {
    int nw = s->nw;
    const W *playable = s->geo->up_to_level + (size_t)s->top_level * nw;
    const W *supp = BITS(s, B_SUPP);
    Res r;
    for (int w = 0; w < nw; w++) {
        W x = supp[w] & playable[w];
        while (x) {
            int i = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            if (placement_legal(s, i, c, &r)) return 1;
        }
    }
    return 0;
}
