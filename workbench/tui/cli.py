"""`kernelcraft tui` and `kernelcraft demo`: the terminal workbench, and the whole loop
live with no API key.

`add_tui_command(subparsers)` adds both to the main parser (workbench/cli.py).

- `kernelcraft tui [--run N]` opens the workbench on the trace store (read-only).
- `kernelcraft debug --accel A [--task T --config C] KERNEL [--rtl]` opens the
  debugger on a kernel file (a bare program without --task), the RTL beside the model.
- `kernelcraft demo` starts the offline autotuner on a task in the background and
  opens the workbench on it live. With no terminal (CI, a pipe) it prints the run as
  plain lines instead and exits when the run ends: 0 if it succeeded, 1 if it
  failed, 2 on an error, 130 if interrupted.
"""
from __future__ import annotations

import sys

from kernelcraft.workbench.cliargs import integer, seconds

DEMO_CELL = ("plena", "silu", "C3")   # the autotuner finds a ~1.9x speed-up here in 5 steps
DEMO_PACE = 1.0                        # seconds per step in the terminal, so it can be watched


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _keymap(path):
    if not path:
        return None
    from .app import load_keymap
    return load_keymap(path)


def cmd_tui(args) -> int:
    from .model.debugger import DEFAULT_MAX_STEPS
    from .model.source import StoreReader, migrate
    keymap = _keymap(args.keymap)                  # a bad keymap is named before anything
    if args.migrate:
        print(migrate(args.traces))
    if not _interactive() or args.plain:
        if args.run is None:
            print("kernelcraft tui needs an interactive terminal (stdin/stdout are not one); "
                  "`kernelcraft runs` lists runs, `kernelcraft show RUN` prints one, and "
                  "`kernelcraft tui --run RUN` follows one as plain text", file=sys.stderr)
            return 2
        from .plain import follow_plain
        reader = StoreReader(args.traces)
        if not reader.open():
            print(f"kernelcraft: error: {reader.problem.message}", file=sys.stderr)
            return 2
        return follow_plain(reader, args.run)
    from .app import KernelCraftApp
    app = KernelCraftApp(args.traces, run_id=args.run, keymap=keymap,
                         poll_seconds=args.poll, max_steps=args.max_steps or DEFAULT_MAX_STEPS)
    app.run()
    _report_background(app)
    return 0


def _report_background(app) -> None:
    for x in app.launched:
        if x.exited() is None:
            print(f"run {x.run_id if x.run_id is not None else '(starting)'} "
                  f"({x.request.describe()}) continues in the background, pid {x.pid}; "
                  f"`kernelcraft tui` follows it")


def cmd_demo(args) -> int:
    from .model.launch import RunRequest, launch
    from .model.source import StoreReader
    interactive = _interactive() and not args.plain
    pace = args.pace if args.pace is not None else (DEMO_PACE if interactive else 0.0)
    request = RunRequest(args.accel, args.task, args.config, pace=pace, budget=args.budget)
    if interactive:
        from .app import KernelCraftApp
        app = KernelCraftApp(args.traces, request=request, stop_launched_on_exit=True)
        app.run()
        return 0
    from .plain import follow_plain, wait_for_run
    reader = StoreReader(args.traces)
    print(f"kernelcraft demo: the offline autotuner on {request.accel}/{request.task}/"
          f"{request.config}, recorded in {reader.path} (no terminal: plain text view)",
          flush=True)
    launched = launch(request, reader.path)
    try:
        run_id = wait_for_run(reader, launched)
        if run_id is None:
            return 2
        return follow_plain(reader, run_id)
    except KeyboardInterrupt:
        launched.stop()
        return 130
    finally:
        reader.close()


def debugger_screen(args):
    """The debugger screen `kernelcraft debug` opens, checked before any terminal is
    taken over: a task kernel on a seed or an edge case, or a bare program on the
    memory image of --load/--set (as `exec`). Raises ValueError/SystemExit naming
    what is wrong."""
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.cliargs import hardware, read_source
    from .screens.debugger import DebuggerScreen
    accel = get_accel(args.accel)
    hw = hardware(accel, args.hw)
    source = read_source(args.kernel)
    name = args.kernel if args.kernel != "-" else "stdin.asm"
    if args.edge_seed is not None and args.edge is None:
        raise ValueError("--edge-seed picks how an edge case was drawn: give --edge NAME too")
    if bool(args.task) != bool(args.config):
        raise ValueError("debug needs both --task and --config (a task kernel), or neither "
                         "(a bare program on the memory image of --load/--set)")
    if args.task:
        from kernelcraft.tasks import get_task
        task = get_task(args.task)
        task.dims(args.config)                          # names the configurations if wrong
        if args.load or args.set:
            raise ValueError("--load/--set give a bare program its memory image; a task "
                             "kernel's inputs come from --seed or --edge")
        image = None
    else:
        if args.edge is not None or args.edge_seed is not None:
            raise ValueError("--edge needs --task and --config: a bare program has no edge cases")
        from kernelcraft.workbench.execcmd import exec_image
        try:
            program = accel.assemble(source, source_name=name, config=hw)
        except Exception:                               # the debugger shows the diagnostics
            program = None
        image = exec_image(args, hw, program) if program is not None else None
    if args.rtl:
        from kernelcraft.workbench.rtlcheck import rtl_backend
        rtl_backend(args.accel)                         # names the accelerators with an RTL
    return DebuggerScreen(args.accel, args.task or "", args.config or "", source,
                          seed=args.seed, edge=args.edge, edge_seed=args.edge_seed, hw=hw,
                          image=image, rtl=args.rtl, source_name=name)


def cmd_debug(args) -> int:
    from .model.debugger import DEFAULT_MAX_STEPS
    screen = debugger_screen(args)
    if not _interactive():
        print("kernelcraft debug needs an interactive terminal (stdin/stdout are not one); "
              "`kernelcraft exec` runs a program and prints what you ask for, and "
              "`kernelcraft rtl-check --lockstep` compares it with the RTL", file=sys.stderr)
        return 2
    from .app import KernelCraftApp
    app = KernelCraftApp(args.traces, keymap=_keymap(args.keymap), debug=screen,
                         max_steps=args.max_steps or DEFAULT_MAX_STEPS)
    app.run()
    return 0


def add_tui_command(sub) -> None:
    def traces(sp):
        sp.add_argument("--traces", metavar="PATH",
                        help="trace store file (default: $KERNELCRAFT_TRACES, else ./traces.db)")

    sp = sub.add_parser(
        "tui", help="the terminal workbench: runs, live following, replay, kernel debugger",
        description="Open the terminal workbench on a trace store (read-only): pick a run, "
                    "follow it live, replay it, step its kernels in the debugger, start new "
                    "runs. ? lists every key.")
    sp.add_argument("--run", type=int, metavar="RUN", help="open this run directly")
    sp.add_argument("--keymap", metavar="FILE",
                    help='TOML file remapping keys by binding id, e.g. "run.next_step" = "n"')
    sp.add_argument("--migrate", action="store_true",
                    help="migrate an older trace store once (this writes to it), then open it")
    sp.add_argument("--max-steps", type=integer(1), metavar="N",
                    help="instructions the debugger traces at most (default 2,000,000)")
    sp.add_argument("--poll", type=seconds(60.0), default=0.15, metavar="SECONDS",
                    help="how often a live run is read (default 0.15)")
    sp.add_argument("--plain", action="store_true",
                    help="with --run: print the run as plain text as it is written")
    traces(sp)
    sp.set_defaults(func=cmd_tui)

    sp = sub.add_parser(
        "debug", help="step any kernel in the debugger (model, or model beside the RTL)",
        description="Open the kernel debugger on a kernel file: with --task and --config on "
                    "the inputs of a seed or an edge case, the outputs compared with the "
                    "reference; without them a bare program on the memory image of "
                    "--load/--set (zeros elsewhere), as `kernelcraft exec` runs it. --rtl "
                    "steps the RTL beside the model and jumps to the first instruction "
                    "where they disagree.")
    sp.add_argument("--accel", required=True, help="accelerator: plena, coral or aie")
    sp.add_argument("--task", help="task name (see `kernelcraft tasks`)")
    sp.add_argument("--config", help="task configuration, e.g. C1")
    sp.add_argument("kernel", help="assembly file ('-' for stdin)")
    which = sp.add_mutually_exclusive_group()
    which.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    which.add_argument("--edge", metavar="NAME", help="the edge case of this name instead")
    sp.add_argument("--edge-seed", type=int, metavar="N",
                    help="with --edge: the edge seed an evaluation recorded (edge cases drawn "
                         "from families)")
    from kernelcraft.workbench.accel import with_rtl
    sp.add_argument("--rtl", action="store_true",
                    help="step the RTL in lockstep beside the functional model (accelerators "
                         f"with an RTL: {', '.join(with_rtl())})")
    sp.add_argument("--load", action="append", metavar="MEM:ADDR:FILE",
                    help="bare program: initialise memory from a .npy or text file (repeatable)")
    sp.add_argument("--set", action="append", metavar="MEM:ADDR=v1,v2,...",
                    help="bare program: initialise memory with literal values (repeatable)")
    sp.add_argument("--as", dest="as_type", choices=("f32", "i32", "u32", "i16", "u16", "i8", "u8"),
                    help="element type of --load/--set in byte-addressed memories (default f32)")
    sp.add_argument("--hw", action="append", metavar="NAME=VALUE",
                    help="override a hardware parameter (repeatable), e.g. --hw MLEN=16")
    sp.add_argument("--max-steps", type=int, metavar="N",
                    help="instructions the debugger traces at most (default 2,000,000)")
    sp.add_argument("--keymap", metavar="FILE", help="TOML file remapping keys by binding id")
    traces(sp)
    sp.set_defaults(func=cmd_debug)

    sp = sub.add_parser(
        "demo", help="watch the offline autotuner improve a kernel live (no API key needed)",
        description="Start the offline autotune agent (no network, no API key) on a task in "
                    "the background and open the workbench on it live. Without a terminal, "
                    "print the run as plain text and exit when it ends (0 succeeded, "
                    "1 failed, 2 error, 130 interrupted).")
    sp.add_argument("--accel", default=DEMO_CELL[0], help=f"accelerator (default {DEMO_CELL[0]})")
    sp.add_argument("--task", default=DEMO_CELL[1], help=f"task (default {DEMO_CELL[1]})")
    sp.add_argument("--config", default=DEMO_CELL[2],
                    help=f"configuration (default {DEMO_CELL[2]})")
    sp.add_argument("--pace", type=seconds(60.0, allow_zero=True), metavar="SECONDS",
                    help=f"pause before each agent step (default {DEMO_PACE:g} in a terminal, "
                         f"0 without)")
    sp.add_argument("--budget", type=integer(1, 10_000), help="iterations allowed (default: by task level)")
    sp.add_argument("--plain", action="store_true", help="plain text view even in a terminal")
    traces(sp)
    sp.set_defaults(func=cmd_demo)
