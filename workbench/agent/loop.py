"""The agent loop: `run()` repeats `step()` = ask the agent for its next reply, run
the tool calls in it, and record everything in the trace store as it happens.

Whatever a model sends (malformed arguments, unknown tools, an oversized kernel, an
empty answer, a refusal) becomes a message back to it and the run goes on within
its iteration budget. The run ends when the agent calls `submit`, when the budget
is used up, or when the model cannot be reached; then the best correct kernel is
scored on held-out inputs and configurations (scoring.py) and the run is sealed.
"""
from __future__ import annotations

import json
import traceback
from dataclasses import dataclass, field
from typing import Callable, Protocol

from kernelcraft.tasks import LEVEL_BUDGET, get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.evaluation import DEFAULT_SEEDS
from kernelcraft.workbench.llm import LLMError, Reply, ToolCall
from kernelcraft.workbench.store import Event, TraceStore, TraceStoreError
from kernelcraft.workbench.tools import task_statement

from . import prompting, toolspec
from .recorder import Recorder, jsonable, record_evaluation, stored_arguments
from .rtl import RtlSession
from .scoring import final_scores
from .workspace import Outcome, SeedSource, Workspace

FINAL_SEEDS = 5
MAX_CALLS_PER_REPLY = 16     # more tool calls in one reply are answered, not run


@dataclass
class RunSpec:
    """What to run: accelerator, task, configuration, hardware and loop settings."""

    accel: str
    task: str
    config: str
    hw_overrides: dict = field(default_factory=dict)
    budget: int | None = None          # None: the task level's budget (LEVEL_BUDGET)
    manual: str = "full"               # "full": ISA manual in the prompt; "grep": grep_docs only
    n_seeds: int = DEFAULT_SEEDS       # fresh input sets per run_eval
    final_seeds: int = FINAL_SEEDS     # held-out input sets in the final scoring
    rtl: bool = False                  # offer run_rtl; the final scoring also runs the RTL

    def settings(self) -> dict:
        return {"hw": dict(self.hw_overrides), "budget": self.budget, "manual": self.manual,
                "n_seeds": self.n_seeds, "final_seeds": self.final_seeds, "rtl": self.rtl}


@dataclass
class Transfer:
    """A kernel for a held-out configuration made by the agent's own method."""

    source: str | None
    method: str                        # what produced it, or why there is none


class Agent(Protocol):
    name: str                          # recorded as the run's agent
    model: str | None                  # recorded as the run's model

    def settings(self) -> dict: ...

    def act(self, state: "LoopState") -> Reply: ...

    def transfer(self, config: str, hw) -> Transfer | None:
        """A kernel for held-out `config` by the agent's method, or None if the agent has
        no method beyond the kernel it wrote (then that kernel is tried as it is)."""


@dataclass
class LoopState:
    """What an agent sees: the conversation (for LLMs), the structured outcomes of its
    tool calls (for offline agents), and where it stands in its budget."""

    spec: RunSpec
    hw: object
    budget: int
    tools: list[dict]
    messages: list[dict] = field(default_factory=list)
    outcomes: list[list[Outcome]] = field(default_factory=list)   # per step
    step: int = 0
    note: Callable[[dict], None] = lambda payload: None            # record a note now

    @property
    def remaining(self) -> int:
        return self.budget - self.step

    @property
    def last_outcomes(self) -> list[Outcome]:
        return self.outcomes[-1] if self.outcomes else []


@dataclass
class RunResult:
    run_id: int
    status: str
    scores: dict


def history_arguments(call: ToolCall) -> str:
    """Arguments as they go back into the conversation: valid JSON for every provider,
    and never a huge refused kernel re-sent at every later query."""
    if not call.arguments.strip():
        return "{}"
    try:
        parsed = toolspec.decode(call.name, call.arguments)
    except toolspec.ToolError:   # malformed, too large, too deep: answered by the tool result
        return json.dumps({"_invalid_json": call.arguments[:200]})
    if not isinstance(parsed, dict):
        return json.dumps({"_invalid_json": call.arguments[:200]})
    code = parsed.get("code")
    if isinstance(code, str) and len(code.encode("utf-8", "replace")) > toolspec.MAX_KERNEL_BYTES:
        parsed["code"] = f"<{len(code.encode('utf-8', 'replace')):,} bytes, refused as too large>"
        return json.dumps(parsed)
    return call.arguments


def history_message(reply: Reply) -> dict:
    """The agent's reply as it goes back into the conversation. Providers reject an
    assistant message with neither text nor tool calls, so an empty reply or a bare
    refusal is written out."""
    msg = reply.assistant_message()
    if reply.tool_calls:
        msg["tool_calls"] = [{"id": c.id, "type": "function",
                              "function": {"name": toolspec.history_name(c.name),
                                           "arguments": history_arguments(c)}}
                             for c in reply.tool_calls]
    elif not reply.content.strip():
        msg["content"] = reply.refusal.strip() or "(empty reply)"
    return msg


class AgentLoop:
    def __init__(self, agent: Agent, spec: RunSpec, store: TraceStore, *,
                 seeds: SeedSource | None = None, listener: Callable[[Event], None] | None = None,
                 extra_settings: dict | None = None,
                 on_finish: Callable[["AgentLoop", dict], None] | None = None,
                 rtl_backend=None):
        self.agent, self.spec, self.store = agent, spec, store
        self.on_finish = on_finish
        self.accel = get_accel(spec.accel)
        self.task = get_task(spec.task)
        self.task.dims(spec.config)   # a clear error for an unknown configuration
        if spec.config not in self.task.visible_configs():
            raise ValueError(f"{spec.task}: {spec.config} is a held-out configuration, scored "
                             f"only at the end; run on one of {', '.join(self.task.visible_configs())}")
        if spec.manual not in ("full", "grep"):
            raise ValueError(f"manual must be 'full' or 'grep', not {spec.manual!r}")
        self.hw = self.accel.default_config(**spec.hw_overrides)
        self.budget = spec.budget or LEVEL_BUDGET[self.task.level]
        if self.budget < 1:
            raise ValueError(f"the iteration budget must be at least 1, got {self.budget}")
        # --rtl: checked now (an accelerator without RTL, a missing simulator), built when
        # the run starts (rtl.py says why).
        self.rtl = RtlSession(spec.accel, self.hw, rtl_backend) if spec.rtl else None
        self.ws = Workspace(spec.accel, spec.task, spec.config, self.hw, seeds, spec.n_seeds,
                            self.rtl)
        self.listener = listener
        self.extra_settings = extra_settings or {}
        self.state = LoopState(spec, self.hw, self.budget, toolspec.schemas(self.ws.tools))
        self.rec: Recorder | None = None
        self.submitted = False
        self.stop_reason = ""
        self.end_recorded: bool | None = None   # after a store error: was the end written?

    # ------------------------------------------------------------------ run
    def run(self) -> RunResult:
        run_id = self.store.start_run(
            self.spec.accel, self.spec.task, self.spec.config, agent=self.agent.name,
            model=self.agent.model,
            settings={**self.spec.settings(), "budget": self.budget,
                      "agent": self.agent.settings(), **self.extra_settings})
        self.rec = Recorder(self.store, run_id, self.listener)
        self.state.note = lambda payload: self.rec.event("note", payload,
                                                         step=self.state.step or None)
        try:
            error = self._iterate()
            scores = final_scores(self)
        except KeyboardInterrupt:
            self._end_interrupted(run_id)
            raise
        except TraceStoreError as e:
            self._end_store_error(run_id, e)
            raise
        except Exception as e:
            self.rec.event("error", {"where": "loop", "error": f"{type(e).__name__}: {e}",
                                     "traceback": traceback.format_exc()},
                           text=str(e), step=self.state.step or None)
            self.store.finish_run(run_id, "error", self._progress_scores("internal_error"))
            raise
        status = "error" if error else ("succeeded" if scores["correct"] else "failed")
        if error:
            scores["error"] = error
        if self.on_finish is not None:
            self.on_finish(self, scores)
        self.rec.event("note", {"kind": "final", "status": status, "scores": scores},
                       text=f"run {status}")
        self.store.finish_run(run_id, status, scores)
        return RunResult(run_id, status, scores)

    def _iterate(self) -> str | None:
        """Steps until submit or budget; returns why the model failed for good, if it did."""
        try:
            self._start()
            while not self.stop_reason:
                self.step()
        except LLMError as e:
            self.stop_reason = "model_error"
            self.rec.event("error", {"where": "model", "error": str(e)}, text=str(e),
                           step=self.state.step or None)
            return str(e)
        return None

    def _end_interrupted(self, run_id: int) -> None:
        """Record the interruption and end the run, as far as the store still lets us:
        the signal may have arrived inside a store write, and if ending fails here the
        store ends the run as interrupted when it closes (or a reader sees it dead)."""
        try:
            self.rec.event("error", {"where": "loop", "error": "interrupted (SIGINT/SIGTERM)"},
                           text="run interrupted", step=self.state.step or None)
            self.store.finish_run(run_id, "interrupted", self._progress_scores("interrupted"))
        except Exception:  # noqa: BLE001 -- best effort while being stopped
            pass

    def _end_store_error(self, run_id: int, error: TraceStoreError) -> None:
        """The store failed under the run (a full disk, a vanished folder): stop, and
        record why as far as the store still lets us. `end_recorded` says whether it
        did; if not, the run reads as interrupted once this process is gone."""
        self.end_recorded = False
        try:
            self.store.finish_run(run_id, "error", {**self._progress_scores("store_error"),
                                                    "error": str(error)})
            self.end_recorded = True
        except Exception:  # noqa: BLE001 -- the store is failing; the caller reports it
            pass

    def _progress_scores(self, stop: str) -> dict:
        best = self.ws.best
        return jsonable({"correct": False, "stop": stop, "steps": self.state.step,
                         "budget": self.budget, "best_run_eval_cycles": best.cycles if best else None})

    def _start(self) -> None:
        manual = self.accel.manual(self.hw)
        system = prompting.render(
            "system", accel=self.spec.accel, accel_title=self.accel.title,
            tools=[t for t in toolspec.TOOLS if t.name in self.ws.tools], budget=self.budget,
            manual_mode=self.spec.manual,
            manual=manual, manual_lines=len(manual.splitlines()),
            manual_sections=prompting.manual_sections(manual))
        user = prompting.render(
            "task", statement=task_statement(self.spec.accel, self.spec.task, self.spec.config,
                                             self.hw),
            hw_name=self.hw.name, hw_params=prompting.hw_params(self.hw),
            config=self.spec.config, budget=self.budget)
        for role, text in (("system", system), ("user", user)):
            self.rec.event("message", {"content": text}, text=text, role=role, step=0)
            self.state.messages.append({"role": role, "content": text})
        if self.rtl is not None:
            self._build_rtl()

    def _build_rtl(self) -> None:
        """Before the first step, so that no step pays for a cold build (see rtl.py)."""
        self.rec.event("note", {"kind": "rtl_build", "state": "started",
                                "simulator": self.rtl.backend.simulator},
                       text=f"building the {self.spec.accel} RTL for this configuration", step=0)
        built = self.rtl.prepare()
        if built["ok"]:
            self.rec.event("note", {**built, "state": "done"}, step=0,
                           text=f"RTL ready ({'from the cache' if built['cached'] else 'built'} "
                                f"in {built['seconds']} s)")
        else:    # the run goes on; run_rtl answers with the build's error lines
            self.rec.event("error", {**built, "state": "done", "where": "rtl_build"}, step=0,
                           text=f"RTL build failed: {built['error']}")

    # ------------------------------------------------------------------ step
    def step(self) -> None:
        st = self.state
        st.step += 1
        self.ws.step = st.step
        reply = self.agent.act(st)
        self._normalise_ids(reply)
        self._record_reply(reply)
        st.messages.append(history_message(reply))
        outcomes: list[Outcome] = []
        if not reply.tool_calls:
            self._say(self._no_tool_message(reply), kind="empty_reply" if self._empty(reply)
                      else "no_tool_call")
        for i, call in enumerate(reply.tool_calls):
            self.rec.event("tool_call", {"id": call.id, "name": call.name,
                                         **stored_arguments(call.arguments)},
                           text=f"{toolspec.clip_name(call.name)} {call.arguments[:2000]}",
                           role="assistant",
                           step=st.step)
            name = toolspec.clip_name(call.name)
            if self.submitted:
                out = Outcome(call.id, name, False,
                              prompting.render("skipped_call", after="submit"))
            elif i >= MAX_CALLS_PER_REPLY:
                out = Outcome(call.id, name, False, prompting.render(
                    "too_many_calls", limit=MAX_CALLS_PER_REPLY, calls=len(reply.tool_calls)))
            else:
                out = self._execute(call)
            outcomes.append(out)
            self._record_outcome(out)
            st.messages.append({"role": "tool", "tool_call_id": call.id, "content": out.text})
            self.submitted |= out.submitted
        st.outcomes.append(outcomes)
        if self.submitted:
            self.stop_reason = "submitted"
        elif st.step >= self.budget:
            self.stop_reason = "budget"
        elif reply.tool_calls:
            best = self.ws.best
            self._say(prompting.render(
                "budget_note", step=st.step, budget=self.budget, remaining=st.remaining,
                best={"version": best.kernel_version, "cycles": best.cycles} if best else None),
                kind="budget_note")

    def _say(self, text: str, kind: str) -> None:
        """A message from the workbench to the model (role user)."""
        self.rec.event("message", {"content": text, "kind": kind}, text=text, role="user",
                       step=self.state.step)
        self.state.messages.append({"role": "user", "content": text})

    @staticmethod
    def _empty(reply: Reply) -> bool:
        return not reply.content.strip() and not reply.refusal.strip()

    def _no_tool_message(self, reply: Reply) -> str:
        remaining = self.budget - self.state.step
        if self._empty(reply):
            return prompting.render("empty_reply", remaining=remaining, budget=self.budget)
        return prompting.render("no_tool_call", refusal=reply.refusal.strip()[:300],
                                remaining=remaining, budget=self.budget)

    def _normalise_ids(self, reply: Reply) -> None:
        """Every call needs a distinct id for its result to be matched to it."""
        seen = set()
        for i, c in enumerate(reply.tool_calls):
            if not c.id or c.id in seen:
                c.id = f"call_{self.state.step}_{i}"
            seen.add(c.id)

    def _record_reply(self, reply: Reply) -> None:
        step = self.state.step
        if reply.reasoning:
            self.rec.event("reasoning", {"content": reply.reasoning}, text=reply.reasoning,
                           role="assistant", step=step)
        payload = {"content": reply.content, "tool_calls": [{"id": c.id, "name": c.name}
                                                            for c in reply.tool_calls],
                   "finish_reason": reply.finish_reason, "refusal": reply.refusal,
                   "model": reply.model, "latency": round(reply.latency, 4),
                   "retries": reply.retries, "cost_known": reply.cost_known,
                   "extra": reply.extra}
        self.rec.event("message", payload, text=reply.content or reply.refusal, role="assistant",
                       step=step, tokens_in=reply.tokens_in, tokens_out=reply.tokens_out,
                       tokens_reasoning=reply.tokens_reasoning, cost=reply.cost)

    def _execute(self, call: ToolCall) -> Outcome:
        try:
            return self.ws.execute(call)
        except (KeyboardInterrupt, LLMError):
            raise
        except Exception as e:  # noqa: BLE001 -- a workbench fault, told to the model and recorded
            err = f"{type(e).__name__}: {e}"
            name = toolspec.clip_name(call.name)
            self.rec.event("error", {"where": "tool", "tool": name, "error": err,
                                     "traceback": traceback.format_exc()},
                           text=err, step=self.state.step)
            return Outcome(call.id, name, False,
                           prompting.render("internal_error", tool=name, error=err[:500]),
                           {"internal_error": err})

    def _record_outcome(self, out: Outcome) -> None:
        step = self.state.step
        if out.kernel is not None:
            self.rec.event("kernel", {"version": out.kernel.version, "call_id": out.call_id},
                           text=f"kernel version {out.kernel.version}", step=step,
                           kernel_source=out.kernel.source)
        if out.evaluation is not None:
            record_evaluation(self.rec, out.evaluation, step, call_id=out.call_id)
        if out.recheck is not None:
            record_evaluation(self.rec, out.recheck, step, call_id=out.call_id)
        self.rec.event("tool_result", {"call_id": out.call_id, "name": out.name, "ok": out.ok,
                                       "content": out.text, "data": out.data},
                       text=out.text, role="tool", step=step)

