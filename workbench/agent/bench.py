"""Benchmark: the agent loop's own cost per step, without the model.

A scripted model (served through litellm's custom-provider hook, no network) drives
a run of relu C1 with a realistic mix of replies: write_code + check_syntax,
run_eval, view_output, grep_docs, a malformed call. Per step we time the whole step,
the agent's query (model + litellm), and the tools' execution (assembler, simulator,
evaluation); the loop's overhead is what remains: argument checking, prompts,
conversation bookkeeping and the trace store's committed writes.

    python -m kernelcraft.workbench.agent.bench [--steps 40] [--traces PATH]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def _script(source: str, steps: int) -> list[dict]:
    from .scripted import call, reply
    cycle = [
        reply("Write the kernel.", call("write_code", {"code": source}), call("check_syntax")),
        reply("Evaluate it.", call("run_eval")),
        reply("Look at the output.", call("view_output", {"max_rows": 4})),
        reply("Check the manual.", call("grep_docs", {"pattern": "prefetch"}),
              call("get_inst_size")),
        reply("Oops.", call("write_code", '{"code": "unterminated')),
    ]
    return [cycle[i % len(cycle)] for i in range(steps - 1)]


def measure(steps: int = 40, traces: str | None = None) -> dict:
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.store import TraceStore

    from .llm_agent import LLMAgent
    from .loop import AgentLoop, RunSpec
    from .scripted import ScriptedModel

    accel = get_accel("plena")
    source = accel.baseline("relu", "C1", accel.default_config())
    scripted = ScriptedModel(_script(source, steps), provider="benchscripted")
    agent = LLMAgent(scripted.model())
    with tempfile.TemporaryDirectory() as tmp:
        store = TraceStore(traces or Path(tmp) / "bench.db")
        loop = AgentLoop(agent, RunSpec("plena", "relu", "C1", budget=steps), store)
        timings = {"step": [], "model": [], "tools": []}
        act, execute, step = agent.act, loop.ws.execute, loop.step
        current = {"model": 0.0, "tools": 0.0}

        def timed_act(state):
            t = time.perf_counter()
            try:
                return act(state)
            finally:
                current["model"] += time.perf_counter() - t

        def timed_execute(call):
            t = time.perf_counter()
            try:
                return execute(call)
            finally:
                current["tools"] += time.perf_counter() - t

        def timed_step():
            current.update(model=0.0, tools=0.0)
            t = time.perf_counter()
            step()
            timings["step"].append(time.perf_counter() - t)
            timings["model"].append(current["model"])
            timings["tools"].append(current["tools"])

        agent.act, loop.ws.execute, loop.step = timed_act, timed_execute, timed_step
        t0 = time.perf_counter()
        result = loop.run()
        total = time.perf_counter() - t0
        events = store.run(result.run_id).event_count
        store.close()
    # The first step pays one-off costs (litellm's first call, simulator caches).
    s = {k: v[1:] for k, v in timings.items()}
    overhead = [a - b - c for a, b, c in zip(s["step"], s["model"], s["tools"])]
    return {"steps": len(timings["step"]), "events": events, "total_s": total,
            "step_ms": 1000 * statistics.median(s["step"]),
            "model_ms": 1000 * statistics.median(s["model"]),
            "tools_ms": 1000 * statistics.median(s["tools"]),
            "overhead_ms": 1000 * statistics.median(overhead),
            "overhead_max_ms": 1000 * max(overhead),
            "status": result.status}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Per-step overhead of the agent loop, without the model.")
    ap.add_argument("--steps", type=int, default=40, help="agent steps to run (default 40)")
    ap.add_argument("--traces", help="trace store to write (default: a temporary file)")
    args = ap.parse_args(argv)
    r = measure(args.steps, args.traces)
    print(f"agent loop, relu C1, scripted model through litellm, {r['steps']} steps, "
          f"{r['events']} events recorded ({r['status']}):")
    print(f"  median per step: {r['step_ms']:.1f} ms in all = model {r['model_ms']:.1f} ms "
          f"+ tools {r['tools_ms']:.1f} ms + loop {r['overhead_ms']:.1f} ms")
    print(f"  loop overhead per step (excluding model and tools): median {r['overhead_ms']:.1f} ms, "
          f"max {r['overhead_max_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
