/* The Python glue of the native MarGo rules core: the Geometry and State types that
 * margo_gtp/engine/native.py drives (NativeCore). The rules themselves are plain C, in
 * rules_geometry.c, rules_position.c, rules_scoring.c and rules_playout.c, declared in
 * rules_core.h (CPython's Modules/ keep an algorithm apart from its glue the same way,
 * e.g. _decimal/libmpdec, expat/pyexpat). Each method here parses its arguments, calls the
 * rules and converts the answer, a failure status into an exception (rules_error in
 * native_glue.h); nothing here decides a rule. No search code: the MCTS evaluator, heavy
 * playout policy and UCT are in margo_gtp/players/_search.c.
 */
#include "native_glue.h"

/* ------------------------------------------------------------------ Geometry type */

static void Geo_dealloc(GeoObject *g) {
    geometry_free(&g->geo);
    Py_XDECREF(g->moves);
    Py_XDECREF(g->pass_move);
    Py_XDECREF(g->swap_move);
    Py_XDECREF(g->colours);
    Py_TYPE(g)->tp_free((PyObject *)g);
}

static int read_u64_tuple(PyObject *seq, uint64_t *out, Py_ssize_t n, const char *what) {
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: a tuple of %zd ints expected", what, n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PyTuple_GET_ITEM(seq, k);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError, "%s: ints expected", what);
            return -1;
        }
        unsigned long long v = PyLong_AsUnsignedLongLong(item);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
        out[k] = v;
    }
    return 0;
}

/* Geometry(size, zobrist_white, zobrist_black, zobrist_to_move, moves, pass_move, swap_move, colours) */
static PyObject *Geo_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    int size;
    PyObject *zw, *zb, *ztm, *moves, *pass_move, *swap_move, *colours;
    if (kwds && PyDict_Size(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Geometry takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "iOOOOOOO!", &size, &zw, &zb, &ztm, &moves, &pass_move, &swap_move, &PyTuple_Type,
                          &colours))
        return NULL;
    if (PyTuple_GET_SIZE(colours) != 2) {
        PyErr_SetString(PyExc_ValueError, "colours: a tuple (white, black) expected");
        return NULL;
    }
    if (size < 2 || size > 19) {
        PyErr_Format(PyExc_ValueError, "size must be 2..19, not %d", size);
        return NULL;
    }
    GeoObject *g = (GeoObject *)type->tp_alloc(type, 0);
    if (!g) return NULL;
    int status = geometry_init(&g->geo, size);
    if (status != RULES_OK) {
        Py_DECREF(g);
        return rules_error(status);
    }
    int count = g->geo.count;
    if (!PyTuple_Check(moves) || PyTuple_GET_SIZE(moves) != count) {
        Py_DECREF(g);
        PyErr_Format(PyExc_ValueError, "moves: a tuple of %d moves expected", count);
        return NULL;
    }
    if (read_u64_tuple(zw, g->geo.zob[0], count, "zobrist_white") < 0 ||
        read_u64_tuple(zb, g->geo.zob[1], count, "zobrist_black") < 0 ||
        read_u64_tuple(ztm, g->geo.ztm, 2, "zobrist_to_move") < 0) {
        Py_DECREF(g);
        return NULL;
    }
    Py_INCREF(moves);
    g->moves = moves;
    Py_INCREF(pass_move);
    g->pass_move = pass_move;
    Py_INCREF(swap_move);
    g->swap_move = swap_move;
    Py_INCREF(colours);
    g->colours = colours;
    return (PyObject *)g;
}

static PyTypeObject GeoType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "margo_gtp.engine._native.Geometry",
    .tp_basicsize = sizeof(GeoObject),
    .tp_dealloc = (destructor)Geo_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Precomputed tables of one board size (see geometry.py)",
    .tp_new = Geo_new,
};

/* ------------------------------------------------------------------ Python ints <-> bit sets */

static PyObject *bits_to_int(const W *b, int nw) {
    unsigned char buf[MAXW * 8];
    for (int w = 0; w < nw; w++)
        for (int k = 0; k < 8; k++) buf[w * 8 + k] = (unsigned char)(b[w] >> (8 * k));
    return _PyLong_FromByteArray(buf, (size_t)nw * 8, 1, 0);
}

static int int_to_bits(PyObject *obj, W *b, int nw, int count) {
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "a bit set must be an int");
        return -1;
    }
    if (_PyLong_Sign(obj) < 0) {
        PyErr_SetString(PyExc_ValueError, "a bit set must not be negative");
        return -1;
    }
    if ((Py_ssize_t)_PyLong_NumBits(obj) > count) {
        PyErr_Format(PyExc_ValueError, "bit set has points beyond the %d of this board", count);
        return -1;
    }
    unsigned char buf[MAXW * 8];
#if PY_VERSION_HEX >= 0x030D0000
    if (_PyLong_AsByteArray((PyLongObject *)obj, buf, (size_t)nw * 8, 1, 0, 1) < 0) return -1;
#else
    if (_PyLong_AsByteArray((PyLongObject *)obj, buf, (size_t)nw * 8, 1, 0) < 0) return -1;
#endif
    for (int w = 0; w < nw; w++) {
        W x = 0;
        for (int k = 0; k < 8; k++) x |= (W)buf[w * 8 + k] << (8 * k);
        b[w] = x;
    }
    return 0;
}

/* ------------------------------------------------------------------ State type */

static PyTypeObject StateType;

static void State_dealloc(StateObject *self) {
    state_free(&self->state);
    Py_XDECREF(self->geo);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int parse_colour(PyObject *obj, int *c) {
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v != 0 && v != 1) {
        PyErr_Format(PyExc_ValueError, "colour must be 0 (white) or 1 (black), not %ld", v);
        return -1;
    }
    *c = (int)v;
    return 0;
}

/* State(geometry, all_freedoms, bridge_cutting, top_level, single_pass, ko_rule, top_view,
 *       allow_pass, swap, first_capture_wins, to_move) */
static PyObject *State_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *geo;
    int af, bc, top, sp, ko, tv, ap, sw, fcw, to_move;
    if (kwds && PyDict_Size(kwds)) {
        PyErr_SetString(PyExc_TypeError, "State takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!ppipippppi", &GeoType, &geo, &af, &bc, &top, &sp, &ko, &tv, &ap, &sw, &fcw, &to_move))
        return NULL;
    GeoObject *g = (GeoObject *)geo;
    if (top < 0 || top >= g->geo.size) return PyErr_Format(PyExc_ValueError, "top_level must be 0..%d", g->geo.size - 1);
    if (ko < 0 || ko > 3) return PyErr_Format(PyExc_ValueError, "ko_rule code must be 0..3");
    if (to_move != 0 && to_move != 1) return PyErr_Format(PyExc_ValueError, "to_move must be 0 or 1");
    StateObject *self = (StateObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    Py_INCREF(geo);
    self->geo = g;
    State *s = &self->state;
    s->geo = &g->geo;
    s->all_freedoms = af;
    s->bridge_cutting = bc;
    s->top_level = top;
    s->single_pass = sp;
    s->ko_rule = ko;
    s->top_view = tv;
    s->allow_pass = ap;
    s->swap_on = sw;
    s->fcw = fcw;
    int status = state_start(s, to_move);
    if (status != RULES_OK) {
        Py_DECREF(self);
        return rules_error(status);
    }
    return (PyObject *)self;
}

static PyObject *State_copy(StateObject *self, PyObject *unused) {
    StateObject *o = (StateObject *)StateType.tp_alloc(&StateType, 0);
    if (!o) return NULL;
    Py_INCREF(self->geo);
    o->geo = self->geo;
    int status = state_copy(&o->state, &self->state);
    if (status != RULES_OK) {
        Py_DECREF(o);
        return rules_error(status);
    }
    return (PyObject *)o;
}

/* reset(to_move): the empty board, history cleared (Board.clear) */
static PyObject *State_reset(StateObject *self, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    int status = state_reset(&self->state, c);
    if (status != RULES_OK) return rules_error(status);
    Py_RETURN_NONE;
}

/* load(white, black): set the balls and recompute what derives from them (Board._load);
 * the caller then calls set_root. */
static PyObject *State_load(StateObject *self, PyObject *args) {
    State *s = &self->state;
    PyObject *wo, *bo;
    if (!PyArg_ParseTuple(args, "OO", &wo, &bo)) return NULL;
    W wb[MAXW] = {0}, bb[MAXW] = {0};
    if (int_to_bits(wo, wb, s->nw, s->count) < 0 || int_to_bits(bo, bb, s->nw, s->count) < 0) return NULL;
    int status = state_load(s, wb, bb);
    if (status != RULES_OK) return rules_error(status);
    Py_RETURN_NONE;
}

static PyObject *State_set_root(StateObject *self, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    int status = set_root(&self->state, c);
    if (status != RULES_OK) return rules_error(status);
    Py_RETURN_NONE;
}

static int parse_code_colour(const State *s, PyObject *args, int *code, int *c) {
    PyObject *co;
    if (!PyArg_ParseTuple(args, "iO", code, &co)) return -1;
    if (co == Py_None) {
        *c = s->to_move;
        return 0;
    }
    return parse_colour(co, c);
}

static PyObject *State_play(StateObject *self, PyObject *args) {
    State *s = &self->state;
    int code, c;
    if (parse_code_colour(s, args, &code, &c) < 0) return NULL;
    Res r;
    int why = check_play(s, code, c, &r);
    if (why != RULES_OK) return PyLong_FromLong(why); /* native.py words the reason */
    int status = commit(s, code, c, code >= 0 ? &r : NULL);
    if (status != RULES_OK) return rules_error(status);
    return PyLong_FromLong(RULES_OK);
}

static PyObject *State_check(StateObject *self, PyObject *args) {
    State *s = &self->state;
    int code, c;
    if (parse_code_colour(s, args, &code, &c) < 0) return NULL;
    Res r;
    return PyLong_FromLong(check_play(s, code, c, &r));
}

static PyObject *code_move(const GeoObject *g, int code) {
    PyObject *m = code >= 0 ? PyTuple_GET_ITEM(g->moves, code) : (code == CODE_PASS ? g->pass_move : g->swap_move);
    Py_INCREF(m);
    return m;
}

/* pop(): undo the last move; returns its Move. IndexError at the root. */
static PyObject *State_pop(StateObject *self, PyObject *unused) {
    State *s = &self->state;
    if (!s->nstack) {
        PyErr_SetString(PyExc_IndexError, "pop from a board with no moves since the root");
        return NULL;
    }
    int code = s->stack[s->nstack - 1].code;
    undo(s);
    return code_move(self->geo, code);
}

static PyObject *State_legal_moves(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    int c;
    if (arg == Py_None) c = s->to_move;
    else if (parse_colour(arg, &c) < 0) return NULL;
    PyObject *out = PyList_New(0);
    if (!out || s->end_term != END_NONE) return out;
    for (int i = next_legal_placement(s, c, 0); i >= 0; i = next_legal_placement(s, c, i + 1)) {
        if (PyList_Append(out, PyTuple_GET_ITEM(self->geo->moves, i)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    if (swap_legal(s, c) && PyList_Append(out, self->geo->swap_move) < 0) goto fail;
    if (s->allow_pass && PyList_Append(out, self->geo->pass_move) < 0) goto fail;
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *State_has_legal_placement(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    int c;
    if (arg == Py_None) c = s->to_move;
    else if (parse_colour(arg, &c) < 0) return NULL;
    return PyBool_FromLong(next_legal_placement(s, c, 0) >= 0);
}

static PyObject *State_swap_legal(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    return PyBool_FromLong(swap_legal(s, c));
}

/* random_playout(mt_state, max_moves) -> (moves played, new mt_state) */
static PyObject *State_random_playout(StateObject *self, PyObject *args) {
    State *s = &self->state;
    PyObject *t;
    long max_moves;
    if (!PyArg_ParseTuple(args, "O!l", &PyTuple_Type, &t, &max_moves)) return NULL;
    MT m;
    if (mt_from_tuple(t, &m) < 0) return NULL;
    long played = playout(s, draw_mt, &m, max_moves);
    if (played < 0) return rules_error((int)played);
    PyObject *nt = mt_to_tuple(&m);
    if (!nt) return NULL;
    return Py_BuildValue("(lN)", played, nt);
}

/* Any other generator: call its random() (a Python callable); an error, or a value outside
 * [0, 1), leaves a Python exception set and answers -1 (the playout stops with
 * RULES_DRAW_FAILED). */
static double draw_py(void *fn) {
    PyObject *v = PyObject_CallNoArgs((PyObject *)fn);
    if (!v) return -1.0;
    double x = PyFloat_AsDouble(v);
    Py_DECREF(v);
    if (x == -1.0 && PyErr_Occurred()) return -1.0;
    if (!(x >= 0.0 && x < 1.0)) {
        PyErr_SetString(PyExc_ValueError, "random() returned a value outside [0, 1)");
        return -1.0;
    }
    return x;
}

/* callback_playout(random, max_moves) -> moves played, drawing from random() */
static PyObject *State_callback_playout(StateObject *self, PyObject *args) {
    State *s = &self->state;
    PyObject *fn;
    long max_moves;
    if (!PyArg_ParseTuple(args, "Ol", &fn, &max_moves)) return NULL;
    if (!PyCallable_Check(fn)) return PyErr_Format(PyExc_TypeError, "random must be callable");
    long played = playout(s, draw_py, fn, max_moves);
    if (played < 0) return rules_error((int)played);
    return PyLong_FromLong(played);
}

/* seeded_playout(seed, max_moves) -> moves played, with the splitmix64 generator */
static PyObject *State_seeded_playout(StateObject *self, PyObject *args) {
    State *s = &self->state;
    unsigned long long seed;
    long max_moves;
    if (!PyArg_ParseTuple(args, "Kl", &seed, &max_moves)) return NULL;
    SplitMix g = {seed};
    long played = playout(s, draw_sm, &g, max_moves);
    if (played < 0) return rules_error((int)played);
    return PyLong_FromLong(played);
}

static PyObject *State_zombie_mask(StateObject *self, PyObject *unused) {
    State *s = &self->state;
    W z[MAXW];
    zombie_mask(s, z);
    return bits_to_int(z, s->nw);
}

/* territory_masks(zombies or None) -> (white, black) */
static PyObject *State_territory_masks(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    W z[MAXW] = {0}, t0[MAXW], t1[MAXW];
    if (arg == Py_None) zombie_mask(s, z);
    else if (int_to_bits(arg, z, s->nw, s->count) < 0) return NULL;
    territory(s, z, t0, t1);
    return Py_BuildValue("(NN)", bits_to_int(t0, s->nw), bits_to_int(t1, s->nw));
}

static PyObject *State_territory_score(StateObject *self, PyObject *unused) {
    State *s = &self->state;
    long out[2];
    territory_score(s, out);
    return Py_BuildValue("(ll)", out[0], out[1]);
}

static int list_cb(State *s, int colour, const W *group, const W *freedoms, void *ctx) {
    PyObject *item = Py_BuildValue("(iNN)", colour, bits_to_int(group, s->nw), bits_to_int(freedoms, s->nw));
    if (!item) return -1;
    int rc = PyList_Append((PyObject *)ctx, item);
    Py_DECREF(item);
    return rc;
}

/* groups(colour or None) -> [(colour, group, freedoms)] (Board._each_group) */
static PyObject *State_groups(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    int lo = 0, hi = 1;
    if (arg != Py_None) {
        int c;
        if (parse_colour(arg, &c) < 0) return NULL;
        lo = hi = c;
    }
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (int c = lo; c <= hi; c++) {
        if (each_group(s, c, list_cb, out) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* history(start, as_colours) -> [(colour, Move)] for the moves after the first `start`;
 * colours as ints, or as the Geometry's colour objects when as_colours is true */
static PyObject *State_history(StateObject *self, PyObject *args) {
    State *s = &self->state;
    Py_ssize_t start;
    int as_colours = 0;
    if (!PyArg_ParseTuple(args, "n|p", &start, &as_colours)) return NULL;
    if (start < 0) start = 0;
    if (start > s->nstack) start = s->nstack;
    PyObject *out = PyList_New(s->nstack - start);
    if (!out) return NULL;
    for (Py_ssize_t k = start; k < s->nstack; k++) {
        PyObject *item = as_colours
            ? Py_BuildValue("(ON)", PyTuple_GET_ITEM(self->geo->colours, s->stack[k].colour), code_move(self->geo, s->stack[k].code))
            : Py_BuildValue("(iN)", s->stack[k].colour, code_move(self->geo, s->stack[k].code));
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k - start, item);
    }
    return out;
}

/* played_points(start) -> (white set, black set) of the point indices placed after ply
 * `start` (Board.played_points_since: the AMAF sets of MCTS, without Move objects). */
static PyObject *State_played_points(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    Py_ssize_t start = PyLong_AsSsize_t(arg);
    if (start == -1 && PyErr_Occurred()) return NULL;
    if (start < 0) start = 0;
    PyObject *sets[2] = {PySet_New(NULL), PySet_New(NULL)};
    if (!sets[0] || !sets[1]) goto fail;
    for (Py_ssize_t k = start; k < s->nstack; k++) {
        if (s->stack[k].code < 0) continue;
        PyObject *point = PyLong_FromLong(s->stack[k].code);
        if (!point) goto fail;
        int err = PySet_Add(sets[s->stack[k].colour], point);
        Py_DECREF(point);
        if (err < 0) goto fail;
    }
    return Py_BuildValue("(NN)", sets[0], sets[1]);
fail:
    Py_XDECREF(sets[0]);
    Py_XDECREF(sets[1]);
    return NULL;
}

static PyObject *State_peek(StateObject *self, PyObject *unused) {
    State *s = &self->state;
    if (!s->nstack) Py_RETURN_NONE;
    return code_move(self->geo, s->stack[s->nstack - 1].code);
}

static PyObject *State_mask(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    long k = PyLong_AsLong(arg);
    if (k == -1 && PyErr_Occurred()) return NULL;
    if (k < 0 || k >= NB) return PyErr_Format(PyExc_ValueError, "mask index must be 0..%d", NB - 1);
    return bits_to_int(BITS(s, k), s->nw);
}

static PyObject *State_root_mask(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    return bits_to_int(s->root + c * MAXW, s->nw);
}

static PyObject *State_get(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= s->count) return PyErr_Format(PyExc_IndexError, "point index out of range");
    if (TEST(BITS(s, 0), i)) return PyLong_FromLong(0);
    if (TEST(BITS(s, 1), i)) return PyLong_FromLong(1);
    Py_RETURN_NONE;
}

/* group_at(index) -> (group, freedoms) of the non-buried ball there, or None (Board.group_at) */
static PyObject *State_group_at(StateObject *self, PyObject *arg) {
    State *s = &self->state;
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= s->count) return PyErr_Format(PyExc_IndexError, "point index out of range");
    W group[MAXW], freedoms[MAXW];
    int colour = TEST(BITS(s, 0), i) ? 0 : 1;
    if (group_at(s, colour, (int)i, group, freedoms) < 0) Py_RETURN_NONE; /* empty or buried */
    return Py_BuildValue("(NN)", bits_to_int(group, s->nw), bits_to_int(freedoms, s->nw));
}

static PyObject *State_counts(StateObject *self, PyObject *unused) {
    State *s = &self->state;
    return Py_BuildValue("(ii)", popcount_bits(BITS(s, 0), s->nw), popcount_bits(BITS(s, 1), s->nw));
}

/* info() -> (to_move, captured_white, captured_black, passes, swapped, end_term, end_winner,
 *            end_margin, ply, key, buried_key, root_to_move) */
static PyObject *State_info(StateObject *self, PyObject *unused) {
    State *s = &self->state;
    return Py_BuildValue("(illiiiilnKKi)", s->to_move, s->cap[0], s->cap[1], s->passes, s->swapped, s->end_term,
                         s->end_winner, s->end_margin, s->nstack, (unsigned long long)s->key,
                         (unsigned long long)s->bkey, s->root_to_move);
}

static PyObject *State_get_to_move(StateObject *self, void *unused) { State *s = &self->state; return PyLong_FromLong(s->to_move); }
static PyObject *State_get_ply(StateObject *self, void *unused) { State *s = &self->state; return PyLong_FromSsize_t(s->nstack); }
static PyObject *State_get_key(StateObject *self, void *unused) { State *s = &self->state; return PyLong_FromUnsignedLongLong(s->key); }
static PyObject *State_get_end(StateObject *self, void *unused) { State *s = &self->state; return PyLong_FromLong(s->end_term); }

static PyMethodDef State_methods[] = {
    {"copy", (PyCFunction)State_copy, METH_NOARGS, "an independent copy, history included"},
    {"reset", (PyCFunction)State_reset, METH_O, "reset(to_move): the empty board"},
    {"load", (PyCFunction)State_load, METH_VARARGS, "load(white, black): set the balls (then set_root)"},
    {"set_root", (PyCFunction)State_set_root, METH_O, "set_root(to_move): the position becomes the root"},
    {"play", (PyCFunction)State_play, METH_VARARGS, "play(code, colour|None) -> 0 or the reason code"},
    {"check", (PyCFunction)State_check, METH_VARARGS, "check(code, colour|None) -> 0 or the reason code"},
    {"pop", (PyCFunction)State_pop, METH_NOARGS, "undo the last move; returns it"},
    {"peek", (PyCFunction)State_peek, METH_NOARGS, "the last move or None"},
    {"legal_moves", (PyCFunction)State_legal_moves, METH_O, "legal_moves(colour|None) -> [Move]"},
    {"has_legal_placement", (PyCFunction)State_has_legal_placement, METH_O, "has_legal_placement(colour|None)"},
    {"swap_legal", (PyCFunction)State_swap_legal, METH_O, "swap_legal(colour)"},
    {"random_playout", (PyCFunction)State_random_playout, METH_VARARGS,
     "random_playout(mt_state, max_moves) -> (played, mt_state)"},
    {"callback_playout", (PyCFunction)State_callback_playout, METH_VARARGS,
     "callback_playout(random, max_moves) -> played (any generator's random())"},
    {"seeded_playout", (PyCFunction)State_seeded_playout, METH_VARARGS,
     "seeded_playout(seed, max_moves) -> played (splitmix64 generator)"},
    {"zombie_mask", (PyCFunction)State_zombie_mask, METH_NOARGS, "zombies as a bit set"},
    {"territory_masks", (PyCFunction)State_territory_masks, METH_O, "territory_masks(zombies|None)"},
    {"territory_score", (PyCFunction)State_territory_score, METH_NOARGS, "(white, black) R19 counts, no komi"},
    {"groups", (PyCFunction)State_groups, METH_O, "groups(colour|None) -> [(colour, group, freedoms)]"},
    {"history", (PyCFunction)State_history, METH_VARARGS, "history(start, as_colours=False) -> [(colour, Move)]"},
    {"played_points", (PyCFunction)State_played_points, METH_O, "(white, black) sets of point indices placed after ply"},
    {"mask", (PyCFunction)State_mask, METH_O, "mask(k): 0 white, 1 black, 2 buried, 3 supported empty, 4 unsettled"},
    {"root_mask", (PyCFunction)State_root_mask, METH_O, "root_mask(colour)"},
    {"get", (PyCFunction)State_get, METH_O, "get(index) -> 0, 1 or None"},
    {"group_at", (PyCFunction)State_group_at, METH_O, "group_at(index) -> (group, freedoms) or None"},
    {"counts", (PyCFunction)State_counts, METH_NOARGS, "(white balls, black balls)"},
    {"info", (PyCFunction)State_info, METH_NOARGS, "the scalar state as a tuple"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef State_getset[] = {
    {"to_move", (getter)State_get_to_move, NULL, "colour to move (0 white, 1 black)", NULL},
    {"ply", (getter)State_get_ply, NULL, "moves since the root", NULL},
    {"key", (getter)State_get_key, NULL, "Zobrist key of all balls", NULL},
    {"end", (getter)State_get_end, NULL, "0 playing, 1 two passes, 2 first capture", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "margo_gtp.engine._native.State",
    .tp_basicsize = sizeof(StateObject),
    .tp_dealloc = (destructor)State_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A MarGo position with its history (the state of board.Board, in C)",
    .tp_methods = State_methods,
    .tp_getset = State_getset,
    .tp_new = State_new,
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native", "The native MarGo rules core (see native.py).", -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&GeoType) < 0 || PyType_Ready(&StateType) < 0) return NULL;
    PyObject *m = PyModule_Create(&native_module);
    if (!m) return NULL;
    Py_INCREF(&GeoType);
    if (PyModule_AddObject(m, "Geometry", (PyObject *)&GeoType) < 0) goto fail;
    Py_INCREF(&StateType);
    if (PyModule_AddObject(m, "State", (PyObject *)&StateType) < 0) goto fail;
    if (PyModule_AddIntConstant(m, "MAX_WORDS", MAXW) < 0) goto fail;
    /* the reasons State.play and State.check answer, by their rules_core.h names */
    static const struct { const char *name; int code; } reasons[] = {
        {"RULES_OK", RULES_OK},
        {"RULES_ILLEGAL_GAME_OVER", RULES_ILLEGAL_GAME_OVER},
        {"RULES_ILLEGAL_PASS", RULES_ILLEGAL_PASS},
        {"RULES_ILLEGAL_SWAP", RULES_ILLEGAL_SWAP},
        {"RULES_ILLEGAL_OFF_BOARD", RULES_ILLEGAL_OFF_BOARD},
        {"RULES_ILLEGAL_OCCUPIED", RULES_ILLEGAL_OCCUPIED},
        {"RULES_ILLEGAL_UNSUPPORTED", RULES_ILLEGAL_UNSUPPORTED},
        {"RULES_ILLEGAL_ABOVE_TOP", RULES_ILLEGAL_ABOVE_TOP},
        {"RULES_ILLEGAL_SUICIDE", RULES_ILLEGAL_SUICIDE},
    };
    for (size_t k = 0; k < sizeof(reasons) / sizeof(reasons[0]); k++)
        if (PyModule_AddIntConstant(m, reasons[k].name, reasons[k].code) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
