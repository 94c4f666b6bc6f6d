"""The kernel debugger's model, free of any UI: assemble a kernel, run it traced on a
task's inputs, then step the machine state forwards and backwards, run to a
breakpoint or to either end, and compare the output regions with the reference at
any point.

    session = DebugSession.start("plena", "relu", "C1", source, seed=7)
    session.step()            # one instruction forwards
    session.step(-1)          # and back
    session.run(breakpoints={12})
    session.outputs()         # output regions against the reference, now

The session holds one Timeline per backend. Today that is the functional model;
an RTL backend becomes a second Timeline of the same program and image, and
`session.lockstep` (lockstep.py) keeps the two at the same retired instruction and
names the first one where they disagree.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from simulators.core.backend import MemoryImage
from simulators.core.budget import Budget
from simulators.core.errors import AssemblyError, BudgetExceeded
from tasks import get_task
from tasks.tolerance import Comparison, compare
from workbench.accel import get_accel
from workbench.layout import Layout, build_image, read_region

from .lockstep import Lockstep
from .timeline import Timeline, Touched, tracing_module
from .views import MachineView, view_for

# The debugger keeps every step's changes in memory; beyond this many retired
# instructions a trace gets large (about 100 bytes per scalar step, a few hundred
# per vector step), so longer kernels need --max-steps.
DEFAULT_MAX_STEPS = 2_000_000


class DebugSetupError(ValueError):
    """The kernel cannot be debugged as asked (it does not assemble, unknown input...)."""


@dataclass
class OutputCheck:
    """One output region at the current state against the reference."""

    name: str
    memory: str
    address: int
    shape: tuple[int, ...]
    dtype: str
    got: np.ndarray
    expected: np.ndarray
    comparison: Comparison
    byte_address: bool = False     # `address` is a byte address (a memory with a base)
    tolerance: object = None       # the task's Tolerance and allowance, for the heat map
    allowance: object = None


@dataclass
class DebugSession:
    accel: str
    task: str
    config: str
    source: str
    input_label: str                  # "seed 7" or "edge: <name>", as evaluations label sets
    hw: object
    layout: Layout
    program: object
    image: MemoryImage
    reference: dict[str, np.ndarray]
    timelines: list[Timeline]
    trace_seconds: float = 0.0
    memory_dtypes: dict[str, str] = field(default_factory=dict)
    view: MachineView | None = None
    inspection: object = None          # what the view's traced run found beyond the trace
    csr_names: tuple[str, ...] = ()    # the trace's "csr" space by index (tracing.CSR_NAMES)
    inputs: dict = field(default_factory=dict)   # the task inputs (for the task's error allowance)

    # ------------------------------------------------------------------ setup
    @classmethod
    def start(cls, accel: str, task: str, config: str, source: str, *, seed: int | None = 0,
              edge: str | None = None, hw=None, max_steps: int = DEFAULT_MAX_STEPS,
              source_name: str = "kernel.asm") -> "DebugSession":
        """Assemble `source` and run it traced on the inputs of `seed` (or of the edge
        case named `edge`). Raises DebugSetupError with the reason."""
        acc = get_accel(accel)
        t = get_task(task)
        if config not in t.configs:
            raise DebugSetupError(f"task {task} has no configuration {config!r}; "
                                  f"configurations: {', '.join(t.configs)}")
        hw = hw or acc.default_config()
        try:
            program = acc.assemble(source, source_name=source_name, config=hw)
        except AssemblyError as e:
            raise DebugSetupError(f"the kernel does not assemble, so it cannot be stepped:\n"
                                  f"{e}") from None
        layout = acc.layout(t, config, hw)
        if edge is not None:
            cases = dict(t.edge_cases(config, int(seed or 0)))      # `seed` is the edge seed
            if edge not in cases:
                raise DebugSetupError(f"{task} {config} has no edge case {edge!r}; edge cases: "
                                      f"{', '.join(cases) or 'none'}")
            inputs, label = cases[edge], f"edge: {edge}"
        else:
            inputs, label = t.generate(config, int(seed or 0)), f"seed {int(seed or 0)}"
        image = build_image(layout, inputs)
        reference = t.reference(inputs, config)
        started = time.perf_counter()
        backend = acc.backend()
        view = view_for(accel)
        result, inspection = view.traced_run(
            backend, program, image, hw, Budget(max_instructions=max_steps, wall_seconds=120.0))
        timeline = Timeline.for_accelerator(accel, getattr(backend, "name", accel), result,
                                            view.unit_spaces).prepare()
        return cls(accel, task, config, source, label, hw, layout, program, image, reference,
                   [timeline], time.perf_counter() - started,
                   {name: dtype for name, (_, dtype) in hw.memories().items()}, view, inspection,
                   tuple(getattr(tracing_module(accel), "CSR_NAMES", ())), inputs)

    @property
    def main(self) -> Timeline:
        return self.timelines[0]

    @property
    def lockstep(self) -> Lockstep | None:
        """The first two backends moved together, when a second one is attached."""
        return Lockstep(self.timelines[0], self.timelines[1]) if len(self.timelines) > 1 else None

    def attach(self, timeline: Timeline) -> None:
        """Add another backend's trace of the same program and image (e.g. the RTL)."""
        self.timelines.append(timeline)
        timeline.goto(self.main.position)

    # ------------------------------------------------------------------ moving
    @property
    def position(self) -> int:
        return self.main.position

    @property
    def length(self) -> int:
        return self.main.length

    def goto(self, target: int) -> Touched:
        touched = self.main.goto(target)
        for other in self.timelines[1:]:
            other.goto(self.main.position)
        return touched

    def step(self, n: int = 1) -> Touched:
        return self.goto(self.position + n)

    def run(self, breakpoints: set[int] = frozenset(), forward: bool = True) -> Touched:
        """Run to the next state whose instruction is on a breakpoint line (after at
        least one step), or to the end (the start, backwards) if none is reached."""
        hit = self.main.find(set(breakpoints), forward)
        return self.goto(hit if hit is not None else (self.length if forward else 0))

    # ------------------------------------------------------------------ reading
    @property
    def stop_reason(self) -> str:
        """How the traced run ended, in words."""
        r = self.main.result
        noun = self.view.step_noun if self.view else "instruction"
        if isinstance(r.error, BudgetExceeded):
            return (f"not finished: the debugger traces at most {r.retired} {noun}s "
                    f"(start it with a larger --max-steps to see more)")
        if r.error is not None:
            return f"stopped by an error after {r.retired} {noun}s: {r.error}"
        if r.stop == "break":
            where = self.view.break_words if self.view else "a breakpoint instruction"
            return f"stopped at {where} after {r.retired} {noun}s"
        return f"ran to the end: {r.retired} {noun}s, {r.cycles} cycles"

    def current_line(self) -> int | None:
        """Source line of the instruction about to execute (the error's line at the end
        of a run that failed)."""
        step = self.main.current()
        if step is not None:
            return step.line
        err = self.main.result.error
        where = getattr(err, "where", None)
        return where.line if where is not None and where.line else None

    def cycle(self) -> int:
        step = self.main.current()
        return step.cycle if step is not None else self.main.result.cycles

    def outputs(self) -> list[OutputCheck]:
        """Every output region as it stands now, compared with the reference."""
        t = get_task(self.task)
        out = []
        for r in self.layout.by_role("output"):
            got = read_region(self.layout, self.main.memories, r)   # element- or byte-addressed
            expected = self.reference[r.name]
            tol, allow = t.tolerance(self.config, r.name), t.allowance(self.inputs, self.config, r.name)
            cmp = compare(got, expected, tol, allow)
            out.append(OutputCheck(r.name, r.memory, r.address, r.shape, r.dtype, got,
                                   expected, cmp, r.memory in self.layout.bases, tol, allow))
        return out
