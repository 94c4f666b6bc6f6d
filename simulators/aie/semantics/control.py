"""Control operations: hardware loops, locks, DMA and HALT. The timing model waits for
an ACQ's lock and for room in a DMA queue before the bundle executes (machine.py); the
functions here only change state."""
from kernelcraft.simulators.core.errors import IllegalOperandError

from . import semantics


@semantics(extra="next")
def LOOP(m, imm, nxt):
    m.push_loop(nxt, imm)


@semantics(extra="next")
def LOOPR(m, a, nxt):
    n = m.r[a]
    if n < 1:
        raise IllegalOperandError(f"LOOPR trip count r{a} = {n}; a loop runs at least once "
                                  "(set r to 1 or more, or skip the loop)")
    m.push_loop(nxt, n)


@semantics
def ACQ(m, d, imm):
    m.set_lock(d, m.locks[d] - imm)


@semantics
def REL(m, d, imm):
    v = m.locks[d] + imm
    if v > m.lock_max:
        raise IllegalOperandError(f"REL l{d}, {imm} would make l{d} = {v}; a lock holds 0..{m.lock_max}")
    m.set_lock(d, v)
    m.dma.schedule(m.now)


@semantics(extra="where")
def DMAIN(m, ch, bd, a, b, where):
    m.dma.queue("in", ch, bd, m.r[a], m.r[b], m.now, m.descriptors, m.descriptor_names, where)


@semantics(extra="where")
def DMAOUT(m, ch, bd, a, b, where):
    m.dma.queue("out", ch, bd, m.r[a], m.r[b], m.now, m.descriptors, m.descriptor_names, where)


@semantics
def HALT(m):
    m.halted = True
