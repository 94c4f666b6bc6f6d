/* The 32-lane vector operations of inline.py's statements, one C call each: a numpy
 * call costs about half a microsecond (a reduction nearly two) whatever its length,
 * and a bf16 tile product took about ten of them, VPWL.EXP sixteen.
 *
 * semantics/vector.py and numerics.py are the definition; each function computes the
 * same bits, one binary32 operation per step as numpy does (built with
 * -ffp-contract=off: no fused multiply-add), NaN results canonical (0x7FC00000, bf16
 * 0x7FC0). A register number out of range returns False having written nothing (the
 * caller then calls the reference semantics, which say what is wrong). Each lane's
 * result depends only on inputs read before it is written, so a destination may be an
 * operand.
 *
 * Registers are given by the addresses of the state's arrays: `x`, the 16 vector
 * registers of 32 bf16 lanes (a y register is the pair x[2y], x[2y + 1]), and `acc`,
 * the 8 accumulators of 32 fp32 lanes. Built on first use by lanes.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#define LANES 32
#define NX 16
#define NACC 8
#define CANON 0x7FC00000u

static inline uint32_t bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static inline float value(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static inline float bf(uint16_t h) { return value((uint32_t)h << 16); }
static inline uint32_t canon(float r) { return r != r ? CANON : bits(r); }

#define NEED(n) if (nargs != (n)) { \
    PyErr_SetString(PyExc_TypeError, "wrong number of arguments"); return NULL; }

/* the register number args[i] if it is below n, else -1 */
static long reg(PyObject *const *args, int i, long n) {
    long v = PyLong_AsLong(args[i]);
    if (v == -1 && PyErr_Occurred()) { PyErr_Clear(); return -1; }
    return v >= 0 && v < n ? v : -1;
}

static void *addr(PyObject *a) { return PyLong_AsVoidPtr(a); }

/* D += the 4x8 by 8x8 tile product of A (row-major) and B, each dot product summed by
 * halving over K (numerics.mmul_bf16: k and k + 4, then k and k + 2, then the two),
 * then added with one rounding (numerics.mac_f32) */
static inline void tile_mac(uint32_t *D, const uint16_t *A, const uint16_t *B) {
    for (int m = 0; m < 4; m++)
        for (int c = 0; c < 8; c++) {
            float p[8];
            for (int k = 0; k < 8; k++) p[k] = bf(A[8 * m + k]) * bf(B[8 * k + c]);
            float s0 = p[0] + p[4], s1 = p[1] + p[5], s2 = p[2] + p[6], s3 = p[3] + p[7];
            float t0 = s0 + s2, t1 = s1 + s3;
            float s = t0 + t1;
            D[8 * m + c] = canon(value(D[8 * m + c]) + s);
        }
}

/* D +-= the lane products of A and B (exact in binary32), one rounding */
static inline void lane_mac(uint32_t *D, const uint16_t *A, const uint16_t *B, int sub) {
    for (int i = 0; i < LANES; i++) {
        float p = bf(A[i]) * bf(B[i]);
        D[i] = canon(sub ? value(D[i]) - p : value(D[i]) + p);
    }
}

/* mmac(x, acc, d, a, y): VMMAC.BF16, acc d += the tile product of x a (A) and y
 * register y (B). */
static PyObject *mmac(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(5)
    uint16_t *x = addr(args[0]);
    uint32_t *acc = addr(args[1]);
    long d = reg(args, 2, NACC), a = reg(args, 3, NX), y = reg(args, 4, NX / 2);
    if (PyErr_Occurred()) return NULL;
    if (d < 0 || a < 0 || y < 0) Py_RETURN_FALSE;
    tile_mac(acc + LANES * d, x + LANES * a, x + 2 * LANES * y);
    Py_RETURN_TRUE;
}

/* mac(x, acc, d, a, b, sub): VMAC.BF16 (sub 0) or VMSC.BF16 (sub 1), acc d +-= the
 * lane products of x a and x b. */
static PyObject *mac(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(6)
    uint16_t *x = addr(args[0]);
    uint32_t *acc = addr(args[1]);
    long d = reg(args, 2, NACC), a = reg(args, 3, NX), b = reg(args, 4, NX);
    int sub = PyObject_IsTrue(args[5]);
    if (PyErr_Occurred()) return NULL;
    if (d < 0 || a < 0 || b < 0) Py_RETURN_FALSE;
    lane_mac(acc + LANES * d, x + LANES * a, x + LANES * b, sub);
    Py_RETURN_TRUE;
}

/* mac_rows(a, b, accs, g, n, kind): a fast-forwarded loop's multiply-accumulates of one
 * kind (0 VMAC.BF16, 1 VMSC.BF16, 2 VMMAC.BF16) into g accumulators, n each, applied in
 * order: accs (g, 32) fp32 lanes, a (g, n, 32) and b (g, n, 32) or for tile products
 * (g, n, 64) bf16 operands, all C-contiguous (fastloop.run; mac_terms_rows computes
 * the same bits). */
static PyObject *mac_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(6)
    const uint16_t *a = addr(args[0]), *b = addr(args[1]);
    uint32_t *acc = addr(args[2]);
    long g = PyLong_AsLong(args[3]), n = PyLong_AsLong(args[4]), kind = PyLong_AsLong(args[5]);
    if (PyErr_Occurred()) return NULL;
    if (g < 0 || n < 0 || kind < 0 || kind > 2) Py_RETURN_FALSE;
    long width = kind == 2 ? 2 * LANES : LANES;
    for (long j = 0; j < g; j++) {
        uint32_t *D = acc + LANES * j;
        for (long t = 0; t < n; t++) {
            const uint16_t *A = a + LANES * (j * n + t), *B = b + width * (j * n + t);
            if (kind == 2) tile_mac(D, A, B);
            else lane_mac(D, A, B, (int)kind);
        }
    }
    Py_RETURN_TRUE;
}

/* srs(x, acc, d, a): VSRS.BF16, x d = acc a rounded to bf16, nearest even on the bits
 * (numerics.f32_to_bf16_bits: overflow gives inf, NaN 0x7FC0). */
static PyObject *srs(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(4)
    uint16_t *x = addr(args[0]);
    uint32_t *acc = addr(args[1]);
    long d = reg(args, 2, NX), a = reg(args, 3, NACC);
    if (PyErr_Occurred()) return NULL;
    if (d < 0 || a < 0) Py_RETURN_FALSE;
    const uint32_t *A = acc + LANES * a;
    uint16_t *D = x + LANES * d;
    for (int i = 0; i < LANES; i++) {
        uint32_t u = A[i];
        D[i] = (u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC0 : (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    }
    Py_RETURN_TRUE;
}

/* ups(x, acc, d, a): VUPS.BF16, acc d = the lanes of x a widened (exact). */
static PyObject *ups(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(4)
    uint16_t *x = addr(args[0]);
    uint32_t *acc = addr(args[1]);
    long d = reg(args, 2, NACC), a = reg(args, 3, NX);
    if (PyErr_Occurred()) return NULL;
    if (d < 0 || a < 0) Py_RETURN_FALSE;
    const uint16_t *A = x + LANES * a;
    uint32_t *D = acc + LANES * d;
    for (int i = 0; i < LANES; i++) D[i] = (uint32_t)A[i] << 16;
    Py_RETURN_TRUE;
}

/* numerics._order_tables' key: unsigned order of the bf16 values, -0 just below +0 */
static inline unsigned key(uint16_t h) {
    unsigned mag = h & 0x7FFFu;
    return h & 0x8000u ? 0x7FFFu - mag : 0x8000u + mag;
}
static inline int isnan16(uint16_t h) { return (h & 0x7FFFu) > 0x7F80u; }

/* maxmin(x, d, a, b, min): VMAX.BF16 (min 0) or VMIN.BF16 (min 1) on bf16 lanes: a NaN
 * operand gives 0x7FC0, max(-0, +0) = +0, min(-0, +0) = -0 (numerics.bf16_max/min). */
static PyObject *maxmin(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(5)
    uint16_t *x = addr(args[0]);
    long d = reg(args, 1, NX), a = reg(args, 2, NX), b = reg(args, 3, NX);
    int lo = PyObject_IsTrue(args[4]);
    if (PyErr_Occurred()) return NULL;
    if (d < 0 || a < 0 || b < 0) Py_RETURN_FALSE;
    const uint16_t *A = x + LANES * a, *B = x + LANES * b;
    uint16_t *D = x + LANES * d;
    for (int i = 0; i < LANES; i++) {
        uint16_t p = A[i], q = B[i];
        if (isnan16(p) || isnan16(q)) D[i] = 0x7FC0;
        else D[i] = (lo ? key(p) <= key(q) : key(p) >= key(q)) ? p : q;
    }
    Py_RETURN_TRUE;
}

enum { ADD, SUB, MUL };

/* arith(acc, op, d, a, b): AADD.F32, ASUB.F32, AMUL.F32 (op ADD, SUB, MUL) on fp32
 * lanes, NaN canonical. */
static PyObject *arith(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(5)
    uint32_t *acc = addr(args[0]);
    long op = PyLong_AsLong(args[1]);
    long d = reg(args, 2, NACC), a = reg(args, 3, NACC), b = reg(args, 4, NACC);
    if (PyErr_Occurred()) return NULL;
    if (d < 0 || a < 0 || b < 0 || op < ADD || op > MUL) Py_RETURN_FALSE;
    const uint32_t *A = acc + LANES * a, *B = acc + LANES * b;
    uint32_t *D = acc + LANES * d;
    for (int i = 0; i < LANES; i++) {
        float p = value(A[i]), q = value(B[i]);
        D[i] = canon(op == ADD ? p + q : op == SUB ? p - q : p * q);
    }
    Py_RETURN_TRUE;
}

/* pwl_exp(acc, d, a, off, slope, segments, log2e): VPWL.EXP as numerics.pwl_exp:
 * t = x * LOG2E; t >= 128 gives +inf, t < -126 +0, NaN the canonical NaN; else n =
 * floor(t), f = t - n, fs = f * S, j = min(floor(fs), S - 1), u = fs - j, y = SLOPE[j]
 * * u + OFF[j], result y * 2^n (ldexpf, as numpy's ldexp); `off` and `slope` are the
 * addresses of the table's S floats. */
static PyObject *pwl_exp(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(7)
    uint32_t *acc = addr(args[0]);
    long d = reg(args, 1, NACC), a = reg(args, 2, NACC);
    const float *off = addr(args[3]), *slope = addr(args[4]);
    long segs = PyLong_AsLong(args[5]);
    float log2e = (float)PyFloat_AsDouble(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (d < 0 || a < 0 || segs < 1) Py_RETURN_FALSE;
    const uint32_t *A = acc + LANES * a;
    uint32_t *D = acc + LANES * d;
    for (int i = 0; i < LANES; i++) {
        float t = value(A[i]) * log2e;
        if (t != t) { D[i] = CANON; continue; }
        if (t >= 128.0f) { D[i] = 0x7F800000u; continue; }
        if (t < -126.0f) { D[i] = 0; continue; }
        float n = floorf(t);
        float fs = t - n;
        fs = fs * (float)segs;
        long j = (long)fs;
        if (j > segs - 1) j = segs - 1;
        fs = fs - (float)j;
        float y = slope[j] * fs;
        y = y + off[j];
        D[i] = bits(ldexpf(y, (int)n));
    }
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"mmac", (PyCFunction)(void (*)(void))mmac, METH_FASTCALL, "VMMAC.BF16"},
    {"mac", (PyCFunction)(void (*)(void))mac, METH_FASTCALL, "VMAC.BF16 / VMSC.BF16"},
    {"mac_rows", (PyCFunction)(void (*)(void))mac_rows, METH_FASTCALL, "a loop's multiply-accumulates"},
    {"srs", (PyCFunction)(void (*)(void))srs, METH_FASTCALL, "VSRS.BF16"},
    {"ups", (PyCFunction)(void (*)(void))ups, METH_FASTCALL, "VUPS.BF16"},
    {"maxmin", (PyCFunction)(void (*)(void))maxmin, METH_FASTCALL, "VMAX.BF16 / VMIN.BF16"},
    {"arith", (PyCFunction)(void (*)(void))arith, METH_FASTCALL, "AADD.F32 / ASUB.F32 / AMUL.F32"},
    {"pwl_exp", (PyCFunction)(void (*)(void))pwl_exp, METH_FASTCALL, "VPWL.EXP"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_aie_lanes", NULL, -1, methods};

PyMODINIT_FUNC PyInit__aie_lanes(void) { return PyModule_Create(&module); }
