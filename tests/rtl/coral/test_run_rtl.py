"""The agent's run_rtl tool on the coral RTL (the small test configuration): a scripted
model, served through litellm, runs a scalar relu kernel on both backends; the final
scoring records that the kernel passed on the model and the RTL and that they agree."""
from kernelcraft.simulators.coral_rtl.randprog import TEST_CONFIG
from kernelcraft.workbench.agent.llm_agent import LLMAgent
from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
from kernelcraft.workbench.agent.scripted import ScriptedModel, call, reply
from kernelcraft.workbench.runs_cli import Progress
from kernelcraft.workbench.store import TraceStore

from .test_rtlcheck import scalar_relu


def test_scripted_agent_runs_a_scalar_kernel_on_the_rtl(tmp_path, cfg, rtl, capsys):
    script = [
        reply("A scalar kernel.", call("write_code", {"code": scalar_relu(cfg)}, "w1"),
              call("run_eval", {}, "e1"), call("run_rtl", {"version": 1}, "r1")),
        reply("Done.", call("submit", {"summary": "scalar relu"})),
    ]
    model = ScriptedModel(script, provider="scripted_coral_rtl")
    with TraceStore(tmp_path / "traces.db") as store:
        loop = AgentLoop(LLMAgent(model.model()),
                         RunSpec("coral", "relu", "C1", hw_overrides=dict(TEST_CONFIG), budget=3,
                                 final_seeds=2, rtl=True),
                         store, listener=Progress())
        result = loop.run()
        text = next(e.payload["content"] for e in store.events(result.run_id)
                    if e.type == "tool_result" and e.payload.get("call_id") == "r1")
    progress = capsys.readouterr().err
    assert "the backends agree: every memory, register and counter identical" in text
    assert result.status == "succeeded"
    assert "RTL ready" in progress
    assert "run_rtl ok kernel v1: backends: model pass" in progress
    assert "final backends: model pass" in progress and "the backends agree" in progress
