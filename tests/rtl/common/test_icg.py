"""rtl/common/icg.v's two forms: the latch (synthesis, lint, Icarus, coral, aie) and the
falling-edge flop that plena's Verilator build simulates (ICG_FLOP_MODEL). With an enable
that changes only at rising edges both pulse in the same cycles; an enable that changes
while the clock is low stops the flop model with its check (where the latch would
differ); a gate with EN_LOW simulates its latch in both."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelcraft.simulators.rtl import toolchain

COMMON = Path(__file__).resolve().parents[3] / "rtl" / "common"


def _run(tmp_path: Path, name: str, change_low: int, flop: bool,
         en_low: int = 0) -> subprocess.CompletedProcess:
    tool = toolchain.find_verilator()
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler")
    mdir = tmp_path / name
    cmd = [str(tool.executable), "--binary", "--timing", "-CFLAGS", "-fcoroutines", "--Mdir", str(mdir),
           "--top-module", "tb_icg", f"-GCHANGE_LOW={change_low}", f"-GEN_LOW={en_low}",
           *(["+define+ICG_FLOP_MODEL"] if flop else []),
           str(COMMON / "bench" / "tb_icg.v"), str(COMMON / "icg.v")]
    env = {**os.environ, **toolchain._verilator_env(),
           "VERILATOR_ROOT": str(tool.executable.parent.parent)}
    build = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert build.returncode == 0, build.stdout + build.stderr
    return subprocess.run([str(mdir / "Vtb_icg")], capture_output=True, text=True)


def _pulses(proc: subprocess.CompletedProcess) -> list[str]:
    return [ln for ln in proc.stdout.splitlines() if ln.startswith("pulse")]


def test_flop_model_pulses_as_the_latch_and_checks_its_condition(tmp_path):
    latch = _run(tmp_path, "latch", 0, flop=False)
    flop = _run(tmp_path, "flop", 0, flop=True)
    assert latch.returncode == 0 and flop.returncode == 0, latch.stdout + flop.stdout
    assert 20 < len(_pulses(latch)) < 80          # the enable really varies
    assert _pulses(flop) == _pulses(latch)
    bad = _run(tmp_path, "flop_low", 1, flop=True)
    assert bad.returncode != 0
    assert "u_gate.g_model: en changed from" in bad.stdout + bad.stderr


def test_a_gate_whose_enable_changes_while_low_simulates_its_latch(tmp_path):
    """EN_LOW = 1 (plena_sfpu's gate on the inverted clock): the latch in both builds, so
    an enable that changes while the clock is low pulses as the latch does under
    ICG_FLOP_MODEL too, with no check stopping it."""
    latch = _run(tmp_path, "latch", 1, flop=False, en_low=1)
    flop = _run(tmp_path, "flop", 1, flop=True, en_low=1)
    assert latch.returncode == 0 and flop.returncode == 0, latch.stdout + flop.stdout
    assert 20 < len(_pulses(latch)) < 80
    assert _pulses(flop) == _pulses(latch)
    # (and the enable's change while low does change the pulses: the flop model's would)
    assert _pulses(_run(tmp_path, "latch0", 0, flop=False)) != _pulses(latch)
