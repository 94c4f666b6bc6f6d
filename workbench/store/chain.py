"""The hash chain that makes tampering with or losing events detectable.

Every run starts from a *genesis* hash over its header (what was asked, by whom, when).
Each event's hash is sha256(prev_hash + canonical JSON of its content fields), where
prev_hash is the previous event's hash (the genesis hash for seq 0). When a writer
finishes a run it *seals* it: sha256(head hash + canonical JSON of status, end time,
scores and event count). Editing a payload, deleting, inserting or reordering events,
editing the run header, or changing the final scores all break a check in `walk`.

This is the stored format: changing anything here invalidates every existing trace,
so it would need a migration that re-hashes, never a silent edit.
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import InvalidRecordError

# Fields of an event that its hash covers, in the order SCHEMA.md lists them.
EVENT_CONTENT_FIELDS = ("run_id", "seq", "ts", "type", "role", "step", "payload", "text",
                        "tokens_in", "tokens_out", "tokens_reasoning", "cost", "kernel_hash")
RUN_HEADER_FIELDS = ("id", "accelerator", "task", "config", "agent", "model", "settings",
                     "versions", "started_at")
SEAL_FIELDS = ("status", "ended_at", "scores", "event_count")


def _plain(value: Any) -> Any:
    """json.dumps fallback: numpy scalars/arrays and other `tolist()` types become lists
    or Python numbers; anything else is refused with its type named."""
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"object of type {type(value).__name__} is not JSON serialisable")


def canonical_json(value: Any, *, what: str = "value") -> str:
    """Sorted keys, no whitespace, UTF-8 kept, NaN/Infinity refused (they are not JSON
    and would not read back the same everywhere)."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False, default=_plain)
    except (TypeError, ValueError) as exc:
        raise InvalidRecordError(
            f"{what} cannot be stored as JSON: {exc}; pass plain dicts, lists, strings, "
            f"finite numbers, booleans and None (convert NaN/inf to null or a string)"
        ) from None


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def genesis_hash(header: Mapping[str, Any]) -> str:
    """Hash of a run's header fields, as stored (settings/versions as JSON text)."""
    return sha256_text("run:" + canonical_json({k: header[k] for k in RUN_HEADER_FIELDS}))


def event_hash(prev_hash: str, content: Mapping[str, Any]) -> str:
    return sha256_text(prev_hash + canonical_json({k: content[k] for k in EVENT_CONTENT_FIELDS}))


def seal_hash(head_hash: str, final: Mapping[str, Any]) -> str:
    return sha256_text("seal:" + head_hash + canonical_json({k: final[k] for k in SEAL_FIELDS}))


def walk(run: Mapping[str, Any], events: Iterable[Mapping[str, Any]],
         kernels: Mapping[str, str]) -> tuple[int, int | None, str | None]:
    """Check a run row, its event rows in seq order and the sources of the kernels they
    name. Returns (events checked, first broken seq or None, problem or None)."""
    expected_prev = genesis_hash(run)
    checked = 0
    steps = tokens_in = tokens_out = tokens_reasoning = 0
    cost = 0.0
    for ev in events:
        seq = checked
        if ev["seq"] != seq:
            if ev["seq"] > seq:
                gap = (f"seq {seq}" if ev["seq"] == seq + 1
                       else f"seqs {seq}..{ev['seq'] - 1}")
                return checked, seq, (f"{gap} missing: event deleted "
                                      f"(next present is seq {ev['seq']})")
            return checked, seq, f"seq {ev['seq']} appears where seq {seq} was expected"
        if ev["prev_hash"] != expected_prev:
            why = ("run header edited" if seq == 0
                   else "an event before it was removed, inserted or reordered")
            return checked, seq, f"seq {seq}: prev_hash does not match ({why})"
        if event_hash(ev["prev_hash"], ev) != ev["hash"]:
            return checked, seq, f"seq {seq}: content does not match its hash (event edited)"
        kh = ev["kernel_hash"]
        if kh is not None:
            if kh not in kernels:
                return checked, seq, f"seq {seq}: kernel {kh[:12]} is missing from kernels"
            if sha256_text(kernels[kh]) != kh:
                return checked, seq, f"seq {seq}: kernel {kh[:12]} source does not match its hash"
        expected_prev = ev["hash"]
        checked += 1
        steps = max(steps, ev["step"] or 0)
        tokens_in += ev["tokens_in"]
        tokens_out += ev["tokens_out"]
        tokens_reasoning += ev["tokens_reasoning"]
        cost += ev["cost"]
    if run["event_count"] != checked:
        return checked, checked, (f"run records {run['event_count']} events but {checked} are "
                                  f"present: events lost from the end")
    head = expected_prev if checked else None
    if run["head_hash"] != head:
        return checked, checked, "run head_hash does not match the last event"
    totals = {"steps": steps, "tokens_in": tokens_in, "tokens_out": tokens_out,
              "tokens_reasoning": tokens_reasoning}
    for name, value in totals.items():
        if run[name] != value:
            return checked, None, f"run total {name}={run[name]} but the events sum to {value}"
    if not math.isclose(run["cost"], cost, rel_tol=1e-9, abs_tol=1e-12):
        return checked, None, f"run total cost={run['cost']} but the events sum to {cost}"
    if run["seal"] is None and run["status"] in ("succeeded", "failed", "error"):
        return checked, None, f"run is {run['status']} but has no seal (seal removed)"
    if run["seal"] is not None and run["seal"] != seal_hash(head or expected_prev, run):
        return checked, None, "run seal does not match its status, end time, scores or events"
    return checked, None, None
