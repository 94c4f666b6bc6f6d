"""A run's events grouped into the steps a person reads: the prompt (step 0), each
agent iteration (its reasoning, its reply, every tool call with the kernel and the
evaluation it produced and its result, the workbench's notes back), and the final
scoring. Built incrementally, so a live run is followed by adding the new events.

The event types and payloads are those the agent loop records
(workbench/agent/README.md, "Events a run records").
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kernelcraft.workbench.evaluation import shown_speedup
from kernelcraft.workbench.store import Event, Run

FINAL = -1          # Step.number of the final scoring (events recorded without a step)


@dataclass
class Exchange:
    """One tool call and what came of it."""

    call_id: str
    call: Event | None = None
    result: Event | None = None
    kernel: Event | None = None
    evaluation: Event | None = None

    @property
    def name(self) -> str:
        for ev in (self.call, self.result):
            if ev is not None and isinstance(ev.payload, dict) and ev.payload.get("name"):
                return str(ev.payload["name"])
        if self.evaluation is not None:
            return str(self.evaluation.payload.get("tool", "?"))
        return "?"

    @property
    def ok(self) -> bool | None:
        return None if self.result is None else bool(self.result.payload.get("ok"))


@dataclass
class Measure:
    """What an evaluation said about a kernel."""

    tool: str
    config: str
    kernel_version: int | None
    passed: bool
    status: str
    cycles: int
    baseline_cycles: int
    speedup: float
    frac_match: float
    seq: int
    impossible: bool = False      # fewer cycles than the analytic lower bound

    @classmethod
    def of(cls, ev: Event) -> "Measure":
        p = ev.payload
        r = p.get("result") or {}

        def num(key: str, kind=float):
            v = r.get(key)
            try:
                x = kind(v) if v is not None else kind(0)
            except (TypeError, ValueError):
                return kind(0)
            return x if kind is int or math.isfinite(x) else kind(0)
        passed = bool(r.get("passed", r.get("status") == "passed"))
        if "sets" not in r and "outputs" in r:        # view_output: one set, no status
            passed = all(o.get("passed") for o in r["outputs"].values())
        return cls(str(p.get("tool", "")), str(p.get("config", "")), p.get("kernel_version"),
                   passed, str(r.get("status", "passed" if passed else "failed")),
                   num("cycles", int), num("baseline_cycles", int), shown_speedup(r) or 0.0,
                   num("frac_match"), ev.seq, bool(r.get("impossible")))


@dataclass
class Step:
    number: int                                   # 0 = prompt, 1.. = iterations, FINAL
    events: list[Event] = field(default_factory=list)
    reasoning: list[Event] = field(default_factory=list)
    replies: list[Event] = field(default_factory=list)       # assistant messages
    messages: list[Event] = field(default_factory=list)      # system/user messages
    exchanges: dict[str, Exchange] = field(default_factory=dict)
    evaluations: list[Event] = field(default_factory=list)
    kernels: list[Event] = field(default_factory=list)
    notes: list[Event] = field(default_factory=list)
    errors: list[Event] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_reasoning: int = 0
    cost: float = 0.0

    @property
    def label(self) -> str:
        return "final" if self.number == FINAL else ("prompt" if self.number == 0
                                                     else f"step {self.number}")

    @property
    def first_seq(self) -> int:
        return self.events[0].seq if self.events else -1

    @property
    def last_seq(self) -> int:
        return self.events[-1].seq if self.events else -1

    @property
    def kernel(self) -> Event | None:
        """The last kernel version written in this step."""
        return self.kernels[-1] if self.kernels else None

    @property
    def measure(self) -> Measure | None:
        """The step's last run_eval (or, failing that, any evaluation)."""
        runs = [e for e in self.evaluations if e.payload.get("tool") == "run_eval"]
        chosen = runs or self.evaluations
        return Measure.of(chosen[-1]) if chosen else None

    @property
    def tools(self) -> list[str]:
        return [x.name for x in self.exchanges.values()]

    def add(self, ev: Event) -> None:
        self.events.append(ev)
        self.tokens_in += ev.tokens_in
        self.tokens_out += ev.tokens_out
        self.tokens_reasoning += ev.tokens_reasoning
        self.cost += ev.cost
        p = ev.payload if isinstance(ev.payload, dict) else {}
        t = ev.type
        if t == "reasoning":
            self.reasoning.append(ev)
        elif t == "message":
            (self.replies if ev.role == "assistant" else self.messages).append(ev)
        elif t == "tool_call":
            self._exchange(str(p.get("id", ""))).call = ev
        elif t == "tool_result":
            self._exchange(str(p.get("call_id", ""))).result = ev
        elif t == "kernel":
            self.kernels.append(ev)
            if p.get("call_id"):
                self._exchange(str(p["call_id"])).kernel = ev
        elif t == "evaluation":
            self.evaluations.append(ev)
            if p.get("call_id"):
                self._exchange(str(p["call_id"])).evaluation = ev
        elif t == "error":
            self.errors.append(ev)
        else:
            self.notes.append(ev)

    def _exchange(self, call_id: str) -> Exchange:
        if call_id not in self.exchanges:
            self.exchanges[call_id] = Exchange(call_id)
        return self.exchanges[call_id]


@dataclass(frozen=True)
class KernelRef:
    version: int
    hash: str
    step: int
    seq: int


class RunTrace:
    """A run and its events so far, as steps. `add` takes events in seq order (as
    `TraceStore.events(run_id, after_seq=...)` returns them) and says which steps
    changed."""

    def __init__(self, run: Run):
        self.run = run
        self.steps: list[Step] = []
        self._by_number: dict[int, Step] = {}
        self.kernels: list[KernelRef] = []
        self.last_seq = -1
        self.events = 0

    def update_run(self, run: Run) -> None:
        self.run = run

    @property
    def live(self) -> bool:
        return self.run.status == "running"

    def add(self, events: Iterable[Event]) -> list[int]:
        """Add new events; returns the indexes (in `steps`) of the steps they touched."""
        touched: list[int] = []
        for ev in events:
            if ev.seq <= self.last_seq:
                continue                     # already seen (a re-read after a reconnect)
            self.last_seq = ev.seq
            self.events += 1
            number = FINAL if ev.step is None else ev.step
            step = self._by_number.get(number)
            if step is None:
                step = Step(number)
                self._by_number[number] = step
                # the final scoring stays last; iterations arrive in order
                if self.steps and self.steps[-1].number == FINAL and number != FINAL:
                    self.steps.insert(len(self.steps) - 1, step)
                else:
                    self.steps.append(step)
            step.add(ev)
            if ev.type == "kernel" and ev.kernel_hash:
                version = ev.payload.get("version") if isinstance(ev.payload, dict) else None
                self.kernels.append(KernelRef(int(version or len(self.kernels) + 1),
                                              ev.kernel_hash, number, ev.seq))
            i = self.steps.index(step) if self.steps[-1] is not step else len(self.steps) - 1
            if i not in touched:
                touched.append(i)
        return touched

    def step_index(self, number: int) -> int | None:
        step = self._by_number.get(number)
        return None if step is None else self.steps.index(step)

    def index_of_seq(self, seq: int) -> int | None:
        """The step holding event `seq`."""
        for i, s in enumerate(self.steps):
            if s.events and s.first_seq <= seq <= s.last_seq:
                return i
        return None

    def previous_kernel(self, ref_seq: int) -> KernelRef | None:
        """The kernel version written before the one at event `ref_seq`."""
        before = [k for k in self.kernels if k.seq < ref_seq]
        return before[-1] if before else None

    def kernel_at(self, index: int) -> KernelRef | None:
        """The kernel current at the end of step `index`: the last one written so far."""
        if not self.steps:
            return None
        last = self.steps[min(index, len(self.steps) - 1)].last_seq
        upto = [k for k in self.kernels if k.seq <= last]
        return upto[-1] if upto else None

    def series(self) -> list[tuple[int, Measure]]:
        """(step number, measure) of every iteration that evaluated a kernel."""
        return [(s.number, m) for s in self.steps
                if s.number not in (0, FINAL) and (m := s.measure) is not None
                and m.tool == "run_eval"]

    def best(self) -> Measure | None:
        passed = [m for _, m in self.series() if m.passed and m.cycles]
        return min(passed, key=lambda m: m.cycles) if passed else None


def best_speedup(run: Run) -> float | None:
    """The best correct kernel's speed-up from a finished run's scores."""
    best = (run.scores or {}).get("best") or {}
    return shown_speedup(best)


def payload_text(payload: Any, key: str = "content") -> str:
    if isinstance(payload, dict):
        v = payload.get(key)
        return v if isinstance(v, str) else ""
    return ""
