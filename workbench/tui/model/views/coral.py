"""The coral core in the debugger: the vector configuration (vl, vtype as SEW, LMUL,
tail/mask policies, VLMAX) and the fp CSRs always in view; pages of x registers by
number and ABI name, f registers as bits and binary32 values, and v registers as
elements at the current SEW, the elements past vl (the tail) set apart and those the
last step wrote highlighted. Memories are byte-addressed (the memory view shows DTCM
by byte address).

vtype is decoded by the model (simulators/coral/inspect.py). The trace records vl,
vtype, fflags, frm, vxrm and vxsat; the state's own `vtype_text` and `fcsr` in
RunResult.registers hold the run's last values, so they are derived here instead."""
from __future__ import annotations

import numpy as np

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.coral import fp32
from kernelcraft.simulators.coral.inspect import VectorConfig, vector_config

from ..formats import format_cells
from .base import Line, MachineView, Page, Seg

FLAGS = (("NV", fp32.NV), ("DZ", fp32.DZ), ("OF", fp32.OF), ("UF", fp32.UF), ("NX", fp32.NX))


class CoralView(MachineView):
    break_words = "the program's own ebreak"
    register_height = 20
    unit_spaces = frozenset({"v"})
    paged = True

    def __init__(self, accel: str):
        super().__init__(accel)
        isa = get_isa(accel)
        self.names = {k: [isa.kinds[k].register_names(i) for i in range(isa.kinds[k].count)]
                      for k in ("x", "f")}
        self.rounding = {v: n for n, v in isa.kinds["rm"].names}

    def config(self, session, registers) -> VectorConfig:
        return vector_config(registers["vtype"], registers["vl"], session.hw.VLEN)

    def _csr_changed(self, session, timeline, name: str) -> bool:
        return name in session.csr_names and timeline.touched.has("csr", session.csr_names.index(name))

    def header(self, session, timeline) -> list[Line]:
        regs = timeline.registers
        vc = self.config(session, regs)
        ch = lambda name: "changed" if self._csr_changed(session, timeline, name) else ""  # noqa: E731
        vec: Line = [Seg("vl=", "label"), Seg(str(vc.vl), ch("vl")),
                     Seg(f" of VLMAX {vc.vlmax}  ", "dim"),
                     Seg("vtype=", "label"), Seg(f"0x{vc.vtype:08X}", ch("vtype"))]
        if vc.vill:
            vec.append(Seg(" vill: no vector instruction may run until a vset*", "bad"))
        else:
            vec += [Seg(" SEW=", "label"), Seg(f"e{vc.sew}", "title"),
                    Seg(" LMUL=", "label"), Seg(vc.lmul, "title"),
                    Seg(" ta" if vc.tail_agnostic else " tu", "title"),
                    Seg(" ma" if vc.mask_agnostic else " mu", "title")]
        vec.append(Seg(f"  VLEN={session.hw.VLEN}", "dim"))
        flags, frm = int(regs["fflags"]), int(regs["frm"])
        raised = " ".join(n for n, bit in FLAGS if flags & bit) or "none"
        fp: Line = [Seg("fcsr=", "label"), Seg(f"0x{frm << 5 | flags:02X}", ""),
                    Seg("  frm=", "label"), Seg(self.rounding.get(frm, str(frm)), ch("frm")),
                    Seg("  fflags=", "label"), Seg(raised, ch("fflags"))]
        if "vxrm" in regs and "vxsat" in regs:
            fp += [Seg("  vxrm=", "label"), Seg(str(int(regs["vxrm"])), ch("vxrm")),
                   Seg("  vxsat=", "label"), Seg(str(int(regs["vxsat"])), ch("vxsat"))]
        return [vec, fp]

    def register_pages(self, session, timeline, fmt: str, width: int) -> list[Page]:
        regs, touched = timeline.registers, timeline.touched
        return [Page("x", self._x(regs["x"], touched, fmt, width)),
                Page("f", self._f(regs["f"], touched, fmt, width)),
                Page("v", make=lambda: self._v(session, timeline, fmt), size=1 + len(regs["v"]))]

    def _x(self, values, touched, fmt: str, width: int) -> list[Line]:
        words = [int(v) & 0xFFFFFFFF for v in values]
        texts = [f"0x{v:08X}" if fmt == "hex" else str(v - (v >> 31 << 32)) for v in words]
        return self._named("x", texts, touched, width, 8)

    def _f(self, values, touched, fmt: str, width: int) -> list[Line]:
        bits = np.asarray(values, dtype=np.uint64).astype(np.uint32)
        shown = format_cells(bits.view(np.float32), "fp32", "fp32" if fmt in ("hex", "fp32") else fmt)
        texts = [f"{int(b):08X} {v}" for b, v in zip(bits, shown)]
        return self._named("f", texts, touched, width, 22)

    def _named(self, kind: str, texts: list[str], touched, width: int, least: int) -> list[Line]:
        """Registers of file `kind` in rows: number, ABI name, value text (at least
        `least` wide, so the columns stay put while values change)."""
        w = max(least, max(len(t) for t in texts))
        per = max(1, (width + 1) // (w + 10))
        out = []
        for start in range(0, len(texts), per):
            line: Line = []
            for i in range(start, min(len(texts), start + per)):
                num, abi = self.names[kind][i][0], self.names[kind][i][1]
                line += [Seg(f"{num:>3} ", "dim"), Seg(f"{abi:<4} ", "label"),
                         Seg(f"{texts[i]:<{w}} ", "changed" if touched.has(kind, i) else "")]
            out.append(line)
        return out

    def _v(self, session, timeline, fmt: str) -> list[Line]:
        regs = timeline.registers
        vc = self.config(session, regs)
        vreg = np.asarray(regs["v"])
        sew = vc.sew
        epr = vreg.shape[1] * 8 // sew
        cells = [_elements(vreg[r], sew, fmt) for r in range(vreg.shape[0])]
        w = max(len(c) for row in cells for c in row)
        # element-exact highlight after one step; the register's name after a longer move
        written = {}
        step = timeline.previous() if timeline.touched.steps == 1 else None
        for ch in step.changes if step is not None else ():
            if ch.space == "v":
                old = np.asarray(ch.old).view(_UINT[sew])
                new = np.asarray(ch.new).view(_UINT[sew])
                written[ch.address] = old != new
        # v0 read as the mask of a masked (v0.t) instruction: bit i for element i
        bits = np.unpackbits(vreg[0], bitorder="little")[:vc.vl]
        groups = ["".join(map(str, bits[i:i + 8].tolist())) for i in range(0, len(bits), 8)]
        out: list[Line] = [[Seg("mask ", "label"), Seg(f"v0.t bits 0..{max(vc.vl - 1, 0)}: ", "dim"),
                            Seg(" ".join(groups) or "(vl = 0)", "changed" if timeline.touched.has("v", 0)
                                else "")]]
        for r in range(vreg.shape[0]):
            first, offset = vc.group(r)
            head = r == first
            line: Line = [Seg(f"v{r:<2}", "changed" if timeline.touched.has("v", r)
                              else ("label" if head else "dim")),
                          Seg("│" if head else "┆", "dim")]
            for i, text in enumerate(cells[r]):
                index = offset * epr + i          # element index within its register group
                role = "tail" if vc.vill or index >= vc.vl else ""
                if r in written and written[r][i]:
                    role = "changed"
                line.append(Seg(f" {text:>{w}}", role))
            out.append(line)
        return out


_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32}


def _elements(raw: np.ndarray, sew: int, fmt: str) -> list[str]:
    """A register's bytes as SEW-bit elements: fp32 values at e32 and bf16 values at e16
    (for the bf16/fp32 formats), signed integers, or hex digits; e8 has no float form."""
    u = np.ascontiguousarray(raw).view(_UINT[sew])
    if fmt == "hex":
        return [f"{v:0{sew // 4}X}" for v in u.tolist()]
    if sew == 8 or fmt == "int":
        return [str(v) for v in u.view({8: np.int8, 16: np.int16, 32: np.int32}[sew]).tolist()]
    if sew == 16:
        return format_cells(u, "bf16", fmt)
    return format_cells(u.view(np.float32), "fp32", fmt)


VIEW = CoralView
