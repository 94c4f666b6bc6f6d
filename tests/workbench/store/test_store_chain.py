"""The hash chain catches edited, deleted, reordered or inserted events, an edited run
header, edited final scores and edited kernel sources. Edits go straight to SQLite, as
someone tampering with the file would do."""
from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest


def tamper(db_path, *statements: tuple[str, tuple]) -> None:
    with closing(sqlite3.connect(db_path)) as raw:
        for sql, params in statements:
            raw.execute(sql, params)
        raw.commit()


@pytest.fixture
def recorded(store, make_run, db_path):
    run_id = make_run(store, n_turns=3)  # 13 events, seq 0..12
    assert store.verify(run_id).ok and store.verify(run_id).events_checked == 13
    return store, run_id, db_path


def test_intact_run_verifies_and_is_sealed(recorded):
    store, run_id, _ = recorded
    result = store.verify(run_id)
    assert result.ok and result.sealed and result.broken_at is None and result.problem is None


def test_unfinished_run_verifies_without_seal(store, make_run):
    run_id = make_run(store, finish=None)
    result = store.verify(run_id)
    assert result.ok and not result.sealed


def test_edited_payload_is_detected(recorded):
    store, run_id, db_path = recorded
    tamper(db_path, ("UPDATE events SET payload = ? WHERE run_id = ? AND seq = 4",
                     ('{"cycles":1,"passed":true}', run_id)))
    result = store.verify(run_id)
    assert not result.ok and result.broken_at == 4
    assert "content does not match its hash (event edited)" in result.problem


def test_edited_text_or_tokens_are_detected(recorded):
    store, run_id, db_path = recorded
    tamper(db_path, ("UPDATE events SET tokens_in = 1 WHERE run_id = ? AND seq = 5", (run_id,)))
    assert store.verify(run_id).broken_at == 5


def test_deleted_event_is_detected_as_a_gap(recorded):
    store, run_id, db_path = recorded
    tamper(db_path, ("DELETE FROM events WHERE run_id = ? AND seq = 6", (run_id,)))
    result = store.verify(run_id)
    assert not result.ok and result.broken_at == 6
    assert "seq 6 missing: event deleted (next present is seq 7)" in result.problem


def test_deleted_last_event_is_detected_from_the_run_record(recorded):
    store, run_id, db_path = recorded
    tamper(db_path, ("DELETE FROM events WHERE run_id = ? AND seq = 12", (run_id,)))
    result = store.verify(run_id)
    assert not result.ok and result.broken_at == 12
    assert "run records 13 events but 12 are present" in result.problem


def test_reordered_seq_is_detected(recorded):
    store, run_id, db_path = recorded
    swap = "UPDATE events SET seq = ? WHERE run_id = ? AND seq = ?"
    tamper(db_path, (swap, (-1, run_id, 3)), (swap, (3, run_id, 4)), (swap, (4, run_id, -1)))
    result = store.verify(run_id)
    assert not result.ok and result.broken_at == 3
    assert "prev_hash does not match" in result.problem


def test_rehashed_edit_is_still_caught_by_the_next_event(recorded):
    """An editor who recomputes the edited event's own hash breaks its successor."""
    from kernelcraft.workbench.store.chain import event_hash
    store, run_id, db_path = recorded
    ev = store.events(run_id)[2].__dict__ | {"payload": '{"name":"write_code"}'}
    tamper(db_path, ("UPDATE events SET payload = ?, hash = ? WHERE run_id = ? AND seq = 2",
                     (ev["payload"], event_hash(ev["prev_hash"], ev), run_id)))
    result = store.verify(run_id)
    assert result.broken_at == 3 and "prev_hash does not match" in result.problem


def test_edited_run_header_breaks_seq_0(recorded):
    store, run_id, db_path = recorded
    tamper(db_path, ("UPDATE runs SET config = 'C1' WHERE id = ?", (run_id,)))
    result = store.verify(run_id)
    assert result.broken_at == 0 and "run header edited" in result.problem


def test_edited_scores_break_the_seal(recorded):
    store, run_id, db_path = recorded
    tamper(db_path, ("UPDATE runs SET scores = '{\"correct\":true,\"speedup\":9.0}' "
                     "WHERE id = ?", (run_id,)))
    result = store.verify(run_id)
    assert not result.ok and result.broken_at is None and "seal does not match" in result.problem


def test_removed_seal_and_edited_totals_are_detected(recorded):
    store, run_id, db_path = recorded
    tamper(db_path, ("UPDATE runs SET seal = NULL WHERE id = ?", (run_id,)))
    assert "has no seal" in store.verify(run_id).problem
    tamper(db_path, ("UPDATE runs SET cost = 0 WHERE id = ?", (run_id,)))
    assert "run total cost=0" in store.verify(run_id).problem


def test_edited_kernel_source_is_detected(recorded):
    store, run_id, db_path = recorded
    tamper(db_path, ("UPDATE kernels SET source = source || 'nop' WHERE hash = "
                     "(SELECT kernel_hash FROM events WHERE run_id = ? AND seq = 2)", (run_id,)))
    result = store.verify(run_id)
    assert result.broken_at == 2 and "source does not match its hash" in result.problem


def test_other_runs_are_unaffected(recorded, make_run):
    store, run_id, db_path = recorded
    other = make_run(store)
    tamper(db_path, ("DELETE FROM events WHERE run_id = ? AND seq = 0", (run_id,)))
    assert not store.verify(run_id).ok and store.verify(other).ok
