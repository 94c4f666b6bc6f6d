"""Random loops run the same with the fast paths on and off: the conformance corpus's
random instruction mixes (conformance/randprog.py) wrapped in a loop, so that the
self-looping block translation (selfloop.py) and every per-instruction fast path run
them many times -- whole, cut by the instruction budget, and stopped by a memory
fault in a later iteration."""
import random
import re
import sys
from pathlib import Path

import pytest

from kernelcraft.isa.coral import default_config
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.machine import CoralModel
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.speed import same

sys.path.insert(0, str(Path(__file__).resolve().parent / "conformance"))
from randprog import random_body  # noqa: E402

SCALAR_ONLY = ("v", "fsrmi", "csrw")      # lines left out of the scalar-only variant (timed or vector)


def looped(seed: int, trips: int, scalar_only: bool, fault_after: int | None) -> str:
    """randprog's body with its random part inside a loop of `trips` iterations; a
    pointer (gp) walking 4 KiB per iteration stores through it when `fault_after` is
    given, which faults once it leaves DTCM."""
    lines = random_body(seed).splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("fsrmi"))
    last = next(i for i, line in enumerate(lines) if line.startswith("li s0, 0"))
    head, body, tail = lines[:first], lines[first:last], lines[last:]
    if scalar_only:
        body = [line for line in body if not line.lstrip().startswith(SCALAR_ONLY) and "\n" not in line
                and not line.startswith(("addi s1", "li a7", "li s1"))]
    walk = []
    if fault_after is not None:
        cfg = default_config()
        head.append(f"li gp, {cfg.DTCM_SIZE - 4096 * fault_after}\nadd gp, gp, s0")
        walk = ["sw x5, 0(gp)", "li x7, 4096", "add gp, gp, x7"]
    enter = ["j loop"] if seed % 2 else []          # else the first iteration runs in the entry block
    return "\n".join(head + [f"li t6, {trips}"] + enter + ["loop:"] + body + walk
                     + ["addi t6, t6, -1", "bnez t6, loop"] + tail) + "\n"


def _both(source: str, budget: int):
    cfg = default_config()
    program = assemble(source, "loop.s", cfg)
    fast = CoralModel().run(program, MemoryImage(), cfg, Budget(max_instructions=budget))
    slow = CoralModel().run(program, MemoryImage(), cfg, Budget(max_instructions=budget, fast=False))
    return fast, slow


@pytest.mark.parametrize("scalar_only", [True, False], ids=["scalar", "mixed"])
@pytest.mark.parametrize("seed", range(1, 9))
def test_random_loops_agree(seed, scalar_only):
    rng = random.Random(seed)
    trips = rng.randint(3, 40)
    fault = rng.choice([None, rng.randint(1, trips + 3)])
    source = looped(seed, trips, scalar_only, fault)
    fast, slow = _both(source, 5_000_000)
    assert same(fast, slow) == "", same(fast, slow)
    if fault is not None and fault <= trips:
        assert fast.error is not None and "outside DTCM" in str(fast.error)
    # cut by the budget inside the loop, at a few points
    for cut in (fast.retired // 3 + 5, fast.retired // 2 + 1, fast.retired - 2):
        a, b = _both(source, max(1, cut))
        assert same(a, b) == "", (cut, same(a, b))


SHORT_OPS = ["vfadd.vv", "vfsub.vv", "vfmul.vv", "vfmin.vv", "vfmax.vv", "vfadd.vf", "vfrsub.vf",
             "vfmul.vf", "vfmin.vf", "vmflt.vv", "vmfle.vv", "vmfeq.vv", "vmfne.vf", "vmfgt.vf",
             "vslidedown.vi", "vslidedown.vx", "vslide1up.vx", "vslide1down.vx", "vfslide1up.vf",
             "vfslide1down.vf", "vfredusum.vs", "vfmacc.vv", "vfnmsac.vf", "vfmadd.vv", "vfnmadd.vf",
             "vadd.vv", "vsub.vx", "vrsub.vi", "vxor.vv", "vmul.vx", "vand.vi", "vfdiv.vv", "vfrdiv.vf",
             "vfdiv.vf", "vmseq.vv", "vmsltu.vx", "vmslt.vv", "vmsle.vi", "vmsgtu.vi", "vmsgt.vx", "vmsne.vi"]


def short_vector_loop(seed: int) -> str:
    """A loop of the short-vector instructions smallvec.py speeds up, on data with
    zeros of both signs, NaNs, infinities, tiny and huge values, under every tail and
    mask policy, with fflags cleared, frm changed and whole registers reloaded now
    and then. Seeds above 30: vl 20 or 32 at LMUL 8, where only the moves, loads and
    stores take their fast forms (smallvec.LIMIT)."""
    rng = random.Random(seed)
    specials = ["0.0", "-0.0", "1.5", "-2.25", "3.0e38", "-3.0e38", "1e-39", "inf", "-inf", "nan",
                "0.1", "7.0", "1e-45", "65504.0", "1e-20", "-3e-15", "1.0", "4.0"]
    data = [rng.choice(specials) if rng.random() < 0.4 else f"{rng.uniform(-100, 100):.6g}" for _ in range(64)]
    vl = rng.choice([1, 2, 3, 4, 5, 8])
    lmul = rng.choice([1, 2])
    if seed > 30:
        vl, lmul = rng.choice([20, 32]), 8
    pol = f"{rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}"
    out = ["la s0, vals", f"li s1, {vl}", f"vsetvli t0, s1, e32, m{lmul}, {pol}"]
    for r in range(0, 32, 2):
        out.append(f"addi s2, s0, {16 * rng.randrange(12)}\nvle32.v v{r // lmul * lmul}, (s2)")
    out += [f"flw f{k}, {4 * rng.randrange(64)}(s0)" for k in range(8)]
    out += [f"li x{k}, {rng.randrange(6)}" for k in range(5, 8)]
    out += [f"li s3, {default_config().DTCM_SIZE - 64 * rng.randint(4, 40)}", "add s3, s3, s0"]
    out += [f"li t6, {rng.randint(2, 12)}", "loop:"]
    for _ in range(24):
        c = rng.random()
        if c < 0.12:
            out.append("csrwi fflags, 0")
        elif c < 0.15:
            out.append(f"fsrmi {rng.choice([0, 0, 1, 3])}")
        elif c < 0.2:                     # whole registers reloaded: their tails hold data again
            out.append(f"vsetvli t0, zero, e32, m{lmul}, tu, mu\naddi s2, s0, {16 * rng.randrange(12)}\n"
                       f"vle32.v v{lmul * rng.randrange(1, 32 // lmul)}, (s2)\nvsetvli t0, s1, e32, m{lmul}, {pol}")
        elif c < 0.3:                     # unit-stride loads and stores, one walking out of DTCM
            addr = f"addi s2, s0, {4 * rng.randrange(48)}" if rng.random() < 0.8 else "add s2, s3, x0\naddi s3, s3, 64"
            kind = rng.choice(["vle32.v", "vse32.v", "vle16.v", "vse8.v"])
            out.append(f"{addr}\n{kind} v{lmul * rng.randrange(1, 32 // lmul)}, (s2)")
        elif c < 0.4:                     # moves, splats and merges
            vd, a, b = (lmul * rng.randrange(1, 32 // lmul) for _ in range(3))
            out.append(rng.choice([f"vmv.v.v v{vd}, v{a}", f"vmv.v.x v{vd}, x{rng.randrange(5, 8)}",
                                   f"vmv.v.i v{vd}, {rng.randrange(-16, 16)}", f"vmerge.vvm v{vd}, v{a}, v{b}, v0",
                                   f"vmerge.vim v{vd}, v{a}, {rng.randrange(-16, 16)}, v0",
                                   f"vfmv.v.f v{vd}, f{rng.randrange(8)}", f"vfmerge.vfm v{vd}, v{a}, f{rng.randrange(8)}, v0"]))
        elif c < 0.43:
            out.append(f"vsetvli t0, s1, e32, m{lmul}, {rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}")
        else:
            op = rng.choice(SHORT_OPS)
            g = lambda: lmul * rng.randrange(1, 32 // lmul)     # noqa: E731 (not v0)
            vd, a, b = g(), g(), g()
            mask = ", v0.t" if rng.random() < 0.4 else ""
            if op.startswith("vms"):
                vd = rng.randrange(32) if mask == "" else vd
                src = {"vv": f"v{b}", "vx": f"x{rng.randrange(5, 8)}", "vi": str(rng.randrange(-16, 16))}[op[-2:]]
                out.append(f"{op} v{vd}, v{a}, {src}{mask}")
                continue
            if op.startswith(("vmf", "vmfgt")):
                vd = rng.randrange(32) if mask == "" else vd
                out.append(f"{op} v{vd}, v{a}, {'v' + str(b) if op.endswith('vv') else 'f' + str(rng.randrange(8))}{mask}")
                continue
            if "slide" in op and "up" in op:
                while a <= vd < a + lmul or vd <= a < vd + lmul:
                    vd = g()
            if op[1:].startswith(("fmacc", "fnmsac", "fmadd", "fnmadd")) and op.endswith(".vf"):
                out.append(f"{op} v{vd}, f{rng.randrange(8)}, v{a}{mask}")      # vd, rs1, vs2
                continue
            if op.endswith(".vv") or op.endswith(".vs"):
                src = f"v{b}"
            elif op.endswith(".vf"):
                src = f"f{rng.randrange(8)}"
            elif op.endswith(".vx"):
                src = f"x{rng.randrange(5, 8)}"
            else:
                src = str(rng.randrange(-16, 16) if op.startswith(("vrsub", "vand")) else rng.randrange(6))
            out.append(f"{op} v{vd}, v{a}, {src}{mask}")
    out += ["addi t6, t6, -1", "bnez t6, loop", "frflags a0", "ebreak", ".data", "vals: .float " + ", ".join(data)]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("agnostic_ones", [True, False])
@pytest.mark.parametrize("seed", range(1, 37))
def test_short_vector_loops_agree(seed, agnostic_ones):
    cfg = default_config()
    program = assemble(short_vector_loop(seed), "short.s", cfg)
    runs = [CoralModel(agnostic_ones).run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)


@pytest.mark.parametrize("a, b, op", [
    ("1.5", "1e-20", "vfadd.vv"),          # binary64 rounds the sum to a binary32 value: still inexact
    ("1.5", "-1e-20", "vfsub.vv"),
    ("1.5", "1e-20", "vfredusum.vs"),
    ("1.5", "2.25", "vfadd.vv"),           # exact: no NX
    ("0.0", "-0.0", "vfmin.vv"), ("-0.0", "0.0", "vfmax.vv"), ("0.0", "-0.0", "vfadd.vv"),
    ("nan", "1.0", "vmflt.vv"), ("3.0e38", "3.0e38", "vfadd.vv"), ("1e-38", "0.5", "vfmul.vv"),
    ("1.000244140625", "1e-30", "vfmacc.vv"), ("1.000244140625", "-1e-30", "vfmacc.vv"),   # a*a+b: midpoints
    ("1.000244140625", "0.0", "vfmacc.vv"), ("-0.0", "0.0", "vfmacc.vv"),
    ("3.0", "1.5", "vfdiv.vv"), ("1.0", "3.0", "vfdiv.vv"), ("1.0", "0.0", "vfdiv.vv"), ("0.0", "-0.0", "vfdiv.vv"),
])
def test_short_vector_edge_values_agree(a, b, op):
    source = f"""
    vsetivli t0, 4, e32, m1, ta, ma
    la s0, vals
    vle32.v v1, (s0)
    addi s1, s0, 16
    vle32.v v2, (s1)
    li t6, 3
loop:
    vle32.v v1, (s0)
    vle32.v v2, (s1)
    csrwi fflags, 0
    {f"{op} v2, v1, v1" if "macc" in op else f"{op} v3, v1, v2"}
    frflags a0
    addi t6, t6, -1
    bnez t6, loop
    ebreak
    .data
vals: .float {a}, {a}, {a}, {a}, {b}, {b}, {b}, {b}
"""
    cfg = default_config()
    program = assemble(source, "edge.s", cfg)
    runs = [CoralModel().run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)


@pytest.mark.parametrize("load", ["vle32.v", "vle16.v", "vle8.v"])
@pytest.mark.parametrize("lmul", [1, 2, 4])
def test_short_loads_write_the_whole_destination_group(load, lmul):
    """A short unit-stride load's tail covers its whole EMUL group, which full-length
    loads filled with data just before (every iteration)."""
    source = f"""
    la s0, vals
    li t6, 3
loop:
    vsetvli t0, zero, e32, m{lmul}, tu, mu
    vle32.v v8, (s0)
    vle32.v v16, (s0)
    li s1, 3
    vsetvli t0, s1, e32, m{lmul}, ta, ma
    {load} v8, (s0)
    vse32.v v16, (s0)
    addi t6, t6, -1
    bnez t6, loop
    ebreak
    .data
vals: .float {", ".join(str(k + 0.5) for k in range(128))}
"""
    cfg = default_config()
    program = assemble(source, "loads.s", cfg)
    runs = [CoralModel().run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)


FP_ARITH = ["fadd.s", "fsub.s", "fmul.s", "fmadd.s", "fmsub.s", "fnmadd.s", "fnmsub.s"]


def fp_loop(seed: int) -> str:
    """A scalar fp32 loop of arithmetic (fpregs.py keeps its registers as floats) on
    special values (signaling NaNs among them), mixed with instructions that read or
    write the registers as bits, under a random frm (5: reserved)."""
    rng = random.Random(seed)
    words = [rng.choice([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFF812345, 1,
                         0x80000001, 0x7F7FFFFF, 0x00800000, 0x3F800000, 0x3F800800, 0x1B800000])
             if rng.random() < 0.3 else rng.getrandbits(1) << 31 | rng.randrange(100, 150) << 23 | rng.getrandbits(23)
             for _ in range(32)]
    out = ["la s0, vals"] + [f"flw f{k}, {4 * k}(s0)" for k in range(16)]
    out += [f"fsrmi {rng.choice([0, 0, 0, 1, 2, 3, 4, 5])}", "csrwi fflags, 0", f"li t6, {rng.randint(2, 30)}", "j loop", "loop:"]
    for _ in range(rng.choice([1, 2, 3, 14])):
        c = rng.random()
        fd, fa, fb, fc = (f"f{rng.randrange(16)}" for _ in range(4))
        rm = rng.choice(["", "", "", ", rne", ", dyn", ", rtz", ", rup"])
        if c < 0.75:
            op = rng.choice(FP_ARITH)
            srcs = f"{fa}, {fb}, {fc}" if op[1] in "mn" and op != "fmul.s" else f"{fa}, {fb}"
            out.append(f"{op} {fd}, {srcs}{rm}")
        elif c < 0.83:
            out.append(f"fsw {fa}, {4 * rng.randrange(16, 32)}(s0)")
        elif c < 0.9:
            out.append(f"fmv.x.w a{rng.randrange(2, 6)}, {fa}")
        elif c < 0.95:
            out.append(f"fsgnjn.s {fd}, {fa}, {fb}")
        else:
            out.append(f"fmv.w.x {fd}, a{rng.randrange(2, 6)}")
    out += ["addi t6, t6, -1", "bnez t6, loop", "frflags a0", "ebreak", ".data",
            "vals: .word " + ", ".join(f"{w:#x}" for w in words)]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("seed", range(1, 41))
def test_fp_loops_with_float_registers_agree(seed):
    cfg = default_config()
    program = assemble(fp_loop(seed), "fp.s", cfg)
    runs = [CoralModel().run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)


@pytest.mark.parametrize("body, f1, f2, f5", [
    ("fmadd.s f3, f1, f1, f2", 0x3F800800, 0x1B800000, 0),       # (1 + 2^-12)^2 + 2^-72: a binary32 midpoint
    ("fmadd.s f3, f1, f1, f2", 0x3F800800, 0x9B800000, 0),       # ... - 2^-72
    ("fmul.s f3, f1, f2", 0x3F8CCCCD, 0x3F8CCCCD, 0),            # inexact only in the binary32 rounding
    ("fadd.s f3, f1, f2", 0x3FC00000, 0x0DA24260, 0),            # inexact only in the binary64 sum
    ("fsw f5, 64(s0)\n    fadd.s f5, f1, f2", 0x3F800000, 0x3F800000, 0x7F800001),  # a signaling NaN enters
])
def test_fp_loop_corner_cases_agree(body, f1, f2, f5):
    source = f"""
    la s0, vals
    flw f1, 0(s0)
    flw f2, 4(s0)
    flw f5, 8(s0)
    li t6, 3
    j loop                  # every iteration in the loop block (else the first one is in this block)
loop:
    {body}
    addi t6, t6, -1
    bnez t6, loop
    frflags a0
    ebreak
    .data
vals: .word {f1:#x}, {f2:#x}, {f5:#x}
    .zero 128
"""
    cfg = default_config()
    program = assemble(source, "corner.s", cfg)
    runs = [CoralModel().run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)


@pytest.mark.parametrize("access", ["lw a1, {o}(s1)", "sw a2, {o}(s1)", "lh a1, {o}(s1)", "sb a2, {o}(s1)",
                                    "flw f1, {o}(s1)", "fsw f1, {o}(s1)", "lw a1, {o}(x0)"])
@pytest.mark.parametrize("where", ["fixed", "misaligned", "past the end", "below"])
def test_loop_invariant_addresses_agree(access, where):
    """Accesses through a register the loop never writes: their address checks are
    made once before the loop (selfloop.hoist_addresses), and a failing one must
    still fault in the first iteration, after the instructions before it."""
    cfg = default_config()
    base = {"fixed": "la s1, vals", "misaligned": "la s1, vals\n    addi s1, s1, 1",
            "past the end": f"la s1, vals\n    li t0, {cfg.DTCM_SIZE}\n    add s1, s1, t0",
            "below": "li s1, 16"}[where]
    source = f"""
    {base}
    la s0, vals
    li t6, 5
    j loop
loop:
    addi a2, a2, 3
    lw a3, 4(s0)
    {access.format(o=8)}
    add a3, a3, a2
    sw a3, 4(s0)
    addi t6, t6, -1
    bnez t6, loop
    ebreak
    .data
vals: .word 1, 2, 3, 4
"""
    program = assemble(source, "hoist.s", cfg)
    runs = [CoralModel().run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)
    faults = "x0" in access or where in ("past the end", "below") or (where == "misaligned" and "sb" not in access)
    assert (runs[0].error is not None) == faults


VEC_LOOP_OPS = ["vfadd.vv", "vfsub.vv", "vfsub.vf", "vfrsub.vf", "vfmul.vv", "vfmul.vf", "vfmin.vv", "vfmax.vf",
                "vfmacc.vv", "vfnmsac.vf", "vfmadd.vv", "vfnmadd.vf", "vfmsac.vv", "vfmsub.vf", "vfnmacc.vv",
                "vmflt.vv", "vmfle.vf", "vmfeq.vv", "vmfne.vf", "vmfgt.vf", "vmfge.vf", "vslidedown.vi",
                "vfslide1up.vf", "vfslide1down.vf", "vfredusum.vs", "vmv.v.v", "vfmv.v.f"]


# the element-wise operations vecloop.c runs (vl above smallvec.MAX_VL)
WIDE_LOOP_OPS = [op for op in VEC_LOOP_OPS if op.startswith(("vfadd", "vfsub", "vfrsub", "vfmul", "vfmin", "vfmax", "vmv",
                                                            "vfmv", "vfmacc", "vfnmsac", "vfmadd", "vfnmadd", "vfmsac",
                                                            "vfmsub", "vfnmacc"))]


def vec_loop(seed: int, wide: bool = False) -> str:
    """A self-looping block of the short-vector instructions vecloop.py runs as
    straight-line Python (e32, LMUL 1, 2 or 4, vl mostly VLMAX), with scalar integer and fp work beside
    them: values that mostly stay on the simple path, now and then a special one
    (NaN, infinity, tiny, huge, signed zeros) or growth that leaves it mid-loop,
    every tail and mask policy, unit-stride loads and stores (fixed addresses whose
    data the loop rewrites, and a pointer that walks out of DTCM in some loops), and
    some loops the variant refuses (frm not RNE, a slide down from the tail, a register used as
    vector and mask, an f register the loop writes, a load after a store). `wide`: e32 m8
    at vl 17..32 (vecloop.c's loops), mostly its element-wise operations, unmasked."""
    rng = random.Random(seed)
    nreg = 4 if wide else 8                      # register groups v0, v{lmul}, ...
    specials = ["0.0", "-0.0", "3.0e38", "-3.0e38", "1e-39", "inf", "-inf", "nan", "1e-45", "1e-20", "65504.0"]
    rate = rng.choice([0.0, 0.0, 0.02, 0.1])
    data = [rng.choice(specials) if rng.random() < rate else f"{rng.uniform(-3, 3):.5g}" for _ in range(40)]
    lmul = 8 if wide else rng.choice([1, 1, 1, 2, 4])           # register groups: vl = VLMAX = 4 * LMUL
    vl = 4 * lmul if rng.random() < 0.75 else rng.randint(17 if wide else 1, 4 * lmul - 1)     # else a tail
    pol = f"{rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}"
    out = ["la s0, vals"] + ([f"li t0, {vl}", f"vsetvli t0, t0, e32, m{lmul}, {pol}"] if wide
                             else [f"vsetivli t0, {vl}, e32, m{lmul}, {pol}"])
    out += [f"addi s2, s0, {16 * rng.randrange(9)}\nvle32.v v{r * lmul}, (s2)" for r in range(nreg)]
    out += [f"flw f{k}, {4 * rng.randrange(40)}(s0)" for k in range(10)]
    if rng.random() < 0.1:
        out.append("fsrmi 1")
    trips = rng.randint(2, 60)
    walk = rng.random() < 0.3
    out += [f"li s6, {default_config().DTCM_SIZE - 16 * rng.randint(1, trips + 10)}", "add s6, s6, s0",
            f"addi s7, s0, {4 * rng.randrange(30)}"]
    out += ["csrwi fflags, 0", f"li t6, {trips}"] + (["j loop"] if seed % 2 else []) + ["loop:"]
    for _ in range(rng.randint(2, 10)):
        c = rng.random()
        if c < (0.03 if wide else 0.12):
            kind = rng.choice(["vle32.v", "vse32.v"])
            where = rng.choice(["s7", "s7", f"s{rng.choice([6, 6, 7]) if walk else 7}"])
            out.append(f"{kind} v{lmul * rng.randrange(1, nreg)}, ({where})")
            if where == "s6":
                out.append(f"addi s6, s6, {16 * lmul}")
            continue
        if c < 0.2:
            out.append(rng.choice(["addi s3, s3, 7", "xor s4, s4, t6", "fadd.s f9, f9, f8",
                                   "fmul.s f8, f8, f8" if rng.random() < 0.3 else "slli s5, t6, 2"]))
            continue
        op = rng.choice(WIDE_LOOP_OPS if wide and rng.random() < 0.9 else VEC_LOOP_OPS)
        vd, a, b = (lmul * rng.randrange(1, nreg) for _ in range(3))
        mask = ", v0.t" if rng.random() < (0.05 if wide else 0.35) and op not in ("vmv.v.v", "vfmv.v.f") else ""
        fr = f"f{rng.randrange(8)}"
        if op.startswith("vmf"):
            vd = 0 if rng.random() < 0.8 else vd
            out.append(f"{op} v{vd}, v{a}, {'v' + str(b) if op.endswith('vv') else fr}{mask}")
        elif op in ("vmv.v.v", "vfmv.v.f"):
            out.append(f"{op} v{vd}, {'v' + str(a) if op == 'vmv.v.v' else fr}")
        elif op == "vslidedown.vi":
            out.append(f"{op} v{vd}, v{a}, {rng.randrange(5)}{mask}")
        elif "slide1" in op:
            while vd == a:
                vd = lmul * rng.randrange(1, nreg)
            out.append(f"{op} v{vd}, v{a}, {fr}{mask}")
        elif op == "vfredusum.vs":
            vd = rng.choice([vd, vd + 1, rng.randrange(1, 32)])      # single registers, maybe inside a group
            out.append(f"{op} v{vd}, v{a}, v{rng.choice([vd, b])}{mask if rng.random() < 0.3 else ''}")
        elif op[1:].startswith(("fmacc", "fnmsac", "fmadd", "fnmadd", "fmsac", "fmsub", "fnmacc")):
            src = f"v{b}" if op.endswith(".vv") else fr
            out.append(f"{op} v{vd}, {src}, v{a}{mask}")
        else:
            out.append(f"{op} v{vd}, v{a}, {'v' + str(b) if op.endswith('.vv') else fr}{mask}")
    out += ["addi t6, t6, -1", "bnez t6, loop", "frflags a0", "ebreak", ".data", "vals: .float " + ", ".join(data),
            ".zero 256"]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("agnostic_ones", [True, False])
@pytest.mark.parametrize("seed", range(1, 61))
def test_vector_loops_agree(seed, agnostic_ones):
    cfg = default_config()
    program = assemble(vec_loop(seed), "vec.s", cfg)
    runs = [CoralModel(agnostic_ones).run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)
    if seed % 7 == 0:                      # cut by the budget inside the loop
        for cut in (runs[0].retired // 3 + 5, runs[0].retired - 2):
            a, b = (CoralModel(agnostic_ones).run(program, MemoryImage(), cfg, Budget(max_instructions=cut, fast=fast))
                    for fast in (True, False))
            assert same(a, b) == "", (cut, same(a, b))


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("agnostic_ones", [True, False])
@pytest.mark.parametrize("seed", range(1, 41))
def test_wide_vector_loops_agree(seed, agnostic_ones, native):
    """vl 17..32 at e32 m8: vecloop.c's loops (or, without it, stepping) as stepped."""
    from kernelcraft.simulators.coral import vecloop
    vecloop.NATIVE.enabled(native)
    try:
        cfg = default_config()
        program = assemble(vec_loop(seed, wide=True), "vec.s", cfg)
        runs = [CoralModel(agnostic_ones).run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
        assert same(*runs) == "", same(*runs)
        if seed % 5 == 0:                      # cut by the budget inside the loop
            for cut in (runs[0].retired // 3 + 5, runs[0].retired - 2):
                a, b = (CoralModel(agnostic_ones).run(program, MemoryImage(), cfg,
                                                      Budget(max_instructions=cut, fast=fast)) for fast in (True, False))
                assert same(a, b) == "", (cut, same(a, b))
    finally:
        vecloop.NATIVE.enabled(True)


@pytest.mark.parametrize("wide", [False, True])
def test_vector_loops_take_the_straight_line_variant(monkeypatch, wide):
    """Most of vec_loop's loops on ordinary values are generated (not refused): as
    Python statements, and at vl above 16 as vecloop.c's records."""
    from kernelcraft.simulators.coral import vecloop
    if wide and vecloop.NATIVE.module() is None:
        pytest.skip(vecloop.NATIVE.status())
    made = []
    make = vecloop.VecLoop._make

    def spy(self):
        out = make(self)
        made.append(out)
        return out
    monkeypatch.setattr(vecloop.VecLoop, "_make", spy)
    cfg = default_config()
    for seed in range(1, 41):
        CoralModel().run(assemble(vec_loop(seed, wide), "vec.s", cfg), MemoryImage(), cfg, Budget())
    assert sum(bool(m) for m in made) >= 15, [bool(m) for m in made]


@pytest.mark.parametrize("a, b, op", [
    ("1.5", "1e-20", "vfadd.vv"), ("1.5", "-1e-20", "vfsub.vv"), ("1.5", "1e-20", "vfredusum.vs"),
    ("1.5", "2.25", "vfadd.vv"), ("0.0", "-0.0", "vfmin.vv"), ("-0.0", "0.0", "vfmax.vv"),
    ("-0.0", "-0.0", "vfadd.vv"), ("0.0", "-0.0", "vfredusum.vs"), ("1.0", "-1.0", "vfadd.vv"),
    ("nan", "1.0", "vmflt.vv"), ("3.0e38", "3.0e38", "vfadd.vv"), ("1e-38", "0.5", "vfmul.vv"),
    ("1.000244140625", "1e-30", "vfmacc.vv"), ("1.000244140625", "-1e-30", "vfmacc.vv"),
    ("1.000244140625", "0.0", "vfmacc.vv"), ("-0.0", "0.0", "vfmacc.vv"), ("2.0", "1.0", "vfmul.vv"),
    ("1.5", "1.0", "vfslide1up.vf"), ("1.5", "-0.0", "vfslide1down.vf"), ("1.5", "nan", "vfslide1up.vf"),
    # exact in the first iterations, inexact from a later one: NX from the generated loop
    ("1.0", "1.25", "vfmul.vv"), ("1.0", "16777000.0", "vfmacc.vv"), ("1.0", "16777000.0", "add-up"),
    ("1.0", "16777000.0", "sum-up"), ("1.0", "-16777000.0", "sub-up"),
    ("1.000244140625", "1e-30", "fma-mid"), ("1.000244140625", "-1e-30", "fma-mid"),   # every iteration
    ("1.0", "2.0", "queue"),               # the vector unit behind the scalar core: its queue fills
    ("1.0", "0.5", "store-load"),          # a load reads what the same iteration stored
])
@pytest.mark.parametrize("wide", [False, True])
def test_vector_loop_edge_values_agree(a, b, op, wide):
    """vecloop.py's simple path at its edges: an iteration leaving it (overflow, a tiny
    result, a binary32 midpoint, growth past 2^127 in a later iteration) stops the
    loop there, and signed zeros and exactness flags stay as stepped. `wide`: the same
    at e32 m8, vl = 32 (vecloop.c; v1, v2, v3 become v8, v16, v24)."""
    body = {"vfmacc.vv": "vfmacc.vv v2, v1, v1", "vfmul.vv": "vfmul.vv v1, v1, v2",
            "vfslide1up.vf": "vfslide1up.vf v3, v1, f1\n    vfadd.vv v1, v3, v2",
            "vfslide1down.vf": "vfslide1down.vf v3, v1, f1\n    vfmin.vv v1, v3, v2",
            "add-up": "vfadd.vv v2, v2, v1", "sub-up": "vfsub.vv v2, v2, v1",
            "sum-up": "vfredusum.vs v2, v1, v2", "queue": "vfredusum.vs v3, v1, v2\n    vfredusum.vs v4, v1, v2\n"
            "    vfredusum.vs v5, v2, v1\n    vfredusum.vs v6, v2, v2\n    vfmin.vv v7, v1, v2",
            "store-load": "vse32.v v1, (s1)\n    vle32.v v3, (s1)\n    vfadd.vv v1, v3, v2", "fma-mid": "vmv.v.v v3, v2\n    vfmacc.vv v3, v1, v1"}.get(op, f"{op} v3, v1, v2")
    n = 32 if wide else 4
    if wide:
        if re.search(r"v[4-7]\b", body):
            pytest.skip("uses more than three register groups")
        body = re.sub(r"\bv([1-3])\b", lambda m: f"v{8 * int(m[1])}", body)
    source = f"""
    li t0, {n}
    vsetvli t0, t0, e32, m{n // 4}, ta, ma
    la s0, vals
    vle32.v {'v8' if wide else 'v1'}, (s0)
    addi s1, s0, {4 * n}
    vle32.v {'v16' if wide else 'v2'}, (s1)
    flw f1, {4 * n}(s0)
    csrwi fflags, 0
    li t6, 300
    j loop
loop:
    {body}
    addi t6, t6, -1
    bnez t6, loop
    frflags a0
    ebreak
    .data
vals: .float {", ".join([a] * n + [b] * n)}
"""
    cfg = default_config()
    program = assemble(source, "edge.s", cfg)
    for agnostic in (True, False):
        runs = [CoralModel(agnostic).run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
        assert same(*runs) == "", same(*runs)


@pytest.mark.parametrize("nan", [0x7FC00000, 0x7F800001, 0xFFFFFFFF])
def test_vector_loop_loads_a_nan_in_a_later_iteration(nan):
    """A load that brings a NaN (quiet or signaling) into the straight-line loop
    leaves it: compared, it raises NV; stored, its bits stay as they were."""
    source = f"""
    vsetivli t0, 4, e32, m1, ta, ma
    la s0, vals
    vle32.v v1, (s0)
    addi s1, s0, 16
    addi s2, s0, 256
    csrwi fflags, 0
    li t6, 6
    j loop
loop:
    vle32.v v3, (s1)
    addi s1, s1, 16
    vmflt.vv v0, v3, v1
    vse32.v v3, (s2)
    addi s2, s2, 16
    addi t6, t6, -1
    bnez t6, loop
    frflags a0
    ebreak
    .data
vals: .word {", ".join(["0x3f800000"] * 20 + [hex(nan)] * 4 + ["0x40000000"] * 8)}
    .zero 512
"""
    cfg = default_config()
    program = assemble(source, "nan.s", cfg)
    runs = [CoralModel().run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)


@pytest.mark.parametrize("lmul", [2, 4])
def test_vector_loop_reduction_order_over_a_group(lmul):
    """vfredusum over a register group in the straight-line loop: each lane adds its
    elements in element order, lane 0 after vs1[0], then the halving tree; values
    whose sums round differently in any other order."""
    n = 4 * lmul
    data = ["16777216.0", "0.5", "-3.0", "1e-3"] + ["1.0", "3.0", "0.25", "-1.0"] + \
           ["1.0", "2.0", "5.0", "0.125"] + ["-16777216.0", "1e-3", "7.0", "0.5"]      # lane 0: 2^24, 1, 1, -2^24
    source = f"""
    vsetivli t0, {n}, e32, m{lmul}, ta, ma
    la s0, vals
    vle32.v v8, (s0)
    vle32.v v16, (s0)
    csrwi fflags, 0
    li t6, 40
    j loop
loop:
    vfredusum.vs v1, v8, v1
    vfredusum.vs v2, v16, v2
    vfmul.vf v16, v16, f0
    addi t6, t6, -1
    bnez t6, loop
    frflags a0
    ebreak
    .data
vals: .float {", ".join(data[:n])}
"""
    cfg = default_config()
    program = assemble(source.replace("csrwi fflags, 0", "csrwi fflags, 0\n    li a1, 0x3f800001\n    fmv.w.x f0, a1"),
                       "sum.s", cfg)
    runs = [CoralModel().run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)


@pytest.mark.parametrize("vl", [1, 2, 3])
def test_vector_loop_with_a_tail_entered_again(vl):
    """vl < VLMAX: the straight-line loop writes the tails (all ones) of the registers
    it writes, and a reduction's lanes without elements are skipped. The outer loop
    refills the whole registers, so when the inner loop is entered again (its
    variant ready, no iteration stepped first) their tails hold data."""
    source = f"""
    la s0, vals
    li t5, 3
outer:
    vsetivli t0, 4, e32, m1, tu, mu
    vle32.v v1, (s0)
    vle32.v v2, (s0)
    vle32.v v3, (s0)
    vsetivli t0, {vl}, e32, m1, ta, ma
    li t6, 5
    j inner
inner:
    vfadd.vv v2, v2, v1
    vfredusum.vs v3, v2, v3
    addi t6, t6, -1
    bnez t6, inner
    addi t5, t5, -1
    bnez t5, outer
    ebreak
    .data
vals: .float 1.5, 2.25, -0.75, 3.0
"""
    cfg = default_config()
    program = assemble(source, "tail.s", cfg)
    runs = [CoralModel().run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)


@pytest.mark.parametrize("every", [2, 5, 8])
def test_vector_loop_resumes_after_leaving(every):
    """Every `every`-th iteration loads a NaN: the straight-line loop leaves there,
    that iteration is stepped, and the loop resumes after it (cycles, stalls and flags
    as stepped throughout)."""
    words = []
    for k in range(48):
        words += [0x7FC00000 if k % every == every - 1 else 0x3F800000 + k] * 4
    source = f"""
    vsetivli t0, 4, e32, m1, ta, ma
    la s0, vals
    mv s1, s0
    vle32.v v1, (s0)
    vmv.v.v v4, v1
    csrwi fflags, 0
    li t6, 40
    j loop
loop:
    vle32.v v3, (s1)
    addi s1, s1, 16
    vmflt.vv v0, v3, v1
    vfredusum.vs v5, v1, v5
    vfmin.vv v4, v4, v1
    vfadd.vv v1, v1, v4
    addi t6, t6, -1
    bnez t6, loop
    frflags a0
    ebreak
    .data
vals: .word {", ".join(hex(w) for w in words)}
"""
    cfg = default_config()
    program = assemble(source, "resume.s", cfg)
    runs = [CoralModel().run(program, MemoryImage(), cfg, Budget(fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)
    for cut in (runs[0].retired // 2 + 3, runs[0].retired - 4):
        a, b = (CoralModel().run(program, MemoryImage(), cfg, Budget(max_instructions=cut, fast=fast))
                for fast in (True, False))
        assert same(a, b) == "", (cut, same(a, b))
