"""kernelcraft rtl-check: PASS on agreeing backends; on a divergence, FAIL naming the
first diverging instruction (found by re-running both traced) with both values."""
import numpy as np
import pytest

from simulators.plena_rtl.backend import PlenaRTL
from workbench.cli import main
from workbench.rtlcheck import check


class FlippedRTL(PlenaRTL):
    """The real RTL with one bit of Vector SRAM flipped after the run (and in the trace),
    as a defect in the hardware would."""

    def run_many(self, jobs, config):
        results = super().run_many(jobs, config)
        for r in results:
            r.memories["vsram"] = r.memories["vsram"].copy()
            r.memories["vsram"][40] ^= 1
            for step in r.trace or []:
                for ch in step.changes:
                    if ch.space == "vsram" and ch.address <= 40 < ch.address + np.size(ch.new):
                        ch.new = np.array(ch.new).copy()
                        ch.new[40 - ch.address] ^= 1
        return results


def test_cli_passes_on_a_baseline(capsys):
    assert main(["rtl-check", "--accel", "plena", "--task", "relu", "--config", "C1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PASS  plena relu C1 (baseline): 169 cycles on both")


def test_cli_lockstep_with_a_kernel_file(tmp_path, capsys):
    from workbench.accel import get_accel
    accel = get_accel("plena")
    path = tmp_path / "gemv.asm"
    path.write_text(accel.baseline("gemv", "C1", accel.default_config()))
    assert main(["rtl-check", "--accel", "plena", "--task", "gemv", "--config", "C1", str(path),
                 "--lockstep"]) == 0
    assert f"({path})" in capsys.readouterr().out


def test_divergence_names_the_first_instruction():
    res = check("plena", "relu", "C1", rtl=FlippedRTL())
    assert not res.passed
    assert res.first.startswith("retired instruction #")
    assert "vsram[40]" in res.first and "model 0x" in res.first
    assert any(d.startswith("vsram[40]") for d in res.divergences)
    assert "FAIL  plena relu C1" in res.format()


def test_bad_usage_is_a_clear_error(capsys, monkeypatch):
    import dataclasses
    import workbench.accel.aie as record       # an accelerator without RTL: aie's taken away
    monkeypatch.setattr(record, "ACCELERATOR", dataclasses.replace(record.ACCELERATOR, rtl=None))
    assert main(["rtl-check", "--accel", "plena", "--task", "relu"]) == 2
    assert "needs --task and --config" in capsys.readouterr().err
    assert main(["rtl-check", "--accel", "plena", "--task", "relu", "--config", "C9"]) == 2
    assert "no configuration 'C9'" in capsys.readouterr().err
    with pytest.raises(Exception, match="has no RTL yet"):
        from workbench.rtlcheck import rtl_backend
        rtl_backend("aie")
