"""TraceStore: the SQLite file agent runs write to and viewers read while they write.

Writes: `start_run`, `append` (one short BEGIN IMMEDIATE transaction per event, so a
run killed at any moment loses at most the event being written), `finish_run`.
Reads: `runs`, `run`, `events` (incremental with `after_seq`), `kernel`, `search`,
`verify`, `export_jsonl`. The database is in WAL mode, so readers never wait for the
writer. A missing file is created on the first write; the checks in files.py and
schema.py run before anything is written to an existing one.
"""
from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from sqlite_utils import Database

from .chain import canonical_json, event_hash, genesis_hash, seal_hash, sha256_text, walk
from .connection import not_writable_error, open_database, translate_errors
from .errors import (InvalidRecordError, ReadOnlyStoreError, RunNotWritableError,
                     SearchQueryError, TraceStoreError, UnknownKernelError, UnknownRunError)
from .files import (check_existing, lock_dir, reserve_path, reserve_space, resolve_path,
                    unwritable_reason)
from .liveness import HOST, RunLock, lock_path, writer_alive
from .records import (EVENT_TYPES, FINAL_STATUSES, RUN_STATUSES, Event, EventType, Kernel,
                      Run, RunStatus, SearchHit, Verification)
from .versions import collect_versions

EVENT_COLUMNS = ("run_id", "seq", "ts", "type", "role", "step", "payload", "text",
                 "tokens_in", "tokens_out", "tokens_reasoning", "cost", "kernel_hash",
                 "prev_hash", "hash")
_INSERT_EVENT = (f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) "
                 f"VALUES ({', '.join('?' * len(EVENT_COLUMNS))})")
_UPDATE_TOTALS = """UPDATE runs SET event_count = ?, head_hash = ?, last_event_at = ?,
    steps = MAX(steps, COALESCE(?, 0)), tokens_in = tokens_in + ?, tokens_out = tokens_out + ?,
    tokens_reasoning = tokens_reasoning + ?, cost = cost + ? WHERE id = ?"""
# Runs whose writer is gone read as 'interrupted' even before anyone writes that down.
_DEAD = "status = 'running' AND id IN (SELECT value FROM json_each(:dead))"
_EFFECTIVE_STATUS = f"CASE WHEN {_DEAD} THEN 'interrupted' ELSE status END"
_SELECT_RUNS = (f"SELECT *, {_EFFECTIVE_STATUS} AS effective_status, CASE WHEN {_DEAD} "
                f"THEN COALESCE(last_event_at, started_at) ELSE ended_at END AS effective_ended_at"
                f" FROM runs")
_ORDER_KEYS = ("started_at", "ended_at", "id", "cost", "steps", "event_count")


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _string_leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _string_leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _string_leaves(v)


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidRecordError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def _utf8(name: str, value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidRecordError(
            f"{name} is not valid Unicode at character {exc.start} (a lone surrogate); "
            f"decode the bytes with errors='replace'") from None
    return value


@dataclass
class _OpenRun:
    """A run this store is writing: its lock and where its chain stands."""

    lock: RunLock
    genesis: str
    next_seq: int
    prev_hash: str
    # Set while an append is in flight: if it is cut short (an exception, Ctrl-C between
    # COMMIT and the update below), the chain position is re-read from the database.
    unsure: bool = False


class TraceStore:
    """One trace store file. Thread-safe; use one instance per process and writer."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, readonly: bool = False,
                 busy_timeout: float = 10.0):
        self.path: Path = resolve_path(path)
        self.readonly = readonly
        self.busy_timeout = busy_timeout
        self._mutex = threading.RLock()
        self._db: Database | None = None
        self._open: dict[int, _OpenRun] = {}
        self._locks = lock_dir(self.path)
        self.snapshot_note: str | None = None   # set when opened as a read-only snapshot
        if check_existing(self.path, readonly=readonly):
            self._connect()
            self._reap()

    # ---------------------------------------------------------------- opening
    def _connect(self) -> None:
        why = unwritable_reason(self.path) if self.readonly else None
        if why:
            wal = self.path.with_name(self.path.name + "-wal")
            self.snapshot_note = (
                f"{self.path} opened as a read-only snapshot ({why})" +
                (f"; events in {wal.name} not yet copied into it are not shown"
                 if wal.exists() and wal.stat().st_size else ""))
        self._db = open_database(self.path, readonly=self.readonly,
                                 busy_timeout=self.busy_timeout, immutable=bool(why))

    def check_writable(self) -> None:
        """Raise StoreNotWritableError now if runs cannot be recorded here (read-only
        filesystem, no permission) rather than at the first write."""
        why = unwritable_reason(self.path)
        if why:
            raise not_writable_error(self.path, why)

    def _guard(self) -> AbstractContextManager[None]:
        return translate_errors(self.path, self.busy_timeout)

    def _reader(self) -> Database | None:
        if self._db is None and check_existing(self.path, readonly=self.readonly):
            self._connect()
        return self._db

    def _writer(self) -> Database:
        if self.readonly:
            raise ReadOnlyStoreError(f"{self.path}: opened read-only; open TraceStore("
                                     f"path) without readonly=True to record runs")
        if self._db is None:
            check_existing(self.path, readonly=False)
            self._connect()
        assert self._db is not None
        return self._db

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._writer().conn
        with self._guard():
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Runs still open here end as 'interrupted' (their writer stopped without
        finishing them); then the connection closes."""
        with self._mutex:
            for run_id in list(self._open):
                try:
                    self.finish_run(run_id, "interrupted")
                except TraceStoreError:
                    self._open.pop(run_id).lock.release()
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> TraceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- writing
    def start_run(self, accelerator: str, task: str, config: str, *, agent: str,
                  model: str | None = None, settings: Mapping[str, Any] | None = None,
                  versions: Mapping[str, Any] | None = None) -> int:
        """Record a new run as 'running' and return its id. `versions` adds to (and
        overrides) the package version, git commit and ISA hash collected here."""
        for name, value in (("accelerator", accelerator), ("task", task),
                            ("config", config), ("agent", agent)):
            if not isinstance(value, str) or not value.strip():
                raise InvalidRecordError(f"{name} must be a non-empty string, got {value!r}")
        if model is not None and not isinstance(model, str):
            raise InvalidRecordError(f"model must be a string or None, got {model!r}")
        if settings is not None and not isinstance(settings, Mapping):
            raise InvalidRecordError(f"settings must be a dict, got {type(settings).__name__}")
        header = {"accelerator": accelerator, "task": task, "config": config, "agent": agent,
                  "model": model,
                  "settings": canonical_json(dict(settings or {}), what="settings"),
                  "versions": canonical_json({**collect_versions(accelerator),
                                              **dict(versions or {})}, what="versions"),
                  "started_at": _now()}
        with self._mutex:
            lock = None
            try:
                with self._transaction() as conn:
                    cur = conn.execute(
                        "INSERT INTO runs (accelerator, task, config, agent, model, settings, "
                        "versions, started_at, status, writer_pid, writer_host) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)",
                        (*header.values(), os.getpid(), HOST))
                    run_id = int(cur.lastrowid or 0)
                    # Locked before the row is visible, so no reader sees it writer-less.
                    lock = RunLock(self._locks, run_id)
                    lock.acquire()
                    reserve_space(self._locks, run_id)
            except BaseException:
                if lock is not None:
                    lock.release()
                raise
            genesis = genesis_hash({"id": run_id, **header})
            self._open[run_id] = _OpenRun(lock, genesis, 0, genesis)
        return run_id

    def _owned(self, run_id: int) -> _OpenRun:
        open_run = self._open.get(run_id)
        if open_run is not None:
            if open_run.unsure:
                with self._guard():
                    count, head = self._writer().execute(
                        "SELECT event_count, head_hash FROM runs WHERE id = ?",
                        [run_id]).fetchone()
                open_run.next_seq, open_run.prev_hash = count, head or open_run.genesis
                open_run.unsure = False
            return open_run
        current = self.run(run_id)  # raises UnknownRunError
        if current.finished:
            raise RunNotWritableError(f"run {run_id} already ended as {current.status}; "
                                      f"start a new run to record more")
        raise RunNotWritableError(
            f"run {run_id} is being written by pid {current.writer_pid} on "
            f"{current.writer_host}; only the store that started a run may write to it")

    def append(self, run_id: int, type: EventType, payload: Any = None, *,
               text: str | None = None, role: str | None = None, step: int | None = None,
               tokens_in: int = 0, tokens_out: int = 0, tokens_reasoning: int = 0,
               cost: float = 0.0, kernel_source: str | None = None) -> Event:
        """Record one event, committed before this returns. `text` is what full-text
        search sees (default: the payload's strings). `kernel_source` is stored once
        under its sha256 and the event points at it."""
        if type not in EVENT_TYPES:
            raise InvalidRecordError(f"event type {type!r} is not one of {', '.join(EVENT_TYPES)}")
        if role is not None and not isinstance(role, str):
            raise InvalidRecordError(f"role must be a string or None, got {role!r}")
        if step is not None:
            _count("step", step)
        counts = [_count(n, v) for n, v in (("tokens_in", tokens_in), ("tokens_out", tokens_out),
                                             ("tokens_reasoning", tokens_reasoning))]
        if isinstance(cost, bool) or not isinstance(cost, (int, float)) or not (
                math.isfinite(cost) and cost >= 0):
            raise InvalidRecordError(f"cost must be a finite non-negative number, got {cost!r}")
        payload_json = canonical_json({} if payload is None else payload,
                                      what=f"payload of the {type} event")
        decoded = json.loads(payload_json)
        if text is None:
            text = "\n".join(_string_leaves(decoded))
        elif not isinstance(text, str):
            raise InvalidRecordError(f"text must be a string, got {text.__class__.__name__}")
        _utf8("text", text)
        kernel_hash = None
        if kernel_source is not None:
            if not isinstance(kernel_source, str):
                raise InvalidRecordError("kernel_source must be a string")
            kernel_hash = sha256_text(_utf8("kernel_source", kernel_source))
        with self._mutex:
            open_run = self._owned(run_id)
            ev = {"run_id": run_id, "seq": open_run.next_seq, "ts": _now(), "type": type,
                  "role": role, "step": step, "payload": payload_json, "text": text,
                  "tokens_in": counts[0], "tokens_out": counts[1],
                  "tokens_reasoning": counts[2], "cost": float(cost),
                  "kernel_hash": kernel_hash, "prev_hash": open_run.prev_hash}
            ev["hash"] = event_hash(open_run.prev_hash, ev)
            open_run.unsure = True
            with self._transaction() as conn:
                if kernel_hash is not None:
                    conn.execute("INSERT OR IGNORE INTO kernels (hash, source, first_seen) "
                                 "VALUES (?, ?, ?)", (kernel_hash, kernel_source, ev["ts"]))
                conn.execute(_INSERT_EVENT, tuple(ev[c] for c in EVENT_COLUMNS))
                conn.execute(_UPDATE_TOTALS, (ev["seq"] + 1, ev["hash"], ev["ts"], step,
                                              *counts, ev["cost"], run_id))
            open_run.next_seq += 1
            open_run.prev_hash = ev["hash"]
            open_run.unsure = False
        return Event(**{**ev, "payload": decoded})

    def finish_run(self, run_id: int, status: RunStatus,
                   scores: Mapping[str, Any] | None = None) -> Run:
        """Record how a run ended and seal it (see chain.py); releases its lock."""
        if status not in FINAL_STATUSES:
            raise InvalidRecordError(f"a run ends as one of {', '.join(FINAL_STATUSES)}, "
                                     f"not {status!r}")
        if scores is not None and not isinstance(scores, Mapping):
            raise InvalidRecordError(f"scores must be a dict, got {type(scores).__name__}")
        scores_json = None if scores is None else canonical_json(dict(scores), what="scores")
        with self._mutex:
            open_run = self._owned(run_id)
            reserve_path(self._locks, run_id).unlink(missing_ok=True)   # room for the end
            final = {"status": status, "ended_at": _now(), "scores": scores_json,
                     "event_count": open_run.next_seq}
            seal = seal_hash(open_run.prev_hash, final)
            with self._transaction() as conn:
                cur = conn.execute("UPDATE runs SET status = ?, ended_at = ?, scores = ?, seal = ? "
                                   "WHERE id = ? AND status = 'running'",
                                   (status, final["ended_at"], scores_json, seal, run_id))
                if cur.rowcount != 1:
                    raise RunNotWritableError(f"run {run_id} was ended by someone else "
                                              f"while this store was writing it")
            self._open.pop(run_id).lock.release()
        return self.run(run_id)

    # ------------------------------------------------------- interrupted runs
    def _dead_writers(self, db: Database) -> list[int]:
        rows = db.execute("SELECT id, writer_host FROM runs WHERE status = 'running'").fetchall()
        return [rid for rid, host in rows
                if rid not in self._open and not writer_alive(self._locks, rid, host)]

    def _reap(self) -> list[int]:
        """Writable stores write 'interrupted' for runs whose writer is gone; read-only
        ones return the ids so that queries show them as interrupted."""
        db = self._db
        if db is None:
            return []
        with self._guard():
            dead = self._dead_writers(db)
        if dead and not self.readonly:
            with self._transaction() as conn:
                conn.executemany("UPDATE runs SET status = 'interrupted', "
                                 "ended_at = COALESCE(last_event_at, started_at) "
                                 "WHERE id = ? AND status = 'running'", [(r,) for r in dead])
            for run_id in dead:  # ids are never reused (AUTOINCREMENT), so this is stale
                lock_path(self._locks, run_id).unlink(missing_ok=True)
                reserve_path(self._locks, run_id).unlink(missing_ok=True)
            return []
        return dead

    # ---------------------------------------------------------------- reading
    def runs(self, *, accelerator: str | None = None, task: str | None = None,
             config: str | None = None, agent: str | None = None, model: str | None = None,
             status: RunStatus | None = None, order: str = "-started_at",
             limit: int | None = None) -> list[Run]:
        """Runs matching every filter given. `order` is one of started_at, ended_at, id,
        cost, steps, event_count, with a leading '-' for descending."""
        if status is not None and status not in RUN_STATUSES:
            raise InvalidRecordError(f"status {status!r} is not one of {', '.join(RUN_STATUSES)}")
        key = order.lstrip("-")
        if key not in _ORDER_KEYS:
            raise InvalidRecordError(f"cannot order runs by {order!r}; use one of "
                                     f"{', '.join(_ORDER_KEYS)} (prefix '-' for descending)")
        if limit is not None:
            _count("limit", limit)
        where, params = [], {}
        for name, value in (("accelerator", accelerator), ("task", task), ("config", config),
                            ("agent", agent), ("model", model)):
            if value is not None:
                where.append(f"{name} = :{name}")
                params[name] = value
        if status is not None:
            where.append(f"{_EFFECTIVE_STATUS} = :status")
            params["status"] = status
        direction = "DESC" if order.startswith("-") else "ASC"
        sql = (_SELECT_RUNS + (f" WHERE {' AND '.join(where)}" if where else "")
               + f" ORDER BY {key} {direction}, id {direction}"
               + (" LIMIT :limit" if limit is not None else ""))
        with self._mutex:
            db = self._reader()
            if db is None:
                return []
            dead = self._reap()
            with self._guard():
                rows = list(db.query(sql, {**params, "dead": json.dumps(dead), "limit": limit}))
        return [_run_from_row(r) for r in rows]

    def run(self, run_id: int) -> Run:
        with self._mutex:
            db = self._reader()
            rows = []
            if db is not None:
                dead = self._reap()
                with self._guard():
                    rows = list(db.query(_SELECT_RUNS + " WHERE id = :id",
                                         {"id": run_id, "dead": json.dumps(dead)}))
        if not rows:
            raise UnknownRunError(f"{self.path}: no run {run_id}; `kernelcraft runs` lists them")
        return _run_from_row(rows[0])

    def events(self, run_id: int, after_seq: int | None = None,
               limit: int | None = None) -> list[Event]:
        """Events of a run in seq order; with `after_seq`, only newer ones (for following
        a live run: remember the last seq seen and ask again)."""
        sql = (f"SELECT {', '.join(EVENT_COLUMNS)} FROM events WHERE run_id = ? AND seq > ? "
               f"ORDER BY seq" + (" LIMIT ?" if limit is not None else ""))
        params: list[Any] = [run_id, -1 if after_seq is None else after_seq]
        if limit is not None:
            params.append(_count("limit", limit))
        with self._mutex:
            db = self._reader()
            if db is None:
                raise UnknownRunError(f"{self.path}: no run {run_id} (the store is empty)")
            with self._guard():
                rows = db.execute(sql, params).fetchall()
                if not rows and db.execute("SELECT 1 FROM runs WHERE id = ?",
                                           [run_id]).fetchone() is None:
                    raise UnknownRunError(f"{self.path}: no run {run_id}; "
                                          f"`kernelcraft runs` lists them")
        return [Event(*row[:6], json.loads(row[6]), *row[7:]) for row in rows]

    def kernel(self, hash: str) -> Kernel:
        """A kernel by its sha256, or by a unique prefix of at least 6 hex digits."""
        prefix = hash.strip().lower()
        if len(prefix) < 6 or any(c not in "0123456789abcdef" for c in prefix):
            raise InvalidRecordError(f"kernel hash {hash!r}: give at least 6 hex digits")
        with self._mutex:
            db = self._reader()
            with self._guard():
                rows = [] if db is None else list(db.query(
                    "SELECT hash, source, first_seen FROM kernels WHERE hash >= ? AND hash < ? "
                    "LIMIT 2", [prefix, prefix + "g"]))
        if not rows:
            raise UnknownKernelError(f"{self.path}: no kernel with hash {prefix}")
        if len(rows) > 1:
            raise InvalidRecordError(f"kernel hash prefix {prefix} is ambiguous; give more digits")
        return Kernel(**rows[0])

    def search(self, query: str, *, run_id: int | None = None, limit: int = 50,
               raw: bool = False, mark: tuple[str, str] = ("[", "]")) -> list[SearchHit]:
        """Full-text search over event texts and kernel sources, best matches first.

        By default every word must occur (each is quoted, so any characters are safe);
        `raw=True` passes FTS5 query syntax (OR, NEAR, prefix*, "phrases") through."""
        if not isinstance(query, str) or not query.strip():
            raise SearchQueryError("empty search query; give one or more words to look for")
        match = query if raw else " ".join('"' + w.replace('"', '""') + '"'
                                           for w in query.split())
        run_filter = "" if run_id is None else " AND e.run_id = :run"
        params = {"q": match, "run": run_id, "limit": _count("limit", limit),
                  "a": mark[0], "b": mark[1]}
        with self._mutex:
            db = self._reader()
            if db is None:
                return []
            try:
                with self._guard():
                    hits = [SearchHit(r["run_id"], r["seq"], "event", r["type"], r["snip"],
                                      r["kernel_hash"], r["rank"]) for r in db.query(
                        "SELECT e.run_id, e.seq, e.type, e.kernel_hash, events_fts.rank AS rank, "
                        "snippet(events_fts, 0, :a, :b, '...', 16) AS snip FROM events_fts "
                        "JOIN events e ON e.id = events_fts.rowid WHERE events_fts MATCH :q"
                        f"{run_filter} ORDER BY rank LIMIT :limit", params)]
                    # A kernel hit points at the first event that carried it in each run.
                    hits += [SearchHit(r["run_id"], r["seq"], "kernel", r["type"], r["snip"],
                                       r["hash"], r["rank"]) for r in db.query(
                        "SELECT k.hash, k.rank, k.snip, e.run_id, MIN(e.seq) AS seq, e.type "
                        "FROM (SELECT hash, rank, snippet(kernels_fts, 1, :a, :b, '...', 16) "
                        "AS snip FROM kernels_fts WHERE kernels_fts MATCH :q ORDER BY rank "
                        "LIMIT :limit) AS k JOIN events e ON e.kernel_hash = k.hash"
                        f"{run_filter} GROUP BY k.hash, e.run_id", params)]
            except sqlite3.OperationalError as exc:
                raise SearchQueryError(f"search query {query!r} is not valid FTS5 syntax "
                                       f"({exc}); search without raw=True to match plain "
                                       f"words") from None
        hits.sort(key=lambda h: (h.rank, h.run_id, h.seq))
        return hits[:limit]

    def verify(self, run_id: int) -> Verification:
        """Check a run's hash chain, end, totals, seal and kernel sources (see chain.py)."""
        with self._mutex:
            db = self._reader()
            with self._guard():
                row = None if db is None else next(iter(db.query(
                    "SELECT * FROM runs WHERE id = ?", [run_id])), None)
                if db is None or row is None:
                    raise UnknownRunError(f"{self.path}: no run {run_id}")
                kernels = dict(db.execute(
                    "SELECT hash, source FROM kernels WHERE hash IN "
                    "(SELECT kernel_hash FROM events WHERE run_id = ?)", [run_id]).fetchall())
                events = db.query(f"SELECT {', '.join(EVENT_COLUMNS)} FROM events "
                                  f"WHERE run_id = ? ORDER BY seq", [run_id])
                checked, broken_at, problem = walk(row, events, kernels)
        return Verification(run_id, problem is None, checked, broken_at, problem,
                            sealed=row["seal"] is not None)

    def export_jsonl(self, run_id: int, fh: IO[str]) -> int:
        """Write the run, then its events in order, one JSON object per line, each
        kernel's source once before the first event that uses it. Returns lines written.
        Payloads re-serialised with chain.canonical_json hash exactly as stored."""
        run = self.run(run_id)
        fh.write(json.dumps({"record": "run", **run.__dict__}, ensure_ascii=False) + "\n")
        lines, seen = 1, set()
        for ev in self.events(run_id):
            if ev.kernel_hash is not None and ev.kernel_hash not in seen:
                seen.add(ev.kernel_hash)
                fh.write(json.dumps({"record": "kernel", **self.kernel(ev.kernel_hash).__dict__},
                                    ensure_ascii=False) + "\n")
                lines += 1
            fh.write(json.dumps({"record": "event", **ev.__dict__}, ensure_ascii=False) + "\n")
            lines += 1
        return lines


def _run_from_row(r: Mapping[str, Any]) -> Run:
    return Run(
        id=r["id"], accelerator=r["accelerator"], task=r["task"], config=r["config"],
        agent=r["agent"], model=r["model"], settings=json.loads(r["settings"]),
        versions=json.loads(r["versions"]), started_at=r["started_at"],
        ended_at=r["effective_ended_at"], status=r["effective_status"],
        scores=None if r["scores"] is None else json.loads(r["scores"]), steps=r["steps"],
        tokens_in=r["tokens_in"], tokens_out=r["tokens_out"],
        tokens_reasoning=r["tokens_reasoning"], cost=r["cost"], event_count=r["event_count"],
        head_hash=r["head_hash"], writer_pid=r["writer_pid"], writer_host=r["writer_host"],
        last_event_at=r["last_event_at"])
