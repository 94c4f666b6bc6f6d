"""Where the trace store lives and whether a file there may be opened as one.

The header is checked before SQLite touches the file, so a file that is not SQLite is
never given a WAL, a journal or a schema.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from .errors import CorruptStoreError, NotSQLiteError, StoreAccessError, StoreNotFoundError

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


# Space set aside beside the database while a run is open: when the disk fills under
# the run, deleting it first lets the run's end (status and reason) still be written.
RESERVE_BYTES = 128 * 1024


def reserve_path(locks: Path, run_id: int) -> Path:
    return locks / f"run-{run_id}.reserve"


def reserve_space(locks: Path, run_id: int) -> None:
    """Best effort: a disk already too full for the reserve just goes without."""
    try:
        with open(reserve_path(locks, run_id), "wb") as f:
            f.write(bytes(RESERVE_BYTES))
    except OSError:
        reserve_path(locks, run_id).unlink(missing_ok=True)


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
    try:
        size = path.stat().st_size
        if size == 0:
            return False  # SQLite treats an empty file as an empty database
        with path.open("rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise StoreAccessError(f"{path}: cannot be read ({exc.strerror or exc}); check the "
                               f"file's permissions") from None
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


def unwritable_reason(path: Path) -> str | None:
    """Why a store at `path` cannot be written (its folder must be writable too: SQLite
    keeps -wal and -shm files beside it), or None if it can."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"the filesystem holding {folder} is mounted read-only"
    except OSError:
        return None  # a missing folder is reported where it matters (check_existing)
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"no permission to create files in {folder}"
    if path.exists() and not os.access(path, os.W_OK):
        return f"no permission to write {path}"
    return None


def remove_stale_temporaries(path: Path, min_age: float = 60.0) -> list[Path]:
    """Delete `.NAME.<pid>.<hex>.new{,-wal,-shm}` files left beside `path` by a creation
    that was killed (connection._create), if their process is gone and they are older
    than `min_age` seconds (a pid on another host sharing the folder is not ours to
    judge, so age guards a creation still in progress there)."""
    removed = []
    folder = path.parent if str(path.parent) else Path(".")
    try:
        candidates = list(folder.glob(f".{glob_escape(path.name)}.*.new*"))
    except OSError:
        return removed
    now = time.time()
    for tmp in candidates:
        parts = tmp.name[len(path.name) + 2:].split(".")
        if len(parts) != 3 or not parts[0].isdigit() or not parts[2].startswith("new"):
            continue
        try:
            if _pid_alive(int(parts[0])) or now - tmp.stat().st_mtime < min_age:
                continue
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            continue
    return removed


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)
