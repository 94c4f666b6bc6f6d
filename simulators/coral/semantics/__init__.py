"""coral instruction semantics, the living definition of isa/coral/README.md.

Scalar instructions (scalar.py) are tiny code generators: each returns the Python
statements of one instruction, which the block compiler (compiler.py) strings
together into one function per basic block -- the model interprets no text or bits
while it runs. Vector instructions (vector_*.py) are makers: given the state and the
decoded operands they return a closure that performs the instruction on numpy views
of the register file and DTCM and returns its vector-unit cycles.

`check_complete(isa)` verifies that every mnemonic of the ISA has exactly one
semantics; a test calls it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

SCALAR: dict[str, Callable] = {}
VECTOR: dict[str, Callable] = {}


@dataclass
class Code:
    """What a scalar instruction contributes to its block."""

    lines: list[str] = field(default_factory=list)
    flow: str = ""          # "" | "branch" | "jump" | "indirect" | "stop"
    cond: str = ""          # branch condition (Python expression)
    target: int = -1        # branch / jal target (instruction index)
    stop: str = ""          # "break" | "ecall" for flow == "stop"
    timed: bool = False     # needs the cycle counter T (CSR access, fence)
    sync: str = ""          # "" | "load" | "store" | "drain": waits for the vector unit
    mem: bool = False       # a scalar load or store


def scalar(*mnemonics: str):
    def register(fn):
        for mn in mnemonics:
            SCALAR[mn] = fn
        return fn
    return register


def vector(*mnemonics: str):
    def register(fn):
        for mn in mnemonics:
            VECTOR[mn] = fn
        return fn
    return register


def vector_forms(name: str, forms, make) -> None:
    """Register `make(form)` as the maker of `name.form` for each form the ISA data
    has (a family's table may name forms some members lack)."""
    from kernelcraft.isa.loader import get_isa
    known = get_isa("coral").instructions
    for form in forms:
        if f"{name}.{form}" in known:
            VECTOR[f"{name}.{form}"] = make(form)


def check_complete(isa) -> None:
    have = set(SCALAR) | set(VECTOR)
    missing = sorted(set(isa.instructions) - have)
    extra = sorted(have - set(isa.instructions))
    both = sorted(set(SCALAR) & set(VECTOR))
    if missing or extra or both:
        raise LookupError(f"coral semantics out of step with isa/coral: no semantics for {missing or 'none'}; "
                          f"semantics without a record: {extra or 'none'}; defined twice: {both or 'none'}")


from . import scalar as _scalar  # noqa: E402,F401  (registers them)
from . import vector_config as _vcfg  # noqa: E402,F401
from . import vector_memory as _vmem  # noqa: E402,F401
from . import vector_integer as _vint  # noqa: E402,F401
from . import vector_float as _vfp  # noqa: E402,F401
from . import vector_reduce_mask as _vred  # noqa: E402,F401
from . import vector_permute as _vperm  # noqa: E402,F401
from . import vector_segment as _vseg  # noqa: E402,F401
from . import vector_carry as _vcarry  # noqa: E402,F401
from . import vector_fixed as _vfixed  # noqa: E402,F401
from . import vector_estimate as _vest  # noqa: E402,F401
