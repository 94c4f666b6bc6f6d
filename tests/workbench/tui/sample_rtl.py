"""A second small, fixed trace store: runs started with --rtl (kernelcraft run --rtl),
recorded by the real agent loop, with the RTL replaced by a stand-in so no Verilator
is needed (the sample store of sample.py stays as it is, and so do its snapshots).

- run 1: a scripted agent on plena/relu/C2 with --rtl: a wrong kernel (run_eval and
  run_rtl: both backends fail, and agree), the fixed kernel (run_eval passes, run_rtl:
  the model passes, the RTL does not, the backends DISAGREE), submit. The final
  scoring runs the scored kernel on both (final_rtl) and records the disagreement.
- run 2: --rtl, but the RTL build fails; the agent submits without a kernel.
- run 3: a run without --rtl (no RTL cell in the picker).

The stand-in reports the functional model's own verdict and cycles for the RTL,
except on the fixed kernel, where it has "a defect" at Vector SRAM word 5, found at
the kernel's first V_MAX_VF: the records have the shape tools.run_rtl gives them.
"""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from sample import FixedSeeds, SampleAgent, fake_clock, wrong_relu

from kernelcraft.workbench import tools
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.llm import Reply, ToolCall
from kernelcraft.workbench.store import TraceStore
from kernelcraft.workbench.tools import ToolResult

DEFECT = "C_LOOP_START gp14, 4"       # the line only the fixed kernel has (sample.wrong_relu)


class StandInRtl:
    """In place of workbench.agent.rtl.RtlSession: the same prepare() and run()."""

    build_ok = True

    def __init__(self, accel: str, hw, backend=None):
        self.accel, self.hw = accel, hw
        self.backend = SimpleNamespace(name="plena_rtl", simulator="verilator")
        self.build_error: str | None = None

    def prepare(self) -> dict:
        if not self.build_ok:
            self.build_error = ("verilator: %Error: plena_top.sv:88: VLEN 48 is not a power "
                                "of two")
            return {"kind": "rtl_build", "ok": False, "simulator": "verilator",
                    "error": self.build_error}
        return {"kind": "rtl_build", "ok": True, "simulator": "verilator", "cached": True,
                "seconds": 0.412, "key": "c0ffee0123456789abcd"}

    def run(self, task: str, config: str, source: str, seeds: list[int],
            edge_cases: bool = False) -> ToolResult:
        ev = tools.run_eval(self.accel, task, config, source, hw=self.hw, seeds=seeds).data
        model = {"status": "pass" if ev["passed"] else "fail", "cycles": ev["cycles"],
                 "frac_match": ev["frac_match"], "failed_sets": [], "error": "",
                 "wall_seconds": 0.01}
        rtl, divergence = dict(model), None
        if DEFECT in source:
            line_no, text = next((i, ln.split(";")[0].strip()) for i, ln in enumerate(source.splitlines(), 1)
                                 if ln.strip().startswith("V_MAX_VF"))
            rtl.update(status="fail", frac_match=0.9995,
                       failed_sets=[f"seed {seeds[0]}: Y: 99.95% match, max abs err 0.0078"])
            divergence = {
                "input_set": f"seed {seeds[0]}", "sets": len(seeds),
                "first": (f"retired instruction #9: pc 8 (line {line_no}) `{text}`, issued "
                          f"at cycle 41\n  vsram[5]: model 0x3F80 (1), RTL 0x3F81 (1.008)"),
                "differences": ["memory vsram[5]: model 0x3F80 (1), RTL 0x3F81 (1.008)",
                                "memory hbm[1029]: model 0x3F80 (1), RTL 0x3F81 (1.008)"]}
        _, max_cycles = tools.rtl_budget(self.accel, task, config, self.hw)
        passed = divergence is None and model["status"] == rtl["status"] == "pass"
        rec = {"status": "passed" if passed else "failed", "passed": passed,
               "cycles": rtl["cycles"], "backend": self.backend.name,
               "simulator": self.backend.simulator, "seeds": list(seeds),
               "edge_cases": edge_cases, "cycle_budget": max_cycles, "model": model,
               "rtl": rtl, "agree": divergence is None, "divergence": divergence}
        sets = [(f"seed {s}", None) for s in seeds]
        return ToolResult(tools._format_rtl(rec, sets, self.accel), rec)


class RtlAgent(SampleAgent):
    """A scripted agent that checks each kernel on the RTL after run_eval."""

    def __init__(self, good: str):
        bad = wrong_relu(good)

        def code(src: str) -> str:
            return json.dumps({"code": src})
        self.replies = {
            1: Reply(content="A first relu kernel; check it on both backends.",
                     tool_calls=[ToolCall("w1", "write_code", code(bad)),
                                 ToolCall("e1", "run_eval", "{}"),
                                 ToolCall("r1", "run_rtl", json.dumps({"version": 1}))],
                     tokens_in=1300, tokens_out=310, cost=0.0125, model=self.model),
            2: Reply(content="The row loop was short; fixed. Check it on the RTL.",
                     tool_calls=[ToolCall("w2", "write_code", code(good)),
                                 ToolCall("e2", "run_eval", "{}"),
                                 ToolCall("r2", "run_rtl", json.dumps({"version": 2}))],
                     tokens_in=1700, tokens_out=380, cost=0.0140, model=self.model),
            3: Reply(content="Passes the model; submitting.",
                     tool_calls=[ToolCall("s3", "submit", json.dumps({"summary": "fixed"}))],
                     tokens_in=1900, tokens_out=40, cost=0.0080, model=self.model),
        }


class GiveUpAgent(SampleAgent):
    def __init__(self):
        self.replies = {1: Reply(content="Nothing to check on the RTL; submitting.",
                                 tool_calls=[ToolCall("s1", "submit", "{}")],
                                 tokens_in=900, tokens_out=20, cost=0.0030, model=self.model)}


def build_rtl_sample(path: Path) -> Path:
    from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
    accel = get_accel("plena")
    good = accel.baseline("relu", "C2", accel.default_config())
    with fake_clock(), TraceStore(path) as store, \
            mock.patch("kernelcraft.workbench.agent.loop.RtlSession", StandInRtl):
        AgentLoop(RtlAgent(good), RunSpec("plena", "relu", "C2", budget=4, rtl=True),
                  store, seeds=FixedSeeds()).run()
        with mock.patch.object(StandInRtl, "build_ok", False):
            AgentLoop(GiveUpAgent(), RunSpec("plena", "relu", "C1", budget=2, rtl=True),
                      store, seeds=FixedSeeds()).run()
        AgentLoop(SampleAgent(good), RunSpec("plena", "relu", "C2", budget=6), store,
                  seeds=FixedSeeds()).run()
    return path
