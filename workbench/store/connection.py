"""Opening a trace store file: refuse what must not be touched, then migrate.

The order matters for "a refused file is left exactly as found": files.py reads the
magic bytes before SQLite sees the file; the schema checks then run on an immutable
connection that creates no -wal/-shm files; only a file that passes is switched to WAL
and migrated, inside BEGIN IMMEDIATE so that concurrent first opens migrate once.
"""
from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from . import schema
from .errors import (CorruptStoreError, NotATraceStoreError, SchemaOutdatedError,
                     SchemaTooNewError, StoreAccessError, StoreBusyError, StoreFullError,
                     StoreNotWritableError)
from .files import remove_stale_temporaries, unwritable_reason


@contextmanager
def translate_errors(path: Path, busy_timeout: float) -> Iterator[None]:
    """Turn SQLite's errors about the file into named ones that say what to do."""
    try:
        yield
    except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError):
        raise  # bugs in the caller, not states of the file
    except sqlite3.DatabaseError as exc:
        msg = str(exc)
        if "locked" in msg or "busy" in msg:
            raise StoreBusyError(
                f"{path}: another connection held the write lock for more than "
                f"{busy_timeout:g}s; retry, or raise busy_timeout") from None
        if any(s in msg for s in ("malformed", "not a database", "corrupt")):
            raise CorruptStoreError(
                f"{path}: SQLite reports '{msg}'; the file is damaged. Restore it from a "
                f"backup or move it aside (`sqlite3 {path} .recover` may salvage its "
                f"runs)") from None
        if "full" in msg:
            raise full_error(path, msg) from None
        if any(s in msg for s in ("readonly", "read-only", "unable to open", "disk I/O")):
            why = unwritable_reason(path)
            if why:
                raise not_writable_error(path, why) from None
            raise StoreAccessError(
                f"{path}: SQLite cannot open or read the file ('{msg}'); check that the "
                f"file and its folder exist and are readable, and for recording writable") from None
        raise
    except OSError as exc:   # lock files and the temporary file of a creation
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise full_error(path, exc.strerror or str(exc)) from None
        why = unwritable_reason(path)
        if why or exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise not_writable_error(path, why or exc.strerror or str(exc)) from None
        raise StoreAccessError(f"{path}: {exc.strerror or exc} ({exc.filename or path})") from None


def full_error(path: Path, msg: str) -> StoreFullError:
    try:
        free = f"{shutil.disk_usage(path.parent if str(path.parent) else '.').free:,} bytes free"
    except OSError:
        free = "free space unknown"
    return StoreFullError(f"{path}: the disk is full (SQLite: '{msg}'; {free}); free space "
                          f"there, or record to another path with --traces. Every event "
                          f"committed before this one is kept")


def not_writable_error(path: Path, why: str) -> StoreNotWritableError:
    return StoreNotWritableError(
        f"{path}: cannot record here: {why}. Record to another path with --traces (or "
        f"$KERNELCRAFT_TRACES); viewers (kernelcraft runs, show, export, tui) still read "
        f"this store")


def _checked_state(path: Path, db: Database, readonly: bool) -> schema.SchemaState:
    state = schema.inspect(db)
    if state.unknown:
        raise SchemaTooNewError(
            f"{path}: written by a newer KernelCraft (unknown migrations "
            f"{', '.join(state.unknown)}); upgrade kernelcraft to read it")
    if not state.is_trace_store:
        raise NotATraceStoreError(
            f"{path}: an SQLite database but not a trace store (it has tables "
            f"{', '.join(state.other_tables[:5])}); choose another path")
    if state.pending and readonly:
        raise SchemaOutdatedError(
            f"{path}: needs schema migrations {', '.join(state.pending)} but was "
            f"opened read-only; open it once for writing to migrate it (e.g. `kernelcraft tui --migrate`)")
    return state


def _precheck(path: Path, readonly: bool, busy_timeout: float) -> None:
    """The refusals, on a connection that creates no sidecar files. Only valid while no
    -wal file exists (immutable=1 would ignore it); `open_database` checks again."""
    conn = sqlite3.connect(path.absolute().as_uri() + "?mode=ro&immutable=1", uri=True)
    try:
        with translate_errors(path, busy_timeout):
            _checked_state(path, Database(conn, execute_plugins=False), readonly)
    finally:
        conn.close()


def _create(path: Path, busy_timeout: float) -> None:
    """Build a new store beside `path` and link it into place in one step, so that a
    concurrent opener sees either no file or a complete one, never a half-made one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.new")
    try:
        conn = sqlite3.connect(tmp, timeout=busy_timeout)
        try:
            db = Database(conn, execute_plugins=False)
            db.execute("PRAGMA journal_mode = WAL")  # recorded in the file header
            db.execute("BEGIN IMMEDIATE")
            schema.migrate(db)
            db.execute("COMMIT")
        finally:
            conn.close()  # checkpoints and removes tmp's -wal/-shm
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it first; open theirs
        except OSError:
            return  # no hard links here: open_database creates the file in place
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)


def open_database(path: Path, *, readonly: bool, busy_timeout: float,
                  immutable: bool = False) -> Database:
    """Connect to an existing store (or create a new one when writable), migrated to the
    current schema. Raises the named errors of errors.py; writes nothing to a file it
    refuses. `immutable` (read-only stores on a filesystem no one can write to): SQLite
    could not create the -shm file WAL readers need, so the file is read as it is."""
    if not readonly:
        why = unwritable_reason(path)
        if why:
            raise not_writable_error(path, why)
        remove_stale_temporaries(path)
    if not readonly and not path.exists():
        with translate_errors(path, busy_timeout):
            _create(path, busy_timeout)
    wal = path.with_name(path.name + "-wal")
    if path.exists() and not wal.exists():
        try:
            _precheck(path, readonly, busy_timeout)
        except CorruptStoreError:
            # A writer that appeared meanwhile may have been checkpointing under the
            # immutable read; then only the real connection's checks below can tell.
            if not wal.exists():
                raise
    if readonly:
        conn = sqlite3.connect(path.absolute().as_uri() + "?mode=ro" + "&immutable=1" * immutable,
                               uri=True, timeout=busy_timeout, check_same_thread=False)
    else:
        conn = sqlite3.connect(path, timeout=busy_timeout, check_same_thread=False)
    db = Database(conn, execute_plugins=False)
    try:
        with translate_errors(path, busy_timeout):
            state = _checked_state(path, db, readonly)
            if not readonly:
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: safe on process death
                if state.pending:
                    db.execute("BEGIN IMMEDIATE")
                    try:
                        _checked_state(path, db, readonly)  # someone may have migrated since
                        schema.migrate(db)
                    except BaseException:
                        db.rollback()
                        raise
                    db.execute("COMMIT")
                db.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return db
