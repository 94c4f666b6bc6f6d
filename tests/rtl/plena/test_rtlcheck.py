"""kernelcraft rtl-check: two verdicts, the backends agree / disagree and the kernel
correct / incorrect against the reference; PASS needs both. On a divergence, FAIL naming
the first diverging instruction (found by re-running both traced) with both values."""
import numpy as np
import pytest

from kernelcraft.simulators.plena_rtl.backend import PlenaRTL
from kernelcraft.workbench.cli import main
from kernelcraft.workbench.rtlcheck import check


FLIP = 20


class FlippedRTL(PlenaRTL):
    """The real RTL with one bit of Vector SRAM flipped after the run (and in the trace),
    as a defect in the hardware would (element FLIP: relu C1 writes it on the small
    configuration)."""

    def run_many(self, jobs, config):
        results = super().run_many(jobs, config)
        for r in results:
            r.memories["vsram"] = r.memories["vsram"].copy()
            r.memories["vsram"][FLIP] ^= 1
            for step in r.trace or []:
                for ch in step.changes:
                    if ch.space == "vsram" and ch.address <= FLIP < ch.address + np.size(ch.new):
                        ch.new = np.array(ch.new).copy()
                        ch.new[FLIP - ch.address] ^= 1
        return results


def _hw_args(cfg) -> list[str]:
    return [a for k, v in cfg.as_dict().items() for a in ("--hw", f"{k}={v}")]


def test_cli_passes_on_a_baseline(diff_cfg, capsys):
    assert main(["rtl-check", "--accel", "plena", "--task", "relu", "--config", "C1",
                 *_hw_args(diff_cfg)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PASS  plena relu C1 (baseline): backends agree, kernel correct\n")
    assert "cycles on both" in out and "within tolerance of the reference" in out


def test_a_wrong_kernel_fails_though_the_backends_agree(diff_cfg, tmp_path, capsys):
    """min instead of max: both backends compute the same wrong result; eval fails it,
    and so must rtl-check (agreeing backends alone are not a PASS)."""
    from kernelcraft.workbench.accel import get_accel
    wrong = get_accel("plena").baseline("relu", "C1", diff_cfg).replace("V_MAX_VF", "V_MIN_VF")
    res = check("plena", "relu", "C1", wrong, hw=diff_cfg)
    assert res.agree and res.correct is False and not res.passed
    assert res.cycles_model == res.cycles_rtl
    assert res.format().startswith("FAIL  plena relu C1 (kernel.asm): backends agree, kernel "
                                   "INCORRECT\n")
    assert "% match" in res.correctness
    path = tmp_path / "wrong.asm"
    path.write_text(wrong)
    assert main(["rtl-check", "--accel", "plena", "--task", "relu", "--config", "C1",
                 str(path), *_hw_args(diff_cfg)]) == 1
    assert "kernel INCORRECT" in capsys.readouterr().out
    right = check("plena", "relu", "C1", hw=diff_cfg)
    assert right.passed and right.correct and right.agree


def test_cli_lockstep_with_a_kernel_file(diff_cfg, tmp_path, capsys):
    from kernelcraft.workbench.accel import get_accel
    accel = get_accel("plena")
    path = tmp_path / "gemv.asm"
    path.write_text(accel.baseline("gemv", "C1", diff_cfg))
    assert main(["rtl-check", "--accel", "plena", "--task", "gemv", "--config", "C1", str(path),
                 "--lockstep", *_hw_args(diff_cfg)]) == 0
    assert f"({path})" in capsys.readouterr().out


def test_divergence_names_the_first_instruction(diff_cfg):
    res = check("plena", "relu", "C1", hw=diff_cfg, rtl=FlippedRTL())
    assert not res.passed and not res.agree
    assert res.first.startswith("retired instruction #")
    assert f"vsram[{FLIP}]" in res.first and "model 0x" in res.first
    assert any(d.startswith(f"vsram[{FLIP}]") for d in res.divergences)
    assert "FAIL  plena relu C1 (baseline): backends DISAGREE" in res.format()


def test_bad_usage_is_a_clear_error(capsys, monkeypatch):
    import dataclasses
    import kernelcraft.workbench.accel.aie as record       # an accelerator without RTL: aie's taken away
    monkeypatch.setattr(record, "ACCELERATOR", dataclasses.replace(record.ACCELERATOR, rtl=None))
    assert main(["rtl-check", "--accel", "plena", "--task", "relu"]) == 2
    assert "needs --task and --config" in capsys.readouterr().err
    assert main(["rtl-check", "--accel", "plena", "--task", "relu", "--config", "C9"]) == 2
    assert "no configuration 'C9'" in capsys.readouterr().err
    with pytest.raises(Exception, match="has no RTL yet"):
        from kernelcraft.workbench.rtlcheck import rtl_backend
        rtl_backend("aie")
