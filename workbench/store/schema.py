"""The trace store's schema: the one place that creates or changes tables.

Each change is a named migration, applied in order and recorded in `_migrations`
(sqlite-utils' migrations table layout). Migrations are history: never edit one that
has shipped; add a new one. SCHEMA.md documents the resulting tables.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

MIGRATION_SET = "kernelcraft-traces"


class StoreMigrations(Migrations):
    migrations_table = "_migrations"


MIGRATIONS = StoreMigrations(MIGRATION_SET)


@MIGRATIONS(name="m001_runs_events_kernels")
def _m001(db: Database) -> None:
    # Status and type lists are spelled out (not imported) so this step stays as shipped.
    db.executescript("""
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        accelerator TEXT NOT NULL,
        task TEXT NOT NULL,
        config TEXT NOT NULL,
        agent TEXT NOT NULL,
        model TEXT,
        settings TEXT NOT NULL DEFAULT '{}',
        versions TEXT NOT NULL DEFAULT '{}',
        started_at TEXT NOT NULL,
        ended_at TEXT,
        status TEXT NOT NULL DEFAULT 'running'
            CHECK (status IN ('running', 'succeeded', 'failed', 'interrupted', 'error')),
        scores TEXT,
        steps INTEGER NOT NULL DEFAULT 0,
        tokens_in INTEGER NOT NULL DEFAULT 0,
        tokens_out INTEGER NOT NULL DEFAULT 0,
        tokens_reasoning INTEGER NOT NULL DEFAULT 0,
        cost REAL NOT NULL DEFAULT 0.0,
        event_count INTEGER NOT NULL DEFAULT 0,
        head_hash TEXT,
        seal TEXT
    );
    CREATE INDEX runs_started_at ON runs (started_at);
    CREATE INDEX runs_cell ON runs (accelerator, task, config);
    CREATE INDEX runs_status ON runs (status);

    CREATE TABLE kernels (
        hash TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        first_seen TEXT NOT NULL
    );

    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs (id),
        seq INTEGER NOT NULL,
        ts TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('message', 'reasoning', 'tool_call',
            'tool_result', 'kernel', 'evaluation', 'note', 'error')),
        role TEXT,
        step INTEGER,
        payload TEXT NOT NULL,
        text TEXT NOT NULL DEFAULT '',
        tokens_in INTEGER NOT NULL DEFAULT 0,
        tokens_out INTEGER NOT NULL DEFAULT 0,
        tokens_reasoning INTEGER NOT NULL DEFAULT 0,
        cost REAL NOT NULL DEFAULT 0.0,
        kernel_hash TEXT REFERENCES kernels (hash),
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        UNIQUE (run_id, seq)
    );
    CREATE INDEX events_kernel_hash ON events (kernel_hash);
    """)


@MIGRATIONS(name="m002_full_text_search")
def _m002(db: Database) -> None:
    # Events: external-content FTS5 keyed by events.id (an INTEGER PRIMARY KEY, so VACUUM
    # keeps it stable), kept in sync by sqlite-utils' insert/update/delete triggers.
    db["events"].enable_fts(["text"], create_triggers=True)
    # Kernels are keyed by a text hash, whose implicit rowid VACUUM may renumber, so their
    # index carries the hash itself instead of pointing at rowids.
    db.executescript("""
    CREATE VIRTUAL TABLE kernels_fts USING fts5 (hash UNINDEXED, source);
    INSERT INTO kernels_fts (hash, source) SELECT hash, source FROM kernels;
    CREATE TRIGGER kernels_ai AFTER INSERT ON kernels BEGIN
        INSERT INTO kernels_fts (hash, source) VALUES (new.hash, new.source);
    END;
    CREATE TRIGGER kernels_ad AFTER DELETE ON kernels BEGIN
        DELETE FROM kernels_fts WHERE hash = old.hash;
    END;
    CREATE TRIGGER kernels_au AFTER UPDATE ON kernels BEGIN
        DELETE FROM kernels_fts WHERE hash = old.hash;
        INSERT INTO kernels_fts (hash, source) VALUES (new.hash, new.source);
    END;
    """)


@MIGRATIONS(name="m003_writer_liveness")
def _m003(db: Database) -> None:
    # Who writes a run and when it last wrote, to tell a live run from a dead one.
    runs = db.table("runs")
    runs.add_column("writer_pid", int)
    runs.add_column("writer_host", str)
    runs.add_column("last_event_at", str)


@MIGRATIONS(name="m004_sweeps")
def _m004(db: Database) -> None:
    # A sweep is a grid of cells run as one benchmark; each cell points at the run that
    # finished it, so a rerun of the sweep knows what is done and reports can select it.
    db.executescript("""
    CREATE TABLE sweeps (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        spec TEXT NOT NULL
    );
    CREATE TABLE sweep_cells (
        sweep_id TEXT NOT NULL REFERENCES sweeps (id),
        cell TEXT NOT NULL,
        model TEXT NOT NULL,
        accelerator TEXT NOT NULL,
        task TEXT NOT NULL,
        config TEXT NOT NULL,
        repetition INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed',
            'interrupted', 'error')),
        run_id INTEGER REFERENCES runs (id),
        attempts INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (sweep_id, cell)
    );
    CREATE INDEX sweep_cells_run ON sweep_cells (run_id);
    """)


def known_names() -> list[str]:
    return [m.name for m in MIGRATIONS._migrations]


@dataclass(frozen=True)
class SchemaState:
    """What a database holds, read without writing anything."""

    applied: list[str]
    unknown: list[str]  # applied here but not known to this version: a newer schema
    pending: list[str]
    other_tables: list[str]  # tables that no migration of ours would have made

    @property
    def is_trace_store(self) -> bool:
        return bool(self.applied) or not self.other_tables


def inspect(db: Database) -> SchemaState:
    tables = db.table_names()
    applied = ([m.name for m in MIGRATIONS.applied(db)]
               if StoreMigrations.migrations_table in tables else [])
    known = known_names()
    ours_or_internal = StoreMigrations.migrations_table
    other = [t for t in tables
             if t != ours_or_internal and not t.startswith("sqlite_")] if not applied else []
    return SchemaState(
        applied=applied,
        unknown=[n for n in applied if n not in known],
        pending=[n for n in known if n not in applied],
        other_tables=other,
    )


def migrate(db: Database) -> list[str]:
    """Apply pending migrations; the caller holds the write lock (BEGIN IMMEDIATE) so
    that two processes opening a new store at once do not both create it."""
    before = inspect(db).pending
    MIGRATIONS.apply(db)
    return before
