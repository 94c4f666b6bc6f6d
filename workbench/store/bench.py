"""Write-rate benchmark of the trace store: `python -m kernelcraft.workbench.store.bench`.

Appends events shaped like an agent run's (messages and reasoning of 1-5 KB of text,
tool calls and results, evaluations, and every tenth event a new ~10 KB kernel) to a
fresh store, each committed on its own as in a real run, and prints the median rate
over several repeats. Writes only into a temporary folder.
"""
from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from .store import TraceStore

_WORDS = ("the kernel tile row column vector matrix load store prefetch loop unroll "
          "register accumulate softmax exponent reduce max sum scale bf16 fp32 cycles "
          "speedup baseline correct mismatch error tolerance buffer sram hbm stride "
          "iteration budget output input shape layout lane reciprocal normalise").split()
_MNEMONICS = ("V_ADD_VV", "V_MUL_VF", "V_EXP_V", "V_RED_MAX", "V_RED_SUM", "M_MM",
              "H_PREFETCH_M", "H_STORE_V", "S_ADDI_INT", "C_LOOP_START", "C_LOOP_END")


def _prose(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        w = rng.choice(_WORDS)
        words.append(w)
        length += len(w) + 1
    return " ".join(words)


def _kernel(rng: random.Random, size: int = 10_000) -> str:
    lines: list[str] = []
    length = 0
    while length < size:
        line = (f"    {rng.choice(_MNEMONICS)} gp{rng.randrange(16)}, "
                f"gp{rng.randrange(16)}, {rng.randrange(4096)}")
        lines.append(line)
        length += len(line) + 1
    return "\n".join(lines) + "\n"


def workload(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """n append() argument sets cycling through a model turn's event types."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for i in range(n):
        step = i // 5 + 1
        if i % 10 == 9:
            out.append({"type": "kernel", "payload": {"version": i // 10},
                        "kernel_source": _kernel(rng), "step": step})
            continue
        kind = ("message", "reasoning", "tool_call", "tool_result", "evaluation")[i % 5]
        if kind in ("message", "reasoning"):
            out.append({"type": kind, "role": "assistant", "step": step,
                        "payload": {"content": _prose(rng, rng.randint(1000, 5000))},
                        "tokens_in": rng.randint(500, 4000), "tokens_out": rng.randint(50, 800),
                        "cost": rng.random() * 0.01})
        elif kind == "tool_call":
            out.append({"type": kind, "role": "assistant", "step": step,
                        "payload": {"name": "run_eval", "id": f"call_{i}",
                                    "arguments": {"seeds": [1, 2, 3],
                                                  "note": _prose(rng, 1000)}}})
        elif kind == "tool_result":
            out.append({"type": kind, "role": "tool", "step": step,
                        "payload": {"name": "run_eval", "id": f"call_{i - 1}",
                                    "content": _prose(rng, rng.randint(1000, 3000))}})
        else:
            out.append({"type": kind, "step": step,
                        "payload": {"passed": rng.random() < 0.5, "cycles": rng.randint(1, 10**6),
                                    "speedup": rng.random() * 3, "seeds": [1, 2, 3],
                                    "max_abs_err": rng.random() * 1e-3}})
    return out


def measure(folder: Path, events: list[dict[str, Any]], tag: str) -> float:
    """Events per second appending `events` as one run of a fresh store."""
    with TraceStore(folder / f"bench-{tag}.db") as store:
        run_id = store.start_run("plena", "softmax", "C3", agent="bench")
        start = time.perf_counter()
        for ev in events:
            store.append(run_id, ev.pop("type"), ev.pop("payload"), **ev)
        elapsed = time.perf_counter() - start
        store.finish_run(run_id, "succeeded")
    return len(events) / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kernelcraft.workbench.store.bench",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000, help="events per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (median reported)")
    args = parser.parse_args(argv)
    sample = workload(args.events)
    size = sum(len(str(e["payload"])) + len(e.get("kernel_source", "")) for e in sample)
    rates = []
    with tempfile.TemporaryDirectory(prefix="kernelcraft-bench-") as tmp:
        for r in range(args.repeats):
            rates.append(measure(Path(tmp), workload(args.events), str(r)))
    print(f"trace store write rate: {statistics.median(rates):,.0f} events/s "
          f"(median of {args.repeats} runs of {args.events} events; "
          f"min {min(rates):,.0f}, max {max(rates):,.0f}; "
          f"mean event {size / len(sample) / 1024:.1f} KB, one commit per event)")


if __name__ == "__main__":
    main()
