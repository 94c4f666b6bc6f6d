"""A small trace store whose report numbers are computed by hand in the tests:
model m/a on plena Level 1 (five runs: three solved, one failed with a stale
speed-up in its record, one error), and autotune on aie (one solved run)."""
from __future__ import annotations

from pathlib import Path

from kernelcraft.workbench.store import TraceStore


def _held(speedup, roofline, status="passed"):
    return {"status": status, "passed": status == "passed", "speedup": speedup,
            "roofline_fraction": roofline, "cycles": 100}


# (model, agent, accel, task, config, final status, scores, tokens in/out, cost)
RUNS = [
    ("m/a", "llm", "plena", "relu", "C1", "succeeded",
     {"correct": True, "first_correct_step": 2, "budget": 15, "held_out_seeds": _held(2.0, 0.5),
      "held_out_configs": {"H1": {"status": "passed", "passed": True, "transferable": True}}},
     (1000, 100), 0.1),
    ("m/a", "llm", "plena", "silu", "C1", "succeeded",
     {"correct": True, "first_correct_step": 4, "budget": 15, "held_out_seeds": _held(0.5, 0.25),
      "held_out_configs": {"H1": {"status": "failed", "passed": False, "transferable": False}}},
     (2000, 200), 0.2),
    ("m/a", "llm", "plena", "gemv", "C1", "failed",           # failed on held-out seeds:
     {"correct": False, "first_correct_step": 3, "budget": 15,  # its speed-up must not count
      "held_out_seeds": _held(3.0, 0.9, status="failed"),
      "held_out_configs": {"H1": {"status": "passed", "passed": True}}},
     (3000, 300), 0.3),
    ("m/a", "llm", "plena", "relu", "C2", "error",
     {"correct": False, "error": "m/a: provider unreachable", "budget": 15,
      "held_out_seeds": None, "held_out_configs": {}},
     (4000, 400), 0.4),
    ("m/a", "llm", "plena", "silu", "C2", "succeeded",        # exactly 1.5x: not fast_1.5
     {"correct": True, "first_correct_step": 1, "budget": 15, "held_out_seeds": _held(1.5, 0.75),
      "held_out_configs": {"H1": {"status": "passed", "passed": True}}},
     (0, 0), 0.0),
    (None, "autotune", "aie", "relu", "C1", "succeeded",
     {"correct": True, "first_correct_step": 1, "budget": 15, "held_out_seeds": _held(1.2, None),
      "held_out_configs": {"H1": {"status": "passed", "passed": True}}},
     (0, 0), 0.0),
]


def build(path: Path) -> Path:
    with TraceStore(path) as store:
        for model, agent, accel, task, config, status, scores, (tin, tout), cost in RUNS:
            rid = store.start_run(accel, task, config, agent=agent, model=model)
            store.append(rid, "message", {"content": "x"}, role="assistant", step=1,
                         tokens_in=tin, tokens_out=tout, cost=cost)
            store.finish_run(rid, status, scores)
        rid = store.start_run("plena", "relu", "C3", agent="llm", model="m/a")
        store.finish_run(rid, "interrupted")         # not a finished cell: left out
    return path
