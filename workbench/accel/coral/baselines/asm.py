"""A small RISC-V assembly builder for templates: lines, comments, unique labels,
counted loops, strip-mined vector loops, a read-only constant pool, and binary32 exp."""
from __future__ import annotations

import struct
from contextlib import contextmanager

from kernelcraft.isa.loader import HardwareConfig

# exp(z) = 2^n * p(r): n = round(z * log2(e)), r = z - n*ln2 (ln2 in two parts so n*LN2_HI
# is exact), p = Taylor polynomial of degree 5 (relative error < 3e-6 on |r| <= ln2/2).
# z is first clamped to [EXP_LO, EXP_HI] so 2^n stays a normal binary32 number.
LOG2E = 1.4426950408889634
LN2_HI = 0.693359375
LN2_LO = -2.12194440e-4
EXP_LO, EXP_HI = -87.0, 88.0
EXP_POLY = (1 / 120, 1 / 24, 1 / 6, 1 / 2, 1.0, 1.0)      # c5 .. c0


def f32_text(value: float) -> str:
    """A decimal literal that .float turns into exactly the binary32 nearest `value`."""
    return repr(struct.unpack("<f", struct.pack("<f", value))[0])


class Asm:
    def __init__(self, hw: HardwareConfig):
        self.hw = hw
        self.lines: list[str] = []
        self.rodata: list[str] = []
        self._depth = 0
        self._labels = 0
        self._pool: dict[float, str] = {}

    def comment(self, text: str) -> None:
        self.lines.append("    " * self._depth + f"# {text}")

    def __call__(self, text: str, comment: str = "") -> None:
        line = "    " * (self._depth + 1) + text
        self.lines.append(f"{line:<48}# {comment}" if comment else line)

    def label(self, stem: str = "L") -> str:
        self._labels += 1
        return f".{stem}{self._labels}"

    def place(self, label: str) -> None:
        self.lines.append(f"{label}:")

    def li(self, reg: str, value: int, comment: str = "") -> None:
        self(f"li {reg}, {value}", comment)

    def addi(self, rd: str, rs: str, value: int, scratch: str = "t6") -> None:
        """rd = rs + value for any value (a scratch register when it needs more than 12 bits)."""
        if -2048 <= value <= 2047:
            if value or rd != rs:
                self(f"addi {rd}, {rs}, {value}")
            return
        self(f"li {scratch}, {value}")
        self(f"add {rd}, {rs}, {scratch}")

    def const(self, value: float) -> str:
        """A label in .rodata holding binary32 `value` (shared by equal values)."""
        key = struct.unpack("<f", struct.pack("<f", value))[0]
        if key not in self._pool:
            name = f".C{len(self._pool)}"
            self._pool[key] = name
            self.rodata.append(f"{name}: .float {f32_text(value)}")
        return self._pool[key]

    def flw_const(self, freg: str, value: float, scratch: str = "t6") -> None:
        self(f"flw {freg}, {self.const(value)}, {scratch}", f"{freg} = {value:g}")

    def flw_addr(self, freg: str, address: int, scratch: str = "t6", comment: str = "") -> None:
        self(f"li {scratch}, {address}")
        self(f"flw {freg}, 0({scratch})", comment)

    @contextmanager
    def loop(self, counter: str, count: int | str, comment: str = ""):
        """A counted loop of `count` passes (just the body when count == 1); a register
        name as `count` gives a run-time count, which must be at least 1."""
        if isinstance(count, str):
            top = self.label("loop")
            self(f"mv {counter}, {count}", comment)
        elif count < 1:
            raise ValueError(f"loop of {count} passes")
        elif count == 1:
            yield
            return
        else:
            top = self.label("loop")
            self.li(counter, count, comment)
        self.place(top)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            self(f"addi {counter}, {counter}, -1")
            self(f"bnez {counter}, {top}")

    @contextmanager
    def strip(self, remaining: str, vl: str, lmul: int, policy: str = "ta, ma", comment: str = ""):
        """A strip-mined loop: each pass sets vl = min(remaining, VLMAX) and the body
        handles vl elements; the caller advances its pointers by vl."""
        top = self.label("strip")
        self.place(top)
        self._depth += 1
        try:
            self(f"vsetvli {vl}, {remaining}, e32, m{lmul}, {policy}", comment)
            yield
        finally:
            self(f"sub {remaining}, {remaining}, {vl}")
            self._depth -= 1
            self(f"bnez {remaining}, {top}")

    def exp_consts(self, regs: dict[str, str]) -> None:
        """Load the exp constants into the f registers named by `regs` (keys: log2e,
        ln2hi, ln2lo, lo, hi, c5..c0)."""
        values = {"log2e": LOG2E, "ln2hi": LN2_HI, "ln2lo": LN2_LO, "lo": EXP_LO, "hi": EXP_HI}
        values.update({f"c{5 - i}": c for i, c in enumerate(EXP_POLY)})
        for key, reg in regs.items():
            self.flw_const(reg, values[key])

    def vexp(self, out: str, z: str, t: str, n: str, f: dict[str, str], bias: str) -> None:
        """out = exp(z) element-wise on the current vtype (SEW = 32); clobbers z, t, n.
        `bias` is an x register holding 127."""
        self(f"vfmin.vf {z}, {z}, {f['hi']}", "clamp: 2^n stays normal")
        self(f"vfmax.vf {z}, {z}, {f['lo']}")
        self(f"vfmul.vf {t}, {z}, {f['log2e']}")
        self(f"vfcvt.x.f.v {n}, {t}", "n = round(z * log2 e)")
        self(f"vfcvt.f.x.v {t}, {n}")
        self(f"vfnmsac.vf {z}, {f['ln2hi']}, {t}", "r = z - n * ln2, in two parts")
        self(f"vfnmsac.vf {z}, {f['ln2lo']}, {t}")
        self(f"vfmul.vf {out}, {z}, {f['c5']}", "p(r), Horner")
        for k in (4, 3, 2, 1):
            self(f"vfadd.vf {out}, {out}, {f[f'c{k}']}")
            self(f"vfmul.vv {out}, {out}, {z}")
        self(f"vfadd.vf {out}, {out}, {f['c0']}")
        self(f"vadd.vx {n}, {n}, {bias}", "2^n from the exponent bits")
        self(f"vsll.vi {n}, {n}, 23")
        self(f"vfmul.vv {out}, {out}, {n}")

    def text(self) -> str:
        out = list(self.lines)
        if self.rodata:
            out += ["", "    .section .rodata", "    .align 2"] + self.rodata
        return "\n".join(out) + "\n"
