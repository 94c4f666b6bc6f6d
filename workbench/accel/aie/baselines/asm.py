"""An assembly builder for aie templates: operations in program order, packed into
bundles the way a simple in-order compiler would.

`op(text)` appends one operation. It joins the bundle being built when its slot is free,
it reads and writes nothing an earlier operation of the bundle writes, a load does not
follow a store, and the bundle keeps every port rule; otherwise the bundle is closed
first. Nothing is reordered, so the program computes what the operations say in order.
Control operations (loops, locks, DMA, HALT) close their bundle. `.bd` descriptors and
`.equ` constants are collected and printed first."""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache

from kernelcraft.isa.aie.model import get_spec
from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.simulators.aie import rules
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.effects import effects
from kernelcraft.simulators.aie.program import PostMod

CLOSERS = ("LOOP", "LOOPR", "ACQ", "REL", "DMAIN", "DMAOUT", "HALT")
SIMM20 = (-(1 << 19), (1 << 19) - 1)


@dataclass
class _Op:
    text: str
    comment: str
    info: object
    ops: dict
    reads: set
    writes: set


@dataclass
class _Bundle:
    ops: list = field(default_factory=list)


def _named(text: str, bd_names) -> tuple:
    """The descriptor names `text` may use, each at its number (None elsewhere, nothing
    after the last): what its parse depends on, so that most operations, which name no
    descriptor, share one cached parse however many descriptors the program has."""
    words = set(_WORD.findall(text))
    used = [n if n in words else None for n in bd_names]
    while used and used[-1] is None:
        used.pop()
    return tuple(used)


_WORD = re.compile(r"[A-Za-z_.$][\w.$]*")


@lru_cache(maxsize=4096)
def _parse(text: str, bd_names: tuple) -> tuple:
    """(mnemonic, operand values) of one operation text; the program's descriptor names
    are declared (as placeholders, in order; None: a name it does not use) so they
    resolve to their numbers."""
    head = "".join(f".bd {name or f'_unused{i}'}, ext=0, loc=0, n0=1\n"
                   for i, name in enumerate(bd_names))
    src = head + text
    if text.split()[0].upper() in ("LOOP", "LOOPR"):
        src += "\nNOP\nENDLOOP"              # a loop operation alone needs a body to assemble
    prog = assemble(src)
    ins = prog.instrs[0]
    return ins.mnemonic, tuple(sorted(ins.ops.items()))


class Asm:
    def __init__(self, hw: HardwareConfig):
        self.hw = hw
        self.spec = get_spec()
        self.pm = PostMod(self.spec)
        self.head: list[str] = []             # comments, .equ, .bd
        self.lines: list[str] = []
        self.current = _Bundle()
        self.depth = 0
        self.bds: dict[str, int] = {}
        self.bd_fields: dict[str, str] = {}       # fields -> the descriptor that has them

    # --- directives ---------------------------------------------------------------------

    def comment(self, text: str) -> None:
        self.close()
        self.lines.append("    " * self.depth + f"; {text}")

    def bd(self, name: str, **fields) -> str:
        """Define a DMA descriptor (field values are integers; locks as 'l3') and return
        its name: a descriptor with the same fields is shared (the program holds only
        `descriptors` of them), another one wanting a taken name gets a numbered one."""
        text = ", ".join(f"{k}={v}" for k, v in fields.items())
        if text in self.bd_fields:
            return self.bd_fields[text]
        if name in self.bds:
            name = next(f"{name}{i}" for i in range(1, 100) if f"{name}{i}" not in self.bds)
        if len(self.bds) >= self.spec.descriptors:
            raise ValueError(f"more than {self.spec.descriptors} descriptors")
        self.bds[name] = len(self.bds)
        self.bd_fields[text] = name
        self.head.append(f".bd {name}, {text}")
        return name

    # --- operations ---------------------------------------------------------------------

    def op(self, text: str, comment: str = "") -> None:
        mn, ops = _parse(text, _named(text, self.bds))
        info = self.spec.ops[mn]
        ops = dict(ops)
        r, w = effects(self.spec, info, ops, self.pm)
        new = _Op(text, comment, info, ops, set(r), set(w))
        if not self.fits(new):
            self.close()
        self.current.ops.append(new)
        if mn in CLOSERS:
            self.close()

    def fits(self, new: _Op) -> bool:
        ops = self.current.ops
        if not ops:
            return True
        for o in ops:
            if new.reads & o.writes or new.writes & o.writes:
                return False
            if new.info.bytes and not new.info.store and o.info.store:
                return False
            if set(o.info.writes) & set(new.info.reads) & set(self.spec.state):
                return False                       # machine state, e.g. RM (SETRM, VSRS)
        return rules.check(self.spec, [(o.info, o.ops) for o in ops + [new]], None, self.pm) is None

    def close(self) -> None:
        if not self.current.ops:
            return
        pad = "    " * self.depth
        text = " || ".join(o.text for o in self.current.ops)
        notes = "; ".join(o.comment for o in self.current.ops if o.comment)
        self.lines.append(f"{pad}{text:<60} ; {notes}" if notes else pad + text)
        self.current = _Bundle()

    @contextmanager
    def loop(self, count: int, comment: str = ""):
        """A hardware loop of `count` iterations (only the body when count == 1)."""
        if count < 1:
            raise ValueError(f"loop of {count} iterations")
        if count == 1:
            yield
            return
        with self._loop(f"LOOP {count}", comment):
            yield

    def loop_reg(self, reg: str, comment: str = ""):
        """A hardware loop whose count is read from `reg` when it opens (at least 1)."""
        return self._loop(f"LOOPR {reg}", comment)

    @contextmanager
    def _loop(self, opening: str, comment: str):
        self.op(opening, comment)
        self.depth += 1
        try:
            yield
        finally:
            self.close()
            self.depth -= 1
            self.lines.append("    " * self.depth + "ENDLOOP")

    # --- common sequences ---------------------------------------------------------------

    def li(self, reg: str, value: int, comment: str = "") -> None:
        """Any 32-bit value into an r register (MOVI, or MOVI + MOVHI)."""
        if SIMM20[0] <= value <= SIMM20[1]:
            self.op(f"MOVI {reg}, {value}", comment)
            return
        v = value & 0xFFFFFFFF
        lo, hi = v & 0xFFFF, v >> 16          # MOVHI keeps the low 16 bits MOVI wrote
        self.op(f"MOVI {reg}, {lo}", comment)
        self.op(f"MOVHI {reg}, {hi}")

    def text(self) -> str:
        self.close()
        return "\n".join(self.head + self.lines) + "\n"
