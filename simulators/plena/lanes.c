/* The lane loops of fastlanes.py's closures, one C call per instruction: a numpy call
 * costs about half a microsecond whatever its length, and a 64-lane bf16 instruction
 * took seven of them (the operation, the NaN check, five steps of rounding).
 *
 * semantics/vector.py is the definition; each function here computes the same bits
 * for the ordinary case and returns False (or None) for anything else -- an address
 * that is not a whole row in range, a NaN anywhere in a result -- having written
 * nothing, so the caller hands the instruction to the reference semantics, which
 * raise the error or compute the rare case.
 *
 * Arithmetic is binary32 with round-to-nearest-even, one operation per lane as numpy
 * does it (built with -ffp-contract=off: no fused multiply-add); rounding to bf16 is
 * numerics._rne16 on the bits. Rows are given as element addresses into the Vector
 * SRAM at `base` (the address of its first float) holding `size` floats.
 * Built on first use by lanes.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

enum { ADD, SUB, RSUB, MUL, MAX, MIN };

static inline uint32_t bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static inline float value(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }

/* numerics.round_bf16 of a value that is not NaN */
static inline float round_bf16(float x) {
    uint32_t u = bits(x);
    return value((u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u);
}

static inline float apply(int op, float a, float b) {
    switch (op) {
    case ADD: return a + b;
    case SUB: return a - b;
    case RSUB: return b - a;
    case MUL: return a * b;
    case MAX:                      /* numerics.fmax: NaN propagates, max(-0, +0) = +0 */
        if (a == 0 && b == 0) return a + b;
        return a >= b || a != a ? a : b;
    default:                       /* MIN, numerics.fmin: min(-0, +0) = -0 */
        if (a == 0 && b == 0) return -((-a) + (-b));
        return a <= b || a != a ? a : b;
    }
}

/* The row at element address `addr`, or NULL when it is not a whole row in range
 * (PlenaState.v_rows's check). */
static float *row(float *base, long long size, long long vlen, PyObject *addr) {
    long long a = PyLong_AsLongLong(addr);
    if (a == -1 && PyErr_Occurred()) { PyErr_Clear(); return NULL; }
    if (a < 0 || a % vlen || a + vlen > size) return NULL;
    return base + a;
}

static int frame(PyObject *const *args, float **base, long long *size, long long *vlen) {
    *base = (float *)PyLong_AsVoidPtr(args[0]);
    *size = PyLong_AsLongLong(args[1]);
    *vlen = PyLong_AsLongLong(args[2]);
    return !PyErr_Occurred();
}

#define NEED(n) if (nargs != (n)) { \
    PyErr_SetString(PyExc_TypeError, "wrong number of arguments"); return NULL; }
/* n arguments, or n + 2: a masked instruction's (HLEN, V_MASK) at the end */
#define NEED_MASKED(n) if (nargs != (n) && nargs != (n) + 2) { \
    PyErr_SetString(PyExc_TypeError, "wrong number of arguments"); return NULL; }

/* The write enables of a masked instruction: lane i is written when bit i / hlen of
 * V_MASK is set (PlenaState.head_mask). hlen = 0 when there is no mask; -1 when the
 * lanes cannot be done here (heads that do not tile the row, more than 63 of them, a
 * V_MASK beyond 64 bits): the reference does them. */
static long long heads(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t at, long long vlen,
                       long long *mask) {
    *mask = 0;
    if (nargs == at) return 0;
    int over = 0;
    long long hlen = PyLong_AsLongLong(args[at]);
    *mask = PyLong_AsLongLongAndOverflow(args[at + 1], &over);
    if (over || PyErr_Occurred()) { PyErr_Clear(); return -1; }
    if (hlen < 1 || vlen % hlen || vlen / hlen > 63) return -1;
    return hlen;
}

/* d[i] = VALUE for every lane, or for the lanes V_MASK enables */
#define STORE(VALUE) do { \
    if (!hlen) { for (long long i = 0; i < vlen; i++) d[i] = (VALUE); } \
    else { for (long long i = 0; i < vlen; i++) if ((mask >> (i / hlen)) & 1) d[i] = (VALUE); } \
} while (0)

/* Rows up to this long are computed into a buffer on the stack, checked, then copied
 * (one pass the compiler can vectorise); longer ones are checked in a first pass and
 * computed again into d in a second, which keeps each lane's inputs unread-after-write
 * when rows alias. */
#define BUFFER 1024

/* d[i] = round_bf16(EXPR) for every lane (enabled lane); False, nothing written, if
 * any lane is NaN. */
#define LANES(EXPR) do { \
    if (vlen <= BUFFER) { \
        float out[BUFFER]; \
        int nan = 0; \
        for (long long i = 0; i < vlen; i++) { float r = (EXPR); out[i] = r; nan |= r != r; } \
        if (nan) Py_RETURN_FALSE; \
        STORE(round_bf16(out[i])); \
    } else { \
        for (long long i = 0; i < vlen; i++) { float r = (EXPR); if (r != r) Py_RETURN_FALSE; } \
        STORE(round_bf16(EXPR)); \
    } \
    Py_RETURN_TRUE; \
} while (0)

/* binary(base, size, vlen, op, d, a, b[, hlen, V_MASK]): row d = round_bf16(row a op
 * row b) (in the lanes V_MASK enables). */
static PyObject *binary(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED_MASKED(7)
    float *base; long long size, vlen, mask;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    long long hlen = heads(args, nargs, 7, vlen, &mask);
    if (hlen < 0) Py_RETURN_FALSE;
    int op = (int)PyLong_AsLong(args[3]);
    float *d = row(base, size, vlen, args[4]), *a = row(base, size, vlen, args[5]),
          *b = row(base, size, vlen, args[6]);
    if (!d || !a || !b) Py_RETURN_FALSE;
    switch (op) {
    case ADD: LANES(a[i] + b[i]);
    case SUB: LANES(a[i] - b[i]);
    case MUL: LANES(a[i] * b[i]);
    default: LANES(apply(op, a[i], b[i]));
    }
}

/* scalar(base, size, vlen, op, d, a, f[, hlen, V_MASK]): row d = round_bf16(row a op
 * F32(f)) (in the lanes V_MASK enables). */
static PyObject *scalar(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED_MASKED(7)
    float *base; long long size, vlen, mask;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    long long hlen = heads(args, nargs, 7, vlen, &mask);
    if (hlen < 0) Py_RETURN_FALSE;
    int op = (int)PyLong_AsLong(args[3]);
    float *d = row(base, size, vlen, args[4]), *a = row(base, size, vlen, args[5]);
    double fd = PyFloat_AsDouble(args[6]);
    if (fd == -1.0 && PyErr_Occurred()) return NULL;
    float f = (float)fd;           /* as np.float32(f): round to nearest even */
    if (!d || !a || f != f) Py_RETURN_FALSE;
    switch (op) {
    case ADD: LANES(a[i] + f);
    case SUB: LANES(a[i] - f);
    case RSUB: LANES(f - a[i]);
    case MUL: LANES(a[i] * f);
    default: LANES(apply(op, a[i], f));
    }
}

/* table(base, size, vlen, table, d, a[, hlen, V_MASK]): row d = table[bits of row a >>
 * 16] (the numerics.bf16_unary lookup; `table` is the address of its 65,536 floats),
 * in the lanes V_MASK enables. */
static PyObject *table(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED_MASKED(6)
    float *base; long long size, vlen, mask;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    long long hlen = heads(args, nargs, 6, vlen, &mask);
    if (hlen < 0) Py_RETURN_FALSE;
    const float *t = (const float *)PyLong_AsVoidPtr(args[3]);
    if (PyErr_Occurred()) return NULL;
    float *d = row(base, size, vlen, args[4]), *a = row(base, size, vlen, args[5]);
    if (!d || !a) Py_RETURN_FALSE;
    STORE(t[bits(a[i]) >> 16]);
    Py_RETURN_TRUE;
}

/* tree_sum(base, size, vlen, a): numerics.tree_sum of row a (x[i] + x[i + L/2] at
 * each halving, binary32) as a float; None if the row is not there or VLEN is not a
 * power of two of at most 8192. */
static PyObject *tree_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(4)
    float *base; long long size, vlen;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    float *a = row(base, size, vlen, args[3]);
    float buf[4096];
    if (!a || vlen < 1 || vlen > 8192 || (vlen & (vlen - 1))) Py_RETURN_NONE;
    if (vlen == 1) return PyFloat_FromDouble(a[0]);
    long long h = vlen / 2;
    for (long long i = 0; i < h; i++) buf[i] = a[i] + a[i + h];
    for (h /= 2; h >= 1; h /= 2)
        for (long long i = 0; i < h; i++) buf[i] = buf[i] + buf[i + h];
    return PyFloat_FromDouble(buf[0]);
}

/* max_reduce(base, size, vlen, a): the largest lane of row a as a float; None if the
 * row is not there, a lane is NaN or the largest is a zero (numerics.max_reduce's
 * rules for those are the reference's to apply). */
static PyObject *max_reduce(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(4)
    float *base; long long size, vlen;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    float *a = row(base, size, vlen, args[3]);
    if (!a) Py_RETURN_NONE;
    float m = a[0];
    for (long long i = 0; i < vlen; i++) {
        if (a[i] != a[i]) Py_RETURN_NONE;
        if (a[i] > m) m = a[i];
    }
    if (m == 0) Py_RETURN_NONE;
    return PyFloat_FromDouble(m);
}

/* mv(base, size, vlen, mbase, msize, acc, transposed, t, a): MV_ACC += row a @ tile t
 * (M_MV) or row a @ tile t transposed (M_TMV), each output the products over k summed
 * by halving as numerics.matmul_tree does (p[i] + p[i + K/2], binary32); False, with
 * MV_ACC unchanged, if a sum is NaN or an address is not a whole tile / row in range.
 * `acc` is the address of MV_ACC's VLEN floats; tiles are VLEN x VLEN (VLEN == MLEN). */
static PyObject *mv(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(9)
    float *base; long long size, vlen;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    float *mbase = (float *)PyLong_AsVoidPtr(args[3]);
    long long msize = PyLong_AsLongLong(args[4]);
    float *acc = (float *)PyLong_AsVoidPtr(args[5]);
    int transposed = PyObject_IsTrue(args[6]);
    long long t = PyLong_AsLongLong(args[7]);
    if (PyErr_Occurred()) return NULL;
    float *a = row(base, size, vlen, args[8]);
    long long n = vlen, tile = vlen * vlen;
    if (!a || t < 0 || t % tile || t + tile > msize || n > BUFFER || (n & (n - 1)))
        Py_RETURN_FALSE;
    const float *m = mbase + t;
    float out[BUFFER], p[BUFFER];
    int nan = 0;
    if (n <= 128) {
        /* the products as [k, j] rows and the halvings along k a row at a time: the
         * same pairs as by columns, in loops over contiguous lanes */
        float q[128 * 128];
        if (transposed)
            for (long long k = 0; k < n; k++)
                for (long long j = 0; j < n; j++) q[k * n + j] = m[j * n + k] * a[k];
        else
            for (long long k = 0; k < n; k++)
                for (long long j = 0; j < n; j++) q[k * n + j] = a[k] * m[k * n + j];
        for (long long h = n / 2; h >= 1; h /= 2)
            for (long long k = 0; k < h; k++)
                for (long long j = 0; j < n; j++) q[k * n + j] = q[k * n + j] + q[(k + h) * n + j];
        for (long long j = 0; j < n; j++) {
            float r = acc[j] + q[j];
            out[j] = r;
            nan |= r != r;
        }
        if (nan) Py_RETURN_FALSE;
        memcpy(acc, out, n * sizeof(float));
        Py_RETURN_TRUE;
    }
    for (long long j = 0; j < n; j++) {
        if (transposed)            /* products tile[j, k] * v[k] */
            for (long long k = 0; k < n; k++) p[k] = m[j * n + k] * a[k];
        else                       /* products v[k] * tile[k, j] */
            for (long long k = 0; k < n; k++) p[k] = a[k] * m[k * n + j];
        for (long long h = n / 2; h >= 1; h /= 2)
            for (long long k = 0; k < h; k++) p[k] = p[k] + p[k + h];
        float r = acc[j] + p[0];
        out[j] = r;
        nan |= r != r;
    }
    if (nan) Py_RETURN_FALSE;
    memcpy(acc, out, n * sizeof(float));
    Py_RETURN_TRUE;
}

/* write_out(base, size, vlen, acc, d): row d = round_bf16(MV_ACC), then MV_ACC = 0
 * (M_MV_WO); False if a lane of MV_ACC is NaN or d is not a whole row in range. */
static PyObject *write_out(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(5)
    float *base; long long size, vlen;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    float *acc = (float *)PyLong_AsVoidPtr(args[3]);
    if (PyErr_Occurred()) return NULL;
    float *d = row(base, size, vlen, args[4]);
    if (!d) Py_RETURN_FALSE;
    for (long long i = 0; i < vlen; i++)
        if (acc[i] != acc[i]) Py_RETURN_FALSE;
    for (long long i = 0; i < vlen; i++) d[i] = round_bf16(acc[i]);
    memset(acc, 0, vlen * sizeof(float));
    Py_RETURN_TRUE;
}

/* A Python float that is a binary32 value, as a float; 0 (and *ok = 0) otherwise. */
static float f32_of(PyObject *o, int *ok) {
    if (!PyFloat_CheckExact(o)) { *ok = 0; return 0; }
    double d = PyFloat_AS_DOUBLE(o);
    float f = (float)d;
    if ((double)f != d) *ok = 0;
    return f;
}

/* exp_f32(x, top, coeffs, log2e, ln2_hi, ln2_lo): numerics.exp_f32 of the binary32
 * value x (S_EXP_FP), each step one binary32 operation (as a binary64 one rounded to
 * binary32 is, for + - *), the polynomial's coefficients from the highest (`top`,
 * then the tuple `coeffs`); None for a NaN or anything not binary32. */
static PyObject *exp_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(6)
    int ok = 1;
    float x = f32_of(args[0], &ok), top = f32_of(args[1], &ok), log2e = f32_of(args[3], &ok),
          hi = f32_of(args[4], &ok), lo = f32_of(args[5], &ok);
    if (!ok || x != x || !PyTuple_CheckExact(args[2])) Py_RETURN_NONE;
    float t = x * log2e;
    if (t >= 128) return PyFloat_FromDouble(Py_HUGE_VAL);
    if (t < -126) return PyFloat_FromDouble(0.0);
    float n = floorf(t);
    if (n == 0) n = 0.0f;          /* math.floor gives an integer: no -0 */
    float a = n * hi, r = x - a;
    a = n * lo;
    r = r - a;
    float frac = r * log2e, p = top;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[2]); i++) {
        float c = f32_of(PyTuple_GET_ITEM(args[2], i), &ok);
        if (!ok) Py_RETURN_NONE;
        p = p * frac;
        p = p + c;
    }
    return PyFloat_FromDouble((double)(float)((double)p * ldexp(1.0, (int)n)));
}

/* mm(base, size, vlen, mbase, msize, blen, acc, transposed, t, a): MM_ACC (blen x blen)
 * += rows a .. a+blen @ the blen columns of the tile at Matrix SRAM address t (M_MM;
 * t is a tile plus a multiple of blen below MLEN = VLEN), or @ its blen rows there
 * transposed (M_TMM), each output summed over k by halving as numerics.matmul_tree
 * does; False, with MM_ACC unchanged, if a sum is NaN or an address is out of range. */
static PyObject *mm(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(10)
    float *base; long long size, vlen;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    float *mbase = (float *)PyLong_AsVoidPtr(args[3]);
    long long msize = PyLong_AsLongLong(args[4]), blen = PyLong_AsLongLong(args[5]);
    float *acc = (float *)PyLong_AsVoidPtr(args[6]);
    int transposed = PyObject_IsTrue(args[7]);
    if (PyErr_Occurred()) return NULL;
    long long t = PyLong_AsLongLong(args[8]), a = PyLong_AsLongLong(args[9]);
    if (PyErr_Occurred()) { PyErr_Clear(); Py_RETURN_FALSE; }
    long long n = vlen, tile = vlen * vlen, c = t % tile;
    if (t < 0 || t >= msize || c % blen || c >= n || blen < 1 || blen > 64
            || n > BUFFER || (n & (n - 1)))
        Py_RETURN_FALSE;
    if (a < 0 || a % vlen || a + blen * vlen > size) Py_RETURN_FALSE;
    const float *m = mbase + (t - c), *v = base + a;
    float out[64 * 64], p[BUFFER];
    int nan = 0;
    for (long long i = 0; i < blen; i++)
        for (long long j = 0; j < blen; j++) {
            for (long long k = 0; k < n; k++)  /* v[i, k] * tile[k, c + j] or tile[c + j, k] */
                p[k] = v[i * n + k] * (transposed ? m[(c + j) * n + k] : m[k * n + c + j]);
            for (long long h = n / 2; h >= 1; h /= 2)
                for (long long k = 0; k < h; k++) p[k] = p[k] + p[k + h];
            float r = acc[i * blen + j] + p[0];
            out[i * blen + j] = r;
            nan |= r != r;
        }
    if (nan) Py_RETURN_FALSE;
    memcpy(acc, out, blen * blen * sizeof(float));
    Py_RETURN_TRUE;
}

/* mm_write_out(base, size, vlen, blen, acc, d): the blen x blen block of Vector SRAM at
 * element address d (rows of VLEN) = round_bf16(MM_ACC), then MM_ACC = 0 (M_MM_WO);
 * False if a lane of MM_ACC is NaN or the block is not in range and aligned to blen. */
static PyObject *mm_write_out(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(6)
    float *base; long long size, vlen;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    long long blen = PyLong_AsLongLong(args[3]);
    float *acc = (float *)PyLong_AsVoidPtr(args[4]);
    if (PyErr_Occurred()) return NULL;
    long long d = PyLong_AsLongLong(args[5]);
    if (PyErr_Occurred()) { PyErr_Clear(); Py_RETURN_FALSE; }
    if (blen < 1 || d < 0 || d % blen || d + (blen - 1) * vlen + blen > size
            || d % vlen + blen > vlen)
        Py_RETURN_FALSE;
    for (long long i = 0; i < blen * blen; i++)
        if (acc[i] != acc[i]) Py_RETURN_FALSE;
    for (long long i = 0; i < blen; i++)
        for (long long j = 0; j < blen; j++) base[d + i * vlen + j] = round_bf16(acc[i * blen + j]);
    memset(acc, 0, blen * blen * sizeof(float));
    Py_RETURN_TRUE;
}

/* map_fp(base, size, vlen, fp_mem, src, d): row d = round_bf16(F32(FP_MEM[src ..
 * src + VLEN])) (S_MAP_V_FP; `fp_mem` is the list of Python floats); False if a value
 * is NaN or not a float, or an address is out of range. */
static PyObject *map_fp(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(6)
    float *base; long long size, vlen;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    PyObject *mem = args[3];
    long long src = PyLong_AsLongLong(args[4]);
    if (src == -1 && PyErr_Occurred()) { PyErr_Clear(); Py_RETURN_FALSE; }
    float *d = row(base, size, vlen, args[5]);
    if (!d || !PyList_CheckExact(mem) || src < 0 || src + vlen > PyList_GET_SIZE(mem)
            || vlen > BUFFER)
        Py_RETURN_FALSE;
    float out[BUFFER];
    for (long long i = 0; i < vlen; i++) {
        PyObject *x = PyList_GET_ITEM(mem, src + i);
        if (!PyFloat_CheckExact(x)) Py_RETURN_FALSE;
        float v = (float)PyFloat_AS_DOUBLE(x);
        if (v != v) Py_RETURN_FALSE;
        out[i] = round_bf16(v);
    }
    memcpy(d, out, vlen * sizeof(float));
    Py_RETURN_TRUE;
}

/* The first HBM address of `rows` rows of `length` at base + r*stride, checked as
 * PlenaState.hbm_rows does; -1 if they do not all lie in HBM's `hsize` elements. */
static long long hbm_span(PyObject *base_obj, long long stride, long long rows,
                          long long length, long long hsize) {
    int over = 0;
    long long base = PyLong_AsLongLongAndOverflow(base_obj, &over);
    if (over || (base == -1 && PyErr_Occurred())) { PyErr_Clear(); return -1; }
    if (rows < 1 || stride > (1LL << 40) || stride < -(1LL << 40) || base > (1LL << 60)
            || base < -(1LL << 60))
        return -1;
    long long last = base + (rows - 1) * stride;
    long long lo = base < last ? base : last, hi = (base < last ? last : base) + length;
    return lo < 0 || hi > hsize ? -1 : base;
}

/* load(dst, dsize, align, rows, length, hbm, hsize, d, base, stride): H_PREFETCH_V
 * (into Vector SRAM, align VLEN) and H_PREFETCH_M (into a Matrix SRAM tile, align
 * MLEN*MLEN): `rows` HBM rows of `length` bf16 at base + r*stride, widened exactly,
 * to the destination memory `dst` (`dsize` floats) at element address d. False if
 * d is not aligned and in range or the HBM rows are not. */
static PyObject *load(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(10)
    float *dst = (float *)PyLong_AsVoidPtr(args[0]);
    long long dsize = PyLong_AsLongLong(args[1]), align = PyLong_AsLongLong(args[2]);
    long long rows = PyLong_AsLongLong(args[3]), length = PyLong_AsLongLong(args[4]);
    const uint16_t *hbm = (const uint16_t *)PyLong_AsVoidPtr(args[5]);
    long long hsize = PyLong_AsLongLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    long long d = PyLong_AsLongLong(args[7]), stride = PyLong_AsLongLong(args[9]);
    if (PyErr_Occurred()) { PyErr_Clear(); Py_RETURN_FALSE; }
    if (d < 0 || align < 1 || d % align || d + rows * length > dsize) Py_RETURN_FALSE;
    long long base = hbm_span(args[8], stride, rows, length, hsize);
    if (base < 0) Py_RETURN_FALSE;
    for (long long r = 0; r < rows; r++) {
        const uint16_t *h = hbm + base + r * stride;
        uint32_t *v = (uint32_t *)(dst + d + r * length);
        for (long long i = 0; i < length; i++) v[i] = (uint32_t)h[i] << 16;
    }
    Py_RETURN_TRUE;
}

/* store(base, size, vlen, rows, hbm, hsize, s, hbase, stride): H_STORE_V: `rows` rows
 * of Vector SRAM from element address s to HBM rows at hbase + r*stride as bf16 bits
 * (the high half of each float), row by row so that with overlapping rows later rows
 * win. False if s or the HBM rows are out of range. */
static PyObject *store(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    NEED(9)
    float *base; long long size, vlen;
    if (!frame(args, &base, &size, &vlen)) return NULL;
    long long rows = PyLong_AsLongLong(args[3]);
    uint16_t *hbm = (uint16_t *)PyLong_AsVoidPtr(args[4]);
    long long hsize = PyLong_AsLongLong(args[5]);
    if (PyErr_Occurred()) return NULL;
    long long s = PyLong_AsLongLong(args[6]), stride = PyLong_AsLongLong(args[8]);
    if (PyErr_Occurred()) { PyErr_Clear(); Py_RETURN_FALSE; }
    if (s < 0 || s % vlen || s + rows * vlen > size) Py_RETURN_FALSE;
    long long hbase = hbm_span(args[7], stride, rows, vlen, hsize);
    if (hbase < 0) Py_RETURN_FALSE;
    for (long long r = 0; r < rows; r++) {
        const uint32_t *v = (const uint32_t *)(base + s + r * vlen);
        uint16_t *h = hbm + hbase + r * stride;
        for (long long i = 0; i < vlen; i++) h[i] = (uint16_t)(v[i] >> 16);
    }
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"binary", (PyCFunction)(void (*)(void))binary, METH_FASTCALL, "row d = round_bf16(a op b)"},
    {"scalar", (PyCFunction)(void (*)(void))scalar, METH_FASTCALL, "row d = round_bf16(a op f)"},
    {"table", (PyCFunction)(void (*)(void))table, METH_FASTCALL, "row d = table[a >> 16]"},
    {"tree_sum", (PyCFunction)(void (*)(void))tree_sum, METH_FASTCALL, "tree sum of a row"},
    {"max_reduce", (PyCFunction)(void (*)(void))max_reduce, METH_FASTCALL, "largest lane"},
    {"mv", (PyCFunction)(void (*)(void))mv, METH_FASTCALL, "MV_ACC += row @ tile"},
    {"write_out", (PyCFunction)(void (*)(void))write_out, METH_FASTCALL, "row = MV_ACC; MV_ACC = 0"},
    {"mm", (PyCFunction)(void (*)(void))mm, METH_FASTCALL, "MM_ACC += rows @ tile columns"},
    {"mm_write_out", (PyCFunction)(void (*)(void))mm_write_out, METH_FASTCALL, "block = MM_ACC; MM_ACC = 0"},
    {"exp_f32", (PyCFunction)(void (*)(void))exp_f32, METH_FASTCALL, "scalar fp32 exp"},
    {"map_fp", (PyCFunction)(void (*)(void))map_fp, METH_FASTCALL, "row = FP_MEM slice"},
    {"load", (PyCFunction)(void (*)(void))load, METH_FASTCALL, "SRAM = HBM rows"},
    {"store", (PyCFunction)(void (*)(void))store, METH_FASTCALL, "HBM rows = Vector SRAM rows"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_plena_lanes", NULL, -1, methods};

PyMODINIT_FUNC PyInit__plena_lanes(void) { return PyModule_Create(&module); }
