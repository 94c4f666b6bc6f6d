"""The sweep every test here compares with: offline autotune over 2 accelerators x 3
Level-1 tasks x 2 small configurations, killed half-way (SIGKILL to its whole process
group) and resumed. Built once per session."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
GRID = ["--models", "autotune", "--accels", "plena,aie", "--tasks", "relu,silu,gemv",
        "--configs", "C1,C2", "--budget", "3", "--seeds", "1"]
CELLS = {(a, t, c) for a in ("plena", "aie") for t in ("relu", "silu", "gemv")
         for c in ("C1", "C2")}


def env() -> dict:
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def kernelcraft(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernelcraft.workbench.cli", *args], env=env(),
                          capture_output=True, text=True, timeout=600, **kw)


def finished_cells(db: Path) -> dict[str, int]:
    if not db.exists():
        return {}
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as raw:
        try:
            return dict(raw.execute("SELECT cell, run_id FROM sweep_cells "
                                    "WHERE status IN ('succeeded', 'failed')").fetchall())
        except sqlite3.OperationalError:
            return {}


def scores_by_cell(db: Path) -> dict[tuple, tuple]:
    """What must not depend on where a cell ran: status and simulated cycles."""
    from kernelcraft.workbench.store import TraceStore
    out = {}
    with TraceStore(db, readonly=True) as store:
        for r in store.runs():
            s = r.scores or {}
            out[(r.accelerator, r.task, r.config)] = (
                r.status, (s.get("best") or {}).get("cycles"),
                (s.get("held_out_seeds") or {}).get("speedup"), r.steps)
    return out


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            kids = [int(k) for k in (task / "children").read_text().split()]
            out += kids
            todo += kids
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"                                 # a zombie has ended


@pytest.fixture(scope="session")
def killed_and_resumed(tmp_path_factory):
    db = tmp_path_factory.mktemp("sweep") / "traces.db"
    proc = subprocess.Popen([sys.executable, "-m", "kernelcraft.workbench.cli", "sweep", *GRID,
                             "--jobs", "2", "--traces", str(db)], env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    while len(finished_cells(db)) < 4 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proc.poll() is None, f"the sweep ended before it could be killed: {proc.communicate()}"
    workers = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)                   # the coordinator alone
    _, log = proc.communicate(timeout=30)
    end = time.monotonic() + 15
    while any(alive(p) for p in workers) and time.monotonic() < end:
        time.sleep(0.1)
    orphans = [p for p in workers if alive(p)]
    try:
        os.killpg(proc.pid, signal.SIGKILL)             # whatever is left of the sweep
    except ProcessLookupError:
        pass
    assert workers and not orphans, f"workers outlived the coordinator: {orphans}"
    before = finished_cells(db)
    resumed = kernelcraft("sweep", *GRID, "--jobs", "2", "--traces", str(db), "--json")
    return {"db": db, "before": before, "log": log, "resumed": resumed,
            "summary": json.loads(resumed.stdout) if resumed.returncode == 0 else None}
