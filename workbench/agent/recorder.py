"""Writing a run's events to the trace store as they happen.

Payloads are made storable here: numpy values become Python numbers, NaN and
infinities (which JSON cannot hold) become the strings "nan", "inf", "-inf", and
strings that are not valid Unicode (lone surrogates a model may emit) have those
characters replaced. `jsonable` is also what a replay compares with, so a recorded
evaluation and a re-executed one are compared in the same form.
"""
from __future__ import annotations

import hashlib
import math
import sys
from typing import Any, Callable

from kernelcraft.workbench.store import Event, TraceStore

# Tool-call arguments up to this size are stored whole (a 1 MB kernel included, so a
# replay can send exactly the same call); beyond it, a prefix plus size and sha256.
MAX_STORED_ARGUMENTS = 4 * 1024 * 1024


def clean_text(s: str) -> str:
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "replace").decode("utf-8")


def jsonable(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    tolist = getattr(value, "tolist", None)       # numpy scalars and arrays
    if callable(tolist):
        return jsonable(tolist())
    return clean_text(str(value))


def stored_arguments(raw: str) -> dict:
    """How a tool call's raw argument text is kept in its event."""
    raw = clean_text(raw)
    size = len(raw.encode("utf-8"))
    if size <= MAX_STORED_ARGUMENTS:
        return {"arguments": raw, "arguments_bytes": size}
    return {"arguments": raw[:MAX_STORED_ARGUMENTS], "arguments_bytes": size,
            "arguments_truncated": True,
            "arguments_sha256": hashlib.sha256(raw.encode("utf-8")).hexdigest()}


class Recorder:
    """Appends events of one run; each is committed before `event` returns."""

    def __init__(self, store: TraceStore, run_id: int,
                 listener: Callable[[Event], None] | None = None):
        self.store, self.run_id, self.listener = store, run_id, listener

    def event(self, type: str, payload: Any = None, *, text: str | None = None,
              role: str | None = None, step: int | None = None, tokens_in: int = 0,
              tokens_out: int = 0, tokens_reasoning: int = 0, cost: float = 0.0,
              kernel_source: str | None = None) -> Event:
        ev = self.store.append(
            self.run_id, type, jsonable(payload), text=None if text is None else clean_text(text),
            role=role, step=step, tokens_in=tokens_in, tokens_out=tokens_out,
            tokens_reasoning=tokens_reasoning,
            cost=cost if math.isfinite(cost) and cost >= 0 else 0.0,
            kernel_source=None if kernel_source is None else clean_text(kernel_source))
        if self.listener is not None:
            try:
                self.listener(ev)
            except Exception as e:  # noqa: BLE001 -- a display fault must not end a run
                print(f"kernelcraft: progress display failed ({e.__class__.__name__}: {e}); "
                      f"the run goes on without it", file=sys.stderr)
                self.listener = None
        return ev


def record_evaluation(rec: Recorder, ev, step: int | None, **extra) -> Event:
    """An `evaluation` event for a workspace EvalRecord, carrying its kernel."""
    r = ev.result
    which = (f"kernel v{ev.kernel_version}" if ev.kernel_version is not None
             else "kernel by the agent's method")
    summary = f"{ev.tool} {ev.config} {which}: {r.get('status', '')} cycles {r.get('cycles', 0)}"
    return rec.event("evaluation", {"tool": ev.tool, "config": ev.config,
                                    "kernel_version": ev.kernel_version, "seeds": ev.seeds,
                                    "result": r, **extra},
                     text=summary, step=step, kernel_source=ev.source)
