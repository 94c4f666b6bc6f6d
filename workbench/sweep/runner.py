"""The sweep coordinator: decides which cells to start (skipping finished ones,
within the job count, each provider's concurrency limit and the cost budget), hands
them to an executor (executors.py) and imports each finished run into the store as
it arrives. It is the store's only writer; a cell's run and its "done" mark are one
transaction (store/sweeps.py), so killing the sweep at any moment loses no finished
cell and a rerun redoes only the cells that had not finished.
"""
from __future__ import annotations

import fcntl
import os
from collections import deque
from dataclasses import dataclass, field

from kernelcraft.workbench.store import TraceStore, TraceStoreError
from kernelcraft.workbench.store import sweeps as sweep_rows
from kernelcraft.workbench.store.files import lock_dir

from .grid import Grid, provider

FINISHED = ("succeeded", "failed")       # a rerun skips these; error/interrupted are retried
DEFAULT_PROVIDER_LIMIT = 4


@dataclass
class Options:
    jobs: int | None = None          # None: as many as the executor has workers
    provider_limits: dict[str, int] = field(default_factory=dict)
    max_cost: float | None = None
    timeout: float = 300.0
    retries: int = 6
    api_base: str | None = None
    model_params: dict = field(default_factory=dict)


@dataclass
class Summary:
    sweep_id: str
    total: int
    already_done: int = 0
    ran: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    not_started: int = 0
    stopped_by_cost: bool = False
    interrupted: bool = False
    cost: float = 0.0
    tokens: int = 0
    errors: list[str] = field(default_factory=list)


class SweepLock:
    """One coordinator per sweep: a second one would run the same cells twice."""

    def __init__(self, store: TraceStore, sweep_id: str):
        d = lock_dir(store.path)
        d.mkdir(exist_ok=True)
        self.path = d / f"sweep-{sweep_id}.lock"
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            raise TraceStoreError(f"sweep {sweep_id} is already running on {store.path} "
                                  f"(another process holds {self.path})") from None

    def release(self) -> None:
        os.close(self.fd)


def _limit(opts: Options, prov: str) -> int:
    if prov == "offline":
        return opts.provider_limits.get(prov, 1 << 30)
    return opts.provider_limits.get(prov, DEFAULT_PROVIDER_LIMIT)


def run_sweep(store: TraceStore, grid: Grid, sweep_id: str, executor, opts: Options,
              progress=None) -> Summary:
    cells = grid.cells()
    resumed = sweep_rows.open_sweep(store, sweep_id, {"grid": grid.identity()})
    lock = SweepLock(store, sweep_id)
    try:
        if resumed:
            sweep_rows.interrupted_to_retry(store, sweep_id)
        rows = sweep_rows.cells(store, sweep_id)
        done = {k for k, r in rows.items() if r.status in FINISHED}
        summary = Summary(sweep_id, len(cells), already_done=len(done))
        for r in rows.values():
            if r.run_id is not None and r.status in FINISHED:
                run = store.run(r.run_id)
                summary.cost += run.cost
                summary.tokens += run.tokens_in + run.tokens_out
        todo = deque(c for c in cells if c["key"] not in done)
        if progress:
            progress.start(summary, len(todo))
        _drive(store, grid, sweep_id, executor, opts, todo, summary, progress)
    finally:
        lock.release()
        if progress:
            progress.stop()
    return summary


def _drive(store, grid, sweep_id, executor, opts, todo, summary, progress) -> None:
    wopts = {"budget": grid.budget, "seeds": grid.seeds, "timeout": opts.timeout,
             "retries": opts.retries, "api_base": opts.api_base,
             "model_params": opts.model_params, "sweep_id": sweep_id}
    jobs = min(opts.jobs or executor.jobs, executor.jobs)
    running: dict = {}
    per_provider: dict[str, int] = {}
    try:
        while todo or running:
            while todo and len(running) < jobs and not summary.stopped_by_cost:
                if opts.max_cost is not None and summary.cost >= opts.max_cost:
                    summary.stopped_by_cost = True
                    break
                cell = next((c for c in todo if per_provider.get(provider(c["model"]), 0)
                             < _limit(opts, provider(c["model"]))), None)
                if cell is None:
                    break
                todo.remove(cell)
                sweep_rows.mark_started(store, sweep_id, cell)
                running[executor.submit(cell, wopts)] = cell
                per_provider[provider(cell["model"])] = per_provider.get(
                    provider(cell["model"]), 0) + 1
                if progress:
                    progress.started(cell, len(running))
            if summary.stopped_by_cost and not running:
                break
            for handle in executor.wait(list(running), timeout=0.5):
                cell = running.pop(handle)
                per_provider[provider(cell["model"])] -= 1
                _finish(store, sweep_id, executor, handle, cell, summary, progress,
                        len(running))
    except BaseException:
        summary.interrupted = True
        executor.shutdown()
        for cell in running.values():
            try:
                sweep_rows.mark_error(store, sweep_id, cell, "")
            except Exception:  # noqa: BLE001 -- best effort while being stopped
                pass
        raise
    summary.not_started = len(todo)


def _finish(store, sweep_id, executor, handle, cell, summary, progress, n_running) -> None:
    try:
        res = executor.result(handle)
    except Exception as e:  # noqa: BLE001 -- a worker that died is this cell's error
        executor.broken(e)
        res = {"status": "error", "exported": None,
               "error": f"the worker running it died ({type(e).__name__}: {e})"}
    status, run_id = res["status"], None
    if res.get("exported"):
        run_id = sweep_rows.finish_cell(store, sweep_id, cell, res["exported"], status,
                                        res.get("error"))
        run = store.run(run_id)
        summary.cost += run.cost
        summary.tokens += run.tokens_in + run.tokens_out
    else:
        sweep_rows.mark_error(store, sweep_id, cell, res.get("error") or "no run recorded")
    summary.ran += 1
    summary.statuses[status] = summary.statuses.get(status, 0) + 1
    if status == "error":
        summary.errors.append(f"{cell['key']}: {res.get('error')}")
    if progress:
        progress.finished(cell, status, run_id, res, n_running)
