"""SCHEMA.md describes every table, column and migration the store actually has."""
from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import workbench.store
from kernelcraft.workbench.store.schema import known_names

DOC = (Path(workbench.store.__file__).parent / "SCHEMA.md").read_text()


def documented_columns(table: str) -> set[str]:
    section = DOC.split(f"### `{table}`", 1)[1].split("\n### ", 1)[0]
    names: set[str] = set()
    for cell in re.findall(r"^\| ([^|]+) \|", section, flags=re.M):
        names.update(re.findall(r"`(\w+)`", cell))
    return names


def test_every_column_is_documented(store, db_path):
    store.start_run("plena", "relu", "C1", agent="autotune")
    with closing(sqlite3.connect(db_path)) as raw:
        for table in ("runs", "events", "kernels", "sweeps", "sweep_cells"):
            columns = {r[1] for r in raw.execute(f"PRAGMA table_info({table})")}
            assert columns == documented_columns(table), table


def test_every_migration_and_search_table_is_documented():
    for name in known_names():
        assert f"| `{name}` |" in DOC
    for name in ("events_fts", "kernels_fts", "_migrations", "KERNELCRAFT_TRACES"):
        assert name in DOC
