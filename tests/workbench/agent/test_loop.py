"""The agent loop with a scripted model through litellm's custom-provider hook: bad
input from the model becomes tool errors, the run goes on within its budget, and
everything is recorded."""
import json

import pytest

from kernelcraft.workbench.agent.llm_agent import LLMAgent
from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
from kernelcraft.workbench.agent.scripted import ScriptedModel, call, reply
from kernelcraft.workbench.llm import ScriptedFailure


def run_script(store, script, budget=12, provider="looptest", **spec):
    model = ScriptedModel(script, provider=provider)
    loop = AgentLoop(LLMAgent(model.model()), RunSpec("plena", "relu", "C1", budget=budget, **spec),
                     store)
    result = loop.run()
    return result, store.events(result.run_id), model


def results_by_call(events):
    return {e.payload["call_id"]: e.payload for e in events if e.type == "tool_result"}


def test_malformed_replies_become_messages_and_the_run_goes_on(store, relu_c1_source):
    script = [
        reply("first try", call("write_code", '{"code": "S_ADDI_INT gp1, gp0,', id="bad_json")),
        reply("", call("compile_kernel", {"code": "x"}, id="unknown")),
        reply("", call("write_code", {"source": "x"}, id="wrong_arg")),
        reply("", call("write_code", {}, id="missing")),
        reply(""),                                                    # empty answer
        reply("I can't help with writing assembly."),                # no tool call
        reply("", call("run_eval", id="no_kernel")),
        reply("huge", call("write_code", {"code": "S_ADDI_INT gp1, gp0, 1\n" * 50_000}, id="huge")),
        reply("real one", call("write_code", {"code": relu_c1_source}, id="good"),
              call("check_syntax", id="syntax"), call("run_eval", id="eval"),
              reasoning="the template's kernel should pass"),
        reply("done", call("submit", {"summary": "baseline"}, id="sub"), call("run_eval", id="after")),
    ]
    result, events, model = run_script(store, script)
    assert result.status == "succeeded" and result.scores["stop"] == "submitted"
    assert result.scores["steps"] == 10 and result.scores["correct"]
    r = results_by_call(events)
    assert not r["bad_json"]["ok"] and "not valid JSON" in r["bad_json"]["content"]
    assert "unknown tool 'compile_kernel'" in r["unknown"]["content"]
    assert "unexpected argument(s) source" in r["wrong_arg"]["content"]
    assert "needs the argument 'code'" in r["missing"]["content"]
    assert "call write_code" in r["no_kernel"]["content"]
    assert "256 KB" in r["huge"]["content"] and not r["huge"]["ok"]
    assert r["good"]["ok"] and "OK:" in r["syntax"]["content"] and "PASS" in r["eval"]["content"]
    assert "ended the run" in r["after"]["content"] and not r["after"]["ok"]
    said = [e.payload.get("kind") for e in events if e.type == "message" and e.role == "user"]
    assert "empty_reply" in said and "no_tool_call" in said
    # every assistant message sent back has text or tool calls (providers reject neither)
    assert all(m.get("content") or m.get("tool_calls")
               for m in model.queries[-1] if m["role"] == "assistant")
    # one kernel version: refused kernels are not stored as versions
    assert [e.payload["version"] for e in events if e.type == "kernel"] == [1]
    assert any(e.type == "reasoning" and "template" in e.text for e in events)
    # the oversized kernel is stored once in its call event, never re-sent to the model
    assert max(len(json.dumps(q)) for q in model.queries[8:]) < 200_000
    huge_call = next(e for e in events if e.type == "tool_call" and e.payload["id"] == "huge")
    assert huge_call.payload["arguments_bytes"] > 1_000_000
    # every tool call of every query was answered, in order, in the next query
    for q in model.queries[1:]:
        asked = [c["id"] for m in q if m["role"] == "assistant" for c in m.get("tool_calls", [])]
        answered = [m["tool_call_id"] for m in q if m["role"] == "tool"]
        assert asked == answered
    run = store.run(result.run_id)
    assert run.tokens_in == 10 * 1000 and run.tokens_out == 10 * 200
    assert store.verify(result.run_id).ok


def test_budget_ends_the_run(store):
    script = [reply(f"look {i}", call("grep_docs", {"pattern": "loop"})) for i in range(10)]
    result, events, model = run_script(store, script, budget=3, provider="loopbudget")
    assert result.scores["stop"] == "budget" and result.scores["steps"] == 3
    assert result.status == "failed" and result.scores["best"] is None
    assert len(model.queries) == 3
    notes = [e.text for e in events if e.type == "message" and e.payload.get("kind") == "budget_note"]
    assert notes[0].startswith("[iteration 1 of 3 done; 2 left")
    assert "next reply is the last one" in notes[1] and len(notes) == 2


def test_a_failing_tool_is_reported_and_the_run_goes_on(store, monkeypatch):
    import workbench.tools
    monkeypatch.setattr(workbench.tools, "grep_docs",
                        lambda *a, **k: (_ for _ in ()).throw(RuntimeError("index gone")))
    script = [reply("", call("grep_docs", {"pattern": "x"}, id="g")), reply("", call("submit"))]
    result, events, _ = run_script(store, script, provider="looptoolfail")
    assert "not a fault in your call" in results_by_call(events)["g"]["content"]
    err = next(e for e in events if e.type == "error")
    assert err.payload["where"] == "tool" and "index gone" in err.payload["error"]
    assert result.scores["stop"] == "submitted"


def test_a_model_that_fails_for_good_ends_the_run_as_error(store, relu_c1_source):
    script = [reply("", call("write_code", {"code": relu_c1_source}), call("run_eval")),
              ScriptedFailure(401, "invalid api key")]
    result, events, _ = run_script(store, script, provider="loopfatal")
    assert result.status == "error" and "credentials" in result.scores["error"]
    assert result.scores["stop"] == "model_error"
    assert result.scores["best"]["passed"]          # what was found is still scored
    assert next(e for e in events if e.type == "error").payload["where"] == "model"
    assert store.verify(result.run_id).ok


def test_held_out_configuration_of_an_llm_kernel_is_not_transferable(store, relu_c1_source):
    script = [reply("", call("write_code", {"code": relu_c1_source}), call("run_eval")),
              reply("", call("submit"))]
    result, events, _ = run_script(store, script, provider="loopheld")
    held = result.scores["held_out_configs"]["H1"]
    assert held["method"] == "as_is" and held["transferable"] is False
    assert "not configuration-generic" in held["reason"]
    finals = [e.payload["tool"] for e in events if e.type == "evaluation" and e.step is None]
    assert finals == ["final_seeds", "final_config"]


def test_unknown_or_held_out_configuration_is_refused(store):
    from kernelcraft.workbench.agent.autotune import AutotuneAgent
    with pytest.raises(ValueError, match="held-out configuration"):
        AgentLoop(AutotuneAgent("plena", "relu"), RunSpec("plena", "relu", "H1"), store)
    with pytest.raises(KeyError, match="no configuration 'C9'"):
        AgentLoop(AutotuneAgent("plena", "relu"), RunSpec("plena", "relu", "C9"), store)


def test_tool_calls_beyond_the_per_reply_limit_are_answered_not_run(store):
    from kernelcraft.workbench.agent.loop import MAX_CALLS_PER_REPLY
    calls = [call("grep_docs", {"pattern": "loop"}, id=f"g{i}") for i in range(MAX_CALLS_PER_REPLY + 2)]
    result, events, _ = run_script(store, [reply("many", *calls)], budget=2, provider="loopmany")
    r = results_by_call(events)
    assert r[f"g{MAX_CALLS_PER_REPLY - 1}"]["ok"] and not r[f"g{MAX_CALLS_PER_REPLY}"]["ok"]
    assert f"at most {MAX_CALLS_PER_REPLY} tool calls" in r[f"g{MAX_CALLS_PER_REPLY + 1}"]["content"]


def test_non_finite_results_and_a_failing_display_do_not_stop_a_run(store):
    # A kernel that writes nothing leaves the NaN-poisoned outputs: errors are NaN/inf,
    # which JSON cannot hold; they are stored as strings.
    script = [reply("", call("write_code", {"code": "S_ADDI_INT gp1, gp0, 1\n"}),
                    call("run_eval"), call("view_output")), reply("", call("submit"))]
    model = ScriptedModel(script, provider="loopnan")
    shown = []

    def display(ev):
        shown.append(ev.seq)
        raise RuntimeError("terminal closed")

    result = AgentLoop(LLMAgent(model.model()), RunSpec("plena", "relu", "C1"), store,
                       listener=display).run()
    assert shown == [0] and result.scores["stop"] == "submitted"
    evals = [e for e in store.events(result.run_id) if e.type == "evaluation"]
    assert not evals[0].payload["result"]["passed"]
    assert "nan" in json.dumps(evals[1].payload) or "inf" in json.dumps(evals[1].payload)


def test_hostile_tool_calls_are_answered_and_the_run_goes_on(store, relu_c1_source):
    # Found by fuzzing: deep nesting and a 5,000-digit integer ended the run as error,
    # a 1 MB tool name was re-sent at every query, a backtracking regex hung the run.
    script = [
        reply("", call("grep_docs", "[" * 1000 + "]" * 1000, id="deep"),
              call("view_output", '{"max_rows": ' + "9" * 5000 + "}", id="bigint"),
              call("x" * 1_000_000, {}, id="bigname"),
              call("grep_docs", {"pattern": r"(\w+\s?)*$"}, id="redos"),
              call("write_code", {"code": relu_c1_source}, id="good")),
        reply("", call("run_eval", id="eval")),
    ]
    result, events, model = run_script(store, script, provider="hostile")
    assert result.status == "succeeded", result.scores
    r = results_by_call(events)
    assert "nest 1000 levels deep" in r["deep"]["content"]
    assert "5,000 digits" in r["bigint"]["content"]
    assert "1,000,000 characters" in r["bigname"]["content"] and len(r["bigname"]["content"]) < 500
    assert r["redos"]["ok"] and r["good"]["ok"] and "PASS" in r["eval"]["content"]
    assert max(len(json.dumps(q)) for q in model.queries) < 200_000
    # every call is answered in the next query, in order
    for q in model.queries[1:]:
        asked = [c["id"] for m in q if m["role"] == "assistant" for c in m.get("tool_calls", [])]
        assert asked == [m["tool_call_id"] for m in q if m["role"] == "tool"]
    # the call itself is recorded whole
    big = next(e for e in events if e.type == "tool_call" and e.payload["id"] == "bigname")
    assert len(big.payload["name"]) == 1_000_000
    # and the transcript of such a run prints (it raised RecursionError on the '[')
    from kernelcraft.workbench.agent.transcript import markdown
    text = markdown(store, result.run_id)
    assert "**-> " + "x" * 200 + "...**" in text and len(text) < 500_000


def test_the_model_is_shown_the_tasks_tolerance(store):
    """The task prompt states the bound the evaluator applies, with its numbers."""
    from kernelcraft.tasks import get_task
    _, _, model = run_script(store, [reply("done", call("submit", {"summary": "none"}))], budget=2)
    prompt = "\n".join(str(m.get("content")) for m in model.queries[0] if m["role"] in ("user", "system"))
    tol = get_task("relu").tolerance("C1", "y")
    assert "## Correctness" in prompt and tol.explain("y") in prompt
    assert f"rtol = 1u = {tol.rtol:.6g}" in prompt and "2^-16" in prompt
