"""Random valid coral scalar programs (RV32IMF + Zicsr) for differential testing of the
RTL against the model: every integer, M and F instruction (F in every rounding mode,
static and dynamic), loads and stores of every width (and sign) at random aligned
offsets in a data buffer that holds special floats among random words, CSR reads and
writes, forward branches of every condition, counted backward loops, and calls.

Registers: s0 points at the buffer, s1 counts loops, t1 is the call link; the rest
(except zero, sp) take random values. TEST_CONFIG is the small configuration the RTL
tests share (one build).
"""
from __future__ import annotations

import random

TEST_CONFIG = {"ITCM_SIZE": 1 << 16, "DTCM_BASE": 0x10000, "DTCM_SIZE": 1 << 20}
REGS = [f"x{i}" for i in range(3, 32) if i not in (6, 8, 9)]    # not zero/ra/sp, t1, s0, s1
ALU_RR = ["add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and",
          "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"]
ALU_RI = ["addi", "slti", "sltiu", "xori", "ori", "andi"]
SHIFTS = ["slli", "srli", "srai"]
BRANCHES = ["beq", "bne", "blt", "bge", "bltu", "bgeu"]
LOADS = {"lb": 1, "lbu": 1, "lh": 2, "lhu": 2, "lw": 4}
STORES = {"sb": 1, "sh": 2, "sw": 4}
CSR_RW = ["fflags", "fcsr", "vxrm", "vxsat", "vcsr"]      # frm: only valid modes (fsrmi)
FREGS = [f"f{i}" for i in range(32)]
RMS = ["rne", "rtz", "rdn", "rup", "rmm", "dyn"]
F_RR_RM = ["fadd.s", "fsub.s", "fmul.s", "fdiv.s"]
F_RR = ["fsgnj.s", "fsgnjn.s", "fsgnjx.s", "fmin.s", "fmax.s"]
F_FMA = ["fmadd.s", "fmsub.s", "fnmsub.s", "fnmadd.s"]
SPECIAL_FLOATS = [0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x3F800000,
                  0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
                  0x7F800001, 0xFFC00123, 0x4F000000, 0xCF000000, 0x4F800000, 0x3F000000,
                  0x3FC00000, 0xC0200000, 0x2F800000, 0x5F000000]
CSR_RO = ["cycle", "cycleh", "instret", "instreth", "time", "vlenb", "mhartid", "vl", "vtype", "vstart"]
BUFFER = 512


def _value(rng: random.Random) -> int:
    return rng.choice([rng.getrandbits(32) - (1 << 31), rng.randint(-40, 40), 0, -1,
                       -(1 << 31), (1 << 31) - 1, rng.randint(1, 4)])


def _straight(rng: random.Random) -> str:
    c = rng.random()
    rd, a, b = rng.choice(REGS), rng.choice(REGS + ["zero"]), rng.choice(REGS + ["zero"])
    if c < 0.35:
        return f"{rng.choice(ALU_RR)} {rd}, {a}, {b}"
    if c < 0.5:
        return f"{rng.choice(ALU_RI)} {rd}, {a}, {rng.randint(-2048, 2047)}"
    if c < 0.55:
        return f"{rng.choice(SHIFTS)} {rd}, {a}, {rng.randrange(32)}"
    if c < 0.6:
        return f"{rng.choice(['lui', 'auipc'])} {rd}, {rng.randrange(1 << 20)}"
    if c < 0.72:
        op = rng.choice(list(LOADS))
        return f"{op} {rd}, {LOADS[op] * rng.randrange(BUFFER // LOADS[op])}(s0)"
    if c < 0.84:
        op = rng.choice(list(STORES))
        return f"{op} {a}, {STORES[op] * rng.randrange(BUFFER // STORES[op])}(s0)"
    if c < 0.92:
        csr = rng.choice(CSR_RW)
        if rng.random() < 0.5:
            return f"{rng.choice(['csrrw', 'csrrs', 'csrrc'])} {rd}, {csr}, {a}"
        return f"{rng.choice(['csrrwi', 'csrrsi', 'csrrci'])} {rd}, {csr}, {rng.randrange(32)}"
    return f"csrr {rd}, {rng.choice(CSR_RO)}"


def _fp(rng: random.Random) -> str:
    c = rng.random()
    fd, fa, fb, fc = (rng.choice(FREGS) for _ in range(4))
    rm = rng.choice(RMS)
    if c < 0.22:
        return f"{rng.choice(F_RR_RM)} {fd}, {fa}, {fb}, {rm}"
    if c < 0.34:
        return f"{rng.choice(F_FMA)} {fd}, {fa}, {fb}, {fc}, {rm}"
    if c < 0.44:
        return f"{rng.choice(F_RR)} {fd}, {fa}, {fb}"
    if c < 0.5:
        return f"fsqrt.s {fd}, {fa}, {rm}"
    if c < 0.58:
        return f"{rng.choice(['feq.s', 'flt.s', 'fle.s'])} {rng.choice(REGS)}, {fa}, {fb}"
    if c < 0.66:
        return f"{rng.choice(['fcvt.w.s', 'fcvt.wu.s'])} {rng.choice(REGS)}, {fa}, {rm}"
    if c < 0.72:
        return f"{rng.choice(['fcvt.s.w', 'fcvt.s.wu'])} {fd}, {rng.choice(REGS)}, {rm}"
    if c < 0.76:
        return f"fclass.s {rng.choice(REGS)}, {fa}"
    if c < 0.8:
        return f"fmv.x.w {rng.choice(REGS)}, {fa}"
    if c < 0.84:
        return f"fmv.w.x {fd}, {rng.choice(REGS)}"
    if c < 0.92:
        return f"flw {fd}, {4 * rng.randrange(BUFFER // 4)}(s0)"
    if c < 0.96:
        return f"fsw {fa}, {4 * rng.randrange(BUFFER // 4)}(s0)"
    return f"fsrmi {rng.randrange(5)}"


def random_program(seed: int, length: int = 120, fp: float = 0.35) -> str:
    rng = random.Random(seed)
    out = [".text", "la s0, buf"]
    out += [f"li {r}, {_value(rng)}" for r in REGS]
    out += [f"flw {f}, {4 * rng.randrange(BUFFER // 4)}(s0)" for f in FREGS]
    label = 0
    k = 0
    while k < length:
        c = rng.random()
        if c < 0.1:                              # forward branch over a few instructions
            n = rng.randint(0, 3)
            out.append(f"{rng.choice(BRANCHES)} {rng.choice(REGS)}, {rng.choice(REGS)}, skip{label}")
            out += [_straight(rng) for _ in range(n)]
            out.append(f"skip{label}:")
            label += 1
            k += n + 1
        elif c < 0.16:                           # a counted loop (backward branch)
            n = rng.randint(1, 4)
            out.append(f"li s1, {rng.randint(1, 5)}")
            out.append(f"loop{label}:")
            out += [_straight(rng) for _ in range(n)]
            out.append("addi s1, s1, -1")
            out.append(f"bnez s1, loop{label}")
            label += 1
            k += n + 3
        elif c < 0.2:                            # a call and return
            out.append("jal t1, sub")
            k += 1
        elif c < 0.2 + fp:
            out.append(_fp(rng))
            k += 1
        else:
            out.append(_straight(rng))
            k += 1
    out += ["j end", "sub:"] + [_straight(rng) for _ in range(3)] + ["jr t1", "end:"]
    words = ", ".join(f"{rng.choice(SPECIAL_FLOATS) if rng.random() < 0.3 else rng.getrandbits(32):#x}"
                      for _ in range(BUFFER // 4))
    out += [".data", ".balign 16", f"buf: .word {words}"]
    return "\n".join(out) + "\n"
