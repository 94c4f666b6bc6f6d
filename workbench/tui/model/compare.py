"""Two runs side by side, free of any UI: each run's header and score lines, and the
kernel of each to diff (its best correct kernel, else its last one)."""
from __future__ import annotations

from workbench.agent.transcript import score_lines

from .trace import KernelRef, RunTrace


def kernel_to_compare(trace: RunTrace) -> tuple[KernelRef | None, str]:
    """The run's best correct kernel (by run_eval cycles), else its last one."""
    best = trace.best()
    if best is not None and best.kernel_version is not None:
        ref = next((k for k in trace.kernels if k.version == best.kernel_version), None)
        if ref is not None:
            return ref, f"best correct kernel v{ref.version}"
    if trace.kernels:
        return trace.kernels[-1], f"last kernel v{trace.kernels[-1].version} (none passed)"
    return None, "no kernel written"


def header_lines(trace: RunTrace) -> list[str]:
    r = trace.run
    who = r.agent + (f" {r.model}" if r.model else "")
    lines = [f"run {r.id}  {r.accelerator}/{r.task}/{r.config}  {who}",
             f"{r.status}, {r.steps} steps, tokens {r.tokens_in:,}/{r.tokens_out:,}, "
             f"{r.cost_text}"]
    if r.scores:
        lines += [line.lstrip("- ") for line in score_lines(r.scores)]
    elif trace.best() is not None:
        b = trace.best()
        lines.append(f"best so far: {b.cycles:,} cycles (kernel v{b.kernel_version})")
    return lines
