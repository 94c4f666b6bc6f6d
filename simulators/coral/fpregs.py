"""Scalar fp32 loops with their arithmetic registers held as Python floats.

In a self-looping scalar block (selfloop.py) the f registers are bit patterns, so
each fadd.s / fsub.s / fmul.s / fmadd.s-family instruction converts its operands to
floats, calls fp32 and converts back. This variant keeps every f register that only
such instructions write (with rounding mode RNE or dyn) as a float local for the
whole loop and inlines the common case of each operation:
- binary64 arithmetic on binary32 values, rounded to binary32 by a store into a
  float32 scratch cell (a C cast: nearest even);
- taken only when the result is normal and below 2^127 in magnitude: then NX is the
  only flag, raised when the binary32 rounding or the binary64 sum (TwoSum's error
  term) was inexact; binary64 then binary32 rounds a sum of two binary32 values
  correctly, a fused multiply-add not where binary64 rounded onto a binary32
  midpoint: that case is left to fp32, whose tie-breaking is exact (NX is tested
  first where it decides the result, so once NX is set most checks are skipped);
- every other case calls the fp32 function on the operands' bit patterns, which
  sets the flags, and keeps its result (finite, infinite or the canonical NaN, all
  exact as floats).
Floats hold these registers without loss: arithmetic writes only canonical NaNs,
and the loop is not used when such a register enters holding a signaling NaN. Other
instructions read them as bit patterns (`FB`), and every exit writes them back.
The loop is used only with frm = RNE: a block with a fast variant has no CSR access,
so frm stays so for the whole loop and dyn needs no check per operation, and fflags
is not read, so NX is kept in a local (`nx_`) and accrued on every exit.
"""
from __future__ import annotations

from array import array

from .semantics.scalar import _rm

# mnemonic -> (kind, negate product, negate addend)
ARITH = {"fadd.s": ("add", False, False), "fsub.s": ("add", False, True), "fmul.s": ("mul", False, False),
         "fmadd.s": ("fma", False, False), "fmsub.s": ("fma", False, True),
         "fnmsub.s": ("fma", True, False), "fnmadd.s": ("fma", True, True)}
TINY, BIG = "1.1754943508222875e-38", "1.7014118346046923e+38"       # 2^-126, 2^127

_cell = array("f", [0.0])
_bits = memoryview(_cell).cast("B").cast("I")


def FB(x: float) -> int:
    """Bit pattern of a float that is a binary32 value (or a quiet NaN)."""
    _cell[0] = x
    return _bits[0]


def BF(b: int) -> float:
    _bits[0] = b
    return _cell[0]


def SLOW(fc: list, out: tuple) -> float:
    """An fp32 function's (bits, flags): flags accrued, the result as a float."""
    fc[0] |= out[1]
    return BF(out[0])


def signaling(b: int) -> bool:
    return b & 0x7FC00000 == 0x7F800000 and b & 0x7FFFFF != 0


NAMES = {"FB": FB, "BF": BF, "SLOW": SLOW, "_F": array("f", [0.0])}


def _arith(mn, ops) -> bool:
    return mn in ARITH and ops["rm"] in (0, 7)


def float_registers(instrs) -> tuple[list[int], list[int]]:
    """(f registers every writer of which in this block is an RNE/dyn arithmetic
    instruction; f registers the block reads in arithmetic but never writes: those
    get a float shadow hk beside their bits). `instrs`: (mnemonic, operands, pc,
    Code) of the block's body."""
    arith, other, read = set(), set(), set()
    for mn, ops, _, code in instrs:
        if _arith(mn, ops):
            arith.add(ops["rd"])
            read |= {ops[k] for k in ("rs1", "rs2", "rs3") if k in ops}
        else:
            for line in code.lines:
                if line.lstrip().startswith("f["):
                    other.add(int(line.split("[", 1)[1].split("]", 1)[0]))
    return sorted(arith - other), sorted(read - arith - other)


def arith_lines(mn: str, ops: dict, pc: int, floats: set, shadows: set) -> list[str]:
    """The inline statements of one arithmetic instruction on float/bits locals."""
    kind, neg_p, neg_c = ARITH[mn]
    fl = lambda r: f"g{r}" if r in floats else f"h{r}" if r in shadows else f"BF(f[{r}])"   # noqa: E731
    bi = lambda r: f"FB(g{r})" if r in floats else f"f[{r}]"        # noqa: E731
    a, b = ops["rs1"], ops["rs2"]
    rm = ops["rm"]
    rm_expr = _rm(rm, pc)
    if kind == "add":
        slow = f"{'fsub' if neg_c else 'fadd'}({bi(a)}, {bi(b)}, {rm_expr})"
        p, z, head = fl(a), f"{'-' if neg_c else ''}{fl(b)}", []
    elif kind == "mul":
        slow = f"fmul({bi(a)}, {bi(b)}, {rm_expr})"
        head = [f"s_ = {fl(a)} * {fl(b)}"]
    else:
        c = ops["rs3"]
        slow = f"fma({bi(a)}, {bi(b)}, {bi(c)}, {rm_expr}, {neg_p}, {neg_c})"
        p, z, head = "p_", f"{'-' if neg_c else ''}{fl(c)}", [f"p_ = {'-' if neg_p else ''}{fl(a)} * {fl(b)}"]
    if kind != "mul":
        head.append(f"s_ = {p} + {z}")
        err = [f"bb_ = s_ - {p}", f"if ({p} - (s_ - bb_)) + ({z} - bb_):"]     # binary64 rounded the sum
    if kind == "mul":               # binary32 products are exact in binary64
        check = ["    if r_ != s_:", "        nx_ = 1"]
    elif kind == "add":             # binary64 then binary32 rounds a sum of binary32 values correctly
        check = ["    if not nx_:", "        if r_ != s_:", "            nx_ = 1", "        else:"] + \
                ["            " + line for line in err] + ["                nx_ = 1"]
    else:                           # ... a fused sum not: wrong only where binary64 rounded onto a midpoint
        check = ["    if r_ != s_:",
                 "        o_ = s_ + (s_ - r_)",                 # the other neighbour if s_ is a midpoint
                 "        _F[0] = o_",
                 "        if _F[0] == o_:"] + ["            " + line for line in err] + [
                 f"                r_ = SLOW(fc, {slow})",
                 "            else:",
                 "                nx_ = 1",
                 "        else:",
                 "            nx_ = 1",
                 "    elif not nx_:"] + ["        " + line for line in err] + ["            nx_ = 1"]
    rd = ops["rd"]
    dest = f"g{rd} = r_" if rd in floats else f"f[{rd}] = FB(r_)"
    inside = f"if {TINY} <= s_ < {BIG} or -{BIG} < s_ <= -{TINY}:"      # |s_| in range, no abs() call
    return head + [inside, "    _F[0] = s_", "    r_ = _F[0]"] + check + ["else:", f"    r_ = SLOW(fc, {slow})", dest]


def body(instrs, floats: list[int], shadows: list[int]) -> list[str]:
    """The block body with `floats` as float locals gk (read by others through FB)
    and float shadows hk of the registers in `shadows`."""
    fs, hs = set(floats), set(shadows)
    out = []
    for mn, ops, pc, code in instrs:
        if _arith(mn, ops):
            out += arith_lines(mn, ops, pc, fs, hs)
        else:
            for line in code.lines:
                for r in fs:
                    line = line.replace(f"f[{r}]", f"FB(g{r})")
                out.append(line)
    return out
