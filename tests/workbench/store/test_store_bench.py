"""The write-rate benchmark runs and reports a rate."""
from __future__ import annotations

import re

from kernelcraft.workbench.store import bench


def test_workload_is_shaped_like_a_run():
    events = bench.workload(40)
    kernels = [e for e in events if e["type"] == "kernel"]
    assert len(kernels) == 4 and all(len(e["kernel_source"]) >= 10_000 for e in kernels)
    texts = [len(e["payload"]["content"]) for e in events if e["type"] in ("message", "reasoning")]
    assert min(texts) >= 1000 and max(texts) <= 5100


def test_bench_prints_the_median_write_rate(capsys):
    bench.main(["--events", "60", "--repeats", "3"])
    out = capsys.readouterr().out
    rate = re.search(r"write rate: ([\d,]+) events/s \(median of 3 runs of 60 events", out)
    assert rate and int(rate.group(1).replace(",", "")) > 0
