"""simulators/rtl/divergence.runs_differences: what differs between two runs of the same
jobs (the bulk-mode tests compare cocotb and bulk runs with it)."""
from types import SimpleNamespace as NS

from kernelcraft.simulators.rtl.divergence import Divergence, runs_differences


def _run(stop="end", retired=5, error=None, trace=None, value=1):
    return NS(stop=stop, retired=retired, error=error, trace=trace, value=value)


def _compare_runs(a, b):
    return [] if a.value == b.value else [Divergence("memory", "x[0]", str(a.value), str(b.value))]


def _compare_traces(a, b):
    return None if a == b else Divergence("trace", "step 1", "a", "b")


def _job(name, trace=False):
    return NS(program=NS(source_name=name), trace=trace)


def test_identical_runs_have_no_differences():
    jobs = [_job("a.asm"), _job("b.asm", trace=True)]
    runs = [_run(), _run(trace=[1, 2])]
    assert runs_differences(jobs, runs, [_run(), _run(trace=[1, 2])], _compare_runs,
                            _compare_traces) == []


def test_each_kind_of_difference_is_named():
    jobs = [_job("a.asm"), _job("b.asm"), _job("c.asm", trace=True), _job("d.asm", trace=True)]
    first = [_run(), _run(), _run(trace=[1]), _run(trace=[1])]
    second = [_run(value=2), _run(stop="error", error=ValueError("x")), _run(trace=[2]), _run()]
    diffs = runs_differences(jobs, first, second, _compare_runs, _compare_traces)
    assert diffs[0] == "job 0 (a.asm): x[0]: model 1, RTL 2"
    assert diffs[1].startswith("job 1 (b.asm): stopped end after 5 (None) against error")
    assert diffs[2] == "job 2 (c.asm): trace: step 1: model a, RTL b"
    assert diffs[3] == "job 3 (d.asm): trace: missing"
    assert runs_differences(jobs, first, second[:2], _compare_runs, _compare_traces)[-1] == \
        "4 jobs, 4 and 2 results"
