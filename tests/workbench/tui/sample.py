"""A small, fixed trace store for the workbench tests: the same runs, events and times
every time, so pilot tests can assert what is shown and snapshots stay stable.

- run 1: an "LLM" (a scripted agent through the real loop) on relu C2: a wrong kernel
  that fails run_eval, view_output, a fixed kernel that passes, submit.
- run 2: the autotune agent on relu C1.
- run 3: a run whose writer stopped after its prompt (interrupted).

Timestamps come from a fake clock (one per event, 0.5 s apart) and evaluation seeds
are fixed; everything else is what the agent loop records.
"""
from __future__ import annotations

import itertools
import json
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from unittest import mock

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.llm import Reply, ToolCall
from kernelcraft.workbench.store import TraceStore

T0 = datetime(2026, 3, 1, 9, 0, 0, tzinfo=timezone.utc)


@contextmanager
def fake_clock(start: datetime = T0, step: float = 0.5):
    ticks = itertools.count()

    def now() -> str:
        t = start + timedelta(seconds=step * next(ticks))
        return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with mock.patch("kernelcraft.workbench.store.store._now", now):
        yield


class FixedSeeds:
    """The workbench's own seed source with its random draw made repeatable (100, 101,
    ...), so the sample's runs are scored runs and the same every time; passing fixed
    seeds to the loop instead would mark them not scored."""

    def __init__(self):
        from kernelcraft.workbench.agent.workspace import FreshSeeds
        self.seeds = FreshSeeds()
        self.n = itertools.count(100)

    @property
    def chosen_by(self) -> str:
        return self.seeds.chosen_by

    def take(self, tool: str, config: str, n: int) -> list[int]:
        with mock.patch("kernelcraft.workbench.agent.workspace.fresh_seeds",
                        lambda k: [next(self.n) for _ in range(k)]):
            return self.seeds.take(tool, config, n)


def wrong_relu(source: str) -> str:
    """The relu kernel with its row loop one row short: every fourth row is stored
    without the max(x, 0), so negative inputs come out wrong in those rows."""
    return source.replace("C_LOOP_START gp14, 4", "C_LOOP_START gp14, 3", 1)


class SampleAgent:
    """A deterministic stand-in for an LLM, driven through the real agent loop."""

    name = "llm"
    model = "scripted/sample-model"

    def __init__(self, good: str):
        bad = wrong_relu(good)
        assert bad != good
        self.replies = {
            1: Reply(content="Write a first relu kernel: one vector max per row.",
                     reasoning="ReLU is elementwise, so each Vector SRAM row needs one "
                               "V_MAX_VF against f0 = 0.\nRows move in blocks of four.",
                     tool_calls=[ToolCall("c1", "write_code", json.dumps({"code": bad})),
                                 ToolCall("c2", "run_eval", "{}")],
                     tokens_in=1200, tokens_out=300, tokens_reasoning=150, cost=0.0123,
                     model=self.model),
            2: Reply(content="Some rows are wrong; look at the output.",
                     reasoning="Every fourth row fails: the inner loop must be short.",
                     tool_calls=[ToolCall("c3", "view_output", json.dumps({"max_rows": 4}))],
                     tokens_in=1500, tokens_out=120, tokens_reasoning=80, cost=0.0101,
                     model=self.model),
            3: Reply(content="The row loop covered three rows of four; fix it.",
                     tool_calls=[ToolCall("c4", "write_code", json.dumps({"code": good})),
                                 ToolCall("c5", "check_syntax", "{}"),
                                 ToolCall("c6", "run_eval", "{}")],
                     tokens_in=1800, tokens_out=400, cost=0.0150, model=self.model),
            4: Reply(content="Correct now; submitting.",
                     tool_calls=[ToolCall("c7", "submit", json.dumps({"summary": "fixed"}))],
                     tokens_in=2000, tokens_out=50, cost=0.0090, model=self.model),
        }

    def settings(self) -> dict:
        return {"agent": "sample"}

    def act(self, state) -> Reply:
        return self.replies[state.step]

    def transfer(self, config, hw):
        return None


def build_sample(path: Path) -> Path:
    from kernelcraft.workbench.agent.autotune import AutotuneAgent
    from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
    accel = get_accel("plena")
    good = accel.baseline("relu", "C2", accel.default_config())
    with fake_clock(), TraceStore(path) as store:
        AgentLoop(SampleAgent(good), RunSpec("plena", "relu", "C2", budget=6), store,
                  seeds=FixedSeeds()).run()
        AgentLoop(AutotuneAgent("plena", "relu"), RunSpec("plena", "relu", "C1"), store,
                  seeds=FixedSeeds()).run()
        run = store.start_run("plena", "softmax", "C1", agent="llm", model="scripted/other",
                              settings={"budget": 15})
        store.append(run, "message", {"content": "You are an expert kernel engineer."},
                     role="system", step=0)
    return path
