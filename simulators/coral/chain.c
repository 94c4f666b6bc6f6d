/* The one sequential part of loops.py's batch run, in one C call: a vfmacc loop's
 * accumulators after every iteration. Each step adds the iteration's exact binary64
 * products to the accumulators rounded to binary32 and keeps the binary64 sums, which
 * loops.py then checks for the cases binary64 cannot decide (midpoints, tiny sums).
 * In numpy this was two calls per iteration (about a microsecond each):
 *     add(P[i], prev, out=S[i]); prev = S[i].astype(float32)
 * and a dozen more for the checks; this computes the same bits in one call: binary64
 * addition in the same operand order, then conversion to binary32 with
 * round-to-nearest-even (SSE2 arithmetic, built with -ffp-contract=off). Built on first
 * use by simulators/core/native.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

enum { INEXACT = 1, TINY_SUM = 2, DECLINE = 4 };

static inline uint64_t bits64(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }

/* chain(P, acc0, S, prev) -> what loops.py's checks would find, or None when the
 * buffers do not fit: P and S binary64 (n, w), C-contiguous, S written; acc0 and prev
 * binary32 (w,), prev written with the last step's rounded sums. The result's bits:
 * INEXACT  some sum rounded (binary64 or binary32 rounding: fp32.NX);
 * TINY_SUM some sum below binary32's normal range and not zero (loops.py's _tiny
 *          decides those, from S);
 * DECLINE  some sum huge, infinite or NaN, or a binary32 midpoint reached through a
 *          binary64 sum that itself rounded (fp32.fast_fma_sum's refusal).
 * The tests are fp32.fast_fma_sum's and _fast's, in the same binary64 operations. */
static PyObject *chain(PyObject *self, PyObject *args) {
    Py_buffer p, a, s, o;
    if (!PyArg_ParseTuple(args, "y*y*w*w*", &p, &a, &s, &o))
        return NULL;
    Py_ssize_t w = a.len / (Py_ssize_t)sizeof(float);
    Py_ssize_t n = w ? p.len / (Py_ssize_t)sizeof(double) / w : 0;
    PyObject *out = Py_None;
    if (o.len == a.len && s.len == p.len && p.len == n * w * (Py_ssize_t)sizeof(double)) {
        const double *P = p.buf;
        double *S = s.buf;
        float *prev = o.buf;
        const double big = 0x1p127, tiny = 0x1p-126;
        int found = 0;
        memcpy(prev, a.buf, (size_t)a.len);
        for (Py_ssize_t i = 0; i < n; i++) {
            const double *row = P + i * w;
            double *sums = S + i * w;
            for (Py_ssize_t j = 0; j < w; j++) {
                double pj = row[j], z = (double)prev[j];
                double sum = pj + z;
                double bb = sum - pj;
                int inexact = (pj - (sum - bb)) + (z - bb) != 0;
                double mag = fabs(sum);
                float r = (float)sum;
                sums[j] = sum;
                prev[j] = r;
                if (!(mag < big))
                    found |= DECLINE;
                else if (mag < tiny && sum != 0)
                    found |= TINY_SUM;
                else if (inexact && (bits64(sum) & ((1ull << 29) - 1)) == (1ull << 28))
                    found |= DECLINE;
                if (inexact || (double)r != sum)
                    found |= INEXACT;
            }
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
