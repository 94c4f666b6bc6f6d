"""Importing a run recorded in another store (a sweep worker's private one) as one
transaction, so that a store has a single writer however many processes or machines
ran the cells.

The input is what `TraceStore.export_jsonl` writes: the run record, each kernel once,
the events in order. The run gets a new id here; since the id is part of the genesis
and of every event's hash, the chain is rebuilt under the new id with every other
field (timestamps included) kept as recorded, and the run is sealed again. A run is
imported only once it has ended.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .chain import canonical_json, event_hash, genesis_hash, seal_hash, sha256_text
from .errors import InvalidRecordError
from .records import FINAL_STATUSES

_RUN_COLUMNS = ("accelerator", "task", "config", "agent", "model", "settings", "versions",
                "started_at", "ended_at", "status", "scores", "steps", "tokens_in",
                "tokens_out", "tokens_reasoning", "cost", "event_count", "head_hash", "seal",
                "writer_pid", "writer_host", "last_event_at")


def parse_export(text: str) -> tuple[dict, dict[str, str], list[dict]]:
    """(run, kernels by hash, events) from export_jsonl text."""
    run, kernels, events = None, {}, []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        rec = json.loads(line)
        kind = rec.pop("record", None)
        if kind == "run":
            run = rec
        elif kind == "kernel":
            kernels[rec["hash"]] = rec["source"]
        elif kind == "event":
            events.append(rec)
        else:
            raise InvalidRecordError(f"exported run, line {n}: unknown record {kind!r}")
    if run is None:
        raise InvalidRecordError("exported run has no run record")
    return run, kernels, events


def import_run(store, text: str, then: Callable[[Any, int], None] | None = None) -> int:
    """Add the exported run to `store` under a new id and return it. `then(conn, run_id)`
    runs inside the same transaction (a sweep marks its cell done there), so the run
    and what refers to it are committed together or not at all."""
    run, kernels, events = parse_export(text)
    if run["status"] not in FINAL_STATUSES:
        raise InvalidRecordError(f"run {run['id']} is still {run['status']}; only ended "
                                 f"runs are imported")
    for h, src in kernels.items():
        if sha256_text(src) != h:
            raise InvalidRecordError(f"exported kernel {h[:12]} does not match its source")
    header = {k: run[k] for k in ("accelerator", "task", "config", "agent", "model",
                                  "started_at")}
    header["settings"] = canonical_json(run["settings"], what="settings")
    header["versions"] = canonical_json(run["versions"], what="versions")
    scores = None if run["scores"] is None else canonical_json(run["scores"], what="scores")
    with store._mutex, store._transaction() as conn:
        cur = conn.execute(
            f"INSERT INTO runs ({', '.join(_RUN_COLUMNS)}) VALUES "
            f"({', '.join('?' * len(_RUN_COLUMNS))})",
            (*(header[k] for k in ("accelerator", "task", "config", "agent", "model",
                                   "settings", "versions", "started_at")),
             run["ended_at"], run["status"], scores, 0, 0, 0, 0, 0.0, 0, None, None,
             run["writer_pid"], run["writer_host"], run["last_event_at"]))
        run_id = int(cur.lastrowid or 0)
        prev = genesis_hash({"id": run_id, **header})
        totals = [0, 0, 0, 0, 0.0]
        for seq, ev in enumerate(events):
            if ev["seq"] != seq:
                raise InvalidRecordError(f"exported run {run['id']}: event seq {ev['seq']} "
                                         f"where {seq} was expected")
            row = {**ev, "run_id": run_id, "payload": canonical_json(ev["payload"]),
                   "prev_hash": prev}
            row["hash"] = prev = event_hash(prev, row)
            if row["kernel_hash"] is not None:
                conn.execute("INSERT OR IGNORE INTO kernels (hash, source, first_seen) "
                             "VALUES (?, ?, ?)",
                             (row["kernel_hash"], kernels[row["kernel_hash"]], row["ts"]))
            cols = ("run_id", "seq", "ts", "type", "role", "step", "payload", "text",
                    "tokens_in", "tokens_out", "tokens_reasoning", "cost", "kernel_hash",
                    "prev_hash", "hash")
            conn.execute(f"INSERT INTO events ({', '.join(cols)}) VALUES "
                         f"({', '.join('?' * len(cols))})", tuple(row[c] for c in cols))
            totals[0] = max(totals[0], row["step"] or 0)
            for i, k in enumerate(("tokens_in", "tokens_out", "tokens_reasoning", "cost"), 1):
                totals[i] += row[k]
        head = prev if events else None
        seal = seal_hash(head or prev, {"status": run["status"], "ended_at": run["ended_at"],
                                        "scores": scores, "event_count": len(events)})
        conn.execute("UPDATE runs SET steps = ?, tokens_in = ?, tokens_out = ?, "
                     "tokens_reasoning = ?, cost = ?, event_count = ?, head_hash = ?, seal = ? "
                     "WHERE id = ?", (*totals, len(events), head, seal, run_id))
        if then is not None:
            then(conn, run_id)
    return run_id
