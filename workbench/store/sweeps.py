"""Sweeps in the trace store: the grid a sweep was started with and, per cell, where it
stands and which run finished it (tables `sweeps`, `sweep_cells`; SCHEMA.md).

Only the sweep's coordinator writes these rows, and it is the store's only writer
while the sweep runs. A cell is done once its run is imported (merge.py) together
with its row, in one transaction.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from .chain import canonical_json
from .errors import TraceStoreError
from .merge import import_run


@dataclass(frozen=True)
class CellRow:
    sweep_id: str
    cell: str
    model: str
    accelerator: str
    task: str
    config: str
    repetition: int
    status: str
    run_id: int | None
    attempts: int
    error: str | None
    updated_at: str


def _now() -> str:
    from .store import _now
    return _now()


def open_sweep(store, sweep_id: str, spec: dict) -> bool:
    """Record the sweep if new; True if it was already there (a resume). A sweep id
    names one grid: reusing it for another is refused."""
    text = canonical_json(spec, what="sweep spec")
    with store._mutex, store._transaction() as conn:
        row = conn.execute("SELECT spec FROM sweeps WHERE id = ?", (sweep_id,)).fetchone()
        if row is None:
            conn.execute("INSERT INTO sweeps (id, created_at, spec) VALUES (?, ?, ?)",
                         (sweep_id, _now(), text))
            return False
    if json.loads(row[0]) != json.loads(text):
        raise TraceStoreError(f"{store.path}: sweep {sweep_id} was started with another grid; "
                              f"give a new --sweep-id or rerun it with the same grid")
    return True


def sweeps(store) -> list[dict]:
    db = store._reader()
    if db is None or "sweeps" not in db.table_names():
        return []
    with store._mutex, store._guard():
        return [{"id": r["id"], "created_at": r["created_at"], "spec": json.loads(r["spec"])}
                for r in db.query("SELECT * FROM sweeps ORDER BY created_at")]


def cells(store, sweep_id: str) -> dict[str, CellRow]:
    db = store._reader()
    if db is None or "sweep_cells" not in db.table_names():
        return {}
    with store._mutex, store._guard():
        rows = list(db.query("SELECT * FROM sweep_cells WHERE sweep_id = ?", [sweep_id]))
    return {r["cell"]: CellRow(**r) for r in rows}


def _upsert(conn, sweep_id: str, cell: dict, status: str, *, run_id=None, error=None,
            attempt: bool = False) -> None:
    conn.execute(
        "INSERT INTO sweep_cells (sweep_id, cell, model, accelerator, task, config, repetition, "
        "status, run_id, attempts, error, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (sweep_id, cell) DO UPDATE SET status = excluded.status, "
        "run_id = COALESCE(excluded.run_id, run_id), attempts = attempts + ?, "
        "error = excluded.error, updated_at = excluded.updated_at",
        (sweep_id, cell["key"], cell["model"], cell["accel"], cell["task"], cell["config"],
         cell["rep"], status, run_id, int(attempt), error, _now(), int(attempt)))


def mark_started(store, sweep_id: str, cell: dict) -> None:
    with store._mutex, store._transaction() as conn:
        _upsert(conn, sweep_id, cell, "running", attempt=True)


def mark_error(store, sweep_id: str, cell: dict, error: str) -> None:
    """A cell that produced no run (it could not start, or its worker died)."""
    with store._mutex, store._transaction() as conn:
        _upsert(conn, sweep_id, cell, "error" if error else "interrupted", error=error)


def finish_cell(store, sweep_id: str, cell: dict, exported: str, status: str,
                error: str | None = None) -> int:
    """Import the cell's run and mark the cell with its status, in one transaction."""
    return import_run(store, exported, then=lambda conn, run_id: _upsert(
        conn, sweep_id, cell, status, run_id=run_id, error=error))


def interrupted_to_retry(store, sweep_id: str) -> int:
    """Cells left 'running' by a coordinator that died are interrupted."""
    with store._mutex, store._transaction() as conn:
        return conn.execute("UPDATE sweep_cells SET status = 'interrupted', updated_at = ? "
                            "WHERE sweep_id = ? AND status = 'running'",
                            (_now(), sweep_id)).rowcount
