"""Add-with-carry and subtract-with-borrow (RVV 1.0 section 11.4): every form against
Python integers, carry/borrow in v0, mask outputs with their tail, a multi-word add
built from them, and the register rules (vd = v0, mask destinations inside a group)."""
import random

import numpy as np
import pytest
from coral_kit import read, run

from kernelcraft.isa.coral import isa

U = {8: np.uint8, 16: np.uint16, 32: np.uint32}
FORMS = sorted(mn for mn in isa().instructions if mn.split(".")[0] in ("vadc", "vmadc", "vsbc", "vmsbc"))


def vset(avl, e, lmul="m1", ta="ta", ma="ma"):
    return f"li t6, {avl}\nvsetvli t5, t6, e{e}, {lmul}, {ta}, {ma}\n"


@pytest.mark.parametrize("mn", FORMS)
@pytest.mark.parametrize("sew", [8, 32])
def test_every_carry_form_against_integers(mn, sew):
    rng = random.Random(f"{mn}{sew}")
    name, form = mn.split(".")
    n = 2 * 128 // sew - 1                               # LMUL = 2
    top = (1 << sew) - 1
    a = [rng.choice([0, top, rng.getrandbits(sew)]) for _ in range(n)]
    b = [rng.choice([0, top, 1, rng.getrandbits(sew)]) for _ in range(n)]
    carry = [rng.getrandbits(1) for _ in range(n)]
    scalar, imm = rng.getrandbits(32), rng.randrange(-16, 16)
    operand = {"v": "v8", "x": "a5", "i": str(imm)}[form[1]]
    tail = ", v0" if form.endswith("m") else ""
    to_mask = name.startswith("vm")
    store = "vsm.v v12, (a0)" if to_mask else f"vse{sew}.v v12, (a0)"
    src = (vset(n, sew, "m2") + f"la a0, a\nvle{sew}.v v4, (a0)\nla a0, b\nvle{sew}.v v8, (a0)\n"
           f"la a0, c\nvlm.v v0, (a0)\nli a5, {scalar}\n{mn} v12, v4, {operand}{tail}\nla a0, out\n{store}\n"
           f".data\na: .zero {n * sew // 8}\nb: .zero {n * sew // 8}\nc: .zero 32\nout: .zero {n * sew // 8}\n")
    bits = np.packbits(np.array(carry + [0] * (256 - n), np.uint8), bitorder="little")
    r = run(src, a=np.array(a, U[sew]), b=np.array(b, U[sew]), c=bits)
    second = {"v": b, "x": [scalar & top] * n, "i": [imm & top] * n}[form[1]]
    cin = carry if form.endswith("m") else [0] * n
    add = name in ("vadc", "vmadc")
    exact = [p + q + c if add else p - q - c for p, q, c in zip(a, second, cin)]
    if to_mask:
        got = np.unpackbits(read(r, "out", np.uint8, -(-n // 8)), bitorder="little")[:n].tolist()
        assert got == [int(v > top if add else v < 0) for v in exact]
    else:
        assert read(r, "out", U[sew], n).tolist() == [v & top for v in exact]


def test_mask_output_tail_is_all_ones_and_vl_zero_writes_nothing():
    r = run(vset(4, 32) + "vmv.v.i v1, -1\nvmv.v.i v2, 1\nvmv.v.i v3, 0\nvmadc.vv v3, v1, v2\n"
            + vset(0, 32) + "vmv.v.i v5, 0\nvmadc.vv v5, v1, v2\nvadc.vvm v6, v1, v2, v0")
    assert r.registers["v"][3].tolist() == [0xFF] * 16        # 4 carries, tail bits 1
    assert not r.registers["v"][5].any() and not r.registers["v"][6].any()


def test_vadc_tail_policy():
    for ta, want in (("tu", [3, 3, 3, 7]), ("ta", [3, 3, 3, 0xFFFFFFFF])):
        r = run(vset(4, 32) + "vmv.v.i v1, 1\nvmv.v.i v4, 7\nvmv.v.i v0, -1\n" + vset(3, 32, ta=ta)
                + "vadc.vim v4, v1, 1, v0\n" + vset(4, 32) + "la a0, out\nvse32.v v4, (a0)\n.data\nout: .zero 16")
        assert read(r, "out", np.uint32, 4).tolist() == want


def test_a_64_bit_add_from_32_bit_halves():
    rng = random.Random(7)
    xs = [rng.getrandbits(64) for _ in range(4)]
    ys = [rng.getrandbits(64) for _ in range(4)] + [0]
    ys[0] = (1 << 64) - xs[0]                               # wraps to 0 with a carry out of the top
    ys = ys[:4]
    lo = lambda v: [t & 0xFFFFFFFF for t in v]  # noqa: E731
    hi = lambda v: [t >> 32 for t in v]  # noqa: E731
    src = (vset(4, 32) + "la a0, xl\nvle32.v v1, (a0)\nla a0, xh\nvle32.v v2, (a0)\nla a0, yl\nvle32.v v3, (a0)\n"
           "la a0, yh\nvle32.v v4, (a0)\n"
           "vmadc.vv v0, v1, v3\nvadd.vv v5, v1, v3\nvadc.vvm v6, v2, v4, v0\n"
           "la a0, rl\nvse32.v v5, (a0)\nla a0, rh\nvse32.v v6, (a0)\n.data\n"
           + "".join(f"{n}: .zero 16\n" for n in ("xl", "xh", "yl", "yh", "rl", "rh")))
    r = run(src, xl=np.array(lo(xs), np.uint32), xh=np.array(hi(xs), np.uint32),
            yl=np.array(lo(ys), np.uint32), yh=np.array(hi(ys), np.uint32))
    got = [int(h) << 32 | int(low) for low, h in zip(read(r, "rl", np.uint32, 4), read(r, "rh", np.uint32, 4))]
    assert got == [(p + q) & (2**64 - 1) for p, q in zip(xs, ys)] and got[0] == 0


def test_register_rules():
    r = run(vset(4, 32) + "vadc.vvm v0, v1, v2, v0", expect_ok=False)
    assert "vadc.vvm cannot write v0, which holds the carry input" in str(r.error)
    r = run(vset(4, 32) + "vsbc.vxm v0, v1, a0, v0", expect_ok=False)
    assert "holds the borrow input" in str(r.error)
    r = run(vset(8, 32, "m2") + "vmadc.vv v3, v2, v4", expect_ok=False)
    assert "mask destination v3 overlaps the source vs2 v2..v3 other than in its lowest register" in str(r.error)
    r = run(vset(8, 32, "m2") + "vmsbc.vvm v2, v2, v4, v0\nvmadc.vi v4, v2, 3\nvmadc.vv v0, v2, v4")
    assert r.error is None
    r = run(vset(8, 32, "m2") + "vadc.vvm v2, v3, v4, v0", expect_ok=False)
    assert "vs2 = v3 is not a multiple of 2" in str(r.error)
