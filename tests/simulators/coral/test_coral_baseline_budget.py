"""A coral baseline that retires more instructions than budget_for(0) allows must still
pass its own evaluation (it used to end in a run_error: "did not finish within
2000000 instructions")."""
from kernelcraft.workbench.evaluation import budget_for, evaluate


def test_long_baseline_evaluates_to_passed():
    from kernelcraft.workbench.accel import get_accel
    accel = get_accel("coral")
    source = accel.baseline("gemm", "C4", accel.default_config())
    ev = evaluate("coral", "gemm", "C4", source, seeds=[1], edge_cases=False)
    assert ev.status == "passed", ev.error
    assert ev.retired > budget_for(0).max_instructions
