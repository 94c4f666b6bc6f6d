"""The trace store: every agent run, its events and kernels, in one SQLite file.

See SCHEMA.md for the tables and store.py for the API.
"""
from .errors import (CorruptStoreError, InvalidRecordError, NotATraceStoreError,
                     NotSQLiteError, ReadOnlyStoreError, RunNotWritableError,
                     SchemaOutdatedError, SchemaTooNewError, SearchQueryError, StoreBusyError,
                     StoreAccessError, StoreFullError, StoreNotFoundError,
                     StoreNotWritableError, TraceStoreError, UnknownKernelError, UnknownRunError)
from .files import DEFAULT_FILENAME, ENV_VAR, resolve_path
from .records import (EVENT_TYPES, FINAL_STATUSES, RUN_STATUSES, Event, EventType, Kernel,
                      Run, RunStatus, SearchHit, Verification)
from .store import TraceStore

__all__ = [
    "TraceStore", "Run", "Event", "Kernel", "SearchHit", "Verification", "EventType",
    "RunStatus", "EVENT_TYPES", "RUN_STATUSES", "FINAL_STATUSES", "DEFAULT_FILENAME",
    "ENV_VAR", "resolve_path", "TraceStoreError", "StoreNotFoundError", "NotSQLiteError",
    "CorruptStoreError", "NotATraceStoreError", "SchemaTooNewError", "SchemaOutdatedError",
    "ReadOnlyStoreError", "StoreBusyError", "UnknownRunError", "UnknownKernelError",
    "RunNotWritableError", "InvalidRecordError", "SearchQueryError", "StoreNotWritableError",
    "StoreFullError", "StoreAccessError",
]
