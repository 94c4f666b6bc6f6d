"""The C lane loops of fastlanes.py's closures (lanes.c), built on first use.

`module()` returns the built extension module, or None when it cannot be had (no C
compiler, no Python headers, `KERNELCRAFT_NATIVE=0` in the environment, or
`enabled(False)`); the closures then run their numpy code, which computes the same
bits. The build is cached under the RTL builds' cache root (rtl/toolchain.py's
`cache_root`), keyed by the source, the interpreter and the compiler command, and
written under a temporary name then renamed, so concurrent first uses cannot see a
half-written file.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

SOURCE = Path(__file__).with_name("lanes.c")
NAME = "_plena_lanes"
# binary32 arithmetic as numpy does it: no fused multiply-add, no fast-math (-O3 only
# vectorises lane loops; it does not reorder a lane's operations)
FLAGS = ["-O3", "-shared", "-fPIC", "-ffp-contract=off", "-fno-fast-math"]

_state: dict = {}          # "module": the loaded module or None once tried; "off": switched off


def enabled(on: bool) -> None:
    """Switch the C loops on or off for closures bound from now on (tests compare both)."""
    _state["off"] = not on


def module():
    if _state.get("off") or os.environ.get("KERNELCRAFT_NATIVE") == "0":
        return None
    if "module" not in _state:
        try:
            _state["module"] = _load()
        except (OSError, ImportError, subprocess.SubprocessError) as e:
            _state["module"], _state["why"] = None, f"{type(e).__name__}: {e}"
    return _state["module"]


def status() -> str:
    """One line for benchmark reports: whether the C loops run, and if not, why."""
    if _state.get("off") or os.environ.get("KERNELCRAFT_NATIVE") == "0":
        return "plena lane loops: numpy (switched off)"
    mod = module()
    if mod is not None:
        return f"plena lane loops: C ({Path(mod.__file__).name})"
    return f"plena lane loops: numpy ({_state.get('why', 'no C compiler or Python headers')})"


def _load():
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    cmd = cc.split()
    if shutil.which(cmd[0]) is None:
        _state["why"] = f"no C compiler {cmd[0]!r} on PATH"
        return None
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        _state["why"] = f"no Python.h in {include}"
        return None
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    key = hashlib.sha256(SOURCE.read_bytes() + repr((sys.version, suffix, cmd, FLAGS)).encode())
    from kernelcraft.simulators.rtl.toolchain import cache_root
    built = cache_root() / "plena-lanes" / f"{NAME}-{key.hexdigest()[:16]}{suffix}"
    if not built.is_file():
        built.parent.mkdir(parents=True, exist_ok=True)
        tmp = built.with_name(f".{built.name}.{os.getpid()}")
        subprocess.run([*cmd, *FLAGS, f"-I{include}", str(SOURCE), "-o", str(tmp)],
                       check=True, capture_output=True, timeout=120)
        os.replace(tmp, built)
    spec = importlib.util.spec_from_file_location(NAME, built)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
