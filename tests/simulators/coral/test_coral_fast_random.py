"""Random loops run the same with the fast paths on and off: the conformance corpus's
random instruction mixes (conformance/randprog.py) wrapped in a loop, so that the
self-looping block translation (selfloop.py) and every per-instruction fast path run
them many times -- whole, cut by the instruction budget, and stopped by a memory
fault in a later iteration."""
import random
import sys
from pathlib import Path

import pytest

from isa.coral import default_config
from simulators.coral.assembler import assemble
from simulators.coral.machine import CoralModel
from simulators.core.backend import MemoryImage
from simulators.core.budget import Budget
from simulators.speed import same

sys.path.insert(0, str(Path(__file__).resolve().parent / "conformance"))
from randprog import random_body  # noqa: E402

SCALAR_ONLY = ("v", "fsrmi", "csrw")      # lines left out of the scalar-only variant (timed or vector)


def looped(seed: int, trips: int, scalar_only: bool, fault_after: int | None) -> str:
    """randprog's body with its random part inside a loop of `trips` iterations; a
    pointer (gp) walking 4 KiB per iteration stores through it when `fault_after` is
    given, which faults once it leaves DTCM."""
    lines = random_body(seed).splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("fsrmi"))
    last = next(i for i, line in enumerate(lines) if line.startswith("li s0, 0"))
    head, body, tail = lines[:first], lines[first:last], lines[last:]
    if scalar_only:
        body = [line for line in body if not line.lstrip().startswith(SCALAR_ONLY) and "\n" not in line
                and not line.startswith(("addi s1", "li a7", "li s1"))]
    walk = []
    if fault_after is not None:
        cfg = default_config()
        head.append(f"li gp, {cfg.DTCM_SIZE - 4096 * fault_after}\nadd gp, gp, s0")
        walk = ["sw x5, 0(gp)", "li x7, 4096", "add gp, gp, x7"]
    return "\n".join(head + [f"li t6, {trips}", "loop:"] + body + walk
                     + ["addi t6, t6, -1", "bnez t6, loop"] + tail) + "\n"


def _both(source: str, budget: int):
    cfg = default_config()
    program = assemble(source, "loop.s", cfg)
    fast = CoralModel().run(program, MemoryImage(), cfg, Budget(max_instructions=budget))
    slow = CoralModel().run(program, MemoryImage(), cfg, Budget(max_instructions=budget, fast=False))
    return fast, slow


@pytest.mark.parametrize("scalar_only", [True, False], ids=["scalar", "mixed"])
@pytest.mark.parametrize("seed", range(1, 9))
def test_random_loops_agree(seed, scalar_only):
    rng = random.Random(seed)
    trips = rng.randint(3, 40)
    fault = rng.choice([None, rng.randint(1, trips + 3)])
    source = looped(seed, trips, scalar_only, fault)
    fast, slow = _both(source, 5_000_000)
    assert same(fast, slow) == "", same(fast, slow)
    if fault is not None and fault <= trips:
        assert fast.error is not None and "outside DTCM" in str(fast.error)
    # cut by the budget inside the loop, at a few points
    for cut in (fast.retired // 3 + 5, fast.retired // 2 + 1, fast.retired - 2):
        a, b = _both(source, max(1, cut))
        assert same(a, b) == "", (cut, same(a, b))
