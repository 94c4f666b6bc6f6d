"""A live run as plain text lines, for when there is no terminal to draw on (CI, a
pipe, a log file): what the workbench would show, one line per thing that happened,
printed as the run's writer records it. Ends when the run ends."""
from __future__ import annotations

import sys
import time
from typing import TextIO

from kernelcraft.workbench.store import Event, Run

from .model.follow import Follower
from .model.launch import Launched
from .model.runs import plural
from .model.source import StoreReader

POLL_SECONDS = 0.2
EXIT_CODES = {"succeeded": 0, "failed": 1, "error": 2, "interrupted": 130}


def _first_line(text: str, width: int = 150) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= width else line[:width - 3] + "..."


def event_lines(ev: Event) -> list[str]:
    """What a person needs to see of one event, as lines (possibly none)."""
    p = ev.payload if isinstance(ev.payload, dict) else {}
    if ev.type == "message" and ev.role == "assistant":
        text = p.get("content") or p.get("refusal") or "(no text)"
        return [f"step {ev.step}: {_first_line(text)}"]
    if ev.type == "reasoning":
        return [f"  (reasoning) {_first_line(p.get('content', ''), 120)}"]
    if ev.type == "tool_result":
        mark = "ok" if p.get("ok") else "refused"
        content = p.get("content") or ""
        lines = [f"  {p.get('name') or '?'} {mark}: {_first_line(content)}"]
        lines += [f"    {_first_line(line)}" for line in content.splitlines()[1:]
                  if line.startswith("cycles:")]
        return lines
    if ev.type == "evaluation" and ev.step is None:
        r = p.get("result") or {}
        return [f"  final {p.get('tool')} on {p.get('config')}: {r.get('status')}, "
                f"{r.get('cycles')} cycles"]
    if ev.type == "error":
        return [f"  error ({p.get('where')}): {_first_line(str(p.get('error', '')))}"]
    return []


def summary_lines(run: Run) -> list[str]:
    from kernelcraft.workbench.agent.transcript import score_lines
    head = (f"run {run.id} {run.status}: {run.accelerator}/{run.task}/{run.config}, "
            f"{run.agent}{' ' + run.model if run.model else ''}, {plural(run.steps, 'step')}")
    return [head] + [" " + line[1:] for line in score_lines(run.scores or {})]


def follow_plain(reader: StoreReader, run_id: int, out: TextIO = sys.stdout,
                 poll: float = POLL_SECONDS, timeout: float | None = None) -> int:
    """Print run `run_id` as it is written until it ends; exit status by how it ended
    (0 succeeded, 1 failed, 2 error, 130 interrupted)."""
    follower = Follower(reader, run_id)
    started = time.monotonic()
    first = True
    while True:
        p = follower.poll()
        if first:
            r = p.run
            print(f"following run {r.id} ({r.accelerator}/{r.task}/{r.config}, {r.agent}"
                  f"{' ' + r.model if r.model else ''}) in {reader.path}", file=out, flush=True)
            first = False
        for ev in p.events:
            for line in event_lines(ev):
                print(line, file=out, flush=True)
        if p.run.finished:
            for line in summary_lines(p.run):
                print(line, file=out, flush=True)
            return EXIT_CODES.get(p.run.status, 2)
        if timeout is not None and time.monotonic() - started > timeout:
            print(f"stopped following run {run_id} after {timeout:g}s; it is still "
                  f"{p.run.status}", file=out, flush=True)
            return 2
        time.sleep(poll)


def wait_for_run(reader: StoreReader, launched: Launched, out: TextIO = sys.stdout,
                 timeout: float = 60.0) -> int | None:
    """The run id of a just-launched process once it has recorded its run; None (with
    the reason printed) if the process stops first or nothing appears in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if reader.open():
            run_id = launched.find_run([row.run for row in reader.runs()])
            if run_id is not None:
                return run_id
        why = launched.failure()
        if why:
            print(f"kernelcraft: {why}", file=out, flush=True)
            return None
        time.sleep(POLL_SECONDS / 2)
    print(f"kernelcraft: {launched.request.describe()} recorded no run within {timeout:g}s; "
          f"see {launched.log}", file=out, flush=True)
    return None
