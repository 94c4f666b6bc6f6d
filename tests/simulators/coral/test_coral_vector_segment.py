"""Segment loads and stores (every NF and EEW, unit-stride, strided and indexed),
fault-only-first loads, whole-register loads and stores: data against numpy, masks
and tails, vl = 0, the register-group rules and the memory errors."""
import re

import numpy as np
import pytest
from coral_kit import CFG, read, run, x

from kernelcraft.isa.coral import isa

U = UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32}


def vset(avl, e, lmul="m1", ta="ta", ma="ma"):
    return f"li t6, {avl}\nvsetvli t5, t6, e{e}, {lmul}, {ta}, {ma}\n"


def fields_of(r, first, nf, eew, emul, vl):
    """Elements 0..vl-1 of the NF field groups starting at v`first`."""
    v = r.registers["v"]
    return [np.concatenate([v[first + f * emul + k] for k in range(emul)]).view(U[eew])[:vl].tolist()
            for f in range(nf)]


@pytest.mark.parametrize("nf", range(2, 9))
@pytest.mark.parametrize("eew", [8, 16, 32])
def test_unit_stride_segments_deinterleave_and_interleave(nf, eew):
    lmul = {2: "m4", 3: "m2", 4: "m2"}.get(nf, "m1")
    emul = int(lmul[1])
    vl = emul * 128 // eew - 1
    data = np.arange(vl * nf, dtype=np.int64).astype(U[eew]) * 3 + 1
    src = (vset(vl, eew, lmul) + f"la a0, d\nvlseg{nf}e{eew}.v v8, (a0)\n"
           f"la a1, out\nvsseg{nf}e{eew}.v v8, (a1)\n"
           f".data\nd: .zero {data.nbytes}\nout: .zero {data.nbytes + 16}\n")
    r = run(src, d=data)
    assert fields_of(r, 8, nf, eew, emul, vl) == data.reshape(vl, nf).T.tolist()
    assert read(r, "out", U[eew], vl * nf + 16 // (eew // 8)).tolist() == data.tolist() + [0] * (16 // (eew // 8))


def test_strided_and_indexed_segments():
    rows = np.arange(40, dtype=np.uint32).reshape(10, 4)      # 10 rows of 4 words
    src = (vset(4, 32) + "la a0, m\nli a1, 32\nvlsseg3e32.v v1, (a0), a1\n"      # rows 0, 2, 4, 6: words 0..2
           "la a2, idx\nvle32.v v10, (a2)\nvluxseg2ei32.v v4, (a0), v10\nvloxseg2ei32.v v6, (a0), v10\n"
           "la a3, out\nli a1, 12\nvssseg3e32.v v1, (a3), a1\n"                 # packed rows of 3
           "la a4, out2\nvsoxseg2ei32.v v4, (a4), v10\n"
           ".data\nm: .zero 160\nidx: .word 36, 0, 100, 16\nout: .zero 48\nout2: .zero 160")
    r = run(src, m=rows)
    assert fields_of(r, 1, 3, 32, 1, 4) == rows[[0, 2, 4, 6], :3].T.tolist()
    flat = rows.ravel()
    assert fields_of(r, 4, 2, 32, 1, 4) == [flat[[9, 0, 25, 4]].tolist(), flat[[10, 1, 26, 5]].tolist()]
    assert fields_of(r, 6, 2, 32, 1, 4) == fields_of(r, 4, 2, 32, 1, 4)
    assert read(r, "out", np.uint32, 12).tolist() == rows[[0, 2, 4, 6], :3].ravel().tolist()
    out2 = read(r, "out2", np.uint32, 40)
    assert out2[[9, 10, 0, 1, 25, 26, 4, 5]].tolist() == flat[[9, 10, 0, 1, 25, 26, 4, 5]].tolist()


def test_indexed_segment_data_width_is_sew_with_8_bit_offsets():
    src = (vset(3, 16) + "la a0, d\nla a1, idx\nvle8.v v9, (a1)\nvluxseg2ei8.v v2, (a0), v9\n"
           ".data\nd: .half 10, 11, 12, 13, 14, 15, 16, 17\nidx: .byte 4, 0, 10")
    r = run(src)
    assert fields_of(r, 2, 2, 16, 1, 3) == [[12, 10, 15], [13, 11, 16]]


def test_masked_segments_follow_the_mask_policy_and_skip_memory():
    def once(ma):
        src = (vset(4, 32, ta="tu", ma="mu") + "vmv.v.i v2, 7\nvmv.v.i v3, 7\nli a1, 0b0110\nvmv.s.x v0, a1\n"
               + vset(4, 32, ma=ma) + "la a0, d\nvlseg2e32.v v2, (a0), v0.t\n"
               "la a1, out\nvsseg2e32.v v2, (a1), v0.t\n.data\nd: .word 1, 2, 3, 4, 5, 6, 7, 8\nout: .zero 32")
        return run(src)
    r = once("mu")
    assert fields_of(r, 2, 2, 32, 1, 4) == [[7, 3, 5, 7], [7, 4, 6, 7]]
    assert read(r, "out", np.uint32, 8).tolist() == [0, 0, 3, 4, 5, 6, 0, 0]
    r = once("ma")
    assert fields_of(r, 2, 2, 32, 1, 4) == [[0xFFFFFFFF, 3, 5, 0xFFFFFFFF], [0xFFFFFFFF, 4, 6, 0xFFFFFFFF]]
    # masked-off segments are not read: segment 0 lies in ITCM, segment 1 at d
    src = (vset(2, 32) + "li a1, 0b10\nvmv.s.x v0, a1\nli a0, 0x100\nla a1, d\naddi a1, a1, -0x100\n"
           "vlsseg2e32.v v2, (a0), a1, v0.t\nvssseg2e32.v v2, (a0), a1, v0.t\n.data\nd: .word 1, 2")
    assert fields_of(run(src), 2, 2, 32, 1, 2) == [[0xFFFFFFFF, 1], [0xFFFFFFFF, 2]]


def test_tail_policy_and_vl_zero():
    base = vset(4, 32, ta="tu") + "vmv.v.i v2, 9\nvmv.v.i v3, 9\n"
    r = run(base + vset(3, 32, ta="ta") + "la a0, d\nvlseg2e32.v v2, (a0)\n.data\nd: .word 1, 2, 3, 4, 5, 6, 7, 8")
    assert fields_of(r, 2, 2, 32, 1, 4) == [[1, 3, 5, 0xFFFFFFFF], [2, 4, 6, 0xFFFFFFFF]]
    r = run(base + vset(3, 32, ta="tu") + "la a0, d\nvlseg2e32.v v2, (a0)\n.data\nd: .word 1, 2, 3, 4, 5, 6, 7, 8")
    assert fields_of(r, 2, 2, 32, 1, 4) == [[1, 3, 5, 9], [2, 4, 6, 9]]
    r = run(base + vset(0, 32) + "li a0, 3\nvlseg2e32.v v2, (a0)\nvsseg2e32.v v2, (a0)")   # no access at all
    assert r.error is None and fields_of(r, 2, 2, 32, 1, 4) == [[9] * 4, [9] * 4]


def test_fractional_emul_fields_take_one_register_each():
    r = run(vset(4, 32, "m1") + "la a0, d\nvlseg4e8.v v4, (a0)\n.data\nd: .byte " + ", ".join(map(str, range(16))))
    assert fields_of(r, 4, 4, 8, 1, 4) == [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]


@pytest.mark.parametrize("code, message", [
    (vset(4, 32, "m4") + "vlseg3e32.v v8, (sp)", "3 fields of EMUL = 4 registers need 12 registers: NF * EMUL must be at most 8"),
    (vset(4, 32, "m2") + "vlseg3e32.v v3, (sp)", "vd = v3 is not a multiple of 2"),
    (vset(4, 32) + "vsseg8e32.v v28, (sp)", "vs3 = v28 with 8 fields of 1 register(s) would run past v31 (v28..v35); start the group at v24 or lower"),
    (vset(4, 8, "m4") + "vlseg2e32.v v8, (sp)", "vd would need EMUL = 16 registers"),
    (vset(4, 32) + "vlseg2e32.v v0, (sp), v0.t", "cannot write v0"),
    (vset(4, 32) + "vluxseg2ei32.v v4, (sp), v5", "the destination v4..v5 overlaps the offsets v5..v5"),
    # legal groups (offsets at EMUL = 1/2 beside data at LMUL = 2): it gets as far as memory
    (vset(4, 32, "m2") + "vloxseg2ei8.v v4, (sp), v9", "segment 0, field 0: vector segment load"),
])
def test_register_group_rules(code, message):
    r = run(code, expect_ok=False)
    assert message in str(r.error)


def test_segment_memory_errors_name_the_element():
    r = run(vset(4, 32) + "la a0, d\naddi a0, a0, 2\nvlseg2e32.v v2, (a0)\n.data\nd: .zero 32", expect_ok=False)
    assert "segment 0, field 0: vector segment load of 4 bytes at address" in str(r.error)
    assert "not aligned" in str(r.error)
    end = CFG.DTCM_BASE + CFG.DTCM_SIZE
    r = run(vset(4, 32) + f"li a0, {end - 20}\nvsseg2e32.v v2, (a0)", expect_ok=False)
    assert "segment 2, field 1: vector segment store of 4 bytes at address" in str(r.error)
    assert "outside DTCM" in str(r.error) and r.error.address == end


# --- fault-only-first -----------------------------------------------------------------------

def test_fault_only_first_trims_vl_at_the_end_of_dtcm():
    end = CFG.DTCM_BASE + CFG.DTCM_SIZE
    r = run(vset(8, 32, "m2", ta="tu") + "vmv.v.i v2, 5\n"
            f"li a0, {end - 12}\nvle32ff.v v2, (a0)\ncsrr a1, vl\n"
            + vset(4, 32, ta="tu") + f"li a0, {end - 20}\nvlseg2e32ff.v v6, (a0)\ncsrr a2, vl")
    assert x(r, "a1") == 3 and x(r, "a2") == 2
    assert fields_of(r, 2, 1, 32, 2, 8)[0][3:] == [5] * 5            # tail undisturbed from the new vl


@pytest.mark.parametrize("eew", [8, 16, 32])
def test_fault_only_first_loads_like_the_plain_load(eew):
    data = np.arange(1, 5, dtype=U[eew])
    r = run(vset(4, eew) + f"la a0, d\nvle{eew}ff.v v1, (a0)\ncsrr a1, vl\n.data\nd: .zero 16", d=data)
    assert x(r, "a1") == 4 and r.registers["v"][1].view(U[eew])[:4].tolist() == [1, 2, 3, 4]


def test_fault_only_first_faults_at_element_0():
    r = run(vset(4, 32) + "li a0, 0x100\nvle32ff.v v1, (a0)", expect_ok=False)
    assert "element 0" in str(r.error) and "ITCM" in str(r.error)
    # a masked-off bad element neither faults nor trims vl
    end = CFG.DTCM_BASE + CFG.DTCM_SIZE
    r = run(vset(4, 32, ta="tu", ma="mu") + "li a1, 0b0111\nvmv.s.x v0, a1\n"
            f"li a0, {end - 12}\nvle32ff.v v2, (a0), v0.t\ncsrr a1, vl")
    assert x(r, "a1") == 4
    # element 0 masked off: a bad element 1 is past element 0, so it trims vl to 1
    r = run(vset(4, 32, ta="tu", ma="mu") + "li a1, 0b1110\nvmv.s.x v0, a1\n"
            f"li a0, {end - 4}\nvle32ff.v v2, (a0), v0.t\ncsrr a1, vl")
    assert x(r, "a1") == 1


# --- whole registers ----------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 4, 8])
@pytest.mark.parametrize("eew", [8, 16, 32])
def test_whole_register_load_store_ignore_vtype(n, eew):
    size = n * CFG.VLEN // 8
    data = np.arange(size, dtype=np.uint8) ^ 0x5A
    src = (f"la a0, d\nvl{n}re{eew}.v v8, (a0)\nla a1, out\nvs{n}r.v v8, (a1)\n"       # no vsetvli: vill
           f".data\nd: .zero {size}\nout: .zero {size + 4}")
    r = run(src, d=data)
    assert np.concatenate(list(r.registers["v"][8:8 + n])).tolist() == data.tolist()
    assert read(r, "out", np.uint8, size + 4).tolist() == data.tolist() + [0] * 4


def test_whole_register_rules():
    r = run("la a0, d\nvl2re32.v v3, (a0)\n.data\nd: .zero 64", expect_ok=False)
    assert "vd = v3 is not a multiple of 2" in str(r.error) and "whole-register" in str(r.error)
    r = run("la a0, d\naddi a0, a0, 2\nvl1re32.v v1, (a0)\n.data\nd: .zero 64", expect_ok=False)
    assert "not aligned" in str(r.error)
    r = run("la a0, d\naddi a0, a0, 1\nvl1re8.v v1, (a0)\nvs1r.v v1, (a0)\n.data\nd: .zero 64")
    assert r.error is None
    end = CFG.DTCM_BASE + CFG.DTCM_SIZE
    r = run(f"li a0, {end - 16}\nvs2r.v v2, (a0)", expect_ok=False)
    assert "outside DTCM" in str(r.error) and "whole-register store" in str(r.error)


def test_segment_and_whole_register_timing():
    r = run(vset(4, 32) + "la a0, d\nvlseg4e32.v v4, (a0)\nebreak\n.data\nd: .zero 64")
    assert r.unit_busy["vector"] == 4 * 4 * CFG.cycles("VLOAD")          # 4 fields x 4 elements (the RTL's passes)
    r = run(vset(4, 32) + "la a0, d\nli a1, 16\nvlsseg2e32.v v4, (a0), a1\nebreak\n.data\nd: .zero 64")
    assert r.unit_busy["vector"] == 2 * 4 * CFG.cycles("VLOADS")         # per field of each element
    r = run("la a0, d\nvs8r.v v8, (a0)\nebreak\n.data\nd: .zero 128")
    assert r.unit_busy["vector"] == 8 * CFG.cycles("VSTORE")


# --- every segment instruction against a numpy model -------------------------------------

SEGMENTS = sorted(mn for mn in isa().instructions if "seg" in mn)


def _segment_case(mn):
    """(nf, index or data EEW, data EEW, mode) read from the mnemonic."""
    nf = int(mn[mn.index("seg") + 3])
    eew = int(re.search(r"ei?(\d+)(ff)?\.v$", mn).group(1))
    mode = "indexed" if "xseg" in mn else "strided" if re.match(r"v[ls]sseg", mn) else "unit"
    return nf, eew, 32 if mode == "indexed" else eew, mode


@pytest.mark.parametrize("mn", SEGMENTS)
def test_every_segment_instruction(mn):
    nf, eew, deew, mode = _segment_case(mn)
    db = deew // 8
    vl = 128 // deew - 1                                     # LMUL = 1 at SEW = data EEW: a tail
    rng = np.random.default_rng(len(mn) * 131 + nf)
    pitch = nf * db + (8 if mode == "strided" else 0)        # bytes between segment starts
    slots = np.arange(vl)
    if mode == "indexed":
        slots = rng.permutation(vl + 2)[:vl]                 # distinct, in any order
    starts = slots * pitch
    size = (vl + 2) * pitch
    memory = rng.integers(0, 256, size, dtype=np.uint8)
    load = mn.startswith("vl")
    index_decl = f".align 2\nidx: .zero {vl * eew // 8 + 4}\n"
    src = f"li t6, {vl}\nvsetvli t5, t6, e{deew}, m1, tu, mu\nla a0, d\nli a1, {pitch}\n"
    if mode == "indexed":
        src += f"la a2, idx\nvsetvli zero, t6, e{eew}, mf{deew // eew}\n" if eew < deew else "la a2, idx\n"
        src += f"vle{eew}.v v30, (a2)\nvsetvli zero, t6, e{deew}, m1, tu, mu\n"
    operand = {"unit": "", "strided": ", a1", "indexed": ", v30"}[mode]
    if load:
        src += f"{mn} v8, (a0){operand}\n"
    else:
        src += "".join(f"la a3, fld{f}\nvle{deew}.v v{8 + f}, (a3)\n" for f in range(nf))
        src += f"{mn} v8, (a0){operand}\n"
    fields = rng.integers(0, 2 ** deew, (nf, vl), dtype=np.uint64).astype(UINT[deew])
    src += f".data\nd: .zero {size}\n{index_decl}" + "".join(f".align 2\nfld{f}: .zero {vl * db}\n" for f in range(nf))
    writes = {"d": memory} if load else {f"fld{f}": fields[f] for f in range(nf)}
    if mode == "indexed":
        writes["idx"] = starts.astype(UINT[eew])
    r = run(src, **writes)
    if load:
        expect = [[memory[s + f * db:s + (f + 1) * db].view(UINT[deew])[0] for s in starts] for f in range(nf)]
        assert fields_of(r, 8, nf, deew, 1, vl) == [[int(v) for v in row] for row in expect]
    else:
        out = memory.copy() * 0
        for i, s in enumerate(starts):
            for f in range(nf):
                out[s + f * db:s + (f + 1) * db] = fields[f, i:i + 1].view(np.uint8)
        assert read(r, "d", np.uint8, size).tolist() == out.tolist()
