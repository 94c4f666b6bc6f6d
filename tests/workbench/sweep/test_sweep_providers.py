"""Sweeps over network models: Retry-After honoured, an unreachable provider is one
short error per cell (retried on the next run of the sweep), --max-cost stops starting
cells, a provider's concurrency limit holds; scripted test models run offline."""
from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.store import TraceStore

from .conftest import env

_spec = importlib.util.spec_from_file_location(
    "agent_test_server", Path(__file__).parents[1] / "agent" / "conftest.py")
_agent_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_agent_conftest)


class RetryAfterServer(_agent_conftest.ScriptedOpenAI):
    """The agent tests' 127.0.0.1 OpenAI server, asking for a 1 s wait on errors."""

    def answer(self, path, body):
        status, headers, out = super().answer(path, body)
        return status, ({**headers, "Retry-After": "1"} if status >= 400 else headers), out


def sweep(db: Path, *args, extra_env=None) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "kernelcraft.workbench.cli", "sweep", "--traces", str(db),
                        "--plain", "--json", *args], env={**env(), **(extra_env or {})},
                       capture_output=True, text=True, timeout=600)
    return r, time.monotonic() - t0


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_retry_after_is_honoured_in_a_sweep(tmp_path):
    accel = get_accel("plena")
    source = accel.baseline("relu", "C1", accel.default_config())
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
             for i, (n, a) in enumerate([("write_code", json.dumps({"code": source})),
                                         ("run_eval", "{}"), ("submit", "{}")])]
    server = RetryAfterServer([("status", 429), ("reply", {"role": "assistant",
                                                           "content": "baseline",
                                                           "tool_calls": calls})])
    try:
        r, _ = sweep(tmp_path / "t.db", "--models", "openai/gpt-4o", "--accels", "plena",
                     "--tasks", "relu", "--configs", "C1", "--budget", "2",
                     "--api-base", server.url, extra_env={"OPENAI_API_KEY": "sk-test"})
    finally:
        server.close()
    assert r.returncode == 0, r.stderr
    with TraceStore(tmp_path / "t.db", readonly=True) as store:
        (run,) = store.runs()
        assert run.status == "succeeded" and run.cost > 0 and run.tokens_in == 1200
        retries = [e.payload for e in store.events(run.id)
                   if e.type == "note" and e.payload.get("kind") == "retry"]
        assert [(x["status"], x["wait"]) for x in retries] == [(429, 1.0)]


def test_unreachable_provider_is_one_short_error_and_is_retried(tmp_path):
    db = tmp_path / "t.db"
    port = closed_port()
    args = ["--models", "openai/gpt-4o,scripted/baseline,scripted/give-up", "--accels", "plena",
            "--tasks", "relu", "--configs", "C1", "--budget", "3", "--jobs", "2",
            "--api-base", f"http://127.0.0.1:{port}"]
    r, seconds = sweep(db, *args, extra_env={"OPENAI_API_KEY": "sk-test"})
    assert r.returncode == 1, r.stderr
    s = json.loads(r.stdout)
    assert s["statuses"] == {"error": 1, "succeeded": 1, "failed": 1}
    (err,) = s["errors"]
    assert err.startswith("openai/gpt-4o|plena|relu|C1|r0: openai/gpt-4o: provider unreachable "
                          f"at http://127.0.0.1:{port}: connection refused (2 attempts)")
    assert "status 500" not in err and seconds < 90
    with TraceStore(db, readonly=True) as store:
        by_model = {r.model: r for r in store.runs()}
        assert by_model["openai/gpt-4o"].status == "error"
        assert by_model["scripted/baseline"].tokens_in > 0
        assert by_model["scripted/give-up"].scores["correct"] is False
    again, _ = sweep(db, *args, extra_env={"OPENAI_API_KEY": "sk-test"})
    s2 = json.loads(again.stdout)
    assert (s2["already_done"], s2["ran"], s2["statuses"]) == (2, 1, {"error": 1})


def test_max_cost_stops_new_cells_and_the_provider_limit_holds(tmp_path):
    db = tmp_path / "t.db"
    r, _ = sweep(db, "--models", "openai/gpt-4o", "--accels", "plena", "--tasks",
                 "relu,silu,gemv", "--configs", "C1,C2", "--budget", "1", "--jobs", "2",
                 "--model-param", "mock_response=Let me think.", "--provider-limit", "openai=1",
                 "--max-cost", "0.0003")
    assert r.returncode == 1, r.stderr
    s = json.loads(r.stdout)
    # Each cell costs $0.000225 (litellm's mock usage): after two the budget is spent.
    assert (s["ran"], s["not_started"], s["stopped_by_cost"]) == (2, 4, True)
    with TraceStore(db, readonly=True) as store:
        runs = sorted(store.runs(), key=lambda r: r.started_at)

    def t(x):
        return datetime.strptime(x, "%Y-%m-%dT%H:%M:%S.%fZ")
    assert len(runs) == 2 and t(runs[0].ended_at) <= t(runs[1].started_at)   # one at a time
