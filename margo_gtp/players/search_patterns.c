/* The features of a candidate move for the learned move patterns: the C port of
 * margo_gtp/players/patterns.py's features() (the readable reference; its docstring
 * describes every group). The same values for the same position, move by move
 * (tests/test_patterns.py compares them on random positions). */
#include "search_core.h"

/* The 8 neighbours of the 3x3 shape and the 2x2 supports, in digit order (patterns.py). */
static const int NEIGHBOUR_DX[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
static const int NEIGHBOUR_DY[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
static const int SUPPORT_DX[4] = {0, 1, 0, 1};
static const int SUPPORT_DY[4] = {0, 0, 1, 1};
enum { SHAPE_EMPTY = 0, SHAPE_UNSUPPORTED = 1, SHAPE_OWN = 2, SHAPE_ENEMY = 3, SHAPE_OFF = 4 };
#define MAX_DISTANCE 10
#define MAX_BALLS 6    /* own_atari, escape, atari: balls counted up to this */
#define MAX_FREEDOMS 6 /* freedoms: the change clipped to -6..6 */

/* A symmetry of the square applied to the offset (a, b) from its centre (patterns.SYMMETRIES). */
static void symmetry(int k, int a, int b, int *outa, int *outb) {
    switch (k) {
    case 0: *outa = a; *outb = b; break;
    case 1: *outa = -a; *outb = b; break;
    case 2: *outa = a; *outb = -b; break;
    case 3: *outa = -a; *outb = -b; break;
    case 4: *outa = b; *outb = a; break;
    case 5: *outa = -b; *outb = a; break;
    case 6: *outa = b; *outb = -a; break;
    default: *outa = -b; *outb = -a; break;
    }
}

/* For each symmetry, where digit k goes (patterns._permutations); offsets doubled and
 * taken from the centre (cx2, cy2). */
static void permutations(int n, const int *dx, const int *dy, int cx2, int cy2, int perm[8][8]) {
    for (int t = 0; t < 8; t++)
        for (int k = 0; k < n; k++) {
            int a, b;
            symmetry(t, 2 * dx[k] - cx2, 2 * dy[k] - cy2, &a, &b);
            for (int j = 0; j < n; j++)
                if (2 * dx[j] - cx2 == a && 2 * dy[j] - cy2 == b) perm[t][k] = j;
        }
}

/* patterns.canonical: the smallest code over the symmetries. */
static int canonical(const int *digits, int n, int base, int perm[8][8]) {
    int best = -1;
    for (int t = 0; t < 8; t++) {
        int code = 0;
        for (int k = 0; k < n; k++) {
            int weight = 1;
            for (int e = 0; e < perm[t][k]; e++) weight *= base;
            code += digits[k] * weight;
        }
        if (best < 0 || code < best) best = code;
    }
    return best;
}

typedef struct {
    int size, offset[20];
} Layout;

/* The point index of (x, y, l), or -1 off the level (geometry.py's order: level, row, column). */
static int at(const Layout *g, int x, int y, int l) {
    if (l < 0 || l >= g->size) return -1;
    int side = g->size - l;
    if (x < 0 || y < 0 || x >= side || y >= side) return -1;
    return g->offset[l] + y * side + x;
}

static void coordinates(const Layout *g, int i, int *x, int *y, int *l) {
    int level = 0;
    while (level + 1 < g->size && g->offset[level + 1] <= i) level++;
    int side = g->size - level, rest = i - g->offset[level];
    *x = rest % side;
    *y = rest / side;
    *l = level;
}

/* patterns._summary: a colour's groups, their freedoms summed over groups, and the balls
 * of its groups with exactly one freedom. */
typedef struct {
    int groups, freedoms;
    W atari[MAXW];
} Summary;

static int summary_cb(State *s, int colour, const W *group, const W *freedoms, void *ctx) {
    Summary *out = ctx;
    int count = popcount_bits(freedoms, s->nw);
    out->groups++;
    out->freedoms += count;
    if (count == 1)
        for (int w = 0; w < s->nw; w++) out->atari[w] |= group[w];
    return 0;
}

static int summarize(State *s, int colour, Summary *out) {
    out->groups = out->freedoms = 0;
    memset(out->atari, 0, s->nw * sizeof(W));
    return each_group(s, colour, summary_cb, out);
}

static int clip(int value, int low, int high) {
    return value < low ? low : value > high ? high : value;
}

static int distance_bucket(const Layout *g, int i, int j) {
    if (j < 0) return 0;
    int xi, yi, li, xj, yj, lj;
    coordinates(g, i, &xi, &yi, &li);
    coordinates(g, j, &xj, &yj, &lj);
    int dx = abs((2 * xi + li) - (2 * xj + lj)), dy = abs((2 * yi + li) - (2 * yj + lj)), dl = abs(li - lj);
    int d = (dx + dy + (dx > dy ? dx : dy) + 2 * dl) / 2;
    return d < MAX_DISTANCE ? d : MAX_DISTANCE;
}

static int shape_state(const State *s, int j, const W *own, const W *enemy, const W *occupied) {
    if (j < 0) return SHAPE_OFF;
    if (TEST(own, j)) return SHAPE_OWN;
    if (TEST(enemy, j)) return SHAPE_ENEMY;
    const Pt *p = &s->geo->pts[j];
    for (int k = 0; k < p->nsup; k++)
        if (!TEST(occupied, p->sup[k])) return SHAPE_UNSUPPORTED;
    return SHAPE_EMPTY;
}

int pattern_features(State *s, int colour, const int32_t *codes, int n, int32_t *out) {
    static const int capture_buckets[6] = {0, 1, 2, 3, 3, 3};
    const Geometry *geo = s->geo;
    int nw = s->nw, c = colour, e = colour ^ 1;
    Layout g = {geo->size, {0}};
    for (int l = 1; l < geo->size && l < 20; l++) g.offset[l] = g.offset[l - 1] + (geo->size - l + 1) * (geo->size - l + 1);
    int shape_perm[8][8], support_perm[8][8];
    permutations(8, NEIGHBOUR_DX, NEIGHBOUR_DY, 0, 0, shape_perm);
    permutations(4, SUPPORT_DX, SUPPORT_DY, 1, 1, support_perm);
    W own[MAXW], enemy[MAXW], occupied[MAXW];
    Summary own_before, enemy_before, own_after, enemy_after;
    for (int w = 0; w < nw; w++) {
        own[w] = BITS(s, c)[w];
        enemy[w] = BITS(s, e)[w];
        occupied[w] = own[w] | enemy[w];
    }
    if (summarize(s, c, &own_before) < 0 || summarize(s, e, &enemy_before) < 0) return PATTERN_NO_MEMORY;
    int last = -1, last2 = -1;
    if (s->nstack >= 1) last = s->stack[s->nstack - 1].code;
    if (s->nstack >= 2) last2 = s->stack[s->nstack - 2].code;
    for (int m = 0; m < n; m++) {
        int i = codes[m];
        int32_t *f = out + (size_t)m * PATTERN_GROUPS;
        if (i < 0 || i >= s->count) return PATTERN_NOT_A_POINT;
        const Pt *p = &geo->pts[i];
        int x, y, l;
        coordinates(&g, i, &x, &y, &l);
        int digits[8];
        for (int k = 0; k < 8; k++)
            digits[k] = shape_state(s, at(&g, x + NEIGHBOUR_DX[k], y + NEIGHBOUR_DY[k], l), own, enemy, occupied);
        f[0] = canonical(digits, 8, 5, shape_perm);
        f[1] = 0;
        if (l) {
            for (int k = 0; k < 4; k++) {
                int j = at(&g, x + SUPPORT_DX[k], y + SUPPORT_DY[k], l - 1);
                digits[k] = j < 0 ? 0 : TEST(own, j) ? 1 : TEST(enemy, j) ? 2 : 0;
            }
            f[1] = 1 + canonical(digits, 4, 3, support_perm);
        }
        int buried = p->buries;
        f[2] = buried < 0 ? 0 : TEST(own, buried) ? 1 : TEST(enemy, buried) ? 2 : 3;
        int opens = 0;
        for (int k = 0; k < p->nrest; k++) {
            const Pt *above = &geo->pts[p->rest[k]];
            int before = 1, after = 1;
            for (int q = 0; q < above->nsup; q++) {
                int j = above->sup[q];
                if (!TEST(occupied, j)) {
                    before = 0;
                    if (j != i) after = 0;
                }
            }
            opens += after && !before;
        }
        f[3] = opens;
        f[4] = l < 3 ? l : 3;
        int side = geo->size - l, edge = x;
        if (y < edge) edge = y;
        if (side - 1 - x < edge) edge = side - 1 - x;
        if (side - 1 - y < edge) edge = side - 1 - y;
        f[5] = edge < 3 ? edge : 3;
        int cut = 0, connect = 0;
        for (int k = 0; k < p->nunder; k++) {
            int a = p->ua[k], b = p->ub[k], o = p->uo[k];
            if (TEST(enemy, a) && TEST(enemy, b) && TEST(own, o)) cut = 1;
            else if (TEST(own, a) && TEST(own, b) && TEST(enemy, o)) connect = 1;
        }
        /* The tactics: play the move and look (patterns._point_features). */
        Res r;
        if (check_play(s, i, c, &r)) return PATTERN_ILLEGAL;
        long captured = s->cap[c];
        if (commit(s, i, c, &r) < 0) return PATTERN_NO_MEMORY;
        long taken = s->cap[c] - captured;
        if (summarize(s, c, &own_after) < 0 || summarize(s, e, &enemy_after) < 0) {
            undo(s);
            return PATTERN_NO_MEMORY;
        }
        int own_atari = 0, escape = 0, atari = 0;
        for (int w = 0; w < nw; w++) {
            own_atari += __builtin_popcountll(own_after.atari[w] & ~own_before.atari[w]);
            escape += __builtin_popcountll(own_before.atari[w] & BITS(s, c)[w] & ~own_after.atari[w]);
            atari += __builtin_popcountll(enemy_after.atari[w] & ~enemy_before.atari[w]);
        }
        undo(s);
        int change = (own_after.freedoms - own_before.freedoms) - (enemy_after.freedoms - enemy_before.freedoms);
        f[6] = taken < 6 ? capture_buckets[taken] : 4;
        f[7] = clip(own_atari, 0, MAX_BALLS);
        f[8] = clip(escape, 0, MAX_BALLS);
        f[9] = clip(atari, 0, MAX_BALLS);
        f[10] = cut;
        f[11] = connect;
        f[12] = clip(own_before.groups - own_after.groups + 1, 0, 3);
        f[13] = clip(enemy_after.groups - enemy_before.groups, 0, 3);
        f[14] = clip(change, -MAX_FREEDOMS, MAX_FREEDOMS) + MAX_FREEDOMS;
        f[15] = distance_bucket(&g, i, last);
        f[16] = distance_bucket(&g, i, last2);
    }
    return 0;
}

/* The number of values of each feature group (patterns.GROUPS), in order: a dense table of
 * log gammas holds the groups one after the other. */
const int pattern_group_sizes[PATTERN_GROUPS] = {390625, 82, 4, 5, 4, 4, 5, 7, 7, 7, 2, 2, 4, 4, 13, 11, 11};

/* PatternWeights.log_strength of each move: the sum, group by group from 0.0, of the log
 * gammas of its features in the dense table (PATTERN_TABLE_SIZE doubles; 0.0 where a value
 * was never seen), the same additions in the same order as the Python sum. */
int pattern_log_strengths(State *s, int colour, const int32_t *codes, int n, const double *table,
                          double *out) {
    int32_t *values = PyMem_RawMalloc((size_t)(n ? n : 1) * PATTERN_GROUPS * sizeof(int32_t));
    if (!values) {
        return PATTERN_NO_MEMORY;
    }
    int status = pattern_features(s, colour, codes, n, values);
    for (int m = 0; status == PATTERN_OK && m < n; m++) {
        double total = 0.0;
        int offset = 0;
        for (int g = 0; g < PATTERN_GROUPS; g++) {
            total += table[offset + values[(size_t)m * PATTERN_GROUPS + g]];
            offset += pattern_group_sizes[g];
        }
        out[m] = total;
    }
    PyMem_RawFree(values);
    return status;
}
