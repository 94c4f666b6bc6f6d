"""The same grid as Ray tasks on a real local cluster (2 worker CPUs on 127.0.0.1,
started here) gives the same finished cells and the same scores as the local pool,
with the coordinator as the store's only writer."""
from __future__ import annotations

import json

import pytest

from kernelcraft.workbench.store import TraceStore

from .conftest import CELLS, GRID, REPO, finished_cells, scores_by_cell

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, _node_ip_address="127.0.0.1", include_dashboard=False,
             log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}})
    yield
    ray.shutdown()


def test_ray_sweep_matches_the_local_pool(cluster, killed_and_resumed, tmp_path, capsys):
    from kernelcraft.workbench.cli import main
    db = tmp_path / "ray.db"
    assert main(["sweep", *GRID, "--ray", "--traces", str(db), "--json", "--plain"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ran"] == 12 and summary["statuses"] == {"succeeded": 12}
    assert summary["sweep_id"] == killed_and_resumed["summary"]["sweep_id"]
    assert len(finished_cells(db)) == 12
    local = scores_by_cell(killed_and_resumed["db"])
    remote = scores_by_cell(db)
    assert set(remote) == CELLS and remote == local
    with TraceStore(db, readonly=True) as store:
        runs = store.runs()
        assert all(store.verify(r.id).ok for r in runs)
        # The cells ran in Ray worker processes, not in this (the only writing) process.
        assert all(r.writer_pid != __import__("os").getpid() for r in runs)
    # Resumable on Ray too: nothing left to run.
    assert main(["sweep", *GRID, "--ray", "--traces", str(db), "--json", "--plain"]) == 0
    assert json.loads(capsys.readouterr().out)["ran"] == 0
