"""One sweep cell, run in a worker (a local process or a Ray task): the same agent
loop as `kernelcraft run` (workbench/agent/loop.py), recording into a private store
in a temporary folder, whose run is handed back as export_jsonl text for the
coordinator to import. Workers never open the sweep's store: it has one writer.
"""
from __future__ import annotations

import io
import signal
import tempfile
import time
from pathlib import Path

from .grid import OFFLINE, SCRIPTED_PREFIX


def die_with_parent() -> None:
    """A local worker dies with the coordinator (SIGKILL included), so a killed sweep
    leaves no cell running on behind it (Linux prctl PR_SET_PDEATHSIG)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _agent(cell: dict, opts: dict, hw):
    model = cell["model"]
    if model == OFFLINE:
        from kernelcraft.workbench.agent.autotune import AutotuneAgent
        return AutotuneAgent(cell["accel"], cell["task"])
    from kernelcraft.workbench.agent.llm_agent import LLMAgent
    if model.startswith(SCRIPTED_PREFIX):
        from .scripted import scripted_model
        name = model[len(SCRIPTED_PREFIX):]
        return LLMAgent(scripted_model(name, cell["accel"], cell["task"], cell["config"], hw)
                        .model(name))
    from kernelcraft.workbench.llm import LiteLLMModel
    llm = LiteLLMModel(model, timeout=opts.get("timeout", 300.0),
                       max_retries=opts.get("retries", 6), api_base=opts.get("api_base"),
                       params=dict(opts.get("model_params") or {}))
    llm.check_credentials()
    return LLMAgent(llm)


def run_cell(cell: dict, opts: dict) -> dict:
    """Run one cell; returns {key, status, exported (JSONL) or None, error, seconds}."""
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
    from kernelcraft.workbench.store import TraceStore
    t0 = time.monotonic()
    out = {"key": cell["key"], "status": "error", "exported": None, "error": None}
    try:
        hw = get_accel(cell["accel"]).default_config()
        agent = _agent(cell, opts, hw)
    except Exception as e:  # noqa: BLE001 -- a cell that cannot start is reported, not fatal
        out["error"] = str(e) or type(e).__name__
        out["seconds"] = time.monotonic() - t0
        return out
    spec = RunSpec(cell["accel"], cell["task"], cell["config"], budget=opts.get("budget"),
                   n_seeds=opts.get("seeds", 3))
    with tempfile.TemporaryDirectory(prefix="kernelcraft-cell-") as tmp:
        store = TraceStore(Path(tmp) / "cell.db")
        loop = AgentLoop(agent, spec, store, extra_settings={
            "sweep": {"id": opts.get("sweep_id"), "cell": cell["key"]}})
        try:
            result = loop.run()
            out["status"] = result.status
            out["error"] = result.scores.get("error")
        except Exception as e:  # noqa: BLE001 -- recorded as an error run by the loop
            out["error"] = f"{type(e).__name__}: {e}"
        finally:
            store.close()              # an unfinished run ends as interrupted
        if loop.rec is not None:
            reader = TraceStore(Path(tmp) / "cell.db", readonly=True)
            buf = io.StringIO()
            reader.export_jsonl(loop.rec.run_id, buf)
            out["status"] = reader.run(loop.rec.run_id).status
            reader.close()
            out["exported"] = buf.getvalue()
    out["seconds"] = time.monotonic() - t0
    return out
