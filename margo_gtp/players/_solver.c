/* The Python glue of the exact solver (margo_gtp.players._solver): one type, Solver, over
 * the plain C solver of solver.c (solver_core.h). Used by margo_gtp/players/solver.py; the
 * independent reference is brute_force.py, which shares no code with it.
 *
 * The solver builds its own geometry and state (the default rules, its own Zobrist keys),
 * so it needs no object of the engine's extension: a line is given as point codes (the flat
 * point index of geometry.py) and replayed from the empty board, history included.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "solver_core.h"

#include <limits.h>

typedef struct {
    PyObject_HEAD
    Solver solver;
    int busy; /* a search runs without the GIL: a second call from another thread waits for none */
} SolverObject;

static void Solver_dealloc(SolverObject *self) {
    solver_free(&self->solver);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Solver(size, table_bits) */
static PyObject *Solver_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    int size, bits;
    if (kwds && PyDict_Size(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Solver takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "ii", &size, &bits)) return NULL;
    if (size < 2 || size > SOLVER_MAX_SIZE)
        return PyErr_Format(PyExc_ValueError, "the solver takes sizes 2..%d, not %d", SOLVER_MAX_SIZE, size);
    if (bits < 4 || bits > 30) return PyErr_Format(PyExc_ValueError, "table_bits must be 4..30, not %d", bits);
    SolverObject *self = (SolverObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    if (solver_init(&self->solver, size, bits) != RULES_OK) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static int claim(SolverObject *self) {
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this solver is already searching");
        return -1;
    }
    self->busy = 1;
    return 0;
}

/* The line replayed from the empty board; -1 with ValueError naming the first illegal move. */
static int replay(SolverObject *self, PyObject *line) {
    PyObject *codes = PySequence_Fast(line, "the line must be a sequence of point codes");
    if (!codes) return -1;
    int status = solver_reset(&self->solver);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(codes);
    for (Py_ssize_t k = 0; k < n && status == RULES_OK; k++) {
        long code = PyLong_AsLong(PySequence_Fast_GET_ITEM(codes, k));
        if (code == -1 && PyErr_Occurred()) {
            Py_DECREF(codes);
            return -1;
        }
        status = solver_play(&self->solver, code < 0 || code > INT_MAX ? self->solver.geo.count : (int)code);
        if (status > 0) {
            Py_DECREF(codes);
            PyErr_Format(PyExc_ValueError, "move %zd of the line (point code %ld) is illegal", k + 1, code);
            return -1;
        }
    }
    Py_DECREF(codes);
    if (status != RULES_OK) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* solve(line, alpha, beta, node_limit, first_horizon=0) -> (value, best, finished): the
 * position after the line, solved within [alpha, beta] (solver_search); node_limit 0 for
 * none; first_horizon, when deeper than the first round's, where a search that is not the
 * unfinished one's continuation starts its rounds (a resumed run's checkpoint). */
static PyObject *Solver_solve(SolverObject *self, PyObject *args) {
    PyObject *line;
    int alpha, beta, first_horizon = 0;
    unsigned long long limit;
    if (!PyArg_ParseTuple(args, "OiiK|i", &line, &alpha, &beta, &limit, &first_horizon)) return NULL;
    if (alpha >= beta || alpha < -SOLVER_INF || beta > SOLVER_INF)
        return PyErr_Format(PyExc_ValueError, "the window needs -%d <= alpha < beta <= %d", SOLVER_INF, SOLVER_INF);
    if (first_horizon < 0 || first_horizon >= SOLVER_MAX_PLY)
        return PyErr_Format(PyExc_ValueError, "first_horizon must be 0..%d", SOLVER_MAX_PLY - 1);
    if (claim(self) < 0) return NULL;
    if (replay(self, line) < 0) {
        self->busy = 0;
        return NULL;
    }
    Solver *sv = &self->solver;
    sv->node_limit = limit ? sv->nodes + limit : 0;
    sv->first_horizon = first_horizon;
    int best, value;
    Py_BEGIN_ALLOW_THREADS
    value = solver_search(sv, alpha, beta, &best);
    Py_END_ALLOW_THREADS
    sv->first_horizon = 0;
    self->busy = 0;
    if (sv->too_deep) return PyErr_Format(PyExc_RuntimeError, "a line went past %d plies", SOLVER_MAX_PLY);
    if (sv->aborted && !(limit && sv->nodes > sv->node_limit)) return PyErr_NoMemory();
    return Py_BuildValue("iiO", value, best, sv->aborted ? Py_False : Py_True);
}

/* table() -> bytes: the transposition table as it is in memory (the checkpoint) */
static PyObject *Solver_table(SolverObject *self, PyObject *unused) {
    Solver *sv = &self->solver;
    return PyBytes_FromStringAndSize((const char *)sv->table, (Py_ssize_t)((sv->table_mask + 1) * sizeof(SolverEntry)));
}

/* load_table(bytes): a table written by table() of a solver of the same size and bits */
static PyObject *Solver_load_table(SolverObject *self, PyObject *arg) {
    Solver *sv = &self->solver;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    size_t want = (sv->table_mask + 1) * sizeof(SolverEntry);
    if ((size_t)view.len != want) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "a table of %zu bytes expected, not %zd", want, view.len);
    }
    if (self->busy) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_RuntimeError, "this solver is already searching");
        return NULL;
    }
    memcpy(sv->table, view.buf, want);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* table_used() -> the number of filled slots */
static PyObject *Solver_table_used(SolverObject *self, PyObject *unused) {
    Solver *sv = &self->solver;
    size_t used = 0;
    for (size_t k = 0; k <= sv->table_mask; k++) used += sv->table[k].key != 0;
    return PyLong_FromSize_t(used);
}

static PyObject *Solver_get_nodes(SolverObject *self, void *closure) {
    return PyLong_FromUnsignedLongLong(self->solver.nodes);
}

static PyObject *Solver_get_deepest(SolverObject *self, void *closure) {
    return PyLong_FromLong(self->solver.deepest);
}

static PyObject *Solver_get_horizon(SolverObject *self, void *closure) {
    return PyLong_FromLong(self->solver.horizon);
}

static PyObject *Solver_get_size(SolverObject *self, void *closure) {
    return PyLong_FromLong(self->solver.geo.size);
}

static PyMethodDef Solver_methods[] = {
    {"solve", (PyCFunction)Solver_solve, METH_VARARGS, "solve(line, alpha, beta, node_limit) -> (value, best, finished)"},
    {"table", (PyCFunction)Solver_table, METH_NOARGS, "the transposition table as bytes"},
    {"load_table", (PyCFunction)Solver_load_table, METH_O, "load a table written by table()"},
    {"table_used", (PyCFunction)Solver_table_used, METH_NOARGS, "filled table slots"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Solver_getset[] = {
    {"nodes", (getter)Solver_get_nodes, NULL, "nodes searched so far, all calls together", NULL},
    {"deepest", (getter)Solver_get_deepest, NULL, "the longest line searched so far, in plies", NULL},
    {"horizon", (getter)Solver_get_horizon, NULL,
     "the horizon of the round running or last run, in plies from its root (0 before any search)", NULL},
    {"size", (getter)Solver_get_size, NULL, "the board size", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "margo_gtp.players._solver.Solver",
    .tp_basicsize = sizeof(SolverObject),
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The exact solver of a small board under the default rules (solver_core.h)",
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
    .tp_new = Solver_new,
};

static struct PyModuleDef solver_module = {
    PyModuleDef_HEAD_INIT, "_solver", "The exact solver of small boards (see solver.py).", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__solver(void) {
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *module = PyModule_Create(&solver_module);
    if (!module) return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(module, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(module);
        return NULL;
    }
    PyModule_AddIntConstant(module, "MAX_SIZE", SOLVER_MAX_SIZE);
    PyModule_AddIntConstant(module, "INF", SOLVER_INF);
    PyModule_AddIntConstant(module, "MAX_PLY", SOLVER_MAX_PLY);
    return module;
}
