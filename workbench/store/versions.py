"""What produced a run: package version, git commit, and a hash of the ISA data.

Recorded in every run so that a result can be traced to the code and ISA it came from.
Each item is best effort (None when unknown); nothing here touches the network.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import platform
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=1)
def _package_version() -> str | None:
    try:
        return importlib.metadata.version("kernelcraft")
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def _git_state() -> tuple[str | None, bool | None]:
    """(commit, dirty) of the source tree this package runs from, if it is a checkout."""
    if not (REPO_ROOT / ".git").exists():
        return None, None
    try:
        commit = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"],
                                capture_output=True, text=True, timeout=5, check=True)
        status = subprocess.run(["git", "-C", str(REPO_ROOT), "status", "--porcelain",
                                 "--untracked-files=no"],
                                capture_output=True, text=True, timeout=5, check=True)
    except (OSError, subprocess.SubprocessError):
        return None, None
    return commit.stdout.strip() or None, bool(status.stdout.strip())


@functools.lru_cache(maxsize=16)
def isa_data_hash(accelerator: str) -> str | None:
    """sha256 over the relative paths and bytes of every data file in isa/<accelerator>/."""
    spec = importlib.util.find_spec("kernelcraft.isa")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / accelerator
    if not folder.is_dir():
        return None
    digest = hashlib.sha256()
    for file in sorted(p for p in folder.rglob("*")
                       if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"):
        digest.update(file.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()


def collect_versions(accelerator: str) -> dict[str, Any]:
    commit, dirty = _git_state()
    return {
        "kernelcraft": _package_version(),
        "git_commit": commit,
        "git_dirty": dirty,
        "isa_hash": isa_data_hash(accelerator),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
    }
