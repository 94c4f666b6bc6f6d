"""`verilator --lint-only -Wall` is clean for every module in rtl/common (the only
waivers are in the sources, each with its reason), with default parameters and with
the other sizes the units are built for; Icarus compiles each one too."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kernelcraft.simulators.rtl import toolchain

RTL_COMMON = Path(__file__).resolve().parents[3] / "rtl" / "common"
SOURCES = sorted(RTL_COMMON.glob("*.v"))
MODULES = [p.stem for p in SOURCES]
# Non-default parameter values worth linting (the defaults are linted for every module).
PARAMETER_SETS = [
    ("fp32_tree_sum", ("-GL=1",)), ("fp32_tree_sum", ("-GL=2",)), ("fp32_tree_sum", ("-GL=64",)),
    ("bf16_dot_acc", ("-GL=1",)), ("bf16_dot_acc", ("-GL=16",)),
    ("fp_mul", ("-GFI=7",)), ("fp32_minmax", ("-GMIN=1",)),
    ("mux_tree", ("-GN=1",)), ("mux_tree", ("-GN=3",)), ("mux_tree", ("-GN=4", "-GLEVELS=3")),
]


@pytest.mark.parametrize("module", MODULES)
def test_verilator_lint_is_clean(module):
    toolchain.lint(SOURCES, module, includes=[RTL_COMMON])


@pytest.mark.parametrize("module,params", PARAMETER_SETS,
                         ids=[f"{m}{''.join(p)}" for m, p in PARAMETER_SETS])
def test_verilator_lint_is_clean_with_other_parameters(module, params):
    toolchain.lint(SOURCES, module, includes=[RTL_COMMON], args=("-Wall", *params))


@pytest.mark.parametrize("module", MODULES)
def test_icarus_compiles(module, tmp_path):
    tool = toolchain.find_icarus()
    proc = subprocess.run([str(tool.executable), "-g2012", "-Wall", f"-I{RTL_COMMON}",
                           "-s", module, "-o", str(tmp_path / "a.vvp"), *map(str, SOURCES)],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr.strip(), proc.stderr


def test_lint_reports_verilators_own_lines(tmp_path):
    bad = tmp_path / "bad_unit.v"
    bad.write_text("module bad_unit(input wire [7:0] a, output wire [3:0] y);\n"
                   "  assign y = a;\nendmodule\n")
    with pytest.raises(toolchain.RtlBuildError) as err:
        toolchain.lint([bad], "bad_unit")
    text = str(err.value)
    assert "lint of bad_unit is not clean" in text
    assert "%Warning-WIDTHTRUNC" in text and "bad_unit.v:2" in text
