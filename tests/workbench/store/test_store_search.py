"""Full-text search over event texts and kernel sources (FTS5, kept in sync by triggers)."""
from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from kernelcraft.workbench.store import SearchQueryError, TraceStore


def test_search_finds_messages(store, make_run):
    softmax = make_run(store, task="softmax")
    gemm = make_run(store, task="gemm")
    hits = store.search("gemm kernel")
    assert [(h.run_id, h.seq, h.kind, h.event_type) for h in hits] == [
        (gemm, 0, "event", "message")]
    assert hits[0].snippet == "Write a [gemm] [kernel].\nuser"
    assert {h.run_id for h in store.search("unrolling")} == {softmax, gemm}
    assert store.search("nonexistentword") == []


def test_search_finds_kernel_text_and_points_at_the_first_event_carrying_it(store, make_run):
    first = make_run(store)
    second = make_run(store)
    hits = [h for h in store.search("V_RED_MAX") if h.kind == "kernel"]
    # KERNEL_B (the only one with V_RED_MAX) first appears at seq 6 (turn 2's tool call).
    assert sorted((h.run_id, h.seq, h.event_type) for h in hits) == [
        (first, 6, "tool_call"), (second, 6, "tool_call")]
    assert all("[V_RED_MAX]" in h.snippet for h in hits)
    assert len({h.kernel_hash for h in hits}) == 1
    assert store.kernel(hits[0].kernel_hash).source.count("V_EXP_V") == 2


def test_kernel_only_text_is_found_through_the_kernel_index(store):
    run_id = store.start_run("plena", "relu", "C1", agent="autotune")
    store.append(run_id, "kernel", {"version": 1}, kernel_source="M_MM_WO gp3, gp4\n")
    (hit,) = store.search("M_MM_WO")
    assert (hit.kind, hit.seq, hit.event_type) == ("kernel", 0, "kernel")


def test_search_can_be_limited_to_one_run(store, make_run):
    a = make_run(store)
    b = make_run(store)
    assert {h.run_id for h in store.search("softmax", run_id=b)} == {b}
    assert {h.run_id for h in store.search("V_EXP_V", run_id=a)} == {a}


def test_plain_queries_accept_any_characters(store, make_run):
    make_run(store)
    assert store.search('"unrolling" (by') != []  # quotes and brackets are just text
    with pytest.raises(SearchQueryError, match="empty search query"):
        store.search("   ")


def test_raw_queries_use_fts5_syntax_and_report_errors(store, make_run):
    run_id = make_run(store)
    assert {h.run_id for h in store.search("gemm OR softmax", raw=True)} == {run_id}
    assert store.search("unroll*", raw=True) != []
    with pytest.raises(SearchQueryError, match="not valid FTS5 syntax"):
        store.search('unbalanced "quote', raw=True)


def test_index_follows_edits_made_outside_the_store(store, make_run, db_path):
    run_id = make_run(store)
    with closing(sqlite3.connect(db_path)) as raw:
        raw.execute("UPDATE events SET text = 'rewritten words' WHERE run_id = ? AND seq = 0",
                    (run_id,))
        raw.execute("DELETE FROM events WHERE run_id = ? AND seq = 1", (run_id,))
        raw.commit()
    assert store.search("rewritten") and not store.search("Write a softmax")
    assert not [h for h in store.search("unrolling by 1") if h.seq == 1]


def test_read_only_store_searches_too(store, make_run, db_path):
    run_id = make_run(store)
    with TraceStore(db_path, readonly=True) as viewer:
        assert viewer.search("softmax")[0].run_id == run_id
