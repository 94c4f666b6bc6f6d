"""plena instruction semantics: one short function per instruction, the living
definition of isa/plena/README.md ("Semantics decided here").

A function is named after its mnemonic and takes the machine state `m` followed by the
instruction's non-reserved operands, in the order of its ISA record (register numbers,
immediates, flags). Control-flow instructions (`@flow`) also take their own `pc` and
return the next pc, `STOP`, or None to fall through. Semantics check every operand
before writing anything, so an instruction that fails changes no state.

`table(isa)` binds the ISA records to these functions; a test checks that the two sets
of mnemonics are equal.
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable

SEMANTICS: dict[str, Callable] = {}
FLOW: set[str] = set()
STOP = -1


def semantics(fn: Callable) -> Callable:
    """Register `fn` as the semantics of the instruction it is named after."""
    SEMANTICS[fn.__name__] = fn
    return fn


def flow(fn: Callable) -> Callable:
    """Register a control-flow instruction (gets `pc`, returns the next pc)."""
    FLOW.add(fn.__name__)
    return semantics(fn)


def parameters(mnemonic: str) -> list[str]:
    """Operand names a semantics function takes (without the state and `pc`)."""
    return list(_parameters(mnemonic))


@functools.lru_cache(maxsize=None)
def _parameters(mnemonic: str) -> tuple[str, ...]:
    # asked for every instruction of a loop body when a run is predecoded: kept
    names = tuple(inspect.signature(SEMANTICS[mnemonic]).parameters)[1:]
    return names[:-1] if mnemonic in FLOW else names


def table(isa) -> dict[str, Callable]:
    """Semantics keyed by every mnemonic of `isa`; names the gaps if the sets differ."""
    missing = sorted(set(isa.instructions) - set(SEMANTICS))
    extra = sorted(set(SEMANTICS) - set(isa.instructions))
    if missing or extra:
        raise LookupError(f"plena semantics out of step with isa/plena: no semantics for "
                          f"{missing or 'none'}; semantics without a record: {extra or 'none'}")
    return {mn: SEMANTICS[mn] for mn in isa.instructions}


from . import control, matrix, memory, scalar, vector  # noqa: E402,F401  (registers them)
