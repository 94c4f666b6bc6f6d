"""`kernelcraft bench build` (workbench/buildbench.py): a cold build into the cache
it is given, with ccache off, timed by the CPU of every process the build reaps and
Verilator's own share from its report. A stand-in build (a child process that burns a
known amount of CPU and leaves a build log) keeps this cheap."""
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from kernelcraft.simulators.rtl import toolchain
from kernelcraft.workbench import buildbench

LOG = """- V e r i l a t i o n   R e p o r t: rev v5
- Verilator: Built from 11.324 MB sources in 49 modules, into 47.397 MB in 130 C++ files needing 0.415 MB
- Verilator: Walltime 20.280 s (elab=0.467, cvt=18.604, bld=0.000); cpu 15.762 s on 1 threads; allocated 416.512 MB
kernelcraft runtime store: reused verilated.o (verilated-0)
kernelcraft runtime store: reused verilated_vpi.o (verilated_vpi-0)
kernelcraft runtime store: compiled verilated_dpi.o (verilated_dpi-0)
"""


def test_a_cold_build_is_timed_into_its_own_cache_with_ccache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELCRAFT_CACHE", "/somewhere/else")
    monkeypatch.delenv("CCACHE_DISABLE", raising=False)
    seen = {}

    def build(cfg):
        seen.update(cache=os.environ["KERNELCRAFT_CACHE"], ccache=os.environ.get("CCACHE_DISABLE"))
        burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
        subprocess.run([sys.executable, "-c", burn], check=True)
        d = tmp_path / "cache" / "builds" / "x"
        d.mkdir(parents=True)
        (d / "build.log").write_text(LOG)
        return SimpleNamespace(cached=False, directory=d)

    r = buildbench.cold_build(build, None, tmp_path / "cache")
    assert seen == {"cache": str(tmp_path / "cache"), "ccache": "1"}
    assert os.environ["KERNELCRAFT_CACHE"] == "/somewhere/else"       # restored
    assert "CCACHE_DISABLE" not in os.environ
    assert r["cpu"] >= 0.25 and r["wall"] >= r["cpu"] * 0.5
    assert r["verilator"] == pytest.approx(15.762)
    assert r["runtime"] == (2, 1)


def test_a_cached_build_is_not_a_cold_one(tmp_path):
    with pytest.raises(toolchain.ToolchainError, match="not a cold build"):
        buildbench.cold_build(lambda cfg: SimpleNamespace(cached=True, directory=tmp_path),
                              None, tmp_path / "cache")
