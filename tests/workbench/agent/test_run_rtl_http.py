"""run_rtl over HTTP: litellm's OpenAI client talks to the scripted server on 127.0.0.1,
the model is offered run_rtl's schema, calls it (once broken, once right) and reads the
RTL's verdict in the conversation it sends next. Real Verilator, small configuration."""
import json

import pytest

from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG
from kernelcraft.simulators.rtl import toolchain
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.agent.llm_agent import LLMAgent
from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
from kernelcraft.workbench.llm import LiteLLMModel


try:
    toolchain.find_verilator()
except toolchain.ToolchainError as e:      # only where Verilator is truly absent
    pytestmark = pytest.mark.skip(reason=f"Verilator is absent: {e}")


def tool_call(id, name, arguments):
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_run_rtl_over_http(store, openai_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    accel = get_accel("plena")
    source = accel.baseline("relu", "C1", accel.default_config(**DIFF_CONFIG))
    server = openai_server([
        ("reply", {"role": "assistant", "content": "Kernel, then the hardware.", "tool_calls": [
            tool_call("c1", "write_code", json.dumps({"code": source})),
            tool_call("c2", "run_rtl", "{}"),
            tool_call("c3", "run_rtl", '{"version": 1}')]}),
        ("reply", {"role": "assistant", "content": "Done.",
                   "tool_calls": [tool_call("c4", "submit", "{}")]}),
    ], deadline=300)
    model = LiteLLMModel("openai/gpt-4o", api_base=server.url, timeout=30.0, backoff_base=0.01)
    loop = AgentLoop(LLMAgent(model), RunSpec("plena", "relu", "C1", hw_overrides=DIFF_CONFIG,
                                              budget=2, rtl=True), store)
    result = loop.run()
    assert server.errors == [] and server.script == []
    offered = [t["function"]["name"] for t in server.requests[0]["tools"]]
    assert "run_rtl" in offered
    answers = {m["tool_call_id"]: m["content"] for m in server.requests[1]["messages"]
               if m["role"] == "tool"}
    assert answers["c2"].startswith("error: run_rtl needs the argument 'version' (integer)")
    assert "RTL:              PASS against the reference" in answers["c3"]
    assert "the backends agree" in answers["c3"]
    # no kernel passed run_eval, so the final record has nothing scored on either backend
    assert result.scores["backends"]["rtl"]["status"] == "not_run"
    assert store.verify(result.run_id).ok
