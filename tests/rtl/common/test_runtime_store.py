"""The runtime store (simulators/rtl/runtime_store.py) behind toolchain's OBJCACHE: a
compile of a .cpp file of $VERILATOR_ROOT/include is done once per command line,
compiler and header contents, and copied to later builds byte for byte; any other compile
runs as it is. A stand-in include/ directory keeps this to a few small compiles."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelcraft.simulators.rtl import toolchain


@pytest.fixture
def tree(tmp_path, monkeypatch):
    if shutil.which("c++") is None:
        pytest.skip("no C++ compiler")
    root = tmp_path / "vroot"
    (root / "include").mkdir(parents=True)
    (root / "include" / "rt.h").write_text("#define RT_VALUE 7\n")
    (root / "include" / "rt.cpp").write_text('#include "rt.h"\nint rt_value() { return RT_VALUE; }\n')
    (tmp_path / "design.cpp").write_text("int design() { return 1; }\n")
    monkeypatch.setenv("KERNELCRAFT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OBJCACHE", raising=False)
    monkeypatch.setenv("CCACHE_DISABLE", "1")
    env = {**os.environ, **toolchain._verilator_env(), "VERILATOR_ROOT": str(root)}
    return tmp_path, root, env


def _compile(env, cwd, *args):
    cmd = f"{env['OBJCACHE']} c++ -O1 " + " ".join(args)
    return subprocess.run(cmd, shell=True, cwd=cwd, env=env, capture_output=True, text=True)


def test_a_runtime_object_is_compiled_once_and_reused_byte_for_byte(tree):
    tmp, root, env = tree
    for d in ("a", "b"):
        (tmp / d).mkdir()
    first = _compile(env, tmp / "a", "-c", "-o", "rt.o", str(root / "include" / "rt.cpp"))
    assert first.returncode == 0, first.stderr
    assert "runtime store: compiled rt.o" in first.stderr
    again = _compile(env, tmp / "b", "-c", "-o", "rt.o", str(root / "include" / "rt.cpp"))
    assert "runtime store: reused rt.o" in again.stderr
    assert (tmp / "a" / "rt.o").read_bytes() == (tmp / "b" / "rt.o").read_bytes()
    stored = list((tmp / "cache" / toolchain.RUNTIME_DIR).glob("rt-*.o"))
    assert len(stored) == 1
    # other flags, or a changed header, are another object
    other = _compile(env, tmp / "b", "-DX=1", "-c", "-o", "rt.o", str(root / "include" / "rt.cpp"))
    assert "runtime store: compiled rt.o" in other.stderr
    (root / "include" / "rt.h").write_text("#define RT_VALUE 8\n")
    changed = _compile(env, tmp / "b", "-c", "-o", "rt.o", str(root / "include" / "rt.cpp"))
    assert "runtime store: compiled rt.o" in changed.stderr
    assert len(list((tmp / "cache" / toolchain.RUNTIME_DIR).glob("rt-*.o"))) == 3


def test_other_compiles_and_failures_pass_through(tree):
    tmp, root, env = tree
    design = _compile(env, tmp, "-c", "-o", "design.o", str(tmp / "design.cpp"))
    assert design.returncode == 0 and "runtime store" not in design.stderr
    assert (tmp / "design.o").is_file()
    (root / "include" / "bad.cpp").write_text("int broken( {\n")
    bad = _compile(env, tmp, "-c", "-o", "bad.o", str(root / "include" / "bad.cpp"))
    assert bad.returncode != 0 and "error" in bad.stderr
    assert not (tmp / "bad.o").exists()
    assert not list((tmp / "cache" / toolchain.RUNTIME_DIR).glob("bad-*.o"))


def test_the_runtime_makefile_names_the_builds_runtime_flags():
    from kernelcraft.simulators.plena_rtl import build
    from kernelcraft.isa.plena import default_config
    text = toolchain.runtime_makefile(build.spec(default_config()), toolchain.find_verilator())
    assert "VM_TIMING = 1" in text and "VM_USER_CFLAGS = -fcoroutines" in text
    assert "verilated_timing" in text and "include $(VERILATOR_ROOT)/include/verilated.mk" in text
