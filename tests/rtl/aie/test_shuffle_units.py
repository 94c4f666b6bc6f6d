"""The aie RTL's shuffle unit (rtl/aie/aie_shuf.v: VSHUF in all 16 modes, VALIGN at all
64 byte offsets, VBCL.16 of all 32 lanes) on random register pairs, against an
independent reference (each mode's formula read from isa/aie/shuffles.toml and evaluated
here lane by lane; VALIGN and VBCL.16 from their definitions on bytes) and against the
functional model (bit-identical memories, registers and cycles).

Every one of the 112 operations runs on every pair, back to back (each result stored two
bundles later), so the unit's operand registers change every cycle."""
from __future__ import annotations

import tomllib

import numpy as np

from kernelcraft.isa.aie.model import ROOT as ISA_DIR
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie_rtl.compare import compare_runs
from kernelcraft.simulators.core.backend import MemoryImage

from .test_vector_units import _run_both

PAIRS = 96
OPS = [("VSHUF", m) for m in range(16)] + [("VALIGN", k) for k in range(64)] + \
      [("VBCL.16", j) for j in range(32)]
CHUNK = 16                       # results per 1 KB DMAOUT
OUT = PAIRS * 64                 # external word of the first result


def shuffle_program(cfg):
    body = []
    for c in range(0, len(OPS), CHUNK):
        body.append("MOVPI p2, 2048")
        chunk = OPS[c:c + CHUNK]
        for k in range(len(chunk) + 2):
            ops = []
            if k < len(chunk):
                op, imm = chunk[k]
                d = f"x{2 + k % 14}"
                ops.append(f"{op} {d}, x0, {imm}" if op == "VBCL.16" else f"{op} {d}, x0, x1, {imm}")
            if k >= 2:
                ops.append(f"VST x{2 + (k - 2) % 14}, [p2], 64")
            body.append(" || ".join(ops))
        body += ["DMAOUT 0, Y, r2, r0", "ACQ l1, 1", f"ADDI r2, r2, {CHUNK * 32}"]
    src = f"""
.bd A, ext=0, loc=0, n0=64, rel=l0
.bd Y, ext={OUT}, loc=2048, n0={CHUNK * 32}, rel=l1
    MOVI r1, 0
    MOVI r2, 0
    LOOP {PAIRS}
        DMAIN 0, A, r1, r0
        ACQ l0, 1
        MOVPI p0, 0
        MOVPI p1, 64
        VLD x0, [p0] || VLD x1, [p1]
""" + "\n".join("        " + b for b in body) + """
        ADDI r1, r1, 64
    ENDLOOP
"""
    return assemble(src, "shuffles.asm", cfg)


def reference(pair: np.ndarray) -> np.ndarray:
    """(len(OPS), 64) result bytes of one 128-byte pair (xa's bytes first)."""
    modes = {m["value"]: m for m in tomllib.loads((ISA_DIR / "shuffles.toml").read_text())["mode"]}
    out = []
    for op, imm in OPS:
        if op == "VSHUF":
            m = modes[imm]
            w = m["bits"] // 8
            lanes = pair.reshape(-1, w)
            src = [eval(m["src"], {"__builtins__": {}}, {"i": i}) for i in range(64 // w)]
            out.append(lanes[src].ravel())
        elif op == "VALIGN":
            out.append(pair[imm:imm + 64])
        else:
            out.append(np.tile(pair[2 * imm:2 * imm + 2], 32))
    return np.array(out, np.uint8)


def test_shuffles_on_random_pairs(diff_cfg, aie_build):
    rng = np.random.default_rng(50)
    pairs = rng.integers(0, 256, (PAIRS, 128), dtype=np.uint16).astype(np.uint8)
    pairs[0] = np.arange(128)                       # lane numbers: a misrouted lane shows
    image = MemoryImage().put("ext", 0, pairs.ravel().view(np.uint16))
    rtl, model = _run_both(shuffle_program(diff_cfg), image, diff_cfg)
    got = np.asarray(rtl.memories["ext"][OUT:OUT + PAIRS * len(OPS) * 32]).view(np.uint8)
    got = got.reshape(PAIRS, len(OPS), 64)
    for p in range(PAIRS):
        want = reference(pairs[p])
        bad = np.flatnonzero((got[p] != want).any(axis=1))
        assert not bad.size, (f"pair {p}: {bad.size} of {len(OPS)} operations differ from the "
                              f"reference; first {OPS[bad[0]]}: RTL {got[p, bad[0]].tolist()}, "
                              f"reference {want[bad[0]].tolist()}")
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]
