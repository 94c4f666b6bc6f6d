"""A short fuzz campaign on every run (scripts/fuzz.py, fixed seeds): the three
assemblers and short runs of what assembles, `kernelcraft exec` options, and agent
tool calls. No traceback, no hang. A longer campaign: `python scripts/fuzz.py
--seconds 300`."""
import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fuzz.py"


@pytest.fixture(scope="module")
def fuzz():
    spec = importlib.util.spec_from_file_location("kc_fuzz", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["kc_fuzz"] = module           # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("target", ["asm", "exec", "tools"])
def test_a_short_campaign_finds_nothing(fuzz, target):
    report = fuzz.campaign(cases=60, seed=0, targets=(target,))
    assert report.cases[target] == 60
    assert not report.findings, "\n".join(f.format() for f in report.findings)
    # the campaign reaches past the first refusal: some cases assemble, run, pass
    assert len(report.outcomes[target]) >= 2


def test_the_fuzzer_reports_an_escape_with_its_seed(fuzz, monkeypatch):
    def broken(rng, ctx):
        raise KeyError("A")
    monkeypatch.setitem(fuzz.TARGETS, "asm", broken)
    report = fuzz.campaign(cases=2, seed=7, targets=("asm",))
    assert [f.seed for f in report.findings] == [7, 8]
    assert report.findings[0].what.startswith("KeyError: 'A'")
