"""Evaluation as an agent sees it: pass/fail, errors with locations, budgets, metrics."""
import pytest

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench import evaluation
from kernelcraft.workbench.evaluation import evaluate
from kernelcraft.workbench.tools import (check_syntax, get_inst_size, grep_docs, run_eval,
                                         view_output)

ACCEL, TASK, CONFIG = "plena", "relu", "C1"


def baseline(task=TASK, config=CONFIG):
    accel = get_accel(ACCEL)
    return accel.baseline(task, config, accel.default_config())


def test_baseline_passes_with_metrics():
    ev = evaluate(ACCEL, TASK, CONFIG, baseline(), seeds=[1, 2])
    assert ev.passed and ev.status == "passed"
    assert ev.frac_match == 1.0
    assert ev.cycles > 0 and ev.baseline_cycles == ev.cycles
    assert ev.speedup == pytest.approx(1.0)
    assert 0 < ev.lower_bound <= ev.cycles and not ev.impossible
    assert 0 < ev.roofline_fraction <= 1
    assert any(s.label.startswith("edge:") for s in ev.sets) or not ev.sets[2:]
    assert ev.unit_busy["vector"] > 0 and ev.unit_busy["dma"] > 0


def test_assembly_error_reports_line_and_hint():
    ev = evaluate(ACCEL, TASK, CONFIG, "S_ADDI_INT gp16, gp0, 1\n", seeds=[1])
    assert ev.status == "assembly_error" and not ev.passed
    assert "1:" in ev.diagnostics[0] and "gp0..gp15" in ev.diagnostics[0]


def test_run_error_names_instruction_line_and_address():
    src = "S_LUI_INT gp1, 1000\nV_ADD_VV gp1, gp1, gp1, 0\n"
    ev = evaluate(ACCEL, TASK, CONFIG, src, seeds=[1])
    assert ev.status == "run_error"
    assert "line 2" in ev.error and "V_ADD_VV" in ev.error and "vsram" in ev.error.lower()


def test_runaway_kernel_stops_at_budget():
    src = "C_LOOP_START gp1, 4000000\n  C_LOOP_START gp2, 4000000\n  S_ADDI_INT gp3, gp3, 1\n  C_LOOP_END gp2\nC_LOOP_END gp1\n"
    ev = evaluate(ACCEL, TASK, CONFIG, src, seeds=[1])
    assert ev.status == "run_error" and "budget" in ev.error


def test_a_kernel_that_never_stops_ends_at_its_cpu_time_limit_with_that_named(monkeypatch):
    # Each iteration is a full-length vector op, so the CPU limit (made short here) comes
    # long before the instruction budget.
    monkeypatch.setattr(evaluation, "CPU_SECONDS", 0.2)
    src = ("li t0, 1024\nvsetvli t1, t0, e32, m8, ta, ma\n"
           "loop: vfadd.vv v8, v8, v16\nvfmul.vv v16, v16, v8\nj loop\n")
    ev = evaluate("coral", "rope", "C1", src, seeds=[1])
    assert ev.status == "run_error" and not ev.passed
    assert "CPU-time limit of 0.2 s" in ev.error and "wall-clock" not in ev.error
    assert "line 3" in ev.error or "line 4" in ev.error or "line 5" in ev.error


def test_tools_text_is_concise_and_exact():
    src = baseline()
    assert check_syntax(ACCEL, src).text.startswith("OK:")
    bad = check_syntax(ACCEL, "V_ADD_VV gp1, gp2\nFOO gp1\n")
    assert bad.data["ok"] is False and len(bad.data["errors"]) == 2
    assert "instructions" in get_inst_size(ACCEL, src).text
    out = run_eval(ACCEL, TASK, CONFIG, src, seeds=[3])
    assert out.text.startswith("PASS") and "speed-up" in out.text
    zeros = view_output(ACCEL, TASK, CONFIG, "S_ADDI_INT gp1, gp0, 1\n", seed=4)
    assert "FAIL" in zeros.text and "worst rows" in zeros.text
    hits = grep_docs(ACCEL, "V_EXP_V")
    assert hits.data["hits"] > 0 and "V_EXP_V" in hits.text
    assert grep_docs(ACCEL, "no-such-thing-xyz").data["hits"] == 0
    assert grep_docs(ACCEL, "[unclosed").data is not None   # bad regex searched as text


def test_unknown_task_or_config_is_a_clear_error():
    with pytest.raises(KeyError, match="configurations"):
        evaluate(ACCEL, TASK, "C9", baseline())
    with pytest.raises(KeyError):
        evaluate(ACCEL, "no_such_task", CONFIG, baseline())


def test_kernel_below_the_lower_bound_is_flagged_impossible(monkeypatch):
    from kernelcraft.workbench.accel import Bound
    accel = get_accel(ACCEL)
    real = accel.lower_bound
    monkeypatch.setattr(type(accel), "lower_bound", property(lambda self: (
        lambda task, config, hw: Bound(10 ** 9, "compute", "test bound"))), raising=False)
    ev = evaluate(ACCEL, TASK, CONFIG, baseline(), seeds=[1], edge_cases=False)
    monkeypatch.undo()
    assert ev.impossible and ev.roofline_fraction > 1
    assert get_accel(ACCEL).lower_bound is real


def test_lower_bound_is_below_every_baseline_and_names_its_kind():
    from kernelcraft.tasks import get_task
    accel = get_accel(ACCEL)
    hw = accel.default_config()
    for task in accel.baseline_templates():
        b = accel.lower_bound(get_task(task), "C2", hw)
        assert b.cycles > 0 and b.kind in ("compute", "bandwidth") and b.detail


@pytest.mark.parametrize("accel,nothing", [("plena", "S_ADDI_INT gp1, gp0, 1\n"),
                                           ("coral", "ebreak\n"), ("aie", "NOP\n")])
def test_a_failed_kernel_has_no_speedup_anywhere(accel, nothing, tmp_path, capsys):
    """A do-nothing kernel is far faster than the baseline; it must not print a speed-up."""
    import json

    from kernelcraft.workbench.cli import main
    from kernelcraft.workbench.tools import format_evaluation
    ev = evaluate(accel, TASK, CONFIG, nothing, seeds=[1], edge_cases=False)
    assert ev.status == "failed" and ev.baseline_cycles > ev.cycles > 0
    assert ev.speedup is None and "no speed-up: the kernel did not pass" in format_evaluation(ev)
    path = tmp_path / "k.s"
    path.write_text(nothing)
    assert main(["eval", "--accel", accel, "--task", TASK, "--config", CONFIG, str(path),
                 "--seeds", "1", "--no-edge", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["speedup"] is None and out["seeds_chosen_by"] == "caller"


def test_an_impossible_pass_has_no_speedup(monkeypatch):
    from kernelcraft.workbench.accel import Bound
    accel = get_accel(ACCEL)
    monkeypatch.setattr(type(accel), "lower_bound", property(lambda self: (
        lambda task, config, hw: Bound(10 ** 9, "compute", "test bound"))), raising=False)
    ev = run_eval(ACCEL, TASK, CONFIG, baseline(), seeds=[1])
    assert ev.data["passed"] and ev.data["impossible"] and ev.data["speedup"] is None
    assert "impossible" in ev.text and "speed-up 1" not in ev.text


def test_reference_and_allowance_are_computed_once_per_input_set_and_read_only(monkeypatch):
    """judge keeps an input set's reference and error allowance (pure functions of the
    inputs): a second kernel on the same inputs reuses them, unchanged and unwritable."""
    import numpy as np
    from kernelcraft.tasks import get_task
    task = get_task("scaled_dot_product")
    inputs = task.generate("C1", 7)
    want_ref, want_allow = task.reference(inputs, "C1"), task.allowance(inputs, "C1", "o")
    calls = []
    real = type(task).allowance
    monkeypatch.setattr(type(task), "allowance", lambda *a: calls.append(a[1:]) or real(*a))
    evaluation._REFERENCES.clear()
    for _ in range(2):
        ref = evaluation.reference(task, inputs, "C1")
        allow = evaluation.allowance(task, inputs, "C1", "o")
        assert np.array_equal(ref["o"], want_ref["o"]) and np.array_equal(allow, want_allow)
        assert not ref["o"].flags.writeable and not allow.flags.writeable
    assert len(calls) == 1
    other = task.generate("C1", 8)             # other inputs: computed afresh
    assert not np.array_equal(evaluation.allowance(task, other, "C1", "o"), want_allow)
    assert len(calls) == 2


def test_a_kernel_whose_control_flow_depends_on_its_inputs_is_flagged_not_failed():
    # The known gap of tasks/README.md: a kernel that recognises an input family can be
    # exact only there. It must branch on the data to do so, which the evaluation shows.
    from kernelcraft.tasks import get_task
    from kernelcraft.workbench.agent.scoring import score_flags
    from kernelcraft.workbench.agent.transcript import score_lines
    accel, task = get_accel("coral"), get_task("relu")
    hw = accel.default_config()
    x = next(r for r in accel.layout(task, "C1", hw).regions if r.name == "x")
    sign = {s: task.generate("C1", s)["x"].flat[0] < 0 for s in range(1, 40)}
    seeds = [next(s for s, neg in sign.items() if neg), next(s for s, neg in sign.items() if not neg)]
    branchy = (f"    li t2, {x.address}\n    lw t3, 0(t2)\n    bltz t3, .negative\n    nop\n"
               f".negative:\n" + accel.baseline("relu", "C1", hw))
    ev = evaluate("coral", "relu", "C1", branchy, seeds=seeds, edge_cases=False)
    assert ev.passed and ev.input_dependent
    low, high = sorted(s.retired for s in ev.sets)
    assert high == low + 1                                # the one nop the branch skips
    text = run_eval("coral", "relu", "C1", branchy, seeds=seeds).text
    assert "control flow or timing depends on the inputs" in text and text.startswith("PASS")
    # both paths padded to one instruction count: the taken branch still costs a cycle more
    padded = (f"    li t2, {x.address}\n    lw t3, 0(t2)\n    bltz t3, .negative\n    nop\n"
              f"    j .join\n.negative:\n    nop\n    nop\n.join:\n" + accel.baseline("relu", "C1", hw))
    ev = evaluate("coral", "relu", "C1", padded, seeds=seeds, edge_cases=False)
    assert ev.passed and ev.input_dependent and len({s.retired for s in ev.sets}) == 1
    # padded to one instruction count and one cycle count (a multiply and a jump one way, two
    # nops the other): only the instructions run (RunResult.coverage) tell the paths apart
    timed = (f"    li t2, {x.address}\n    lw t3, 0(t2)\n    bltz t3, .negative\n    mul t4, t3, t3\n"
             f"    j .join\n.negative:\n    nop\n    nop\n.join:\n" + accel.baseline("relu", "C1", hw))
    ev = evaluate("coral", "relu", "C1", timed, seeds=seeds, edge_cases=False)
    assert len({(s.retired, s.cycles) for s in ev.sets}) == 1
    assert ev.passed and ev.input_dependent and ev.paths == 2
    assert "2 different sets of instructions run" in run_eval("coral", "relu", "C1", timed, seeds=seeds).text
    scores = {"best": {"kernel_version": 1, "step": 1, **ev.to_dict()}, "flags": ["input_dependent"]}
    assert score_flags(scores) == ["input-dependent"]
    assert any("FLAGGED INPUT-DEPENDENT" in line for line in score_lines(scores))
    plain = evaluate("coral", "relu", "C1", accel.baseline("relu", "C1", hw), seeds=seeds)
    assert plain.passed and not plain.input_dependent and plain.paths == 1    # edge cases included
    assert "control flow" not in run_eval("coral", "relu", "C1", accel.baseline("relu", "C1", hw),
                                          seeds=seeds).text
