"""Telling a live run from one whose writer died.

A writer holds an exclusive flock(2) on `traces.db-locks/run-<id>.lock` for as long as
the run is open; it takes the lock before the run's row is committed and drops it only
after the final status is committed. The kernel releases a flock when the process dies
by any means, SIGKILL included, and a lock belongs to an open file, not a pid, so pid
reuse cannot fake a live writer. A reader asks "is the run's lock held?" with a
non-blocking shared lock attempt: if it gets the lock, or the file is gone, the writer
is gone.

Locks only mean something on the machine that took them (flock over network file
systems is unreliable), so a run written from another host is never judged dead here.
"""
from __future__ import annotations

import fcntl
import os
import socket
import time
from pathlib import Path

from .errors import TraceStoreError

HOST = socket.gethostname()


def lock_path(lock_dir: Path, run_id: int) -> Path:
    return lock_dir / f"run-{run_id}.lock"


class RunLock:
    """The exclusive lock a writer holds on one of its runs."""

    def __init__(self, lock_dir: Path, run_id: int):
        self.path = lock_path(lock_dir, run_id)
        self._fd: int | None = None

    def acquire(self, timeout: float = 2.0) -> None:
        self.path.parent.mkdir(exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                # A reader probing a stale file of the same id holds it for microseconds.
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise TraceStoreError(
                        f"{self.path}: another process holds this run's writer lock; "
                        f"is a second writer using the same trace store id?") from None
                time.sleep(0.005)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {HOST}\n".encode())
        self._fd = fd

    def release(self) -> None:
        """Unlink, then close: a reader that opened the file just before sees the lock
        go free only after the final status is committed, which it re-reads."""
        if self._fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)
            self._fd = None


def writer_alive(lock_dir: Path, run_id: int, writer_host: str | None) -> bool:
    """True if the run's writer still holds its lock, or if we cannot tell (another host)."""
    if writer_host is not None and writer_host != HOST:
        return True
    try:
        fd = os.open(lock_path(lock_dir, run_id), os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # unreadable lock folder: do not declare anyone dead
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing also drops a shared lock we may have taken
    return False
