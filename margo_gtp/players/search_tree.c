/* The MCTS tree in C: PythonTree.search of margo_gtp/players/python_tree.py (UCT + RAVE with
 * progressive-bias priors), step for step, on a pool of nodes addressed by index.
 *
 * One simulation, as PythonTree._simulate: descend from the root by uct_score (the first
 * child on ties), replaying the moves on a working copy of the position; expand the leaf on
 * its expand_visits-th visit (one child per legal move, in the order Board.legal_moves
 * gives, shuffled as random.Random.shuffle shuffles, then with priors near the root);
 * step into its first child; play the seeded playout and evaluate (simulate, from
 * search_eval.c, seeded by getrandbits(64)); when ownership is asked, count the balls of
 * the final position (count_balls); back up the result along the path and the
 * AMAF statistics of the path's siblings. The random draws are those of the Python
 * player's Mersenne Twister, in the same order, so the same tree (tests compare every
 * node). Where the Python search copies the board for each simulation, this one undoes
 * its moves: undo is exact, so the positions are the same.
 *
 * The priors are the heuristic player's (PythonTree.prior_rates), computed here by
 * prior_rates (search_prior.c) at an expansion within prior_depth of the root, on the
 * expanding thread's own position; the arithmetic on them (virtual visits, the stable
 * sort) is done as _give_priors does. No Python code runs during a search.
 *
 * Threads (mcts:threads=N): N threads search the one tree with the GIL released, each
 * with its own copy of the position, its own generator (thread 0 the player's, so one
 * thread draws exactly as the Python search) and its own scratch. One mutex guards the
 * tree, held only to read or change it, never for rules work:
 *
 *   lock    back up the thread's previous simulation (its playout's points were gathered
 *           unlocked); check the budget, the deadline, the early stop; claim a simulation;
 *           select its path (select_path: node indices, and the moves with their colours
 *           copied out) and add its virtual loss; mark the leaf `expanding` if it is due
 *   unlock  replay the moves on the thread's position (check_play + commit); for a leaf
 *           due: its legal moves and their priors
 *   lock    (an expansion only) attach the children: the pool grown if there is room,
 *           the moves shuffled by the thread's generator, priors and sort; step into the
 *           first child
 *   unlock  play that move, the playout and its evaluation, count the final position's
 *           balls into the thread's own ownership arrays (when asked), gather the
 *           playout's points, undo: most of a simulation
 *
 * A leaf marked `expanding` is expanded by its thread only; another thread reaching it
 * meanwhile simulates from it as from any leaf, so no expansion is made twice or thrown
 * away. The pool may move when it grows (realloc), so no pointer into it is kept across an
 * unlock: between locks a thread holds node indices and copied moves only. Simulations in
 * flight count as lost visits of the nodes on their path (virtual loss, in_flight), so the
 * threads spread over the tree; backup removes it, as does a simulation that fails
 * (abandon). The critical sections take a microsecond or two, so a thread that finds the
 * lock taken spins on it briefly before it sleeps (tree_lock). With one thread the steps
 * come in the Python search's order (back up, check, select, expand, play out) and the
 * generator draws the same numbers, so the tree is the Python one node for node.
 *
 * Memory is bounded: the pool never holds more than max_nodes nodes; an expansion that
 * would pass the cap is not made (the leaf stays a leaf), and the search goes on.
 */
#include "search_core.h"

#include <time.h>

/* random.Random.getrandbits(k) for 0 < k <= 32, and for k = 64 (two words, low first) */
static uint32_t getrandbits32(MT *m, int k) { return mt_next(m) >> (32 - k); }

static uint64_t getrandbits64(MT *m) {
    uint64_t low = mt_next(m);
    uint64_t high = mt_next(m);
    return low | (high << 32);
}

/* random.Random._randbelow_with_getrandbits(n), n >= 1 */
static uint32_t randbelow(MT *m, uint32_t n) {
    int k = 64 - __builtin_clzll((unsigned long long)n); /* n.bit_length() */
    uint32_t r = getrandbits32(m, k);
    while (r >= n) r = getrandbits32(m, k);
    return r;
}

void tree_free(Tree *t) {
    PyMem_RawFree(t->nodes);
    PyMem_RawFree(t->scores);
    t->nodes = NULL;
    t->scores = NULL;
    t->count = t->cap = 0;
}

int tree_count_scores(Tree *t) {
    if (t->scores) return 0;
    t->scores = PyMem_RawCalloc(t->cap > 0 ? (size_t)t->cap : 1, sizeof(NodeScore));
    return t->scores ? 0 : -1;
}

/* Room for `more` nodes, growing the pool geometrically up to max_nodes; 0 when the cap
 * forbids it, -1 when the allocation fails (no exception set: search threads call it). */
static int tree_reserve(Tree *t, int32_t more) {
    if ((int64_t)t->count + more > t->max_nodes) return 0;
    if (t->count + more <= t->cap) return 1;
    int64_t cap = t->cap ? (int64_t)t->cap * 2 : 1024;
    while (cap < (int64_t)t->count + more) cap *= 2;
    if (cap > t->max_nodes) cap = t->max_nodes;
    TreeNode *nodes = PyMem_RawRealloc(t->nodes, (size_t)cap * sizeof(TreeNode));
    if (!nodes) return -1;
    t->nodes = nodes;
    if (t->scores) { /* cap grows only once both arrays hold it */
        NodeScore *scores = PyMem_RawRealloc(t->scores, (size_t)cap * sizeof(NodeScore));
        if (!scores) return -1;
        t->scores = scores;
    }
    t->cap = (int32_t)cap;
    return 1;
}

int32_t tree_new_root(Tree *t, int player, double prior_value) {
    int room = tree_reserve(t, 1);
    if (room <= 0) {
        if (room < 0) PyErr_NoMemory();
        else PyErr_SetString(PyExc_MemoryError, "max_nodes leaves no room for the root");
        return -1;
    }
    TreeNode *root = &t->nodes[t->count];
    memset(root, 0, sizeof(*root));
    root->code = -3;
    root->point = -1;
    root->player = (int8_t)player;
    root->first_child = -1;
    root->prior = prior_value;
    if (t->scores) memset(&t->scores[t->count], 0, sizeof(NodeScore));
    return t->count++;
}

/* The legal moves of colour c (Board.legal_moves' order: placements by index, then swap,
 * then pass) into codes; returns their number. */
static int legal_codes(State *s, int c, int32_t *codes) {
    int n = 0;
    if (s->end_term != END_NONE) return 0;
    for (int i = next_legal_placement(s, c, 0); i >= 0; i = next_legal_placement(s, c, i + 1)) codes[n++] = i;
    if (swap_legal(s, c)) codes[n++] = CODE_SWAP;
    if (s->allow_pass) codes[n++] = CODE_PASS;
    return n;
}

/* The tree lock. Its critical sections are short (a selection, a backup: about a microsecond
 * or two), much shorter than a thread's sleep and wake-up through the kernel, so a thread
 * that finds it taken first retries for a while (LOCK_SPINS tries, each a few tens of
 * nanoseconds), and only then sleeps on it; a holder preempted on a busy machine then
 * costs the waiter a short spin, not its time slice. */
#define LOCK_SPINS 256

/* a spin-wait hint to the CPU (x86 PAUSE, ARM YIELD), through the intrinsics every
 * compiler has (the GCC builtin would need an MSVC twin in msvc_builtins.h) */
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#elif defined(__aarch64__) && !defined(_MSC_VER)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

static void tree_lock(SearchShared *sh) {
    for (int k = 0; k < LOCK_SPINS; k++) {
        if (pthread_mutex_trylock(&sh->lock) == 0) return;
        cpu_relax();
    }
    pthread_mutex_lock(&sh->lock);
}

static void tree_unlock(SearchShared *sh) { pthread_mutex_unlock(&sh->lock); }

/* The first error of the search stops every thread (under the lock). */
static int fail(SearchShared *sh, int error) {
    if (!sh->error) sh->error = error;
    sh->stop = 1;
    return -1;
}

/* random.Random.shuffle of the codes, the rates (when given) following their codes */
static void shuffle_with(MT *m, int32_t *codes, double *rates, int n) {
    for (int i = n - 1; i >= 1; i--) {
        int j = (int)randbelow(m, (uint32_t)(i + 1));
        int32_t t = codes[i];
        codes[i] = codes[j];
        codes[j] = t;
        if (rates) {
            double r = rates[i];
            rates[i] = rates[j];
            rates[j] = r;
        }
    }
}

/* PythonTree._expand, first half, without the lock: the legal moves of to_move in the
 * thread's position into run->codes, and their prior rates into run->rates when the
 * children get priors (*with_priors). `seen` is a pool size read under the lock since the
 * search began: the pool only grows during a search, so when `seen` plus the children
 * passes the cap they cannot fit, and no priors are computed for nothing. Returns the
 * number of moves, or -1 with *error set. */
static int children_for(SearchRun *run, int to_move, int depth, int64_t seen, int *with_priors, int *error) {
    SearchShared *sh = run->sh;
    const SearchParams *p = sh->prm;
    int n = legal_codes(run->work, to_move, run->codes);
    if (sh->move_limits && depth < sh->limits_depth) { /* as PythonTree._expand: filtered before the shuffle */
        const int32_t *limit = sh->move_limits + (size_t)to_move * (size_t)(run->work->count + 2) + 2;
        int kept = 0;
        for (int k = 0; k < n; k++)
            if (limit[run->codes[k]] <= depth) run->codes[kept++] = run->codes[k];
        n = kept;
    }
    *with_priors = sh->priors && depth <= p->prior_depth && p->prior_visits > 0 && n > 1 &&
                   seen + n <= sh->tree->max_nodes;
    if (*with_priors) {
        int err = prior_rates(run->work, to_move, run->codes, n, sh->priors, run->rates);
        if (err) {
            *error = err == PRIOR_ILLEGAL ? SEARCH_ILLEGAL : SEARCH_NO_MEMORY;
            return -1;
        }
    }
    return n;
}

/* PythonTree._expand, second half, under the lock (or before the threads start): the n
 * children (run->codes, shuffled by the thread's generator, with their priors when
 * with_priors) attached to node, which no other thread expands meanwhile. The generator
 * draws only when the children fit, as before the split. 0 done (or refused: the pool is
 * full), -1 failed. */
static int attach_children(SearchRun *run, int32_t node_index, int to_move, int depth, int n, int with_priors) {
    SearchShared *sh = run->sh;
    Tree *t = sh->tree;
    const SearchParams *p = sh->prm;
    int room = tree_reserve(t, n);
    if (room < 0) return fail(sh, SEARCH_NO_MEMORY);
    if (room == 0) {
        sh->pool_full = 1;
        return 0;
    }
    shuffle_with(run->mt, run->codes, with_priors ? run->rates : NULL, n);
    int32_t first = t->count;
    for (int k = 0; k < n; k++) {
        TreeNode *child = &t->nodes[first + k];
        memset(child, 0, sizeof(*child));
        child->code = run->codes[k];
        child->point = run->codes[k] >= 0 ? run->codes[k] : -1;
        child->player = (int8_t)to_move;
        child->first_child = -1;
        child->prior = p->prior_value;
        if (with_priors) {
            child->n += p->prior_visits;
            child->w += run->rates[k] * p->prior_visits;
            child->prior = run->rates[k];
        }
    }
    if (with_priors) /* children.sort(key=lambda child: -child.w): stable insertion sort */
        for (int a = 1; a < n; a++) {
            TreeNode moving = t->nodes[first + a];
            int b = a - 1;
            while (b >= 0 && -t->nodes[first + b].w > -moving.w) {
                t->nodes[first + b + 1] = t->nodes[first + b];
                b--;
            }
            t->nodes[first + b + 1] = moving;
        }
    if (t->scores) memset(&t->scores[first], 0, (size_t)n * sizeof(NodeScore));
    t->count += n;
    TreeNode *node = &t->nodes[node_index];
    node->first_child = first;
    node->nchildren = n;
    if (depth <= p->prior_depth) node->primed = 1;
    return 0;
}

/* PythonTree._expand whole, by one thread before the others start (the root) */
static int expand(SearchRun *run, int32_t node_index, int to_move, int depth) {
    int with_priors, error = SEARCH_OK;
    int n = children_for(run, to_move, depth, run->sh->tree->count, &with_priors, &error);
    if (n < 0) return fail(run->sh, error);
    return attach_children(run, node_index, to_move, depth, n, with_priors);
}

static int push(SearchRun *run, int code, int c) {
    Res r;
    if (check_play(run->work, code, c, &r)) return SEARCH_ILLEGAL;
    if (commit(run->work, code, c, code >= 0 ? &r : NULL) < 0) return SEARCH_NO_MEMORY;
    return SEARCH_OK;
}

/* Room in the path buffers for one more node; SEARCH_OK or SEARCH_NO_MEMORY. */
static int path_reserve(SearchRun *run, int len) {
    if (len + 1 < run->path_cap) return SEARCH_OK;
    int cap = run->path_cap ? run->path_cap * 2 : 64;
    int32_t *path = PyMem_RawRealloc(run->path, (size_t)cap * sizeof(int32_t));
    if (path) run->path = path;
    int32_t *codes = PyMem_RawRealloc(run->path_codes, (size_t)cap * sizeof(int32_t));
    if (codes) run->path_codes = codes;
    int32_t *colours = PyMem_RawRealloc(run->path_colours, (size_t)cap * sizeof(int32_t));
    if (colours) run->path_colours = colours;
    if (!path || !codes || !colours) return SEARCH_NO_MEMORY;
    run->path_cap = cap;
    return SEARCH_OK;
}

/* PythonTree._descend, its selection: the path (node indices, root first) into run->path,
 * the moves into it into run->path_codes and run->path_colours (the colour that made
 * each, the node's player); returns its length, -1 failed. Under the lock, and only
 * reads the tree and copies: the moves are played after the lock is released (replay).
 * The simulation's virtual loss is added to the path, so the other threads spread over the
 * tree: a child's visits count its simulations in flight as lost (with one thread there
 * are none during a selection, and the scores are the Python search's). When the leaf is
 * due for expansion, *expand_due is set and the leaf is marked `expanding`: no other
 * thread expands it (one reaching it meanwhile simulates from it, as from any leaf). */
static int select_path(SearchRun *run, int32_t root, int *expand_due) {
    SearchShared *sh = run->sh;
    Tree *t = sh->tree;
    const SearchParams *p = sh->prm;
    int len = 0, error;
    int32_t node = root;
    *expand_due = 0;
    if ((error = path_reserve(run, len))) return fail(sh, error);
    run->path[len++] = node;
    while (t->nodes[node].first_child >= 0 && t->nodes[node].nchildren > 0) {
        const TreeNode *parent = &t->nodes[node];
        double log_parent = log((double)(parent->n + parent->in_flight + 1));
        int32_t best = -1;
        double best_score = -1.0;
        for (int32_t k = parent->first_child; k < parent->first_child + parent->nchildren; k++) {
            const TreeNode *child = &t->nodes[k];
            double score;
            int err = uct_score((double)(child->n + child->in_flight), child->w, (double)child->rave_n, child->rave_w,
                                log_parent, p->uct_c, p->rave_k, p->uct_prior_visits, p->uct_prior_wins, &score);
            if (err) return fail(sh, SEARCH_NOT_NUMBER);
            if (score > best_score) {
                best = k;
                best_score = score;
            }
        }
        if (best < 0) break;
        node = best;
        if ((error = path_reserve(run, len))) return fail(sh, error);
        run->path_codes[len - 1] = t->nodes[node].code;
        run->path_colours[len - 1] = t->nodes[node].player;
        run->path[len++] = node;
    }
    TreeNode *leaf = &t->nodes[node];
    if (leaf->first_child < 0 && !leaf->expanding && leaf->n + 1 >= p->expand_visits) {
        leaf->expanding = 1;
        *expand_due = 1;
    }
    for (int k = 0; k < len; k++) t->nodes[run->path[k]].in_flight += 1;
    return len;
}

/* A simulation that failed after its selection: its virtual loss removed, the leaf it
 * marked `expanding` (marked >= 0) unmarked, the error recorded (stopping every thread).
 * Takes the lock. */
static void abandon(SearchRun *run, int len, int error, int32_t marked) {
    SearchShared *sh = run->sh;
    tree_lock(sh);
    for (int k = 0; k < len; k++) sh->tree->nodes[run->path[k]].in_flight -= 1;
    if (marked >= 0) sh->tree->nodes[marked].expanding = 0;
    fail(sh, error);
    tree_unlock(sh);
}

/* The rest of PythonTree._descend, without the lock: the path's moves played on the
 * thread's own position; then, when the leaf is due, its children made (legal moves and
 * priors unlocked, attached under the lock) and the first one stepped into, as the Python
 * search steps into its first child. Returns the path's new length, -1 failed (the
 * simulation abandoned). `seen` is the pool size at the selection. */
static int play_path(SearchRun *run, int len, int expand_due, int64_t seen) {
    SearchShared *sh = run->sh;
    State *s = run->work;
    int error = SEARCH_OK;
    int32_t marked = expand_due ? run->path[len - 1] : -1; /* the leaf this thread expands */
    for (int k = 1; k < len && !error; k++) error = push(run, run->path_codes[k - 1], run->path_colours[k - 1]);
    if (!error && expand_due) {
        int32_t leaf = run->path[len - 1];
        int to_move = len > 1 ? s->to_move : sh->colour, with_priors;
        int n = children_for(run, to_move, len - 1, seen, &with_priors, &error);
        if (n >= 0 && !(error = path_reserve(run, len))) {
            tree_lock(sh);
            Tree *t = sh->tree;
            int32_t child = -1;
            if (seen + n > t->max_nodes) sh->pool_full = 1; /* cannot fit: as attach_children would find */
            else if (attach_children(run, leaf, to_move, len - 1, n, with_priors) < 0) error = sh->error;
            t->nodes[leaf].expanding = 0;
            marked = -1;
            if (!error && t->nodes[leaf].first_child >= 0 && t->nodes[leaf].nchildren > 0) {
                child = t->nodes[leaf].first_child;
                t->nodes[child].in_flight += 1;
                run->path_codes[len - 1] = t->nodes[child].code;
                run->path_colours[len - 1] = to_move;
                run->path[len++] = child;
            }
            tree_unlock(sh);
            if (child >= 0) error = push(run, run->path_codes[len - 2], to_move);
        }
    }
    if (error) {
        abandon(run, len, error, marked);
        return -1;
    }
    return len;
}

/* The points the playout played after stack entry `start`, per colour (the AMAF keys of
 * PythonTree._backup's board.played_points_since): gathered from the thread's own
 * position, without the lock. */
static void playout_points(const State *s, Py_ssize_t start, W played[2][MAXW]) {
    memset(played, 0, 2 * MAXW * sizeof(W));
    for (Py_ssize_t k = start; k < s->nstack; k++)
        if (s->stack[k].code >= 0) SETB(played[s->stack[k].colour], s->stack[k].code);
}

/* Ownership (PythonTree._simulate's ownership.add): the balls of the simulation's final
 * position -- the tree's moves, the playout, as the evaluation saw it -- counted per point
 * index into the thread's own arrays, buried balls too (they are on the board), as
 * Ownership.add_masks counts the ball bit sets. Without the lock. */
static void count_balls(SearchRun *run, const State *s) {
    for (int colour = 0; colour < 2; colour++) { /* B_WHITE, B_BLACK: Ownership.white, .black */
        const W *balls = BITS(s, colour);
        int64_t *counts = run->owner + (size_t)colour * s->count;
        for (int w = 0; w < s->nw; w++)
            for (W x = balls[w]; x; x &= x - 1) counts[w * 64 + __builtin_ctzll(x)] += 1;
    }
    run->owner_playouts += 1;
}

/* PythonTree._backup: the result and, in a tree that counts scores, the final score margin
 * (White's, komi included) along the path, AMAF statistics of the siblings; the path's
 * virtual loss removed. Under the lock. */
static void backup(SearchRun *run, int len, double white_result, double white_margin, W played[2][MAXW]) {
    SearchShared *sh = run->sh;
    Tree *t = sh->tree;
    double rewards[2] = {white_result, 1.0 - white_result};
    for (int k = len - 1; k >= 0; k--) {
        TreeNode *node = &t->nodes[run->path[k]];
        node->in_flight -= 1;
        node->n += 1;
        node->w += rewards[node->player];
        if (t->scores) {
            NodeScore *score = &t->scores[run->path[k]];
            score->sum += node->player == 0 ? white_margin : -white_margin;
            score->sq += white_margin * white_margin;
            score->scored += 1;
        }
        if (node->first_child >= 0 && node->nchildren > 0) {
            int player = t->nodes[node->first_child].player;
            const W *seen = played[player];
            double reward = rewards[player];
            for (int32_t c = node->first_child; c < node->first_child + node->nchildren; c++) {
                TreeNode *child = &t->nodes[c];
                if (child->point >= 0 && TEST(seen, child->point)) {
                    child->rave_n += 1;
                    child->rave_w += reward;
                }
            }
        }
        if (node->point >= 0) SETB(played[node->player], node->point);
    }
    sh->done++;
}

/* time.perf_counter() on Linux: CLOCK_MONOTONIC in seconds */
static double perf_counter(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* PythonTree._decided: the most visited root child leads the runner-up by more visits
 * than the simulations left can give it (playouts < 0: no playout budget; no deadline
 * when has_deadline is 0). */
static int decided(const Tree *t, int32_t root, long done, long playouts, double start, double now, int has_deadline,
                   double deadline) {
    const TreeNode *r = &t->nodes[root];
    if (r->first_child < 0 || r->nchildren < 2) return 1;
    int64_t first = 0, second = 0;
    for (int32_t k = r->first_child; k < r->first_child + r->nchildren; k++) {
        int64_t n = t->nodes[k].n;
        if (n > first) {
            second = first;
            first = n;
        } else if (n > second) {
            second = n;
        }
    }
    double left = playouts >= 0 ? (double)(playouts - done) : INFINITY;
    if (has_deadline && now > start) {
        double by_time = done / (now - start) * (deadline - now);
        if (by_time < left) left = by_time;
    }
    return (double)(first - second) > left;
}

/* PythonTree._prime: a reused tree gets the priors a fresh search would have given it --
 * the nodes within prior_depth of the root that were expanded deeper down (so without
 * priors) get them now (added to their visits, not sorted). The thread's position is
 * node's (the moves to it played); 0 or -1 failed. Before the threads start. */
static int prime(SearchRun *run, int32_t node_index, int to_move, int depth) {
    SearchShared *sh = run->sh;
    Tree *t = sh->tree;
    State *s = run->work;
    const SearchParams *p = sh->prm;
    if (depth > p->prior_depth || t->nodes[node_index].first_child < 0 || t->nodes[node_index].nchildren == 0) return 0;
    int32_t first = t->nodes[node_index].first_child, n = t->nodes[node_index].nchildren;
    if (!t->nodes[node_index].primed) {
        if (sh->priors && p->prior_visits > 0 && n > 1) {
            for (int k = 0; k < n; k++) run->codes[k] = t->nodes[first + k].code;
            int err = prior_rates(s, to_move, run->codes, n, sh->priors, run->rates);
            if (err) return fail(sh, err == PRIOR_ILLEGAL ? SEARCH_ILLEGAL : SEARCH_NO_MEMORY);
            for (int k = 0; k < n; k++) {
                TreeNode *child = &t->nodes[first + k];
                child->n += p->prior_visits;
                child->w += run->rates[k] * p->prior_visits;
                child->prior = run->rates[k];
            }
        }
        t->nodes[node_index].primed = 1;
    }
    if (depth + 1 > p->prior_depth) return 0;
    for (int k = 0; k < n; k++) {
        int32_t child = first + k;
        if (t->nodes[child].first_child < 0 || t->nodes[child].nchildren == 0) continue;
        int error = push(run, t->nodes[child].code, to_move);
        if (error) return fail(sh, error);
        int err = prime(run, child, s->to_move, depth + 1);
        undo(s);
        if (err < 0) return -1;
    }
    return 0;
}

/* Keep the subtree below the root's child that `colour` reached by `code` (PythonTree.advance):
 * copied breadth-first into a fresh pool (children stay consecutive, in their order), the
 * rest freed. 1 done, 0 no such child (the tree is unchanged), -1 with MemoryError. */
int tree_advance(Tree *t, int32_t *root, int code, int colour) {
    const TreeNode *r = &t->nodes[*root];
    int32_t from = -1;
    for (int32_t k = r->first_child; r->first_child >= 0 && k < r->first_child + r->nchildren; k++)
        if (t->nodes[k].code == code && t->nodes[k].player == colour) {
            from = k;
            break;
        }
    if (from < 0) return 0;
    /* the subtree's size, to allocate once */
    int64_t size = 0;
    int32_t *todo = PyMem_RawMalloc((size_t)t->count * sizeof(int32_t));
    if (!todo) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t head = 0, tail = 0;
    todo[tail++] = from;
    while (head < tail) {
        const TreeNode *node = &t->nodes[todo[head++]];
        size++;
        for (int32_t k = node->first_child; node->first_child >= 0 && k < node->first_child + node->nchildren; k++)
            todo[tail++] = k;
    }
    int64_t cap = size > 1024 ? size : 1024;
    if (cap > t->max_nodes && size <= t->max_nodes) cap = t->max_nodes;
    TreeNode *nodes = PyMem_RawMalloc((size_t)cap * sizeof(TreeNode));
    NodeScore *scores = t->scores ? PyMem_RawMalloc((size_t)cap * sizeof(NodeScore)) : NULL;
    if (!nodes || (t->scores && !scores)) {
        PyMem_RawFree(todo);
        PyMem_RawFree(nodes);
        PyMem_RawFree(scores);
        PyErr_NoMemory();
        return -1;
    }
    /* breadth first again: todo[i] is the old index of new node i */
    nodes[0] = t->nodes[from];
    todo[0] = from;
    int32_t count = 1;
    for (int32_t i = 0; i < count; i++) {
        const TreeNode *old = &t->nodes[todo[i]];
        if (old->first_child < 0) continue;
        nodes[i].first_child = count;
        for (int32_t k = 0; k < old->nchildren; k++) {
            nodes[count] = t->nodes[old->first_child + k];
            todo[count++] = old->first_child + k;
        }
    }
    if (scores) /* the score sums follow their nodes */
        for (int32_t i = 0; i < count; i++) scores[i] = t->scores[todo[i]];
    PyMem_RawFree(todo);
    PyMem_RawFree(t->nodes);
    PyMem_RawFree(t->scores);
    t->nodes = nodes;
    t->scores = scores;
    t->count = count;
    t->cap = (int32_t)cap;
    *root = 0;
    return 1;
}

/* True when no more simulation may start: the budget is claimed, the deadline passed,
 * the move is decided (checked every decided_every claims), or a thread stopped the
 * search (an error). Under the lock. */
static int search_over(SearchShared *sh, double now) {
    const SearchParams *p = sh->prm;
    return sh->stop || (sh->playouts >= 0 && sh->claimed >= sh->playouts) ||
           (sh->has_deadline && now >= sh->deadline) ||
           (sh->claimed && sh->claimed % p->decided_every == 0 && p->early_stop &&
            decided(sh->tree, sh->root, sh->claimed, sh->playouts, sh->start, now, sh->has_deadline, sh->deadline));
}

/* The outside's say (SearchControl), before each simulation: 1 when the stop flag is set
 * or when the tick -- thread `ticker` only, once `next_tick` has passed -- asks to stop,
 * -1 when the tick failed, else 0. Without the lock (the tick takes it to read the tree). */
static int interrupted(SearchRun *run, double *next_tick) {
    const SearchControl *c = &run->sh->control;
    if (c->halt && __atomic_load_n(c->halt, __ATOMIC_ACQUIRE)) return 1;
    if (!c->tick || run != c->ticker) return 0;
    double now = perf_counter();
    if (now < *next_tick) return 0;
    *next_tick = now + c->tick_seconds;
    return c->tick(c->tick_ctx, run->sh);
}

int search_read(SearchShared *sh, int (*read)(void *ctx, const Tree *t, int32_t root, long done), void *ctx) {
    tree_lock(sh);
    int answer = read(ctx, sh->tree, sh->root, sh->done);
    tree_unlock(sh);
    return answer;
}

/* One search thread: simulations until the budget, the deadline, the decision, the stop
 * flag (or the tick) or an error stops them all. A simulation takes the lock twice, each time briefly: once to
 * back up the previous simulation, claim this one and select its path (select_path:
 * reading the tree, no rules work), once to attach the leaf's children when it expands
 * one (play_path; the legal moves and priors are computed before, unlocked). Replaying
 * the path, the playout and its evaluation, and gathering the playout's points, most of
 * a simulation, run unlocked on the thread's own position. For one thread the order of
 * the steps is the Python search's: back up, check the budget, select, expand, play out. */
static void run_simulations(SearchRun *run) {
    SearchShared *sh = run->sh;
    State *s = run->work;
    const SearchParams *p = sh->prm;
    Py_ssize_t base = s->nstack;
    int len = 0; /* the path of the simulation to back up (0: none) */
    double result = 0.0, margin = 0.0;
    double *want_margin = sh->count_scores ? &margin : NULL; /* the margin only for a tree that counts it */
    W played[2][MAXW];
    double next_tick = sh->control.tick ? perf_counter() + sh->control.tick_seconds : 0.0;
    for (;;) {
        int outside = interrupted(run, &next_tick);
        double now = sh->has_deadline ? perf_counter() : 0.0;
        tree_lock(sh);
        if (len) backup(run, len, result, margin, played);
        if (outside < 0) fail(sh, SEARCH_CALLBACK);
        if (outside || search_over(sh, now)) {
            sh->stop = 1;
            tree_unlock(sh);
            break;
        }
        sh->claimed++;
        int expand_due;
        len = select_path(run, sh->root, &expand_due);
        int64_t seen = sh->tree->count;
        tree_unlock(sh);
        if (len < 0) break;
        len = play_path(run, len, expand_due, seen);
        if (len < 0) break;
        Py_ssize_t start = s->nstack;
        uint64_t seed = getrandbits64(run->mt);
        result = simulate(s, seed, p->playout_moves, p->komi, p->territory_scoring, p->evaluator, p->eval, want_margin);
        if (result < -1.5) {
            abandon(run, len, SEARCH_NO_MEMORY, -1);
            break;
        }
        /* counted here, once the simulation cannot fail: it is backed up at the next
         * turn of the loop, so the counts cover exactly the simulations returned (done) */
        if (run->owner) count_balls(run, s);
        playout_points(s, start, played);
        while (s->nstack > base) undo(s);
    }
    while (s->nstack > base) undo(s);
}

static void *search_thread(void *arg) {
    run_simulations(arg);
    return NULL;
}

long tree_search(SearchShared *sh, SearchRun *runs, int threads) {
    Tree *t = sh->tree;
    SearchRun *first = &runs[0];
    /* the root's children (or a reused tree's priors) first, by thread 0 with the player's
     * generator, as the Python search does */
    int err = t->nodes[sh->root].first_child < 0 ? expand(first, sh->root, sh->colour, 0)
                                                 : prime(first, sh->root, sh->colour, 0);
    if (err < 0) {
        return -1;
    }
    sh->start = sh->has_deadline ? perf_counter() : 0.0;
    sh->count_scores = t->scores != NULL;
    int started = 1;
    for (; started < threads; started++)
        if (pthread_create(&runs[started].thread, NULL, search_thread, &runs[started]) != 0) break;
    run_simulations(first);
    for (int k = 1; k < started; k++) pthread_join(runs[k].thread, NULL);
    return sh->error ? -1 : sh->done;
}
