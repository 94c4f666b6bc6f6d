"""Files the store must refuse, with a named error and without changing a byte: not
SQLite, damaged, another application's database, a newer schema, a missing file."""
from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from kernelcraft.workbench.store import (CorruptStoreError, NotATraceStoreError, NotSQLiteError,
                                         SchemaTooNewError, StoreNotFoundError, TraceStore)


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file's bytes and every folder's name (None), recursively."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
            for p in folder.rglob("*")}


def assert_refused(path: Path, error: type[Exception], message: str) -> None:
    """Both a writer and a viewer refuse the file, and the folder is left as it was."""
    before = snapshot(path.parent)
    for readonly in (False, True):
        with pytest.raises(error, match=message):
            TraceStore(path, readonly=readonly)
    assert snapshot(path.parent) == before


def make_store(path: Path, make_run) -> None:
    with TraceStore(path) as store:
        for _ in range(3):
            make_run(store)
    assert not Path(str(path) + "-wal").exists()  # checkpointed into the main file


def test_text_file_is_not_sqlite(db_path):
    db_path.write_text("run,task\n1,softmax\n" * 50)
    assert_refused(db_path, NotSQLiteError, r"not an SQLite database \(its first bytes are")


def test_short_binary_file_is_not_sqlite(db_path):
    db_path.write_bytes(b"\x00\x01\x02")
    assert_refused(db_path, NotSQLiteError, "not an SQLite database")


def test_folder_is_not_a_store(tmp_path):
    folder = tmp_path / "traces.db"
    folder.mkdir()
    with pytest.raises(NotSQLiteError, match="is a folder"):
        TraceStore(folder)


def test_damaged_header_is_corrupt(db_path):
    db_path.write_bytes(b"SQLite format 3\x00" + bytes([0xAB]) * 4000)
    assert_refused(db_path, CorruptStoreError, "SQLite header is damaged")


def test_damaged_schema_page_is_corrupt(db_path, make_run):
    make_store(db_path, make_run)
    data = bytearray(db_path.read_bytes())
    data[100:4096] = bytes([0x5A]) * (4096 - 100)  # page 1 holds the schema table
    db_path.write_bytes(bytes(data))
    assert_refused(db_path, CorruptStoreError, "database disk image is malformed.*Restore it")


def test_damaged_data_pages_are_corrupt(db_path, make_run):
    make_store(db_path, make_run)
    data = bytearray(db_path.read_bytes())
    data[4096:] = bytes([0xC3]) * (len(data) - 4096)  # every table page after the schema
    db_path.write_bytes(bytes(data))
    assert_refused(db_path, CorruptStoreError, "the file is damaged")


def test_truncated_store_is_corrupt(db_path, make_run):
    make_store(db_path, make_run)
    db_path.write_bytes(db_path.read_bytes()[:4096 * 2])
    assert_refused(db_path, CorruptStoreError, "the file is damaged")


def test_another_applications_database_is_refused(db_path):
    with closing(sqlite3.connect(db_path)) as raw:
        raw.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        raw.commit()
    assert_refused(db_path, NotATraceStoreError, "not a trace store.*tables customers")


def test_newer_schema_is_refused(db_path, make_run):
    make_store(db_path, make_run)
    with closing(sqlite3.connect(db_path)) as raw:
        raw.execute("INSERT INTO _migrations (migration_set, name, applied_at) "
                    "VALUES ('kernelcraft-traces', 'm900_from_the_future', 'later')")
        raw.commit()
    assert_refused(db_path, SchemaTooNewError,
                   "newer KernelCraft.*m900_from_the_future.*upgrade kernelcraft")


def test_missing_file_read_only_is_an_error_and_creates_nothing(db_path):
    with pytest.raises(StoreNotFoundError, match="no trace store here"):
        TraceStore(db_path, readonly=True)
    assert list(db_path.parent.iterdir()) == []


def test_missing_folder_is_an_error(tmp_path):
    with pytest.raises(StoreNotFoundError, match="folder .*nope does not exist"):
        TraceStore(tmp_path / "nope" / "traces.db")


def test_empty_file_becomes_a_store(db_path):
    db_path.write_bytes(b"")
    with TraceStore(db_path, readonly=True) as viewer:
        assert viewer.runs() == []
    with TraceStore(db_path) as store:
        run_id = store.start_run("plena", "relu", "C1", agent="autotune")
        assert store.run(run_id).status == "running"
