/* The Python glue of the native MCTS search (margo_gtp.players._search): parses arguments,
 * calls search_eval.c, search_policy.c and search_uct.c, converts the answers. Used by
 * margo_gtp/players/native_search.py; mcts.py and playout_policy.py stay the readable
 * reference and the fallback (PEP 399).
 *
 * The positions it works on are margo_gtp.engine._native.State objects (NativeBoard's
 * state): the rules core owns that type, this module checks that an argument is one.
 * Its rules code is the engine's own sources compiled in here too (setup.py), so both
 * extensions must come from one build: at import, the State type's size must equal the
 * StateObject this module was compiled with, else ImportError (and the Python search runs).
 */
#include "search_core.h"

static PyTypeObject *state_type; /* margo_gtp.engine._native.State */

static StateObject *as_state(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, state_type)) {
        PyErr_Format(PyExc_TypeError, "a margo_gtp.engine._native.State expected, not %.100s", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return (StateObject *)obj;
}

/* heavy_playout(state, mt_state, max_moves, tactics) -> (moves played, new mt_state) */
static PyObject *search_heavy_playout(PyObject *module, PyObject *args) {
    PyObject *so, *t;
    long max_moves;
    double tactics;
    if (!PyArg_ParseTuple(args, "OO!ld", &so, &PyTuple_Type, &t, &max_moves, &tactics)) return NULL;
    StateObject *s = as_state(so);
    if (!s) return NULL;
    MT m;
    if (mt_from_tuple(t, &m) < 0) return NULL;
    long played = heavy_playout(s, &m, max_moves, tactics);
    if (played < 0) return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    PyObject *nt = mt_to_tuple(&m);
    if (!nt) return NULL;
    return Py_BuildValue("(lN)", played, nt);
}

/* simulate(state, seed, max_moves, komi, territory_scoring, evaluator, params) -> White's
 * result: a splitmix64 playout of at most max_moves moves, then the exact result if the
 * game is over, else the evaluator (0 heuristic, 1 territory sign). */
static PyObject *search_simulate(PyObject *module, PyObject *args) {
    PyObject *so;
    unsigned long long seed;
    long max_moves;
    double komi;
    int territory_scoring, evaluator;
    double prm[6];
    if (!PyArg_ParseTuple(args, "OKldpi(dddddd)", &so, &seed, &max_moves, &komi, &territory_scoring, &evaluator,
                          &prm[0], &prm[1], &prm[2], &prm[3], &prm[4], &prm[5]))
        return NULL;
    StateObject *s = as_state(so);
    if (!s) return NULL;
    if (evaluator != 0 && evaluator != 1) return PyErr_Format(PyExc_ValueError, "evaluator must be 0 or 1");
    double result = simulate(s, (uint64_t)seed, max_moves, komi, territory_scoring, evaluator, prm);
    if (result < -1.5) return NULL;
    return PyFloat_FromDouble(result);
}

/* uct_select(children, log_parent, uct_c, rave_k, prior_visits, prior_wins) -> the child of
 * highest UCT+RAVE score (uct_score), the first on ties, or None if no score exceeds -1.0:
 * the selection loop of MctsPlayer._descend, reading each child's n, w, rave_n and rave_w. */
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

static PyMethodDef search_functions[] = {
    {"uct_select", (PyCFunction)(void (*)(void))search_uct_select, METH_FASTCALL,
     "uct_select(children, log_parent, uct_c, rave_k, prior_visits, prior_wins) -> best child or None"},
    {"simulate", (PyCFunction)search_simulate, METH_VARARGS,
     "simulate(state, seed, max_moves, komi, territory_scoring, evaluator, params) -> White's result"},
    {"heavy_playout", (PyCFunction)search_heavy_playout, METH_VARARGS,
     "heavy_playout(state, mt_state, max_moves, tactics) -> (played, mt_state)"},
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
    return PyModule_Create(&search_module);
}
