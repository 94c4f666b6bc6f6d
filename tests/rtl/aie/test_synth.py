"""Yosys 0.23 synthesis of the aie tile (rtl/aie without the simulation harness): it
elaborates, has no latches and no multiple or missing drivers (`check -assert`), and
maps to generic cells, whose counts the test prints (quoted in rtl/aie/README.md).
Slow (Yosys's `proc` on the unrolled data-memory routing takes minutes), hence the
`synth` marker: `python3 -m pytest -m synth tests/rtl/aie/test_synth.py -s`."""
import re
import shutil
import subprocess

import pytest

from kernelcraft.simulators.aie_rtl.build import AIE_RTL, COMMON, COMMON_UNITS, TILE
from kernelcraft.simulators.aie_rtl.randprog import DIFF_CONFIG

pytestmark = pytest.mark.synth


def _yosys(params: dict, tmp_path) -> tuple[str, str]:
    if shutil.which("yosys") is None:
        pytest.skip("yosys is not installed (scripts/install-system-deps.sh)")
    latches, stat = tmp_path / "latches.txt", tmp_path / "stat.txt"
    sets = " ".join(f"-set {k} {v}" for k, v in params.items())
    # the clock gate is a cell (its latch intended): a black box, as coral's synthesis
    script = "\n".join([
        f"read_verilog -lib {COMMON / 'icg.v'}",
        f"read_verilog -sv -I{AIE_RTL} -I{COMMON} " + " ".join(
            [str(AIE_RTL / f) for f in TILE] + [str(COMMON / f) for f in COMMON_UNITS
                                               if f != "icg.v"]),
        f"chparam {sets} aie_top" if sets else "",
        "hierarchy -check -top aie_top",
        "proc",
        f"tee -o {latches} select -count t:$dlatch t:$adlatch t:$dlatchsr t:$sr",
        "check -assert",
        "synth -top aie_top -run coarse:fine",
        f"tee -o {stat} stat",
    ])
    (tmp_path / "aie.ys").write_text(script)
    proc = subprocess.run(["yosys", "-q", "-s", str(tmp_path / "aie.ys")], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return latches.read_text(), stat.read_text()


def test_small_configuration_synthesizes(tmp_path):
    latches, stat = _yosys(DIFF_CONFIG, tmp_path)
    assert re.search(r"\b0 objects", latches), latches
    cells = re.search(r"Number of cells:\s+(\d+)", stat.split("=== design hierarchy ===")[-1])
    print(stat)
    assert cells and int(cells.group(1)) > 0
