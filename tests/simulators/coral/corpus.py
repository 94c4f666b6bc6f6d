"""A large, deterministic corpus of GNU-syntax coral assembly made from the ISA data:
every instruction and pseudo-instruction with random operands in every written form
(ABI and numbered register names, omitted optional operands, %hi/%lo, numeric
labels), plus data directives. Used to compare our bytes with GNU as + ld."""
from __future__ import annotations

import random
import struct

from kernelcraft.isa.loader import get_isa

ISA = get_isa("coral")
# vector register operands a corpus line may use without tripping GNU's static
# overlap checks (widening, slides, gathers, masks): distinct groups of 8
V_GROUPS = (8, 16, 24)


def _reg(rng: random.Random, kind, avoid_zero: bool = False) -> str:
    lo = 1 if avoid_zero else 0
    i = rng.randrange(lo, kind.count)
    names = kind.register_names(i)
    return rng.choice(names) if rng.random() < 0.7 else names[0]


def _imm(rng: random.Random, kind) -> str:
    lo, hi = kind.min, kind.max
    edge = rng.random()
    if edge < 0.15:
        v = lo
    elif edge < 0.3:
        v = hi
    elif edge < 0.4:
        v = 0
    else:
        v = rng.randint(lo, hi)
    v -= v % kind.align
    if kind.name in ("uimm20",) and rng.random() < 0.3:
        return hex(v)
    return str(v)


def operand_text(rng, kind, d, name, used_v, pc, text_end):
    if kind.is_register and kind.prefix == "v":
        choices = [g for g in V_GROUPS if g not in used_v]
        if d.mnemonic.startswith("vmv") and d.mnemonic.endswith("r.v"):
            n = int(d.mnemonic[3])
            choices = [g for g in choices if g % n == 0]
        g = rng.choice(choices)
        used_v.add(g)
        return f"v{g}"
    if kind.is_register:
        return _reg(rng, kind)
    if kind.pcrel:
        lo = max(kind.min, -pc)
        hi = min(kind.max, text_end - pc)
        off = rng.randint(lo // 4, hi // 4) * 4
        return f". + {off}" if off >= 0 else f". - {-off}"
    if kind.names and kind.name != "csr":
        return rng.choice([n for n, _ in kind.names])
    if kind.name == "csr":
        return rng.choice([n for n, _ in kind.names] + [str(rng.randrange(0, 4096))])
    return _imm(rng, kind)


def instruction_line(rng: random.Random, d, pc: int, text_end: int) -> str:
    used_v: set[int] = set()
    values = {}
    for op in d.operands:
        if op.optional and rng.random() < 0.4:
            values[op.name] = None
            continue
        values[op.name] = operand_text(rng, op.kind, d, op.name, used_v, pc, text_end)
    if d.mnemonic in ("fence",) and (values["pred"] is None) != (values["succ"] is None):
        values["pred"] = values["succ"] = None
    if d.mnemonic in ("vsetvli", "vsetivli") and values["vsew"] == "e64":
        values["vsew"] = "e32"
    text = d.template
    # drop omitted optional groups, keep the rest
    out, i = "", 0
    while i < len(text):
        if text[i] == "[":
            j = text.index("]", i)
            group = text[i + 1:j]
            names = [n.strip("{}") for n in group.replace(",", " ").split() if n.startswith("{")]
            if all(values.get(n) is not None for n in names):
                out += group
            i = j + 1
            continue
        out += text[i]
        i += 1
    for name, v in values.items():
        out = out.replace("{" + name + "}", v if v is not None else "")
    return f"{d.mnemonic} {out}".strip()


def pseudo_lines(rng: random.Random) -> list[str]:
    x = ISA.kinds["x"]
    out = []
    for v in (0, 1, -1, 2047, -2048, 2048, -2049, 0x800, 0x7FF, 0x12345678, 0x7FFFFFFF, -0x80000000,
              0xFFFFFFFF, 0x80000000, 0x1000, 0xFFFFF000, 0x12345000, 100000, -100000):
        out.append(f"li {_reg(rng, x)}, {v}")
    for _ in range(30):
        out.append(f"li {_reg(rng, x)}, {rng.randint(-2**31, 2**32 - 1)}")
    out += ["li a0, CONST_A", "li a1, CONST_A * 3 + 1", "li t0, %lo(CONST_A)"]
    for _ in range(8):
        r, s = _reg(rng, x), _reg(rng, x)
        out += [f"mv {r}, {s}", f"not {r}, {s}", f"neg {r}, {s}", f"seqz {r}, {s}", f"snez {r}, {s}",
                f"sltz {r}, {s}", f"sgtz {r}, {s}"]
    out += ["nop", "ret", "jr a0", "jalr t1", "jalr ra, a0, 12", "jalr ra, 12(a0)", "jalr a0, 0(a1)",
            "fmv.s fa0, fa1", "fabs.s ft0, ft1", "fneg.s f3, f4", "csrr a0, fcsr", "csrw frm, a1",
            "csrs fflags, a2", "csrc fflags, a3", "csrwi frm, 1", "csrsi fflags, 4", "csrci fflags, 31",
            "frcsr a0", "fscsr a1", "fscsr a0, a1", "frrm a2", "fsrm a3", "fsrm a0, a3", "frflags a4",
            "fsflags a5", "fsflags a0, a5", "fsrmi 2", "fsflagsi 0", "rdcycle t0", "rdinstret t1",
            "rdtime t2", "rdcycleh a0", "rdinstreth a1", "rdtimeh a2", "fence", "fence rw, rw",
            "fence iorw, o", "vnot.v v8, v16", "vnot.v v8, v16, v0.t", "vneg.v v8, v24",
            "vwcvt.x.x.v v8, v16", "vwcvtu.x.x.v v16, v24, v0.t", "vncvt.x.x.w v8, v16",
            "vfneg.v v8, v16", "vfabs.v v8, v16, v0.t", "vmmv.m v1, v2", "vmclr.m v3", "vmset.m v4",
            "vmnot.m v5, v6", "vmsgt.vv v1, v8, v16", "vmsgtu.vv v1, v8, v16, v0.t",
            "vmsge.vv v2, v8, v16", "vmsgeu.vv v3, v8, v16", "vmfgt.vv v4, v8, v16",
            "vmfge.vv v5, v8, v16, v0.t", "csrwi vxrm, 3", "csrr a0, vxsat", "csrw vcsr, a1",
            "csrci vxsat, 1", "vlseg4e16.v v4, (a0), v0.t", "vsoxseg3ei8.v v1, (a1), v30, v0.t",
            "vl8re32.v v0, (sp)", "vs1r.v v31, (t0)", "vadc.vvm v1, v2, v3, v0", "vmadc.vv v0, v2, v3",
            "vnclip.wi v1, v2, 31, v0.t", "vfrec7.v v0, v31", "vmslt.vi v1, v8, 5", "vmslt.vi v1, v8, -15",
            "vmsltu.vi v2, v8, 16", "vmsge.vi v3, v8, 0", "vmsgeu.vi v4, v8, 7, v0.t"]
    return out


def corpus(seed: int = 1, per_instruction: int = 6) -> str:
    """Assembly text: pseudo-instructions, every instruction `per_instruction` times,
    branches to labels and numeric labels, data directives."""
    rng = random.Random(seed)
    text = [".text", ".globl _start", ".equ CONST_A, 0x1234", "_start:"]
    text += pseudo_lines(rng)
    text += ["la a0, table", "lla a1, words + 8", "lw a2, table", "lh a3, halves", "lbu a4, bytes",
             "sw a2, table, t0", "sh a3, halves + 2, t1", "sb a4, bytes + 1, t2",
             "flw fa0, floats, t3", "fsw fa1, floats + 4, t4", "call helper", "tail helper",
             "lui a5, %hi(words)", "addi a5, a5, %lo(words)", "lw a6, %lo(words)(a5)",
             "1: auipc a7, %pcrel_hi(floats)", "flw ft0, %pcrel_lo(1b)(a7)",
             "2: addi t0, t0, -1", "bnez t0, 2b", "beqz t1, 3f", "j 2b", "3: nop",
             "bgt a0, a1, near", "ble a0, a1, 2b", "bgtu a0, a1, 3b", "bleu a0, a1, near",
             "blez a0, near", "bgez a0, near", "bltz a0, near", "near: bgtz a0, near",
             "j helper", "jal helper", "jal ra, helper"]
    n_text = len(text) + per_instruction * len(ISA.instructions) + 8
    pc = 4 * (len(text) + 40)        # li expands to up to 2 words; a safe lower bound
    body = []
    for d in ISA.instructions.values():
        if d.mnemonic in ("ecall", "ebreak"):
            body.append(d.mnemonic)
            continue
        for _ in range(per_instruction):
            body.append(instruction_line(rng, d, pc, 4 * n_text))
            pc += 4
    text += body
    text += ["helper:", "ret", ".align 4", "addi a0, a0, 1", ".fill 2, 4, 0x00000013",
             ".data", "table: .word 1, -2, 0x7FFFFFFF, 0xFFFFFFFF, table, _start",
             "halves: .half 1, -1, 0xFFFF, 300", "bytes: .byte 1, 255, -128, 'x' - 'x'",
             ".align 2", "words: .4byte 7, 8, 9, 10",
             "floats: .float 1.0, -2.5, 0.1, 3.4028235e38, 1e-45, 1.17549435e-38, 0f1.5, -0.0, 6.02e23",
             ".string \"hello, world\\n\"", ".asciz \"tab\\there\"", ".ascii \"no nul\"",
             ".p2align 3", "aligned: .zero 12", ".balign 16", ".space 5, 0xAB", ".skip 3",
             ".2byte 0x1234", ".long -7", ".short 9",
             "filled: .fill 3", ".fill 2, 2, 0x1234", ".fill 2, 8, -1", ".fill 3, 3, 0xaabbccdd",
             ".fill 0, 4, 7", ".fill 2, 1, 300"]
    floats = [struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0] for _ in range(40)]
    text.append(".float " + ", ".join(repr(f) for f in floats if f == f and abs(f) != float("inf")))
    text += [".section .rodata", "ro: .word 0xCAFEBABE", ".string \"ro\"",
             ".bss", "buffer: .zero 64", ".align 4", "buffer2: .space 16"]
    return "\n".join(text).replace("'x' - 'x'", "0") + "\n"
