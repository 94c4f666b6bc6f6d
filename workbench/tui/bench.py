"""Benchmark: how fluid the workbench stays on large runs and long kernels.

Prints medians of:
- opening a run of 1,000 events: until its first step is on screen, and until every
  step is in the timeline (headless Textual, frames rendered in full); and reading
  and grouping the events alone;
- a debugger step forwards and backwards on plena, coral and aie kernels: the model's
  move alone, and the move plus the redraw of the debugger screen (with coral's vector
  register page and aie's bundle and DMA panes);
- opening the debugger (the traced run of the kernel), for reference;
- with --rtl, a lockstep step (model and RTL moved together, the model | RTL pane
  redrawn) on plena relu C1 and a coral scalar program, on the small hardware
  configurations the RTL tests build (a Verilator build if not in the cache).

Targets: opening a run well under 1 s; a debugger step under 50 ms.

    python -m kernelcraft.workbench.tui.bench [--events 1000] [--repeats 5] [--rtl]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

KERNELS = (("plena", "gemm", "C3"), ("plena", "softmax", "C3"), ("plena", "layer_norm", "C4"),
           ("coral", "softmax", "C3"), ("aie", "gemm", "C2"))


def build_run(path: Path, n_events: int) -> int:
    """A store holding one run of `n_events` events shaped like an LLM agent's: per
    step reasoning (1-3 KB), a reply, write_code with a new ~5 KB kernel, run_eval with
    a full evaluation record, tool results and the workbench's note."""
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.evaluation import evaluate
    from kernelcraft.workbench.store import TraceStore
    accel = get_accel("plena")
    hw = accel.default_config()
    base = accel.baseline("gemm", "C2", hw)
    result = evaluate("plena", "gemm", "C2", base, hw=hw, seeds=[1, 2, 3]).to_dict()
    reasoning = ("The tile loop streams the B tiles through Matrix SRAM; the next "
                 "candidate reorders it so that the prefetch overlaps the M_MV work. ") * 20
    with TraceStore(path) as store:
        run = store.start_run("plena", "gemm", "C2", agent="llm", model="bench/model",
                              settings={"budget": 1000})
        store.append(run, "message", {"content": "system prompt " * 400}, role="system", step=0)
        step, seq = 0, 1
        while seq < n_events:
            step += 1
            kernel = f"; candidate {step}\n" + base
            items = [
                ("reasoning", {"content": reasoning}, "assistant", None),
                ("message", {"content": f"Try candidate {step}.", "tool_calls": []},
                 "assistant", None),
                ("tool_call", {"id": f"w{step}", "name": "write_code",
                               "arguments": json.dumps({"code": kernel})}, "assistant", None),
                ("kernel", {"version": step, "call_id": f"w{step}"}, None, kernel),
                ("tool_result", {"call_id": f"w{step}", "name": "write_code", "ok": True,
                                 "content": f"kernel version {step} saved"}, "tool", None),
                ("tool_call", {"id": f"e{step}", "name": "run_eval", "arguments": "{}"},
                 "assistant", None),
                ("evaluation", {"tool": "run_eval", "config": "C2", "kernel_version": step,
                                "seeds": [1, 2, 3], "call_id": f"e{step}", "result": result},
                 None, kernel),
                ("tool_result", {"call_id": f"e{step}", "name": "run_eval", "ok": True,
                                 "content": "PASS: 100.00% of output elements"}, "tool", None),
                ("message", {"content": f"[iteration {step} done]", "kind": "budget_note"},
                 "user", None),
            ]
            for type_, payload, role, source in items:
                if seq >= n_events:
                    break
                store.append(run, type_, payload, role=role, step=step,
                             tokens_in=1000 if type_ == "message" and role == "assistant" else 0,
                             kernel_source=source)
                seq += 1
        store.finish_run(run, "failed")
    return run


def _median_ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def open_run_model(path: Path, run_id: int, repeats: int) -> float:
    from kernelcraft.workbench.tui.model.source import StoreReader
    from kernelcraft.workbench.tui.model.trace import RunTrace
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        reader = StoreReader(path)
        trace = RunTrace(reader.run(run_id))
        events = reader.events(run_id)
        trace.add(events)
        for k in trace.kernels:
            reader.kernel(k.hash)
        times.append(time.perf_counter() - t)
        reader.close()
    return _median_ms(times)


def _frame(app) -> None:
    """Render the whole screen now, as the terminal would receive it."""
    app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)


async def _open_run_ui(path: Path, run_id: int, repeats: int) -> tuple[float, float]:
    from kernelcraft.workbench.tui.app import KernelCraftApp
    from kernelcraft.workbench.tui.screens.run import RunScreen
    app = KernelCraftApp(path)
    first, full = [], []
    async with app.run_test(size=(132, 40)) as pilot:
        await pilot.pause(0.3)
        for _ in range(repeats):
            t = time.perf_counter()
            screen = RunScreen(run_id)
            app.push_screen(screen)
            while screen.trace is None or screen.index is None:
                await pilot.pause(0.002)
            _frame(app)                          # the first step on screen
            first.append(time.perf_counter() - t)
            while not screen.finished_reading:
                await pilot.pause(0.002)
            _frame(app)                          # every step in the timeline
            full.append(time.perf_counter() - t)
            app.pop_screen()
            await pilot.pause(0.05)
    return _median_ms(first), _median_ms(full)


async def _debugger_ui(name: str, task: str, config: str, steps: int
                       ) -> tuple[float, float, float]:
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.tui.app import KernelCraftApp
    from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen
    accel = get_accel(name)
    source = accel.baseline(task, config, accel.default_config())
    with tempfile.TemporaryDirectory() as tmp:
        app = KernelCraftApp(Path(tmp) / "none.db")
        async with app.run_test(size=(132, 40)) as pilot:
            t = time.perf_counter()
            screen = DebuggerScreen(name, task, config, source, seed=1)
            app.push_screen(screen)
            await _until(pilot, lambda: screen.session is not None, f"{name} {task} {config}")
            opened = time.perf_counter() - t
            await pilot.pause()
            fwd, back = _steps(app, screen, steps)
    return opened * 1000, fwd, back


async def _until(pilot, condition, what: str, seconds: float = 600.0) -> None:
    """Wait for `condition()`; an error naming `what` if it does not hold in time (a
    debugger that failed to start never gets a session)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"bench: {what} not ready after {seconds:.0f} s")
        await pilot.pause(0.01)


CPU: dict[str, float] = {}     # the last _steps' median CPU ms per direction


def _steps(app, screen, steps: int) -> tuple[float, float]:
    """Median ms of a step forwards and back from the middle, the screen redrawn (the
    process's CPU time per step in CPU: on a loaded machine the wall time is mostly
    waiting for a core)."""
    screen.session.goto(screen.session.length // 2)
    screen.action_register_page(-1)       # the last page: coral's v registers
    out = []
    for direction in (1, -1):
        wall, cpu = [], []
        for _ in range(steps):
            t, c = time.perf_counter(), time.process_time()
            screen.action_step(direction)
            _frame(app)
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        out.append(_median_ms(wall))
        CPU["forward" if direction > 0 else "back"] = _median_ms(cpu)
    return out[0], out[1]


def _cpu() -> str:
    return f" (CPU {CPU['forward']:.1f}/{CPU['back']:.1f} ms)"


CORAL_SCALAR = """    la s0, d
    li t0, 40
loop:
    lw t1, 0(s0)
    addi t1, t1, 3
    sw t1, 4(s0)
    addi s0, s0, 4
    addi t0, t0, -1
    bnez t0, loop
    ebreak
    .data
d: .zero 256
"""


async def _lockstep_ui(name: str, steps: int) -> tuple[int, float, float]:
    """(steps traced, median ms forwards, back) of the debugger with the RTL beside."""
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.tui.app import KernelCraftApp
    from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen
    accel = get_accel(name)
    hw = accel.default_config(**accel.rtl.small_overrides())     # its cached small build
    if name == "plena":
        screen = DebuggerScreen(name, "relu", "C1", accel.baseline("relu", "C1", hw),
                                seed=1, hw=hw, rtl=True)
    else:
        screen = DebuggerScreen(name, "", "", CORAL_SCALAR, rtl=True, hw=hw)
    with tempfile.TemporaryDirectory() as tmp:
        app = KernelCraftApp(Path(tmp) / "none.db")
        async with app.run_test(size=(132, 40)) as pilot:
            app.push_screen(screen)
            await _until(pilot, lambda: screen.session is not None
                         and len(screen.session.timelines) > 1, f"{name} with its RTL")
            await pilot.pause()
            if not screen.session.lockstep.agree:
                raise RuntimeError(f"bench: the {name} RTL does not agree with the model")
            fwd, back = _steps(app, screen, steps)
            return screen.session.length, fwd, back


def debugger_model(name: str, task: str, config: str, steps: int) -> tuple[int, float, float]:
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.tui.model.debugger import DebugSession
    accel = get_accel(name)
    s = DebugSession.start(name, task, config,
                           accel.baseline(task, config, accel.default_config()), seed=1)
    s.goto(s.length // 2)
    fwd, back = [], []
    for _ in range(steps):
        t = time.perf_counter()
        s.step(1)
        fwd.append(time.perf_counter() - t)
    for _ in range(steps):
        t = time.perf_counter()
        s.step(-1)
        back.append(time.perf_counter() - t)
    return s.length, _median_ms(fwd), _median_ms(back)


def main(argv: list[str] | None = None) -> int:
    from kernelcraft.workbench.tui.model.views import view_for
    p = argparse.ArgumentParser(prog="python -m kernelcraft.workbench.tui.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=1000, help="events in the run opened")
    p.add_argument("--repeats", type=int, default=5, help="samples per median")
    p.add_argument("--steps", type=int, default=30, help="debugger steps per direction")
    p.add_argument("--rtl", action="store_true",
                   help="also a lockstep step with the RTL (plena, coral; small configurations)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        run_id = build_run(path, args.events)
        model_ms = open_run_model(path, run_id, args.repeats)
        first_ms, full_ms = asyncio.run(_open_run_ui(path, run_id, args.repeats))
    print(f"open a run of {args.events:,} events: first step on screen {first_ms:.0f} ms, "
          f"every step in the timeline {full_ms:.0f} ms (reading and grouping alone "
          f"{model_ms:.0f} ms)   (target: well under 1000 ms)")
    for name, task, config in KERNELS:
        n, fwd, back = debugger_model(name, task, config, args.steps)
        opened, ui_fwd, ui_back = asyncio.run(_debugger_ui(name, task, config, args.steps))
        noun = view_for(name).step_noun + "s"
        print(f"debugger step on {name} {task} {config} ({n:,} {noun}): "
              f"model {fwd * 1000:.0f}/{back * 1000:.0f} us forward/back, "
              f"with the screen redrawn {ui_fwd:.1f}/{ui_back:.1f} ms{_cpu()}   (target: under 50 ms); "
              f"tracing on open {opened:.0f} ms")
    for name in ("plena", "coral") if args.rtl else ():
        n, fwd, back = asyncio.run(_lockstep_ui(name, args.steps))
        print(f"lockstep step with the RTL on {name} ({n:,} instructions): the screen "
              f"redrawn {fwd:.1f}/{back:.1f} ms forward/back{_cpu()}   (target: under 50 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
