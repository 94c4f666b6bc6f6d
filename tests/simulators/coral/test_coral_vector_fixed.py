"""Fixed-point vector instructions (RVV 1.0 section 12) and the vxrm / vxsat / vcsr
CSRs: every instruction and form against a per-element Python reference written from
the specification's definitions, in every vxrm mode and SEW, with vxsat set exactly
when an active element saturates; hand-worked rounding cases; narrowing clips."""
import random

import numpy as np
import pytest
from coral_kit import read, run, x

from kernelcraft.isa.coral import isa

U = {8: np.uint8, 16: np.uint16, 32: np.uint32}
MODES = {"rnu": 0, "rne": 1, "rdn": 2, "rod": 3}


def vset(avl, e, lmul="m1", ta="ta", ma="ma"):
    return f"li t6, {avl}\nvsetvli t5, t6, e{e}, {lmul}, {ta}, {ma}\n"


# --- reference, one element at a time ---------------------------------------------------

def roundoff(v: int, d: int, rm: int) -> int:
    """(v >> d) rounded as vxrm says (the specification's r increment)."""
    if d == 0:
        return v
    lsb, half, rest = (v >> d) & 1, (v >> (d - 1)) & 1, v & ((1 << (d - 1)) - 1)
    r = {0: half, 1: half & int(bool(rest) or bool(lsb)), 2: 0,
         3: int(not lsb and bool(v & ((1 << d) - 1)))}[rm]
    return (v >> d) + r


def signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def reference(name: str, a: int, b: int, w: int, rm: int) -> tuple[int, bool]:
    """(result bits, saturated) of one element; a and b are SEW-bit patterns."""
    sa, sb = signed(a, w), signed(b, w)
    lo_s, hi_s, hi_u = -(1 << (w - 1)), (1 << (w - 1)) - 1, (1 << w) - 1
    clamp = lambda v, lo, hi: (min(max(v, lo), hi), not lo <= v <= hi)  # noqa: E731
    r, sat = {
        "vsaddu": lambda: clamp(a + b, 0, hi_u), "vsadd": lambda: clamp(sa + sb, lo_s, hi_s),
        "vssubu": lambda: clamp(a - b, 0, hi_u), "vssub": lambda: clamp(sa - sb, lo_s, hi_s),
        "vaaddu": lambda: (roundoff(a + b, 1, rm), False), "vaadd": lambda: (roundoff(sa + sb, 1, rm), False),
        "vasubu": lambda: (roundoff(a - b, 1, rm), False), "vasub": lambda: (roundoff(sa - sb, 1, rm), False),
        "vsmul": lambda: clamp(roundoff(sa * sb, w - 1, rm), lo_s, hi_s),
        "vssrl": lambda: (roundoff(a, b & (w - 1), rm), False),
        "vssra": lambda: (roundoff(sa, b & (w - 1), rm), False),
    }[name]()
    return r & hi_u, sat


FORMS = sorted(mn for mn in isa().instructions if mn.split(".")[0] in
               ("vsaddu", "vsadd", "vssubu", "vssub", "vaaddu", "vaadd", "vasubu", "vasub", "vsmul", "vssrl", "vssra"))


def _values(rng, w, n):
    edges = [0, 1, (1 << (w - 1)) - 1, 1 << (w - 1), (1 << w) - 1, (1 << (w - 1)) + 1]
    return [rng.choice(edges) if rng.random() < 0.4 else rng.getrandbits(w) for _ in range(n)]


@pytest.mark.parametrize("mn", FORMS)
@pytest.mark.parametrize("sew", [8, 16, 32])
def test_every_fixed_point_form_matches_the_reference_in_every_vxrm_mode(mn, sew):
    rng = random.Random(f"{mn}{sew}")
    name, form = mn.split(".")
    n = 2 * 128 // sew - 3                       # LMUL = 2, vl short of VLMAX: a tail
    a, b = _values(rng, sew, n), _values(rng, sew, n)
    scalar = rng.choice([rng.getrandbits(32), (1 << 32) - 1, 1 << (sew - 1)])
    imm = rng.randrange(0, 32) if name in ("vssrl", "vssra") else rng.randrange(-16, 16)
    operand = {"vv": "v8", "vx": "a5", "vi": str(imm)}[form]
    body = vset(n, sew, "m2") + f"la a0, a\nvle{sew}.v v4, (a0)\nla a0, b\nvle{sew}.v v8, (a0)\nli a5, {scalar}\n"
    for mode in range(4):
        body += (f"csrwi vxrm, {mode}\ncsrwi vxsat, 0\n{mn} v12, v4, {operand}\ncsrr s{mode + 1}, vxsat\n"
                 f"la a0, out{mode}\nvse{sew}.v v12, (a0)\n")
    size = n * sew // 8
    body += f".data\na: .zero {size}\nb: .zero {size}\n" + "".join(f"out{m}: .zero {size}\n" for m in range(4))
    r = run(body, a=np.array(a, U[sew]), b=np.array(b, U[sew]))
    second = {"vv": b, "vx": [scalar & ((1 << sew) - 1)] * n, "vi": [imm & ((1 << sew) - 1)] * n}[form]
    for mode in range(4):
        want = [reference(name, p, q, sew, mode) for p, q in zip(a, second)]
        assert read(r, f"out{mode}", U[sew], n).tolist() == [v for v, _ in want], (mn, sew, mode)
        assert x(r, f"s{mode + 1}") == int(any(s for _, s in want)), (mn, sew, mode)


@pytest.mark.parametrize("value, shift, expect", [
    # value / 2^shift:   rnu  rne  rdn  rod
    (11, 2, (3, 3, 2, 3)),       # 2.75
    (10, 2, (3, 2, 2, 3)),       # 2.5: a tie, kept LSB even
    (6, 2, (2, 2, 1, 1)),        # 1.5: a tie, kept LSB odd
    (9, 2, (2, 2, 2, 3)),        # 2.25
    (8, 2, (2, 2, 2, 2)),        # exact
    (-6, 2, (-1, -2, -2, -1)),   # -1.5 (vssra)
    (7, 0, (7, 7, 7, 7)),        # no shift, no rounding
])
def test_rounding_modes_by_hand(value, shift, expect):
    body = vset(1, 32) + f"li a1, {value}\nvmv.s.x v1, a1\n"
    for mode in range(4):
        body += f"csrwi vxrm, {mode}\nvssra.vi v2, v1, {shift}\nvmv.x.s s{mode + 1}, v2\n"
    r = run(body)
    assert [signed(x(r, f"s{m + 1}"), 32) for m in range(4)] == list(expect)


def test_vxrm_vxsat_vcsr_csrs():
    r = run("csrr a0, vxrm\ncsrr a1, vxsat\ncsrr a2, vcsr\n"
            "csrwi vxrm, 3\ncsrwi vxsat, 1\ncsrr a3, vcsr\n"
            "li t0, 0b101\ncsrw vcsr, t0\ncsrr a4, vxrm\ncsrr a5, vxsat\n"
            "li t0, 0xFF\ncsrw vxrm, t0\ncsrr a6, vxrm\ncsrr a7, vcsr")
    assert (x(r, "a0"), x(r, "a1"), x(r, "a2")) == (0, 0, 0)
    assert x(r, "a3") == 0b111
    assert (x(r, "a4"), x(r, "a5")) == (2, 1)
    assert (x(r, "a6"), x(r, "a7")) == (3, 0b111)          # vxrm keeps 2 bits
    assert r.registers["vxrm"] == 3 and r.registers["vxsat"] == 1


def test_vxsat_only_from_active_elements_and_sticky():
    base = (vset(4, 8, ta="tu", ma="mu") + "li a1, 200\nvmv.v.x v1, a1\nli a1, 0b0101\nvmv.s.x v0, a1\n"
            "vmv.v.i v2, 0\nvsaddu.vi v2, v1, 10, v0.t\n")
    r = run(base + "csrr a0, vxsat\nvmv.v.i v3, 1\nvsaddu.vv v3, v3, v3\ncsrr a1, vxsat")
    assert x(r, "a0") == 0 and x(r, "a1") == 0              # 200 + 10 does not saturate
    r = run(vset(4, 8, ta="tu", ma="mu") + "li a1, 250\nvmv.v.x v1, a1\nli a1, 0b0010\nvmv.s.x v0, a1\n"
            "vsaddu.vi v2, v1, 10, v0.t\ncsrr a0, vxsat\nvsaddu.vi v2, v1, 1\ncsrr a2, vxsat\n"
            "csrwi vxsat, 0\nli a1, 0\nvmv.s.x v0, a1\nvsaddu.vi v2, v1, 10, v0.t\ncsrr a3, vxsat")
    assert x(r, "a0") == 1 and x(r, "a2") == 1              # sticky: the next op does not clear it
    assert x(r, "a3") == 0                                  # every element masked off: no saturation


def test_vl_zero_writes_nothing_and_sets_no_vxsat():
    r = run(vset(4, 8) + "li a1, 255\nvmv.v.x v1, a1\nvmv.v.i v2, 3\n" + vset(0, 8)
            + "vsaddu.vv v2, v1, v1\ncsrr a0, vxsat")
    assert x(r, "a0") == 0 and r.registers["v"][2][:4].tolist() == [3, 3, 3, 3]


def test_tail_and_mask_policies_on_a_saturating_op():
    def once(ta, ma):
        src = (vset(4, 16, ta="tu", ma="mu") + "li a1, 7\nvmv.v.x v2, a1\nli a1, 0x7FFF\nvmv.v.x v1, a1\n"
               "li a1, 0b0101\nvmv.s.x v0, a1\n" + vset(3, 16, "m1", ta, ma) + "vsadd.vv v2, v1, v1, v0.t\n"
               + vset(4, 16) + "la a0, out\nvse16.v v2, (a0)\n.data\nout: .zero 8")
        return read(run(src), "out", np.uint16, 4).tolist()
    assert once("tu", "mu") == [0x7FFF, 7, 0x7FFF, 7]
    assert once("ta", "ma") == [0x7FFF, 0xFFFF, 0x7FFF, 0xFFFF]


def test_lmul_groups_misaligned_rejected():
    r = run(vset(8, 32, "m2") + "vsadd.vv v2, v4, v5", expect_ok=False)
    assert "vs1 = v5 is not a multiple of 2" in str(r.error)
    r = run(vset(8, 32, "m4") + "vsmul.vx v4, v6, a0", expect_ok=False)
    assert "vs2 = v6 is not a multiple of 4" in str(r.error)
    r = run(vset(4, 32) + "vaadd.vv v0, v4, v5, v0.t", expect_ok=False)
    assert "cannot write v0" in str(r.error)


def test_vsmul_overflow_case_saturates():
    r = run(vset(2, 16) + "li a1, -32768\nvmv.v.x v1, a1\nli a1, 0x4000\nvmv.v.x v2, a1\n"
            "vsmul.vv v4, v1, v1\nvmv.x.s a0, v4\ncsrr a2, vxsat\ncsrwi vxsat, 0\n"
            "vsmul.vv v5, v1, v2\nvmv.x.s a3, v5\ncsrr a4, vxsat")
    # -1.0 * -1.0 = 1.0 is not representable in Q15: 0x7FFF and vxsat; -1.0 * 0.5 = -0.5 is
    assert x(r, "a0") == 0x7FFF and x(r, "a2") == 1
    assert x(r, "a3") == 0xFFFFC000 and x(r, "a4") == 0


# --- narrowing clips ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["vnclipu", "vnclip"])
@pytest.mark.parametrize("sew", [8, 16])
def test_narrowing_clips_against_the_reference(name, sew):
    rng = random.Random(f"{name}{sew}")
    w2 = 2 * sew
    n = 128 // sew                                  # LMUL = 1: the source spans 2 registers
    a = _values(rng, w2, n)
    shifts = [rng.randrange(0, 64) for _ in range(n)]
    body = (vset(n, sew) + "la a0, a\n" + vset(n, w2, "m2") + f"vle{w2}.v v4, (a0)\n" + vset(n, sew)
            + f"la a0, s\nvle{sew}.v v8, (a0)\n")
    for mode in range(4):
        body += (f"csrwi vxrm, {mode}\ncsrwi vxsat, 0\n{name}.wv v10, v4, v8\ncsrr s{mode + 1}, vxsat\n"
                 f"la a0, out{mode}\nvse{sew}.v v10, (a0)\n"
                 f"{name}.wi v11, v4, 3\nla a0, imm{mode}\nvse{sew}.v v11, (a0)\n")
    body += f".data\na: .zero {n * w2 // 8}\ns: .zero {n * sew // 8}\n" + "".join(
        f"out{m}: .zero {n * sew // 8}\nimm{m}: .zero {n * sew // 8}\n" for m in range(4))
    r = run(body, a=np.array(a, U[w2]), s=np.array([v & ((1 << sew) - 1) for v in shifts], U[sew]))
    is_signed = name == "vnclip"
    lo, hi = ((-(1 << (sew - 1)), (1 << (sew - 1)) - 1) if is_signed else (0, (1 << sew) - 1))

    def ref(v, sh, mode):
        v = signed(v, w2) if is_signed else v
        t = roundoff(v, sh & (w2 - 1), mode)
        return min(max(t, lo), hi) & ((1 << sew) - 1), not lo <= t <= hi
    for mode in range(4):
        want = [ref(v, sh & ((1 << sew) - 1), mode) for v, sh in zip(a, shifts)]
        assert read(r, f"out{mode}", U[sew], n).tolist() == [v for v, _ in want]
        assert x(r, f"s{mode + 1}") == int(any(s for _, s in want))
        assert read(r, f"imm{mode}", U[sew], n).tolist() == [ref(v, 3, mode)[0] for v in a]


def test_narrowing_clip_rules():
    r = run(vset(4, 32) + "vnclip.wi v1, v2, 0", expect_ok=False)
    assert "SEW = 32 would need 64-bit elements" in str(r.error)
    r = run(vset(8, 16) + "vnclipu.wv v3, v2, v4", expect_ok=False)
    assert "v3..v3 overlaps the wider source vs2 v2..v3" in str(r.error)
    r = run(vset(8, 16) + "vnclipu.wv v3, v5, v4", expect_ok=False)
    assert "vs2 (2*SEW) = v5 is not a multiple of 2" in str(r.error)
    r = run(vset(8, 16) + "vnclipu.wi v2, v2, 4\nvnclip.wx v9, v2, a0")     # vd = vs2: allowed
    assert r.error is None
