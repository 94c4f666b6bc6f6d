"""Operations written into generated runs of bundles (codegen.py) as Python statements
instead of calls, for the plain AieState of an untraced fast run: scalar and pointer
arithmetic and moves, loads, stores, accumulator broadcasts, the queueing of bf16
multiply-accumulates, and the vector operations of a softmax (bf16 max/min, upshift,
fp32 add/subtract/multiply, exp, bf16 rounding), the operations a straight-line kernel
executes most.

Each template covers only the usual case, tested first: an address in range and
aligned with no DMA transfer pending (races) and no deferred store's bytes, an
immediate post-modify, a queue with room, no NaN lane where the operation would make it
canonical. Anything else calls the operation's semantics function (the fallback), which
checks, raises and writes exactly as stepping does; so the statements change the same
state in the same order as the call they replace (the accumulators an operation touches
have no deferred multiply-accumulates left: codegen flushes them first). One exception:
an AST of an accumulator with queued multiply-accumulates joins its queue
(AieState.defer_store), so neighbouring accumulators' tile products land in one batch
later; its access is checked at issue, its bytes written when the queue lands, which any
other access of them, a DMA transfer's completion or the run's end makes happen first.
Where lanes.c is built (lanes.py), the vector operations are one call each of its C
loops instead, which compute the same bits for every input, and multiply-accumulates
are applied at once rather than queued (so no store waits behind them): a numpy call
costs about half a microsecond on 32 lanes, a C call about a tenth of that.
`Budget(fast=False)` turns all of this off.
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.numerics import LOG2E, canon

from . import numerics as nx
from . import semantics as sem
from .state import MAC_ADD, MAC_MATRIX, MAC_SUB

# names the statements use (bound per run by codegen.Compiler.common)
_MNEMONIC = {fn: k.replace("_", ".") for k, fn in sem.SEMANTICS.items()}
_WRAP = 1 << 30          # |step| and DM_SIZE below this: pointer + step needs no 32-bit wrap


def _bytes(a) -> memoryview:
    return memoryview(a).cast("B")


def namespace(st, native=None) -> dict:
    """The names the statements use, bound to the run's state. Whole-register and
    whole-row copies go through flat byte views of the state's arrays (memoryview slice
    assignment: the same bytes, several times cheaper than numpy indexing for 64 or 128
    bytes); so the deferred multiply-accumulates' buffers are allocated here. With
    `native` (lanes.c's module), its functions and the addresses of the registers and
    the EXP table they work on."""
    exp_off, exp_slope = (np.ascontiguousarray(t, np.float32) for t in st.tables["EXP"][:2])
    for i in range(len(st.macs)):
        st.mac_buffers(i)
    ns = {"XM": _bytes(st.x), "DMM": _bytes(st.dm), "ACCM": _bytes(st.acc),
          "MAM": [_bytes(b) for b in st.mac_a], "MBM": [_bytes(b) for b in st.mac_b],
          "MYM": [_bytes(b) for b in st.mac_y],
          "P": st.p, "R": st.r, "X16": st.x16, "ACC": st.acc, "ACCF": st.accf,
          # (one view per register, made once: numpy makes a new one per index)
          "XR": list(st.x16), "AU": list(st.acc), "AF": list(st.accf),
          "PENDING": st.pending, "MACS": st.macs, "SB": st.stored,
          "BF": nx.BF16_VALUES, "UP": nx._UP, "DOWN": nx._DOWN, "BACK": nx._BACK,
          "MAXR": np.maximum.reduce, "MAXIMUM": np.maximum, "MINIMUM": np.minimum,
          "ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "CANON": canon,
          "PWL_EXP": nx.pwl_exp, "EXP_OFF": exp_off, "EXP_SLOPE": exp_slope}
    if native is not None:
        # (the arrays are only ever written in place: their addresses hold for the run)
        at = lambda a: a.__array_interface__["data"][0]          # noqa: E731
        ns.update({"C_MMAC": native.mmac, "C_MAC": native.mac, "C_SRS": native.srs, "C_UPS": native.ups,
                   "C_MAXMIN": native.maxmin, "C_ARITH": native.arith, "C_EXP": native.pwl_exp,
                   "XB": at(st.x), "AB": at(st.acc), "EXP_OFFB": at(exp_off), "EXP_SLOPEB": at(exp_slope),
                   "EXP_SEGS": exp_off.size, "LOG2E": float(LOG2E)})
    return ns


def _memory(fallback: str, n: int, align: int, p: int, pm, move: str, dm_size: int, shift: int) -> list[str] | None:
    mode, step = pm
    if mode or abs(step) >= _WRAP or dm_size >= _WRAP:
        return None
    out = [f"a = P[{p}]",
           f"if a < SB[1] and SB[0] < a + {n}: st.flush_stores()",   # (bytes a deferred store writes)
           f"if a < 0 or a > {dm_size - n} or a & {align - 1} or PENDING: {fallback}",
           "else:",
           f"    banks.append(a >> {shift})",
           f"    {move}"]
    if step:
        out.append(f"    P[{p}] = a + {step}")
    return out


def _deferred_store(fallback: str, n: int, align: int, s: int, p: int, pm, dm_size: int, shift: int,
                    limit: int) -> list[str]:
    # (codegen leaves accumulator s's queue: a store whose access is not the usual
    # case lands it before the call; so does a full queue)
    out = [f"a = P[{p}]",
           f"if a < SB[1] and SB[0] < a + {n}: st.flush_stores()",
           f"if a < 0 or a > {dm_size - n} or a & {align - 1} or PENDING:",
           f"    if MACS[{s}]: st.flush_macs({s})",
           f"    {fallback}",
           "else:",
           f"    banks.append(a >> {shift})",
           f"    if 0 < len(MACS[{s}]) < {limit - 1}: st.defer_store({s}, a)",
           "    else:",
           f"        if MACS[{s}]: st.flush_macs({s})",
           f"        DMM[a:a + {n}] = ACCM[{n * s}:{n * s + n}]"]
    if pm[1]:
        out.append(f"    P[{p}] = a + {pm[1]}")
    return out


def _queue(fallback: str, kind: int, d: int, a: int, b: int, limit: int) -> list[str]:
    # operand rows of 64 bytes (a, b: x registers) and 128 (y: a pair of them)
    other = (f"    MYM[{d}][o + o:o + o + 128] = XM[{128 * b}:{128 * b + 128}]" if kind == MAC_MATRIX
             else f"    MBM[{d}][o:o + 64] = XM[{64 * b}:{64 * b + 64}]")
    return [f"q = MACS[{d}]", "k = len(q)",
            f"if k < {limit - 1}:", "    o = k << 6",
            f"    MAM[{d}][o:o + 64] = XM[{64 * a}:{64 * a + 64}]", other, f"    q.append({kind})",
            f"else: {fallback}"]


# The softmax's vector operations: (d, a[, b]) -> statements (semantics/vector.py; the
# bf16 max/min and rounding are numerics.bf16_max, bf16_min and to_bf16_bits written out)
_VECTOR = {
    # bf16 lanes widened exactly, straight into the accumulator's fp32 view
    "VUPS.BF16": lambda fallback, d, a: [f"BF.take(XR[{a}], out=AF[{d}])"],
    "VMAX.BF16": lambda fallback, d, a, b: [
        f"BACK.take(MAXIMUM(UP.take(XR[{a}]), UP.take(XR[{b}])), out=XR[{d}])"],
    "VMIN.BF16": lambda fallback, d, a, b: [
        f"BACK.take(MINIMUM(DOWN.take(XR[{a}]), DOWN.take(XR[{b}])), out=XR[{d}])"],
    # round to nearest even; a NaN lane (the maximum is NaN) takes the call
    "VSRS.BF16": lambda fallback, d, a: [
        f"v = MAXR(AF[{a}])", f"if v != v: {fallback}", "else:",
        f"    u = AU[{a}]", "    w = u >> 16", "    w &= 1", "    w += 0x7FFF", "    w += u",
        "    w >>= 16", f"    X16[{d}] = w"],
    # a NaN result is made canonical in place (the operands may be the destination)
    **{mn: (lambda uf: lambda fallback, d, a, b: [
        f"{uf}(AF[{a}], AF[{b}], out=AF[{d}])", f"v = MAXR(AF[{d}])",
        f"if v != v: ACCF[{d}] = CANON(AF[{d}])"])(uf)
       for mn, uf in (("AADD.F32", "ADD"), ("ASUB.F32", "SUB"), ("AMUL.F32", "MUL"))},
    "VPWL.EXP": lambda fallback, d, a: [f"ACCF[{d}] = PWL_EXP(AF[{a}], EXP_OFF, EXP_SLOPE)"],
}


def _wrap(expr: str) -> str:
    return f"(({expr}) + 0x80000000 & 0xFFFFFFFF) - 0x80000000"


def _const(v: int) -> str:
    return str(((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000)


def _r(d: int, expr: str) -> list[str]:
    return [f"R[{d}] = {expr}"] if d else ["pass"]         # r0 stays 0


# Scalar and pointer operations (semantics/scalar.py; the write methods wrap to 32 bits
# and leave r0 alone): register lists written directly
_SCALAR = {
    **{mn: (lambda op: lambda d, a, b: _r(d, _wrap(f"R[{a}] {op} R[{b}]")))(op)
       for mn, op in (("ADD", "+"), ("SUB", "-"), ("MUL", "*"), ("AND", "&"), ("OR", "|"))},
    "ADDI": lambda d, a, imm: _r(d, _wrap(f"R[{a}] + {imm}")),
    "SLLI": lambda d, a, imm: _r(d, _wrap(f"R[{a}] << {imm}")),
    "SRAI": lambda d, a, imm: _r(d, _wrap(f"R[{a}] >> {imm}")),
    "SRLI": lambda d, a, imm: _r(d, _wrap(f"(R[{a}] & 0xFFFFFFFF) >> {imm}")),
    "MOVI": lambda d, imm: _r(d, _const(imm)),
    "MOVHI": lambda d, imm: _r(d, _wrap(f"{imm << 16} | (R[{d}] & 0xFFFF)")),
    "MOV": lambda d, a: _r(d, _wrap(f"R[{a}]")),
    "MOVPI": lambda d, imm: [f"P[{d}] = {_const(imm)}"],
    "MOVP": lambda d, a: [f"P[{d}] = " + _wrap(f"R[{a}]")],
    "PADD": lambda d, a: [f"P[{d}] = " + _wrap(f"P[{d}] + R[{a}]")],
    "PADDI": lambda d, a, imm: [f"P[{d}] = " + _wrap(f"P[{a}] + {imm}")],
}


# The same operations as one call each of lanes.c's C loops (False: the fallback)
_NATIVE = {
    "VUPS.BF16": lambda d, a: f"C_UPS(XB, AB, {d}, {a})",
    "VMAX.BF16": lambda d, a, b: f"C_MAXMIN(XB, {d}, {a}, {b}, 0)",
    "VMIN.BF16": lambda d, a, b: f"C_MAXMIN(XB, {d}, {a}, {b}, 1)",
    "VSRS.BF16": lambda d, a: f"C_SRS(XB, AB, {d}, {a})",
    "AADD.F32": lambda d, a, b: f"C_ARITH(AB, 0, {d}, {a}, {b})",
    "ASUB.F32": lambda d, a, b: f"C_ARITH(AB, 1, {d}, {a}, {b})",
    "AMUL.F32": lambda d, a, b: f"C_ARITH(AB, 2, {d}, {a}, {b})",
    "VPWL.EXP": lambda d, a: f"C_EXP(AB, {d}, {a}, EXP_OFFB, EXP_SLOPEB, EXP_SEGS, LOG2E)",
}
# bf16 multiply-accumulates applied at once in C (nothing queued): their accumulator's
# queue, if a fallback left one, lands first
_NATIVE_MAC = {
    "VMAC.BF16": lambda d, a, b: f"C_MAC(XB, AB, {d}, {a}, {b}, 0)",
    "VMSC.BF16": lambda d, a, b: f"C_MAC(XB, AB, {d}, {a}, {b}, 1)",
    "VMMAC.BF16": lambda d, a, b: f"C_MMAC(XB, AB, {d}, {a}, {b})",
}


class Writer:
    """Writes the statements for one run's state: its sizes, whether it defers
    multiply-accumulates, and whether lanes.c's module (`native`) does the vector
    operations (then nothing is queued: each multiply-accumulate is applied at once)."""

    def __init__(self, st, native=None):
        self.st, self.native = st, native
        self.dm_size, self.shift = st.dm_size, st.bank_shift
        self.defer_macs, self.limit = st.defer_macs, st.MAX_DEFERRED

    def key(self) -> tuple:
        """What the statements' source depends on."""
        return self.dm_size, self.shift, self.defer_macs, self.limit, self.native is not None

    def namespace(self) -> dict:
        return namespace(self.st, self.native)

    def deferrable_store(self, fn, args: tuple) -> int | None:
        """The accumulator an AST stores, if its statements may defer the store behind
        the accumulator's queued multiply-accumulates (st.defer_store), else None."""
        if _MNEMONIC.get(fn) != "AST" or not self.defer_macs or self.native is not None:
            return None
        n, _, s, _, pm = args
        mode, step = pm
        if n != 128 or mode or abs(step) >= _WRAP or self.dm_size >= _WRAP:
            return None
        return s

    def statements(self, fn, args: tuple, fallback: str, defer: bool = False) -> list[str] | None:
        """Statements doing what `fallback` (the call of semantics function fn, one
        line) does, or None where the operation has no template. `defer`: an AST that
        may defer its store (deferrable_store; its accumulator's queue was not landed
        first)."""
        mnemonic = _MNEMONIC.get(fn)
        dm_size, shift = self.dm_size, self.shift
        if defer:
            return _deferred_store(fallback, *args, dm_size, shift, self.limit)
        if mnemonic in _SCALAR:
            return _SCALAR[mnemonic](*args)
        if mnemonic in ("VLD", "VST", "ALD", "AST"):
            n, align, r, p, pm = args
            reg = f"XM[{n * r}:{n * r + n}]" if mnemonic[0] == "V" else f"ACCM[{n * r}:{n * r + n}]"
            move = f"{reg} = DMM[a:a + {n}]" if mnemonic[1:] == "LD" else f"DMM[a:a + {n}] = {reg}"
            if n != (128 if mnemonic[0] == "A" else 64):
                return None
            return _memory(fallback, n, align, p, pm, move, dm_size, shift)
        if mnemonic == "ABCST":
            d, a = args
            return [f"ACC[{d}] = R[{a}] & 0xFFFFFFFF"]
        if self.native is not None:
            if mnemonic in _NATIVE:
                return [f"if not {_NATIVE[mnemonic](*args)}: {fallback}"]
            if mnemonic in _NATIVE_MAC:
                return [f"if MACS[{args[0]}]: st.flush_macs({args[0]})",
                        f"if not {_NATIVE_MAC[mnemonic](*args)}: {fallback}"]
        if mnemonic in _VECTOR:
            return _VECTOR[mnemonic](fallback, *args)
        kind = {"VMAC.BF16": MAC_ADD, "VMSC.BF16": MAC_SUB, "VMMAC.BF16": MAC_MATRIX}.get(mnemonic)
        if kind is not None and self.defer_macs:
            return _queue(fallback, kind, *args, self.limit)
        return None
