"""Writing a run and reading it back: fields, totals, kernels, filters, export."""
from __future__ import annotations

import io
import json
import sqlite3
from contextlib import closing

import pytest

from kernelcraft.workbench.store import (InvalidRecordError, ReadOnlyStoreError,
                                         RunNotWritableError, TraceStore, UnknownKernelError,
                                         UnknownRunError)
from kernelcraft.workbench.store.chain import canonical_json, event_hash, sha256_text


def test_round_trip_of_run_and_events(store, make_run):
    run_id = make_run(store, n_turns=2)
    run = store.run(run_id)
    assert (run.accelerator, run.task, run.config, run.agent, run.model) == (
        "plena", "softmax", "C3", "autotune", None)
    assert run.settings == {"budget": 15, "seeds": [1, 2, 3]}
    assert run.status == "succeeded" and run.scores == {"correct": True, "speedup": 1.25}
    assert run.ended_at is not None and run.started_at <= run.ended_at
    assert set(run.versions) >= {"kernelcraft", "git_commit", "isa_hash"}
    assert run.versions["isa_hash"] and len(run.versions["isa_hash"]) == 64
    # Totals are the sums of the events' accounting.
    assert (run.steps, run.tokens_in, run.tokens_out, run.tokens_reasoning) == (2, 2000, 400, 100)
    assert run.cost == pytest.approx(0.025)
    events = store.events(run_id)
    assert [e.seq for e in events] == list(range(9)) == list(range(run.event_count))
    assert [e.type for e in events[:5]] == ["message", "reasoning", "tool_call", "tool_result",
                                            "evaluation"]
    assert events[0].payload == {"role": "user", "content": "Write a softmax kernel."}
    assert events[0].role == "user" and events[0].step == 0
    assert events[1].tokens_in == 1000 and events[1].cost == 0.0125
    assert events[0].text == "Write a softmax kernel.\nuser"  # default: payload strings, key order
    assert events[1].prev_hash == events[0].hash and run.head_hash == events[-1].hash
    assert events[2].kernel_hash and store.kernel(events[2].kernel_hash).source.startswith(
        "; softmax, first try")


def test_append_returns_what_a_reader_gets(store):
    run_id = store.start_run("plena", "gemm", "C1", agent="autotune")
    written = store.append(run_id, "note", {"tuple": (1, 2), "nested": {"b": 1, "a": [None]}},
                           text="custom searchable text")
    (read,) = store.events(run_id)
    assert written == read
    assert read.payload == {"tuple": [1, 2], "nested": {"a": [None], "b": 1}}
    assert read.text == "custom searchable text"


def test_kernels_are_stored_once_by_content_hash(store, make_run, db_path):
    first = make_run(store, n_turns=4)   # alternating KERNEL_A and KERNEL_B
    second = make_run(store, n_turns=4)
    with closing(sqlite3.connect(db_path)) as raw:
        (n_kernels,) = raw.execute("SELECT COUNT(*) FROM kernels").fetchone()
        (n_refs,) = raw.execute(
            "SELECT COUNT(*) FROM events WHERE kernel_hash IS NOT NULL").fetchone()
    assert (n_kernels, n_refs) == (2, 8)
    hashes = {e.kernel_hash for r in (first, second) for e in store.events(r) if e.kernel_hash}
    for h in hashes:
        k = store.kernel(h)
        assert sha256_text(k.source) == h == k.hash
    assert store.kernel(next(iter(hashes))[:8]).hash in hashes  # unique prefix
    with pytest.raises(UnknownKernelError, match="no kernel with hash 000000"):
        store.kernel("000000")
    with pytest.raises(InvalidRecordError, match="at least 6 hex digits"):
        store.kernel("xyz")


def test_runs_filters_order_and_limit(store, make_run):
    a = make_run(store, task="softmax")
    b = make_run(store, task="gemm", finish="failed")
    c = make_run(store, task="gemm", finish=None)
    assert [r.id for r in store.runs()] == [c, b, a]  # newest first
    assert [r.id for r in store.runs(order="started_at")] == [a, b, c]
    assert [r.id for r in store.runs(task="gemm")] == [c, b]
    assert [r.id for r in store.runs(status="failed")] == [b]
    assert [r.id for r in store.runs(status="running")] == [c]  # its writer is us, alive
    assert [r.id for r in store.runs(accelerator="plena", limit=1)] == [c]
    assert store.runs(model="openai/gpt-5.2") == []
    with pytest.raises(InvalidRecordError, match="cannot order runs by 'speed'"):
        store.runs(order="speed")
    with pytest.raises(InvalidRecordError, match="status 'done' is not one of"):
        store.runs(status="done")


def test_events_after_seq_reads_only_new_events(store):
    run_id = store.start_run("plena", "relu", "C1", agent="autotune")
    for i in range(5):
        store.append(run_id, "note", {"i": i})
    assert [e.seq for e in store.events(run_id, after_seq=2)] == [3, 4]
    assert store.events(run_id, after_seq=4) == []
    assert [e.seq for e in store.events(run_id, after_seq=0, limit=2)] == [1, 2]
    with pytest.raises(UnknownRunError, match="no run 99"):
        store.events(99)
    with pytest.raises(UnknownRunError, match="no run 99"):
        store.run(99)


@pytest.mark.parametrize("kwargs, message", [
    ({"type": "thought"}, "event type 'thought' is not one of"),
    ({"payload": {"err": float("nan")}}, "payload of the note event cannot be stored as JSON"),
    ({"payload": {"obj": object()}}, "object of type object is not JSON serialisable"),
    ({"tokens_in": -1}, "tokens_in must be a non-negative integer"),
    ({"tokens_out": 1.5}, "tokens_out must be a non-negative integer"),
    ({"cost": float("inf")}, "cost must be a finite non-negative number"),
    ({"step": -2}, "step must be a non-negative integer"),
    ({"text": "bad \ud800 surrogate"}, "text is not valid Unicode at character 4"),
])
def test_invalid_events_are_refused_and_nothing_is_written(store, kwargs, message):
    run_id = store.start_run("plena", "relu", "C1", agent="autotune")
    args = {"type": "note", "payload": {"ok": 1}, **kwargs}
    with pytest.raises(InvalidRecordError, match=message):
        store.append(run_id, args.pop("type"), args.pop("payload"), **args)
    assert store.events(run_id) == [] and store.run(run_id).event_count == 0
    store.append(run_id, "note", {"ok": 1})  # the chain carries on from where it was
    assert store.verify(run_id).ok


def test_numpy_values_in_payloads_become_plain_json(store):
    np = pytest.importorskip("numpy")
    run_id = store.start_run("plena", "relu", "C1", agent="autotune")
    ev = store.append(run_id, "evaluation", {"cycles": np.int64(7), "err": np.float32(0.5),
                                             "rows": np.arange(3)})
    assert ev.payload == {"cycles": 7, "err": 0.5, "rows": [0, 1, 2]}


def test_finished_or_foreign_runs_cannot_be_written(store, make_run, db_path):
    run_id = make_run(store)
    with pytest.raises(RunNotWritableError, match=f"run {run_id} already ended as succeeded"):
        store.append(run_id, "note", {})
    with pytest.raises(RunNotWritableError, match="already ended"):
        store.finish_run(run_id, "failed")
    with pytest.raises(InvalidRecordError, match="a run ends as one of"):
        store.finish_run(run_id, "running")
    live = store.start_run("plena", "relu", "C1", agent="autotune")
    with TraceStore(db_path) as other:
        with pytest.raises(RunNotWritableError, match="only the store that started a run"):
            other.append(live, "note", {})
    with TraceStore(db_path, readonly=True) as viewer:
        with pytest.raises(ReadOnlyStoreError, match="opened read-only"):
            viewer.start_run("plena", "relu", "C1", agent="autotune")


def test_closing_a_store_ends_its_open_runs_as_interrupted(db_path):
    with TraceStore(db_path) as store:
        run_id = store.start_run("plena", "relu", "C1", agent="autotune")
        store.append(run_id, "note", {"x": 1})
    with TraceStore(db_path) as store:
        run = store.run(run_id)
        assert run.status == "interrupted" and store.verify(run_id).sealed


def test_missing_store_is_created_on_first_write_only(tmp_path, monkeypatch):
    path = tmp_path / "from-env.db"
    monkeypatch.setenv("KERNELCRAFT_TRACES", str(path))
    store = TraceStore()
    assert store.path == path and store.runs() == [] and not path.exists()
    store.start_run("plena", "relu", "C1", agent="autotune")
    assert path.exists()
    with closing(sqlite3.connect(path)) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    store.close()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KERNELCRAFT_TRACES")
    assert TraceStore().path.name == "traces.db"
    assert TraceStore(tmp_path / "x.db").path == tmp_path / "x.db"


def test_export_jsonl_is_self_contained_and_verifiable(store, make_run):
    run_id = make_run(store, n_turns=3)
    out = io.StringIO()
    lines = store.export_jsonl(run_id, out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(records) == lines
    assert records[0]["record"] == "run" and records[0]["id"] == run_id
    kinds = [r["record"] for r in records]
    assert kinds.count("kernel") == 2 and kinds.count("event") == store.run(run_id).event_count
    seen = set()
    for r in records[1:]:
        if r["record"] == "kernel":
            seen.add(r["hash"])
            assert sha256_text(r["source"]) == r["hash"]
        else:
            assert r["kernel_hash"] is None or r["kernel_hash"] in seen  # source came first
            content = {**r, "payload": canonical_json(r["payload"])}
            assert event_hash(r["prev_hash"], content) == r["hash"]


def test_append_cut_short_after_commit_resumes_the_chain(store, monkeypatch):
    """Ctrl-C landing after an event's COMMIT but before the store notes it."""
    from contextlib import contextmanager
    run_id = store.start_run("plena", "relu", "C1", agent="autotune")
    store.append(run_id, "note", {"i": 0})
    original = TraceStore._transaction

    @contextmanager
    def commit_then_interrupt(self):
        with original(self) as conn:
            yield conn
        raise KeyboardInterrupt

    monkeypatch.setattr(TraceStore, "_transaction", commit_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        store.append(run_id, "note", {"i": 1})
    monkeypatch.undo()
    store.append(run_id, "note", {"i": 2})
    store.finish_run(run_id, "interrupted")
    assert [e.payload["i"] for e in store.events(run_id)] == [0, 1, 2]
    assert store.verify(run_id).ok and store.verify(run_id).sealed
