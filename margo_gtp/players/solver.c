/* The exact solver (solver_core.h): negamax alpha-beta over the ball margin, a two-slot
 * transposition table keyed over the 8 symmetries, and the history rule for superko.
 *
 * Sharing results between histories. A history entry is keyed by the position and the set
 * of positions before it: always sound, but two move orders of the same position seldom
 * share it (their earlier positions differ), and on 4x4 a table keyed by the position alone
 * searched 10 to 40 times fewer nodes. A shared entry is keyed by the position alone, and
 * this is when that is sound. The search of a node's subtree asks the history about every
 * position a candidate move would make (the superko test, the only way the default rules
 * look at the past); call that set A. Two nodes with the same position and histories H and
 * H' get the same answers to every such question, so the same subtree and value, when
 * H ∩ A = H' ∩ A; in particular when both are empty. The search keeps, with each result,
 * the points its subtree touched: every point where a candidate it tried (or a result it
 * reused) changed the balls. A position q of A differs from the node's position p only at
 * touched points (each change on the way from p to q was a placement or a capture there),
 * so a history position that differs from p at an untouched point is not in A; nor is one
 * whose ball count, with its side to move, no question asked (Asked below). A result is
 * stored shared when no position of its history passes both tests, and a shared entry is
 * used only where no position of the new history passes them either. When only the previous
 * position passes, the result is stored under a pair key (the position and that previous
 * one), used where the previous position is the same and no other passes; else under the
 * history key. */
#include "solver_core.h"

#include <limits.h>

/* -- the 8 symmetries: every level of the pyramid shares the board's centre */

static void image(int transform, int side, int x, int y, int *ox, int *oy) {
    int m = side - 1;
    int tx = transform & 1 ? m - x : x;   /* mirror west-east */
    int ty = transform & 2 ? m - y : y;   /* mirror south-north */
    if (transform & 4) { int t = tx; tx = ty; ty = t; }  /* the diagonal */
    *ox = tx;
    *oy = ty;
}

static void build_symmetries(Solver *sv) {
    int size = sv->geo.size, index = 0;
    for (int level = 0; level < size; level++) {
        int side = size - level, first = index;
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++, index++)
                for (int t = 0; t < 8; t++) {
                    int ox, oy;
                    image(t, side, x, y, &ox, &oy);
                    int j = first + oy * side + ox;
                    sv->symmetry[t][index] = j;
                    sv->inverse[t][j] = index;
                }
    }
}

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

int solver_init(Solver *sv, int size, int table_bits) {
    memset(sv, 0, sizeof(*sv));
    if (geometry_init(&sv->geo, size) != RULES_OK) return RULES_NO_MEMORY;
    uint64_t seed = 0x5EED0F3A26011ULL; /* the solver's own keys: no table is shared */
    for (int i = 0; i < sv->geo.count; i++) {
        sv->geo.zob[0][i] = splitmix(&seed);
        sv->geo.zob[1][i] = splitmix(&seed);
    }
    sv->geo.ztm[0] = splitmix(&seed);
    sv->geo.ztm[1] = splitmix(&seed);
    State *s = &sv->state;
    s->geo = &sv->geo;
    s->bridge_cutting = 1;      /* the default rules (rules.md section 9) */
    s->top_level = size - 1;
    s->ko_rule = KO_SITUATIONAL;
    if (state_start(s, 0) != RULES_OK) return RULES_NO_MEMORY;
    sv->ready = 1;
    build_symmetries(sv);
    size_t entries = (size_t)1 << table_bits;
    sv->table = calloc(entries, sizeof(SolverEntry));
    sv->results = malloc((size_t)SOLVER_MAX_PLY * sizeof(Res));
    sv->moves = malloc((size_t)SOLVER_MAX_PLY * sv->geo.count * sizeof(int));
    sv->past = malloc((size_t)SOLVER_MAX_PLY * 2 * sizeof(uint64_t));
    sv->past_keys = malloc((size_t)SOLVER_MAX_PLY * 8 * sizeof(uint64_t));
    if (!sv->table || !sv->results || !sv->moves || !sv->past || !sv->past_keys) return RULES_NO_MEMORY;
    sv->table_mask = entries - 1;
    return RULES_OK;
}

void solver_free(Solver *sv) {
    if (sv->ready) state_free(&sv->state);
    geometry_free(&sv->geo);
    free(sv->table);
    free(sv->results);
    free(sv->moves);
    free(sv->past);
    free(sv->past_keys);
    memset(sv, 0, sizeof(*sv));
}

int solver_reset(Solver *sv) {
    memset(sv->history, 0, sizeof(sv->history));
    return state_reset(&sv->state, 0);
}

static void image_keys(const Solver *sv, uint64_t keys[8]);
static void toggle_history(Solver *sv, const uint64_t keys[8]);
static void record_position(Solver *sv, int ply, const uint64_t keys[8]);

int solver_play(Solver *sv, int code) {
    Res r;
    if (sv->state.nstack >= SOLVER_MAX_PLY - 1) return RULES_ILLEGAL_GAME_OVER;
    int status = check_play(&sv->state, code, sv->state.to_move, &r);
    if (status != RULES_OK) return status;
    uint64_t keys[8];
    image_keys(sv, keys);
    record_position(sv, (int)sv->state.nstack, keys);
    status = commit(&sv->state, code, sv->state.to_move, &r);
    if (status == RULES_OK) toggle_history(sv, keys);
    return status;
}

/* -- the table */

/* The 8 images' keys of the position (balls and side to move). */
static void image_keys(const Solver *sv, uint64_t keys[8]) {
    const State *s = &sv->state;
    for (int t = 0; t < 8; t++) keys[t] = sv->geo.ztm[s->to_move];
    for (int c = 0; c < 2; c++) {
        const W *balls = BITS(s, c);
        const uint64_t *z = sv->geo.zob[c];
        for (int w = 0; w < s->nw; w++)
            for (W x = balls[w]; x; x &= x - 1) {
                int i = w * 64 + __builtin_ctzll(x);
                for (int t = 0; t < 8; t++) keys[t] ^= z[sv->symmetry[t][i]];
            }
    }
}

/* A position's key as a member of the history set (mixed, so that it never cancels the
 * key of the node itself). */
static uint64_t member(uint64_t key) {
    uint64_t x = key;
    return splitmix(&x);
}

/* The smallest of a key's 8 images (the first such symmetry in *transform), never 0: 0 marks
 * an empty slot. Each kind of key below is this over its own images. */
static uint64_t smallest_image(const uint64_t images[8], int *transform) {
    *transform = 0;
    for (int t = 1; t < 8; t++)
        if (images[t] < images[*transform]) *transform = t;
    return images[*transform] | 1;
}

/* The table key of the node: its position and the set of positions before it, both seen
 * through the same symmetry, the smallest over the 8; *transform is that symmetry. */
static uint64_t canonical_key(const Solver *sv, const uint64_t keys[8], int *transform) {
    uint64_t images[8];
    for (int t = 0; t < 8; t++) images[t] = keys[t] ^ (sv->history[t] * 0xD6E8FEB86659FD93ULL);
    return smallest_image(images, transform);
}

/* Add (or, again, remove) the position of `keys` to the history set. */
static void toggle_history(Solver *sv, const uint64_t keys[8]) {
    for (int t = 0; t < 8; t++) sv->history[t] ^= member(keys[t]);
}

/* The shared key of the node: its position alone, the smallest over the 8 images (salted,
 * so that it never equals the history key of a position with an empty history). */
static uint64_t shared_key(const uint64_t keys[8], int *transform) {
    uint64_t images[8];
    for (int t = 0; t < 8; t++) images[t] = keys[t] ^ 0x2545F4914F6CDD1DULL;
    return smallest_image(images, transform);
}

/* The pair key of the node: its position and the one before it, both seen through the
 * same symmetry, the smallest over the 8 (for results that may have asked the history about
 * that previous position alone). */
static uint64_t pair_key(const uint64_t keys[8], const uint64_t previous[8], int *transform) {
    uint64_t images[8];
    for (int t = 0; t < 8; t++) images[t] = keys[t] ^ member(previous[t] ^ 0x9FB21C651E98DF25ULL);
    return smallest_image(images, transform);
}

/* The position at `ply` of the line (plies from the empty board) joins the past: its balls
 * and its images' keys. */
static void record_position(Solver *sv, int ply, const uint64_t keys[8]) {
    sv->past[2 * ply] = BITS(&sv->state, B_WHITE)[0];
    sv->past[2 * ply + 1] = BITS(&sv->state, B_BLACK)[0];
    memcpy(sv->past_keys + (size_t)8 * ply, keys, 8 * sizeof(uint64_t));
}

/* A point set seen through a symmetry (map: symmetry[t] or inverse[t]). */
static uint64_t map_points(uint64_t points, const int *map) {
    uint64_t image = 0;
    for (; points; points &= points - 1) image |= (uint64_t)1 << map[__builtin_ctzll(points)];
    return image;
}

/* What a subtree asked the history about, in two necessary conditions on each position q it
 * asked: q equals the node's position outside `points` (each change on the way was a
 * placement or a capture there), and q's ball count is a bit of `counts[parity]`, where parity
 * is 0 when q has the node's side to move (superko compares the side to move too). */
typedef struct {
    uint64_t points, counts[2];
} Asked;

/* A child's questions as its parent's: the side to move is the other. */
static void ask_as_parent(Asked *parent, const Asked *child) {
    parent->points |= child->points;
    parent->counts[0] |= child->counts[1];
    parent->counts[1] |= child->counts[0];
}

static void ask_also(Asked *into, const Asked *more) {
    into->points |= more->points;
    into->counts[0] |= more->counts[0];
    into->counts[1] |= more->counts[1];
}

/* The same questions seen through a symmetry (map: symmetry[t] or inverse[t]). */
static Asked asked_through(const Asked *asked, const int *map) {
    Asked image = *asked;
    image.points = map_points(asked->points, map);
    return image;
}

/* Could the position at ply k of the line be one the subtree of the node at `ply` asked
 * about? Only if it passes both of Asked's conditions (the file's top). */
static int position_may_matter(const Solver *sv, int ply, int k, const Asked *asked) {
    uint64_t w = sv->past[2 * k], b = sv->past[2 * k + 1];
    uint64_t differs = (w ^ BITS(&sv->state, B_WHITE)[0]) | (b ^ BITS(&sv->state, B_BLACK)[0]);
    return (differs & ~asked->points) == 0 && (asked->counts[(ply - k) & 1] >> __builtin_popcountll(w | b) & 1);
}

/* Could any position of the history before `upto` be one? */
static int history_may_matter(const Solver *sv, int ply, int upto, const Asked *asked) {
    for (int k = 0; k < upto; k++)
        if (position_may_matter(sv, ply, k, asked)) return 1;
    return 0;
}

static SolverEntry *table_find(Solver *sv, uint64_t key) {
    SolverEntry *bucket = sv->table + (key & sv->table_mask & ~(size_t)1);
    if (bucket[0].key == key) return &bucket[0];
    if (bucket[1].key == key) return &bucket[1];
    return NULL;
}

static int bit_length(uint64_t x) {
    return x ? 64 - __builtin_clzll(x) : 0;
}

/* The tag of the bounds that hold only for the node's plies left to the horizon and the
 * round's pessimist (never 0): the value with lines cut there is a function of the position,
 * its history's answers, those plies and that side, whichever round or ply it came from. */
static uint16_t cut_tag(const Solver *sv, int ply) {
    return (uint16_t)(2 * (sv->horizon - ply) + sv->pessimist + 2);
}

/* Store a result: proven bounds [lower, upper] (tightening what the slot holds), and when
 * `cut` the bounds [cut_lower, cut_upper] of this iteration (solver.c's negamax). */
static void table_store(Solver *sv, uint64_t key, Asked asked, int ply, int lower, int upper, int cut,
                        int cut_lower, int cut_upper, int best, uint64_t nodes) {
    int effort = bit_length(nodes), tag = cut ? cut_tag(sv, ply) : 0;
    SolverEntry *slot = table_find(sv, key);
    if (slot) { /* both are bounds on the same value: keep the tighter of each, for the
                   histories where both hold (the questions of either) */
        Asked before = {slot->touched, {slot->counts[0], slot->counts[1]}};
        ask_also(&asked, &before);
        if (slot->lower > lower) lower = slot->lower;
        if (slot->upper < upper) upper = slot->upper;
        if (effort < slot->effort) effort = slot->effort;
        if (best < 0) best = slot->best;
        if (tag && slot->cut_tag == tag) {
            if (slot->cut_lower > cut_lower) cut_lower = slot->cut_lower;
            if (slot->cut_upper < cut_upper) cut_upper = slot->cut_upper;
        } else if (!tag) { /* keep the bounds of the iteration that wrote them */
            tag = slot->cut_tag;
            cut_lower = slot->cut_lower;
            cut_upper = slot->cut_upper;
        }
    } else {
        SolverEntry *bucket = sv->table + (key & sv->table_mask & ~(size_t)1);
        /* slot 0 keeps the larger subtree, slot 1 takes the rest */
        slot = effort >= bucket[0].effort ? &bucket[0] : &bucket[1];
        if (slot == &bucket[0] && bucket[0].key) bucket[1] = bucket[0];
    }
    slot->cut_tag = (uint16_t)tag;
    slot->cut_lower = (int8_t)(tag ? cut_lower : -SOLVER_INF);
    slot->cut_upper = (int8_t)(tag ? cut_upper : SOLVER_INF);
    slot->key = key;
    slot->touched = asked.points;
    slot->counts[0] = asked.counts[0];
    slot->counts[1] = asked.counts[1];
    slot->lower = (int8_t)lower;
    slot->upper = (int8_t)upper;
    slot->best = (int8_t)best;
    slot->effort = (uint8_t)effort;
}

/* -- the search */

/* Order: the table's move, then captures (most balls first), then higher levels, then the
 * points nearest the centre. */
static int move_rank(const Solver *sv, int i, const Res *r, int c, int table_move) {
    if (i == table_move) return 1 << 20;
    const Pt *p = &sv->geo.pts[i];
    int side = sv->geo.size - p->level, index = i;
    for (int l = 0; l < p->level; l++) index -= (sv->geo.size - l) * (sv->geo.size - l);
    int x = index % side, y = index / side;
    int centre = -abs(2 * x - (side - 1)) - abs(2 * y - (side - 1));
    return (int)r->removed[c ^ 1] * 4096 + p->level * 256 + centre + 128;
}

/* Where a result goes: under the position alone when no earlier position can be one its
 * subtree asked about; else under the position and the previous one when only that one can;
 * else under the position and its whole history. *frame: the key's symmetry. */
static uint64_t store_key_of(const Solver *sv, int at, const Asked *asked, uint64_t key, int transform,
                             uint64_t shared, int shared_transform, uint64_t pair, int pair_transform, int *frame) {
    if (at > 0 && history_may_matter(sv, at, at - 1, asked)) { /* one scan: the previous one last */
        *frame = transform;
        return key;
    }
    if (at > 0 && position_may_matter(sv, at, at - 1, asked)) { /* at > 0: the pair key exists */
        *frame = pair_transform;
        return pair;
    }
    *frame = shared_transform;
    return shared;
}

/* What the table says of the node: the bounds of its usable entries (a shared entry whose
 * touched points rule out its history, and its history entry), the points their subtrees
 * touched, and a move to try first (any entry's: order is only a guess). */
typedef struct {
    int lower, upper, cut_lower, cut_upper, move;
    Asked asked;
} TableView;

static Asked entry_asked(const Solver *sv, const SolverEntry *hit, int transform) {
    Asked asked = {hit->touched, {hit->counts[0], hit->counts[1]}};
    return asked_through(&asked, sv->inverse[transform]);
}

/* Take what the table holds under `key` into the view: its move always, its bounds and
 * questions when no position of the history before `upto` can matter to it (upto 0 for a
 * history entry: its key holds the whole history). */
static void consult(Solver *sv, uint64_t key, int transform, int at, int upto, int ply, TableView *view) {
    SolverEntry *hit = table_find(sv, key);
    if (!hit) return;
    if (hit->best >= 0) view->move = sv->inverse[transform][hit->best];
    Asked its = entry_asked(sv, hit, transform);
    if (history_may_matter(sv, at, upto, &its)) return;
    if (hit->lower > view->lower) view->lower = hit->lower;
    if (hit->upper < view->upper) view->upper = hit->upper;
    if (hit->cut_tag == cut_tag(sv, ply)) {
        if (hit->cut_lower > view->cut_lower) view->cut_lower = hit->cut_lower;
        if (hit->cut_upper < view->cut_upper) view->cut_upper = hit->cut_upper;
    }
    ask_also(&view->asked, &its);
}

/* Negamax alpha-beta, fail-soft, with lines cut at sv->horizon plies from the root. A cut
 * line counts as lost by the widest margin for sv->pessimist (the horizon's value is the
 * worst it could be for that side), so by the monotonicity of minimax in its leaves every
 * result bounds the true value from below for the pessimist: a fail-high of the pessimist
 * (a lower bound on its margin) is proven whatever the horizon cut. Any other answer is
 * proven only when no line was cut below it: *cut says whether one was. The table keeps
 * proven bounds only, so whatever it holds is true at every horizon and for both sides.
 * *asked: what the subtree's search asked the history about (the file's top), in the node's frame. */
static int negamax(Solver *sv, int alpha, int beta, int ply, int *best_move, int *cut, Asked *asked) {
    State *s = &sv->state;
    sv->nodes++;
    *best_move = -1;
    *cut = 0;
    memset(asked, 0, sizeof(*asked));
    if (sv->node_limit && sv->nodes > sv->node_limit) {
        sv->aborted = 1;
        return 0;
    }
    int at = sv->root_ply + ply; /* the node's ply in the line: the history holds the positions before it */
    if (at >= SOLVER_MAX_PLY - 1) {
        sv->aborted = sv->too_deep = 1;
        return 0;
    }
    if (ply > sv->deepest) sv->deepest = ply;
    uint64_t nodes_before = sv->nodes;
    int transform, shared_transform;
    uint64_t keys[8];
    image_keys(sv, keys);
    uint64_t key = canonical_key(sv, keys, &transform);
    uint64_t shared = shared_key(keys, &shared_transform);
    int pair_transform = 0; /* the pair key: at the empty board there is no position before */
    uint64_t pair = at > 0 ? pair_key(keys, sv->past_keys + (size_t)8 * (at - 1), &pair_transform) : 0;
    TableView view = {-SOLVER_INF, SOLVER_INF, -SOLVER_INF, SOLVER_INF, -1, {0, {0, 0}}};
    consult(sv, shared, shared_transform, at, at, ply, &view);
    if (pair) /* the previous position is the same: the rest of the history must not matter */
        consult(sv, pair, pair_transform, at, at - 1, ply, &view);
    consult(sv, key, transform, at, 0, ply, &view);
    if (ply > 0) { /* the root is searched through: its caller wants its best move */
        *asked = view.asked;
        if (view.lower >= beta) return view.lower;
        if (view.upper <= alpha) return view.upper;
        if (view.lower == view.upper) return view.lower;
        /* the bounds of this many plies left and this pessimist: the answer is cut too */
        int lower = view.lower > view.cut_lower ? view.lower : view.cut_lower;
        int upper = view.upper < view.cut_upper ? view.upper : view.cut_upper;
        *cut = 1;
        if (lower >= beta) return lower;
        if (upper <= alpha) return upper;
        if (lower == upper) return lower;
        *cut = 0;
        memset(asked, 0, sizeof(*asked));
    }
    int c = s->to_move, count = sv->geo.count, n = 0;
    int *moves = sv->moves + (size_t)ply * count;
    Res *result = sv->results + ply; /* one per ply: a move is resolved again when played */
    int rank[SOLVER_MAX_POINTS];
    const W *playable = sv->geo.up_to_level + (size_t)s->top_level * s->nw;
    W white = BITS(s, B_WHITE)[0], black = BITS(s, B_BLACK)[0];
    Asked tried = {0, {0, 0}}; /* what the candidates' superko tests ask the history */
    for (int w = 0; w < s->nw; w++)
        for (W x = BITS(s, B_SUPP)[w] & playable[w]; x; x &= x - 1) {
            int i = w * 64 + __builtin_ctzll(x);
            int status = check_play(s, i, c, result);
            if (status == RULES_OK || status == RULES_ILLEGAL_SUICIDE) /* a repetition is refused as suicide */
            {
                W after_white = RB(result, B_WHITE)[0], after_black = RB(result, B_BLACK)[0];
                tried.points |= (after_white ^ white) | (after_black ^ black) | (uint64_t)1 << i;
                tried.counts[1] |= (uint64_t)1 << __builtin_popcountll(after_white | after_black);
            }
            if (status == RULES_OK) {
                moves[n] = i;
                rank[n] = move_rank(sv, i, result, c, view.move);
                n++;
            }
        }
    if (n == 0) { /* the game is over: the margin in balls, buried balls and zombies included */
        int margin = popcount_bits(BITS(s, c), s->nw) - popcount_bits(BITS(s, c ^ 1), s->nw);
        *asked = tried;
        int frame;
        uint64_t store_key = store_key_of(sv, at, &tried, key, transform, shared, shared_transform, pair,
                                          pair_transform, &frame);
        table_store(sv, store_key, asked_through(&tried, sv->symmetry[frame]), ply, margin, margin, 0, 0, 0, -1, 1);
        return margin;
    }
    if (ply >= sv->horizon) { /* cut: the worst for the pessimist, nothing stored */
        *cut = 1;
        *asked = tried;
        return c == sv->pessimist ? -SOLVER_INF : SOLVER_INF;
    }
    int alpha0 = alpha, best = -SOLVER_INF, best_index = -1, any_cut = 0;
    int order[SOLVER_MAX_POINTS];
    for (int k = 0; k < n; k++) { /* insertion sort, highest rank first */
        int m = k;
        while (m > 0 && rank[order[m - 1]] < rank[k]) { order[m] = order[m - 1]; m--; }
        order[m] = k;
    }
    record_position(sv, at, keys);
    toggle_history(sv, keys); /* the children's history holds this position */
    for (int k = 0; k < n; k++) {
        int m = order[k], unused, child_cut;
        Asked child_asked;
        if (check_play(s, moves[m], c, result) != RULES_OK || commit(s, moves[m], c, result) != RULES_OK) {
            sv->aborted = 1;
            break;
        }
        int value = -negamax(sv, -beta, -(alpha > best ? alpha : best), ply + 1, &unused, &child_cut, &child_asked);
        undo(s);
        if (sv->aborted) break;
        any_cut |= child_cut;
        ask_as_parent(&tried, &child_asked);
        if (value > best || best_index < 0) {
            best = value;
            best_index = m;
        }
        if (best >= beta) break;
        if (best > alpha) alpha = best;
    }
    toggle_history(sv, keys);
    if (sv->aborted) return 0;
    *best_move = best_index >= 0 ? moves[best_index] : -1;
    *cut = any_cut;
    *asked = tried;
    {
        int lower = best > alpha0 ? best : -SOLVER_INF;
        int upper = best < beta ? best : SOLVER_INF;
        int cut_lower = lower, cut_upper = upper;
        if (any_cut) { /* only the pessimist's lower bound holds; the other, this iteration */
            if (c == sv->pessimist) upper = SOLVER_INF;
            else lower = -SOLVER_INF;
        }
        int frame;
        uint64_t store_key = store_key_of(sv, at, &tried, key, transform, shared, shared_transform, pair,
                                          pair_transform, &frame);
        int canonical_best = best_index >= 0 ? sv->symmetry[frame][moves[best_index]] : -1;
        table_store(sv, store_key, asked_through(&tried, sv->symmetry[frame]), ply, lower, upper, any_cut, cut_lower,
                    cut_upper, canonical_best, sv->nodes - nodes_before + 1);
    }
    return best;
}

/* Iterative deepening: at each horizon, first with the side to move as the pessimist (its
 * fail-high, or a result with no line cut, is proven), then with the other side (its
 * fail-high, a fail-low here, is proven); the two also meet when both bound the value
 * inside the window. Else the horizon grows by half. */
int solver_search(Solver *sv, int alpha, int beta, int *best) {
    sv->aborted = sv->too_deep = 0;
    State *s = &sv->state;
    sv->root_ply = (int)s->nstack;
    uint64_t keys[8];
    int transform;
    image_keys(sv, keys);
    uint64_t root = canonical_key(sv, keys, &transform);
    /* Any first horizon is sound (each round's answers are proven whatever its horizon):
     * iterative deepening starts shallow only because the shallow rounds are cheap. */
    int horizon = SOLVER_FIRST_HORIZON;
    if (root == sv->resume_key && alpha == sv->resume_alpha && beta == sv->resume_beta)
        horizon = sv->resume_horizon;
    else if (sv->first_horizon > horizon)
        horizon = sv->first_horizon;
    if (sv->root_ply + horizon > SOLVER_MAX_PLY - 1) horizon = SOLVER_MAX_PLY - 1 - sv->root_ply;
    int c = s->to_move;
    for (;;) {
        sv->horizon = horizon;
        int cut, other_best;
        sv->pessimist = c;
        Asked asked;
        int mine = negamax(sv, alpha, beta, 0, best, &cut, &asked);
        if (sv->aborted) break;
        if (mine >= beta || !cut) return mine;
        sv->pessimist = c ^ 1;
        int theirs = negamax(sv, alpha, beta, 0, &other_best, &cut, &asked);
        if (sv->aborted) break;
        if (theirs <= alpha || !cut) {
            if (theirs > alpha) *best = other_best;
            return theirs;
        }
        if (mine > alpha && mine == theirs) return mine;
        if (sv->root_ply + horizon >= SOLVER_MAX_PLY - 1) {
            sv->aborted = sv->too_deep = 1;
            break;
        }
        horizon += horizon / 2;
        if (sv->root_ply + horizon > SOLVER_MAX_PLY - 1) horizon = SOLVER_MAX_PLY - 1 - sv->root_ply;
    }
    sv->resume_key = root;
    sv->resume_alpha = alpha;
    sv->resume_beta = beta;
    sv->resume_horizon = horizon;
    return 0;
}
