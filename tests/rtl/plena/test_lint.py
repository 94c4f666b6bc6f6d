"""Verilator --lint-only -Wall is clean on the whole plena design (waivers are in
rtl/plena/plena.vlt and next to the code they cover, each with its reason)."""
import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.plena_rtl import build


@pytest.mark.parametrize("overrides", [{}, "diff", dict(MLEN=16, VLEN=16, BLEN=2, HLEN=8,
                                                         MSRAM_TILES=1, VSRAM_ROWS=48, HBM_BW=3,
                                                         HBM_V_PREFETCH_AMOUNT=3)],
                         ids=["default", "differential", "odd"])
def test_lint_clean(overrides, diff_cfg):
    """Each configuration with the clock gates' latch; the differential one (the build
    the suite simulates) with their falling-edge model too (and the operand isolation's
    falling-edge register model, PLENA_OPISO_FLOP_MODEL; the latch form reads its AND
    gates). The two forms differ only in icg.v, plena_opiso.v and plena_sfpu.v, whose
    flop-model text does not depend on the configuration (see build.lint)."""
    cfg = diff_cfg if overrides == "diff" else default_config(**overrides)
    build.lint(cfg, flop_model=overrides == "diff")


def test_verilator_build_models_the_isolation_unless_asked(monkeypatch, diff_cfg):
    """plena's Verilator build simulates the operand isolation's AND gates by their
    falling-edge register model (PLENA_OPISO_FLOP_MODEL) unless PLENA_OPISO_AND=1 asks for
    the AND form (the equivalence runs, rtl/plena/README.md "The isolation AND gates");
    Icarus always reads the AND form. No build: the specs only."""
    monkeypatch.delenv("PLENA_OPISO_AND", raising=False)
    assert "PLENA_OPISO_FLOP_MODEL" in build.spec(diff_cfg).defines
    assert "PLENA_OPISO_FLOP_MODEL" not in build.spec(diff_cfg, "icarus").defines
    monkeypatch.setenv("PLENA_OPISO_AND", "1")
    assert "PLENA_OPISO_FLOP_MODEL" not in build.spec(diff_cfg).defines
    monkeypatch.setenv("PLENA_OPISO_AND", "0")
    assert "PLENA_OPISO_FLOP_MODEL" in build.spec(diff_cfg).defines
