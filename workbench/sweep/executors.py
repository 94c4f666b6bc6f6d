"""Where cells run: a local process pool, or Ray tasks on a cluster. Both take a cell
and hand back run_cell's result; neither touches the sweep's trace store.

Local workers come from a forkserver (a clean process, not a copy of the coordinator
with its open store) that has the agent code imported once, and die with the
coordinator.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor
from concurrent.futures import wait as futures_wait

from .cell import die_with_parent, run_cell

PRELOAD = ["kernelcraft.workbench.sweep.orphans", "kernelcraft.workbench.agent.loop", "kernelcraft.workbench.agent.autotune",
           "kernelcraft.workbench.evaluation"]


class LocalPool:
    name = "local"

    def __init__(self, jobs: int):
        self.jobs = jobs
        self._pool = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=ctx,
                                             initializer=die_with_parent)
        return self._pool

    def submit(self, cell: dict, opts: dict):
        return self._executor().submit(run_cell, cell, opts)

    def wait(self, handles, timeout: float):
        done, _ = futures_wait(handles, timeout=timeout, return_when=FIRST_COMPLETED)
        return list(done)

    def result(self, handle) -> dict:
        return handle.result()

    def broken(self, exc: BaseException) -> bool:
        """A worker died: the pool is unusable and is rebuilt for the next cells."""
        from concurrent.futures.process import BrokenProcessPool
        if isinstance(exc, BrokenProcessPool):
            self._pool = None
            return True
        return False

    def shutdown(self) -> None:
        if self._pool is not None:
            procs = list((getattr(self._pool, "_processes", None) or {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                p.terminate()          # cells still running end now; they are retried
            self._pool = None


class RayPool:
    """Cells as Ray tasks (one CPU each) on the cluster at `address` (None: Ray's
    default, i.e. $RAY_ADDRESS or a cluster already running here, else a new local one).
    Results travel back to this process, which alone writes the store."""

    name = "ray"

    def __init__(self, address: str | None):
        try:
            import ray
        except ImportError:
            raise ValueError("--ray needs Ray: pip install 'kernelcraft[ray]'") from None
        self.ray = ray
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        self.jobs = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._remote = ray.remote(num_cpus=1, max_retries=0)(run_cell)
        self._pending: set = set()

    def submit(self, cell: dict, opts: dict):
        ref = self._remote.remote(cell, opts)
        self._pending.add(ref)
        return ref

    def wait(self, handles, timeout: float):
        ready, _ = self.ray.wait(list(handles), num_returns=1, timeout=timeout)
        return ready

    def result(self, handle) -> dict:
        self._pending.discard(handle)
        return self.ray.get(handle)

    def broken(self, exc: BaseException) -> bool:
        return False

    def shutdown(self) -> None:
        """Cancel the cells still running (they are retried on resume); the cluster
        itself is not ours to stop."""
        for ref in self._pending:
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 -- already finished or gone
                pass
        self._pending.clear()
