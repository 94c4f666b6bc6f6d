"""The kernel debugger's model, free of any UI: assemble a kernel, run it traced on a
task's inputs, then step the machine state forwards and backwards, run to a
breakpoint or to either end, and compare the output regions with the reference at
any point.

    session = DebugSession.start("plena", "relu", "C1", source, seed=7)
    session.step()            # one instruction forwards
    session.step(-1)          # and back
    session.run(breakpoints={12})
    session.outputs()         # output regions against the reference, now

A bare program (no task: `kernelcraft debug --accel A PROG`, as `exec` runs it) is
`DebugSession.bare(accel, source, image)`; it has no outputs to compare.

The session holds one Timeline per backend: the functional model, and with
`attach(session.run_rtl())` the RTL's trace of the same program and image;
`session.lockstep` (lockstep.py) keeps the two at the same retired instruction and
names the first one where they disagree.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import AssemblyError, BudgetExceeded
from kernelcraft.tasks import get_task
from kernelcraft.tasks.tolerance import Comparison, compare
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.layout import Layout, build_image, read_region

from .lockstep import Lockstep
from .timeline import Timeline, Touched, tracing_module
from .views import MachineView, view_for

# The debugger keeps every step's changes in memory; beyond this many retired
# instructions a trace gets large (about 100 bytes per scalar step, a few hundred
# per vector step), so longer kernels need --max-steps.
DEFAULT_MAX_STEPS = 2_000_000


class DebugSetupError(ValueError):
    """The kernel cannot be debugged as asked (it does not assemble, unknown input...)."""


def _assemble(acc, source: str, source_name: str, hw):
    try:
        return acc.assemble(source, source_name=source_name, config=hw)
    except AssemblyError as e:
        raise DebugSetupError(f"the kernel does not assemble, so it cannot be stepped:\n"
                              f"{e}") from None


def edge_cases(task, config: str, edge_seed: int | None = None):
    """The task's edge cases as an evaluation drew them, with its edge seed; without
    one (a kernel file debugged by hand, or a run recorded before edge cases were drawn
    per evaluation) the families are drawn with edge seed 0."""
    return task.edge_cases(config, int(edge_seed or 0))


@dataclass(frozen=True)
class InputChoice:
    """Which input set of a recorded evaluation the debugger runs a kernel on."""

    seed: int = 0
    edge: str | None = None          # an edge case's name instead of a seed
    edge_seed: int | None = None     # the edge seed the evaluation drew its edge cases with
    failed: bool = False             # the evaluation's first failing set (else its first set)

    @property
    def label(self) -> str:
        return f"edge: {self.edge}" if self.edge is not None else f"seed {self.seed}"


def input_of(payload: dict) -> InputChoice | None:
    """The input set to debug from an evaluation's payload: the first set that failed
    (a seed, or an edge case with the evaluation's edge seed), else its first seed;
    None when it names no input at all."""
    result = payload.get("result") if isinstance(payload.get("result"), dict) else {}
    edge_seed = result.get("edge_seed", payload.get("edge_seed"))
    for st in result.get("sets") or []:
        if st.get("passed"):
            continue
        label = str(st.get("label", ""))
        if label.startswith("edge: "):
            return InputChoice(edge=label[len("edge: "):], edge_seed=edge_seed, failed=True)
        if label.startswith("seed "):
            try:
                return InputChoice(seed=int(label.split()[1]), failed=True)
            except (IndexError, ValueError):
                continue
    seeds = payload.get("seeds") or result.get("seeds") or (
        [result["seed"]] if "seed" in result else [])
    return InputChoice(seed=int(seeds[0])) if seeds else None


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
    _lockstep: Lockstep | None = field(default=None, repr=False)
    last_watch: object = None          # the watch that stopped the last run, if one did
    inputs: dict = field(default_factory=dict)   # the task inputs (for the task's error allowance)

    # ------------------------------------------------------------------ setup
    @classmethod
    def start(cls, accel: str, task: str, config: str, source: str, *, seed: int | None = 0,
              edge: str | None = None, edge_seed: int | None = None, hw=None,
              max_steps: int = DEFAULT_MAX_STEPS,
              source_name: str = "kernel.asm") -> "DebugSession":
        """Assemble `source` and run it traced on the inputs of `seed` (or of the edge
        case named `edge`, drawn with `edge_seed` when the evaluation recorded one).
        Raises DebugSetupError with the reason."""
        acc = get_accel(accel)
        t = get_task(task)
        if config not in t.configs:
            raise DebugSetupError(f"task {task} has no configuration {config!r}; "
                                  f"configurations: {', '.join(t.configs)}")
        hw = hw or acc.default_config()
        program = _assemble(acc, source, source_name, hw)
        layout = acc.layout(t, config, hw)
        if edge is not None:
            cases = dict(edge_cases(t, config, edge_seed))
            if edge not in cases:
                drawn = f" (edge seed {edge_seed})" if edge_seed is not None else ""
                raise DebugSetupError(f"{task} {config} has no edge case {edge!r}{drawn}; edge "
                                      f"cases: {', '.join(cases) or 'none'}")
            inputs, label = cases[edge], f"edge: {edge}"
        else:
            inputs, label = t.generate(config, int(seed or 0)), f"seed {int(seed or 0)}"
        image = build_image(layout, inputs)
        return cls._traced(accel, task, config, source, label, hw, layout, program, image,
                           t.reference(inputs, config), max_steps, inputs)

    @classmethod
    def bare(cls, accel: str, source: str, image: MemoryImage | None = None, *, hw=None,
             max_steps: int = DEFAULT_MAX_STEPS, source_name: str = "program.asm",
             label: str = "") -> "DebugSession":
        """A program of no task on a given memory image (zeros by default), as
        `kernelcraft exec` runs it: no layout, no outputs to compare."""
        acc = get_accel(accel)
        hw = hw or acc.default_config()
        program = _assemble(acc, source, source_name, hw)
        image = image if image is not None else MemoryImage()
        layout = Layout(accel, "", "", [])
        return cls._traced(accel, "", "", source, label or "memory image: zeros", hw, layout,
                           program, image, {}, max_steps)

    @classmethod
    def _traced(cls, accel, task, config, source, label, hw, layout, program, image,
                reference, max_steps, inputs=None) -> "DebugSession":
        started = time.perf_counter()
        backend = get_accel(accel).backend()
        view = view_for(accel)
        result, inspection = view.traced_run(
            backend, program, image, hw, Budget(max_instructions=max_steps, cpu_seconds=120.0,
                                                  wall_seconds=1200.0))
        timeline = Timeline.for_accelerator(accel, getattr(backend, "name", accel), result,
                                            view.unit_spaces).prepare()
        return cls(accel, task, config, source, label, hw, layout, program, image, reference,
                   [timeline], time.perf_counter() - started,
                   {name: dtype for name, (_, dtype) in hw.memories().items()}, view, inspection,
                   tuple(getattr(tracing_module(accel), "CSR_NAMES", ())), inputs=inputs or {})

    @property
    def main(self) -> Timeline:
        return self.timelines[0]

    @property
    def lockstep(self) -> Lockstep | None:
        """The first two backends moved together, when a second one is attached; their
        traces and end states compared by the accelerator's comparisons (rtl-check's)."""
        if len(self.timelines) < 2:
            return None
        if self._lockstep is None:
            from kernelcraft.workbench.rtlcheck import trace_comparison
            self._lockstep = Lockstep(self.timelines[0], self.timelines[1],
                                      trace_comparison(self.accel),
                                      get_accel(self.accel).need_rtl().run_comparison(),
                                      self.csr_names)
        return self._lockstep

    def attach(self, timeline: Timeline) -> None:
        """Add another backend's trace of the same program and image (e.g. the RTL)."""
        self.timelines.append(timeline)
        self._lockstep = None
        timeline.goto(self.main.position)

    def rtl_backend(self, **options):
        """The accelerator's RTL backend (ConfigError naming those that have one)."""
        from kernelcraft.workbench.rtlcheck import rtl_backend
        return rtl_backend(self.accel, **options)

    def run_rtl(self, backend=None, max_steps: int = DEFAULT_MAX_STEPS) -> Timeline:
        """The RTL's traced run of this program and image as a Timeline to attach
        (builds the simulator first when it is not in the cache: minutes)."""
        backend = backend or self.rtl_backend()
        result = backend.run(self.program, self.image, self.hw,
                             Budget(max_instructions=max_steps, wall_seconds=600.0), trace=True)
        if result.trace is None:            # refused before it ran: say why
            why = f": {result.error}" if result.error is not None else ""
            raise DebugSetupError(f"{backend.name} returned no trace; it cannot be stepped{why}")
        return Timeline.for_accelerator(self.accel, getattr(backend, "name", "rtl"), result,
                                        self.view.unit_spaces if self.view else frozenset(),
                                        start=self.main.first_state).prepare()

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

    def run(self, breakpoints: set[int] = frozenset(), forward: bool = True,
            watches: list = ()) -> Touched:
        """Run to the next state whose instruction is on a breakpoint line (after at
        least one step) or that follows a write to a watched location (navigate.Watch),
        whichever comes first; to the end (the start, backwards) if none is reached.
        `last_watch` says which watch stopped it (None: a line, or no stop)."""
        from .navigate import next_write
        hit = self.main.find(set(breakpoints), forward)
        wrote = next_write(self.main, list(watches), forward) if watches else None
        self.last_watch = None
        if wrote is not None and (hit is None or (wrote[0] <= hit if forward else wrote[0] >= hit)):
            hit, self.last_watch = wrote
        return self.goto(hit if hit is not None else (self.length if forward else 0))

    def goto_divergence(self) -> Touched | None:
        """To the state just after the first instruction where the backends disagree
        (its writes on each side in view); None when they agree."""
        d = self.lockstep.divergence if self.lockstep is not None else None
        return None if d is None else self.goto(d.step + 1)

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
            where = self.view.break_words if self.view else "the program's own break instruction"
            return (f"ended by {where} after {r.retired} {noun}s (the program stops there; "
                    f"not a debugger breakpoint)")
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
        if not self.task:
            return []
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
