/* vecloop.py's element loops in C, for vector lengths where unrolling every element
 * into Python statements no longer pays (vl above smallvec's MAX_VL, e.g. e32 m8's 32).
 *
 * A `Body` holds one iteration's element-wise vector instructions as a list of
 * (op, vd, a, b, c) records over the vector register file (a float32 buffer the model
 * owns) and a few scalar slots (the f registers the instructions read, set at entry).
 * `step()` runs them once over elements 0..vl-1, in program order, with exactly the
 * arithmetic of vecloop.py's generated statements (_product, _sum, _fma, minmax, moves):
 * binary64 operations on binary32 operands, one rounding to binary32, NX from the
 * rounding or from TwoSum's error term, and the same "simple path" conditions. An
 * element leaving that path abandons the iteration: the registers it wrote are put back
 * as they were at its start and step() returns 1, as vecloop.py's `break` leaves its
 * fresh names unused. Built on first use by simulators/core/native.py with
 * -ffp-contract=off, so no multiply-add is fused behind our back.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <math.h>

/* the op codes vecloop.py emits (C_OPS there); flags in bits 4.. */
enum { MUL = 0, ADD = 1, FMA = 2, MIN = 3, MAX = 4, MOV = 5 };
enum { NEG_A = 16, NEG_B = 32 };

static const double BIG = 0x1p127, TINY = 0x1p-126;

typedef struct {
    PyObject_HEAD
    Py_buffer reg;          /* the vector register file, float32 */
    int *ops;               /* n records of 5 ints */
    Py_ssize_t n, vl;
    int *spans;             /* (start, length) in elements of each register group written */
    Py_ssize_t nspans, saved;
    float *backup;          /* the written groups' elements at the iteration's start */
    double scalar[32];      /* operands named by a < 0: scalar[-1 - a] */
    int nx;
} Body;

static inline int in_range(double x, int zero) {
    return (TINY <= x && x < BIG) || (-BIG < x && x <= -TINY) || (zero && x == 0.0);
}

static inline double operand(const Body *b, const float *F, int ref, Py_ssize_t e) {
    return ref < 0 ? b->scalar[-1 - ref] : (double)F[ref + e];
}

/* one instruction over elements 0..vl-1; 0, or 1 if an element leaves the simple path */
static int run_op(Body *b, float *F, const int *r) {
    int op = r[0] & 15, d = r[1];
    double sa = (r[0] & NEG_A) ? -1.0 : 1.0, sb = (r[0] & NEG_B) ? -1.0 : 1.0;
    for (Py_ssize_t e = 0; e < b->vl; e++) {
        double x = operand(b, F, r[2], e), y = op == MOV ? 0.0 : operand(b, F, r[3], e);
        float out;
        switch (op) {
        case MUL: {                              /* _product: exact in binary64 */
            double p = x * y;
            if (!in_range(p, 1)) return 1;
            out = (float)p;
            if ((double)out != p) b->nx = 1;
            break;
        }
        case ADD: {                              /* _sum(p, q), either maybe negated */
            double p = sa * x, q = sb * y, s = p + q;
            if (!in_range(s, 1)) return 1;
            out = (float)s;
            if (!b->nx) {
                double bb = s - p;
                if ((double)out != s || (p - (s - bb)) + (q - bb) != 0.0) b->nx = 1;
            }
            break;
        }
        case FMA: {                              /* _fma: p = +-x*y exact, z = +-c */
            double p = sa * (x * y), z = sb * operand(b, F, r[4], e), s = p + z;
            if (!in_range(s, 0)) return 1;
            out = (float)s;
            double bb = s - p;
            if ((p - (s - bb)) + (z - bb) != 0.0) {
                double o = s + (s - (double)out);     /* the other neighbour if s is a midpoint */
                if ((double)out != s && (double)(float)o == o) return 1;
                b->nx = 1;
            } else if ((double)out != s) {
                b->nx = 1;
            }
            break;
        }
        case MIN:                                /* equal operands: the negative zero */
            out = (float)((x < y || (x == y && copysign(1.0, x) < 0)) ? x : y);
            break;
        case MAX:                                /* equal operands: the positive zero */
            out = (float)((x > y || (x == y && copysign(1.0, x) > 0)) ? x : y);
            break;
        default:                                 /* MOV */
            out = (float)x;
        }
        F[d + e] = out;
    }
    return 0;
}

static void save(Body *b, const float *F) {
    float *dst = b->backup;
    for (Py_ssize_t k = 0; k < b->nspans; k++) {
        memcpy(dst, F + b->spans[2 * k], (size_t)b->spans[2 * k + 1] * sizeof(float));
        dst += b->spans[2 * k + 1];
    }
}

static void restore(Body *b, float *F) {
    const float *src = b->backup;
    for (Py_ssize_t k = 0; k < b->nspans; k++) {
        memcpy(F + b->spans[2 * k], src, (size_t)b->spans[2 * k + 1] * sizeof(float));
        src += b->spans[2 * k + 1];
    }
}

/* step() -> 0 after a whole iteration, 1 if it was abandoned (nothing of it kept) */
static PyObject *Body_step(Body *b, PyObject *unused) {
    float *F = b->reg.buf;
    save(b, F);
    for (Py_ssize_t k = 0; k < b->n; k++) {
        if (run_op(b, F, b->ops + 5 * k)) {
            restore(b, F);
            Py_RETURN_TRUE;
        }
    }
    Py_RETURN_FALSE;
}

/* enter(scalars, reads) -> whether the loop may run: the scalar slots' values (floats)
 * and the element spans (start, length) of the registers an iteration reads first;
 * no NaN may be among them (vecloop.py's entry check). Clears NX. */
static PyObject *Body_enter(Body *b, PyObject *args) {
    PyObject *scalars;
    Py_buffer reads;
    if (!PyArg_ParseTuple(args, "O!y*", &PyTuple_Type, &scalars, &reads))
        return NULL;
    Py_ssize_t ns = PyTuple_GET_SIZE(scalars);
    int ok = ns <= 32;
    for (Py_ssize_t k = 0; ok && k < ns; k++) {
        double v = PyFloat_AsDouble(PyTuple_GET_ITEM(scalars, k));
        if (v == -1.0 && PyErr_Occurred()) {
            PyBuffer_Release(&reads);
            return NULL;
        }
        ok = !isnan(v);
        b->scalar[k] = v;
    }
    const int *sp = reads.buf;
    const float *F = b->reg.buf;
    Py_ssize_t nr = reads.len / (Py_ssize_t)(2 * sizeof(int));
    for (Py_ssize_t k = 0; ok && k < nr; k++)
        for (int e = 0; ok && e < sp[2 * k + 1]; e++)
            ok = !isnan(F[sp[2 * k] + e]);
    PyBuffer_Release(&reads);
    b->nx = 0;
    return PyBool_FromLong(ok);
}

static PyObject *Body_get_nx(Body *b, void *closure) { return PyLong_FromLong(b->nx); }

static void Body_dealloc(Body *b) {
    if (b->reg.obj) PyBuffer_Release(&b->reg);
    PyMem_Free(b->ops);
    PyMem_Free(b->spans);
    PyMem_Free(b->backup);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

/* Body(registers, ops, spans, vl): registers a writable float32 buffer; ops int32
 * records (op, vd, a, b, c), register operands as element offsets (checked to lie in
 * the buffer with vl elements), scalar ones as -1 - slot; spans int32 (start, length)
 * of the written groups. */
static int Body_init(Body *b, PyObject *args, PyObject *kw) {
    Py_buffer ops, spans;
    Py_ssize_t vl;
    if (!PyArg_ParseTuple(args, "w*y*y*n", &b->reg, &ops, &spans, &vl))
        return -1;
    int bad = b->reg.itemsize != sizeof(float) || vl <= 0 || ops.len % (5 * sizeof(int))
              || spans.len % (2 * sizeof(int));
    Py_ssize_t size = b->reg.len / (Py_ssize_t)sizeof(float);
    b->n = ops.len / (Py_ssize_t)(5 * sizeof(int));
    b->nspans = spans.len / (Py_ssize_t)(2 * sizeof(int));
    b->vl = vl;
    const int *o = ops.buf, *s = spans.buf;
    for (Py_ssize_t k = 0; !bad && k < b->n; k++) {
        const int *r = o + 5 * k;
        bad = (r[0] & 15) > MOV || r[1] < 0 || r[1] + vl > size;
        for (int j = 2; !bad && j < 5; j++)
            bad = r[j] >= 0 ? r[j] + vl > size : -1 - r[j] >= 32;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t k = 0; !bad && k < b->nspans; k++) {
        bad = s[2 * k] < 0 || s[2 * k + 1] < 0 || s[2 * k] + s[2 * k + 1] > size;
        total += s[2 * k + 1];
    }
    if (!bad) {
        b->ops = PyMem_Malloc(ops.len ? ops.len : 1);
        b->spans = PyMem_Malloc(spans.len ? spans.len : 1);
        b->backup = PyMem_Malloc((total ? total : 1) * sizeof(float));
        if (b->ops && b->spans && b->backup) {
            memcpy(b->ops, ops.buf, ops.len);
            memcpy(b->spans, spans.buf, spans.len);
        } else {
            bad = 2;
        }
    }
    PyBuffer_Release(&ops);
    PyBuffer_Release(&spans);
    if (bad) {
        if (bad == 2) PyErr_NoMemory();
        else PyErr_SetString(PyExc_ValueError, "Body: records or spans outside the register file");
        return -1;
    }
    return 0;
}

static PyMethodDef Body_methods[] = {
    {"step", (PyCFunction)Body_step, METH_NOARGS, "one iteration; True if abandoned"},
    {"enter", (PyCFunction)Body_enter, METH_VARARGS, "set the scalar slots; False if a read holds a NaN"},
    {NULL}
};

static PyGetSetDef Body_getset[] = {
    {"nx", (getter)Body_get_nx, NULL, "NX raised since enter()", NULL},
    {NULL}
};

static PyTypeObject BodyType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_coral_vecloop.Body",
    .tp_basicsize = sizeof(Body),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Body_init,
    .tp_dealloc = (destructor)Body_dealloc,
    .tp_methods = Body_methods,
    .tp_getset = Body_getset,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_coral_vecloop", NULL, -1, NULL};

PyMODINIT_FUNC PyInit__coral_vecloop(void) {
    if (PyType_Ready(&BodyType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BodyType);
    if (PyModule_AddObject(m, "Body", (PyObject *)&BodyType) < 0) {
        Py_DECREF(&BodyType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
