"""The kernel debugger: step a kernel on the functional model instruction by
instruction, forwards and backwards, run to a breakpoint or to either end; see the
source line about to execute, the registers, any memory in any format with what the
last move changed highlighted, and the outputs against the reference.

The traced run is made in a worker thread when the screen opens; every move after
that replays recorded changes (model/timeline.py). With `rtl=True` the RTL runs the
same program and image traced in another worker (building its simulator first when
the cache has none: the pane says who holds the build lock and for how long); then
a model | RTL pane pair shows what each side's last instruction retired and wrote,
both step together, and the debugger jumps to the first instruction where they
disagree (`D` returns there), named by rtl-check's own trace comparison.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from rich.text import Text
from textual import work
from textual.worker import get_current_worker
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer

from ..keys import bindings
from ..messages import deliver
from ..model.debugger import DebugSession
from ..model.formats import FORMATS, cell_bytes, next_format
from ..model.lockstep import lockstep_lines
from ..model.navigate import (NavigationError, find_value, goto_line, mismatches, parse_goto,
                              parse_watch)
from ..model.timeline import Touched
from ..model.views import view_for
from ..widgets.common.pane import TextPane
from ..widgets.debugger.machine import MachinePane
from ..widgets.debugger.memory import MemoryView, cells_per_row, memory_text
from ..widgets.debugger.outputs import OutputsView
from ..widgets.debugger.registers import RegistersView, lines_text
from ..widgets.debugger.source import SourceView

BIG_STEP = 100
# Rows (with their borders) the panes keep on a short terminal, and what they ask for.
SOURCE_MIN, MEMORY_MIN, OUTPUTS_MIN = 6, 6, 5
REGISTER_ROWS, LOCKSTEP_ROWS = 12, 9


class DebuggerScreen(Screen):
    BINDINGS = bindings("debug")

    def __init__(self, accel: str, task: str, config: str, source: str, *, seed: int = 0,
                 edge: str | None = None, hw_overrides: dict | None = None, title: str = "",
                 edge_seed: int | None = None, hw=None, image=None, rtl: bool = False,
                 rtl_backend=None, source_name: str = "kernel.asm"):
        """`task` "" debugs a bare program on `image` (zeros by default); `hw` (a
        configuration) wins over `hw_overrides`; `rtl` steps the RTL beside the model
        (`rtl_backend`: the accelerator's own by default)."""
        super().__init__()
        self.args = (accel, task, config, source, seed, edge, dict(hw_overrides or {}))
        self.edge_seed, self.hw, self.image, self.source_name = edge_seed, hw, image, source_name
        self.rtl, self.rtl_backend = rtl, rtl_backend
        self.rtl_note = ""                     # the RTL's build/run state until attached
        self.rtl_since = 0.0
        self.title_text = title or (f"{accel}/{task}/{config}" if task else f"{accel} {Path(source_name).name}")
        self.view = view_for(accel)
        self.register_page = 0
        self.session: DebugSession | None = None
        self.breakpoints: set[int] = set()
        self.fmt = "bf16"
        self.memory_names: list[str] = []
        self.memory = ""
        self.addresses: dict[str, int] = {}
        self._outputs_dirty = True
        self.watches: list = []                # navigate.Watch
        self.bad = Touched()                   # output cells out of tolerance now
        self.found = ""                        # the value last searched for in memory

    def compose(self):
        yield TextPane(id="debug-status")
        with Horizontal(id="debug-body"):
            with Vertical(id="debug-left"):
                yield SourceView(id="debug-source")
                if self.rtl:
                    pane = TextPane(id="debug-lockstep")
                    pane.border_title = "model | RTL"
                    yield pane
                for spec in self.view.panes:
                    pane = MachinePane(spec.key, id=f"debug-{spec.key}", classes="debug-machine")
                    pane.border_title = spec.title
                    yield pane
            with Vertical(id="debug-right"):
                yield RegistersView(id="debug-registers")
                yield MemoryView(id="debug-memory")
                yield OutputsView(id="debug-outputs")
        # 80 columns: Back, Quit and Help still fit (? lists every key, ctrl+p the palette)
        yield Footer(compact=True, show_command_palette=False)

    def _fit(self, height: int) -> None:
        """Size the panes for a terminal `height` rows tall: the accelerator's view asks
        for its panes' heights; on a short terminal (80x24) the machine panes shrink
        before the source drops under SOURCE_MIN rows, and the registers before the
        outputs' comparison drops under OUTPUTS_MIN."""
        body = max(8, height - 3)                           # the status (2) and the footer
        wants = [spec.height for spec in self.view.panes] + ([LOCKSTEP_ROWS] if self.rtl else [])
        scale = min(1.0, max(0, body - SOURCE_MIN) / sum(wants)) if wants else 1.0
        for spec in self.view.panes:
            self.query_one(f"#debug-{spec.key}", MachinePane).styles.height = \
                max(3, int(spec.height * scale))
        if self.rtl:       # a tall terminal gives the pair room for their writes
            self.query_one("#debug-lockstep", TextPane).styles.height = \
                max(6, int(LOCKSTEP_ROWS * scale)) + max(0, body - 30) // 3
        want = self.view.register_height or REGISTER_ROWS
        self.query_one(RegistersView).styles.height = max(4, min(want, body - MEMORY_MIN
                                                                 - OUTPUTS_MIN))

    def on_resize(self, event) -> None:
        self._fit(event.size.height)
        if self.session is not None:        # reflow the registers, memory, panes
            self.call_after_refresh(self._refresh, self.session.main.touched)

    def on_mount(self) -> None:
        self._fit(self.app.size.height)
        accel, task, config, _, seed, edge, _ = self.args
        what = f"edge case {edge}" if edge else f"seed {seed}"
        where = f"{accel}/{task}/{config}, {what}" if task else accel
        self.query_one("#debug-status", TextPane).update(
            f"{self.title_text}: tracing the kernel on {where} ...")
        self._start()

    @work(thread=True, exclusive=True, group="debug-start")
    def _start(self) -> None:
        accel, task, config, source, seed, edge, hw = self.args
        try:
            from kernelcraft.workbench.accel import get_accel
            hw = self.hw or get_accel(accel).default_config(**hw)
            if task:
                session = DebugSession.start(accel, task, config, source, seed=seed, edge=edge,
                                             edge_seed=self.edge_seed, hw=hw,
                                             max_steps=self.app.max_steps,
                                             source_name=self.source_name)
            else:
                session = DebugSession.bare(accel, source, self.image, hw=hw,
                                            max_steps=self.app.max_steps,
                                            source_name=self.source_name)
        except Exception as e:  # noqa: BLE001 -- shown to the person with its reason
            msg = str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
            deliver(self, self._failed, msg)
            return
        deliver(self, self._ready, session)

    def _failed(self, msg: str) -> None:
        first, _, rest = msg.partition("\n")
        self.query_one("#debug-status", TextPane).update(Text(f"cannot debug: {first}", "bold red"))
        self.query_one(SourceView).update(Text(msg, "red"))
        self.app.notify(msg, title="debugger", severity="error", timeout=10)

    def _ready(self, session: DebugSession) -> None:
        self.session = session
        regs = session.main.registers
        self.memory_names = list(session.memory_dtypes) + [
            k for k, v in regs.items() if isinstance(v, np.ndarray)]
        outputs = session.layout.by_role("output")
        self.memory = outputs[0].memory if outputs else self.memory_names[0]
        if outputs and outputs[0].dtype in FORMATS:
            self.fmt = outputs[0].dtype        # cells as the output's type to begin with
        self.addresses = {name: 0 for name in self.memory_names}
        if outputs:
            self.addresses[outputs[0].memory] = session.layout.span(outputs[0])[0]
        self.query_one(SourceView).load(session.source, session.accel)
        self._refresh(Touched())
        if session.main.result.error is not None:
            self.app.notify(session.stop_reason, title="the traced run stopped early",
                            severity="warning", timeout=10)
        if self.rtl:
            self.rtl_since = time.monotonic()
            self.rtl_note = "starting ..."
            self._rtl_timer = self.set_interval(0.5, self._rtl_tick)
            self._run_rtl(session)

    # ---------------------------------------------------------------- the RTL
    @work(thread=True, exclusive=True, group="debug-rtl")
    def _run_rtl(self, session: DebugSession) -> None:
        try:
            backend = self.rtl_backend or session.rtl_backend()
            if callable(getattr(backend, "build_state", None)):   # a backend that builds
                deliver(self, self._rtl_state, backend.build_state(session.hw).describe())
                self._rtl_watch(backend, session.hw)
            else:
                deliver(self, self._rtl_state, f"running {backend.name} traced")
            timeline = session.run_rtl(backend, self.app.max_steps)
        except Exception as e:  # noqa: BLE001 -- a build or run failure, shown with its reason
            deliver(self, self._rtl_failed, str(e))
            return
        deliver(self, self._rtl_ready, timeline)

    @work(thread=True, group="debug-rtl-watch")
    def _rtl_watch(self, backend, hw) -> None:
        """While the RTL runs, re-read its build state (a build takes minutes). Stops when
        the worker is cancelled too: the app closing before the RTL's trace arrives must
        not leave this thread polling, or the event loop waits for it forever on exit."""
        worker = get_current_worker()
        while (not worker.is_cancelled and self.session is not None
               and len(self.session.timelines) < 2 and self.rtl_since):
            time.sleep(1.0)
            try:
                deliver(self, self._rtl_state, backend.build_state(hw).describe())
            except Exception:  # noqa: BLE001 -- the run itself reports what is wrong
                return

    def _rtl_state(self, state: str) -> None:
        if self.rtl_since:
            self.rtl_note = ("running the traced RTL (simulator built)"
                             if state.startswith("built") else state)
            self._rtl_tick()

    def _rtl_tick(self) -> None:
        if self.session is None or not self.rtl_since:
            return
        note = self._rtl_status()
        pane = self.query_one("#debug-lockstep", TextPane)
        pane.update(lines_text(lockstep_lines(self.session, pane.size.width or 60,
                                              pane.size.height or 7, note, self.fmt)))

    def _rtl_status(self) -> str:
        """The RTL's state, with its elapsed time while it builds or runs (every redraw
        shows it, or a refresh between two ticks would drop the clock)."""
        if not self.rtl_since:
            return self.rtl_note
        return f"{self.rtl_note}  {time.monotonic() - self.rtl_since:.0f} s"

    def _rtl_failed(self, msg: str) -> None:
        self.rtl_since = 0.0
        self._rtl_timer.stop()
        self.rtl_note = f"failed: {msg.splitlines()[0] if msg else 'no reason given'}"
        self.query_one("#debug-lockstep", TextPane).update(Text(f"RTL failed: {msg}", "bold red"))
        self.app.notify(msg, title="RTL", severity="error", timeout=10)

    def _rtl_ready(self, timeline) -> None:
        took = time.monotonic() - self.rtl_since
        self.rtl_since = 0.0
        self._rtl_timer.stop()
        s = self.session
        s.attach(timeline)
        d = s.lockstep.divergence
        if d is None and s.lockstep.end_differences:
            self._refresh(s.main.touched)
            self.app.notify(f"{timeline.backend} retires every {self.view.step_noun} as the "
                            f"model does but ends in another state: "
                            + "; ".join(s.lockstep.end_differences[:3]),
                            title="end states differ", severity="warning", timeout=10)
        elif d is None:
            self._refresh(s.main.touched)
            self.app.notify(f"{timeline.backend} agrees with the model on every one of "
                            f"{s.length:,} {self.view.step_noun}s ({took:.1f} s)", timeout=6)
        else:
            self._move(s.goto_divergence())
            self.app.notify(f"{timeline.backend} diverges at {d}", title="first divergence",
                            severity="warning", timeout=10)

    def action_goto_divergence(self) -> None:
        if self.session is None or self.session.lockstep is None:
            self.app.notify("no RTL attached: open the debugger with --rtl", timeout=3)
            return
        touched = self.session.goto_divergence()
        if touched is None:
            self.app.notify("the model and the RTL agree on every instruction", timeout=3)
        else:
            self._move(touched)

    # ---------------------------------------------------------------- drawing
    def _storage(self, name: str) -> str:
        """A memory's storage dtype; a register array's from its dtype (bytes: "u8")."""
        if name in self.session.memory_dtypes:
            return self.session.memory_dtypes[name]
        kind = np.asarray(self._memory_values(self.session.main, name)).dtype
        return "u8" if kind == np.uint8 else ("fp32" if kind.kind == "f" else "int32")

    def _memory_values(self, timeline, name: str):
        return timeline.memories.get(name, timeline.registers.get(name))

    def _refresh(self, touched: Touched) -> None:
        s = self.session
        if s is None:
            return
        tl = s.main
        step = tl.current()
        status = Text(overflow="ellipsis")          # two lines: wraps at 80 columns
        status.append(f"{self.title_text}  ", "bold")
        status.append(f"{s.input_label}  {self.view.step_noun} {s.position:,}/{s.length:,}  "
                      f"cycle {s.cycle():,}  ")
        if s.lockstep is not None:          # before the long texts: 80 columns keep it
            d = s.lockstep.divergence
            status.append(f"{s.timelines[1].backend}: " + (
                f"diverges at #{d.step}" if d is not None else
                "agrees" if s.lockstep.agree else "differs at the end"),
                "green" if s.lockstep.agree else "bold red")
            status.append("  ")
        if step is not None:
            status.append(f"next: pc {step.pc} line {step.line} ", "grey62")
            status.append(step.text, "bold")
        else:
            status.append(s.stop_reason, "bold red" if tl.result.error else "bold green")
        if touched.steps > 1:
            status.append(f"  (moved {touched.steps:,} {self.view.step_noun}s)", "grey50")
        if self.watches:
            status.append("  watching " + ", ".join(w.text for w in self.watches), "yellow")
        self.query_one("#debug-status", TextPane).update(status)
        self.query_one(SourceView).show(s.current_line(), self.breakpoints)
        if self.rtl:
            pane = self.query_one("#debug-lockstep", TextPane)
            pane.update(lines_text(lockstep_lines(s, pane.size.width or 60,
                                                  pane.size.height or 7, self._rtl_status(),
                                                  self.fmt)))
        self._draw_registers()
        for pane in self.query(MachinePane):
            pane.update(lines_text(self.view.pane(pane.key, s, pane.size.width or 60)))
        spans = [(r.memory, *s.layout.span(r)) for r in s.layout.by_role("output")]
        if self._outputs_dirty or any(touched.mask(memory, a, b - a).any()
                                      for memory, a, b in spans):
            self._outputs_dirty = False
            outputs = s.outputs()
            self.bad = mismatches(s, outputs)
            self.query_one(OutputsView).show(outputs)
        self._draw_memory(touched)

    def _draw_registers(self) -> None:
        pane = self.query_one(RegistersView)
        lines, pages = self.view.register_lines(self.session, self.fmt, pane.size.width or 120,
                                                pane.size.height or 10, self.register_page)
        self.register_page %= pages
        pane.update(lines_text(lines))

    def _draw_memory(self, touched: Touched | None = None) -> None:
        s = self.session
        if s is None:
            return
        view = self.query_one(MemoryView)
        rows = max(2, (view.size.height or 10) - 2)
        values = self._memory_values(s.main, self.memory)
        view.update(memory_text(self.memory, np.asarray(values), self._storage(self.memory),
                                self.fmt, self.addresses.get(self.memory, 0), rows,
                                self._per_row(),
                                touched if touched is not None else s.main.touched,
                                s.layout, self.bad))

    def _per_row(self) -> int:
        view = self.query_one(MemoryView)
        values = np.asarray(self._memory_values(self.session.main, self.memory))
        rows = max(2, (view.size.height or 10) - 2)
        return cells_per_row(values, self._storage(self.memory), self.fmt,
                             self.addresses.get(self.memory, 0), rows, view.size.width or 120,
                             self.session.layout.bases.get(self.memory, 0))

    # ---------------------------------------------------------------- moving
    def _move(self, touched: Touched) -> None:
        self._refresh(touched)

    def action_step(self, n: int) -> None:
        if self.session is not None:
            self._move(self.session.step(n))

    def action_run(self, forward: bool) -> None:
        if self.session is not None:
            self._move(self.session.run(self.breakpoints, forward, self.watches))
            self._said_watch()

    def _said_watch(self) -> None:
        w = self.session.last_watch
        if w is not None:
            step = self.session.main.previous()
            self.app.notify(f"{w.text} written by `{step.text}` (line {step.line})",
                            title="watchpoint", timeout=4)

    # ---------------------------------------------------------------- navigation
    def _ask(self, question: str, then, value: str = "") -> None:
        if self.session is not None:
            from .prompt import TextPrompt
            self.app.push_screen(TextPrompt(question, value), then)

    def _refuse(self, e: Exception) -> None:
        self.app.notify(str(e), severity="error", timeout=6)

    def action_goto(self) -> None:
        self._ask(f"Go to an instruction (0..{self.session.length if self.session else 0}) "
                  f"or a source line (L42):", self._goto)

    def _goto(self, answer: str | None) -> None:
        if not answer or self.session is None:
            return
        try:
            kind, n = parse_goto(answer)
        except NavigationError as e:
            return self._refuse(e)
        if kind == "line":
            target = goto_line(self.session.main, n)
            if target is None:
                return self._refuse(NavigationError(f"line {n} never runs in this trace"))
            n = target
        self._move(self.session.goto(n))

    def action_to_cursor(self) -> None:
        if self.session is None:
            return
        line = self.query_one(SourceView).cursor
        target = goto_line(self.session.main, line)
        if target is None:
            self.app.notify(f"line {line} never runs in this trace", severity="warning",
                            timeout=3)
            return
        self._move(self.session.goto(target))

    def action_watch(self) -> None:
        self._ask("Watch a register (gp3, STRIDE, MM_ACC), a memory range (vsram:64+16, "
                  "hbm:320..383) or a region; c stops after each write:", self._watch)

    def _watch(self, answer: str | None) -> None:
        if not answer or self.session is None:
            return
        try:
            self.watches.append(parse_watch(answer, self.session))
        except NavigationError as e:
            return self._refuse(e)
        self._refresh(self.session.main.touched)

    def action_clear_watches(self) -> None:
        self.watches = []
        if self.session is not None:
            self._refresh(self.session.main.touched)

    def action_find_value(self) -> None:
        self._ask(f"Find a value in {self.memory} (1.5, nan, inf, 0x3F80):", self._find,
                  self.found)

    def _find(self, answer: str | None) -> None:
        if answer:
            self.found = answer
            self.action_find_next()

    def action_find_next(self) -> None:
        if self.session is None or not self.found:
            return
        values = self._memory_values(self.session.main, self.memory)
        try:
            i = find_value(values, self._storage(self.memory), self.found,
                           self.addresses.get(self.memory, 0) + self._found_at, self.fmt)
        except NavigationError as e:
            return self._refuse(e)
        if i is None:
            self.app.notify(f"{self.found} is not in {self.memory} now", severity="warning",
                            timeout=3)
            return
        line = self._per_row() * cell_bytes(self._storage(self.memory), self.fmt)
        self.addresses[self.memory] = i - i % line
        self._found_at = i % line
        self._draw_memory()
        base = self.session.layout.bases.get(self.memory)
        where = f" 0x{base + i:X}" if base is not None else f"[{i}]"
        self.app.notify(f"{self.found} at {self.memory}{where}", timeout=2)

    _found_at = -1

    def action_goto_start(self) -> None:
        if self.session is not None:
            self._move(self.session.goto(0))

    def action_goto_end(self) -> None:
        if self.session is not None:
            self._move(self.session.goto(self.session.length))

    def action_cursor(self, delta: int) -> None:
        self.query_one(SourceView).move_cursor(delta)

    def action_toggle_breakpoint(self) -> None:
        line = self.query_one(SourceView).cursor
        if self.session is not None:
            lines = {i.line for i in self.session.program.instrs}
            if line not in lines:
                self.app.notify(f"line {line} holds no instruction; put the breakpoint on an "
                                f"instruction line", severity="warning", timeout=3)
                return
        self.breakpoints ^= {line}
        self.query_one(SourceView).show(self.session.current_line() if self.session else None,
                                        self.breakpoints)

    # ---------------------------------------------------------------- memory
    def action_memory(self, delta: int) -> None:
        if self.memory_names:
            i = self.memory_names.index(self.memory) if self.memory in self.memory_names else 0
            self.memory = self.memory_names[(i + delta) % len(self.memory_names)]
            self._draw_memory()

    def action_format(self) -> None:
        self.fmt = next_format(self.fmt)
        if self.session is not None:
            self._refresh(self.session.main.touched)
        self.app.notify(f"cells shown as {self.fmt} ({', '.join(FORMATS)})", timeout=2)

    def action_register_page(self, delta: int) -> None:
        if self.session is not None:
            self.register_page += delta
            self._draw_registers()

    def action_scroll_memory(self, pages: int) -> None:
        if self.session is None:
            return
        rows = max(2, (self.query_one(MemoryView).size.height or 10) - 2)
        size = np.asarray(self._memory_values(self.session.main, self.memory)).size
        step = cell_bytes(self._storage(self.memory), self.fmt)
        per_row = self._per_row()
        addr = self.addresses.get(self.memory, 0) + pages * rows * per_row * step
        self.addresses[self.memory] = max(0, min(addr, max(0, size - per_row * step)))
        self._draw_memory()

    def action_goto_address(self) -> None:
        if self.session is None:
            return
        regions = [r.name for r in self.session.layout.regions]
        from .prompt import TextPrompt
        self.app.push_screen(TextPrompt("Go to an address (decimal or 0x hex) or a region: "
                                        + ", ".join(regions)), self._goto_address)

    def _goto_address(self, answer: str | None) -> None:
        if not answer or self.session is None:
            return
        layout = self.session.layout
        region = next((r for r in layout.regions if r.name == answer), None)
        if region is not None:
            self.memory, index = region.memory, layout.span(region)[0]
        else:
            try:
                addr = int(answer, 0)
            except ValueError:
                names = ", ".join(r.name for r in layout.regions)
                self.app.notify(f"{answer!r} is neither an address (e.g. 320 or 0x140) nor a "
                                f"region ({names})", severity="error", timeout=6)
                return
            index = addr - layout.bases.get(self.memory, 0)     # byte memories: from their base
        size = np.asarray(self._memory_values(self.session.main, self.memory)).size
        if not 0 <= index < size:
            base = layout.bases.get(self.memory, 0)
            self.app.notify(f"address {answer} is outside {self.memory} "
                            f"({base:#x}..{base + size - 1:#x})" if base else
                            f"address {answer} is outside {self.memory} (0..{size - 1})",
                            severity="error", timeout=6)
            return
        step = cell_bytes(self._storage(self.memory), self.fmt)
        self.addresses[self.memory] = index - index % (self._per_row() * step)
        self._draw_memory()

    def action_back(self) -> None:
        if len(self.app.screen_stack) <= 2:     # opened by `kernelcraft debug`: nothing below
            self.app.exit()
        else:
            self.app.pop_screen()
