"""A real `kernelcraft run` killed with SIGKILL mid-run leaves a consistent store: the
run shows as interrupted and every event it had committed is intact."""
import os
import signal
import subprocess
import sys
import time

from kernelcraft.workbench.agent.replay import replay_run
from kernelcraft.workbench.store import TraceStore, TraceStoreError


def event_count(db) -> int:
    """Events of the first run so far; 0 while the writer is still creating the store."""
    if not db.exists():
        return 0
    try:
        with TraceStore(db, readonly=True) as reader:
            runs = reader.runs()
            return runs[0].event_count if runs else 0
    except TraceStoreError:
        return 0


def test_sigkill_mid_run_leaves_an_interrupted_intact_run(tmp_path):
    db = tmp_path / "traces.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kernelcraft.workbench.cli", "run", "--accel", "plena", "--task", "relu",
         "--config", "C4", "--traces", str(db), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    seen, deadline = [], time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if event_count(db) >= 12:                       # inside step 2 or later
                with TraceStore(db, readonly=True) as reader:
                    seen = reader.events(reader.runs()[0].id)
                break
            time.sleep(0.02)
        assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read()}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL and seen

    store = TraceStore(db)
    (run,) = store.runs()
    assert run.status == "interrupted" and run.ended_at is not None and run.scores is None
    events = store.events(run.id)
    assert [e.seq for e in events] == list(range(len(events)))
    assert events[:len(seen)] == seen                   # nothing committed was lost or changed
    v = store.verify(run.id)
    assert v.ok and v.events_checked == run.event_count and not v.sealed
    assert [r.id for r in store.runs(status="interrupted")] == [run.id]

    # what was recorded replays exactly; the replay then goes on to a final scoring
    result, report = replay_run(store, run.id)
    assert report["compared"] >= 1 and not report["mismatches"] and not report["missing"]
    assert {e.split()[-3] for e in report["extra"]} <= {"final_seeds", "final_config", "run_eval"}
    store.close()


def test_sigterm_ends_the_run_as_interrupted_and_sealed(tmp_path):
    db = tmp_path / "traces.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kernelcraft.workbench.cli", "run", "--accel", "plena", "--task", "relu",
         "--config", "C4", "--traces", str(db), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, text=True)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if event_count(db) >= 8:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be stopped"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "interrupted" in err
    with TraceStore(db) as store:
        (run,) = store.runs()
        assert run.status == "interrupted" and run.scores["stop"] == "interrupted"
        assert store.events(run.id)[-1].payload["error"].startswith("interrupted")
        v = store.verify(run.id)
        assert v.ok and v.sealed


import pytest  # noqa: E402


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("wait", [("sleep", 60), ("status", 429, {"Retry-After": "100"})],
                         ids=["slow-model", "retry-after"])
def test_a_signal_ends_a_waiting_run_within_two_seconds(tmp_path, openai_server, sig, wait):
    """Waiting for a model that takes a minute to answer, or sleeping out a rate limit's
    Retry-After, a run still stops at once and is recorded as interrupted."""
    server = openai_server([wait], deadline=120)
    db = tmp_path / "traces.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kernelcraft.workbench.cli", "run", "--accel", "plena", "--task", "relu",
         "--config", "C1", "--model", "openai/gpt-4o", "--api-base", server.url, "--traces",
         str(db), "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
        text=True, env={**os.environ, "OPENAI_API_KEY": "sk-test-not-a-real-key"})
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline and proc.poll() is None and not server.requests:
            time.sleep(0.05)
        time.sleep(0.5)                     # inside the request, or the back-off
        assert proc.poll() is None, proc.communicate()
        t0 = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        stopped = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    assert stopped < 2.0, stopped
    with TraceStore(db, readonly=True) as store:
        (run,) = store.runs()
        assert run.status == "interrupted" and store.verify(run.id).ok
