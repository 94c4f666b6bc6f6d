"""The run loop every functional model shares: budget and deadline checks, the partial
block at the budget's end, error location, garbage-collector switching and the
RunResult. A machine supplies only what differs:

    class MyModel(Machine):            # name, check_config(cfg), start(...) -> MyRun
    class MyRun(Run):                  # prepare(image), execute() -> stop, where(...),
                                       # creep(...), cycles(), unit_busy(), stalls()

`execute` walks the machine's blocks; before a block of `n` instructions that would pass
`check_at` it calls `checkpoint`, which raises TimeLimitExceeded past the CPU-time limit
or the wall-clock backstop (the text names which, simulators/core/budget.py) and,
when the block would cross the instruction limit, has the machine run the instructions
up to it one by one (`creep`) and raises BudgetExceeded there. Both errors carry the
same text on every machine; only the unit ("instructions", "bundles") differs.
"""
from __future__ import annotations

import gc
import time
from contextlib import contextmanager

from .backend import MemoryImage, RunResult
from .budget import Budget
from .errors import BudgetExceeded, SimError, TimeLimitExceeded, Where
from .trace import TraceStep


def budget_exceeded(limit: int, unit: str = "instructions") -> BudgetExceeded:
    """The one text of a run that used up its instruction budget (models and RTL)."""
    return BudgetExceeded(
        f"the program did not finish within {limit} {unit}; look for a loop that never ends "
        "(a loop counter changed in its body or never reaching its bound, a branch back to "
        "itself) or raise the budget")


def cpu_time_exceeded(seconds: float, retired: int, unit: str = "instructions") -> TimeLimitExceeded:
    return TimeLimitExceeded(f"the run exceeded its CPU-time limit of {seconds} s (CPU seconds "
                             f"of the simulating thread) after {retired} {unit}")


def time_exceeded(seconds: float, retired: int, unit: str = "instructions",
                  cpu_used: float | None = None) -> TimeLimitExceeded:
    used = ("" if cpu_used is None else
            f"; it had used {cpu_used:.1f} CPU s of its CPU-time limit, so the machine is "
            "overloaded rather than the kernel slow")
    return TimeLimitExceeded(f"the run exceeded its wall-clock limit of {seconds} s after "
                             f"{retired} {unit}{used}")


@contextmanager
def collector_paused(paused: bool):
    """A trace is millions of small acyclic objects: sparing the cyclic collector from
    rescanning them over and over roughly halves a traced run's time."""
    collecting = gc.isenabled()
    if paused and collecting:
        gc.disable()
    try:
        yield
    finally:
        if paused and collecting:
            gc.enable()


class Run:
    """One run of one program. Subclasses implement the hooks below; `go` is the loop's
    frame. `t` (the next issue cycle) and `retired` hold where the run stopped."""

    unit = "instructions"           # what the budget counts, in messages

    def __init__(self, state, budget: Budget, started: float, trace: bool):
        self.state, self.budget, self.started = state, budget, started
        self.trace: list[TraceStep] | None = [] if trace else None
        self.t = 0
        self.retired = 0
        self.limit = budget.max_instructions
        self.every = budget.check_every
        self.deadline = started + budget.wall_seconds
        self.cpu_deadline = time.thread_time() + budget.cpu_seconds
        self.check_at = min(self.every, self.limit)

    # -- what a machine supplies -------------------------------------------------------
    def prepare(self, image: MemoryImage) -> None:
        """Load the image and decode the program; a SimError ends the run before it starts."""
        raise NotImplementedError

    def execute(self) -> str:
        """Run to the end: return "end" or "break", or raise a located SimError after
        setting `t` and `retired` to where it happened."""
        raise NotImplementedError

    def where(self, pc: int, cycle: int, retired: int) -> Where:
        raise NotImplementedError

    def creep(self, block, pc: int, t: int, retired: int, count: int) -> tuple[int, int, int]:
        """Run the first `count` instructions of `block` (at `pc`) one at a time; return
        (pc, t, retired) after them."""
        raise NotImplementedError

    def cycles(self) -> int:
        return self.t

    def unit_busy(self) -> dict[str, int]:
        return {}

    def stalls(self) -> dict[str, int]:
        return {}

    def counts(self) -> dict[int, int] | None:
        """How many times each address retired, for those retired at least once
        (RunResult.counts), from the counts the machine keeps for unit_busy; None if it
        keeps none."""
        return None

    def memories(self) -> dict:
        return self.state.memories()

    def registers(self) -> dict:
        return self.state.registers()

    # -- the shared frame ----------------------------------------------------------------
    def check_time(self, pc: int, t: int, retired: int) -> None:
        cpu = time.thread_time()
        if cpu > self.cpu_deadline:
            error = cpu_time_exceeded(self.budget.cpu_seconds, retired, self.unit)
        elif time.perf_counter() > self.deadline:
            used = self.budget.cpu_seconds - (self.cpu_deadline - cpu)
            error = time_exceeded(self.budget.wall_seconds, retired, self.unit, used)
        else:
            return
        self.t, self.retired = t, retired
        raise error.locate(self.where(pc, t, retired))

    def checkpoint(self, block, pc: int, t: int, retired: int, n: int) -> int:
        """Before a block of `n` instructions at `pc` that would pass `check_at`: check the
        clock, stop at the instruction limit if the block crosses it, and return the next
        check point."""
        self.check_time(pc, t, retired)
        if retired + n > self.limit:
            pc, t, retired = self.creep(block, pc, t, retired, self.limit - retired)
            self.t, self.retired = t, retired
            raise budget_exceeded(self.limit, self.unit).locate(self.where(pc, t, retired))
        self.check_at = min(retired + n + self.every, self.limit)
        return self.check_at

    def go(self, name: str, image: MemoryImage) -> RunResult:
        try:
            self.prepare(image)
        except SimError as e:
            return self.result(name, "error", e)
        with collector_paused(self.trace is not None):
            try:
                stop, error = self.execute(), None
            except SimError as e:
                stop, error = "error", e
        return self.result(name, stop, error)

    def result(self, name: str, stop: str, error: SimError | None) -> RunResult:
        self.stop = stop                 # how the run ended, for counts that depend on it
        return RunResult(
            backend=name, memories=self.memories(), registers=self.registers(),
            cycles=self.cycles(), retired=self.retired, unit_busy=self.unit_busy(),
            stalls=self.stalls(), stop=stop, error=error, trace=self.trace,
            wall_seconds=time.perf_counter() - self.started, counts=self.counts())


class Machine:
    """A functional model as a simulators.core Backend: `run` checks the configuration,
    starts a Run and returns its RunResult."""

    name = "model"

    def check_config(self, config) -> None:
        raise NotImplementedError

    def start(self, program, config, budget: Budget, started: float, trace: bool) -> Run:
        raise NotImplementedError

    def run(self, program, image: MemoryImage, config, budget: Budget = Budget(),
            trace: bool = False) -> RunResult:
        started = time.perf_counter()
        self.check_config(config)
        return self.start(program, config, budget, started, trace).go(self.name, image)
