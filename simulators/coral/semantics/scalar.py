"""RV32I, M, F and Zicsr semantics as code generators.

Each function gets the instruction's operands (names as in isa/coral/*.toml) plus
`pc` (instruction index), `addr` (its byte address) and `traced`, and returns a Code
whose statements run inside a block function. Names the statements may use:
`x`, `f` (register lists), `fc` ([fflags, frm]), `m8`/`m16`/`m32` (DTCM views),
`DB` (DTCM base), `DL1`/`DL2`/`DL4` (last valid offset per access size), `M`
(0xFFFFFFFF), `T` and `R` (cycle and retired count at block start, in timed code),
the fp32 functions, and the system helpers of system.py bound to the state
(BAD, STORE, CSR, FRM, JUMP, VSET; see compiler.py). Registers hold
unsigned 32-bit values; signed views are made with `(v ^ SB) - SB`.
"""
from __future__ import annotations

from . import Code, scalar

SB = 0x80000000
M = 0xFFFFFFFF


def setx(rd: int, expr: str) -> list[str]:
    """x[rd] = expr; writes to x0 are dropped (expr must have no side effects)."""
    return [f"x[{rd}] = {expr}"] if rd else []


def signed(reg: str) -> str:
    return f"(({reg} ^ {SB}) - {SB})"


# --- integer ALU -------------------------------------------------------------------

ALU_RR = {
    "add": "(x[{a}] + x[{b}]) & M",
    "sub": "(x[{a}] - x[{b}]) & M",
    "sll": "(x[{a}] << (x[{b}] & 31)) & M",
    "slt": f"(1 if (x[{{a}}] ^ {SB}) < (x[{{b}}] ^ {SB}) else 0)",
    "sltu": "(1 if x[{a}] < x[{b}] else 0)",
    "xor": "x[{a}] ^ x[{b}]",
    "srl": "x[{a}] >> (x[{b}] & 31)",
    "sra": f"((((x[{{a}}] ^ {SB}) - {SB}) >> (x[{{b}}] & 31)) & M)",
    "or": "x[{a}] | x[{b}]",
    "and": "x[{a}] & x[{b}]",
    "mul": "(x[{a}] * x[{b}]) & M",
    "mulh": f"((((x[{{a}}] ^ {SB}) - {SB}) * ((x[{{b}}] ^ {SB}) - {SB})) >> 32) & M",
    "mulhsu": f"((((x[{{a}}] ^ {SB}) - {SB}) * x[{{b}}]) >> 32) & M",
    "mulhu": "(x[{a}] * x[{b}]) >> 32",
    "div": "div_s(x[{a}], x[{b}])",
    "divu": "div_u(x[{a}], x[{b}])",
    "rem": "rem_s(x[{a}], x[{b}])",
    "remu": "rem_u(x[{a}], x[{b}])",
}


@scalar(*ALU_RR)
def _alu_rr(mnemonic, rd, rs1, rs2, **_):
    return Code(setx(rd, ALU_RR[mnemonic].format(a=rs1, b=rs2)))


def _imm_expr(mnemonic: str, rs1: int, imm: int) -> str:
    u = imm & M
    return {
        "addi": f"(x[{rs1}] + {imm}) & M",
        "slti": f"(1 if (x[{rs1}] ^ {SB}) < {u ^ SB} else 0)",
        "sltiu": f"(1 if x[{rs1}] < {u} else 0)",
        "xori": f"x[{rs1}] ^ {u}",
        "ori": f"x[{rs1}] | {u}",
        "andi": f"x[{rs1}] & {u}",
    }[mnemonic]


@scalar("addi", "slti", "sltiu", "xori", "ori", "andi")
def _alu_ri(mnemonic, rd, rs1, imm, **_):
    return Code(setx(rd, _imm_expr(mnemonic, rs1, imm)))


@scalar("slli", "srli", "srai")
def _shift_imm(mnemonic, rd, rs1, shamt, **_):
    expr = {"slli": f"(x[{rs1}] << {shamt}) & M", "srli": f"x[{rs1}] >> {shamt}",
            "srai": f"({signed(f'x[{rs1}]')} >> {shamt}) & M"}[mnemonic]
    return Code(setx(rd, expr))


@scalar("lui")
def _lui(rd, imm, **_):
    return Code(setx(rd, str((imm << 12) & M)))


@scalar("auipc")
def _auipc(rd, imm, addr, **_):
    return Code(setx(rd, str((addr + (imm << 12)) & M)))


# --- loads and stores ----------------------------------------------------------------

def _check(pc: int, addr: str, n: int, what: str) -> list[str]:
    align = f" or a & {n - 1}" if n > 1 else ""
    return [f"a = ({addr}) & M", "o = a - DB",
            f"if o < 0 or o > DL{n}{align}: raise BAD({pc}, a, {n}, '{what}')"]


READ = {1: "m8[o]", 2: "m16[o >> 1]", 4: "m32[o >> 2]"}


@scalar("lb", "lh", "lw", "lbu", "lhu")
def _load(mnemonic, rd, rs1, imm, pc, **_):
    n = {"lb": 1, "lbu": 1, "lh": 2, "lhu": 2, "lw": 4}[mnemonic]
    value = READ[n]
    if mnemonic in ("lb", "lh"):
        half = 1 << (8 * n - 1)
        value = f"(({value} ^ {half}) - {half}) & M"
    return Code(_check(pc, f"x[{rs1}] + {imm}", n, "load") + setx(rd, value), mem=True, sync="load")


def _store(pc: int, addr: str, n: int, value: str, traced: bool) -> list[str]:
    if traced:
        return [f"STORE({pc}, ({addr}) & M, {n}, {value})"]
    write = {1: f"m8[o] = {value} & 0xFF", 2: f"m16[o >> 1] = {value} & 0xFFFF", 4: f"m32[o >> 2] = {value}"}[n]
    return _check(pc, addr, n, "store") + [write]


@scalar("sb", "sh", "sw")
def _store_x(mnemonic, rs2, rs1, imm, pc, traced, **_):
    n = {"sb": 1, "sh": 2, "sw": 4}[mnemonic]
    return Code(_store(pc, f"x[{rs1}] + {imm}", n, f"x[{rs2}]", traced), mem=True, sync="store")


@scalar("flw")
def _flw(rd, rs1, imm, pc, **_):
    return Code(_check(pc, f"x[{rs1}] + {imm}", 4, "load") + [f"f[{rd}] = m32[o >> 2]"], mem=True, sync="load")


@scalar("fsw")
def _fsw(rs2, rs1, imm, pc, traced, **_):
    return Code(_store(pc, f"x[{rs1}] + {imm}", 4, f"f[{rs2}]", traced), mem=True, sync="store")


# --- control flow ---------------------------------------------------------------------

BRANCH = {
    "beq": "x[{a}] == x[{b}]", "bne": "x[{a}] != x[{b}]",
    "blt": f"(x[{{a}}] ^ {SB}) < (x[{{b}}] ^ {SB})", "bge": f"(x[{{a}}] ^ {SB}) >= (x[{{b}}] ^ {SB})",
    "bltu": "x[{a}] < x[{b}]", "bgeu": "x[{a}] >= x[{b}]",
}


@scalar(*BRANCH)
def _branch(mnemonic, rs1, rs2, imm, addr, **_):
    return Code(flow="branch", cond=BRANCH[mnemonic].format(a=rs1, b=rs2), target=(addr + imm) // 4)


@scalar("jal")
def _jal(rd, imm, addr, **_):
    return Code(setx(rd, str((addr + 4) & M)), flow="jump", target=(addr + imm) // 4)


@scalar("jalr")
def _jalr(rd, rs1, imm, addr, pc, **_):
    return Code([f"a = (x[{rs1}] + {imm}) & {M & ~1}"] + setx(rd, str((addr + 4) & M))
                + [f"nxt = JUMP({pc}, a)"], flow="indirect")


@scalar("ecall")
def _ecall(**_):
    return Code(flow="stop", stop="ecall", sync="drain")


@scalar("ebreak")
def _ebreak(**_):
    return Code(flow="stop", stop="break", sync="drain")


@scalar("fence")
def _fence(**_):
    return Code(timed=True, sync="drain")


# --- CSR ----------------------------------------------------------------------------

@scalar("csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci")
def _csr(mnemonic, rd, csr, pc, k, rs1=None, uimm=None, **_):
    op = mnemonic[4]                                  # w, s or c
    if uimm is not None:
        src = str(uimm)
        writes = op == "w" or uimm != 0
    else:
        src = f"x[{rs1}]"
        writes = op == "w" or rs1 != 0
    call = f"CSR({pc}, {csr}, '{op}', {src if writes else 'None'}, T, R + {k})"
    lines = [f"v = {call}"] + setx(rd, "v")
    return Code(lines, timed=True, sync="drain" if csr in (1, 3, 9, 15) else "")   # fflags, fcsr, vxsat, vcsr


# --- floating point -------------------------------------------------------------------

def _rm(rm: int, pc: int) -> str:
    """The rounding mode expression: a constant, or frm checked at run time (dyn)."""
    return str(rm) if rm != 7 else f"(fc[1] if fc[1] < 5 else FRM({pc}))"     # FRM: the reserved-frm error


def _fp(rd_set: str, call: str) -> list[str]:
    return [f"r, fl = {call}", rd_set.format("r"), "fc[0] |= fl"]


FP_BINARY = {"fadd.s": "fadd", "fsub.s": "fsub", "fmul.s": "fmul", "fdiv.s": "fdiv"}


@scalar(*FP_BINARY)
def _fp_binary(mnemonic, rd, rs1, rs2, rm, pc, **_):
    return Code(_fp(f"f[{rd}] = {{}}", f"{FP_BINARY[mnemonic]}(f[{rs1}], f[{rs2}], {_rm(rm, pc)})"))


@scalar("fsqrt.s")
def _fsqrt(rd, rs1, rm, pc, **_):
    return Code(_fp(f"f[{rd}] = {{}}", f"fsqrt(f[{rs1}], {_rm(rm, pc)})"))


FMA = {"fmadd.s": (False, False), "fmsub.s": (False, True), "fnmsub.s": (True, False), "fnmadd.s": (True, True)}


@scalar(*FMA)
def _fma(mnemonic, rd, rs1, rs2, rs3, rm, pc, **_):
    neg_p, neg_c = FMA[mnemonic]
    return Code(_fp(f"f[{rd}] = {{}}", f"fma(f[{rs1}], f[{rs2}], f[{rs3}], {_rm(rm, pc)}, {neg_p}, {neg_c})"))


@scalar("fsgnj.s", "fsgnjn.s", "fsgnjx.s")
def _fsgnj(mnemonic, rd, rs1, rs2, **_):
    expr = {"fsgnj.s": f"(f[{rs1}] & 0x7FFFFFFF) | (f[{rs2}] & {SB})",
            "fsgnjn.s": f"(f[{rs1}] & 0x7FFFFFFF) | (~f[{rs2}] & {SB})",
            "fsgnjx.s": f"f[{rs1}] ^ (f[{rs2}] & {SB})"}[mnemonic]
    return Code([f"f[{rd}] = {expr}"])


@scalar("fmin.s", "fmax.s")
def _fminmax(mnemonic, rd, rs1, rs2, **_):
    return Code(_fp(f"f[{rd}] = {{}}", f"fmin(f[{rs1}], f[{rs2}], {mnemonic == 'fmax.s'})"))


@scalar("fcvt.w.s", "fcvt.wu.s")
def _fcvt_to_int(mnemonic, rd, rs1, rm, pc, **_):
    lines = _fp("v = {}", f"fcvt_to_int(f[{rs1}], {_rm(rm, pc)}, {mnemonic == 'fcvt.w.s'})")
    return Code(lines + setx(rd, "v"))


@scalar("fcvt.s.w", "fcvt.s.wu")
def _fcvt_from_int(mnemonic, rd, rs1, rm, pc, **_):
    return Code(_fp(f"f[{rd}] = {{}}", f"fcvt_from_int(x[{rs1}], {_rm(rm, pc)}, {mnemonic == 'fcvt.s.w'})"))


@scalar("fmv.x.w")
def _fmv_x_w(rd, rs1, **_):
    return Code(setx(rd, f"f[{rs1}]"))


@scalar("fmv.w.x")
def _fmv_w_x(rd, rs1, **_):
    return Code([f"f[{rd}] = x[{rs1}]"])


@scalar("feq.s", "flt.s", "fle.s")
def _fcmp(mnemonic, rd, rs1, rs2, **_):
    lines = _fp("v = {}", f"fcompare(f[{rs1}], f[{rs2}], '{mnemonic[1:3]}')")
    return Code(lines + setx(rd, "v"))


@scalar("fclass.s")
def _fclass(rd, rs1, **_):
    return Code(setx(rd, f"fclass(f[{rs1}])"))
