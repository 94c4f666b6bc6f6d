"""The final scoring as a determined agent would try to game it: an impossible kernel
is re-checked on fresh seeds before it can be best; seeds a caller fixes never score a
run; a kernel hard-wired to its configuration shows H1 as a failure, not a pass; and
`replay --rescore` (rescore.py) finds a kernel that only knew its recorded inputs."""
import itertools
import json
import struct

import pytest

from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import Bound, get_accel
from kernelcraft.workbench.agent.llm_agent import LLMAgent
from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
from kernelcraft.workbench.agent.scripted import ScriptedModel, call, reply
from kernelcraft.workbench.agent.workspace import RECHECK
from kernelcraft.workbench.cli import main


class CallerSeeds:
    """Seeds a harness operator fixes: 1, 2, 3, ... for every evaluation."""

    def __init__(self):
        self.n = itertools.count(1)

    def take(self, tool, config, n):
        return [next(self.n) for _ in range(n)]


def run_kernel(store, accel, task, config, source, provider, seeds=None):
    model = ScriptedModel([reply("write", call("write_code", {"code": source}),
                                 call("run_eval")),
                           reply("done", call("submit", {"summary": "x"}))], provider=provider)
    loop = AgentLoop(LLMAgent(model.model()), RunSpec(accel, task, config, budget=3), store,
                     seeds=seeds)
    return loop.run()


@pytest.fixture
def below_every_kernel(monkeypatch):
    """A lower bound no kernel can beat, so every kernel is flagged impossible."""
    def patch(accel_name):
        # on the instance (frozen: through its __dict__), not a property on the class: an
        # accelerator imported later (`show` loads them all) is built with its own bound
        monkeypatch.setitem(vars(get_accel(accel_name)), "lower_bound",
                            lambda task, config, hw: Bound(10 ** 9, "compute", "test bound"))
    return patch


def test_an_impossible_kernel_is_rechecked_before_it_is_best(store, relu_c1_source,
                                                             below_every_kernel, capsys):
    below_every_kernel("plena")
    result = run_kernel(store, "plena", "relu", "C1", relu_c1_source, "scoring1")
    events = store.events(result.run_id)
    evals = [e.payload for e in events if e.type == "evaluation"]
    assert [e["tool"] for e in evals][:2] == ["run_eval", RECHECK]
    assert evals[0]["seeds"] != evals[1]["seeds"] and len(evals[1]["seeds"]) == 5
    s = result.scores
    assert s["correct"] and s["flags"] == ["impossible"] and s["scored"]
    assert s["best"]["recheck"]["passed"] and s["best"]["speedup"] is None
    text = next(e.payload["content"] for e in events if e.type == "tool_result"
                and e.payload["name"] == "run_eval")
    assert "re-checked on fresh seeds and edge cases: PASS" in text
    assert main(["show", str(result.run_id), "--traces", str(store.path)]) == 0
    assert "FLAGGED IMPOSSIBLE" in capsys.readouterr().out
    assert main(["runs", "--traces", str(store.path)]) == 0
    assert "succeeded (impossible)" in capsys.readouterr().out


def _answer_table(layout, task, config, seeds) -> str:
    """A coral kernel that recognises each known input set by its first element and
    copies the stored answer: right on those seeds, wrong on any other."""
    x, y = layout.region("x"), layout.region("y")
    text = [f"li a0, {x.address}", "flw fa0, 0(a0)", f"li a1, {y.address}"]
    data = [".data"]
    for i, seed in enumerate(seeds):
        inputs = task.generate(config, seed)
        answer = task.reference(inputs, config)["y"].reshape(-1)
        text += [f"la t1, key{i}", "flw fa1, 0(t1)", "feq.s t0, fa0, fa1", f"bnez t0, copy{i}"]
        data += [f"key{i}: .word 0x{struct.unpack('<I', struct.pack('<f', inputs['x'].reshape(-1)[0]))[0]:08x}",
                 f"ans{i}:"] + [f".word 0x{struct.unpack('<I', struct.pack('<f', v))[0]:08x}"
                                for v in answer]
    text.append("ebreak")
    for i in range(len(seeds)):
        text += [f"copy{i}:", f"la a2, ans{i}", f"li a3, {y.size}",
                 f"1{i}: vsetvli t0, a3, e32, m8, ta, ma", "vle32.v v8, (a2)", "vse32.v v8, (a1)",
                 "slli t2, t0, 2", "add a2, a2, t2", "add a1, a1, t2", "sub a3, a3, t0",
                 f"bnez a3, 1{i}b", "ebreak"]
    return "\n".join(text + data) + "\n"


def test_an_answer_table_with_caller_seeds_never_scores(store, below_every_kernel,
                                                         monkeypatch, capsys):
    """The operator fixes seeds 1, 2, 3 and the kernel stores their answers: run_eval
    passes, the re-check on fresh seeds fails, so it never becomes best, and the run is
    marked not scored."""
    below_every_kernel("coral")
    task = get_task("relu")
    monkeypatch.setattr(type(task), "edge_cases", lambda self, *a, **k: [])   # seeds only
    layout = get_accel("coral").layout(task, "C1", get_accel("coral").default_config())
    source = _answer_table(layout, task, "C1", [1, 2, 3])
    result = run_kernel(store, "coral", "relu", "C1", source, "scoring2", seeds=CallerSeeds())
    evals = [e.payload for e in store.events(result.run_id) if e.type == "evaluation"]
    assert evals[0]["tool"] == "run_eval" and evals[0]["seeds"] == [1, 2, 3]
    assert evals[0]["result"]["passed"] and evals[0]["result"]["impossible"]
    assert evals[1]["tool"] == RECHECK and not evals[1]["result"]["passed"]
    assert not {1, 2, 3} & set(evals[1]["seeds"])
    s = result.scores
    assert result.status == "failed" and s["best"] is None and not s["correct"]
    assert s["scored"] is False and "caller chose the evaluation seeds" in s["not_scored"]
    assert main(["runs", "--traces", str(store.path)]) == 0
    assert "failed (not scored)" in capsys.readouterr().out


def test_caller_seeds_never_reach_the_final_scoring(store, relu_c1_source, capsys):
    result = run_kernel(store, "plena", "relu", "C1", relu_c1_source, "scoring3",
                        seeds=CallerSeeds())
    final = [e.payload for e in store.events(result.run_id)
             if e.type == "evaluation" and e.payload["tool"] == "final_seeds"]
    assert final and max(final[0]["seeds"]) > 100      # the workbench's, not 4, 5, ...
    assert result.status == "succeeded" and result.scores["scored"] is False
    assert main(["show", str(result.run_id), "--traces", str(store.path)]) == 0
    assert "NOT SCORED: the caller chose the evaluation seeds" in capsys.readouterr().out


def test_a_kernel_hard_wired_to_its_configuration_shows_h1_as_fail(store, capsys):
    accel = get_accel("plena")
    source = accel.baseline("relu", "C2", accel.default_config())
    result = run_kernel(store, "plena", "relu", "C2", source, "scoring4")
    h1 = result.scores["held_out_configs"]["H1"]
    assert result.status == "succeeded" and h1["verdict"] == "fail" and not h1["transferable"]
    assert main(["runs", "--traces", str(store.path)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "relu/C2" in line)
    cells = row.split("\t") if "\t" in row else [c.strip() for c in row.split("│")]
    assert "pass" in cells and "fail" in cells           # held-out seeds pass, H1 fail
    header = next(line for line in out.splitlines() if "held-out" in line)
    assert header.index("held-out") < header.index("H1")
    assert main(["show", str(result.run_id), "--traces", str(store.path)]) == 0
    assert "held-out configuration H1 (as_is, generality; not counted in success): FAIL" \
        in capsys.readouterr().out


def test_rescore_reports_an_answer_table_that_no_longer_passes(store, monkeypatch, capsys):
    task = get_task("relu")
    monkeypatch.setattr(type(task), "edge_cases", lambda self, *a, **k: [])   # seeds only
    coral = get_accel("coral")
    source = _answer_table(coral.layout(task, "C1", coral.default_config()), task, "C1", [1, 2, 3])
    result = run_kernel(store, "coral", "relu", "C1", source, "rescore1", seeds=CallerSeeds())
    recorded = [e.payload for e in store.events(result.run_id) if e.type == "evaluation"]
    assert recorded[0]["tool"] == "run_eval" and recorded[0]["result"]["passed"]
    assert main(["replay", str(result.run_id), "--rescore", "--traces", str(store.path),
                 "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (row,) = report["rows"]
    assert report["no_longer_pass"] == [1] and row["recorded"] == "pass" and not row["passed"]
    assert not {1, 2, 3} & set(row["seeds"]) and row["speedup"] is None
    assert main(["replay", str(result.run_id), "--rescore", "--traces", str(store.path)]) == 1
    assert "v1 (best): recorded pass, now failed" in capsys.readouterr().out


def test_rescore_of_an_honest_run_passes(store, relu_c1_source, capsys):
    result = run_kernel(store, "plena", "relu", "C1", relu_c1_source, "rescore2")
    assert main(["replay", str(result.run_id), "--rescore", "--traces", str(store.path)]) == 0
    out = capsys.readouterr().out
    assert "v1 (best): recorded pass, now passed" in out
    assert "0 version(s) that passed when recorded no longer pass" in out


def test_a_replay_reproduces_the_run_but_is_not_a_score(store, relu_c1_source, capsys):
    from kernelcraft.workbench.agent.replay import replay_run
    original = run_kernel(store, "plena", "relu", "C1", relu_c1_source, "scoring5")
    assert original.scores["scored"] is True
    replayed, report = replay_run(store, original.run_id)
    assert report["identical"] and replayed.scores["scored"] is False
    assert "replay re-uses the recorded seeds" in replayed.scores["not_scored"]
    assert main(["runs", "--traces", str(store.path)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "relu/C1" in line]
    assert len(rows) == 2 and sum("not scored" in row for row in rows) == 1
