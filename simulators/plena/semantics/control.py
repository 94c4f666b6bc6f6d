"""Control (C-type) semantics: status registers and hardware loops. A loop counter is an
ordinary gp register, so a body that changes it changes the trip count."""
from kernelcraft.simulators.core.errors import IllegalOperandError

from ..state import SCALE_OFFSET, STRIDE, V_MASK
from . import STOP, flow, semantics


@semantics
def C_SET_ADDR_REG(m, rd, rs1, rs2):
    m.set_a(rd, (m.gp[rs1] << 32) + (m.gp[rs2] & 0xFFFFFFFF))


@semantics
def C_SET_SCALE_REG(m, rd):
    m.set_csr(SCALE_OFFSET, m.gp[rd])


@semantics
def C_SET_STRIDE_REG(m, rd):
    m.set_csr(STRIDE, m.gp[rd])


@semantics
def C_SET_V_MASK_REG(m, rd):
    m.set_csr(V_MASK, m.gp[rd])


@flow
def C_LOOP_START(m, rd, imm, pc):
    m.push_loop(pc + 1)
    m.set_gp(rd, imm)


@flow
def C_LOOP_END(m, rd, pc):
    if not m.loops:
        raise IllegalOperandError(
            "C_LOOP_END without an open hardware loop: pair it with an earlier C_LOOP_START")
    m.set_gp(rd, m.gp[rd] - 1)
    if m.gp[rd] > 0:
        return m.loops[-1]
    m.pop_loop()


@flow
def C_BREAK(m, pc):
    return STOP
