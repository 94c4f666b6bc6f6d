"""Replay re-executes every recorded kernel with the recorded seeds, offline, and
reproduces every recorded evaluation exactly -- or says which field differs."""
from kernelcraft.workbench.agent.autotune import AutotuneAgent
from kernelcraft.workbench.agent.llm_agent import LLMAgent
from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
from kernelcraft.workbench.agent.replay import differences, replay_run
from kernelcraft.workbench.agent.scripted import ScriptedModel, call, reply


def evaluations(store, run_id):
    return [e for e in store.events(run_id) if e.type == "evaluation"]


def test_replay_of_an_autotune_run_is_exact(store):
    original = AgentLoop(AutotuneAgent("plena", "relu"), RunSpec("plena", "relu", "C2"), store).run()
    result, report = replay_run(store, original.run_id)
    recorded = evaluations(store, original.run_id)
    replayed = evaluations(store, result.run_id)
    assert len(recorded) >= 4 and report["compared"] == len(recorded) == len(replayed)
    assert report["identical"] and not report["mismatches"] and not report["missing"]
    assert [e.payload["seeds"] for e in recorded] == [e.payload["seeds"] for e in replayed]
    assert [e.kernel_hash for e in recorded] == [e.kernel_hash for e in replayed]
    run = store.run(result.run_id)
    assert run.agent == "replay" and run.settings["agent"]["replay_of"] == original.run_id
    assert run.scores["replay"]["identical"] and run.scores["best"] == original.scores["best"]
    assert store.verify(result.run_id).ok


def test_replay_of_an_llm_run_with_refused_calls_and_view_output(store, relu_c1_source):
    broken = relu_c1_source.replace("V_MAX_VF", "V_ADD_VF", 1)
    script = [reply("", call("write_code", '{"code": "x'), call("run_eval")),
              reply("", call("write_code", {"code": broken}), call("run_eval"),
                    call("view_output", {"max_rows": 3})),
              reply("", call("write_code", {"code": relu_c1_source}), call("run_eval")),
              reply("", call("submit"))]
    model = ScriptedModel(script, provider="replayllm")
    original = AgentLoop(LLMAgent(model.model()), RunSpec("plena", "relu", "C1"), store).run()
    tools = [e.payload["tool"] for e in evaluations(store, original.run_id)]
    assert tools == ["run_eval", "view_output", "run_eval", "final_seeds", "final_config"]
    assert not evaluations(store, original.run_id)[0].payload["result"]["passed"]
    queries = len(model.queries)
    result, report = replay_run(store, original.run_id)
    assert len(model.queries) == queries              # the model is not asked again
    assert report["identical"] and report["compared"] == 5
    a = [(e.type, e.payload.get("name")) for e in store.events(original.run_id) if e.step]
    b = [(e.type, e.payload.get("name")) for e in store.events(result.run_id) if e.step]
    assert a == b                                      # the same steps, calls and results


def test_replay_reports_an_evaluation_that_differs(store, monkeypatch):
    original = AgentLoop(AutotuneAgent("plena", "relu"), RunSpec("plena", "relu", "C2"), store).run()
    import kernelcraft.workbench.tools as tools
    real = tools.run_eval

    def one_cycle_slower(*args, **kwargs):      # as if the timing model had changed
        r = real(*args, **kwargs)
        r.data["cycles"] += 1
        return r

    monkeypatch.setattr(tools, "run_eval", one_cycle_slower)
    result, report = replay_run(store, original.run_id)
    assert not report["identical"]
    runs = [e for e in evaluations(store, original.run_id) if e.payload["tool"] == "run_eval"]
    assert len(report["mismatches"]) == len(runs) >= 3
    first = report["mismatches"][0]
    assert first["recorded"].endswith("run_eval on C2")
    assert any(d.startswith("result.cycles: recorded") for d in first["differences"])
    assert store.run(result.run_id).scores["replay"]["mismatches"] == len(runs)


def test_differences_walks_nested_values():
    a = {"x": [1, {"y": 2.5, "wall_seconds": 1}], "z": "s"}
    b = {"x": [1, {"y": 2.0, "wall_seconds": 9}], "w": 1, "z": "s"}
    assert differences(a, b) == ["w: only in the replay", "x[1].y: recorded 2.5, replayed 2.0"]
    assert differences([1, 2], [1]) == [": 2 items recorded, 1 replayed"]
    assert differences(1, 1.0) == [": recorded 1, replayed 1.0"]
