"""Yosys 0.23 reads every source of the plena core (the harness plena_sim.v aside), and
synthesizes the DMA engine with `check -assert` clean (no multiple drivers, no
undriven or combinational-loop wires) and without latches: at the small differential
configuration in the default suite, at the default configuration under the `synth`
marker (figures in rtl/plena/README.md)."""
import re
import shutil
import subprocess

import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.plena_rtl import build

HARNESS = {"plena_sim.v"}


def _yosys(script: str, timeout: float) -> str:
    tool = shutil.which("yosys")
    assert tool, "yosys is missing: run sudo scripts/install-system-deps.sh"
    proc = subprocess.run([tool, "-q", "-p", script], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:] or proc.stdout[-3000:]
    return proc.stdout


def _read(files, opts: str = "") -> str:
    inc = f"-I{build.PLENA_RTL} -I{build.COMMON_RTL}"
    return "; ".join(f"read_verilog -sv {opts}{inc} {f}" for f in files)


def test_yosys_reads_every_core_source():
    files = [p for p in build.sources() if p.suffix == ".v" and p.name not in HARNESS]
    assert any(p.name == "plena_check.v" for p in files)
    # -defer: parse and check every file, elaborate nothing (elaborating the whole core at
    # its default parameters is what does not finish yet)
    _yosys(_read(files, "-defer "), timeout=600)


def _synth_dma(cfg, timeout: float) -> dict[str, int]:
    params = " ".join(f"-set {k} {v}" for k, v in cfg.as_dict().items())
    out = _yosys(f"{_read([build.PLENA_RTL / 'plena_dma.v'])}; chparam {params} plena_dma; "
                 "synth -top plena_dma; check -assert; tee -o /dev/stdout stat", timeout)
    cells = {m.group(1): int(m.group(2))
             for m in re.finditer(r"^\s+(\$\S+)\s+(\d+)\s*$", out, flags=re.M)}
    total = int(re.search(r"Number of cells:\s+(\d+)", out).group(1))
    assert total == sum(cells.values()) > 0
    assert not [c for c in cells if "LATCH" in c.upper()], cells
    return {"total": total, **cells}


def test_dma_engine_synthesizes_small(diff_cfg):
    cells = _synth_dma(diff_cfg, timeout=600)
    assert any(c.startswith("$_DFF") or c.startswith("$_SDFF") for c in cells)


@pytest.mark.synth
def test_dma_engine_synthesizes_at_the_default_configuration():
    cells = _synth_dma(default_config(), timeout=1800)
    print(f"plena_dma, default configuration: {cells['total']:,} cells")
