"""The trace store as the workbench reads it: always read-only, never blocking on a
missing or refused file, and saying in words what is wrong with one.

The viewer opens the store with `TraceStore(path, readonly=True)`, so nothing it
does writes to the file: no migration, no "interrupted" status written for a dead
writer (read-only stores only report it), no sidecar files on a refused file.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from kernelcraft.workbench.store import (CorruptStoreError, Event, Kernel, NotATraceStoreError,
                                         NotSQLiteError, Run, SchemaOutdatedError,
                                         SchemaTooNewError, SearchHit, StoreNotFoundError,
                                         TraceStore, TraceStoreError, resolve_path)

from .runs import RunRow
from .trace import Measure

KINDS = {StoreNotFoundError: "missing", SchemaOutdatedError: "outdated",
         SchemaTooNewError: "too_new", CorruptStoreError: "corrupt",
         NotSQLiteError: "not_sqlite", NotATraceStoreError: "not_a_store"}


@dataclass(frozen=True)
class Problem:
    """Why the store cannot be read, for a banner and a notification."""

    kind: str          # missing, outdated, too_new, corrupt, not_sqlite, not_a_store, error
    message: str

    @classmethod
    def of(cls, path: Path, exc: Exception) -> "Problem":
        kind = next((k for t, k in KINDS.items() if isinstance(exc, t)), "error")
        if kind == "missing":
            return cls(kind, f"no trace store at {path} yet; start a run (n) to create it, "
                             f"or open another file with `kernelcraft tui --traces PATH`")
        msg = str(exc)
        if kind == "outdated":
            msg = (f"{path} was written by an older KernelCraft and needs schema migrations; "
                   f"the viewer only reads, so it will not migrate it. Run "
                   f"`kernelcraft tui --migrate` once (it migrates, then opens read-only)")
        return cls(kind, msg)


class StoreReader:
    """Read-only access to one trace store file, reopened when it appears or changes."""

    def __init__(self, path: str | Path | None = None):
        self.path: Path = resolve_path(path)
        self.store: TraceStore | None = None
        self.problem: Problem | None = None
        self._kernels: dict[str, Kernel] = {}
        self._live: dict[int, tuple[int, float | None]] = {}   # run -> (last seq, best)
        self._lock = threading.Lock()

    def open(self) -> bool:
        """Try to open the store (again); True if it can be read."""
        with self._lock:
            if self.store is not None:
                return True
            try:
                self.store = TraceStore(self.path, readonly=True)
                self.problem = None
                return True
            except TraceStoreError as e:
                self.problem = Problem.of(self.path, e)
                return False

    def close(self) -> None:
        with self._lock:
            if self.store is not None:
                self.store.close()
                self.store = None

    def _need(self) -> TraceStore:
        if self.store is None and not self.open():
            assert self.problem is not None
            raise TraceStoreError(self.problem.message)
        assert self.store is not None
        return self.store

    # ---------------------------------------------------------------- reads
    def runs(self) -> list[RunRow]:
        """Every run, newest first, with the best speed-up so far of runs still going."""
        store = self._need()
        rows = []
        for run in store.runs():
            live = self._live_best(store, run) if not run.finished else None
            rows.append(RunRow(run, live))
        return rows

    def _live_best(self, store: TraceStore, run: Run) -> float | None:
        last, best = self._live.get(run.id, (-1, None))
        for ev in store.events(run.id, after_seq=last):
            last = ev.seq
            if ev.type == "evaluation" and ev.payload.get("tool") == "run_eval":
                m = Measure.of(ev)
                if m.passed and m.speedup and (best is None or m.speedup > best):
                    best = m.speedup
        self._live[run.id] = (last, best)
        return best

    def run(self, run_id: int) -> Run:
        return self._need().run(run_id)

    def events(self, run_id: int, after_seq: int | None = None,
               limit: int | None = None) -> list[Event]:
        return self._need().events(run_id, after_seq=after_seq, limit=limit)

    def kernel(self, hash: str) -> Kernel:
        k = self._kernels.get(hash)
        if k is None:
            k = self._kernels[hash] = self._need().kernel(hash)
        return k

    def cached_kernel(self, hash: str) -> Kernel | None:
        """A kernel already read (by `kernel`), without touching the store."""
        return self._kernels.get(hash)

    def search(self, query: str, limit: int = 100) -> list[SearchHit]:
        return self._need().search(query, limit=limit)


def migrate(path: str | Path | None) -> str:
    """Open the store once for writing so that it migrates; what happened, in words.
    Only for `kernelcraft tui --migrate`: the viewer itself never writes."""
    p = resolve_path(path)
    if not p.exists():
        return f"no trace store at {p}; nothing to migrate"
    with TraceStore(p):
        pass
    return f"{p}: schema is current"
