"""The shared run loop (simulators/core/runloop.py): every functional model stops at
its budget and deadline with the same text, in the same result shape."""
import dataclasses
import threading

import pytest

from kernelcraft.isa.aie import default_config as aie_config
from kernelcraft.isa.coral import default_config as coral_config
from kernelcraft.isa.plena import default_config as plena_config
from kernelcraft.simulators.aie.assembler import assemble as aie_assemble
from kernelcraft.simulators.aie.machine import AieModel
from kernelcraft.simulators.coral.assembler import assemble as coral_assemble
from kernelcraft.simulators.coral.machine import CoralModel
from kernelcraft.simulators.core.backend import MemoryImage, RunResult
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import BudgetExceeded, ConfigError, TimeLimitExceeded
from kernelcraft.simulators.plena.assembler import assemble as plena_assemble
from kernelcraft.simulators.plena.machine import PlenaModel

# (model, config, assembler, a loop that runs for ever, what the budget counts)
MACHINES = {
    "plena": (PlenaModel, plena_config, plena_assemble,
              "C_LOOP_START gp1, 4000000\nS_ADDI_INT gp3, gp3, 1\nC_LOOP_END gp1", "instructions"),
    "coral": (CoralModel, coral_config, coral_assemble,
              "li a0, 1\nloop: addi a1, a1, 1\nbnez a0, loop", "instructions"),
    # (nested: a quiet machine steps 100,000 NOP bundles within the deadline test's 0.05 s)
    "aie": (AieModel, aie_config, aie_assemble, "LOOP 100000\nLOOP 100000\nNOP\nENDLOOP\nENDLOOP",
            "bundles"),
}


def _run(name, budget):
    model, config, assemble, source, _ = MACHINES[name]
    cfg = config()
    return model().run(assemble(source, "loop.asm", cfg), MemoryImage(), cfg, budget)


@pytest.mark.parametrize("name", MACHINES)
def test_budget_end_has_one_text_and_one_shape(name):
    r = _run(name, Budget(max_instructions=101))
    unit = MACHINES[name][4]
    assert isinstance(r, RunResult) and r.stop == "error" and r.retired == 101
    assert isinstance(r.error, BudgetExceeded) and r.error.where.retired == 101
    assert r.error.message == (
        f"the program did not finish within 101 {unit}; look for a loop that never ends (a loop "
        "counter changed in its body or never reaching its bound, a branch back to itself) or "
        "raise the budget")
    assert r.error.where.line > 0 and r.cycles > 0 and r.memories and r.registers
    assert {f.name for f in dataclasses.fields(r)} == {f.name for f in dataclasses.fields(RunResult)}


@pytest.mark.parametrize("name", MACHINES)
def test_cpu_time_limit_has_one_text(name):
    # (fast paths off: aie would fast-forward its whole loop at once)
    r = _run(name, Budget(max_instructions=10**9, cpu_seconds=0.05, wall_seconds=600,
                          check_every=64, fast=False))
    assert isinstance(r.error, TimeLimitExceeded) and r.stop == "error"
    unit = MACHINES[name][4]
    assert r.error.message == (f"the run exceeded its CPU-time limit of 0.05 s (CPU seconds of "
                               f"the simulating thread) after {r.error.where.retired} {unit}")
    assert r.retired == r.error.where.retired > 0


@pytest.mark.parametrize("name", MACHINES)
def test_wall_clock_backstop_has_one_text_naming_the_cpu_used(name):
    # A thread's CPU time never runs ahead of the wall clock: a wall limit below the CPU
    # limit is the one that ends the run.
    r = _run(name, Budget(max_instructions=10**9, cpu_seconds=60, wall_seconds=0.05,
                          check_every=64, fast=False))
    assert isinstance(r.error, TimeLimitExceeded) and r.stop == "error"
    unit = MACHINES[name][4]
    head, _, used = r.error.message.partition("; it had used ")
    assert head == f"the run exceeded its wall-clock limit of 0.05 s after {r.error.where.retired} {unit}"
    assert used.endswith(" CPU s of its CPU-time limit, so the machine is overloaded rather "
                         "than the kernel slow")
    assert 0.0 <= float(used.split()[0]) <= 0.1
    assert r.retired == r.error.where.retired > 0


def test_cpu_limit_does_not_count_time_the_run_waits_for_the_processor():
    """A second thread spinning on the interpreter lock takes about half the elapsed
    time: the run still gets its whole CPU allowance (a wall-clock limit of the same
    size would have ended it after about half the work)."""
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            pass

    rival = threading.Thread(target=spin)
    rival.start()
    try:
        r = _run("coral", Budget(max_instructions=10**9, cpu_seconds=0.3, wall_seconds=600,
                                 check_every=64, fast=False))
    finally:
        stop.set()
        rival.join()
    assert "CPU-time limit of 0.3 s" in r.error.message
    assert r.wall_seconds > 0.45


@pytest.mark.parametrize("bad", [{"max_instructions": -1}, {"check_every": 0},
                                 {"wall_seconds": 0}, {"cpu_seconds": -1},
                                 {"cpu_seconds": "60"}])
def test_a_bad_budget_is_refused_before_any_machine_runs(bad):
    with pytest.raises(ConfigError, match="budget"):
        Budget(**bad)


@pytest.mark.parametrize("name", MACHINES)
def test_a_zero_budget_reads_back_the_image(name):
    r = _run(name, Budget(max_instructions=0))
    assert r.retired == 0 and isinstance(r.error, BudgetExceeded)
