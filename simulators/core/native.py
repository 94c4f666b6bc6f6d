"""C extensions of the functional models' hot loops, built on first use.

A `Native` is one C source built into an extension module the first time a model asks
for it, or None when it cannot be had (no C compiler, no Python headers,
`KERNELCRAFT_NATIVE=0` in the environment, or switched off by `enabled(False)`); the
model then runs its numpy code, which computes the same bits. The build is cached under
the RTL builds' cache root (rtl/toolchain.py's `cache_root`), keyed by the source, the
interpreter and the compiler command, and written under a temporary name then renamed,
so concurrent first uses cannot see a half-written file.
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

# binary32/binary64 arithmetic as numpy does it: no fused multiply-add, no fast-math
# (-O3 only vectorises independent lanes; it does not reorder one lane's operations)
FLAGS = ["-O3", "-shared", "-fPIC", "-ffp-contract=off", "-fno-fast-math"]


class Native:
    def __init__(self, source: Path, name: str, what: str):
        self.source, self.name, self.what = source, name, what
        self.off = False
        self.tried = False
        self.mod = None
        self.why = ""

    def enabled(self, on: bool) -> None:
        """Switch the C code on or off for what binds it from now on (tests compare both)."""
        self.off = not on

    def module(self):
        if self.off or os.environ.get("KERNELCRAFT_NATIVE") == "0":
            return None
        if not self.tried:
            self.tried = True
            try:
                self.mod = self._load()
            except (OSError, ImportError, subprocess.SubprocessError) as e:
                self.mod, self.why = None, f"{type(e).__name__}: {e}"
        return self.mod

    def status(self) -> str:
        """One line for benchmark reports: whether the C code runs, and if not, why."""
        if self.off or os.environ.get("KERNELCRAFT_NATIVE") == "0":
            return f"{self.what}: numpy (switched off)"
        mod = self.module()
        if mod is not None:
            return f"{self.what}: C ({Path(mod.__file__).name})"
        return f"{self.what}: numpy ({self.why or 'no C compiler or Python headers'})"

    def _load(self):
        cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
        cmd = cc.split()
        if shutil.which(cmd[0]) is None:
            self.why = f"no C compiler {cmd[0]!r} on PATH"
            return None
        include = sysconfig.get_paths()["include"]
        if not (Path(include) / "Python.h").is_file():
            self.why = f"no Python.h in {include}"
            return None
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        key = hashlib.sha256(self.source.read_bytes() + repr((sys.version, suffix, cmd, FLAGS)).encode())
        from kernelcraft.simulators.rtl.toolchain import cache_root
        built = cache_root() / "native" / f"{self.name}-{key.hexdigest()[:16]}{suffix}"
        if not built.is_file():
            built.parent.mkdir(parents=True, exist_ok=True)
            tmp = built.with_name(f".{built.name}.{os.getpid()}")
            subprocess.run([*cmd, *FLAGS, f"-I{include}", str(self.source), "-o", str(tmp)],
                           check=True, capture_output=True, timeout=120)
            os.replace(tmp, built)
        spec = importlib.util.spec_from_file_location(self.name, built)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
