"""The loop benchmark runs and separates the loop's own time from model and tools."""
from kernelcraft.workbench.agent.bench import measure


def test_bench_measures_loop_overhead():
    r = measure(steps=8)
    assert r["status"] == "succeeded" and r["steps"] == 8 and r["events"] > 8 * 3
    assert 0 < r["overhead_ms"] < r["step_ms"]
    assert r["overhead_ms"] < 500        # tens of milliseconds expected; generous on a busy CI box
