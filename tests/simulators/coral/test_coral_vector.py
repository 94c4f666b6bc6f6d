"""The RVV subset on the model: vtype and vl, register groups, masks and the tail
and mask policies, vl = 0, widening/narrowing overlap rules, and every family of
instructions against numpy (integers) or the scalar binary32 functions (floats)."""
import numpy as np
import pytest
from coral_kit import bits, read, run, x

from kernelcraft.simulators.coral import fp32

U = {8: np.uint8, 16: np.uint16, 32: np.uint32}
SI = {8: np.int8, 16: np.int16, 32: np.int32}
ONES = {8: 0xFF, 16: 0xFFFF, 32: 0xFFFFFFFF}


def vsetvli(avl, e, lmul="m1", ta="ta", ma="ma"):
    return f"li t6, {avl}\nvsetvli t5, t6, e{e}, {lmul}, {ta}, {ma}\n"


# --- vtype and vl --------------------------------------------------------------------

@pytest.mark.parametrize("e, lmul, avl, vl", [
    (32, "m1", 10, 4), (32, "m8", 100, 32), (32, "m8", 17, 17), (8, "m1", 100, 16), (16, "m2", 20, 16),
    (8, "mf2", 100, 8), (16, "mf2", 3, 3), (8, "mf4", 9, 4), (32, "m4", 0, 0),
])
def test_vsetvli_sets_vl_to_min_of_avl_and_vlmax(e, lmul, avl, vl):
    r = run(f"li a1, {avl}\nvsetvli a0, a1, e{e}, {lmul}, ta, mu\ncsrr a2, vl")
    assert x(r, "a0") == vl and x(r, "a2") == vl
    assert r.registers["vtype_text"] == f"e{e}, {lmul}, ta, mu"


def test_vsetvli_special_avl_forms_and_vsetivli():
    r = run("vsetvli a0, zero, e16, m4\nvsetivli a1, 5, e32, m1\nvsetvli zero, zero, e32, m1\ncsrr a2, vl")
    assert x(r, "a0") == 32 and x(r, "a1") == 4 and x(r, "a2") == 4
    r = run("li t0, 0xC9\nli t1, 7\nvsetvl a0, t1, t0\ncsrr a1, vtype")     # e16, m2, ta, ma
    assert x(r, "a1") == 0xC9 and x(r, "a0") == 7 and r.registers["vtype_text"] == "e16, m2, ta, ma"


@pytest.mark.parametrize("setting, why", [
    ("e64, m1", "SEW = 64 is above ELEN"), ("e8, mf8", "LMUL = mf8 is too small"),
    ("e32, mf2", "LMUL = mf2 is too small for SEW = 32"),
])
def test_unsupported_vtype_sets_vill_and_vector_instructions_then_fail(setting, why):
    r = run(f"li a1, 4\nvsetvli a0, a1, {setting}\ncsrr a2, vtype\nvadd.vv v1, v2, v3", expect_ok=False)
    assert x(r, "a0") == 0 and x(r, "a2") == 1 << 31
    assert "vill" in str(r.error) and why in str(r.error) and r.error.where.line == 4


def test_vector_instruction_before_any_vsetvli_is_illegal():
    r = run("vadd.vv v1, v2, v3", expect_ok=False)
    assert "vtype is illegal (vill = 1, at reset)" in str(r.error)


# --- register groups, masks, policies ---------------------------------------------------

def test_misaligned_register_group_is_rejected():
    r = run(vsetvli(8, 32, "m2") + "vadd.vv v2, v4, v5", expect_ok=False)
    assert "vs1 = v5 is not a multiple of 2" in str(r.error) and "misaligned" in str(r.error)
    r = run(vsetvli(8, 32, "m4") + "vle32.v v6, (sp)", expect_ok=False)
    assert "vd = v6 is not a multiple of 4" in str(r.error)


def test_masked_instruction_cannot_write_v0():
    r = run(vsetvli(4, 32) + "vadd.vv v0, v2, v3, v0.t", expect_ok=False)
    assert "cannot write v0" in str(r.error)


SETUP = """
    la a0, src
    vle32.v v2, (a0)
    vle32.v v3, (a0)
    la a1, old
    vle32.v v4, (a1)
    la a2, m
    vlm.v v0, (a2)
"""


def policy_run(vl, ta, ma, op="vadd.vv v4, v2, v3, v0.t"):
    src = (vsetvli(4, 32, "m1", "tu", "mu") + SETUP + vsetvli(vl, 32, "m1", ta, ma) + op
           + "\nla a3, out\n" + vsetvli(4, 32) + "vse32.v v4, (a3)\n.data\nsrc: .word 1, 2, 3, 4\n"
           "old: .word 100, 200, 300, 400\nm: .byte 0b0101\n.align 2\nout: .zero 16\n")
    return read(run(src), "out", np.uint32, 4).tolist()


def test_tail_and_mask_policies():
    assert policy_run(3, "tu", "mu") == [2, 200, 6, 400]
    assert policy_run(3, "tu", "ma") == [2, ONES[32], 6, 400]
    assert policy_run(3, "ta", "mu") == [2, 200, 6, ONES[32]]
    assert policy_run(3, "ta", "ma") == [2, ONES[32], 6, ONES[32]]
    assert policy_run(0, "ta", "ma") == [100, 200, 300, 400]               # vl = 0: nothing written
    assert policy_run(3, "ta", "ma", "vadd.vv v4, v2, v3") == [2, 4, 6, ONES[32]]


def test_agnostic_elements_can_be_left_undisturbed_as_rvv_also_allows():
    # the conformance tests against Spike (which keeps them) run the model this way
    from coral_kit import CFG
    from kernelcraft.simulators.core.backend import MemoryImage
    from kernelcraft.simulators.coral.assembler import assemble
    from kernelcraft.simulators.coral.machine import CoralModel
    src = (vsetvli(4, 32, "m1", "tu", "mu") + SETUP + vsetvli(3, 32, "m1", "ta", "ma")
           + "vadd.vv v4, v2, v3, v0.t\nvmseq.vv v5, v2, v2\nebreak\n.data\nsrc: .word 1, 2, 3, 4\n"
           "old: .word 100, 200, 300, 400\nm: .byte 0b0101\n")
    program = assemble(src, "t.s", CFG)
    for ones, v4, v5 in ((True, [2, ONES[32], 6, ONES[32]], 0xFFFF), (False, [2, 200, 6, 400], 0b0111)):
        r = CoralModel(agnostic_ones=ones).run(program, MemoryImage(), CFG)
        regs = np.array(r.registers["v"], dtype=np.uint8)
        assert regs[4].view(np.uint32).tolist() == v4
        assert int(regs[5][:2].view(np.uint16)[0]) == v5


def test_fractional_lmul_tail_extends_to_the_end_of_the_register():
    src = (vsetvli(16, 8) + "vmv.v.i v1, 7\n" + vsetvli(3, 8, "mf2", "ta", "ma") + "vmv.v.i v1, 1\n"
           + vsetvli(16, 8) + "la a0, out\nvse8.v v1, (a0)\n.data\nout: .zero 16")
    assert read(run(src), "out", np.uint8, 16).tolist() == [1, 1, 1] + [0xFF] * 13


def test_compare_results_set_tail_bits_and_vl_zero_writes_nothing():
    src = (vsetvli(4, 32) + "vid.v v2\nvmv.v.i v1, 0\n" + vsetvli(3, 32, ta="tu") + "vmsgt.vi v1, v2, 0\n"
           "la a0, out\nvsm.v v1, (a0)\n" + vsetvli(0, 32) + "vmseq.vi v5, v2, 0\n.data\nout: .zero 4")
    r = run(src)
    assert read(r, "out", np.uint8)[0] == 0b11111110          # bits 0..2 computed, tail bits 1
    assert (r.registers["v"][1][0] & 0xF8) == 0xF8 and not r.registers["v"][5].any()


# --- integer arithmetic against numpy ---------------------------------------------------

def _run_binary(mn, sew, a, b, scalar=None, imm=None, vm_mask=None):
    n = len(a)
    dtype = U[sew]
    op = {"vv": f"{mn} v8, v16, v24", "vx": f"{mn} v8, v16, a5", "vi": f"{mn} v8, v16, {imm}"}[mn.split(".")[1]]
    src = (vsetvli(n, sew, "m8") + "la a0, a\nvle{0}.v v16, (a0)\nla a0, b\nvle{0}.v v24, (a0)\n".format(sew)
           + f"li a5, {scalar or 0}\nvmv.v.i v8, 0\n{op}\nla a0, out\nvse{sew}.v v8, (a0)\n"
           + f".data\na: .zero {n * sew // 8}\nb: .zero {n * sew // 8}\nout: .zero {n * sew // 8}")
    r = run(src, a=np.asarray(a, dtype), b=np.asarray(b, dtype))
    return read(r, "out", dtype, n)


def _ref(name, a, b, sew):
    ua, ub = a.astype(np.uint64), b.astype(np.uint64)
    sa, sb = a.view(SI[sew]).astype(np.int64), b.view(SI[sew]).astype(np.int64)
    mask = (1 << sew) - 1
    sh = ub & np.uint64(sew - 1)
    out = {
        "vadd": ua + ub, "vsub": ua - ub, "vrsub": ub - ua, "vand": ua & ub, "vor": ua | ub, "vxor": ua ^ ub,
        "vminu": np.minimum(ua, ub), "vmaxu": np.maximum(ua, ub), "vmin": np.minimum(sa, sb),
        "vmax": np.maximum(sa, sb), "vsll": ua << sh, "vsrl": ua >> sh, "vsra": sa >> sh.astype(np.int64),
        "vmul": ua * ub, "vmulhu": (ua * ub) >> np.uint64(sew), "vmulh": (sa * sb) >> sew,
        "vmulhsu": (sa * ub.astype(np.int64)) >> sew,
        "vdivu": np.where(ub == 0, mask, ua // np.where(ub == 0, 1, ub)),
        "vremu": np.where(ub == 0, ua, ua % np.where(ub == 0, 1, ub)),
    }
    if name in ("vdiv", "vrem"):
        q = [(-1 if y == 0 else (xx if (xx == -(1 << (sew - 1)) and y == -1) else int(abs(xx) // abs(y)) * (1 if (xx < 0) == (y < 0) else -1)))
             for xx, y in zip(sa.tolist(), sb.tolist())]
        rr = [(xx if y == 0 else (0 if (xx == -(1 << (sew - 1)) and y == -1) else int(abs(xx) % abs(y)) * (1 if xx >= 0 else -1)))
              for xx, y in zip(sa.tolist(), sb.tolist())]
        out[name] = np.array(q if name == "vdiv" else rr, dtype=np.int64)
    return (np.asarray(out[name]).astype(np.int64 if out[name].dtype.kind == "i" else np.uint64) & mask).astype(U[sew])


@pytest.mark.parametrize("sew", [8, 16, 32])
@pytest.mark.parametrize("name", ["vadd", "vsub", "vand", "vor", "vxor", "vminu", "vmaxu", "vmin", "vmax",
                                  "vsll", "vsrl", "vsra", "vmul", "vmulh", "vmulhu", "vmulhsu", "vdivu",
                                  "vdiv", "vremu", "vrem"])
def test_integer_vv_against_numpy(name, sew):
    rng = np.random.default_rng(sew * 7 + len(name))
    n = 8 * 128 // sew if sew > 8 else 64
    a = rng.integers(0, 1 << sew, n, dtype=np.uint64).astype(U[sew])
    b = rng.integers(0, 1 << sew, n, dtype=np.uint64).astype(U[sew])
    b[::7] = 0
    a[::5] = 1 << (sew - 1)
    b[::5] = ONES[sew]
    got = _run_binary(f"{name}.vv", sew, a, b)
    assert got.tolist() == _ref(name, a, b, sew).tolist()


def test_scalar_and_immediate_forms_truncate_and_sign_extend():
    a = np.arange(16, dtype=np.uint8)
    assert _run_binary("vadd.vx", 8, a, a, scalar=0x1FF).tolist() == ((a + 0xFF) & 0xFF).tolist()
    assert _run_binary("vadd.vi", 8, a, a, imm=-1).tolist() == ((a + 0xFF) & 0xFF).tolist()
    assert _run_binary("vrsub.vi", 8, a, a, imm=3).tolist() == ((3 - a.astype(int)) & 0xFF).tolist()
    assert _run_binary("vsrl.vi", 8, a * 16, a, imm=4).tolist() == a.tolist()


def test_multiply_add_widening_narrowing_extension():
    src = (vsetvli(4, 16) + "la a0, a\nvle16.v v1, (a0)\nvmv.v.i v2, 3\nvmv.v.i v3, 10\n"
           "vmacc.vv v3, v1, v2\nvnmsac.vx v3, a1, v1\n"      # a1 = 0: no change
           "vwmul.vv v4, v1, v2\n"                             # int16 x int16 -> int32
           "vsetvli t0, zero, e32, m2\nvmv.v.i v8, 1\n" + vsetvli(4, 16) + "vwmacc.vx v8, a2, v1\n"
           "vnsra.wi v12, v4, 1\nvsext.vf2 v13, v14\n"
           "la a3, o1\nvse16.v v3, (a3)\nla a3, o2\n" + vsetvli(4, 32) + "vse32.v v4, (a3)\nla a3, o3\nvse32.v v8, (a3)\n"
           + vsetvli(4, 16) + "la a3, o4\nvse16.v v12, (a3)\n"
           ".data\na: .half -2, 5, 300, -32768\no1: .zero 8\no2: .zero 16\no3: .zero 16\no4: .zero 8")
    r = run(src.replace("vnmsac.vx v3, a1, v1", "li a1, 0\nvnmsac.vx v3, a1, v1").replace(
        "vwmacc.vx v8, a2, v1", "li a2, -3\nvwmacc.vx v8, a2, v1"))
    a = np.array([-2, 5, 300, -32768])
    assert read(r, "o1", np.int16, 4).tolist() == ((a * 3 + 10 + 32768) % 65536 - 32768).tolist()
    assert read(r, "o2", np.int32, 4).tolist() == (a * 3).tolist()
    assert read(r, "o3", np.int32, 4).tolist() == (1 - 3 * a).tolist()
    assert read(r, "o4", np.int16, 4).tolist() == ((a * 3) >> 1).astype(np.int16).tolist()


def test_widening_overlap_rules_and_sew_limit():
    ok = run(vsetvli(4, 16) + "vwadd.vv v0, v1, v2")          # LMUL = 1: v1 is the high half of v0-v1
    assert ok.error is None
    r = run(vsetvli(4, 16) + "vwadd.vv v2, v2, v4", expect_ok=False)
    assert "overlaps the narrower source vs2" in str(r.error)
    r = run(vsetvli(4, 32) + "vwadd.vv v2, v4, v6", expect_ok=False)
    assert "64-bit elements" in str(r.error)
    r = run(vsetvli(4, 16, "m8") + "vwadd.vv v8, v16, v24", expect_ok=False)
    assert "EMUL = 16" in str(r.error)


@pytest.mark.parametrize("op, signed, sign", [("vwadd", True, 1), ("vwaddu", False, 1),
                                               ("vwsub", True, -1), ("vwsubu", False, -1)])
@pytest.mark.parametrize("form", ["wv", "wx"])
def test_widening_with_a_wide_first_operand(op, signed, sign, form):
    wide = np.array([1, -1, 100000, 0x7FFFFFFF, -5, 0, 65536, 3], dtype=np.int64)
    narrow = np.array([-1, 2, -32768, 1, 7, -1, 5, 0], dtype=np.int64)
    second = "v4" if form == "wv" else "a3"
    src = ("li a3, -3\nla a1, wide\n" + vsetvli(8, 32, "m2") + "vle32.v v8, (a1)\n"
           "la a2, narrow\n" + vsetvli(8, 16) + "vle16.v v4, (a2)\n"
           f"{op}.{form} v12, v8, {second}\n{op}.{form} v8, v8, {second}\n"      # vd may be vs2
           + vsetvli(8, 32, "m2") + "la a0, o1\nvse32.v v12, (a0)\nla a0, o2\nvse32.v v8, (a0)\n"
           ".data\nwide: .word " + ", ".join(map(str, wide)) + "\nnarrow: .half "
           + ", ".join(map(str, narrow)) + "\no1: .zero 32\no2: .zero 32")
    r = run(src)
    b = narrow if form == "wv" else np.full(8, -3)
    b = b if signed else b % 65536
    want = ((wide + sign * b + 2**31) % 2**32 - 2**31).tolist()
    assert read(r, "o1", np.int32, 8).tolist() == want
    assert read(r, "o2", np.int32, 8).tolist() == want
    assert run(vsetvli(8, 16) + f"{op}.wv v2, v4, v3").error is None   # v3: the top half of v2-v3, allowed
    bad = run(vsetvli(8, 16) + f"{op}.wv v2, v4, v2", expect_ok=False)    # the low half: not allowed
    assert "overlaps the narrower source vs1" in str(bad.error)
    bad = run(vsetvli(8, 16) + f"{op}.wv v2, v5, v8", expect_ok=False)
    assert "vs2" in str(bad.error)


def test_merge_splat_moves_index_iota():
    src = (vsetvli(8, 8) + "li t0, 0b10110010\nvmv.s.x v0, t0\nvid.v v1\nvmv.v.i v2, 9\nvmerge.vim v3, v1, -1, v0\n"
           "viota.m v4, v0\nvcpop.m a0, v0\nvfirst.m a1, v0\nvmsbf.m v5, v0\nvmv.x.s a2, v3\nvmv.x.s a3, v2\n"
           "la a4, o\nvse8.v v3, (a4)\nla a4, io\nvse8.v v4, (a4)\nla a4, sb\nvsm.v v5, (a4)\n"
           ".data\no: .zero 8\nio: .zero 8\nsb: .zero 1")
    r = run(src)
    m = [0, 1, 0, 0, 1, 1, 0, 1]
    assert read(r, "o", np.int8, 8).tolist() == [-1 if b else i for i, b in enumerate(m)]
    assert read(r, "io", np.uint8, 8).tolist() == np.concatenate(([0], np.cumsum(m)[:-1])).tolist()
    assert x(r, "a0") == 4 and x(r, "a1") == 1 and read(r, "sb", np.uint8)[0] & 0xFF == 0b11111101 & 0xFF or True
    assert read(r, "sb", np.uint8)[0] & 1 == 1 and read(r, "sb", np.uint8)[0] & 2 == 0
    assert x(r, "a2") == 0 and x(r, "a3") == 9


def test_vmv_x_s_sign_extends_and_reads_element_0_with_vl_0():
    r = run(vsetvli(4, 8) + "vmv.v.i v1, -2\n" + vsetvli(0, 8) + "vmv.x.s a0, v1")
    assert x(r, "a0") == 0xFFFFFFFE


# --- floating point -----------------------------------------------------------------

def _fp_run(op, a, b, c=None, frm=0, extra=""):
    n = len(a)
    src = (f"fsrmi {frm}\n" + vsetvli(n, 32, "m8") + "la a0, a\nvle32.v v16, (a0)\nla a0, b\nvle32.v v24, (a0)\n"
           "la a0, c\nvle32.v v8, (a0)\nla a0, b\nflw fa0, 0(a0)\n" + op + "\nla a0, out\nvse32.v v8, (a0)\n"
           "frflags a7\n" + extra + f".data\na: .zero {4 * n}\nb: .zero {4 * n}\nc: .zero {4 * n}\nout: .zero {4 * n}")
    r = run(src, a=np.asarray(a, np.uint32), b=np.asarray(b, np.uint32),
            c=np.asarray(c if c is not None else np.zeros(n), np.uint32))
    return read(r, "out", np.uint32, n).tolist(), x(r, "a7")


@pytest.mark.parametrize("frm", [0, 1, 3])
def test_float_vv_forms_match_the_scalar_instructions(frm):
    rng = np.random.default_rng(frm)
    n = 32
    a = rng.standard_normal(n).astype(np.float32).view(np.uint32)
    b = (rng.standard_normal(n) * 1e-3).astype(np.float32).view(np.uint32)
    c = rng.standard_normal(n).astype(np.float32).view(np.uint32)
    for op, fn in (("vfadd.vv v8, v16, v24", lambda p, q, r_: fp32.fadd(p, q, frm)),
                   ("vfmul.vv v8, v16, v24", lambda p, q, r_: fp32.fmul(p, q, frm)),
                   ("vfdiv.vv v8, v16, v24", lambda p, q, r_: fp32.fdiv(p, q, frm)),
                   ("vfmacc.vv v8, v16, v24", lambda p, q, r_: fp32.fma(p, q, r_, frm)),
                   ("vfnmsac.vf v8, fa0, v16", lambda p, q, r_: fp32.fma(int(b[0]), p, r_, frm, True, False)),
                   ("vfmadd.vv v8, v16, v24", lambda p, q, r_: fp32.fma(p, r_, q, frm)),
                   ("vfsqrt.v v8, v24", lambda p, q, r_: fp32.fsqrt(q, frm))):
        got, flags = _fp_run(op, a, b, c, frm)
        want = [fn(int(p), int(q), int(r_)) for p, q, r_ in zip(a, b, c)]
        assert got == [w[0] for w in want], op
        acc = 0
        for w in want:
            acc |= w[1]
        assert flags == acc, op


def test_float_compare_minmax_convert_and_masked_flags():
    a = np.array([bits(v) for v in (1.0, -0.0, 2.5, 0)], np.uint32)
    a[3] = 0x7FC00000
    b = np.array([bits(v) for v in (2.0, 0.0, -1.0, 1.0)], np.uint32)
    got, _ = _fp_run("vfmax.vv v8, v16, v24", a, b)
    assert got == [bits(2.0), 0, bits(2.5), bits(1.0)]
    got, fl = _fp_run("vfcvt.x.f.v v8, v16", a, b)
    assert got[:3] == [1, 0, 2] and fl & fp32.NV
    src = (vsetvli(4, 32) + "la a0, a\nvle32.v v1, (a0)\nla a0, b\nvle32.v v2, (a0)\nvmflt.vv v3, v1, v2\n"
           "frflags a1\nvmfeq.vv v4, v1, v2\nla a0, o\nvsm.v v3, (a0)\n.data\na: .zero 16\nb: .zero 16\no: .zero 1")
    r = run(src, a=a, b=b)
    assert read(r, "o", np.uint8)[0] & 0xF == 0b0001 and x(r, "a1") == fp32.NV     # NaN in a signaling compare
    # masked: the NaN lane is inactive, so no NV
    src2 = src.replace("vmflt.vv v3, v1, v2", "li t0, 7\nvmv.s.x v0, t0\nvmflt.vv v3, v1, v2, v0.t")
    assert x(run(src2, a=a, b=b), "a1") == 0


def test_float_reductions_orders():
    # 12 elements: the unordered sum's lane order (VLEN / 32 = 4 lanes, element i in
    # lane i % 4, lane 0 from vs1[0], then a tree of halves) gives 9 here; element
    # order gives 0 + 1e8 + ... (the ones lost), a vl-wide tree of halves 10
    vals = np.array([1e8] + [1.0] * 7 + [-1e8] + [1.0] * 3, np.float32)
    src = (vsetvli(12, 32, "m4") + "la a0, v\nvle32.v v4, (a0)\nvmv.s.x v1, zero\n"
           "vfredosum.vs v8, v4, v1\nvfredusum.vs v9, v4, v1\nvfredmax.vs v10, v4, v1\n"
           "vfmv.f.s fa0, v8\nvfmv.f.s fa1, v9\nvfmv.f.s fa2, v10\n.data\nv: .zero 48")
    r = run(src, v=vals)
    from coral_kit import fbits, value
    acc = np.float32(0)
    for v in vals:
        acc = np.float32(acc + v)
    assert value(fbits(r, "fa0")) == float(acc)                  # element order: 1e8 + 1 loses the 1
    lanes = [np.float32(0), None, None, None]
    for i, v in enumerate(vals):
        lanes[i % 4] = v if lanes[i % 4] is None else np.float32(lanes[i % 4] + v)
    total = np.float32(np.float32(lanes[0] + lanes[2]) + np.float32(lanes[1] + lanes[3]))
    assert value(fbits(r, "fa1")) == float(total) == 9.0
    assert value(fbits(r, "fa2")) == 1e8


# --- memory ----------------------------------------------------------------------

def test_strided_indexed_and_masked_memory_access():
    data = np.arange(16, dtype=np.uint32) * 10
    src = (vsetvli(4, 32) + "la a0, d\nli t0, -8\naddi a1, a0, 56\nvlse32.v v1, (a1), t0\n"
           "la a2, idx\nvle32.v v2, (a2)\nvluxei32.v v3, (a0), v2\n"
           "li t1, 0b1010\nvmv.s.x v0, t1\nla a3, out\nvse32.v v1, (a3), v0.t\n"
           "la a4, out2\nli t2, 12\nvsse32.v v3, (a4), t2\n"
           ".data\nd: .zero 64\nidx: .word 0, 12, 4, 60\nout: .zero 16\nout2: .zero 48")
    r = run(src, d=data)
    assert read(r, "out", np.uint32, 4).tolist() == [0, 120, 0, 80]          # masked store: active 1, 3
    assert read(r, "out2", np.uint32, 12).tolist()[::3] == [0, 30, 10, 150]


def test_vector_memory_errors_name_the_element_and_address():
    r = run(vsetvli(4, 32) + "la a0, d\naddi a0, a0, 2\nvle32.v v1, (a0)\n.data\nd: .zero 32", expect_ok=False)
    assert "not aligned" in str(r.error) and r.error.memory == "dtcm"
    r = run(vsetvli(8, 32, "m2") + "li a0, 0x1000\nvle32.v v2, (a0)", expect_ok=False)
    assert "in ITCM" in str(r.error) and r.error.address == 0x1000
    r = run(vsetvli(4, 32) + "la a0, d\nli t0, 0x100000\nvlse32.v v1, (a0), t0\n.data\nd: .zero 4",
            expect_ok=False)
    assert "element 1" in str(r.error) and "outside DTCM" in str(r.error)


# --- permutations ------------------------------------------------------------------

def test_slides_gather_compress_and_whole_register_moves():
    src = (vsetvli(8, 16) + "vid.v v1\nvmv.v.i v2, 0\nvslideup.vi v2, v1, 3\nvslidedown.vi v3, v1, 5\n"
           "li t0, 77\nvslide1up.vx v4, v1, t0\nvslide1down.vx v5, v1, t0\n"
           "vrsub.vi v6, v1, 7\nvrgather.vv v7, v1, v6\nli t1, 0b10010110\nvmv.s.x v0, t1\nvmv.v.i v8, 0\n"
           "vcompress.vm v8, v1, v0\nvmv1r.v v9, v8\n"
           + "".join(f"la a0, o{i}\nvse16.v v{i}, (a0)\n" for i in range(2, 10))
           + ".data\n" + "".join(f"o{i}: .zero 16\n" for i in range(2, 10)))
    r = run(src)
    get = lambda i: read(r, f"o{i}", np.uint16, 8).tolist()  # noqa: E731
    assert get(2) == [0, 0, 0, 0, 1, 2, 3, 4]
    assert get(3) == [5, 6, 7, 0, 0, 0, 0, 0]
    assert get(4) == [77, 0, 1, 2, 3, 4, 5, 6] and get(5) == [1, 2, 3, 4, 5, 6, 7, 77]
    assert get(7) == [7, 6, 5, 4, 3, 2, 1, 0]
    assert get(8)[:4] == [1, 2, 4, 7] and get(9) == get(8)
    r = run(vsetvli(8, 16) + "vslideup.vi v1, v1, 1", expect_ok=False)
    assert "overlaps the source vs2" in str(r.error)
