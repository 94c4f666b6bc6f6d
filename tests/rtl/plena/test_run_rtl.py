"""The agent's run_rtl tool on the real plena RTL (Verilator, the small differential
configuration): a scripted model, served through litellm, calls run_rtl on a correct
and on a wrong kernel; the final scoring records which backends the kernel passed, and
everything reads back from the SQLite file and through `kernelcraft show`."""
import json

import numpy as np
import pytest

from kernelcraft.simulators.plena_rtl.backend import PlenaRTL
from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG
from kernelcraft.simulators.rtl import toolchain
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.agent.llm_agent import LLMAgent
from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
from kernelcraft.workbench.agent.scripted import ScriptedModel, call, reply
from kernelcraft.workbench.cli import main
from kernelcraft.workbench.runs_cli import Progress
from kernelcraft.workbench.store import TraceStore


try:
    toolchain.find_verilator()
except toolchain.ToolchainError as e:      # only where Verilator is truly absent
    pytestmark = pytest.mark.skip(reason=f"Verilator is absent: {e}")

HW = {k: v for k, v in DIFF_CONFIG.items()}
MAX_LINE = "V_MAX_VF gp4, gp4, f0, 0"


@pytest.fixture(scope="module")
def kernels(diff_cfg):
    good = get_accel("plena").baseline("relu", "C1", diff_cfg)
    assert MAX_LINE in good
    # Without the max the kernel copies its input: wrong on every backend alike.
    return good, good.replace(MAX_LINE, "S_ADDI_INT gp0, gp0, 0")


def rtl_run(store, script, budget, rtl_backend=None, listener=None):
    model = ScriptedModel(script, provider="scripted_rtl")
    loop = AgentLoop(LLMAgent(model.model()),
                     RunSpec("plena", "relu", "C1", hw_overrides=HW, budget=budget,
                             final_seeds=2, rtl=True),
                     store, rtl_backend=rtl_backend, listener=listener)
    return loop.run(), model


def results(store, run_id) -> dict:
    return {e.payload["call_id"]: e.payload for e in store.events(run_id) if e.type == "tool_result"}


def test_scripted_agent_runs_rtl_on_a_correct_and_a_wrong_kernel(tmp_path, kernels, capsys):
    good, wrong = kernels
    db = tmp_path / "traces.db"
    script = [
        reply("A first kernel.", call("write_code", {"code": good}, "w1"), call("run_eval", {}, "e1")),
        reply("Try a shortcut.", call("write_code", {"code": wrong}, "w2"),
              call("run_rtl", {"version": 2}, "r2"), call("run_rtl", {"version": 1}, "r1")),
        reply("Oops.", call("run_rtl", {}, "bad"), call("run_rtl", {"version": 7}, "far"),
              call("run_rtl", '{"version": "one"}', "typed")),
        reply("Done.", call("submit", {"summary": "the template kernel"})),
    ]
    with TraceStore(db) as store:
        result, model = rtl_run(store, script, budget=4, listener=Progress())
        run_id = result.run_id
        # the model was offered run_rtl, with its schema, from the first query on
        first_tools = [m for m in model.queries[0] if m["role"] == "system"][0]["content"]
        assert "`run_rtl`" in first_tools

    assert result.status == "succeeded"
    progress = capsys.readouterr().err
    assert "RTL ready (from the cache in" in progress or "RTL ready (built in" in progress
    assert "run_rtl ok kernel v2: backends: model fail" in progress
    assert "run_rtl refused error: run_rtl needs the argument 'version'" in progress
    assert "final backends: model pass" in progress and "the backends agree" in progress
    # Read everything back from the file, in a fresh read-only store.
    with TraceStore(db, readonly=True) as store:
        res = results(store, run_id)
        wrong_text, good_text = res["r2"]["content"], res["r1"]["content"]
        assert "functional model: FAIL against the reference" in wrong_text
        assert "RTL:              FAIL against the reference" in wrong_text
        assert "the backends agree" in wrong_text
        assert "functional model: PASS against the reference" in good_text
        assert "RTL:              PASS against the reference" in good_text
        cycles = res["r1"]["data"]["rtl_cycles"]
        assert cycles > 0 and res["r1"]["data"]["model_cycles"] == cycles
        assert f"{cycles:,} cycles" in good_text
        # broken calls: clear tool errors, the run went on
        assert not res["bad"]["ok"] and "run_rtl needs the argument 'version' (integer)" in res["bad"]["content"]
        assert "there is no kernel version 7; the versions are 1 to 2" in res["far"]["content"]
        assert "argument 'version' must be an integer, got 'one'" in res["typed"]["content"]

        events = store.events(run_id)
        builds = [e.payload for e in events if e.type == "note" and e.payload.get("kind") == "rtl_build"]
        assert [b["state"] for b in builds] == ["started", "done"] and builds[1]["ok"]
        assert all(e.step == 0 for e in events if e.type == "note" and e.payload.get("kind") == "rtl_build")
        evals = {e.payload["tool"]: e.payload for e in events if e.type == "evaluation"}
        assert evals["run_rtl"]["result"]["rtl"]["status"] == "pass"     # the last call: v1
        assert evals["final_rtl"]["seeds"] == evals["final_seeds"]["seeds"]

        run = store.run(run_id)
        b = run.scores["backends"]
        assert b["kernel_version"] == 1 and b["run_rtl_calls"] == 2
        assert b["model"]["status"] == "pass" and b["rtl"]["status"] == "pass"
        assert b["agree"] is True and b["divergence"] is None
        assert b["model"]["cycles"] == b["rtl"]["cycles"] > 0
        assert run.settings["rtl"] is True
        assert store.verify(run_id).ok

    assert main(["show", str(run_id), "--traces", str(db), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["backends"]["rtl"]["status"] == "pass"
    assert [(c["kernel_version"], c["rtl"]["status"], c["agree"]) for c in shown["run_rtl_calls"]] == \
        [(2, "fail", True), (1, "pass", True)]
    assert main(["show", str(run_id), "--traces", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"backends: model pass {b['model']['cycles']:,} cycles, RTL pass" in out
    assert "final: held-out seeds on the RTL" in out and "RTL ready" in out
    assert main(["runs", "--traces", str(db)]) == 0
    assert "RTL" in capsys.readouterr().out
    # a replay re-runs run_eval, both run_rtl calls and the final checks, identically
    assert main(["replay", str(run_id), "--traces", str(db), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identical"] and report["compared"] == 5
    assert not any("run_rtl" in m or "final_rtl" in m for m in report["seed_mismatches"]), report


class FlippedRTL(PlenaRTL):
    """The real RTL with one bit of Vector SRAM flipped in every write to address 5 (and
    in the final memory), as a defect in the hardware would."""

    def run_many(self, jobs, config):
        out = super().run_many(jobs, config)
        for r in out:
            r.memories["vsram"] = r.memories["vsram"].copy()
            r.memories["vsram"][5] ^= 1
            for step in r.trace or []:
                for ch in step.changes:
                    if ch.space == "vsram" and ch.address <= 5 < ch.address + np.size(ch.new):
                        ch.new = np.array(ch.new).copy()
                        ch.new[5 - ch.address] ^= 1
        return out


def test_a_divergence_names_the_first_instruction_and_is_recorded(store, kernels):
    good, _ = kernels
    script = [reply("", call("write_code", {"code": good}, "w1"), call("run_rtl", {"version": 1}, "r1"))]
    result, _ = rtl_run(store, script, budget=1, rtl_backend=FlippedRTL())
    text = results(store, result.run_id)["r1"]["content"]
    assert "the backends DISAGREE on seed" in text
    assert "first divergence: retired instruction #" in text and "issued at cycle" in text
    assert "vsram[5]: model 0x" in text and ", RTL 0x" in text
    data = results(store, result.run_id)["r1"]["data"]
    assert data["agree"] is False and data["status"] == "failed"
    # no kernel passed run_eval: nothing to score on either backend, and it says why
    b = store.run(result.run_id).scores["backends"]
    assert b["rtl"] == {"status": "not_run", "cycles": None, "reason": "no kernel passed run_eval"}


def test_cli_run_with_rtl_records_the_backends(tmp_path, capsys):
    db = tmp_path / "traces.db"
    hw = [x for k, v in HW.items() for x in ("--hw", f"{k}={v}")]
    code = main(["run", "--accel", "plena", "--task", "relu", "--config", "C1", "--rtl",
                 "--budget", "2", *hw, "--traces", str(db), "--quiet", "--json"])
    scores = json.loads(capsys.readouterr().out)["scores"]
    assert code == 0
    assert scores["backends"]["model"]["status"] == "pass"
    assert scores["backends"]["rtl"]["status"] == "pass" and scores["backends"]["agree"] is True
    assert main(["runs", "--traces", str(db), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["scores"]["backends"]["rtl"]["cycles"] == scores["backends"]["rtl"]["cycles"]


@pytest.fixture
def store(tmp_path):
    with TraceStore(tmp_path / "traces.db") as s:
        yield s


class CrashingRTL(PlenaRTL):
    def run_many(self, jobs, config):
        raise RuntimeError("simulator vanished")


def test_an_rtl_fault_is_recorded_without_costing_the_score(store, kernels):
    good, _ = kernels
    script = [reply("", call("write_code", {"code": good}), call("run_eval", {}),
                    call("run_rtl", {"version": 1}, "r1"))]
    result, _ = rtl_run(store, script, budget=1, rtl_backend=CrashingRTL())
    assert result.status == "succeeded"
    answer = results(store, result.run_id)["r1"]["content"]
    assert "RuntimeError: simulator vanished" in answer and "not a fault in your call" in answer
    b = result.scores["backends"]
    assert b["model"]["status"] == "pass"
    assert b["rtl"] == {"status": "error", "cycles": None,
                        "error": "RuntimeError: simulator vanished"}
    errors = [e.payload["where"] for e in store.events(result.run_id) if e.type == "error"]
    assert errors == ["tool", "final_rtl"]


def test_a_failed_build_is_recorded_and_run_rtl_shows_its_error_lines(store, kernels, monkeypatch):
    from kernelcraft.simulators.plena_rtl import build
    lines = ["%Error: rtl/plena/plena_top.v:12:5: syntax error, unexpected ';'"]

    def broken(cfg, simulator="verilator"):
        raise toolchain.RtlBuildError("Verilator 5.048 could not build top module plena_top", lines)
    monkeypatch.setattr(build, "build", broken)
    good, _ = kernels
    script = [reply("", call("write_code", {"code": good}), call("run_eval", {}),
                    call("run_rtl", {"version": 1}, "r1"))]
    result, _ = rtl_run(store, script, budget=1)
    events = store.events(result.run_id)
    failed = next(e for e in events if e.type == "error")
    assert failed.step == 0 and failed.payload["where"] == "rtl_build"
    assert lines[0] in failed.payload["error"]
    answer = results(store, result.run_id)["r1"]["content"]
    assert answer.startswith("kernel version 1: RTL NOT AVAILABLE: it could not be built when "
                             "the run started (a workbench problem, not your kernel's):")
    assert lines[0] in answer and "run_eval on the functional model still works" in answer
    assert result.status == "succeeded"
    assert result.scores["backends"]["rtl"]["status"] == "error"
    assert lines[0] in result.scores["backends"]["rtl"]["error"]
