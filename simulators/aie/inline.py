"""Operations written into generated runs of bundles (codegen.py) as Python statements
instead of calls, for the plain AieState of an untraced fast run: loads, stores,
accumulator broadcasts and the queueing of bf16 multiply-accumulates, the operations a
straight-line kernel executes most.

Each template covers only the usual case, tested first: an address in range and
aligned with no DMA transfer pending (races), an immediate post-modify, a queue with
room. Anything else calls the operation's semantics function (the fallback), which
checks, raises and writes exactly as stepping does; so the statements change the same
state in the same order as the call they replace. `Budget(fast=False)` turns this off.
"""
from __future__ import annotations

from . import semantics as sem
from .state import MAC_ADD, MAC_MATRIX, MAC_SUB

# names the statements use (bound per run by codegen.Compiler.common)
_MNEMONIC = {fn: k.replace("_", ".") for k, fn in sem.SEMANTICS.items()}
_WRAP = 1 << 30          # |step| and DM_SIZE below this: pointer + step needs no 32-bit wrap


def namespace(st) -> dict:
    """The names the statements use, bound to the run's state."""
    return {"P": st.p, "R": st.r, "X": st.x, "X16": st.x16, "Y16": st.y16, "ACC8": st.acc.view("u1"),
            "ACC": st.acc, "DM": st.dm, "PENDING": st.pending, "MACS": st.macs, "MA": st.mac_a,
            "MB": st.mac_b, "MY": st.mac_y}


def _memory(fallback: str, n: int, align: int, p: int, pm, move: str, dm_size: int, shift: int) -> list[str] | None:
    mode, step = pm
    if mode or abs(step) >= _WRAP or dm_size >= _WRAP:
        return None
    out = [f"a = P[{p}]",
           f"if a < 0 or a > {dm_size - n} or a & {align - 1} or PENDING: {fallback}",
           "else:",
           f"    banks.append(a >> {shift})",
           f"    {move}"]
    if step:
        out.append(f"    P[{p}] = a + {step}")
    return out


def _queue(fallback: str, kind: int, d: int, a: int, b: int, limit: int) -> list[str]:
    bufs, src = ("MY", f"Y16[{b}]") if kind == MAC_MATRIX else ("MB", f"X16[{b}]")
    return [f"q = MACS[{d}]", "k = len(q)",
            f"if k and k < {limit - 1}:",
            f"    MA[{d}][k] = X16[{a}]", f"    {bufs}[{d}][k] = {src}", f"    q.append({kind})",
            f"else: {fallback}"]


def statements(fn, args: tuple, fallback: str, st) -> list[str] | None:
    """Statements doing what `fallback` (the call of semantics function fn, one line)
    does, or None where the operation has no template."""
    mnemonic = _MNEMONIC.get(fn)
    dm_size, shift = st.dm_size, st.bank_shift
    if mnemonic in ("VLD", "VST", "ALD", "AST"):
        n, align, r, p, pm = args
        move = {"VLD": f"X[{r}] = DM[a:a + {n}]", "VST": f"DM[a:a + {n}] = X[{r}]",
                "ALD": f"ACC8[{r}] = DM[a:a + {n}]", "AST": f"DM[a:a + {n}] = ACC8[{r}]"}[mnemonic]
        if n != (128 if mnemonic[0] == "A" else 64):
            return None
        return _memory(fallback, n, align, p, pm, move, dm_size, shift)
    if mnemonic == "ABCST":
        d, a = args
        return [f"ACC[{d}] = R[{a}] & 0xFFFFFFFF"]
    kind = {"VMAC.BF16": MAC_ADD, "VMSC.BF16": MAC_SUB, "VMMAC.BF16": MAC_MATRIX}.get(mnemonic)
    if kind is not None and st.defer_macs:
        return _queue(fallback, kind, *args, st.MAX_DEFERRED)
    return None
