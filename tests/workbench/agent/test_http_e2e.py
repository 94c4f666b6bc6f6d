"""End to end over HTTP: litellm's OpenAI client talks to a scripted OpenAI-compatible
server on 127.0.0.1. The script holds malformed replies, a 429 and a timeout; the run
retries the transient failures, answers every malformed call with a tool error, and
records everything, including tokens, reasoning and cost."""
import json

from kernelcraft.workbench.agent.llm_agent import LLMAgent
from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
from kernelcraft.workbench.llm import LiteLLMModel


def tool_call(id, name, arguments):
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def assistant(content=None, *calls, **extra):
    msg = {"role": "assistant", "content": content, **extra}
    if calls:
        msg["tool_calls"] = list(calls)
    return msg


def test_llm_run_over_http_with_malformed_replies_and_retries(store, openai_server, monkeypatch,
                                                              relu_c1_source):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    one_mb = json.dumps({"code": "S_ADDI_INT gp1, gp0, 1\n" * 46_000})
    script = [
        ("status", 429),
        ("reply", assistant(None, tool_call("c1", "write_code", '{"code": "S_ADDI_INT gp1,'),
                            reasoning_content="Start with a kernel.")),
        ("reply", assistant(None, tool_call("c2", "make_kernel", "{}"))),
        ("reply", assistant(None, tool_call("c3", "write_code", '{"kernel": "NOP"}'))),
        ("reply", assistant(None, tool_call("c3b", "write_code", "{}"))),
        ("reply", assistant("")),
        ("sleep", 2.0),                                  # the client times out and retries
        ("reply", assistant(None, refusal="I can't help with that.")),
        ("reply", assistant("Here is a big one.", tool_call("c4", "write_code", one_mb))),
        ("reply", assistant("The template kernel.",
                            tool_call("c5", "write_code", json.dumps({"code": relu_c1_source})),
                            tool_call("c6", "run_eval", ""))),
        ("reply", assistant("Done.", tool_call("c7", "submit", '{"summary": "baseline kernel"}'))),
    ]
    server = openai_server(script, deadline=120)
    model = LiteLLMModel("openai/gpt-4o", api_base=server.url, timeout=1.0, backoff_base=0.01,
                         max_retries=3)
    loop = AgentLoop(LLMAgent(model), RunSpec("plena", "relu", "C1", budget=11), store)
    result = loop.run()

    assert server.errors == [] and server.script == []
    assert len(server.requests) == 11                   # 9 replies + the 429 + the timeout
    assert result.status == "succeeded" and result.scores["stop"] == "submitted"
    events = store.events(result.run_id)
    results = {e.payload["call_id"]: e.payload for e in events if e.type == "tool_result"}
    assert "not valid JSON" in results["c1"]["content"]
    assert "unknown tool 'make_kernel'" in results["c2"]["content"]
    assert "unexpected argument(s) kernel" in results["c3"]["content"]
    assert "needs the argument 'code'" in results["c3b"]["content"]
    assert "at most 262,144 bytes" in results["c4"]["content"]
    assert "PASS" in results["c6"]["content"]
    kinds = [e.payload.get("kind") for e in events if e.type == "message" and e.role == "user"]
    assert "empty_reply" in kinds and "no_tool_call" in kinds
    refusal = next(e for e in events if e.type == "message" and e.payload.get("refusal"))
    assert refusal.payload["refusal"] == "I can't help with that."
    # retries: recorded as notes when they happened, and on the reply that followed
    retries = [e.payload for e in events if e.type == "note" and e.payload.get("kind") == "retry"]
    assert [r["status"] for r in retries] == [429, 408]
    # reasoning, usage and cost (gpt-4o is in litellm's local cost map)
    assert any(e.type == "reasoning" and e.text == "Start with a kernel." for e in events)
    run = store.run(result.run_id)
    assert (run.tokens_in, run.tokens_out, run.tokens_reasoning) == (9 * 1200, 9 * 300, 9 * 100)
    assert run.cost > 0
    # the malformed arguments went back to the server as valid JSON in the history
    last = server.requests[-1]["messages"]
    for m in last:
        for c in m.get("tool_calls") or []:
            json.loads(c["function"]["arguments"])
    assert max(len(json.dumps(r)) for r in server.requests[9:]) < 300_000
    assert store.verify(result.run_id).ok
