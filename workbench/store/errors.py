"""Errors the trace store raises on purpose.

Each message names the database file and says what would fix the problem. The store
never writes to a file it refuses to open.
"""
from __future__ import annotations

from kernelcraft.simulators.core.errors import KernelCraftError


class TraceStoreError(KernelCraftError):
    """Base of every trace store error."""


class StoreNotFoundError(TraceStoreError, FileNotFoundError):
    """A trace store opened read-only does not exist."""


class NotSQLiteError(TraceStoreError):
    """The file exists but is not an SQLite database."""


class CorruptStoreError(TraceStoreError):
    """The file claims to be SQLite but SQLite reports it as damaged."""


class NotATraceStoreError(TraceStoreError):
    """The file is an SQLite database of something other than a trace store."""


class SchemaTooNewError(TraceStoreError):
    """The store was written by a newer KernelCraft whose migrations this one lacks."""


class SchemaOutdatedError(TraceStoreError):
    """The store needs migrations but was opened read-only."""


class ReadOnlyStoreError(TraceStoreError):
    """A write was attempted through a store opened read-only."""


class StoreBusyError(TraceStoreError):
    """Another connection held the write lock for longer than the busy timeout."""


class UnknownRunError(TraceStoreError, KeyError):
    """No run has the given id."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class UnknownKernelError(TraceStoreError, KeyError):
    """No kernel has the given content hash."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class RunNotWritableError(TraceStoreError):
    """The run is finished, or was started by another writer, so it cannot be written."""


class InvalidRecordError(TraceStoreError, ValueError):
    """A value given to the store is not allowed (type, status, count or payload)."""


class SearchQueryError(TraceStoreError, ValueError):
    """A full-text search query is empty or not valid FTS5 syntax."""


class StoreNotWritableError(TraceStoreError):
    """The store's file or folder cannot be written: a read-only filesystem, or no
    permission. Viewers still open it read-only."""


class StoreFullError(TraceStoreError):
    """The disk holding the store (or SQLite's size limit) is full."""


class StoreAccessError(TraceStoreError):
    """SQLite or the filesystem could not open or read the store's files."""
