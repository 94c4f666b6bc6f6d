"""One run: its steps as a timeline, the selected step's reasoning and messages, the
kernel at that step (highlighted, and diffed against the version before), the tool
feedback with the output error as a heat map, and cycles / speed-up over the steps.

A run still being written is followed live: a timer asks a worker thread for the
events after the last one seen, so the view is at most one poll behind and the
interface never waits on the store. Replay plays a finished run back at the pace
it was recorded. Re-executing a step's kernel and opening it in the debugger run in
workers too.
"""
from __future__ import annotations

import time
from pathlib import Path
from datetime import datetime

from textual.css.query import NoMatches
from textual import on, work
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, TabbedContent, TabPane

from ..keys import bindings
from ..messages import StepChosen, deliver
from ..model.backends import RTL_TOOLS
from ..model.debugger import InputChoice, input_of
from ..model.follow import Follower
from ..model.reexec import Reexecution, reexecute
from ..model.takeout import TakeoutError, diff_base, export_run, save_kernel
from ..model.trace import RunTrace
from ..widgets.run.conversation import Conversation, step_text
from ..widgets.run.feedback import FeedbackView
from ..widgets.run.header import RunHeader
from ..widgets.run.kernel import DiffView, KernelView
from ..widgets.run.plot import ProgressPlot
from ..widgets.run.timeline import StepTimeline

READ_CHUNK = 200             # events per read: a long run shows after its first chunk


def _ts(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class RunScreen(Screen):
    BINDINGS = bindings("run")

    def __init__(self, run_id: int, seq: int | None = None, launched: bool = False):
        super().__init__()
        self.run_id = run_id
        self.launched = launched      # started from this app: open at its latest step even if it already ended
        self.focus_seq = seq
        self.trace: RunTrace | None = None
        self.index: int | None = None
        self.reasoning = True
        self.expanded = False
        self.follow = True
        self.reexec: dict[int, Reexecution] = {}
        self.follower: Follower | None = None
        self.finished_reading = False
        self.replay: dict | None = None        # {"events", "pos", "t0", "clock", "speed", "paused"}
        self.updates = 0                        # times new events were applied (tests, bench)
        self.search = ""                        # text found with /, highlighted; n/N move
        self.diff_against = ""                  # "" (the version before), "3", "baseline"
        self._polling = False

    def compose(self):
        yield RunHeader(id="run-header")
        with Horizontal(id="run-body"):
            with Vertical(id="run-left"):
                yield StepTimeline(id="timeline")
                yield ProgressPlot(id="plot")
            with Vertical(id="run-right"):
                yield Conversation(id="conversation")
                with TabbedContent(id="run-tabs", initial="kernel"):
                    with TabPane("Kernel", id="kernel"):
                        yield KernelView(id="kernel-view")
                    with TabPane("Diff", id="diff"):
                        yield DiffView(id="diff-view")
                    with TabPane("Feedback", id="feedback"):
                        yield FeedbackView(id="feedback-view")
        # 80 columns: Debug, Runs, Quit and Help still fit (the palette is ctrl+p)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(RunHeader).update(f"opening run {self.run_id} ...")
        self.query_one(StepTimeline).focus()
        self.follower = Follower(self.app.reader, self.run_id, limit=READ_CHUNK)
        self._poll()
        self.set_interval(self.app.poll_seconds, self._tick)

    # ---------------------------------------------------------------- reading
    def _tick(self) -> None:
        if self.replay is not None:
            self._replay_tick()
        elif not self.finished_reading and not self._polling:
            self._poll()

    def _poll(self) -> None:
        # One read at a time: a thread cannot be cancelled, so a second one started
        # meanwhile would race the first for the same events.
        self._polling = True
        self._read()

    @work(thread=True, group="run-poll")
    def _read(self) -> None:
        reader = self.app.reader
        try:
            poll = self.follower.poll()
            for ev in poll.events:          # kernels are read here, never on the UI thread
                if ev.kernel_hash:
                    reader.kernel(ev.kernel_hash)
        except Exception as e:  # noqa: BLE001 -- shown, and the next poll tries again
            deliver(self, self._failed, e)
            return
        deliver(self, self._apply, poll)

    def _failed(self, e: Exception) -> None:
        self._polling = False
        msg = str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
        if msg != getattr(self, "_last_error", None):
            self._last_error = msg
            self.app.notify(msg, title=f"run {self.run_id}", severity="error", timeout=8)
        if self.trace is None:
            self.query_one(RunHeader).update(f"run {self.run_id}: {msg}")
            self.finished_reading = True

    def _apply(self, poll) -> None:
        self._polling = False
        first = self.trace is None
        if first:
            self.trace = RunTrace(poll.run)
        was_live = self.trace.live            # the last events of a run that just ended
        self.trace.update_run(poll.run)
        if self.replay is not None:             # a live run being replayed: keep both
            self.replay["full"].add(poll.events)
            self.replay["events"].extend(poll.events)
            self.finished_reading = poll.complete
            if poll.more:
                self._poll()
            return
        touched = self.trace.add(poll.events)
        self.finished_reading = poll.complete
        self.updates += 1
        try:
            timeline = self.query_one(StepTimeline)
        except NoMatches:                       # closed while this poll was in flight
            return
        timeline.set_steps(self.trace, touched)
        if first or self.index is None:
            start = (self.trace.index_of_seq(self.focus_seq) if self.focus_seq is not None
                     else None)
            if start is None:
                start = (len(self.trace.steps) - 1
                         if poll.run.status == "running" or self.launched else 0)
            self.select(max(0, start))
        elif touched and self.follow and (was_live or poll.run.status == "running"):
            self.select(len(self.trace.steps) - 1)
        elif self.index is not None and self.index in touched:
            self.select(self.index, keep_scroll=True)
        else:
            self._header()
        self.query_one(ProgressPlot).show(self.trace.series(), self._step_number())
        if poll.more:                 # the rest of a long run: read on without waiting
            self._poll()

    # ---------------------------------------------------------------- showing
    def _step_number(self) -> int | None:
        if self.trace is None or self.index is None or not self.trace.steps:
            return None
        return self.trace.steps[self.index].number

    def _mode(self) -> str:
        if self.replay is not None:
            r = self.replay
            state = "paused" if r["paused"] else "playing"
            return (f"REPLAY {state} {r['speed']:g}x  event {r['pos']}/{len(r['events'])}  "
                    f"t+{r['clock']:.1f}s")
        if self.trace is not None and self.trace.live:
            return "LIVE" + (" following" if self.follow else "")
        return ""

    def _header(self) -> None:
        if self.trace is not None:
            self.query_one(RunHeader).show(self.trace, self.index, self._mode())

    def select(self, index: int, keep_scroll: bool = False) -> None:
        trace = self.trace
        if trace is None or not trace.steps:
            self.index = None
            self._header()
            return
        index = max(0, min(index, len(trace.steps) - 1))
        moved = index != self.index
        self.index = index
        timeline = self.query_one(StepTimeline)
        if timeline.highlighted != index:
            timeline.highlighted = index
        step = trace.steps[index]
        self.query_one(Conversation).show(step, reasoning=self.reasoning, full=self.expanded,
                                          keep_scroll=keep_scroll and not moved,
                                          highlight=self.search)
        self._show_kernel(index)
        reexec = None
        if step.evaluations:
            reexec = self.reexec.get(step.evaluations[-1].seq)
        self.query_one(FeedbackView).show(step, reexec)
        self.query_one(ProgressPlot).show(trace.series(), step.number)
        self._header()

    def _source(self, hash: str) -> str | None:
        k = self.app.reader.cached_kernel(hash)
        return k.source if k is not None else None

    def _show_kernel(self, index: int) -> None:
        trace = self.trace
        ref = trace.kernel_at(index)
        accel = trace.run.accelerator
        kv, dv = self.query_one(KernelView), self.query_one(DiffView)
        shown = ((ref, self._source(ref.hash) is not None, self.diff_against)
                 if ref is not None else None)
        if ref is not None:
            written_here = ref.step == trace.steps[index].number
            where = "written at this step" if written_here else f"from step {ref.step}"
            title = f"kernel version {ref.version} ({where})  sha256 {ref.hash[:12]}"
        if shown == getattr(self, "_kernel_shown", False):
            if ref is not None:         # the same kernel: only where it was written from changes
                kv.set_title(title)
            return
        self._kernel_shown = shown
        if ref is None:
            kv.show(None, accel, "kernel")
            dv.show(None, None, "diff")
            return
        source = self._source(ref.hash)
        kv.show(source, accel, title)
        if self.diff_against:
            try:
                old, name = diff_base(trace, self.diff_against, self._source, self._baseline)
            except Exception as e:  # noqa: BLE001 -- a version not there, a baseline that fails
                self.app.notify(f"cannot compare: {e}", severity="error", timeout=6)
                self.diff_against = ""
                return self._show_kernel(index)
            dv.show(old, source, f"{name} → version {ref.version}  (V: compare with another)")
            return
        prev = trace.previous_kernel(ref.seq)
        old = self._source(prev.hash) if prev is not None else None
        dv.show(old, source, f"version {prev.version} → {ref.version}" if prev else
                f"version {ref.version}")

    def _baseline(self) -> str:
        from kernelcraft.workbench.accel import get_accel
        run = self.trace.run
        acc = get_accel(run.accelerator)
        return acc.baseline(run.task, run.config,
                            acc.default_config(**((run.settings or {}).get("hw") or {})))

    # ---------------------------------------------------------------- getting things out
    def _shown_kernel(self):
        """(source, version) of the kernel at the selected step, or None (said why)."""
        ref = self.trace.kernel_at(self.index) if self.trace and self.index is not None else None
        source = self._source(ref.hash) if ref is not None else None
        if source is None:
            self.app.notify("no kernel at this step", severity="warning", timeout=3)
            return None
        return source, ref.version

    def action_save_kernel(self) -> None:
        k = self._shown_kernel()
        if k is not None:
            try:
                path = save_kernel(k[0], self.run_id, k[1])
            except TakeoutError as e:
                return self.app.notify(str(e), severity="error")
            self.app.notify(f"kernel version {k[1]} written to {path}", timeout=5)

    def action_copy_kernel(self) -> None:
        k = self._shown_kernel()
        if k is not None:
            self.app.copy_to_clipboard(k[0])
            self.app.notify(f"kernel version {k[1]} copied ({k[0].count(chr(10)) + 1} lines; "
                            f"through the terminal's clipboard, OSC 52)", timeout=4)

    def action_edit_kernel(self) -> None:
        """A copy in $EDITOR (the store is never changed): to try an edit, save it and
        `kernelcraft eval` or `kernelcraft debug` it."""
        import os
        import subprocess
        import tempfile
        k = self._shown_kernel()
        if k is None:
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            return self.app.notify("set $EDITOR (or $VISUAL) to open kernels in an editor; "
                                   "s saves the kernel to a file instead", severity="warning")
        path = Path(tempfile.mkdtemp(prefix="kernelcraft-")) / f"run{self.run_id}-v{k[1]}.asm"
        path.write_text(k[0], encoding="utf-8")
        from textual.app import SuspendNotSupported
        try:
            with self.app.suspend():
                code = subprocess.call([*editor.split(), str(path)])
        except SuspendNotSupported:        # no terminal to hand over (headless)
            code = subprocess.call([*editor.split(), str(path)], stdin=subprocess.DEVNULL)
        self.app.notify(f"{editor} exited {code}; the copy is {path} (the run is unchanged)",
                        timeout=6)

    def action_export(self) -> None:
        from .prompt import TextPrompt
        self.app.push_screen(TextPrompt(f"Export run {self.run_id} here as md (Markdown "
                                        f"transcript) or jsonl (every event):", "md"),
                             self._export)

    def _export(self, fmt: str | None) -> None:
        if fmt:
            self._write_export(fmt)

    @work(thread=True, group="run-export")
    def _write_export(self, fmt: str) -> None:
        reader = self.app.reader
        try:
            if not reader.open():
                raise TakeoutError(reader.problem.message)
            path = export_run(reader.store, self.run_id, fmt)
        except Exception as e:  # noqa: BLE001 -- a bad format or an unwritable directory
            deliver(self, self.app.notify, f"export failed: {e}", severity="error", timeout=8)
            return
        deliver(self, self.app.notify, f"run {self.run_id} written to {path}", timeout=6)

    def action_compare(self) -> None:
        from .prompt import TextPrompt
        self.app.push_screen(TextPrompt("Diff the kernel shown against a version number or "
                                        "'baseline' (empty: the version before it):",
                                        self.diff_against), self._compare)

    def action_compare_runs(self) -> None:
        from .prompt import TextPrompt
        order = [r for r in self.app.run_order if r != self.run_id]
        self.app.push_screen(TextPrompt(f"Compare run {self.run_id} with run:",
                                        str(order[0]) if order else ""), self._compare_runs)

    def _compare_runs(self, other: str | None) -> None:
        if not other:
            return
        try:
            other_id = int(other.strip().lstrip("#"))
        except ValueError:
            self.app.notify(f"{other!r} is not a run number", severity="error", timeout=4)
            return
        from .compare import CompareScreen
        self.app.push_screen(CompareScreen(self.run_id, other_id))

    def _compare(self, against: str | None) -> None:
        self.diff_against = against or ""
        if self.index is not None:
            self._show_kernel(self.index)
            self.action_tab("diff")

    @on(StepChosen)
    def _chosen(self, event: StepChosen) -> None:
        # Only the person's moves count: a highlight that has changed since this
        # message was sent (the list rebuilt, a live step selected) is stale.
        if event.index != self.index and self.query_one(StepTimeline).highlighted == event.index:
            self.follow = False if self.trace is not None and event.index < len(
                self.trace.steps) - 1 else self.follow
            self.select(event.index)

    # ---------------------------------------------------------------- actions
    def action_next_step(self) -> None:
        if self.index is not None:
            self.follow = False
            self.select(self.index + 1)

    def action_previous_step(self) -> None:
        if self.index is not None:
            self.follow = False
            self.select(self.index - 1)

    def action_first_step(self) -> None:
        self.follow = False
        self.select(0)

    def action_last_step(self) -> None:
        if self.trace is not None:
            self.select(len(self.trace.steps) - 1)

    def _other_run(self, delta: int) -> None:
        order = list(getattr(self.app, "run_order", []) or [])
        if self.run_id not in order:
            self.app.notify("this run is not in the picker's list (filtered out?)",
                            severity="warning")
            return
        i = order.index(self.run_id) + delta
        if not 0 <= i < len(order):
            self.app.notify("no further run in the picker's order", timeout=2)
            return
        self.app.switch_screen(RunScreen(order[i]))

    def action_next_run(self) -> None:
        self._other_run(+1)

    def action_previous_run(self) -> None:
        self._other_run(-1)

    def action_toggle_reasoning(self) -> None:
        self.reasoning = not self.reasoning
        if self.index is not None:
            self.select(self.index, keep_scroll=True)
        self.app.notify(f"reasoning {'shown' if self.reasoning else 'hidden'}", timeout=2)

    def action_toggle_expand(self) -> None:
        self.expanded = not self.expanded
        if self.index is not None:
            self.select(self.index, keep_scroll=True)

    def action_page(self, pages: int) -> None:
        conv = self.query_one(Conversation)
        (conv.scroll_page_down if pages > 0 else conv.scroll_page_up)(animate=False)

    # ---------------------------------------------------------------- search
    def action_search(self) -> None:
        from .prompt import TextPrompt
        self.app.push_screen(TextPrompt("Find in this run's steps (n / N: next / previous "
                                        "match):", self.search), self._searched)

    def _searched(self, query: str | None) -> None:
        if query:
            self.search = query
            self.action_search_next(1, here=True)

    def action_search_next(self, direction: int, here: bool = False) -> None:
        """To the next (previous) step whose text holds the search, from this one on."""
        if not self.search or self.trace is None or not self.trace.steps:
            self.app.notify("nothing to find yet: / searches this run", timeout=3)
            return
        steps = self.trace.steps
        here_i = self.index or 0
        order = [(here_i + direction * k) % len(steps) for k in range(0 if here else 1,
                                                                       len(steps) + (0 if here else 1))]
        needle = self.search.lower()
        for i in dict.fromkeys(order):
            full = step_text(steps[i], reasoning=True, full=True).plain.lower()
            if needle in full:
                shown = step_text(steps[i], reasoning=self.reasoning, full=self.expanded).plain
                if needle not in shown.lower():     # only in a collapsed part: show it all
                    self.reasoning, self.expanded = True, True
                self.follow = False
                self.select(i)
                self.call_after_refresh(self.query_one(Conversation).scroll_to_text, self.search)
                self.app.notify(f"{self.search!r} in {steps[i].label}", timeout=2)
                return
        self.app.notify(f"{self.search!r} is not in this run", severity="warning", timeout=4)

    def action_scroll_down(self) -> None:
        self.query_one(Conversation).scroll_down(animate=False)

    def action_scroll_up(self) -> None:
        self.query_one(Conversation).scroll_up(animate=False)

    def action_tab(self, name: str) -> None:
        self.query_one(TabbedContent).active = name

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        if self.follow and self.trace is not None:
            self.select(len(self.trace.steps) - 1)
        self._header()

    def action_back(self) -> None:
        self.app.pop_screen()

    # ---------------------------------------------------------------- replay
    def action_replay(self) -> None:
        if self.trace is None:
            return
        if self.replay is not None:
            r = self.replay
            if r["pos"] >= len(r["events"]):
                self._end_replay()
                return
            r["paused"] = not r["paused"]
            self._header()
            return
        events = [ev for s in self.trace.steps for ev in s.events]
        events.sort(key=lambda e: e.seq)
        if not events:
            self.app.notify("nothing recorded to replay yet", severity="warning")
            return
        self.replay = {"events": events, "pos": 0, "t0": _ts(events[0].ts), "clock": 0.0,
                       "tick": time.monotonic(), "speed": 1.0, "paused": False,
                       "full": self.trace}
        self.trace = RunTrace(self.trace.run)
        self.query_one(StepTimeline).set_steps(self.trace)
        self.index = None
        self._replay_tick()

    def _replay_tick(self) -> None:
        r = self.replay
        if r is None:
            return
        now = time.monotonic()
        if not r["paused"]:
            r["clock"] += (now - r["tick"]) * r["speed"]
        r["tick"] = now
        new = []
        while r["pos"] < len(r["events"]) and (
                _ts(r["events"][r["pos"]].ts) - r["t0"] <= r["clock"] or not new and r["pos"] == 0):
            new.append(r["events"][r["pos"]])
            r["pos"] += 1
        if new:
            touched = self.trace.add(new)
            self.query_one(StepTimeline).set_steps(self.trace, touched)
            self.select(len(self.trace.steps) - 1)
        else:
            self._header()
        if r["pos"] >= len(r["events"]) and not r["paused"]:
            r["paused"] = True
            self.app.notify("replay finished; p returns to the recorded run", timeout=4)
            self._header()

    def _end_replay(self) -> None:
        full = self.replay["full"]
        self.replay = None
        self.trace = full
        self.query_one(StepTimeline).set_steps(self.trace)
        self.select(len(self.trace.steps) - 1)

    def action_faster(self) -> None:
        if self.replay is not None:
            self.replay["speed"] = min(64.0, self.replay["speed"] * 2)
            self._header()

    def action_slower(self) -> None:
        if self.replay is not None:
            self.replay["speed"] = max(0.25, self.replay["speed"] / 2)
            self._header()

    # ---------------------------------------------------------------- kernels
    def _current(self):
        if self.trace is None or self.index is None or not self.trace.steps:
            return None
        return self.trace.steps[self.index]

    def action_reexecute(self) -> None:
        step = self._current()
        if step is None:
            return
        if not step.evaluations:
            self.app.notify(f"{step.label} has no recorded evaluation to re-execute; d steps "
                            f"its kernel in the debugger", severity="warning")
            return
        # the last functional-model evaluation: run_rtl's RTL half is not re-run here
        model_evs = [e for e in step.evaluations if e.payload.get("tool") not in RTL_TOOLS]
        ev = (model_evs or step.evaluations)[-1]
        source = self._source(ev.kernel_hash) if ev.kernel_hash else None
        if source is None:
            self.app.notify(f"the kernel of seq {ev.seq} is not in the store", severity="error")
            return
        call = next((x.call for x in step.exchanges.values() if x.evaluation is ev), None)
        self.app.notify(f"re-executing {ev.payload.get('tool')} of {step.label} ...", timeout=3)
        self._reexecute(ev, source, call)

    @work(thread=True, exclusive=True, group="run-reexec")
    def _reexecute(self, ev, source: str, call) -> None:
        try:
            result = reexecute(self.trace.run, ev, source, call)
        except Exception as e:  # noqa: BLE001 -- a kernel or workbench fault, shown
            deliver(self, self.app.notify, f"re-execution failed: {e}",
                                      severity="error", timeout=8)
            return
        deliver(self, self._reexecuted, ev.seq, result)

    def _reexecuted(self, seq: int, result: Reexecution) -> None:
        self.reexec[seq] = result
        self.app.notify(result.summary(), severity="information" if result.identical
                        else "warning", timeout=6)
        if self.index is not None:
            self.select(self.index, keep_scroll=True)
            self.action_tab("feedback")

    def action_debug(self) -> None:
        step = self._current()
        if step is None:
            return
        ref = self.trace.kernel_at(self.index)
        source = self._source(ref.hash) if ref is not None else None
        if source is None:
            self.app.notify(f"no kernel has been written by {step.label}", severity="warning")
            return
        run = self.trace.run
        # the input set of this step's last evaluation on the run's own configuration:
        # the first set it failed on (a seed or an edge case), else its first seed
        choice = next((c for c in (input_of(e.payload) for e in reversed(step.evaluations)
                                   if e.payload.get("config") == run.config) if c), None)
        choice = choice or InputChoice()
        if choice.failed:
            self.app.notify(f"debugging the input set the evaluation failed on: {choice.label}",
                            timeout=4)
        from .debugger import DebuggerScreen
        self.app.push_screen(DebuggerScreen(
            run.accelerator, run.task, run.config, source, seed=choice.seed, edge=choice.edge,
            edge_seed=choice.edge_seed, hw_overrides=(run.settings or {}).get("hw") or {},
            title=f"run {run.id} kernel v{ref.version}"))
