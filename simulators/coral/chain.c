/* The one sequential part of loops.py's batch run, in one C call: a vfmacc loop's
 * accumulators after every iteration. Each step adds the iteration's exact binary64
 * products to the accumulators rounded to binary32, keeps the binary64 sums (loops.py
 * checks the tiny ones) and reports what the checks of vector_float's fast path find.
 * In numpy this is two calls per iteration (about a microsecond each):
 *     add(P[i], prev, out=S[i]); prev = S[i].astype(float32)
 * and a dozen more for the checks; this computes the same sums in one call (binary64
 * addition in the same operand order, then conversion to binary32 with
 * round-to-nearest-even: SSE2 arithmetic, built with -ffp-contract=off), and also the
 * sums numpy's path must refuse, rounded correctly (below). Built on first use by
 * simulators/core/native.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

enum { INEXACT = 1, TINY_SUM = 2, DECLINE = 4 };

static inline uint64_t bits64(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }

/* chain(P, acc0, S, R) -> what the checks found, or None when the buffers do not fit:
 * P and S binary64 (n, w), R binary32 (n, w), all C-contiguous, S and R written: S[i]
 * the binary64 sums P[i] + R[i - 1] (R[-1] = acc0, binary32 (w,)), R[i] those sums
 * rounded to binary32 as the fused multiply-add rounds them. The result's bits:
 * INEXACT  some sum rounded (fp32.NX);
 * TINY_SUM some sum below binary32's normal range and not zero (loops.py's _tiny checks
 *          those against fp32.vfma, from R);
 * DECLINE  some sum huge, infinite or NaN (fp32._fast's refusal).
 * Where binary64 itself rounded a sum onto a binary32 midpoint (fp32.fast_fma_sum's
 * refusal: rounding the binary64 sum would round twice), the exact sum's side of the
 * midpoint is the sign of the binary64 sum's error (TwoSum), and R takes the neighbour
 * on that side: the correctly rounded result. */
static PyObject *chain(PyObject *self, PyObject *args) {
    Py_buffer p, a, s, o;
    if (!PyArg_ParseTuple(args, "y*y*w*w*", &p, &a, &s, &o))
        return NULL;
    Py_ssize_t w = a.len / (Py_ssize_t)sizeof(float);
    Py_ssize_t n = w ? p.len / (Py_ssize_t)sizeof(double) / w : 0;
    PyObject *out = Py_None;
    if (s.len == p.len && p.len == n * w * (Py_ssize_t)sizeof(double)
            && o.len == n * w * (Py_ssize_t)sizeof(float)) {
        const double *P = p.buf;
        double *S = s.buf;
        float *R = o.buf;
        const float *prev = a.buf;
        const double big = 0x1p127, tiny = 0x1p-126;
        int found = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            const double *row = P + i * w;
            double *sums = S + i * w;
            float *rounded = R + i * w;
            for (Py_ssize_t j = 0; j < w; j++) {
                double pj = row[j], z = (double)prev[j];
                double sum = pj + z;
                double bb = sum - pj;
                double err = (pj - (sum - bb)) + (z - bb);
                double mag = fabs(sum);
                float r = (float)sum;
                if (!(mag < big)) {
                    found |= DECLINE;
                } else if (mag < tiny) {
                    if (sum != 0)
                        found |= TINY_SUM;
                } else if (err != 0 && (bits64(sum) & ((1ull << 29) - 1)) == (1ull << 28)) {
                    if (err > 0 && (double)r < sum)
                        r = nextafterf(r, INFINITY);
                    else if (err < 0 && (double)r > sum)
                        r = nextafterf(r, -INFINITY);
                }
                if (err != 0 || (double)r != sum)
                    found |= INEXACT;
                sums[j] = sum;
                rounded[j] = r;
            }
            prev = rounded;
        }
        out = PyLong_FromLong(found);
    } else {
        Py_INCREF(out);
    }
    PyBuffer_Release(&p);
    PyBuffer_Release(&a);
    PyBuffer_Release(&s);
    PyBuffer_Release(&o);
    return out;
}

static PyMethodDef methods[] = {
    {"chain", chain, METH_VARARGS, "binary32-rounded running sums of binary64 rows"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_coral_chain", NULL, -1, methods};

PyMODINIT_FUNC PyInit__coral_chain(void) { return PyModule_Create(&moduledef); }
