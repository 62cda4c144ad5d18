/* The Python glue of the native MCTS search (margo_gtp.players._search): parses arguments,
 * calls search_eval.c, search_policy.c and search_uct.c, converts the answers. Used by
 * margo_gtp/players/native_search.py; python_tree.py, evaluate.py and playout_policy.py stay the readable
 * reference and the fallback (PEP 399).
 *
 * The positions it works on are margo_gtp.engine._native.State objects (NativeCore's
 * state): the engine's glue owns that type (native_glue.h), this module checks that an
 * argument is one and works on the plain C State inside it (rules_core.h).
 * Its rules code is the engine's own sources compiled in here too (setup.py), so both
 * extensions must come from one build: at import, the State type's size must equal the
 * StateObject this module was compiled with, else ImportError (and the Python search runs).
 */
#include "search_core.h"
#include "native_glue.h"

#include <stddef.h>
#include <time.h>

static PyTypeObject *state_type; /* margo_gtp.engine._native.State */

/* The C state inside a _native.State; NULL with TypeError for anything else. */
static State *as_state(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, state_type)) {
        PyErr_Format(PyExc_TypeError, "a margo_gtp.engine._native.State expected, not %.100s", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return &((StateObject *)obj)->state;
}

/* heavy_playout(state, mt_state, max_moves, tactics) -> (moves played, new mt_state) */
static PyObject *search_heavy_playout(PyObject *module, PyObject *args) {
    PyObject *so, *t;
    long max_moves;
    double tactics;
    if (!PyArg_ParseTuple(args, "OO!ld", &so, &PyTuple_Type, &t, &max_moves, &tactics)) return NULL;
    State *s = as_state(so);
    if (!s) return NULL;
    MT m;
    if (mt_from_tuple(t, &m) < 0) return NULL;
    long played = heavy_playout(s, &m, max_moves, tactics);
    if (played < 0) return PyErr_NoMemory();
    PyObject *nt = mt_to_tuple(&m);
    if (!nt) return NULL;
    return Py_BuildValue("(lN)", played, nt);
}

/* simulate(state, seed, max_moves, komi, territory_scoring, evaluator, config) -> White's
 * result: a splitmix64 playout of at most max_moves moves, then the exact result if the
 * game is over, else the evaluator (0 heuristic, 1 territory sign) with the config's
 * evaluator tunables (read_eval_params). */
static PyObject *search_simulate(PyObject *module, PyObject *args) {
    PyObject *so, *config;
    unsigned long long seed;
    long max_moves;
    double komi;
    int territory_scoring, evaluator;
    double prm[6];
    if (!PyArg_ParseTuple(args, "OKldpiO", &so, &seed, &max_moves, &komi, &territory_scoring, &evaluator, &config))
        return NULL;
    State *s = as_state(so);
    if (!s) return NULL;
    if (evaluator != 0 && evaluator != 1) return PyErr_Format(PyExc_ValueError, "evaluator must be 0 or 1");
    if (read_eval_params(config, prm) < 0) return NULL;
    double result = simulate(s, (uint64_t)seed, max_moves, komi, territory_scoring, evaluator, prm, NULL);
    if (result < -1.5) return PyErr_NoMemory();
    return PyFloat_FromDouble(result);
}

/* uct_select(children, log_parent, uct_c, rave_k, prior_visits, prior_wins) -> the child of
 * highest UCT+RAVE score (uct_score), the first on ties, or None if no score exceeds -1.0:
 * the selection loop of PythonTree._descend, reading each child's n, w, rave_n and rave_w. */
static PyObject *str_n, *str_w, *str_rave_n, *str_rave_w;

static int read_number(PyObject *obj, PyObject *name, double *out) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (!v) return -1;
    *out = PyFloat_AsDouble(v); /* ints below 2**53 convert exactly, as Python's mixed arithmetic does */
    Py_DECREF(v);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* The score of one child into *out; -1 with an exception set when an attribute is missing
 * or the arithmetic fails as Python's would (rave_w is read only when rave_n is not 0). */
static int child_score(PyObject *child, double log_parent, double uct_c, double rave_k, double prior_visits,
                       double prior_wins, double *out) {
    double visits, wins, rave_n, rave_w = 0.0;
    if (read_number(child, str_n, &visits) < 0 || read_number(child, str_w, &wins) < 0 ||
        read_number(child, str_rave_n, &rave_n) < 0)
        return -1;
    if (rave_n != 0.0 && read_number(child, str_rave_w, &rave_w) < 0) return -1;
    switch (uct_score(visits, wins, rave_n, rave_w, log_parent, uct_c, rave_k, prior_visits, prior_wins, out)) {
    case UCT_ZERO_DIVISION:
        PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero");
        return -1;
    case UCT_DOMAIN_ERROR:
        PyErr_SetString(PyExc_ValueError, "math domain error");
        return -1;
    }
    return 0;
}

static PyObject *search_uct_select(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "uct_select takes 6 arguments (%zd given)", nargs);
    PyObject *children = args[0];
    if (!PyList_Check(children)) return PyErr_Format(PyExc_TypeError, "children must be a list");
    double log_parent = PyFloat_AsDouble(args[1]), uct_c = PyFloat_AsDouble(args[2]);
    double rave_k = PyFloat_AsDouble(args[3]), prior_visits = PyFloat_AsDouble(args[4]);
    double prior_wins = PyFloat_AsDouble(args[5]);
    if (PyErr_Occurred()) return NULL;
    /* A child's attribute getter may run Python code that changes the list (and drops the
     * last reference to a child): each child is held by a strong reference while it is read,
     * the best so far too, and the length is read again at every step, as Python's own
     * `for child in children` does (so both loops see the same children). */
    PyObject *best = Py_NewRef(Py_None);
    double best_score = -1.0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(children); k++) {
        PyObject *child = Py_NewRef(PyList_GET_ITEM(children, k));
        double score;
        if (child_score(child, log_parent, uct_c, rave_k, prior_visits, prior_wins, &score) < 0) {
            Py_DECREF(child);
            Py_DECREF(best);
            return NULL;
        }
        if (score > best_score) {
            Py_SETREF(best, child);
            best_score = score;
        } else {
            Py_DECREF(child);
        }
    }
    return best;
}

/* -- the tree search */

/* A list of the n floats of values; NULL with an exception set. */
static PyObject *float_list(const double *values, Py_ssize_t n) {
    PyObject *out = PyList_New(n);
    for (Py_ssize_t k = 0; out && k < n; k++) {
        PyObject *value = PyFloat_FromDouble(values[k]);
        if (!value) Py_CLEAR(out);
        else PyList_SET_ITEM(out, k, value);
    }
    return out;
}

/* prior_rates(state, to_move, codes, priors, komi) -> [rate]: search_prior.c's rates of the
 * moves `codes` (point index, -1 pass, -2 swap) of colour to_move, as
 * PythonTree.prior_rates gives them (tests compare the two) */
static PyObject *search_prior_rates(PyObject *module, PyObject *args) {
    PyObject *so, *codes_obj, *priors;
    int to_move;
    double komi;
    PriorParams pp;
    if (!PyArg_ParseTuple(args, "OiOOd", &so, &to_move, &codes_obj, &priors, &komi)) return NULL;
    State *s = as_state(so);
    if (!s || read_priors(priors, komi, &pp) < 0) return NULL;
    if (to_move != 0 && to_move != 1) return PyErr_Format(PyExc_ValueError, "colour must be 0 or 1");
    PyObject *seq = PySequence_Fast(codes_obj, "codes must be a sequence of move codes");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int32_t *codes = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t));
    double *rates = PyMem_RawMalloc((size_t)(n + 1) * sizeof(double));
    PyObject *out = NULL;
    if (!codes || !rates) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        long code = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if (code == -1 && PyErr_Occurred()) goto done;
        if (code < CODE_SWAP || code >= s->count) {
            PyErr_Format(PyExc_ValueError, "move code %ld is off the board", code);
            goto done;
        }
        codes[k] = (int32_t)code;
    }
    int err = prior_rates(s, to_move, codes, (int)n, &pp, rates);
    if (err == PRIOR_ILLEGAL) {
        PyErr_SetString(PyExc_ValueError, "prior_rates: a move is illegal");
        goto done;
    }
    if (err) {
        PyErr_NoMemory();
        goto done;
    }
    out = float_list(rates, n);
done:
    Py_DECREF(seq);
    PyMem_RawFree(codes);
    PyMem_RawFree(rates);
    return out;
}

/* StopFlag(): a flag that one thread sets and a running search reads before each of its
 * simulations (SearchControl.halt), so that search ends after the simulations in flight.
 * Calling it answers whether it is set, so it is also a stop() callable for the Python
 * search. */
typedef struct {
    PyObject_HEAD
    int value; /* read and written with __atomic builtins: search threads read it without the GIL */
} StopFlagObject;

static PyObject *StopFlag_set(StopFlagObject *o, PyObject *unused) {
    __atomic_store_n(&o->value, 1, __ATOMIC_RELEASE);
    Py_RETURN_NONE;
}

static PyObject *StopFlag_clear(StopFlagObject *o, PyObject *unused) {
    __atomic_store_n(&o->value, 0, __ATOMIC_RELEASE);
    Py_RETURN_NONE;
}

static PyObject *StopFlag_is_set(StopFlagObject *o, PyObject *unused) {
    return PyBool_FromLong(__atomic_load_n(&o->value, __ATOMIC_ACQUIRE));
}

static PyObject *StopFlag_call(StopFlagObject *o, PyObject *args, PyObject *kwds) {
    if (PyTuple_GET_SIZE(args) || (kwds && PyDict_Size(kwds))) return PyErr_Format(PyExc_TypeError, "StopFlag() takes no arguments");
    return StopFlag_is_set(o, NULL);
}

static PyMethodDef StopFlag_methods[] = {
    {"set", (PyCFunction)StopFlag_set, METH_NOARGS, "set(): stop the search that reads this flag"},
    {"clear", (PyCFunction)StopFlag_clear, METH_NOARGS, "clear(): let the next search run"},
    {"is_set", (PyCFunction)StopFlag_is_set, METH_NOARGS, "is_set() -> bool"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject StopFlagType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "margo_gtp.players._search.StopFlag",
    .tp_basicsize = sizeof(StopFlagObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "StopFlag(): set() from any thread stops a running tree_search before its next simulation; "
              "calling it answers is_set()",
    .tp_methods = StopFlag_methods,
    .tp_call = (ternaryfunc)StopFlag_call,
    .tp_new = PyType_GenericNew,
};

/* The tick of a search with a stop callable (other than a StopFlag) or a progress callback:
 * thread 0 calls it every tick_seconds (search_tree.c, interrupted). It polls stop() and,
 * every `interval`, reads the root's children (under the tree lock, search_read) and hands
 * them to progress(simulations, root n, root w, children, tree size, root score sums, first
 * thread's ownership counts or None); a true answer of
 * either stops the search. It takes the GIL for the Python calls only; the exception of a
 * failed call is kept (exc) for the thread that started the search to raise. */
#define POLL_SECONDS 0.005 /* how often a stop callable is asked: well inside the 50 ms a GTP command may wait */
/* How often every search looks for a signal (Ctrl-C, SIGTERM turned into an exception by
 * its Python handler): PyErr_CheckSignals runs the handlers, and an exception they raise
 * stops the search and is raised by tree_search, within 100 ms of the signal. Without it
 * the search ran its whole budget (a 6 s move answered Ctrl-C 5 s late; an absurd clock
 * never). It acts on the main thread only, where Python runs signal handlers. */
#define SIGNAL_SECONDS 0.02

typedef struct {
    PyObject *stop;     /* polled every tick, or NULL */
    PyObject *progress; /* or NULL */
    double interval, next_progress;
    PyObject *report;   /* the arguments of the next progress call, read under the lock */
    PyObject *exc_type, *exc_value, *exc_tb; /* the exception raised (exc_type NULL: none) */
    /* with ownership: the ticker's own run (the first thread), whose counts so far each
     * report carries -- read by that thread itself, between two of its simulations, so
     * without a race; the other threads' counts are summed once they are joined */
    const SearchRun *owner_run;
    int owner_points;
} SearchTick;

/* With the GIL: keep the exception set now (a failed tick stops the search: one at most). */
static void tick_failed(SearchTick *tick) {
    if (!tick->exc_type) PyErr_Fetch(&tick->exc_type, &tick->exc_value, &tick->exc_tb);
    else PyErr_Clear();
}

static double monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static PyObject *ownership_counts(const SearchRun *runs, Py_ssize_t threads, int count);

static int read_progress(void *ctx, const Tree *t, int32_t root, long done) {
    SearchTick *tick = ctx;
    PyGILState_STATE gil = PyGILState_Ensure();
    const TreeNode *r = &t->nodes[root];
    NodeScore score = tree_score(t, r);
    PyObject *owned = tick->owner_run ? ownership_counts(tick->owner_run, 1, tick->owner_points) : Py_NewRef(Py_None);
    tick->report = owned ? Py_BuildValue("(lLdNi(ddL)N)", done, (long long)r->n, r->w, root_children(t, root),
                                         t->count, score.sum, score.sq, (long long)score.scored, owned)
                         : NULL;
    if (!tick->report) tick_failed(tick);
    PyGILState_Release(gil);
    return tick->report ? 0 : -1;
}

static int search_tick(void *ctx, SearchShared *sh) {
    SearchTick *tick = ctx;
    int report = tick->progress && monotonic_seconds() >= tick->next_progress;
    if (report) {
        if (search_read(sh, read_progress, tick) < 0) return -1;
        tick->next_progress = monotonic_seconds() + tick->interval;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    int answer = 0;
    if (report) {
        PyObject *r = PyObject_CallObject(tick->progress, tick->report);
        Py_CLEAR(tick->report);
        answer = r ? PyObject_IsTrue(r) : -1;
        Py_XDECREF(r);
    }
    if (!answer && tick->stop) {
        PyObject *r = PyObject_CallNoArgs(tick->stop);
        answer = r ? PyObject_IsTrue(r) : -1;
        Py_XDECREF(r);
    }
    if (!answer && PyErr_CheckSignals() < 0) answer = -1; /* a handler raised: KeyboardInterrupt... */
    if (answer < 0) tick_failed(tick);
    PyGILState_Release(gil);
    return answer;
}

/* Tree(max_nodes): a tree kept between searches (tree reuse), at most max_nodes nodes */
typedef struct {
    PyObject_HEAD
    Tree tree;
    int32_t root; /* -1: empty */
    int busy;     /* a search runs on it (without the GIL): nothing else may touch it */
} TreeObject;

static int tree_idle(TreeObject *o) {
    if (!o->busy) return 1;
    PyErr_SetString(PyExc_RuntimeError, "this search tree is being searched");
    return 0;
}

static void TreeObject_dealloc(TreeObject *o) {
    tree_free(&o->tree);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyObject *TreeObject_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    long max_nodes;
    if (kwds && PyDict_Size(kwds)) return PyErr_Format(PyExc_TypeError, "Tree takes one positional argument, max_nodes");
    if (!PyArg_ParseTuple(args, "l", &max_nodes)) return NULL;
    if (max_nodes < 1 || max_nodes > INT32_MAX) return PyErr_Format(PyExc_ValueError, "max_nodes must be 1..2**31-1");
    TreeObject *o = (TreeObject *)type->tp_alloc(type, 0);
    if (!o) return NULL;
    o->tree = (Tree){NULL, NULL, 0, 0, (int32_t)max_nodes};
    o->root = -1;
    o->busy = 0;
    return (PyObject *)o;
}

/* advance(code, colour) -> True if the root had that child (now the root), else False */
static PyObject *TreeObject_advance(TreeObject *o, PyObject *args) {
    int code, colour;
    if (!PyArg_ParseTuple(args, "ii", &code, &colour)) return NULL;
    if (!tree_idle(o)) return NULL;
    if (o->root < 0) Py_RETURN_FALSE;
    int done = tree_advance(&o->tree, &o->root, code, colour);
    if (done < 0) return NULL;
    return PyBool_FromLong(done);
}

static PyObject *TreeObject_get_size(TreeObject *o, void *unused) {
    if (!tree_idle(o)) return NULL;
    return PyLong_FromLong(o->root < 0 ? 0 : o->tree.count);
}

/* in_flight() -> the simulations in flight summed over the nodes (0 between searches:
 * every virtual loss was removed) */
static PyObject *TreeObject_in_flight(TreeObject *o, PyObject *unused) {
    if (!tree_idle(o)) return NULL;
    long long total = 0;
    for (int32_t k = 0; o->root >= 0 && k < o->tree.count; k++) total += o->tree.nodes[k].in_flight;
    return PyLong_FromLongLong(total);
}

static PyMethodDef TreeObject_methods[] = {
    {"advance", (PyCFunction)TreeObject_advance, METH_VARARGS,
     "advance(code, colour) -> bool: keep the subtree below the root's child reached by that move"},
    {"in_flight", (PyCFunction)TreeObject_in_flight, METH_NOARGS,
     "in_flight() -> int: simulations in flight summed over the nodes (virtual loss; 0 between searches)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef TreeObject_getset[] = {
    {"size", (getter)TreeObject_get_size, NULL, "nodes in the tree", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TreeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "margo_gtp.players._search.Tree",
    .tp_basicsize = sizeof(TreeObject),
    .tp_dealloc = (destructor)TreeObject_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An MCTS tree kept between searches (search_tree.c)",
    .tp_methods = TreeObject_methods,
    .tp_getset = TreeObject_getset,
    .tp_new = TreeObject_new,
};

/* tree_search(state, colour, mt_state, config, komi, territory_scoring, playouts, max_nodes,
 *             priors, deadline=None,
 *             whole=True, tree=None, helpers=(), stop=None, progress=None, interval=0.5,
 *             ownership=False, move_limits=None)
 *   -> (simulations, new mt_state, nodes, pool full), nodes being every node in preorder
 *      when `whole`, else (root n, root w, the root's children with their pv, tree size,
 *      (root score_sum, score_sq, scored));
 *      with `ownership`, a fifth item (white, black, playouts): per point index the number
 *      of simulations whose final position holds a White (Black) ball there, summed over
 *      the threads, and the number of simulations counted (= simulations)
 * config: the search's settings, read by field name once (read_search_params: a SearchConfig);
 * priors: None (no priors) or the heuristic priors' settings by field name (read_priors);
 * playouts < 0: no limit; deadline: a time.perf_counter() value; tree: a Tree to search
 * on (from its root, or a new one; it keeps the tree, and its own max_nodes), else a tree
 * of max_nodes made for this search and freed; helpers: the generator states
 * (random.Random.getstate()[1]) of the threads beside the calling one (len(helpers) + 1
 * threads search the one tree, with the GIL released); stop: a StopFlag (read before every
 * simulation) or another callable (asked every POLL_SECONDS by the first thread, with the
 * GIL): set or true, the search ends after the simulations in flight; progress: called
 * about every `interval` seconds by the first thread with (simulations, root n, root w, the
 * root's children with their pv, tree size, the root's score sums, and with `ownership` the
 * first thread's ownership counts so far as (white, black, playouts), else None), a true answer stopping
 * the search; move_limits: None, or for each colour (White, Black) and move code c (swap -2,
 * pass -1, point i) the depth from which it may be played, as 2 * (count + 2) native int32
 * at colour * (count + 2) + c + 2 (read_move_limits): a node expanded by this search
 * shallower than the largest gets only the legal moves allowed at its depth
 * (avoidMoves/allowMoves, native_search.limit_table; nodes already expanded are not changed);
 * scores: the tree counts the score sums from now on (tree_count_scores; a kept tree that
 * does goes on in every search), else they are zeros and no margin is computed */
#define MAX_SEARCH_THREADS 1024

/* The threads' ownership counts summed: (white, black, playouts), the two lists indexed by
 * point; NULL with an exception set. */
static PyObject *ownership_counts(const SearchRun *runs, Py_ssize_t threads, int count) {
    PyObject *lists[2] = {PyList_New(count), PyList_New(count)};
    long long playouts = 0;
    for (Py_ssize_t k = 0; k < threads; k++) playouts += runs[k].owner_playouts;
    for (int colour = 0; colour < 2 && lists[0] && lists[1]; colour++)
        for (int i = 0; i < count; i++) {
            long long total = 0;
            for (Py_ssize_t k = 0; k < threads; k++) total += runs[k].owner[(size_t)colour * count + i];
            PyObject *item = PyLong_FromLongLong(total);
            if (!item) {
                Py_CLEAR(lists[0]);
                Py_CLEAR(lists[1]);
                break;
            }
            PyList_SET_ITEM(lists[colour], i, item);
        }
    if (!lists[0] || !lists[1]) {
        Py_XDECREF(lists[0]);
        Py_XDECREF(lists[1]);
        return NULL;
    }
    return Py_BuildValue("(NNL)", lists[0], lists[1], playouts);
}

static PyObject *search_tree_search(PyObject *module, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"state", "colour", "mt_state", "config", "komi", "territory_scoring", "playouts",
                               "max_nodes", "priors", "deadline",
                               "whole", "tree", "helpers", "stop", "progress", "interval", "ownership", "move_limits",
                               "scores", NULL};
    PyObject *so, *mt_state, *config, *priors_obj, *deadline_obj = Py_None, *tree_obj = Py_None, *helpers = NULL;
    PyObject *stop = Py_None, *progress = Py_None, *limits_obj = Py_None;
    double interval = 0.5;
    int colour, territory_scoring, whole = 1, ownership = 0, scores = 0;
    double komi;
    long playouts;
    long max_nodes;
    SearchParams prm;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OiO!OdpllO|OpOO!OOdpOp", keywords, &so, &colour, &PyTuple_Type,
                                     &mt_state, &config, &komi, &territory_scoring, &playouts, &max_nodes, &priors_obj,
                                     &deadline_obj, &whole, &tree_obj, &PyTuple_Type, &helpers, &stop, &progress,
                                     &interval, &ownership, &limits_obj, &scores))
        return NULL;
    double deadline = 0.0;
    if (deadline_obj != Py_None) {
        deadline = PyFloat_AsDouble(deadline_obj);
        if (deadline == -1.0 && PyErr_Occurred()) return NULL;
    }
    State *s = as_state(so);
    if (!s) return NULL;
    if (colour != 0 && colour != 1) return PyErr_Format(PyExc_ValueError, "colour must be 0 or 1");
    if (read_search_params(config, komi, territory_scoring, &prm) < 0) return NULL;
    if (prm.evaluator != 0 && prm.evaluator != 1) return PyErr_Format(PyExc_ValueError, "evaluator must be 0 or 1");
    if (prm.decided_every < 1 || prm.expand_visits < 1)
        return PyErr_Format(PyExc_ValueError, "decided_every and expand_visits must be >= 1");
    if (max_nodes < 1 || max_nodes > INT32_MAX) return PyErr_Format(PyExc_ValueError, "max_nodes must be 1..2**31-1");
    if (tree_obj != Py_None && !PyObject_TypeCheck(tree_obj, &TreeType))
        return PyErr_Format(PyExc_TypeError, "tree must be a Tree or None");
    PriorParams priors;
    if (priors_obj != Py_None && read_priors(priors_obj, prm.komi, &priors) < 0) return NULL;
    if (stop != Py_None && !PyCallable_Check(stop)) return PyErr_Format(PyExc_TypeError, "stop must be a StopFlag, callable or None");
    if (progress != Py_None && !PyCallable_Check(progress)) return PyErr_Format(PyExc_TypeError, "progress must be callable or None");
    if (!(interval > 0.0 && interval < 1e9)) return PyErr_Format(PyExc_ValueError, "interval must be > 0 seconds");
    Py_ssize_t threads = 1 + (helpers ? PyTuple_GET_SIZE(helpers) : 0);
    if (threads > MAX_SEARCH_THREADS) return PyErr_Format(PyExc_ValueError, "at most %d search threads", MAX_SEARCH_THREADS);
    TreeObject *kept = tree_obj == Py_None ? NULL : (TreeObject *)tree_obj;
    if (kept && !tree_idle(kept)) return NULL;
    int32_t *move_limits, limits_depth;
    if (read_move_limits(limits_obj, s->count, &move_limits, &limits_depth) < 0) return NULL;
    MT *mts = PyMem_RawCalloc((size_t)threads, sizeof(MT));
    SearchRun *runs = PyMem_RawCalloc((size_t)threads, sizeof(SearchRun));
    if (!mts || !runs) {
        PyMem_RawFree(mts);
        PyMem_RawFree(runs);
        PyMem_RawFree(move_limits);
        return PyErr_NoMemory();
    }
    Tree local = {NULL, NULL, 0, 0, (int32_t)max_nodes};
    Tree *tree = kept ? &kept->tree : &local;
    SearchShared sh = {tree, &prm, priors_obj == Py_None ? NULL : &priors, move_limits, limits_depth, -1,
                       colour, playouts, deadline_obj != Py_None, deadline, 0.0};
    pthread_mutex_init(&sh.lock, NULL);
    int is_flag = stop != Py_None && PyObject_TypeCheck(stop, &StopFlagType);
    SearchTick tick = {stop != Py_None && !is_flag ? stop : NULL, progress != Py_None ? progress : NULL, interval,
                       monotonic_seconds() + interval, NULL, NULL, NULL, NULL};
    if (is_flag) sh.control.halt = &((StopFlagObject *)stop)->value;
    /* Every search ticks, at least to look for signals (SIGNAL_SECONDS); more often for a
     * stop callable or a progress interval shorter than that. */
    double every = SIGNAL_SECONDS;
    if (tick.stop && POLL_SECONDS < every) every = POLL_SECONDS;
    if (tick.progress && interval < every) every = interval;
    sh.control.tick = search_tick;
    sh.control.tick_ctx = &tick;
    sh.control.tick_seconds = every;
    sh.control.ticker = &runs[0];
    PyObject *result = NULL;
    long done = -1;
    int ready = 1;
    for (Py_ssize_t k = 0; k < threads && ready; k++) {
        SearchRun *run = &runs[k];
        run->sh = &sh;
        run->mt = &mts[k];
        if (mt_from_tuple(k ? PyTuple_GET_ITEM(helpers, k - 1) : mt_state, run->mt) < 0) ready = 0;
        else if (!(run->work = PyMem_RawCalloc(1, sizeof(State))) || state_copy(run->work, s) != RULES_OK) {
            PyErr_NoMemory();
            ready = 0;
        } else if (!(run->codes = PyMem_RawMalloc((size_t)(s->count + 2) * sizeof(int32_t))) ||
                 !(run->rates = PyMem_RawMalloc((size_t)(s->count + 2) * sizeof(double))) ||
                 (ownership && !(run->owner = PyMem_RawCalloc((size_t)2 * s->count, sizeof(int64_t))))) {
            PyErr_NoMemory();
            ready = 0;
        }
    }
    if (!ready) goto done;
    if (scores && tree_count_scores(tree) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (ownership) {
        tick.owner_run = &runs[0];
        tick.owner_points = s->count;
    }
    int32_t root = kept && kept->root >= 0 ? kept->root : tree_new_root(tree, colour ^ 1, prm.prior_value);
    if (root < 0) goto done;
    if (kept) kept->root = root;
    sh.root = root;
    if (kept) kept->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    done = tree_search(&sh, runs, (int)threads);
    Py_END_ALLOW_THREADS
    if (kept) kept->busy = 0;
    switch (sh.error) {
    case SEARCH_OK:
        break;
    case SEARCH_CALLBACK:
        PyErr_Restore(tick.exc_type, tick.exc_value, tick.exc_tb);
        tick.exc_type = tick.exc_value = tick.exc_tb = NULL;
        goto done;
    case SEARCH_ILLEGAL:
        PyErr_SetString(PyExc_RuntimeError, "search tree: a child's move is illegal in its position");
        goto done;
    case SEARCH_NOT_NUMBER:
        PyErr_SetString(PyExc_ValueError, "search tree: a child's score is not a number");
        goto done;
    default:
        PyErr_NoMemory();
        goto done;
    }
    NodeScore root_score = tree_score(tree, &tree->nodes[root]);
    PyObject *nodes = whole ? tree_nodes(tree, root)
                            : Py_BuildValue("(LdNi(ddL))", (long long)tree->nodes[root].n, tree->nodes[root].w,
                                            root_children(tree, root), tree->count, root_score.sum, root_score.sq,
                                            (long long)root_score.scored);
    PyObject *nt = nodes ? mt_to_tuple(&mts[0]) : NULL;
    PyObject *owned = nt && ownership ? ownership_counts(runs, threads, s->count) : NULL;
    if (nodes && nt && (owned || !ownership))
        result = owned ? Py_BuildValue("(lNNON)", done, nt, nodes, sh.pool_full ? Py_True : Py_False, owned)
                       : Py_BuildValue("(lNNO)", done, nt, nodes, sh.pool_full ? Py_True : Py_False);
    else {
        Py_XDECREF(nodes);
        Py_XDECREF(nt);
        Py_XDECREF(owned);
    }
done:
    Py_XDECREF(tick.report);
    Py_XDECREF(tick.exc_type);
    Py_XDECREF(tick.exc_value);
    Py_XDECREF(tick.exc_tb);
    for (Py_ssize_t k = 0; k < threads; k++) {
        PyMem_RawFree(runs[k].codes);
        PyMem_RawFree(runs[k].rates);
        PyMem_RawFree(runs[k].path);
        PyMem_RawFree(runs[k].path_codes);
        PyMem_RawFree(runs[k].path_colours);
        PyMem_RawFree(runs[k].owner);
        if (runs[k].work) state_free(runs[k].work);
        PyMem_RawFree(runs[k].work);
    }
    pthread_mutex_destroy(&sh.lock);
    PyMem_RawFree(runs);
    PyMem_RawFree(mts);
    PyMem_RawFree(move_limits);
    tree_free(&local);
    return result;
}

/* The point indices of the sequence seq, an array of *n (at least one slot) with -1 for any
 * code that is not a point of s (the pattern functions answer PATTERN_NOT_A_POINT for it);
 * NULL with an exception set. */
static int32_t *point_codes(PyObject *seq, const State *s, Py_ssize_t *n) {
    PyObject *fast = PySequence_Fast(seq, "codes must be a sequence of point indices");
    if (!fast) return NULL;
    *n = PySequence_Fast_GET_SIZE(fast);
    int32_t *codes = PyMem_RawMalloc((size_t)(*n ? *n : 1) * sizeof(int32_t));
    if (!codes) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t k = 0; k < *n; k++) {
        long code = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, k));
        if (code == -1 && PyErr_Occurred()) {
            PyMem_RawFree(codes);
            Py_DECREF(fast);
            return NULL;
        }
        codes[k] = code < 0 || code >= s->count ? -1 : (int32_t)code; /* -1: not a point */
    }
    Py_DECREF(fast);
    return codes;
}

/* The exception of a failed pattern function's status; NULL. */
static PyObject *pattern_error(int status) {
    if (status == PATTERN_NOT_A_POINT) return PyErr_Format(PyExc_ValueError, "a pass or swap has no pattern features");
    if (status == PATTERN_ILLEGAL) return PyErr_Format(PyExc_ValueError, "pattern features of an illegal move");
    return PyErr_Occurred() ? NULL : PyErr_NoMemory();
}

/* pattern_features(state, colour, codes) -> bytes: the learned patterns' features
 * (search_patterns.c) of the moves `codes` (point indices) for colour, PATTERN_GROUPS native
 * int32 values per move (numpy.frombuffer reads them; patterns.features is the reference). */
static PyObject *search_pattern_features(PyObject *module, PyObject *args) {
    PyObject *so, *seq;
    int colour;
    if (!PyArg_ParseTuple(args, "OiO", &so, &colour, &seq)) return NULL;
    State *s = as_state(so);
    if (!s) return NULL;
    if (colour != 0 && colour != 1) return PyErr_Format(PyExc_ValueError, "colour must be 0 or 1");
    Py_ssize_t n;
    int32_t *codes = point_codes(seq, s, &n);
    if (!codes) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * PATTERN_GROUPS * (Py_ssize_t)sizeof(int32_t));
    if (!out) {
        PyMem_RawFree(codes);
        return NULL;
    }
    int status = pattern_features(s, colour, codes, (int)n, (int32_t *)PyBytes_AS_STRING(out));
    PyMem_RawFree(codes);
    if (status != PATTERN_OK) {
        Py_DECREF(out);
        return pattern_error(status);
    }
    return out;
}

/* pattern_log_strengths(state, colour, codes, table) -> list of floats: the log strength of
 * each move (search_patterns.c) from `table`, a buffer of PATTERN_TABLE_SIZE native doubles
 * (patterns.PatternWeights.dense_table). */
static PyObject *search_pattern_log_strengths(PyObject *module, PyObject *args) {
    PyObject *so, *seq;
    int colour;
    Py_buffer table;
    if (!PyArg_ParseTuple(args, "OiOy*", &so, &colour, &seq, &table)) return NULL;
    PyObject *result = NULL;
    int32_t *codes = NULL;
    double *out = NULL;
    Py_ssize_t n;
    State *s = as_state(so);
    if (!s) goto done;
    if (colour != 0 && colour != 1) {
        PyErr_Format(PyExc_ValueError, "colour must be 0 or 1");
        goto done;
    }
    if (table.len != (Py_ssize_t)(PATTERN_TABLE_SIZE * sizeof(double))) {
        PyErr_Format(PyExc_ValueError, "table must hold %d doubles", PATTERN_TABLE_SIZE);
        goto done;
    }
    if (!(codes = point_codes(seq, s, &n))) goto done;
    if (!(out = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(double)))) {
        PyErr_NoMemory();
        goto done;
    }
    int status = pattern_log_strengths(s, colour, codes, (int)n, (const double *)table.buf, out);
    result = status == PATTERN_OK ? float_list(out, n) : pattern_error(status);
done:
    PyBuffer_Release(&table);
    PyMem_RawFree(codes);
    PyMem_RawFree(out);
    return result;
}

static PyMethodDef search_functions[] = {
    {"uct_select", (PyCFunction)(void (*)(void))search_uct_select, METH_FASTCALL,
     "uct_select(children, log_parent, uct_c, rave_k, prior_visits, prior_wins) -> best child or None"},
    {"simulate", (PyCFunction)search_simulate, METH_VARARGS,
     "simulate(state, seed, max_moves, komi, territory_scoring, evaluator, config) -> White's result"},
    {"heavy_playout", (PyCFunction)search_heavy_playout, METH_VARARGS,
     "heavy_playout(state, mt_state, max_moves, tactics) -> (played, mt_state)"},
    {"prior_rates", (PyCFunction)search_prior_rates, METH_VARARGS,
     "prior_rates(state, to_move, codes, priors, komi) -> [rate]: the heuristic prior win rates of the moves"},
    {"pattern_features", (PyCFunction)search_pattern_features, METH_VARARGS,
     "pattern_features(state, colour, codes) -> bytes: PATTERN_GROUPS int32 per move"},
    {"pattern_log_strengths", (PyCFunction)search_pattern_log_strengths, METH_VARARGS,
     "pattern_log_strengths(state, colour, codes, table) -> the log strength of each move"},
    {"tree_search", (PyCFunction)(void (*)(void))search_tree_search, METH_VARARGS | METH_KEYWORDS,
     "tree_search(state, colour, mt_state, config, komi, territory_scoring, playouts, max_nodes, priors, "
     "deadline=None, whole=True, tree=None, "
     "helpers=(), stop=None, progress=None, interval=0.5, ownership=False, move_limits=None) -> (simulations, mt_state, nodes, full"
     "[, (white, black, playouts)])"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef search_module = {
    PyModuleDef_HEAD_INIT, "_search", "The native MCTS search (see native_search.py).", -1, search_functions,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__search(void) {
    if (!(str_n = PyUnicode_InternFromString("n")) || !(str_w = PyUnicode_InternFromString("w")) ||
        !(str_rave_n = PyUnicode_InternFromString("rave_n")) || !(str_rave_w = PyUnicode_InternFromString("rave_w")))
        return NULL;
    PyObject *rules = PyImport_ImportModule("margo_gtp.engine._native");
    if (!rules) return NULL;
    PyObject *type = PyObject_GetAttrString(rules, "State");
    Py_DECREF(rules);
    if (!type) return NULL;
    if (!PyType_Check(type) || ((PyTypeObject *)type)->tp_basicsize != (Py_ssize_t)sizeof(StateObject)) {
        Py_DECREF(type);
        PyErr_SetString(PyExc_ImportError,
                        "margo_gtp.players._search was built against another rules core than margo_gtp.engine._native");
        return NULL;
    }
    state_type = (PyTypeObject *)type; /* kept for the life of the process, as the module is */
    if (PyType_Ready(&TreeType) < 0 || PyType_Ready(&StopFlagType) < 0) return NULL;
    PyObject *m = PyModule_Create(&search_module);
    if (m && PyModule_AddIntConstant(m, "NODE_BYTES", (long)sizeof(TreeNode)) < 0) Py_CLEAR(m);
    if (m && PyModule_AddIntConstant(m, "SCORE_BYTES", (long)sizeof(NodeScore)) < 0) Py_CLEAR(m);
    if (m && PyModule_AddIntConstant(m, "MAX_THREADS", MAX_SEARCH_THREADS) < 0) Py_CLEAR(m);
    if (m && PyModule_AddIntConstant(m, "PATTERN_GROUPS", PATTERN_GROUPS) < 0) Py_CLEAR(m);
    if (m && PyModule_AddIntConstant(m, "PATTERN_TABLE_SIZE", PATTERN_TABLE_SIZE) < 0) Py_CLEAR(m);
    if (m && PyModule_AddObjectRef(m, "Tree", (PyObject *)&TreeType) < 0) Py_CLEAR(m);
    if (m && PyModule_AddObjectRef(m, "StopFlag", (PyObject *)&StopFlagType) < 0) Py_CLEAR(m);
    return m;
}
