"""`kernelcraft rtl-check`: run a kernel on an accelerator's functional model and on its
RTL, and give two verdicts. The backends agree or disagree: every element of every
memory, every register and accumulator, the activity counters and the cycle count; on a
divergence, with --lockstep (or automatically, for a short run that diverged) the first
retired instruction whose pc, issue cycle or writes differ, with both values. The kernel
is correct or incorrect: the RTL's outputs against the task's reference, as `eval`
judges them. PASS needs both.

    kernelcraft rtl-check --accel plena --task gemm --config C3 [kernel.asm] [--lockstep]
    kernelcraft rtl-check --accel plena --all-baselines      # every baseline, every config
    kernelcraft rtl-check --accel plena --bench              # RTL speed and build times
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import AssemblyError, ConfigError, TimeLimitExceeded
from kernelcraft.workbench.cliargs import DAY, SEED_MAX, integer, seconds

# A run that diverged is re-run traced (to name the first diverging instruction) when
# it retired at most this many instructions; longer ones ask for --lockstep.
AUTO_LOCKSTEP_LIMIT = 300_000


def rtl_backend(accel: str, **options):
    """The RTL backend the accelerator's registry record names (its `rtl` field)."""
    from kernelcraft.workbench.accel import get_accel
    return get_accel(accel).rtl_backend(**options)


def bench_rtl(argv: list[str] | None = None) -> int:
    """`kernelcraft bench rtl [--accel NAME] [options]`: the RTL benchmark the
    accelerator's registry record names (default plena), its options passed on."""
    from kernelcraft.workbench.accel import get_accel, load
    argv, accel = list(argv or []), "plena"
    if "--accel" in argv:
        i = argv.index("--accel")
        if i + 1 >= len(argv):
            raise ConfigError("bench rtl: --accel takes an accelerator name")
        accel = argv[i + 1]
        del argv[i:i + 2]
    bench = get_accel(accel).need_rtl("bench rtl: ").bench
    if not bench:
        raise ConfigError(f"accelerator {accel!r} registers no RTL benchmark")
    return load(bench)(argv) or 0


def trace_comparison(accel: str):
    """`compare(model_trace, rtl_trace)` -> the first divergence (with .step, .format())
    or None, for an accelerator with an RTL: the one routine --lockstep and the
    workbench's debugger use."""
    from kernelcraft.workbench.accel import get_accel
    return get_accel(accel).need_rtl().comparison()


@dataclass
class CheckResult:
    accel: str
    task: str
    config: str
    kernel: str                      # "baseline" or the file name
    agree: bool                      # the backends: every memory, register and counter
    cycles_model: int
    cycles_rtl: int
    correct: bool | None = None      # the RTL's outputs against the reference (None: not judged)
    correctness: str = ""            # why it is incorrect (or the model's differing verdict)
    first: str = ""                  # the first diverging instruction, when known
    divergences: list[str] = field(default_factory=list)
    stop: str = ""                   # how both runs ended, when not normally
    rtl_seconds: float = 0.0
    model_seconds: float = 0.0
    refused: str = ""                # the RTL refused it before simulating (an operation it lacks)
    unfinished: str = ""             # the RTL run hit its time limit (the model's run did not)

    @property
    def passed(self) -> bool:
        """The backends agree and, when judged, the kernel is correct."""
        return self.agree and self.correct is not False and not self.refused

    @property
    def cycle_gap(self) -> float:
        return (self.cycles_rtl - self.cycles_model) / self.cycles_model if self.cycles_model else 0.0

    def to_dict(self) -> dict:
        return ({k: getattr(self, k) for k in self.__dataclass_fields__}
                | {"passed": self.passed, "cycle_gap": self.cycle_gap})

    def verdicts(self) -> str:
        if self.unfinished:
            # nothing to compare: the RTL stopped early, which says nothing about the kernel
            return "RTL did NOT FINISH (time limit; raise --timeout)"
        both = "backends agree" if self.agree else "backends DISAGREE"
        if self.correct is None:
            return both
        return f"{both}, kernel {'correct' if self.correct else 'INCORRECT'}"

    def format(self) -> str:
        if self.refused:
            return f"REFUSED  {self.accel} {self.task} {self.config} ({self.kernel}): {self.refused}"
        head = (f"{'PASS' if self.passed else 'FAIL'}  {self.accel} {self.task} {self.config} "
                f"({self.kernel}): {self.verdicts()}")
        if self.unfinished:
            lines = [head, f"  RTL: {self.unfinished}",
                     f"  model: {self.cycles_model} cycles; the RTL had reached {self.cycles_rtl}"]
        elif self.agree:
            lines = [head, f"  backends: {self.cycles_model} cycles on both; every memory, "
                           "register and counter identical"]
        else:
            lines = [head, f"  backends: model {self.cycles_model} cycles, RTL {self.cycles_rtl} "
                           f"({self.cycles_rtl - self.cycles_model:+d}, {100 * self.cycle_gap:+.3f}%)"]
            if self.first:
                lines.append(f"  first divergence: {self.first}")
            lines += [f"  {d}" for d in self.divergences]
        if self.correct is not None and not self.unfinished:
            lines.append("  kernel: " + ("every output within tolerance of the reference"
                                         if self.correct and not self.correctness else
                                         self.correctness))
        if self.stop:
            lines.append(f"  both runs stopped: {self.stop}")
        speed = self.cycles_rtl / self.rtl_seconds if self.rtl_seconds else 0
        lines.append(f"  RTL {self.rtl_seconds:.2f} s ({speed:,.0f} cycles/s with start-up), "
                     f"model {self.model_seconds:.2f} s")
        return "\n".join(lines)


def _hw(accel, pairs: list[str] | None):
    overrides = {}
    for p in pairs or []:
        key, sep, val = p.partition("=")
        if not sep:
            raise ConfigError(f"--hw expects NAME=VALUE, got {p!r}")
        try:
            overrides[key.strip()] = int(val, 0)
        except ValueError:
            raise ConfigError(f"--hw {p}: the value must be an integer") from None
    return accel.default_config(**overrides)


def _inputs(accel, task, config: str, hw, seed: int):
    """(inputs, memory image) of one input set."""
    from kernelcraft.workbench.layout import build_image
    inputs = task.generate(config, seed)
    return inputs, build_image(accel.layout(task, config, hw), inputs)


def _judge(accel_name: str, task_name: str, config: str, hw, inputs, image, m, r,
           res: CheckResult) -> None:
    """The kernel's verdict, as `eval` gives it: the RTL run's outputs (and the model's,
    when they differ) against the task's reference."""
    from kernelcraft.tasks import get_task
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.evaluation import judge, set_problem
    accel, task = get_accel(accel_name), get_task(task_name)
    layout = accel.layout(task, config, hw)
    verdict = lambda run, who: judge(accel, task, config, layout, who, inputs, image, run)[0]
    on_rtl = verdict(r, "RTL")
    res.correct = on_rtl.passed
    why = [] if on_rtl.passed else [set_problem(on_rtl)]
    if not res.agree:
        on_model = verdict(m, "model")
        if on_model.passed != on_rtl.passed:
            why.append("model: correct" if on_model.passed else set_problem(on_model))
    res.correctness = "; ".join(why)


def check(accel_name: str, task_name: str, config: str, source: str | None = None, *,
          hw=None, seed: int = 0, lockstep: bool = False, budget: Budget | None = None,
          source_name: str = "kernel.asm", rtl=None) -> CheckResult:
    """Cross-check one kernel (default: the task's baseline) on one input set."""
    from kernelcraft.tasks import get_task
    from kernelcraft.workbench.accel import get_accel
    accel = get_accel(accel_name)
    task = get_task(task_name)
    if config not in task.configs:
        raise KeyError(f"task {task_name} has no configuration {config!r}; configurations: "
                       f"{', '.join(task.configs)}")
    hw = hw or accel.default_config()
    kernel = source_name if source is not None else "baseline"
    source = source if source is not None else accel.baseline(task_name, config, hw)
    program = accel.assemble(source, source_name=source_name, config=hw)
    inputs, image = _inputs(accel, task, config, hw, seed)
    budget = budget or Budget(max_instructions=200_000_000, wall_seconds=600.0)
    res, m, r = run_both(accel_name, task_name, config, kernel, program, [image], hw=hw,
                         budget=budget, rtl=rtl or rtl_backend(accel_name), lockstep=lockstep)[0]
    _judge(accel_name, task_name, config, hw, inputs, image, m, r, res)
    return res


def run_both(accel_name: str, task_name: str, config: str, kernel: str, program, images, *,
             hw, budget: Budget, rtl, lockstep: bool = False, model_runs=None) -> list[tuple]:
    """Run an assembled program on each memory image on the model (unless `model_runs`
    holds those runs already) and on the RTL (one simulator process for all images),
    and compare: [(CheckResult, model run, RTL run)] per image, the kernel not judged
    (`correct` None). The agent's run_rtl tool judges the outputs of both runs itself."""
    from kernelcraft.simulators.core.backend import Job
    from kernelcraft.workbench.accel import get_accel
    t0 = time.perf_counter()
    models = model_runs or [get_accel(accel_name).backend().run(program, image, hw, budget,
                                                                trace=lockstep)
                            for image in images]
    t1 = time.perf_counter()
    rtls = rtl.run_many([Job(program, image, budget, lockstep) for image in images], hw)
    rtl_s = (time.perf_counter() - t1) / len(images)
    model_s = [m.wall_seconds if model_runs else (t1 - t0) / len(images) for m in models]
    return [(_verdict(accel_name, task_name, config, kernel, m, r, ms, rtl_s, program, image,
                      hw, budget, rtl, lockstep), m, r)
            for m, r, ms, image in zip(models, rtls, model_s, images)]


def _verdict(accel_name, task_name, config, kernel, m, r, model_s, rtl_s, program, image,
             hw, budget, rtl, lockstep) -> CheckResult:
    from kernelcraft.workbench.accel import get_accel
    rtl_parts = get_accel(accel_name).need_rtl()
    compare_runs, compare_traces = rtl_parts.run_comparison(), rtl_parts.comparison()
    diffs = compare_runs(m, r)
    first = None
    if lockstep:
        first = compare_traces(m.trace, r.trace)
    elif diffs and m.retired <= AUTO_LOCKSTEP_LIMIT:
        mt = get_accel(accel_name).backend().run(program, image, hw, budget, trace=True)
        rt = rtl.run(program, image, hw, budget, trace=True)
        first = compare_traces(mt.trace, rt.trace)
    res = CheckResult(accel_name, task_name, config, kernel, not diffs and first is None,
                      m.cycles, r.cycles, rtl_seconds=rtl_s, model_seconds=model_s)
    if first is not None:
        res.first = first.format()
    elif diffs and not lockstep:
        res.first = (f"(the run retired {m.retired} instructions; re-run with --lockstep "
                     "to find the first diverging instruction)")
    res.divergences = [d.format() for d in diffs]
    if m.error is not None and not diffs:
        res.stop = str(m.error)
    if isinstance(r.error, TimeLimitExceeded) and not isinstance(m.error, TimeLimitExceeded):
        res.unfinished = str(r.error)
    return res


def check_baselines(accel_name: str, hw, level: int = 1, tasks: list[str] | None = None,
                    configs: list[str] | None = None, seed: int = 0, rtl=None,
                    progress=None, timeout: float = 900.0) -> list[CheckResult]:
    """Every baseline of `level` on every configuration (held-out ones included); the
    RTL runs of one task share a simulator process."""
    from kernelcraft.simulators.core.backend import Job
    from kernelcraft.tasks import all_tasks
    from kernelcraft.workbench.accel import get_accel
    accel = get_accel(accel_name)
    rtl = rtl or rtl_backend(accel_name)
    budget = Budget(max_instructions=200_000_000, wall_seconds=timeout)
    cells = []
    for task in all_tasks(level):
        if task.name not in accel.baseline_templates() or (tasks and task.name not in tasks):
            continue
        for config in task.visible_configs() + task.held_out_configs():
            if configs and config not in configs:
                continue
            program = accel.assemble(accel.baseline(task.name, config, hw),
                                     source_name=f"{task.name}_{config}.asm", config=hw)
            cells.append((task.name, config, program, *_inputs(accel, task, config, hw, seed)))
    if not cells:
        raise KeyError(f"no {accel_name} baselines match tasks={tasks} configs={configs}")
    out = []
    for task in dict.fromkeys(c[0] for c in cells):
        group = [c for c in cells if c[0] == task]
        t0 = time.perf_counter()
        try:
            rtl_runs = rtl.run_many([Job(p, img, budget) for _, _, p, _, img in group], hw)
        except ConfigError as e:        # the RTL lacks an operation: say so and go on
            for _, config, *_ in group:
                res = CheckResult(accel_name, task, config, "baseline", agree=False,
                                  cycles_model=0, cycles_rtl=0, refused=str(e).splitlines()[0])
                out.append(res)
                if progress:
                    progress(res)
            continue
        rtl_s = (time.perf_counter() - t0) / len(group)
        for (_, config, program, inputs, image), r in zip(group, rtl_runs):
            t1 = time.perf_counter()
            m = accel.backend().run(program, image, hw, budget)
            res = _verdict(accel_name, task, config, "baseline", m, r, time.perf_counter() - t1,
                           rtl_s, program, image, hw, budget, rtl, False)
            _judge(accel_name, task, config, hw, inputs, image, m, r, res)
            out.append(res)
            if progress:
                progress(res)
    return out


def cmd_rtl_check(args) -> int:
    from kernelcraft.workbench.accel import get_accel
    accel = get_accel(args.accel)
    hw = _hw(accel, args.hw)
    if args.bulk and args.sim != "verilator":
        raise ConfigError("rtl-check: --bulk drives a Verilated model from C++; it needs --sim verilator")
    keep = Path(args.keep) if args.keep else None
    if keep is not None:
        if keep.exists() and not keep.is_dir():
            raise ConfigError(f"rtl-check: --keep {args.keep}: exists and is not a directory")
        keep.mkdir(parents=True, exist_ok=True)     # the backends make their job folders inside it
    rtl = rtl_backend(args.accel, simulator=args.sim, max_cycles=args.max_cycles,
                      keep=keep, bulk=args.bulk)
    if args.bench:
        from kernelcraft.workbench.accel import load
        bench = accel.need_rtl().bench
        if not bench:
            raise ConfigError(f"accelerator {args.accel!r} registers no RTL benchmark")
        return load(bench)([])
    if args.all_baselines:
        split = lambda s: [x.strip() for x in s.split(",") if x.strip()] if s else None
        show = None if args.json else (lambda r: print(_row(r), flush=True))
        results = check_baselines(args.accel, hw, args.level, split(args.tasks),
                                  split(args.configs), args.seed, rtl, show,
                                  timeout=args.timeout or 900.0)
        failed = [r for r in results if not r.passed]
        if args.json:
            print(json.dumps([r.to_dict() for r in results], indent=2))
        else:
            for r in failed:
                print("\n" + r.format())
            agree = sum(r.agree for r in results)
            correct = sum(bool(r.correct) for r in results)
            refused = sum(bool(r.refused) for r in results)
            unfinished = sum(bool(r.unfinished) for r in results)
            worst = max((abs(r.cycle_gap) for r in results if not r.unfinished), default=0.0)
            print(f"\n{agree}/{len(results)} baselines identical on both backends, "
                  f"{correct}/{len(results)} correct against the reference; largest cycle "
                  f"gap {100 * worst:.3f}%"
                  + (f"; {refused} refused by the RTL (operations it lacks)" if refused else "")
                  + (f"; {unfinished} not finished on the RTL within --timeout" if unfinished else ""))
        return 1 if failed else 0
    if not args.task or not args.config:
        raise ConfigError("rtl-check needs --task and --config (or --all-baselines, or --bench)")
    source, name = None, "kernel.asm"
    if args.kernel:
        from kernelcraft.workbench.cliargs import read_source     # names a missing or non-UTF-8 file
        source = read_source(args.kernel)
        name = args.kernel
    budget = Budget(max_instructions=args.max_instructions, wall_seconds=args.timeout or 600.0)
    try:
        res = check(args.accel, args.task, args.config, source, hw=hw, seed=args.seed,
                    lockstep=args.lockstep, budget=budget, source_name=name, rtl=rtl)
    except AssemblyError as e:
        print(str(e), file=sys.stderr)
        return 2
    print(json.dumps(res.to_dict(), indent=2) if args.json else res.format())
    return 0 if res.passed else 1


def _row(r: CheckResult) -> str:
    if r.refused:
        return f"REFUSED  {r.task:16s} {r.config:3s} {r.refused}"
    verdict = "PASS" if r.passed else "FAIL"
    return (f"{verdict}  {r.task:16s} {r.config:3s} cycles {r.cycles_model:>9d} model "
            f"{r.cycles_rtl:>9d} RTL  ({100 * r.cycle_gap:+.3f}%)  {r.verdicts()}")


def add_rtl_check_command(sub) -> None:
    sp = sub.add_parser(
        "rtl-check", help="cross-check a kernel on the functional model and the RTL",
        description="Run a kernel (default: the task's baseline) on the functional model "
                    "and on the RTL (Verilator, or Icarus with --sim); report whether the backends "
                    "agree (every memory element, every register and the cycle count) and whether "
                    "the kernel is correct against the task's reference. Exit status 0 on PASS "
                    "(both), 1 otherwise.")
    sp.add_argument("--accel", required=True, help="accelerator with an RTL, e.g. plena")
    sp.add_argument("--task", help="task name (see `kernelcraft tasks`)")
    sp.add_argument("--config", help="task configuration, e.g. C3")
    sp.add_argument("kernel", nargs="?", help="assembly file ('-' for stdin); default: the baseline")
    sp.add_argument("--lockstep", action="store_true",
                    help="compare the retirement traces instruction by instruction")
    sp.add_argument("--seed", type=integer(0, SEED_MAX), default=0, help="input seed (default 0)")
    sp.add_argument("--all-baselines", action="store_true",
                    help="check every baseline on every configuration, held-out ones included")
    sp.add_argument("--level", type=int, default=1, choices=(1, 2, 3),
                    help="task level for --all-baselines (default 1)")
    sp.add_argument("--tasks", help="with --all-baselines: comma-separated tasks")
    sp.add_argument("--configs", help="with --all-baselines: comma-separated configurations")
    sp.add_argument("--max-instructions", type=integer(1), default=200_000_000,
                    help="instruction budget of both runs")
    sp.add_argument("--max-cycles", type=integer(1), help="cycle budget of the RTL run")
    sp.add_argument("--sim", choices=("verilator", "icarus"), default="verilator",
                    help="RTL simulator (default verilator; icarus is far slower: small "
                         "configurations, set with --hw)")
    sp.add_argument("--timeout", type=seconds(DAY),
                    help="wall-clock limit per run, seconds (default 600; 900 with --all-baselines)")
    sp.add_argument("--keep", metavar="DIR", help="keep the RTL job files (inputs and results) in DIR")
    sp.add_argument("--bulk", action="store_true",
                    help="bulk mode: run the Verilated model from a C++ driver instead of cocotb "
                         "(same results, faster; its own build, cached beside cocotb's)")
    sp.add_argument("--bench", action="store_true",
                    help="print the RTL's simulation speed and build times (cold and cached)")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    sp.add_argument("--hw", action="append", metavar="NAME=VALUE",
                    help="override a hardware parameter (repeatable), e.g. --hw HBM_BW=64")
    sp.set_defaults(func=cmd_rtl_check)
