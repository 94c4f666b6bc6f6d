"""aie operation semantics: one short function per operation, the living definition of
the manual's semantics sections.

A function is named after its mnemonic with '.' as '_' (VMAC.BF16 -> VMAC_BF16) and
takes the machine state `m` followed by the operation's operands in the order of its
record: register numbers and immediates as integers, a post-modify as a decoded
(mode, value) pair. Memory operations first get the access size and alignment from
their record (`n`, `align`); operations registered with `extra` get one more argument
after their operands: "next" (the number of the bundle after this one, for loops) or
"where" (the operation's location, for DMA messages). Functions check every operand
before writing anything, so an operation that fails changes no state.

`table(spec)` binds the records to these functions; a test checks the two sets of
mnemonics are equal.
"""
from __future__ import annotations

import inspect
from typing import Callable

SEMANTICS: dict[str, Callable] = {}
EXTRA: dict[str, str] = {}


def key(mnemonic: str) -> str:
    return mnemonic.replace(".", "_")


def semantics(fn: Callable | None = None, *, extra: str = "", name: str = ""):
    """Register `fn` as the semantics of the operation it is named after (or `name`)."""
    def register(f: Callable) -> Callable:
        k = name or f.__name__
        SEMANTICS[k] = f
        if extra:
            EXTRA[k] = extra
        return f
    return register(fn) if fn is not None else register


def parameters(mnemonic: str) -> list[str]:
    """Operand names a semantics function takes (without m, n/align and the extra)."""
    names = list(inspect.signature(SEMANTICS[key(mnemonic)]).parameters)[1:]
    if names[:2] == ["n", "align"]:
        names = names[2:]
    return names[:-1] if key(mnemonic) in EXTRA else names


def table(spec) -> dict[str, Callable]:
    want = {key(mn): mn for mn in spec.ops}
    missing = sorted(mn for k, mn in want.items() if k not in SEMANTICS)
    extra = sorted(set(SEMANTICS) - set(want))
    if missing or extra:
        raise LookupError(f"aie semantics out of step with isa/aie: no semantics for "
                          f"{missing or 'none'}; semantics without a record: {extra or 'none'}")
    return {mn: SEMANTICS[k] for k, mn in want.items()}


from . import control, memory, scalar, vector  # noqa: E402,F401  (registers them)
