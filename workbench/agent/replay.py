"""`replay RUN`: re-drive a recorded run from the trace store, with no network.

The replay agent sends, step by step, exactly the replies the original agent sent
(its text and its tool calls with their recorded arguments). The loop executes them
again, so every kernel is assembled and run again; every evaluation reuses the seeds
the recording used, in the same order, so a faithful workbench reproduces every
recorded evaluation bit for bit. The replay is itself recorded as a new run (agent
"replay", settings.replay_of = the original), and its report lists every evaluation
that differs from the recording, field by field.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from kernelcraft.workbench.evaluation import fresh_seeds
from kernelcraft.workbench.llm import Reply, ToolCall
from kernelcraft.workbench.store import Event, TraceStore

from .loop import AgentLoop, LoopState, RunSpec, Transfer
from .recorder import jsonable

# Fields of an evaluation that may differ between two faithful executions.
VOLATILE = {"wall_seconds"}
MAX_DIFFS_PER_EVALUATION = 12


@dataclass
class Recording:
    run: object
    replies: dict[int, Reply]
    evaluations: list[Event]
    truncated_calls: list[str] = field(default_factory=list)


def load_recording(store: TraceStore, run_id: int) -> Recording:
    run = store.run(run_id)
    replies: dict[int, Reply] = {}
    evaluations, truncated = [], []
    for ev in store.events(run_id):
        step = ev.step or 0
        if step and ev.role == "assistant" and ev.type in ("message", "reasoning", "tool_call"):
            reply = replies.setdefault(step, Reply())
            p = ev.payload
            if ev.type == "reasoning":
                reply.reasoning = p.get("content", "")
            elif ev.type == "message":
                reply.content, reply.refusal = p.get("content", ""), p.get("refusal", "")
                reply.finish_reason, reply.model = p.get("finish_reason", ""), p.get("model", "")
            else:
                reply.tool_calls.append(ToolCall(p.get("id", ""), p.get("name", ""),
                                                 p.get("arguments", "")))
                if p.get("arguments_truncated"):
                    truncated.append(f"step {step} {p.get('name')}: arguments of "
                                     f"{p.get('arguments_bytes')} bytes were stored truncated")
        elif ev.type == "evaluation":
            evaluations.append(ev)
    return Recording(run, replies, evaluations, truncated)


# Evaluations that reuse another's seeds rather than take their own (the final RTL check
# runs on the final_seeds input sets).
REUSED_SEEDS = {"final_rtl"}


class RecordedSeeds:
    """The seeds of the recorded evaluations, handed out in the recorded order."""

    chosen_by = "recording"

    def __init__(self, evaluations: list[Event]):
        self.queue = [(e.payload.get("tool"), e.payload.get("config"), e.payload.get("seeds"))
                      for e in evaluations if e.payload.get("tool") not in REUSED_SEEDS]
        self.next = 0
        self.unmatched: list[str] = []

    def take(self, tool: str, config: str, n: int) -> list[int]:
        if self.next < len(self.queue):
            r_tool, r_config, seeds = self.queue[self.next]
            if (r_tool, r_config) == (tool, config):
                self.next += 1
                return list(seeds)
            self.unmatched.append(f"evaluation {self.next}: replay asked for {tool} on {config} "
                                  f"where the recording has {r_tool} on {r_config}")
        else:
            self.unmatched.append(f"{tool} on {config}: beyond the {len(self.queue)} recorded "
                                  f"evaluations; fresh seeds used")
        return fresh_seeds(n)


def differences(recorded, replayed, path: str = "") -> list[str]:
    """Paths at which two jsonable values differ (volatile fields ignored)."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        out = []
        for k in sorted(set(recorded) | set(replayed), key=str):
            if k in VOLATILE:
                continue
            sub = f"{path}.{k}" if path else str(k)
            if k not in recorded or k not in replayed:
                out.append(f"{sub}: {'only in the replay' if k not in recorded else 'only in the recording'}")
            else:
                out += differences(recorded[k], replayed[k], sub)
        return out
    if isinstance(recorded, list) and isinstance(replayed, list):
        if len(recorded) != len(replayed):
            return [f"{path}: {len(recorded)} items recorded, {len(replayed)} replayed"]
        out = []
        for i, (a, b) in enumerate(zip(recorded, replayed)):
            out += differences(a, b, f"{path}[{i}]")
        return out
    if recorded != replayed or type(recorded) is not type(replayed):
        return [f"{path}: recorded {_short(recorded)}, replayed {_short(replayed)}"]
    return []


def _short(v) -> str:
    s = repr(v)
    return s if len(s) <= 80 else s[:77] + "..."


def _describe(ev: Event) -> str:
    p = ev.payload
    return (f"seq {ev.seq} step {ev.step if ev.step is not None else 'final'} {p.get('tool')} "
            f"on {p.get('config')}")


def compare(recorded: list[Event], replayed: list[Event]) -> dict:
    mismatches, missing, extra = [], [], []
    for i in range(max(len(recorded), len(replayed))):
        if i >= len(replayed):
            missing.append(_describe(recorded[i]))
            continue
        if i >= len(recorded):
            extra.append(_describe(replayed[i]))
            continue
        a, b = recorded[i], replayed[i]
        diffs = []
        if a.kernel_hash != b.kernel_hash:
            diffs.append(f"kernel: recorded {str(a.kernel_hash)[:12]}, replayed {str(b.kernel_hash)[:12]}")
        pa = {k: v for k, v in a.payload.items() if k != "call_id"}
        pb = {k: v for k, v in jsonable(b.payload).items() if k != "call_id"}
        diffs += differences(pa, pb)
        if diffs:
            mismatches.append({"recorded": _describe(a), "replayed": _describe(b),
                               "differences": diffs[:MAX_DIFFS_PER_EVALUATION],
                               "more": max(0, len(diffs) - MAX_DIFFS_PER_EVALUATION)})
    return {"compared": min(len(recorded), len(replayed)), "identical": not mismatches and not missing,
            "mismatches": mismatches, "missing": missing, "extra": extra}


class ReplayAgent:
    name = "replay"
    model = None

    def __init__(self, store: TraceStore, recording: Recording):
        self.store, self.rec = store, recording

    def settings(self) -> dict:
        r = self.rec.run
        return {"agent": "replay", "replay_of": r.id, "original_agent": r.agent,
                "original_model": r.model}

    def act(self, state: LoopState) -> Reply:
        recorded = self.rec.replies.get(state.step)
        if recorded is None:
            return Reply(model="replay")      # the recording has no reply here: say nothing
        reply = copy.deepcopy(recorded)
        reply.model = f"replay of run {self.rec.run.id}"
        return reply

    def transfer(self, config: str, hw) -> Transfer | None:
        """The held-out kernel the original agent's method produced, as recorded."""
        for ev in self.rec.evaluations:
            p = ev.payload
            if p.get("tool") == "final_config" and p.get("config") == config:
                if p.get("method") == "agent":
                    return Transfer(self.store.kernel(ev.kernel_hash).source, p.get("how", ""))
                return None
        held = ((self.rec.run.scores or {}).get("held_out_configs") or {}).get(config) or {}
        if held.get("method") == "agent":
            return Transfer(None, held.get("reason", "no kernel recorded"))
        return None


def replay_run(store: TraceStore, run_id: int, listener=None) -> tuple[object, dict]:
    """Replay run `run_id`; returns (RunResult of the replay, comparison report)."""
    recording = load_recording(store, run_id)
    run = recording.run
    s = run.settings
    steps = max(recording.replies, default=0)
    if steps == 0:
        raise ValueError(f"run {run_id} recorded no agent step; there is nothing to replay")
    spec = RunSpec(run.accelerator, run.task, run.config, hw_overrides=s.get("hw") or {},
                   budget=steps, manual=s.get("manual", "full"),
                   n_seeds=s.get("n_seeds", 3), final_seeds=s.get("final_seeds", 5),
                   rtl=bool(s.get("rtl")))
    seeds = RecordedSeeds(recording.evaluations)
    report: dict = {}

    def finish(loop: AgentLoop, scores: dict) -> None:
        replayed = [e for e in store.events(loop.rec.run_id) if e.type == "evaluation"]
        report.update(compare(recording.evaluations, replayed))
        report["original"] = run_id
        report["seed_mismatches"] = seeds.unmatched
        report["truncated_calls"] = recording.truncated_calls
        loop.rec.event("note", {"kind": "replay_report", **report},
                       text=f"replay of run {run_id}: "
                            f"{'identical' if report['identical'] else 'differs'}")
        scores["replay"] = {"original": run_id, "compared": report["compared"],
                            "identical": report["identical"],
                            "mismatches": len(report["mismatches"]),
                            "missing": len(report["missing"])}

    loop = AgentLoop(ReplayAgent(store, recording), spec, store, seeds=seeds,
                     listener=listener, on_finish=finish)
    result = loop.run()
    return result, report
