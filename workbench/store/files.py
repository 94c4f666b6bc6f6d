"""Where the trace store lives and whether a file there may be opened as one.

The header is checked before SQLite touches the file, so a file that is not SQLite is
never given a WAL, a journal or a schema.
"""
from __future__ import annotations

import os
from pathlib import Path

from .errors import CorruptStoreError, NotSQLiteError, StoreNotFoundError

DEFAULT_FILENAME = "traces.db"
ENV_VAR = "KERNELCRAFT_TRACES"
SQLITE_MAGIC = b"SQLite format 3\x00"


def resolve_path(path: str | os.PathLike[str] | None = None) -> Path:
    """An explicit path wins, then $KERNELCRAFT_TRACES, then ./traces.db."""
    if path is None:
        path = os.environ.get(ENV_VAR) or DEFAULT_FILENAME
    return Path(path).expanduser()


def lock_dir(db_path: Path) -> Path:
    """Folder of per-run writer lock files, beside the database (traces.db-locks/)."""
    return db_path.with_name(db_path.name + "-locks")


def check_existing(path: Path, *, readonly: bool) -> bool:
    """Return True if `path` holds a database to open, False if there is none yet
    (missing or empty, writable mode only). Raise if it must not be opened."""
    if not path.exists():
        if readonly:
            raise StoreNotFoundError(
                f"{path}: no trace store here; check the path (or ${ENV_VAR}), or "
                f"record a run first to create it")
        if not path.parent.is_dir():
            raise StoreNotFoundError(
                f"{path}: folder {path.parent} does not exist; create it or choose "
                f"another path for the trace store")
        return False
    if path.is_dir():
        raise NotSQLiteError(f"{path}: is a folder, not a trace store file; give the path "
                             f"of a .db file inside it, e.g. {path / DEFAULT_FILENAME}")
    size = path.stat().st_size
    if size == 0:
        return False  # SQLite treats an empty file as an empty database
    with path.open("rb") as fh:
        header = fh.read(100)
    if not header.startswith(SQLITE_MAGIC):
        raise NotSQLiteError(
            f"{path}: not an SQLite database (its first bytes are {header[:16]!r}); "
            f"choose another path for the trace store, or move this file aside")
    if len(header) < 100 or not _valid_page_size(header):
        raise CorruptStoreError(
            f"{path}: SQLite header is damaged ({size} bytes, header unreadable); "
            f"restore the file from a backup or move it aside")
    return True


def _valid_page_size(header: bytes) -> bool:
    raw = int.from_bytes(header[16:18], "big")
    size = 65536 if raw == 1 else raw
    return 512 <= size <= 65536 and size & (size - 1) == 0
