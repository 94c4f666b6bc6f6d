"""`kernelcraft` command line."""
from __future__ import annotations

import os

# Simulations make many tiny numpy calls; BLAS threads only add contention there.
# Set before numpy loads; an explicit setting by the user wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json
import sys
from pathlib import Path

from kernelcraft.simulators.core.errors import KernelCraftError
from kernelcraft.workbench.cliargs import DAY, hardware, integer, read_source, seconds, seed_list


def cmd_tasks(args) -> int:
    from kernelcraft.tasks import LEVEL_BUDGET, all_tasks
    from kernelcraft.workbench.accel import NAMES
    from kernelcraft.workbench.coverage import coverage, summary
    cov = coverage()
    rows = []
    for t in all_tasks(args.level):
        rows.append({"task": t.name, "level": t.level, "budget": LEVEL_BUDGET[t.level],
                     "configs": t.visible_configs(), "held_out": t.held_out_configs(),
                     "title": t.title, "baselines": {a: cov[a][t.name] for a in NAMES}})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    from kernelcraft.workbench.textout import print_table
    every = lambda r: r["configs"] + r["held_out"]  # noqa: E731
    print_table("KernelCraft tasks; per accelerator, the configurations with a baseline",
                ["task", "level", "budget", "configurations", "held-out", *NAMES, "what"],
                [[r["task"], str(r["level"]), str(r["budget"]), " ".join(r["configs"]),
                  " ".join(r["held_out"]), *(summary(r["baselines"][a], every(r)) for a in NAMES),
                  r["title"]] for r in rows])
    return 0


def cmd_isa(args) -> int:
    from kernelcraft.workbench.accel import get_accel
    accel = get_accel(args.accel)
    text = accel.manual(hardware(accel, args.hw))
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as e:
            raise ValueError(f"--out {args.out}: cannot write it ({e.strerror or e})") from None
    else:
        print(text)
    return 0


def _params(pairs):
    out = {}
    for p in pairs or []:
        k, _, v = p.partition("=")
        try:
            out[k] = int(v, 0)
        except ValueError:
            out[k] = v
    return out


def cmd_baseline(args) -> int:
    from kernelcraft.workbench.accel import get_accel
    accel = get_accel(args.accel)
    hw = hardware(accel, args.hw)
    print(accel.baseline(args.task, args.config, hw, **_params(args.param)), end="")
    return 0


def _seeds(seeds: list[int] | None):
    return seeds or None        # parsed and checked by cliargs.seed_list


def cmd_eval(args) -> int:
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.evaluation import evaluate
    from kernelcraft.workbench.tools import format_evaluation
    accel = get_accel(args.accel)
    hw = hardware(accel, args.hw)
    ev = evaluate(args.accel, args.task, args.config, read_source(args.kernel), hw=hw,
                  seeds=_seeds(args.seeds), n_seeds=args.n_seeds, edge_cases=not args.no_edge,
                  source_name=args.kernel)
    # Seeds given with --seeds are for debugging: only the workbench's fresh seeds score.
    chosen_by = "caller" if args.seeds else "workbench"
    if args.json:
        print(json.dumps({**ev.to_dict(), "seeds_chosen_by": chosen_by}, indent=2, default=str))
    else:
        print(format_evaluation(ev))
        if args.seeds:
            print("seeds chosen with --seeds: for debugging, not a score (a score uses fresh "
                  "seeds chosen by the workbench)")
    return 0 if ev.passed else 1


def cmd_suite(args) -> int:
    from kernelcraft.workbench.suite import run_suite
    return run_suite(args)


def cmd_exec(args) -> int:
    from kernelcraft.workbench.execcmd import run_exec
    return run_exec(args)


# Benchmarks of the workbench itself: name -> ("module[:function]", what it prints); the
# function (default `main`) takes argv. Each accelerator adds its own (its registry
# record's `benchmarks`).
WORKBENCH_BENCHMARKS = {
    "suite": ("kernelcraft.workbench.suite", "wall time of the plena Level-1 baseline suite"),
    "store": ("kernelcraft.workbench.store.bench", "trace store write rate (events/s)"),
    "agent": ("kernelcraft.workbench.agent.bench", "agent loop overhead per step, without the model"),
    "autotune": ("kernelcraft.workbench.agent.autotune_bench", "autotune on every Level-2/3 cell (C1): fraction improved per accelerator"),
    "tui": ("kernelcraft.workbench.tui.bench", "workbench: opening a long run, debugger steps"),
    "speed": ("kernelcraft.simulators.speed", "every functional model on scalar, irregular vector and wide vector workload classes: instructions (bundles)/s, fast paths on and off"),
    "build": ("kernelcraft.workbench.buildbench", "cold Verilator build of an accelerator's RTL (--accel NAME, default plena) into a private empty cache, ccache off: wall and CPU s, Verilator's share, load"),
    "rtl": ("kernelcraft.workbench.rtlcheck:bench_rtl", "an accelerator's RTL (--accel NAME, default plena): cycles/s, build time cold and cached"),
}


def benchmarks() -> dict[str, tuple[str, str]]:
    from kernelcraft.workbench.accel import NAMES, get_accel
    out = {}
    for name in NAMES:
        out.update(get_accel(name).benchmarks)
    return {**out, **WORKBENCH_BENCHMARKS}


class _BenchmarkNames:
    """`bench`'s choices, gathered from the registry only when `bench` is parsed or its
    help shown: the parser is built for every command, and loading the accelerators'
    records (their assemblers and baselines) would add a second to each."""

    def __contains__(self, name) -> bool:
        return name in benchmarks()

    def __iter__(self):
        return iter(benchmarks())


def _described_on_demand(parser: argparse.ArgumentParser, describe) -> None:
    plain = parser.format_help

    def format_help() -> str:
        parser.description = describe()
        return plain()
    parser.format_help = format_help


def cmd_bench(args) -> int:
    import importlib
    module, _, function = benchmarks()[args.what][0].partition(":")
    rc = getattr(importlib.import_module(module), function or "main")(args.args)
    return rc or 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kernelcraft", description=__doc__ and
                                "Agentic close-to-metal kernel benchmark and workbench.")
    sub = p.add_subparsers(dest="cmd", required=True)

    def hw_opt(sp):
        sp.add_argument("--hw", action="append", metavar="NAME=VALUE",
                        help="override a hardware parameter (repeatable), e.g. --hw HBM_BW=64")

    sp = sub.add_parser("tasks", help="list tasks, levels, budgets and configurations")
    sp.add_argument("--level", type=int, choices=(1, 2, 3))
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    sp.set_defaults(func=cmd_tasks)

    sp = sub.add_parser("isa", help="print an accelerator's ISA manual (Markdown)")
    sp.add_argument("accel", help="accelerator name, e.g. plena")
    sp.add_argument("--out", help="write to this file instead of stdout")
    hw_opt(sp)
    sp.set_defaults(func=cmd_isa)

    def task_opts(sp):
        sp.add_argument("--accel", required=True, help="accelerator, e.g. plena")
        sp.add_argument("--task", required=True, help="task name (see `kernelcraft tasks`)")
        sp.add_argument("--config", required=True, help="task configuration, e.g. C3")
        hw_opt(sp)

    sp = sub.add_parser("baseline", help="print the template-compiler baseline kernel")
    task_opts(sp)
    sp.add_argument("--param", action="append", metavar="NAME=VALUE",
                    help="template parameter (repeatable)")
    sp.set_defaults(func=cmd_baseline)

    sp = sub.add_parser("eval", help="evaluate a kernel on a task (exit 0 only if it passes)")
    task_opts(sp)
    sp.add_argument("kernel", help="assembly file ('-' for stdin)")
    sp.add_argument("--seeds", type=seed_list, help="comma-separated input seeds (default: fresh random seeds)")
    sp.add_argument("--n-seeds", type=integer(1, 1000), default=3, help="number of fresh seeds (default 3)")
    sp.add_argument("--no-edge", action="store_true", help="skip the structured edge-case inputs")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    sp.set_defaults(func=cmd_eval)

    sp = sub.add_parser("suite", help="evaluate every baseline (or a directory of kernels)")
    sp.add_argument("--accel", required=True)
    sp.add_argument("--level", default="1", choices=("1", "2", "3", "all"),
                    help="which level's cells (default 1; all: the three levels in one run)")
    sp.add_argument("--tasks", help="comma-separated subset of tasks")
    sp.add_argument("--configs", help="comma-separated subset of configurations (default: all, held-out included)")
    sp.add_argument("--seeds", type=integer(1, 1000), default=3, help="fresh seeds per configuration (default 3)")
    sp.add_argument("--kernels", help="directory of <task>_<config>.asm kernels to evaluate instead of baselines")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    hw_opt(sp)
    sp.set_defaults(func=cmd_suite)

    sp = sub.add_parser("exec", help="run any program on a memory image and show what you ask for")
    sp.add_argument("--accel", required=True)
    sp.add_argument("program", help="assembly file ('-' for stdin)")
    sp.add_argument("--load", action="append", metavar="MEM:ADDR:FILE",
                    help="initialise memory from a .npy or whitespace-separated text file (repeatable)")
    sp.add_argument("--set", action="append", metavar="MEM:ADDR=v1,v2,...",
                    help="initialise memory with literal values (repeatable)")
    sp.add_argument("--dump", action="append", metavar="MEM:ADDR:LEN",
                    help="print a memory range; ADDR may be a .equ constant name (repeatable)")
    sp.add_argument("--save", action="append", metavar="MEM:ADDR:LEN:FILE.npy",
                    help="save a memory range to a .npy file (repeatable)")
    sp.add_argument("--format", choices=("value", "hex"), default="value", help="how dumps print")
    sp.add_argument("--as", dest="as_type", choices=("f32", "i32", "u32", "i16", "u16", "i8", "u8"),
                    help="element type in memories addressed by byte address (coral's dtcm) for "
                         "--load/--set/--dump/--save (default f32); there --dump LABEL prints a labelled range")
    sp.add_argument("--regs", action="store_true", help="print the registers at the end")
    sp.add_argument("--rtl", action="store_true",
                    help="run on the accelerator's RTL (Verilator) instead of its functional model")
    sp.add_argument("--bulk", action="store_true",
                    help="with --rtl: bulk mode, the Verilated model driven from C++ instead of "
                         "cocotb (same results, faster; its own build, cached beside cocotb's)")
    sp.add_argument("--max-instructions", type=integer(1), default=20_000_000)
    sp.add_argument("--timeout", type=seconds(DAY), default=60.0, help="time limit in seconds: CPU time of the functional model (wall clock 10 times "
                         "that as a backstop); wall clock with --rtl")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    hw_opt(sp)
    sp.set_defaults(func=cmd_exec)

    sp = sub.add_parser("bench", help="print performance figures (medians of several runs)")
    _described_on_demand(sp, lambda: "; ".join(f"{k}: {v}" for k, (_, v) in benchmarks().items()))
    sp.add_argument("what", choices=_BenchmarkNames(), metavar="what",
                    help="which benchmark (listed above)")
    sp.add_argument("args", nargs=argparse.REMAINDER, help="options passed to the benchmark (try --help)")
    sp.set_defaults(func=cmd_bench)
    from kernelcraft.workbench.runs_cli import add_run_commands; add_run_commands(sub)  # noqa: E702 (run/runs/show/replay/export)
    from kernelcraft.workbench.tui.cli import add_tui_command; add_tui_command(sub)  # noqa: E702 (tui/demo)
    from kernelcraft.workbench.rtlcheck import add_rtl_check_command; add_rtl_check_command(sub)  # noqa: E702 (rtl-check)
    from kernelcraft.workbench.sweep.cli import add_sweep_command; add_sweep_command(sub)  # noqa: E702 (sweep)
    from kernelcraft.workbench.report.cli import add_report_command; add_report_command(sub)  # noqa: E702 (report)
    return p


DEBUG_VAR = "KERNELCRAFT_TRACEBACK"     # set: an internal error shows its traceback


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        rc = args.func(args)
        sys.stdout.flush()        # a closed pipe shows here, not at interpreter exit
        return rc
    except BrokenPipeError:
        # The reader stopped early (`kernelcraft isa plena | head`): that is its choice,
        # not an error. Point stdout at /dev/null so the exit flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (KernelCraftError, KeyError, ValueError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"kernelcraft: error: {msg}", file=sys.stderr)
        return 2
    except MemoryError:
        print("kernelcraft: error: out of memory; use smaller --hw sizes or fewer/smaller "
              "--load, --dump and --save ranges", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"kernelcraft: {args.cmd} interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 -- a bug of ours: one line, traceback on request
        if os.environ.get(DEBUG_VAR):
            raise
        print(f"kernelcraft: internal error in `{args.cmd}`: {type(e).__name__}: "
              f"{str(e)[:300]}\nThis is a KernelCraft bug; please report it with the command. "
              f"Set {DEBUG_VAR}=1 to see the traceback.", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
