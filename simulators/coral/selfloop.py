"""A block that branches back to itself, translated into one Python `while` loop.

Whatever the block holds, a run of its iterations then costs one call instead of one
run-loop step per iteration. Derived from the block's own generated code, so any
loop shape gets it (not a list of known shapes); the loop plans of loops.py and
strips.py still go first where they apply.

Two variants, like the block's:
- `fast(n)` -> (iterations, next index): the fast variant's statements in a loop,
  with the x and f registers the block names held in local variables (written back
  on every exit, including an error). Used where the block's fast variant would be:
  no vector instruction, so nothing in the loop can change the vector timing state
  that allowed it. Each iteration costs the block's static cycles; the run loop adds
  them (and the exit's misprediction penalty).
- `timed(T, R, n)` -> (iterations, next index, T): the timed variant's statements in
  a loop, T carried from iteration to iteration exactly as the run loop would carry
  it. Registers stay in the state (vector closures read them).

Both stop after `n` iterations (the run loop passes what is left before its next
budget check) or when the branch falls through. An error in iteration i leaves the
registers as the block-by-block run would and carries `done` = i - 1 whole
iterations (and the timed variant's `T0`, T at the start of iteration i) for the
run loop's accounting, and the fault's cycle (compiler.fault_at) as the block's does.
"""
from __future__ import annotations

import re

from kernelcraft.simulators.core.errors import SimError

from . import fpregs
from .state import FRM

REG = re.compile(r"\b([xf])\[(\d+)\]")
WRITE = re.compile(r"^\s*([xf])\[(\d+)\]\s*=")
BARE = re.compile(r"\b[xf]\b(?!\[\d+\])")


def _localise(lines: list[str], cond: str):
    """Statements and condition with x[k]/f[k] as locals xk/fk; the loads before the
    loop and the write-backs; or None if the code names the register lists otherwise."""
    text = "\n".join(lines + [cond])
    if BARE.search(text):
        return None
    names = sorted(set(REG.findall(text)), key=lambda r: (r[0], int(r[1])))
    written = sorted({m.groups() for line in lines if (m := WRITE.match(line))}, key=lambda r: (r[0], int(r[1])))
    sub = lambda s: REG.sub(lambda m: "0" if m.group(0) == "x[0]" else f"{m.group(1)}{m.group(2)}", s)
    loads = [f"{r}{k} = {r}[{k}]" for r, k in names if (r, k) != ("x", "0")]
    back = "; ".join(f"{r}[{k}] = {r}{k}" for r, k in written if (r, k) != ("x", "0")) or "pass"
    return [sub(line) for line in lines], sub(cond), loads, back


ADDRESS = re.compile(r"^a = \((x\d+|0) \+ (-?\d+)\) & M$")
ASSIGNED = re.compile(r"\b(x\d+)\s*(?:[-+*/%&|^]|<<|>>|//|\*\*)?=(?!=)")
CHECK = re.compile(r"^if o < 0 or o > (DL\d)( or a & \d)?: raise BAD\(")


def hoist_addresses(body: list[str]) -> tuple[list[str], list[str]]:
    """Loads and stores whose base register the loop never writes use the same
    address every iteration: (the body with each such access's address and check
    replaced by a local computed once before the loop, the condition under which
    every hoisted check passes). The caller runs this body only when it holds, so
    that an access that faults still faults where the block-by-block run does."""
    written = set(ASSIGNED.findall("\n".join(body)))          # any assignment, to be safe
    out, pre, ok = [], [], []
    i = 0
    while i < len(body):
        m = ADDRESS.match(body[i])
        c = CHECK.match(body[i + 2]) if m and i + 2 < len(body) and body[i + 1] == "o = a - DB" else None
        if c and m.group(1) not in written:
            k = len(pre)
            pre += [f"a_{k} = ({m.group(1)} + {m.group(2)}) & M", f"o_{k} = a_{k} - DB"]
            ok.append(f"0 <= o_{k} <= {c.group(1)}" + (f" and not a_{k}{c.group(2)[5:]}" if c.group(2) else ""))
            out.append(f"o = o_{k}")
            i += 3
            continue
        out.append(body[i])
        i += 1
    return out, pre + ([f"HOISTED = {' and '.join(ok)}"] if ok else [])


def fast_source(body: list[str], cond: str, start: int, end: int, floats=(), shadows=(), plain=None) -> str:
    """The loop function; `plain`: the name of the same loop without hoisted
    addresses (hoist_addresses), to run when a hoisted check fails."""
    local = _localise(body, cond)
    if local is None:
        body_l, cond_l, loads, back = body, cond, [], "pass"
    else:
        body_l, cond_l, loads, back = local
    if plain is not None and local is not None:
        body_l, pre = hoist_addresses(body_l)
        if pre:
            loads = loads + pre + [f"if not HOISTED: return {plain}(n)"]
    if floats:                      # fpregs.py: these f registers as float locals gk, NX in nx_
        loads = loads + [f"g{k} = BF(f[{k}])" for k in floats] + [f"h{k} = BF(f[{k}])" for k in shadows]
        loads.append("nx_ = 0")
        back = "; ".join(([back] if back != "pass" else []) + [f"f[{k}] = FB(g{k})" for k in floats]
                         + ["fc[0] |= nx_"])
    inner = "\n".join("            " + line for line in body_l)
    head = "\n".join("    " + line for line in loads)
    return f"""def fast(n):
{head}
    i = 0
    try:
        for i in range(1, n + 1):
{inner}
            if not ({cond_l}):
                {back}
                return i, {end}
        {back}
        return n, {start}
    except SimError as e:
        {back}
        e.done = i - 1
        raise
"""


def timed_source(body: list[str], cond: str, start: int, end: int, size: int, taken: int, fall: int,
                 tdelta: tuple = (), own: tuple = ()) -> str:
    inner = "\n".join("            " + line for line in body)
    uses_r = re.search(r"\bR\b", "\n".join(body)) is not None
    r_line = f"            R = R0 + {size} * i\n" if uses_r else ""
    return f"""def timed(T, R0, n):
    i = 0
    try:
        while True:
            T0 = T
{r_line}            i += 1
{inner}
            if not ({cond}):
                return i, {end}, T + {fall}
            T += {taken}
            if i >= n:
                return i, {start}, T
    except SimError as e:
        e.done, e.T0 = i - 1, T0
        FAULT_AT(e, T, {start}, {tdelta}, {own})
        raise
"""


NAME = re.compile(r"\b[A-Za-z_]\w*\b")


def bind_globals(source: str, names) -> str:
    """The loop function with the block namespace's names it uses bound as keyword
    defaults: locals in the loop rather than global lookups per use."""
    used = sorted(set(NAME.findall(source)) & set(names))
    if not used:
        return source
    head, rest = source.split("):", 1)
    return f"{head}, *, {', '.join(f'{k}={k}' for k in used)}):{rest}"


class SelfLoop:
    """The two loop functions of one self-looping block (the fast one only if the
    block has a fast variant); compiled on first use."""

    __slots__ = ("comp", "blk", "body_fast", "body_timed", "cond", "_fast", "_timed", "floats", "_float", "vec")

    def __init__(self, comp, blk, body_fast, body_timed, cond, vec=None):
        self.comp, self.blk, self.cond = comp, blk, cond
        self.body_fast, self.body_timed = body_fast, body_timed
        self._fast = self._timed = self.floats = self._float = None
        self.vec = vec              # vecloop.py's variant of the timed loop, if it may apply

    def fast(self, n: int):
        if self.floats is None:
            self._float_variant()
        if self.floats:
            f = self.comp.s.f
            if not self.comp.s.fc[FRM] and not any(fpregs.signaling(f[k]) for k in self.floats):
                return self._float(n)
        if self._fast is None:
            b = self.blk
            plain = f"PLAIN{b.start}"
            self.comp.ns[plain] = self.comp._define(
                bind_globals(fast_source(self.body_fast, self.cond, b.start, b.start + b.size), self.comp.ns), "fast")
            source = fast_source(self.body_fast, self.cond, b.start, b.start + b.size, plain=plain)
            self._fast = self.comp._define(bind_globals(source, self.comp.ns), "fast")
        return self._fast(n)

    def _float_variant(self) -> None:
        """fpregs.py's variant, if the block has f registers only arithmetic writes."""
        comp, b = self.comp, self.blk
        parts = []
        for k, pc in enumerate(range(b.start, b.start + b.size - 1)):      # the body, not the branch
            code, d = comp.code_of(pc, k)
            ins = comp.program.instrs[pc]
            ops = {op.name: ins.ops.get(op.name, op.kind.default) for op in d.operands} if d else {}
            parts.append((d.mnemonic if d else None, ops, pc, code))
        self.floats, shadows = fpregs.float_registers(parts)
        if self.floats:
            comp.ns.update(fpregs.NAMES)
            source = fast_source(fpregs.body(parts, self.floats, shadows), self.cond, b.start, b.start + b.size,
                                 self.floats, shadows)
            self._float = comp._define(bind_globals(source, comp.ns), "fast")

    def timed(self, T: int, R: int, n: int):
        done = 0
        if self.vec is not None and self.vec.cold():    # one iteration stepped warms its closures
            done, nxt, T = self._timed_loop(T, R, 1)
            if nxt != self.blk.start or done >= n:
                return done, nxt, T
        while self.vec is not None and done < n:
            out = self.vec.run(T, n - done)
            if out is None:
                break
            i, nxt, T, stopped = out
            done += i
            if not stopped:
                return done, nxt, T
            # the iteration it left, stepped; then the variant again, unless it left at once
            j, nxt, T = self._stepped(T, R, done, 1)
            done += j
            if nxt != self.blk.start or done >= n:
                return done, nxt, T
            if i == 0:              # it left at once: stepping is the better path for now
                break
        j, nxt, T = self._stepped(T, R, done, n - done)
        return done + j, nxt, T

    def _stepped(self, T: int, R: int, done: int, n: int):
        """The timed loop from iteration `done` on, its errors counting those before."""
        try:
            return self._timed_loop(T, R + done * self.blk.size, n)
        except SimError as e:
            e.done += done
            raise

    def _timed_loop(self, T: int, R: int, n: int):
        if self._timed is None:
            b = self.blk
            taken, fall = b.tails
            source = timed_source(self.body_timed, self.cond, b.start, b.start + b.size, b.size, taken, fall,
                                  b.tdelta, b.own_wait)
            self._timed = self.comp._define(bind_globals(source, self.comp.ns), "timed")
        return self._timed(T, R, n)
