/* A state's life: start (the empty board as the root), copy (history included), free, reset
 * and load (balls set from bit sets); apart from rules_position.c, whose root and repetition
 * multiset (set_root, h_resize) it calls. PythonCore's __init__, clear, copy and _load of
 * margo_gtp/engine/python_core.py. */
#include "rules_core.h"

int state_start(State *s, int to_move) {
    s->nw = s->geo->nw;
    s->count = s->geo->count;
    s->walk = calloc((size_t)s->count + 1, sizeof(int));
    if (!s->walk) return RULES_NO_MEMORY;
    if (h_resize(s, 64) < 0) return RULES_NO_MEMORY;
    memcpy(BITS(s, B_SUPP), s->geo->plane, s->nw * sizeof(W));
    return set_root(s, to_move);
}

/* s owns no buffer (they were freed, or belong to the state s was copied from) */
static void drop_buffers(State *s) {
    s->stack = NULL;
    s->stack_bits = NULL;
    s->pos = NULL;
    s->hkey = NULL;
    s->hcount = NULL;
    s->hused = NULL;
    s->walk = NULL;
    s->capstack = s->cappos = 0;
    s->hcap = s->hfill = 0;
}

int state_copy(State *dst, const State *src) {
    *dst = *src;
    drop_buffers(dst);
    dst->walk = calloc((size_t)src->count + 1, sizeof(int));
    if (!dst->walk) return RULES_NO_MEMORY;
    if (src->nstack) {
        ptrdiff_t cap = src->nstack + 16;
        dst->stack = malloc(cap * sizeof(Entry));
        dst->stack_bits = malloc((size_t)cap * NB * src->nw * sizeof(W));
        if (!dst->stack || !dst->stack_bits) return RULES_NO_MEMORY;
        memcpy(dst->stack, src->stack, src->nstack * sizeof(Entry));
        memcpy(dst->stack_bits, src->stack_bits, (size_t)src->nstack * NB * src->nw * sizeof(W));
        dst->capstack = cap;
    }
    ptrdiff_t cap = src->npos + 16;
    dst->pos = malloc(cap * sizeof(uint64_t));
    if (!dst->pos) return RULES_NO_MEMORY;
    memcpy(dst->pos, src->pos, src->npos * sizeof(uint64_t));
    dst->cappos = cap;
    dst->hkey = malloc(src->hcap * sizeof(uint64_t));
    dst->hcount = malloc(src->hcap * sizeof(int32_t));
    dst->hused = malloc(src->hcap);
    if (!dst->hkey || !dst->hcount || !dst->hused) return RULES_NO_MEMORY;
    memcpy(dst->hkey, src->hkey, src->hcap * sizeof(uint64_t));
    memcpy(dst->hcount, src->hcount, src->hcap * sizeof(int32_t));
    memcpy(dst->hused, src->hused, src->hcap);
    dst->hcap = src->hcap;
    dst->hfill = src->hfill;
    return RULES_OK;
}

void state_free(State *s) {
    free(s->stack);
    free(s->stack_bits);
    free(s->pos);
    free(s->hkey);
    free(s->hcount);
    free(s->hused);
    free(s->walk);
    drop_buffers(s);
}

int state_reset(State *s, int to_move) {
    memset(s->bits, 0, sizeof(s->bits));
    memcpy(BITS(s, B_SUPP), s->geo->plane, s->nw * sizeof(W));
    s->key = s->bkey = 0;
    return set_root(s, to_move);
}

/* Board._load: the balls checked (no point of both colours, every ball supported), then
 * buried balls, supported empty points, the keys and the unsettled balls derived. */
int state_load(State *s, const W *wb, const W *bb) {
    int nw = s->nw;
    const Geometry *g = s->geo;
    W occ[MAXW];
    for (int w = 0; w < nw; w++) {
        if (wb[w] & bb[w]) return RULES_LOAD_BOTH_COLOURS;
        occ[w] = wb[w] | bb[w];
    }
    for (int i = 0; i < s->count; i++) { /* every ball must be supported */
        if (!TEST(occ, i)) continue;
        const Pt *p = &g->pts[i];
        for (int k = 0; k < p->nsup; k++)
            if (!TEST(occ, p->sup[k])) return RULES_LOAD_UNSUPPORTED;
    }
    memset(s->bits, 0, sizeof(s->bits));
    memcpy(BITS(s, 0), wb, nw * sizeof(W));
    memcpy(BITS(s, 1), bb, nw * sizeof(W));
    uint64_t key = 0, bkey = 0;
    W *buried = BITS(s, B_BURIED), *supp = BITS(s, B_SUPP);
    for (int i = 0; i < s->count; i++) {
        const Pt *p = &g->pts[i];
        if (TEST(occ, i)) {
            int colour = TEST(wb, i) ? 0 : 1;
            key ^= g->zob[colour][i];
            if (p->buried_by >= 0 && TEST(occ, p->buried_by)) {
                SETB(buried, i);
                bkey ^= g->zob[colour][i];
            }
        } else {
            int ok = 1;
            for (int k = 0; k < p->nsup; k++) if (!TEST(occ, p->sup[k])) { ok = 0; break; }
            if (ok) SETB(supp, i);
        }
    }
    s->key = key;
    s->bkey = bkey;
    s->version++;
    each_group_unsettled(s, BITS(s, B_UNS));
    return RULES_OK;
}
