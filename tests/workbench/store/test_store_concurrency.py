"""Readers alongside a writer (WAL), a busy write lock, concurrent first opens, and
writers that die: a run killed with SIGKILL leaves a consistent, verifiable database
and reads as interrupted."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from contextlib import closing

import pytest

from kernelcraft.workbench.store import StoreBusyError, TraceStore
from kernelcraft.workbench.store.schema import known_names

WRITER = textwrap.dedent("""
    import sys
    from kernelcraft.workbench.store import TraceStore
    store = TraceStore(sys.argv[1])
    run_id = store.start_run("plena", "softmax", "C2", agent="killtest")
    print(run_id, flush=True)
    i = 0
    while True:  # written until killed
        store.append(run_id, "kernel" if i % 4 == 0 else "message",
                     {"i": i, "content": "softmax row " * 200},
                     kernel_source=("V_EXP_V v%d, v1\\n" % i) * 300 if i % 4 == 0 else None,
                     step=i // 4, tokens_in=100, tokens_out=10, cost=0.001)
        i += 1
""")


def test_reader_is_not_blocked_by_an_open_write_transaction(store, make_run, db_path):
    run_id = make_run(store, finish=None)
    viewer = TraceStore(db_path, readonly=True)
    before = viewer.events(run_id)
    with closing(sqlite3.connect(db_path, isolation_level=None)) as other_writer:
        other_writer.execute("BEGIN IMMEDIATE")
        other_writer.execute("INSERT INTO kernels VALUES (?, 'uncommitted_kernel', 'now')",
                             ("f" * 64,))
        start = time.monotonic()
        assert viewer.events(run_id) == before
        assert viewer.run(run_id).status == "running"
        assert viewer.search("uncommitted_kernel") == []  # sees only committed data
        assert time.monotonic() - start < 1.0
        other_writer.execute("ROLLBACK")
    viewer.close()


def test_viewer_follows_a_live_run_incrementally(store, db_path):
    run_id = store.start_run("plena", "gelu", "C1", agent="autotune")
    viewer = TraceStore(db_path, readonly=True)
    seen = -1
    for i in range(6):
        store.append(run_id, "note", {"i": i})
        new = viewer.events(run_id, after_seq=seen)
        assert [e.seq for e in new] == [i]  # each event visible as soon as append returns
        seen = new[-1].seq
    assert viewer.run(run_id).event_count == 6
    store.finish_run(run_id, "failed")
    assert viewer.run(run_id).status == "failed"
    viewer.close()


def test_busy_write_lock_is_a_named_error_and_the_chain_survives(db_path):
    store = TraceStore(db_path, busy_timeout=0.2)
    run_id = store.start_run("plena", "gelu", "C1", agent="autotune")
    store.append(run_id, "note", {"i": 0})
    with closing(sqlite3.connect(db_path, isolation_level=None)) as other_writer:
        other_writer.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreBusyError, match="held the write lock for more than 0.2s"):
            store.append(run_id, "note", {"i": 1})
        other_writer.execute("ROLLBACK")
    store.append(run_id, "note", {"i": 1})
    assert [e.seq for e in store.events(run_id)] == [0, 1] and store.verify(run_id).ok
    store.close()


def test_concurrent_first_opens_create_the_schema_once(db_path):
    """Threads and processes opening a store that does not exist yet, all at once."""
    child = ("import sys\nfrom workbench.store import TraceStore\n"
             "with TraceStore(sys.argv[1]) as s:\n"
             "    r = s.start_run('plena', 'relu', 'C1', agent='autotune')\n"
             "    s.append(r, 'note', {'hello': 2})\n    s.finish_run(r, 'succeeded')\n")
    procs = [subprocess.Popen([sys.executable, "-c", child, str(db_path)],
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    errors, run_ids = [], []

    def writer() -> None:
        try:
            with TraceStore(db_path) as s:
                run_id = s.start_run("plena", "relu", "C1", agent="autotune")
                s.append(run_id, "note", {"hello": 1})
                s.finish_run(run_id, "succeeded")
                run_ids.append(run_id)
        except Exception as exc:  # reported below with its type
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for proc in procs:
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
    assert errors == [] and len(run_ids) == 4
    with TraceStore(db_path) as store:
        runs = store.runs()
        assert len(runs) == 6 and all(store.verify(r.id).ok for r in runs)
    with closing(sqlite3.connect(db_path)) as raw:
        assert raw.execute("SELECT COUNT(*) FROM _migrations").fetchone() == (len(known_names()),)
    assert [p.name for p in db_path.parent.iterdir() if p.name.endswith(".new")] == []


def _start_writer(db_path) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db_path)],
                            stdout=subprocess.PIPE, text=True)
    return proc, int(proc.stdout.readline())


def _wait_for_events(db_path, run_id: int, count: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    with TraceStore(db_path, readonly=True) as viewer:
        while viewer.run(run_id).event_count < count:
            assert time.monotonic() < deadline, "writer subprocess made no progress"
            time.sleep(0.005)


def test_sigkill_mid_run_leaves_a_consistent_store(db_path):
    killed = []
    for target, extra_delay in ((5, 0.0), (40, 0.013), (90, 0.031)):
        proc, run_id = _start_writer(db_path)
        _wait_for_events(db_path, run_id, target)
        time.sleep(extra_delay)  # land at an arbitrary point of an append
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=10) == -signal.SIGKILL
        proc.stdout.close()
        killed.append(run_id)

    with closing(sqlite3.connect(db_path)) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []

    # A read-only viewer shows the dead writers' runs as interrupted without writing.
    with TraceStore(db_path, readonly=True) as viewer:
        shown = viewer.runs(order="id")
        assert [r.status for r in shown] == ["interrupted"] * 3
        assert all(r.ended_at == r.last_event_at is not None for r in shown)
        assert [r.id for r in viewer.runs(status="running")] == []
    # Each new writer's open already recorded the runs killed before it; the last one
    # is still 'running' in the file.
    with closing(sqlite3.connect(db_path)) as raw:
        assert raw.execute("SELECT status FROM runs ORDER BY id").fetchall() == [
            ("interrupted",), ("interrupted",), ("running",)]

    # A writable store records it, and every recorded event verifies.
    with TraceStore(db_path) as store:
        for run_id in killed:
            run = store.run(run_id)
            events = store.events(run_id)
            assert run.status == "interrupted" and run.ended_at == run.last_event_at
            assert [e.seq for e in events] == list(range(run.event_count))
            result = store.verify(run_id)
            assert result.ok and not result.sealed, result.problem
            assert result.events_checked >= 5
            for e in events:
                if e.kernel_hash:
                    store.kernel(e.kernel_hash)
    with closing(sqlite3.connect(db_path)) as raw:
        assert raw.execute("SELECT DISTINCT status FROM runs").fetchall() == [("interrupted",)]
    locks = db_path.parent / "traces.db-locks"
    assert not any(p.name.startswith("run-") for p in locks.iterdir())  # stale ones removed


def test_writer_that_exits_without_finishing_reads_as_interrupted(db_path):
    script = ("import os, sys\nfrom workbench.store import TraceStore\n"
              "s = TraceStore(sys.argv[1])\n"
              "r = s.start_run('plena', 'relu', 'C1', agent='autotune')\n"
              "s.append(r, 'note', {'x': 1})\nos._exit(3)\n")
    subprocess.run([sys.executable, "-c", script, str(db_path)], check=False, timeout=30)
    with TraceStore(db_path) as store:
        (run,) = store.runs()
        assert run.status == "interrupted" and run.writer_pid != os.getpid()
        assert store.verify(run.id).ok


def test_live_writer_in_another_process_reads_as_running(db_path):
    proc, run_id = _start_writer(db_path)
    try:
        _wait_for_events(db_path, run_id, 3)
        with TraceStore(db_path) as store:
            assert store.run(run_id).status == "running"
            assert store.run(run_id).writer_pid == proc.pid
    finally:
        proc.kill()
        proc.wait(timeout=10)
        proc.stdout.close()
    with TraceStore(db_path) as store:
        assert store.run(run_id).status == "interrupted"
