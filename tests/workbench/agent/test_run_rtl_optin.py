"""run_rtl is opt-in: offered only with --rtl (RunSpec.rtl), refused with a clear message
on an accelerator without RTL, and its calls are checked like every tool's. Runs without
--rtl record that the RTL was not run; runs recorded before backends existed still show."""
import json

import pytest

from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.workbench.agent import toolspec
from kernelcraft.workbench.agent.llm_agent import LLMAgent
from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
from kernelcraft.workbench.agent.scripted import ScriptedModel, call, reply
from kernelcraft.workbench.agent.toolspec import ToolError, parse_arguments
from kernelcraft.workbench.cli import main
from kernelcraft.workbench.runs_cli import _rtl_cell


@pytest.mark.parametrize("accel,task", [("aie", "relu")])
def test_rtl_is_refused_for_an_accelerator_without_one(accel, task, store, capsys, monkeypatch):
    # every product accelerator has an RTL now: take aie's away in its registry record
    import dataclasses
    import kernelcraft.workbench.accel.aie as record
    monkeypatch.setattr(record, "ACCELERATOR", dataclasses.replace(record.ACCELERATOR, rtl=None))
    with pytest.raises(SystemExit) as e:
        main(["run", "--accel", accel, "--task", task, "--config", "C1", "--rtl",
              "--traces", str(store.path), "--quiet"])
    assert str(e.value) == (f"kernelcraft run: --rtl: accelerator {accel!r} has no RTL; RTL "
                            f"exists for: plena, coral. Run without --rtl")
    agent = LLMAgent(ScriptedModel([]).model())
    with pytest.raises(ConfigError, match=rf"--rtl: accelerator '{accel}' has no RTL; RTL "
                                          r"exists for: plena, coral"):
        AgentLoop(agent, RunSpec(accel, task, "C1", rtl=True), store)
    assert store.runs() == []                 # refused before anything was recorded


def test_run_rtl_schema_and_a_broken_call():
    with_rtl = toolspec.offered(rtl=True)
    assert "run_rtl" in with_rtl and "run_rtl" not in toolspec.offered()
    schema = toolspec.BY_NAME["run_rtl"].schema()["function"]["parameters"]
    assert schema["required"] == ["version"] and schema["properties"]["version"]["minimum"] == 1
    with pytest.raises(ToolError) as e:
        parse_arguments("run_rtl", "{}", with_rtl)
    assert str(e.value) == ("run_rtl needs the argument 'version' (integer): the kernel version "
                            "to run (write_code reports each version's number); e.g. "
                            '{"version": 12}')
    with pytest.raises(ToolError, match="'version' must be at least 1, got 0"):
        parse_arguments("run_rtl", '{"version": 0}', with_rtl)
    assert parse_arguments("run_rtl", '{"version": 3}', with_rtl) == {"version": 3}


def test_without_rtl_the_tool_is_not_offered_and_the_final_record_says_so(store, relu_c1_source):
    model = ScriptedModel([reply("", call("write_code", {"code": relu_c1_source}),
                                 call("run_rtl", {"version": 1}, "r"), call("run_eval", {}))])
    result = AgentLoop(LLMAgent(model.model()), RunSpec("plena", "relu", "C1", budget=1),
                       store).run()
    system = model.queries[0][0]["content"]
    assert "`run_eval`" in system and "run_rtl" not in system
    answer = next(e.payload for e in store.events(result.run_id)
                  if e.type == "tool_result" and e.payload["call_id"] == "r")
    assert not answer["ok"]
    assert answer["content"].startswith("error: run_rtl is not available in this run (it is "
                                        "offered only in runs started with --rtl); the tools "
                                        "are: write_code, check_syntax, run_eval")
    b = result.scores["backends"]
    assert b["model"]["status"] == "pass" and b["model"]["cycles"] == result.scores["best"]["cycles"]
    assert b["rtl"] == {"status": "not_run", "cycles": None,
                        "reason": "the run was started without --rtl"}
    assert b["run_rtl_calls"] == 0 and b["agree"] is None
    assert _rtl_cell(b) == "-"


def test_a_run_recorded_before_backends_existed_still_shows(store, capsys):
    run_id = store.start_run("plena", "relu", "C1", agent="llm", model="x/y", settings={})
    store.finish_run(run_id, "failed", {"correct": False, "stop": "budget", "best": None})
    assert main(["show", str(run_id), "--traces", str(store.path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["backends"] is None and shown["run_rtl_calls"] == []
    assert main(["show", str(run_id), "--traces", str(store.path)]) == 0
    assert "backends" not in capsys.readouterr().out
    assert main(["runs", "--traces", str(store.path)]) == 0
    assert _rtl_cell(None) == "-"
    assert _rtl_cell({"rtl": {"status": "fail"}, "agree": False}) == "fail (differs)"


def test_a_runaway_kernel_is_not_sent_to_the_rtl(relu_c1_source, monkeypatch):
    """The model runs first: a kernel beyond the budget never costs an RTL run (so the
    RTL backend here is never started)."""
    from kernelcraft.simulators.plena_rtl.backend import PlenaRTL
    from kernelcraft.workbench import tools
    from kernelcraft.workbench.tools import run_rtl
    spin = "C_LOOP_START gp13, 4000000\n  S_ADDI_INT gp1, gp1, 0\nC_LOOP_END gp13\n"
    r = run_rtl("plena", "relu", "C1", spin + relu_c1_source, PlenaRTL(), seeds=[3])
    assert r.data["model"]["status"] == "run_error"
    assert r.data["rtl"]["status"] == "not_run" and r.data["agree"] is None
    lines = r.text.splitlines()
    assert lines[0] == "plena RTL on Verilator and functional model on seed 3:"
    assert lines[1].startswith("  functional model: RUN FAILED after ")
    assert "did not finish within 2000000 instructions" in lines[1]
    assert lines[2] == "  RTL:              not run: it did not finish on the functional model"
    assert lines[3] == ("  make the kernel finish (check its loops with run_eval) before running "
                        "it on the RTL")
    # beyond the RTL's cycle budget (here made tiny), though it finishes
    monkeypatch.setattr(tools, "MIN_RTL_CYCLES", 50)
    monkeypatch.setattr(tools, "RTL_CYCLE_FACTOR", 0)
    slow = run_rtl("plena", "relu", "C1", relu_c1_source, PlenaRTL(), seeds=[3])
    assert slow.data["model"]["status"] == "pass" and slow.data["rtl"]["status"] == "not_run"
    assert slow.data["rtl"]["reason"] == (
        f"it takes {slow.data['model']['cycles']:,} cycles on the functional model, beyond the "
        "RTL run's budget of 50 (the larger of 0x the baseline's cycles and 50)")
    bad = run_rtl("plena", "relu", "C1", "V_ADD_VV gp1\n", PlenaRTL(), seeds=[3])
    assert bad.data["status"] == "assembly_error"
    assert bad.text.startswith("ASSEMBLY FAILED (not run on either backend)\nkernel.asm:1:")
