"""Evaluate a kernel on a task: assemble, run on fresh inputs and edge cases, compare
with the reference, and measure cycles against the baseline and the roofline bound.

This is what `run_eval` shows an agent and what the suite reports. Inputs are
generated here, the reference is computed here, and only the declared output
regions are read back: the kernel never sees the expected values.
"""
from __future__ import annotations

import hashlib
import secrets
import time
import zlib
from dataclasses import asdict, dataclass, field
from functools import lru_cache

import numpy as np

from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import AssemblyError, KernelCraftError
from kernelcraft.tasks import get_task
from kernelcraft.tasks.tolerance import compare
from kernelcraft.workbench.accel import Bound, get_accel
from kernelcraft.workbench.layout import build_image, describe_stray, read_outputs, stray_writes

DEFAULT_SEEDS = 3


@dataclass
class InputSetResult:
    label: str                       # "seed 1234" or "edge: <name>"
    passed: bool
    frac_match: float
    outputs: dict                    # output name -> Comparison (as dict)
    cycles: int = 0
    retired: int = 0
    error: str = ""
    outside_writes: list = field(default_factory=list)    # (memory, first, count)
    input_writes: list = field(default_factory=list)      # (memory, first, count, input)
    stray: str = ""                  # what those writes were, naming memory and range
    family: str = ""                 # what the edge family's own check found (Task.family_check)
    family_checked: bool = False     # an edge family with its own check (the check ran)
    own_code: str = ""               # such a family's set ran code or work of its own (own_code)


@dataclass
class Evaluation:
    accel: str
    task: str
    config: str
    status: str                      # "passed" | "failed" | "assembly_error" | "run_error"
    passed: bool = False
    frac_match: float = 0.0
    cycles: int = 0
    retired: int = 0
    code_size: int = 0
    imem_limit: int = 0
    unit_busy: dict = field(default_factory=dict)
    utilisation: dict = field(default_factory=dict)
    stalls: dict = field(default_factory=dict)
    baseline_cycles: int = 0
    speedup: float | None = None     # baseline / cycles, only for a PASS that is not impossible
    lower_bound: int = 0
    bound_kind: str = ""
    roofline_fraction: float = 0.0
    impossible: bool = False
    # Instructions retired, cycles, the instructions run or how often each ran
    # (RunResult.counts) differ between input sets: the kernel's control flow (or timing)
    # depends on its inputs. Not a failure (a scalar max loop may branch on data), but a
    # kernel that recognises the checker's input families and computes exactly only there
    # must branch. Where that leads an edge family with its own check to code no seeded set
    # ran, or to more work than the seeded sets did (`own_code`), the set fails.
    input_dependent: bool = False
    paths: int = 0                   # different instruction sets run (0: coverage not reported)
    seeds: list = field(default_factory=list)
    edge_seed: int | None = None     # the edge cases' draw (None: no edge cases run)
    sets: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    error: str = ""
    wall_seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def shown_speedup(result: dict) -> float | None:
    """The speed-up a recorded evaluation (an `Evaluation` as a dict) may show: only a
    PASS that is not impossible has one; records made before that rule may carry one."""
    v = result.get("speedup")
    if not result.get("passed") or result.get("impossible") or not isinstance(v, (int, float)):
        return None
    return float(v) if v > 0 else None


def fresh_seeds(n: int) -> list[int]:
    return [secrets.randbits(31) for _ in range(n)]


def edge_seed_for(seeds: list[int]) -> int:
    """The edge seed that goes with caller-chosen random seeds: fixed by them, so a
    replay of recorded seeds reproduces the same edge cases (fresh seeds, fresh edges)."""
    return zlib.crc32(",".join(map(str, seeds)).encode()) >> 1


# Time limits of one run (one input set): CPU seconds of the simulating thread decide, so a
# verdict does not depend on the machine's load; the wall clock is a generous backstop.
CPU_SECONDS, WALL_SECONDS = 60.0, 600.0

# A baseline is the template compiler's own kernel: it runs as long as it needs (the
# largest contractions retire several million instructions, past budget_for(0)).
BASELINE_BUDGET = Budget(max_instructions=200_000_000, cpu_seconds=CPU_SECONDS,
                         wall_seconds=WALL_SECONDS)


def budget_for(baseline_retired: int) -> Budget:
    # Generous for honest kernels, finite for runaway ones.
    return Budget(max_instructions=max(2_000_000, 20 * baseline_retired),
                  cpu_seconds=CPU_SECONDS, wall_seconds=WALL_SECONDS)


@lru_cache(maxsize=512)
def _baseline_run(accel_name: str, task_name: str, config: str, hw_key: tuple) -> tuple[int, int]:
    """(cycles, retired) of the baseline kernel on one seed; data-independent in timing."""
    accel = get_accel(accel_name)
    hw = accel.default_config(**dict(hw_key))
    source = accel.baseline(task_name, config, hw)
    ev = evaluate(accel_name, task_name, config, source, seeds=[0], edge_cases=False,
                  hw=hw, compare_baseline=False, budget=BASELINE_BUDGET)
    if not ev.passed:
        raise KernelCraftError(f"baseline for {accel_name}/{task_name}/{config} is not correct: "
                               f"{ev.status} {ev.error}")
    return ev.cycles, ev.retired


def baseline_cycles(accel_name: str, task_name: str, config: str, hw=None) -> tuple[int, int]:
    accel = get_accel(accel_name)
    hw = hw or accel.default_config()
    return _baseline_run(accel_name, task_name, config, _hw_key(hw))


def _hw_key(hw) -> tuple:
    defaults = {k: p.default for k, p in hw.isa.params.items()}
    return tuple(sorted((k, v) for k, v in hw.as_dict().items() if defaults[k] != v))


_REFERENCES: dict = {}          # (task, config, digest of the inputs) -> what they imply
_MAX_REFERENCES = 16


def _input_key(task, inputs: dict, config: str) -> tuple:
    h = hashlib.blake2b(digest_size=16)
    for name in sorted(inputs):
        a = np.ascontiguousarray(inputs[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
        h.update(a.data)
    return (task.name, config, h.digest())


def _implied(task, inputs: dict, config: str) -> dict:
    """The cache entry of one input set: "reference" (task.reference) and, once asked
    for, ("allowance", output) (task.allowance), both pure functions of the inputs."""
    key = _input_key(task, inputs, config)
    entry = _REFERENCES.get(key)
    if entry is None:
        if len(_REFERENCES) >= _MAX_REFERENCES:
            _REFERENCES.pop(next(iter(_REFERENCES)))
        entry = _REFERENCES[key] = {}
    return entry


def reference(task, inputs: dict, config: str, entry: dict | None = None) -> dict:
    """task.reference(inputs, config), kept for the last few input sets: evaluating
    several kernels on one input set (every accelerator's kernel, a sweep, the tests'
    trivial kernels) computes its reference once. The arrays are read-only. `entry`:
    the input set's cache entry (_implied), when the caller has it already."""
    entry = _implied(task, inputs, config) if entry is None else entry
    ref = entry.get("reference")
    if ref is None:
        ref = task.reference(inputs, config)
        for a in ref.values():
            a.flags.writeable = False
        entry["reference"] = ref
    return ref


def allowance(task, inputs: dict, config: str, output: str, entry: dict | None = None):
    """task.allowance(inputs, config, output), kept with the reference: an attention
    task's error bound costs more than its reference (a float64 pass over S x S x D per
    head), and every kernel evaluated on the input set needs the same one. It is a
    read-only view already (np.broadcast_to)."""
    entry = _implied(task, inputs, config) if entry is None else entry
    key = ("allowance", output)
    if key not in entry:
        entry[key] = task.allowance(inputs, config, output)
    return entry[key]


def judge(accel, task, config: str, layout, label: str, inputs: dict, image, result,
          keep_outputs: bool = False) -> tuple[InputSetResult, float, int]:
    """One run on one input set against the reference: any backend's RunResult (the
    functional model's here, the RTL's in the agent's run_rtl tool). Returns the
    result, the number of matching output elements and the number of elements. An
    edge case (label "edge: <family>") also gets its family's own check."""
    res = InputSetResult(label, False, 0.0, {}, result.cycles, result.retired)
    if result.error is not None:
        res.error = str(result.error)
        return res, 0.0, 0
    entry = _implied(task, inputs, config)
    expected = reference(task, inputs, config, entry)
    got = read_outputs(layout, result)
    ok, matched, n = True, 0.0, 0
    for spec in task.outputs(config):
        cmp = compare(got[spec.name], expected[spec.name], task.tolerance(config, spec.name),
                      allowance(task, inputs, config, spec.name, entry))
        res.outputs[spec.name] = cmp.to_dict() if hasattr(cmp, "to_dict") else asdict(cmp)
        if keep_outputs:
            res.outputs[spec.name]["got"] = got[spec.name]
            res.outputs[spec.name]["expected"] = expected[spec.name]
        ok &= bool(cmp.passed)
        size = int(np.prod(spec.shape))
        matched += cmp.frac_match * size
        n += size
    res.outside_writes, res.input_writes = stray_writes(layout, image, result,
                                                        accel.checked_memories)
    # A kernel that scribbles over memory it does not own is wrong on real hardware.
    res.stray = describe_stray(layout, res.outside_writes, res.input_writes)
    if label.startswith("edge: "):
        found = task.family_margin(label[len("edge: "):], inputs, config, got)
        res.family_checked = found is not None
        if found is not None and not found[0] <= 1.0:
            res.family = f"{found[1]} ({found[0]:.2f} x the limit)"
    res.passed = ok and not res.stray and not res.family
    res.frac_match = matched / n if n else 0.0
    return res, matched, n


def evaluate(accel_name: str, task_name: str, config: str, source: str, *,
             seeds: list[int] | None = None, n_seeds: int = DEFAULT_SEEDS,
             edge_cases: bool = True, edge_seed: int | None = None, hw=None, budget: Budget | None = None,
             compare_baseline: bool = True, source_name: str = "kernel.asm",
             keep_outputs: bool = False) -> Evaluation:
    t0 = time.perf_counter()
    accel = get_accel(accel_name)
    task = get_task(task_name)
    if config not in task.configs:
        raise KeyError(f"task {task_name} has no configuration {config!r}; "
                       f"configurations: {', '.join(task.configs)}")
    hw = hw or accel.default_config()
    ev = Evaluation(accel_name, task_name, config, status="failed", imem_limit=accel.imem_limit(hw))
    try:
        program = accel.assemble(source, source_name=source_name, config=hw)
    except AssemblyError as e:
        ev.status = "assembly_error"
        ev.diagnostics = [d.format() for d in e.diagnostics]
        ev.error = str(e)
        return ev
    ev.code_size = len(program)

    base = None
    has_baseline = compare_baseline and task_name in accel.baseline_templates()
    is_baseline = has_baseline and source == accel.baseline(task_name, config, hw)
    if has_baseline and not is_baseline:
        base = baseline_cycles(accel_name, task_name, config, hw)
        ev.baseline_cycles = base[0]
    budget = budget or (BASELINE_BUDGET if is_baseline else budget_for(base[1] if base else 0))
    bound: Bound = accel.lower_bound(task, config, hw)
    ev.lower_bound, ev.bound_kind = bound.cycles, bound.kind

    layout = accel.layout(task, config, hw)
    ev.seeds = list(seeds) if seeds is not None else fresh_seeds(n_seeds)
    input_sets = [(f"seed {s}", task.generate(config, s)) for s in ev.seeds]
    if edge_cases:
        ev.edge_seed = (edge_seed if edge_seed is not None else
                        edge_seed_for(ev.seeds) if seeds is not None else fresh_seeds(1)[0])
        input_sets += [(f"edge: {name}", inputs) for name, inputs in task.edge_cases(config, ev.edge_seed)]

    backend = accel.backend()
    total_match, total_elems = 0.0, 0
    first = None
    work = []                        # each set's (RunResult.counts, unit_busy)
    for label, inputs in input_sets:
        image = build_image(layout, inputs)
        result = backend.run(program, image, hw, budget)
        if first is None:
            first = result
        res, matched, n = judge(accel, task, config, layout, label, inputs, image, result,
                                keep_outputs)
        ev.sets.append(res)
        work.append((result.counts, result.unit_busy))
        if result.error is not None:
            ev.status, ev.error = "run_error", str(result.error)
            break
        total_match += matched
        total_elems += n

    ev.frac_match = total_match / total_elems if total_elems else 0.0
    if first is not None and first.error is None:
        ev.cycles = max(s.cycles for s in ev.sets)
        ev.retired = first.retired
        ev.unit_busy = dict(first.unit_busy)
        ev.stalls = dict(first.stalls)
        ev.utilisation = {u: (b / ev.cycles if ev.cycles else 0.0) for u, b in first.unit_busy.items()}
        reported = all(c is not None for c, _ in work)
        # (keys views compare as sets: no set is built)
        ev.paths = len([c for i, (c, _) in enumerate(work)
                        if all(c.keys() != d.keys() for d, _ in work[:i])]) if reported else 0
        ev.input_dependent = (len({(s.retired, s.cycles) for s in ev.sets}) > 1
                              or reported and any(w != work[0] for w in work))
        if reported and ev.input_dependent:
            own_code(program, ev.sets, work)
    if ev.status != "run_error":
        ev.passed = all(s.passed for s in ev.sets)
        ev.status = "passed" if ev.passed else "failed"
    if is_baseline and ev.passed:
        ev.baseline_cycles = ev.cycles     # the kernel is the baseline: no second run needed
    if ev.cycles:
        ev.roofline_fraction = ev.lower_bound / ev.cycles
        ev.impossible = ev.cycles < ev.lower_bound
        if ev.baseline_cycles and ev.passed and not ev.impossible:
            # A failed or impossible kernel's cycles measure nothing worth a speed-up.
            ev.speedup = ev.baseline_cycles / ev.cycles
    ev.wall_seconds = time.perf_counter() - t0
    return ev


# The rule own_code enforces, as a task statement gives it (tools.task_statement) to a task
# whose edge families have their own checks.
OWN_CODE_RULE = ("On an edge case with a check of its own (above), the kernel may run only "
                 "instructions that it also runs on the random input sets of the same evaluation, "
                 "and an instruction that runs equally often on every random set may not run more "
                 "often there; the same holds for each unit's busy cycles (a vector or transfer "
                 "length taken from the data). That check measures the code ordinary inputs run, "
                 "and an input set that runs code or work of its own there fails.")


def own_code(program, sets: list[InputSetResult], work: list) -> None:
    """Fail each edge set whose family has its own check (`family_checked`) and that did
    work no seeded set did: ran an instruction no seeded set ran, ran one that every
    seeded set ran equally often (RunResult.counts) more often, or kept a unit busy longer
    than every seeded set did where they agree (a vector or DMA length taken from the
    data). The check measures the code ordinary inputs use, and a kernel that recognises
    the family's inputs and takes its own path there, or goes round a loop of its own more
    often, would pass it with work no random draw does (tasks/README.md, "Anti-gaming
    rules"). A count that differs between the seeded sets is data-dependent on ordinary
    inputs (a running maximum, an early exit) and is not bounded: how far the family's
    structure moves it tells nothing (an early-exit search runs 9-12x longer on `many_keys`).
    A recogniser that adds input noise to such a count passes, but the family's cycles count
    in the evaluation's (the largest over its sets), so its exact path there costs it what
    computing exactly everywhere would (tasks/README.md, "What still gets through").
    Less work is allowed (an honest kernel may skip work on zeros), and so are edge sets
    without a check (it may treat special values apart). `work`: each set's (counts,
    unit_busy)."""
    seeded = [w for s, w in zip(sets, work) if s.label.startswith("seed ")]
    if not seeded:
        return
    (counts0, busy0), rest = seeded[0], seeded[1:]
    # the counts (addresses, units) every seeded set agrees on; an address absent from
    # them all counts 0 there
    fixed = {a: n for a, n in counts0.items() if all(c.get(a) == n for c, _ in rest)}
    fixed_busy = {u: b for u, b in busy0.items() if all(sb.get(u) == b for _, sb in rest)}
    seen = set(counts0).union(*(c for c, _ in rest))
    for s, (counts, busy) in zip(sets, work):
        if not s.family_checked or s.error or (counts, busy) in seeded:
            continue
        new = sorted(a for a in counts if a not in seen)
        more = sorted(a for a, n in counts.items() if a in fixed and n > fixed[a])
        units = [u for u, b in busy.items() if u in fixed_busy and b > fixed_busy[u]]
        if new:
            line, text = program.source_at(new[0])
            what = (f"ran {len(new)} instruction(s) that no seeded input set ran, the first at "
                    f"line {line}: {text}")
        elif more:
            line, text = program.source_at(more[0])
            what = (f"ran {len(more)} instruction(s) more often than every seeded input set did, "
                    f"the first at line {line}: {text} ({counts[more[0]]} times, "
                    f"{fixed[more[0]]} on every seeded set)")
        elif units:
            u = units[0]
            what = (f"kept unit `{u}` busy for {busy[u]} cycles, {fixed_busy[u]} on every "
                    f"seeded input set")
        else:
            continue
        s.own_code = (f"on edge family `{s.label[len('edge: '):]}` (which has its own check) "
                      f"the kernel {what}; that check measures the code ordinary inputs run, so "
                      f"a kernel may not take a path of its own or do more work on the family's "
                      f"inputs")
        s.passed = False


def set_problem(s) -> str:
    """What went wrong with one input set of an evaluation, in one line."""
    return f"{s.label}: " + (s.error or s.stray or s.own_code or ", ".join(
        f"{name}: {o['frac_match']:.2%} match, max abs err {o['max_abs_err']:.4g}"
        for name, o in s.outputs.items() if not o.get("passed", True)) or s.family
        or "outputs out of tolerance")
