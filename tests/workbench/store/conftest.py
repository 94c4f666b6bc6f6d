"""Fixtures for the trace store tests: a fresh store path and a small recorded run."""
from __future__ import annotations

from pathlib import Path

import pytest

from kernelcraft.workbench.store import TraceStore

KERNEL_A = "; softmax, first try\nloop:\n    V_EXP_V v1, v2\n    V_RED_SUM f1, v1\n"
KERNEL_B = "; softmax, unrolled\n    V_EXP_V v1, v2\n    V_EXP_V v3, v4\n    V_RED_MAX f2, v3\n"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "traces.db"


@pytest.fixture
def store(db_path: Path):
    with TraceStore(db_path) as s:
        yield s


def record_run(store: TraceStore, *, task: str = "softmax", finish: str | None = "succeeded",
               n_turns: int = 3) -> int:
    """A small run shaped like an agent's: prompt, then per turn reasoning, a tool call
    carrying a kernel, its result and an evaluation."""
    run_id = store.start_run("plena", task, "C3", agent="autotune", model=None,
                             settings={"budget": 15, "seeds": [1, 2, 3]})
    store.append(run_id, "message", {"role": "user", "content": f"Write a {task} kernel."},
                 role="user", step=0)
    for turn in range(1, n_turns + 1):
        kernel = KERNEL_A if turn % 2 else KERNEL_B
        store.append(run_id, "reasoning", {"content": f"turn {turn}: try unrolling by {turn}"},
                     role="assistant", step=turn, tokens_in=1000, tokens_out=200,
                     tokens_reasoning=50, cost=0.0125)
        store.append(run_id, "tool_call", {"name": "write_code", "arguments": {"code": kernel}},
                     role="assistant", step=turn, kernel_source=kernel)
        store.append(run_id, "tool_result", {"name": "write_code", "content": "ok"},
                     role="tool", step=turn)
        store.append(run_id, "evaluation", {"passed": turn > 1, "cycles": 1000 - turn},
                     step=turn)
    if finish is not None:
        store.finish_run(run_id, finish, {"correct": True, "speedup": 1.25})
    return run_id


@pytest.fixture
def make_run():
    """record_run, as a fixture so that test modules need not import conftest."""
    return record_run
