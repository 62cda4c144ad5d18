/* The Python side of the rules core, shared by the two glue modules (_native.c, which owns
 * the Geometry and State types, and ../players/_search.c, which works on State objects):
 * the Python objects that wrap the plain C Geometry and State of rules_core.h, the mapping
 * from the rules' failure statuses to Python exceptions, and the Mersenne Twister state as
 * random.Random.getstate() gives it. Nothing here decides a rule; nothing in rules_*.c or
 * rules_core.h includes this file (tests/test_native_core.py checks that the rules core
 * has no Python in it).
 */
#ifndef MARGO_NATIVE_GLUE_H
#define MARGO_NATIVE_GLUE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "rules_core.h"

/* _native.Geometry: the point tables of one size and the Python objects a State answers with */
typedef struct {
    PyObject_HEAD
    Geometry geo;
    PyObject *moves; /* tuple: Move per point index */
    PyObject *pass_move, *swap_move;
    PyObject *colours; /* (Colour.WHITE, Colour.BLACK) */
} GeoObject;

/* _native.State: a position with its history; the State's geo points into the GeoObject,
 * which the object keeps alive. _search checks at import that _native's State has this size. */
typedef struct {
    PyObject_HEAD
    GeoObject *geo;
    State state;
} StateObject;

#define BOARD_CHANGED "board changed during random_playout (the generator's random() played or undid a move)"

/* The Python exception of a rules failure status (< 0); NULL, for `return rules_error(st)`.
 * RULES_DRAW_FAILED keeps the exception the draw function set. */
static inline PyObject *rules_error(int status) {
    switch (status) {
    case RULES_NO_MEMORY:
        return PyErr_NoMemory();
    case RULES_DRAW_FAILED:
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "the generator failed without an exception");
        return NULL;
    case RULES_BOARD_CHANGED:
        PyErr_SetString(PyExc_RuntimeError, BOARD_CHANGED);
        return NULL;
    case RULES_LOAD_BOTH_COLOURS:
        PyErr_SetString(PyExc_ValueError, "a point holds both colours");
        return NULL;
    case RULES_LOAD_UNSUPPORTED:
        PyErr_SetString(PyExc_ValueError, "a ball is not supported");
        return NULL;
    default:
        return PyErr_Format(PyExc_SystemError, "the rules core answered status %d", status);
    }
}

/* random.Random.getstate()[1] (625 ints) -> m; -1 with an exception set */
static inline int mt_from_tuple(PyObject *t, MT *m) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 625) {
        PyErr_SetString(PyExc_ValueError, "generator state: a tuple of 625 ints expected (random.Random.getstate()[1])");
        return -1;
    }
    for (int k = 0; k < 624; k++) {
        unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(t, k));
        if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
        if (v > 0xffffffffUL) {
            PyErr_SetString(PyExc_ValueError, "generator state: words must fit 32 bits");
            return -1;
        }
        m->mt[k] = (uint32_t)v;
    }
    long index = PyLong_AsLong(PyTuple_GET_ITEM(t, 624));
    if (index == -1 && PyErr_Occurred()) return -1;
    if (index < 0 || index > 624) {
        PyErr_SetString(PyExc_ValueError, "generator state: index out of range");
        return -1;
    }
    m->index = (int)index;
    return 0;
}

/* m -> the tuple mt_from_tuple reads; NULL with an exception set */
static inline PyObject *mt_to_tuple(const MT *m) {
    PyObject *t = PyTuple_New(625);
    if (!t) return NULL;
    for (int k = 0; k < 624; k++) {
        PyObject *v = PyLong_FromUnsignedLong(m->mt[k]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, v);
    }
    PyObject *v = PyLong_FromLong(m->index);
    if (!v) {
        Py_DECREF(t);
        return NULL;
    }
    PyTuple_SET_ITEM(t, 624, v);
    return t;
}

#endif /* MARGO_NATIVE_GLUE_H */
