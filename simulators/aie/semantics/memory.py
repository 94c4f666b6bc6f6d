"""Loads and stores. `n` and `align` come from the operation's record; the address is
the pointer's value, checked by `m.access` (range, alignment, data races)."""
import numpy as np

from . import semantics

I32 = np.dtype("<i4")


@semantics
def VLD(m, n, align, d, p, pm):
    a = m.access(m.p[p], n, align, False)
    m.set_x(d, m.dm[a:a + n])
    if pm[0] or pm[1]:
        m.post(p, pm)


@semantics
def VLDB(m, n, align, d, p, pm):
    a = m.access(m.p[p], n, align, False)
    m.set_x(d, np.full(32, m.dm16[a >> 1], dtype=np.uint16))
    m.post(p, pm)


@semantics
def LD(m, n, align, d, p, pm):
    a = m.access(m.p[p], n, align, False)
    m.set_r(d, int(m.dm[a:a + n].view(I32)[0]))
    m.post(p, pm)


@semantics
def ALD(m, n, align, d, p, pm):
    a = m.access(m.p[p], n, align, False)
    m.set_acc(d, m.dm[a:a + n].view(np.uint32))
    m.post(p, pm)


@semantics
def VST(m, n, align, s, p, pm):
    a = m.access(m.p[p], n, align, True)
    m.write_dm(a, m.x[s])
    m.post(p, pm)


@semantics
def ST(m, n, align, s, p, pm):
    a = m.access(m.p[p], n, align, True)
    m.write_dm(a, np.array([m.r[s]], dtype=I32))
    m.post(p, pm)


@semantics
def AST(m, n, align, s, p, pm):
    a = m.access(m.p[p], n, align, True)
    m.write_dm(a, m.acc[s])
    m.post(p, pm)
