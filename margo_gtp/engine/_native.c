/* The Python glue of the native MarGo rules core: the Geometry and State types that
 * margo_gtp/engine/native.py drives (NativeCore). The rules themselves are in
 * rules_geometry.c, rules_position.c, rules_scoring.c and rules_playout.c, declared in
 * rules_core.h (CPython's Modules/ keep an algorithm apart from its glue the same way,
 * e.g. _decimal/libmpdec, expat/pyexpat). Each method here parses its arguments, calls the
 * rules and converts the answer; nothing here decides a rule. No search code: the MCTS
 * evaluator, heavy playout policy and UCT are in margo_gtp/players/_search.c.
 */
#include "rules_core.h"

/* ------------------------------------------------------------------ Geometry type */

static void Geo_dealloc(GeoObject *g) {
    PyMem_RawFree(g->pts);
    PyMem_RawFree(g->walk);
    PyMem_RawFree(g->plane);
    PyMem_RawFree(g->level_mask);
    PyMem_RawFree(g->up_to_level);
    PyMem_RawFree(g->zob[0]);
    PyMem_RawFree(g->zob[1]);
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
    int count = 0;
    for (int l = 0; l < size; l++) count += (size - l) * (size - l);
    int nw = (count + 63) / 64;
    if (!PyTuple_Check(moves) || PyTuple_GET_SIZE(moves) != count) {
        PyErr_Format(PyExc_ValueError, "moves: a tuple of %d moves expected", count);
        return NULL;
    }
    GeoObject *g = (GeoObject *)type->tp_alloc(type, 0);
    if (!g) return NULL;
    g->size = size;
    g->count = count;
    g->nw = nw;
    g->pts = PyMem_RawCalloc(count, sizeof(Pt));
    g->walk = PyMem_RawCalloc(count, sizeof(struct Walk));
    g->plane = PyMem_RawCalloc(nw, sizeof(W));
    g->level_mask = PyMem_RawCalloc((size_t)size * nw, sizeof(W));
    g->up_to_level = PyMem_RawCalloc((size_t)size * nw, sizeof(W));
    g->zob[0] = PyMem_RawCalloc(count, sizeof(uint64_t));
    g->zob[1] = PyMem_RawCalloc(count, sizeof(uint64_t));
    if (!g->pts || !g->walk || !g->plane || !g->level_mask || !g->up_to_level || !g->zob[0] || !g->zob[1]) {
        Py_DECREF(g);
        return PyErr_NoMemory();
    }
    if (read_u64_tuple(zw, g->zob[0], count, "zobrist_white") < 0 ||
        read_u64_tuple(zb, g->zob[1], count, "zobrist_black") < 0 ||
        read_u64_tuple(ztm, g->ztm, 2, "zobrist_to_move") < 0) {
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
    geometry_build(g);
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

static void State_dealloc(StateObject *s) {
    Py_XDECREF(s->geo);
    PyMem_RawFree(s->stack);
    PyMem_RawFree(s->stack_bits);
    PyMem_RawFree(s->pos);
    PyMem_RawFree(s->hkey);
    PyMem_RawFree(s->hcount);
    PyMem_RawFree(s->hused);
    PyMem_RawFree(s->walk);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int state_alloc_tables(StateObject *s) {
    s->walk = PyMem_RawCalloc(s->count + 1, sizeof(int));
    if (!s->walk) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
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
    if (top < 0 || top >= g->size) return PyErr_Format(PyExc_ValueError, "top_level must be 0..%d", g->size - 1);
    if (ko < 0 || ko > 3) return PyErr_Format(PyExc_ValueError, "ko_rule code must be 0..3");
    if (to_move != 0 && to_move != 1) return PyErr_Format(PyExc_ValueError, "to_move must be 0 or 1");
    StateObject *s = (StateObject *)type->tp_alloc(type, 0);
    if (!s) return NULL;
    Py_INCREF(geo);
    s->geo = g;
    s->nw = g->nw;
    s->count = g->count;
    s->all_freedoms = af;
    s->bridge_cutting = bc;
    s->top_level = top;
    s->single_pass = sp;
    s->ko_rule = ko;
    s->top_view = tv;
    s->allow_pass = ap;
    s->swap_on = sw;
    s->fcw = fcw;
    if (state_alloc_tables(s) < 0 || h_resize(s, 64) < 0) {
        Py_DECREF(s);
        return NULL;
    }
    memcpy(BITS(s, B_SUPP), g->plane, s->nw * sizeof(W));
    if (set_root(s, to_move) < 0) {
        Py_DECREF(s);
        return NULL;
    }
    return (PyObject *)s;
}

static PyObject *State_copy(StateObject *s, PyObject *unused) {
    StateObject *o = (StateObject *)StateType.tp_alloc(&StateType, 0);
    if (!o) return NULL;
    /* everything but the object header and the owned buffers */
    size_t head = offsetof(StateObject, geo);
    memcpy((char *)o + head, (char *)s + head, sizeof(StateObject) - head);
    Py_INCREF(o->geo);
    o->stack = NULL;
    o->stack_bits = NULL;
    o->pos = NULL;
    o->hkey = NULL;
    o->hcount = NULL;
    o->hused = NULL;
    o->walk = NULL;
    o->capstack = o->cappos = 0;
    o->hcap = o->hfill = 0;
    if (state_alloc_tables(o) < 0) goto fail;
    if (s->nstack) {
        Py_ssize_t cap = s->nstack + 16;
        o->stack = PyMem_RawMalloc(cap * sizeof(Entry));
        o->stack_bits = PyMem_RawMalloc((size_t)cap * NB * s->nw * sizeof(W));
        if (!o->stack || !o->stack_bits) {
            PyErr_NoMemory();
            goto fail;
        }
        memcpy(o->stack, s->stack, s->nstack * sizeof(Entry));
        memcpy(o->stack_bits, s->stack_bits, (size_t)s->nstack * NB * s->nw * sizeof(W));
        o->capstack = cap;
    }
    {
        Py_ssize_t cap = s->npos + 16;
        o->pos = PyMem_RawMalloc(cap * sizeof(uint64_t));
        if (!o->pos) {
            PyErr_NoMemory();
            goto fail;
        }
        memcpy(o->pos, s->pos, s->npos * sizeof(uint64_t));
        o->cappos = cap;
    }
    o->hkey = PyMem_RawMalloc(s->hcap * sizeof(uint64_t));
    o->hcount = PyMem_RawMalloc(s->hcap * sizeof(int32_t));
    o->hused = PyMem_RawMalloc(s->hcap);
    if (!o->hkey || !o->hcount || !o->hused) {
        PyErr_NoMemory();
        goto fail;
    }
    memcpy(o->hkey, s->hkey, s->hcap * sizeof(uint64_t));
    memcpy(o->hcount, s->hcount, s->hcap * sizeof(int32_t));
    memcpy(o->hused, s->hused, s->hcap);
    o->hcap = s->hcap;
    o->hfill = s->hfill;
    return (PyObject *)o;
fail:
    Py_DECREF(o);
    return NULL;
}

/* reset(to_move): the empty board, history cleared (Board.clear) */
static PyObject *State_reset(StateObject *s, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    memset(s->bits, 0, sizeof(s->bits));
    memcpy(BITS(s, B_SUPP), s->geo->plane, s->nw * sizeof(W));
    s->key = s->bkey = 0;
    if (set_root(s, c) < 0) return NULL;
    Py_RETURN_NONE;
}

/* load(white, black): set the balls and recompute what derives from them (Board._load);
 * the caller then calls set_root. */
static PyObject *State_load(StateObject *s, PyObject *args) {
    PyObject *wo, *bo;
    if (!PyArg_ParseTuple(args, "OO", &wo, &bo)) return NULL;
    int nw = s->nw;
    W wb[MAXW] = {0}, bb[MAXW] = {0};
    if (int_to_bits(wo, wb, nw, s->count) < 0 || int_to_bits(bo, bb, nw, s->count) < 0) return NULL;
    const GeoObject *g = s->geo;
    W occ[MAXW];
    for (int w = 0; w < nw; w++) {
        if (wb[w] & bb[w]) {
            PyErr_SetString(PyExc_ValueError, "a point holds both colours");
            return NULL;
        }
        occ[w] = wb[w] | bb[w];
    }
    for (int i = 0; i < s->count; i++) { /* every ball must be supported */
        if (!TEST(occ, i)) continue;
        const Pt *p = &g->pts[i];
        for (int k = 0; k < p->nsup; k++)
            if (!TEST(occ, p->sup[k])) {
                PyErr_SetString(PyExc_ValueError, "a ball is not supported");
                return NULL;
            }
    }
    memset(s->bits, 0, sizeof(s->bits));
    memcpy(BITS(s, 0), wb, nw * sizeof(W));
    memcpy(BITS(s, 1), bb, nw * sizeof(W));
    uint64_t key = 0, bkey = 0;
    W *buried = BITS(s, B_BURIED), *supp = BITS(s, B_SUPP);
    for (int i = 0; i < s->count; i++) {
        const Pt *p = &g->pts[i];
        if (TEST(occ, i)) {
            int colour = TEST(wb, i) ? 0 : 1;
            key ^= g->zob[colour][i];
            if (p->buried_by >= 0 && TEST(occ, p->buried_by)) {
                SETB(buried, i);
                bkey ^= g->zob[colour][i];
            }
        } else {
            int ok = 1;
            for (int k = 0; k < p->nsup; k++) if (!TEST(occ, p->sup[k])) { ok = 0; break; }
            if (ok) SETB(supp, i);
        }
    }
    s->key = key;
    s->bkey = bkey;
    s->version++;
    each_group_unsettled(s, BITS(s, B_UNS));
    Py_RETURN_NONE;
}

static PyObject *State_set_root(StateObject *s, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    if (set_root(s, c) < 0) return NULL;
    Py_RETURN_NONE;
}

static int parse_code_colour(StateObject *s, PyObject *args, int *code, int *c) {
    PyObject *co;
    if (!PyArg_ParseTuple(args, "iO", code, &co)) return -1;
    if (co == Py_None) {
        *c = s->to_move;
        return 0;
    }
    return parse_colour(co, c);
}

static PyObject *State_play(StateObject *s, PyObject *args) {
    int code, c;
    if (parse_code_colour(s, args, &code, &c) < 0) return NULL;
    Res r;
    int why = check_play(s, code, c, &r);
    if (why) return PyLong_FromLong(why);
    if (commit(s, code, c, code >= 0 ? &r : NULL) < 0) return NULL;
    return PyLong_FromLong(0);
}

static PyObject *State_check(StateObject *s, PyObject *args) {
    int code, c;
    if (parse_code_colour(s, args, &code, &c) < 0) return NULL;
    Res r;
    return PyLong_FromLong(check_play(s, code, c, &r));
}

static PyObject *code_move(StateObject *s, int code) {
    PyObject *m = code >= 0 ? PyTuple_GET_ITEM(s->geo->moves, code)
                            : (code == CODE_PASS ? s->geo->pass_move : s->geo->swap_move);
    Py_INCREF(m);
    return m;
}

/* pop(): undo the last move; returns its Move. IndexError at the root. */
static PyObject *State_pop(StateObject *s, PyObject *unused) {
    if (!s->nstack) {
        PyErr_SetString(PyExc_IndexError, "pop from a board with no moves since the root");
        return NULL;
    }
    int code = s->stack[s->nstack - 1].code;
    undo(s);
    return code_move(s, code);
}

static PyObject *State_legal_moves(StateObject *s, PyObject *arg) {
    int c;
    if (arg == Py_None) c = s->to_move;
    else if (parse_colour(arg, &c) < 0) return NULL;
    PyObject *out = PyList_New(0);
    if (!out || s->end_term != END_NONE) return out;
    for (int i = next_legal_placement(s, c, 0); i >= 0; i = next_legal_placement(s, c, i + 1)) {
        if (PyList_Append(out, PyTuple_GET_ITEM(s->geo->moves, i)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    if (swap_legal(s, c) && PyList_Append(out, s->geo->swap_move) < 0) goto fail;
    if (s->allow_pass && PyList_Append(out, s->geo->pass_move) < 0) goto fail;
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *State_has_legal_placement(StateObject *s, PyObject *arg) {
    int c;
    if (arg == Py_None) c = s->to_move;
    else if (parse_colour(arg, &c) < 0) return NULL;
    return PyBool_FromLong(next_legal_placement(s, c, 0) >= 0);
}

static PyObject *State_swap_legal(StateObject *s, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    return PyBool_FromLong(swap_legal(s, c));
}

/* random_playout(mt_state, max_moves) -> (moves played, new mt_state) */
static PyObject *State_random_playout(StateObject *s, PyObject *args) {
    PyObject *t;
    long max_moves;
    if (!PyArg_ParseTuple(args, "O!l", &PyTuple_Type, &t, &max_moves)) return NULL;
    MT m;
    if (mt_from_tuple(t, &m) < 0) return NULL;
    long played = playout(s, draw_mt, &m, max_moves);
    if (played < 0) return NULL;
    PyObject *nt = mt_to_tuple(&m);
    if (!nt) return NULL;
    return Py_BuildValue("(lN)", played, nt);
}

/* callback_playout(random, max_moves) -> moves played, drawing from random() */
static PyObject *State_callback_playout(StateObject *s, PyObject *args) {
    PyObject *fn;
    long max_moves;
    if (!PyArg_ParseTuple(args, "Ol", &fn, &max_moves)) return NULL;
    if (!PyCallable_Check(fn)) return PyErr_Format(PyExc_TypeError, "random must be callable");
    long played = playout(s, draw_py, fn, max_moves);
    if (played < 0) return NULL;
    return PyLong_FromLong(played);
}

/* seeded_playout(seed, max_moves) -> moves played, with the splitmix64 generator */
static PyObject *State_seeded_playout(StateObject *s, PyObject *args) {
    unsigned long long seed;
    long max_moves;
    if (!PyArg_ParseTuple(args, "Kl", &seed, &max_moves)) return NULL;
    SplitMix g = {seed};
    long played = playout(s, draw_sm, &g, max_moves);
    if (played < 0) return NULL;
    return PyLong_FromLong(played);
}

static PyObject *State_zombie_mask(StateObject *s, PyObject *unused) {
    W z[MAXW];
    zombie_mask(s, z);
    return bits_to_int(z, s->nw);
}

/* territory_masks(zombies or None) -> (white, black) */
static PyObject *State_territory_masks(StateObject *s, PyObject *arg) {
    W z[MAXW] = {0}, t0[MAXW], t1[MAXW];
    if (arg == Py_None) zombie_mask(s, z);
    else if (int_to_bits(arg, z, s->nw, s->count) < 0) return NULL;
    territory(s, z, t0, t1);
    return Py_BuildValue("(NN)", bits_to_int(t0, s->nw), bits_to_int(t1, s->nw));
}

static PyObject *State_territory_score(StateObject *s, PyObject *unused) {
    long out[2];
    territory_score(s, out);
    return Py_BuildValue("(ll)", out[0], out[1]);
}

static int list_cb(StateObject *s, int colour, const W *group, const W *freedoms, void *ctx) {
    PyObject *item = Py_BuildValue("(iNN)", colour, bits_to_int(group, s->nw), bits_to_int(freedoms, s->nw));
    if (!item) return -1;
    int rc = PyList_Append((PyObject *)ctx, item);
    Py_DECREF(item);
    return rc;
}

/* groups(colour or None) -> [(colour, group, freedoms)] (Board._each_group) */
static PyObject *State_groups(StateObject *s, PyObject *arg) {
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
static PyObject *State_history(StateObject *s, PyObject *args) {
    Py_ssize_t start;
    int as_colours = 0;
    if (!PyArg_ParseTuple(args, "n|p", &start, &as_colours)) return NULL;
    if (start < 0) start = 0;
    if (start > s->nstack) start = s->nstack;
    PyObject *out = PyList_New(s->nstack - start);
    if (!out) return NULL;
    for (Py_ssize_t k = start; k < s->nstack; k++) {
        PyObject *item = as_colours
            ? Py_BuildValue("(ON)", PyTuple_GET_ITEM(s->geo->colours, s->stack[k].colour), code_move(s, s->stack[k].code))
            : Py_BuildValue("(iN)", s->stack[k].colour, code_move(s, s->stack[k].code));
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
static PyObject *State_played_points(StateObject *s, PyObject *arg) {
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

static PyObject *State_peek(StateObject *s, PyObject *unused) {
    if (!s->nstack) Py_RETURN_NONE;
    return code_move(s, s->stack[s->nstack - 1].code);
}

static PyObject *State_mask(StateObject *s, PyObject *arg) {
    long k = PyLong_AsLong(arg);
    if (k == -1 && PyErr_Occurred()) return NULL;
    if (k < 0 || k >= NB) return PyErr_Format(PyExc_ValueError, "mask index must be 0..%d", NB - 1);
    return bits_to_int(BITS(s, k), s->nw);
}

static PyObject *State_root_mask(StateObject *s, PyObject *arg) {
    int c;
    if (parse_colour(arg, &c) < 0) return NULL;
    return bits_to_int(s->root + c * MAXW, s->nw);
}

static PyObject *State_get(StateObject *s, PyObject *arg) {
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= s->count) return PyErr_Format(PyExc_IndexError, "point index out of range");
    if (TEST(BITS(s, 0), i)) return PyLong_FromLong(0);
    if (TEST(BITS(s, 1), i)) return PyLong_FromLong(1);
    Py_RETURN_NONE;
}

/* group_at(index) -> (group, freedoms) of the non-buried ball there, or None (Board.group_at) */
static PyObject *State_group_at(StateObject *s, PyObject *arg) {
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= s->count) return PyErr_Format(PyExc_IndexError, "point index out of range");
    W group[MAXW], freedoms[MAXW];
    int colour = TEST(BITS(s, 0), i) ? 0 : 1;
    if (group_at(s, colour, (int)i, group, freedoms) < 0) Py_RETURN_NONE; /* empty or buried */
    return Py_BuildValue("(NN)", bits_to_int(group, s->nw), bits_to_int(freedoms, s->nw));
}

static PyObject *State_counts(StateObject *s, PyObject *unused) {
    return Py_BuildValue("(ii)", popcount_bits(BITS(s, 0), s->nw), popcount_bits(BITS(s, 1), s->nw));
}

/* info() -> (to_move, captured_white, captured_black, passes, swapped, end_term, end_winner,
 *            end_margin, ply, key, buried_key, root_to_move) */
static PyObject *State_info(StateObject *s, PyObject *unused) {
    return Py_BuildValue("(illiiiilnKKi)", s->to_move, s->cap[0], s->cap[1], s->passes, s->swapped, s->end_term,
                         s->end_winner, s->end_margin, s->nstack, (unsigned long long)s->key,
                         (unsigned long long)s->bkey, s->root_to_move);
}

static PyObject *State_get_to_move(StateObject *s, void *unused) { return PyLong_FromLong(s->to_move); }
static PyObject *State_get_ply(StateObject *s, void *unused) { return PyLong_FromSsize_t(s->nstack); }
static PyObject *State_get_key(StateObject *s, void *unused) { return PyLong_FromUnsignedLongLong(s->key); }
static PyObject *State_get_end(StateObject *s, void *unused) { return PyLong_FromLong(s->end_term); }

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
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
