/* The point tables of one board size (margo_gtp/engine/geometry.py): per point its level,
 * support, the balls resting on it, same-level neighbours with the crossing points of each
 * contact (R10), the contacts below it that a ball there crosses, what it buries (R8), and
 * the compact table of the group walk; per level and up to each level, bit masks. */
#include "rules_core.h"

/* The flat index of (x, y) on level l of a size x size board, or -1 off the board. */
static int at(int size, int x, int y, int l) {
    if (l < 0 || l >= size) return -1;
    int side = size - l;
    if (x < 0 || y < 0 || x >= side || y >= side) return -1;
    int off = 0;
    for (int k = 0; k < l; k++) off += (size - k) * (size - k);
    return off + y * side + x;
}

static void geometry_build(Geometry *g) {
    int size = g->size, count = g->count, nw = g->nw;
    int i = 0;
    for (int l = 0; l < size; l++) {
        int side = size - l;
        for (int y = 0; y < side; y++) {
            for (int x = 0; x < side; x++, i++) {
                Pt *p = &g->pts[i];
                p->level = l;
                SETB(g->level_mask + (size_t)l * nw, i);
                if (l == 0) SETB(g->plane, i);
                if (l) {
                    int s[4] = {at(size, x, y, l - 1), at(size, x + 1, y, l - 1), at(size, x, y + 1, l - 1),
                                at(size, x + 1, y + 1, l - 1)};
                    for (int k = 0; k < 4; k++) if (s[k] >= 0) p->sup[p->nsup++] = s[k];
                }
                int r[4] = {at(size, x - 1, y - 1, l + 1), at(size, x, y - 1, l + 1), at(size, x - 1, y, l + 1),
                            at(size, x, y, l + 1)};
                for (int k = 0; k < 4; k++) if (r[k] >= 0) p->rest[p->nrest++] = r[k];
                /* east, west, north, south with their crossing points (geometry.py _crossings) */
                int nbrs[4] = {at(size, x + 1, y, l), at(size, x - 1, y, l), at(size, x, y + 1, l), at(size, x, y - 1, l)};
                int cr[4][2] = {{at(size, x, y - 1, l + 1), at(size, x, y, l + 1)},
                                {at(size, x - 1, y - 1, l + 1), at(size, x - 1, y, l + 1)},
                                {at(size, x - 1, y, l + 1), at(size, x, y, l + 1)},
                                {at(size, x - 1, y - 1, l + 1), at(size, x, y - 1, l + 1)}};
                for (int k = 0; k < 4; k++) {
                    if (nbrs[k] < 0) continue;
                    int a = cr[k][0], b = cr[k][1];
                    if (a < 0 || b < 0) a = b = -1;
                    p->nb[p->nnb] = nbrs[k];
                    p->ca[p->nnb] = a;
                    p->cb[p->nnb] = b;
                    p->nnb++;
                    if (l == 0) p->pn[p->npn++] = nbrs[k];
                }
                if (l >= 1) {
                    int below[4][3] = {
                        {at(size, x, y, l - 1), at(size, x + 1, y, l - 1), at(size, x, y - 1, l)},
                        {at(size, x, y + 1, l - 1), at(size, x + 1, y + 1, l - 1), at(size, x, y + 1, l)},
                        {at(size, x, y, l - 1), at(size, x, y + 1, l - 1), at(size, x - 1, y, l)},
                        {at(size, x + 1, y, l - 1), at(size, x + 1, y + 1, l - 1), at(size, x + 1, y, l)}};
                    for (int k = 0; k < 4; k++) {
                        if (below[k][2] < 0) continue;
                        p->ua[p->nunder] = below[k][0];
                        p->ub[p->nunder] = below[k][1];
                        p->uo[p->nunder] = below[k][2];
                        p->nunder++;
                    }
                }
                /* The walk pops the last contact pushed first: supports last, so a walk dives
                 * to the board plane, where the freedoms are unless all_freedoms (a living
                 * group is found sooner; 36 -> 31 balls visited per playout move). */
                for (int k = 0; k < p->nrest; k++) p->adj[p->nadj].j = p->rest[k], p->adj[p->nadj].ca = -1, p->nadj++;
                for (int k = 0; k < p->nnb; k++) {
                    p->adj[p->nadj].j = p->nb[k];
                    p->adj[p->nadj].ca = p->ca[k];
                    p->adj[p->nadj].cb = p->cb[k];
                    p->nadj++;
                }
                for (int k = 0; k < p->nsup; k++) p->adj[p->nadj].j = p->sup[k], p->adj[p->nadj].ca = -1, p->nadj++;
                p->buries = l >= 2 ? at(size, x + 1, y + 1, l - 2) : -1;
                p->buried_by = at(size, x - 1, y - 1, l + 2);
            }
        }
    }
    for (int k = 0; k < count; k++) {
        const Pt *p = &g->pts[k];
        struct Walk *wk = &g->walk[k];
        wk->nadj = (int8_t)p->nadj;
        for (int m = 0; m < p->nadj; m++) {
            wk->adj[m][0] = (int16_t)p->adj[m].j;
            wk->adj[m][1] = (int16_t)p->adj[m].ca;
            wk->adj[m][2] = (int16_t)p->adj[m].cb;
        }
        wk->npn = (int8_t)p->npn;
        for (int m = 0; m < p->npn; m++) wk->pn[m] = (int16_t)p->pn[m];
        wk->nnb = (int8_t)p->nnb;
        for (int m = 0; m < p->nnb; m++) wk->nb[m] = (int16_t)p->nb[m];
    }
    for (int l = 0; l < size; l++) {
        W *dst = g->up_to_level + (size_t)l * nw;
        for (int k = 0; k <= l; k++)
            for (int w = 0; w < nw; w++) dst[w] |= g->level_mask[(size_t)k * nw + w];
    }
}

int geometry_init(Geometry *g, int size) {
    memset(g, 0, sizeof(*g));
    int count = 0;
    for (int l = 0; l < size; l++) count += (size - l) * (size - l);
    int nw = (count + 63) / 64;
    g->size = size;
    g->count = count;
    g->nw = nw;
    g->pts = calloc(count, sizeof(Pt));
    g->walk = calloc(count, sizeof(struct Walk));
    g->plane = calloc(nw, sizeof(W));
    g->level_mask = calloc((size_t)size * nw, sizeof(W));
    g->up_to_level = calloc((size_t)size * nw, sizeof(W));
    g->zob[0] = calloc(count, sizeof(uint64_t));
    g->zob[1] = calloc(count, sizeof(uint64_t));
    if (!g->pts || !g->walk || !g->plane || !g->level_mask || !g->up_to_level || !g->zob[0] || !g->zob[1]) {
        geometry_free(g);
        return RULES_NO_MEMORY;
    }
    geometry_build(g);
    return RULES_OK;
}

void geometry_free(Geometry *g) {
    free(g->pts);
    free(g->walk);
    free(g->plane);
    free(g->level_mask);
    free(g->up_to_level);
    free(g->zob[0]);
    free(g->zob[1]);
    memset(g, 0, sizeof(*g));
}
