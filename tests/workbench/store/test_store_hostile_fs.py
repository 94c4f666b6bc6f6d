"""The store on a read-only filesystem, on a full disk, and after a creation killed
half-way (finding 4 of issue 16): named TraceStoreErrors that say what to do, viewers
still reading, a run stopped cleanly, leftovers cleaned up.

Read-only and full filesystems are real: a tmpfs mounted (then remounted read-only,
or made 400 KB small) inside a private mount namespace (`unshare -m`), so nothing is
left mounted on the host. Where that is not allowed, those tests skip; the full-disk
path is also exercised in-process with SQLite's max_page_count, which gives SQLite
the same SQLITE_FULL error a full disk does."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kernelcraft.workbench.store import StoreFullError, StoreNotWritableError, TraceStore

from .conftest import record_run

REPO = Path(__file__).resolve().parents[3]


def _can_mount() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    r = subprocess.run(["unshare", "-m", "sh", "-c", "mount --make-rprivate / && "
                        "mount -t tmpfs -o size=64k tmpfs /mnt"], capture_output=True)
    return r.returncode == 0


needs_mount = pytest.mark.skipif(not _can_mount(), reason="needs root and mount namespaces")


def in_namespace(script: str, tmp_path: Path, timeout: float = 240) -> str:
    """Run a shell script in a private mount namespace with $D an empty folder and
    $KC the kernelcraft command of this tree; returns stdout+stderr."""
    d = tmp_path / "fs"
    d.mkdir()
    env = {**os.environ, "D": str(d), "KC": f"{sys.executable} -m workbench.cli",
           "PYTHONPATH": str(REPO)}
    r = subprocess.run(["unshare", "-m", "sh", "-c", "mount --make-rprivate / && " + script],
                       capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp_path)
    return r.stdout + r.stderr


@pytest.fixture(scope="module")
def relu_source() -> str:
    from kernelcraft.workbench.accel import get_accel
    accel = get_accel("plena")
    return accel.baseline("relu", "C1", accel.default_config())


RECORD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    from kernelcraft.workbench.store import TraceStore
    from conftest import record_run
    with TraceStore(sys.argv[1]) as s:
        record_run(s)
        s.start_run("plena", "relu", "C1", agent="autotune")   # left running: ends interrupted
""")


@needs_mount
def test_a_read_only_filesystem(tmp_path):
    rec = tmp_path / "record.py"
    rec.write_text(RECORD.format(tests=str(Path(__file__).parent)))
    out = in_namespace(f"""
        mount -t tmpfs -o size=8m tmpfs $D && {sys.executable} {rec} $D/traces.db &&
        mount -o remount,ro $D &&
        $KC runs --traces $D/traces.db; echo "runs rc=$?";
        $KC show 1 --verify --traces $D/traces.db | tail -1; echo "show rc=$?";
        $KC export 1 --traces $D/traces.db | wc -l; echo "export rc=$?";
        $KC run --accel plena --task relu --config C1 --budget 1 --quiet --traces $D/traces.db; echo "run rc=$?";
        $KC run --accel plena --task relu --config C1 --budget 1 --quiet --traces $D/new.db; echo "new rc=$?"
        """, tmp_path)
    assert "Traceback" not in out, out
    # viewers read it, and say it is a snapshot
    assert "note: " in out and "opened as a read-only snapshot (the filesystem holding" in out
    assert "runs rc=0" in out and "softmax" in out and "show rc=0" in out and "export rc=0" in out
    assert "hash chain: intact" in out
    # writers are refused before any work, naming the file and what to do
    for name, rc in (("traces.db", "run rc=2"), ("new.db", "new rc=2")):
        assert (f"kernelcraft: error: {tmp_path}/fs/{name}: cannot record here: the filesystem "
                f"holding {tmp_path}/fs is mounted read-only. Record to another path with "
                f"--traces") in out, out
        assert rc in out


@needs_mount
@pytest.mark.parametrize("size", ["400k", "1m"])   # the disk fills at different events
def test_a_full_disk_stops_the_run_cleanly(tmp_path, size):
    # a reserve beside the store, released first, leaves room for the run's end
    out = in_namespace(f"""
        mount -t tmpfs -o size={size} tmpfs $D &&
        $KC run --accel plena --task relu --config C1 --budget 3 --quiet --traces $D/traces.db; echo "run rc=$?";
        $KC runs --traces $D/traces.db --json | grep -c '"status": "error"';
        $KC show 1 --verify --traces $D/traces.db | tail -1;
        dd if=/dev/zero of=$D/filler bs=4k 2>/dev/null;
        $KC export 1 --traces $D/traces.db --out $D/run1.jsonl; echo "export rc=$?"
        """, tmp_path)
    assert "Traceback" not in out, out
    assert "the disk is full (SQLite: 'database or disk is full'" in out
    assert "run 1 stopped; recorded as error with this reason" in out and "run rc=2" in out
    assert "\n1\n" in out and "hash chain: intact" in out
    assert "run1.jsonl: writing failed (No space left on device); the export is incomplete" in out
    assert "export rc=2" in out


def test_a_full_database_ends_the_run_as_error_with_the_reason(tmp_path, relu_source):
    """SQLITE_FULL without a mount: the database may not grow past its pages."""
    from kernelcraft.workbench.agent.llm_agent import LLMAgent
    from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
    from kernelcraft.workbench.agent.scripted import ScriptedModel, call, reply
    store = TraceStore(tmp_path / "traces.db")
    big = "; " + "x" * 200_000 + "\n" + relu_source
    script = [reply("", call("write_code", {"code": relu_source})),
              reply("", call("write_code", {"code": big}))]
    model = ScriptedModel(script, provider="fulldb")
    loop = AgentLoop(LLMAgent(model.model()), RunSpec("plena", "relu", "C1", budget=4), store)
    grow = store._writer().execute
    pages = grow("PRAGMA page_count").fetchone()[0]
    grow(f"PRAGMA max_page_count = {pages + 40}")
    with pytest.raises(StoreFullError, match=r"traces\.db: the disk is full \(SQLite: "
                                             r"'database or disk is full'"):
        loop.run()
    assert loop.end_recorded
    store.close()
    with TraceStore(tmp_path / "traces.db", readonly=True) as s:
        run = s.runs()[0]
        assert run.status == "error" and "the disk is full" in run.scores["error"]
        assert run.scores["stop"] == "store_error" and s.verify(run.id).ok


def test_a_creation_killed_half_way_is_cleaned_up_on_the_next_open(tmp_path):
    path = tmp_path / "traces.db"
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from pathlib import Path
        from kernelcraft.workbench.store import connection, schema
        migrate = schema.migrate
        def slow(db):
            migrate(db)
            print("migrated", flush=True)
            time.sleep(60)
        schema.migrate = slow
        connection._create(Path({str(path)!r}), 5.0)
        """)], stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert child.stdout.readline() == b"migrated\n"
    child.send_signal(signal.SIGKILL)
    child.wait()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left and all(n.startswith(f".traces.db.{child.pid}.") for n in left), left
    assert any(n.endswith(".new") for n in left)
    # A creation of a live process, and a fresh leftover, are not touched.
    live = tmp_path / f".traces.db.{os.getpid()}.0123abcd.new"
    live.write_text("")
    old = time.time() - 120
    for p in tmp_path.iterdir():
        if p != live:
            os.utime(p, (old, old))
    os.utime(live, (old, old))
    with TraceStore(path) as s:
        record_run(s)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [live.name]
