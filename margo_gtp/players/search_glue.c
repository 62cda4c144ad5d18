/* The Python glue's conversions (for _search.c): the settings read by field name into the
 * plain C structs the search loops read (the search config into SearchParams and the
 * evaluator's tunables, the priors into PriorParams), and the tree's answers built back as
 * Python lists (every node; the root's children with their principal variations). Apart
 * from _search.c, which keeps the module's functions and types; declared in search_core.h.
 */
#include "search_core.h"

#include <stddef.h>

/* -- settings read by field name: the search config (players/search_config.py's
 * SearchConfig) and the priors (players/c_tree.py's Priors), one attribute per setting,
 * read once per call into the plain C structs the search loops read; a missing field is a
 * TypeError that names it. */

static PyObject *field(PyObject *obj, const char *what, const char *name) {
    PyObject *value = PyObject_GetAttrString(obj, name);
    if (!value && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "no field '%s' in %s (%.100s given)", name, what, Py_TYPE(obj)->tp_name);
    }
    return value;
}

/* A number field (an int below 2**53 converts exactly, as Python's mixed arithmetic does). */
static int field_double(PyObject *obj, const char *what, const char *name, double *out) {
    PyObject *value = field(obj, what, name);
    if (!value) return -1;
    *out = PyFloat_AsDouble(value);
    Py_DECREF(value);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* A whole-number field (an int, or what has __index__; a float is a TypeError). */
static int field_long(PyObject *obj, const char *what, const char *name, long *out) {
    PyObject *value = field(obj, what, name);
    if (!value) return -1;
    *out = PyLong_AsLong(value);
    Py_DECREF(value);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* A switch field: its truth, as the "p" format reads it. */
static int field_bool(PyObject *obj, const char *what, const char *name, int *out) {
    PyObject *value = field(obj, what, name);
    if (!value) return -1;
    *out = PyObject_IsTrue(value);
    Py_DECREF(value);
    return *out < 0 ? -1 : 0;
}

/* A struct's fields by name: each entry's attribute, read as a number ('d': double), a whole
 * number ('l': long) or a switch ('p': int), into the struct at its offset. */
typedef struct {
    const char *name;
    char kind;
    size_t offset;
} FieldSpec;

static int read_fields(PyObject *obj, const char *what, const FieldSpec *specs, void *out) {
    for (const FieldSpec *f = specs; f->name; f++) {
        char *at = (char *)out + f->offset;
        int err = f->kind == 'd'   ? field_double(obj, what, f->name, (double *)at)
                  : f->kind == 'l' ? field_long(obj, what, f->name, (long *)at)
                                   : field_bool(obj, what, f->name, (int *)at);
        if (err < 0) return -1;
    }
    return 0;
}

static const char CONFIG[] = "the search config";

/* The heuristic evaluator's tunables (search_eval.c's prm) from the config's fields (`ladder`:
 * SearchConfig's property, ladder_depth or the module's LADDER_DEPTH). */
int read_eval_params(PyObject *config, double prm[6]) {
    static const char *const names[6] = {"eval_scale_min", "eval_scale_per_point", "freedom_value",
                                         "short_of_freedoms_loss", "group_cost", "ladder"};
    for (int k = 0; k < 6; k++)
        if (field_double(config, CONFIG, names[k], &prm[k]) < 0) return -1;
    return 0;
}

/* The config's evaluator: "heuristic" 0, "territory" 1 (a Python callable cannot run here). */
static int read_evaluator(PyObject *config, int *out) {
    PyObject *value = field(config, CONFIG, "evaluator");
    if (!value) return -1;
    *out = !PyUnicode_Check(value)                                     ? -1
           : PyUnicode_CompareWithASCIIString(value, "heuristic") == 0 ? 0
           : PyUnicode_CompareWithASCIIString(value, "territory") == 0 ? 1
                                                                       : -1;
    Py_DECREF(value);
    if (*out < 0) PyErr_SetString(PyExc_ValueError, "the search config's evaluator must be 'heuristic' or 'territory'");
    return *out < 0 ? -1 : 0;
}

/* The search's settings (SearchParams) from the config's fields, once per search; komi and
 * the scoring are the rules'. */
int read_search_params(PyObject *config, double komi, int territory_scoring, SearchParams *prm) {
    static const FieldSpec fields[] = {
        {"uct_c", 'd', offsetof(SearchParams, uct_c)},
        {"rave_k", 'd', offsetof(SearchParams, rave_k)},
        {"uct_prior_visits", 'd', offsetof(SearchParams, uct_prior_visits)},
        {"prior_value", 'd', offsetof(SearchParams, prior_value)},
        {"expand_visits", 'l', offsetof(SearchParams, expand_visits)},
        {"prior_depth", 'l', offsetof(SearchParams, prior_depth)},
        {"prior_visits", 'l', offsetof(SearchParams, prior_visits)},
        {"decided_check_every", 'l', offsetof(SearchParams, decided_every)},
        {"early_stop", 'p', offsetof(SearchParams, early_stop)},
        {NULL, 0, 0},
    };
    long playout_moves, playout_cap;
    if (read_fields(config, CONFIG, fields, prm) < 0 || field_long(config, CONFIG, "playout_moves", &playout_moves) < 0 ||
        field_long(config, CONFIG, "playout_cap", &playout_cap) < 0 || read_evaluator(config, &prm->evaluator) < 0 ||
        read_eval_params(config, prm->eval) < 0)
        return -1;
    /* the virtual wins of UCT's prior visits: prior_value * uct_prior_visits, as in Python */
    prm->uct_prior_wins = prm->prior_value * prm->uct_prior_visits;
    prm->playout_moves = playout_moves >= 0 ? playout_moves : playout_cap; /* -1: to the end, at most the cap */
    prm->territory_scoring = territory_scoring;
    prm->komi = komi;
    return 0;
}

/* The priors' settings (PriorParams), by field name from `priors` (players/c_tree.py's
 * Priors, or anything with its fields): `weights` (heuristic.Weights: captures,
 * own_in_atari, enemy_in_atari, own_groups, enemy_groups, freedoms, centre, centre_moves,
 * decisive), `low`, `high`, `temp`, `pattern_table` (None, or PatternWeights.dense_table:
 * bytes of PATTERN_TABLE_SIZE doubles) and `pattern_mix`; komi is the rules'. The table is
 * held by `priors`: it lives as long as the call that read it. */
int read_priors(PyObject *priors, double komi, PriorParams *pp) {
    static const FieldSpec weights[] = {
        {"captures", 'd', offsetof(PriorParams, captures)},
        {"own_in_atari", 'd', offsetof(PriorParams, own_in_atari)},
        {"enemy_in_atari", 'd', offsetof(PriorParams, enemy_in_atari)},
        {"own_groups", 'd', offsetof(PriorParams, own_groups)},
        {"enemy_groups", 'd', offsetof(PriorParams, enemy_groups)},
        {"freedoms", 'd', offsetof(PriorParams, freedoms)},
        {"centre", 'd', offsetof(PriorParams, centre)},
        {"centre_moves", 'l', offsetof(PriorParams, centre_moves)},
        {"decisive", 'd', offsetof(PriorParams, decisive)},
        {NULL, 0, 0},
    };
    static const FieldSpec band[] = {
        {"low", 'd', offsetof(PriorParams, low)},
        {"high", 'd', offsetof(PriorParams, high)},
        {"temp", 'd', offsetof(PriorParams, temp)},
        {"pattern_mix", 'd', offsetof(PriorParams, pattern_mix)},
        {NULL, 0, 0},
    };
    static const char PRIORS[] = "the priors";
    PyObject *w = field(priors, PRIORS, "weights");
    if (!w) return -1;
    int err = read_fields(w, "the priors' weights", weights, pp);
    Py_DECREF(w);
    if (err < 0 || read_fields(priors, PRIORS, band, pp) < 0) return -1;
    PyObject *table = field(priors, PRIORS, "pattern_table");
    if (!table) return -1;
    /* a borrowed pointer into bytes that `priors` holds (the caller holds `priors`) */
    int ok = table == Py_None ||
             (PyBytes_Check(table) && PyBytes_GET_SIZE(table) == (Py_ssize_t)(PATTERN_TABLE_SIZE * sizeof(double)));
    pp->patterns = ok && table != Py_None ? (const double *)PyBytes_AS_STRING(table) : NULL;
    Py_DECREF(table);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "the priors' pattern table must be None or bytes of %d doubles",
                     PATTERN_TABLE_SIZE);
        return -1;
    }
    pp->komi = komi;
    return 0;
}

/* -- the tree's answers as Python lists (tree_search's result, the tick's progress report) */

/* Every node in preorder (children in pool order) as (depth, code, n, w, rave_n, rave_w,
 * prior, score_sum, score_sq, scored): what the tests compare with the Python tree. The
 * score sums are zeros in a tree that does not count them (tree_score), here and below. */
PyObject *tree_nodes(const Tree *t, int32_t root) {
    PyObject *out = PyList_New(0);
    int32_t *stack = PyMem_RawMalloc((size_t)(t->count + 1) * sizeof(int32_t));
    int32_t *depths = PyMem_RawMalloc((size_t)(t->count + 1) * sizeof(int32_t));
    if (!out || !stack || !depths) goto fail;
    int top = 0;
    stack[top] = root;
    depths[top++] = 0;
    while (top) {
        top--;
        const TreeNode *node = &t->nodes[stack[top]];
        NodeScore score = tree_score(t, node);
        int depth = depths[top];
        PyObject *item = Py_BuildValue("(iiLdLddddL)", depth, node->code, (long long)node->n, node->w,
                                       (long long)node->rave_n, node->rave_w, node->prior, score.sum, score.sq,
                                       (long long)score.scored);
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            goto fail;
        }
        Py_DECREF(item);
        if (node->first_child >= 0)
            for (int32_t k = node->first_child + node->nchildren - 1; k >= node->first_child; k--) {
                stack[top] = k;
                depths[top++] = depth + 1;
            }
    }
    PyMem_RawFree(stack);
    PyMem_RawFree(depths);
    return out;
fail:
    if (out && !PyErr_Occurred()) PyErr_NoMemory();
    if (!out) PyErr_NoMemory();
    Py_XDECREF(out);
    PyMem_RawFree(stack);
    PyMem_RawFree(depths);
    return NULL;
}

/* The root's children in pool order as (code, n, w, rave_n, rave_w, prior, pv, score_sum,
 * score_sq, scored), pv being the principal variation below the child: the descendants
 * chosen by the most visits (then wins, the first on ties, as max() in searcher.analyse),
 * each (code, player, n, w, rave_n, rave_w, prior, score_sum, score_sq, scored), at most
 * 64, ending with the first unvisited one. */
PyObject *root_children(const Tree *t, int32_t root) {
    const TreeNode *r = &t->nodes[root];
    int n = r->first_child >= 0 ? r->nchildren : 0;
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int k = 0; k < n; k++) {
        const TreeNode *child = &t->nodes[r->first_child + k];
        PyObject *pv = PyList_New(0);
        if (!pv) goto fail;
        const TreeNode *node = child;
        while (node->first_child >= 0 && node->nchildren > 0 && PyList_GET_SIZE(pv) < 64) {
            const TreeNode *best = &t->nodes[node->first_child];
            for (int32_t c = node->first_child + 1; c < node->first_child + node->nchildren; c++) {
                const TreeNode *x = &t->nodes[c];
                if (x->n > best->n || (x->n == best->n && x->w > best->w)) best = x;
            }
            NodeScore score = tree_score(t, best);
            PyObject *item = Py_BuildValue("(iiLdLddddL)", best->code, best->player, (long long)best->n, best->w,
                                           (long long)best->rave_n, best->rave_w, best->prior, score.sum, score.sq,
                                           (long long)score.scored);
            if (!item || PyList_Append(pv, item) < 0) {
                Py_XDECREF(item);
                Py_DECREF(pv);
                goto fail;
            }
            Py_DECREF(item);
            if (best->n == 0) break;
            node = best;
        }
        NodeScore score = tree_score(t, child);
        PyObject *entry = Py_BuildValue("(iLdLddNddL)", child->code, (long long)child->n, child->w,
                                        (long long)child->rave_n, child->rave_w, child->prior, pv, score.sum, score.sq,
                                        (long long)score.scored);
        if (!entry) goto fail;
        PyList_SET_ITEM(out, k, entry);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* -- the move limits (read_move_limits, search_core.h): copied, so that the search reads
 * aligned int32 whatever the bytes object's layout, and checked once here, not per node */
int read_move_limits(PyObject *obj, int count, int32_t **limits, int32_t *depth) {
    *limits = NULL;
    *depth = 0;
    if (obj == Py_None) return 0;
    Py_ssize_t entries = 2 * ((Py_ssize_t)count + 2);
    if (!PyBytes_Check(obj) || PyBytes_GET_SIZE(obj) != entries * (Py_ssize_t)sizeof(int32_t)) {
        PyErr_SetString(PyExc_ValueError, "move_limits must be None or bytes of 2 * (points + 2) int32");
        return -1;
    }
    int32_t *copy = PyMem_RawMalloc((size_t)entries * sizeof(int32_t));
    if (!copy) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(copy, PyBytes_AS_STRING(obj), (size_t)entries * sizeof(int32_t));
    for (Py_ssize_t k = 0; k < entries; k++) {
        if (copy[k] < 0) {
            PyMem_RawFree(copy);
            PyErr_SetString(PyExc_ValueError, "move_limits must not be negative");
            return -1;
        }
        if (copy[k] > *depth) *depth = copy[k];
    }
    *limits = copy;
    return 0;
}
