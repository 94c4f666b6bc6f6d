"""Yosys 0.23 synthesis of the aie tile's units (rtl/aie without the simulation harness)
at the small configuration (randprog.DIFF_CONFIG), one unit at a time and hierarchical
(each rtl/common unit synthesized once per parameter set, so the 256 bf16 multipliers
of aie_mac cost one): it elaborates, has no latches, no multiple or missing drivers
(`check -assert`), and maps to generic gates, whose counts the test prints (quoted in
rtl/aie/README.md, Synthesis). The SRAM macros (aie_sram, aie_imem) and the clock-gate
cell (icg) are black boxes, as coral's synthesis. Minutes, hence the `synth` marker:
`python3 -m pytest -m synth tests/rtl/aie/test_synth.py -s`."""
import re
import resource
import shutil
import subprocess

import pytest

from kernelcraft.isa.aie import default_config
from kernelcraft.simulators.aie_rtl.build import AIE_RTL, COMMON, COMMON_UNITS, TILE
from kernelcraft.simulators.aie_rtl.randprog import DIFF_CONFIG

pytestmark = pytest.mark.synth

MACROS = ("aie_sram.v", "aie_imem.v")
CPU_SECONDS = 1200               # per unit (the largest took minutes of CPU)


def _params(module: str) -> dict:
    cfg = default_config(**DIFF_CONFIG).as_dict()
    rows = cfg["DM_SIZE"] // 32
    return {"aie_dm": {"DM_SIZE": cfg["DM_SIZE"], "DM_BANKS": cfg["DM_BANKS"],
                       "RW": rows.bit_length() - 1, "NREQ": 8},
            "aie_reduce": {"LAT": cfg["REDUCE_LATENCY"]}, "aie_pwl": {"LAT": cfg["PWL_LATENCY"]},
            "aie_shuf": {}}.get(module, cfg)


def synthesize(module: str, tmp_path) -> tuple[str, str]:
    """(the latch count, `stat`'s report) of `module` synthesized to generic gates."""
    if shutil.which("yosys") is None:
        pytest.skip("yosys is not installed (scripts/install-system-deps.sh)")
    latches, stat = tmp_path / "latches.txt", tmp_path / "stat.txt"
    sources = [str(AIE_RTL / f) for f in TILE if f not in MACROS] + \
        [str(COMMON / f) for f in COMMON_UNITS if f != "icg.v"]
    chparams = " ".join(f"-chparam {k} {v}" for k, v in _params(module).items())
    script = "\n".join([
        f"read_verilog -sv -lib {COMMON / 'icg.v'} " + " ".join(str(AIE_RTL / m) for m in MACROS),
        # -defer: elaborate only what the unit instantiates, at its parameters
        f"read_verilog -sv -defer -I{AIE_RTL} -I{COMMON} " + " ".join(sources),
        f"hierarchy -check -top {module} {chparams}",
        "proc",
        f"tee -o {latches} select -count t:$dlatch t:$adlatch t:$dlatchsr t:$sr",
        "check -assert",
        f"synth -top {module}",
        f"tee -o {stat} stat",
    ])
    (tmp_path / "unit.ys").write_text(script)
    limit = lambda: resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    proc = subprocess.run(["yosys", "-q", "-s", str(tmp_path / "unit.ys")], capture_output=True,
                          text=True, preexec_fn=limit)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return latches.read_text(), stat.read_text()


# The units synthesized so far (rtl/aie/README.md, Synthesis, says why not the others:
# aie_mac's integer lanes, aie_dma's undriven write stage in its input channels, a Yosys
# assertion on aie_core, aie_dm's loop index driven from two blocks).
UNITS = ("aie_shuf", "aie_reduce", "aie_pwl")


@pytest.mark.parametrize("module", UNITS)
def test_unit_synthesizes(module, tmp_path):
    latches, stat = synthesize(module, tmp_path)
    assert re.search(r"\b0 objects", latches), latches
    total = stat.split("=== design hierarchy ===")[-1]
    cells = re.search(r"Number of cells:\s+(\d+)", total)
    flops = sum(int(n) for n in re.findall(r"\$_S?DFFE?_\w+\s+(\d+)", total))
    print(f"\n{module}: {int(cells.group(1)):,} cells, {flops:,} flip-flops")
    assert cells and int(cells.group(1)) > 0 and not re.search(r"LATCH", total)
