"""Two runs side by side, free of any UI: per run its facts (cell, agent, status,
tokens and cost, best kernel, held-out scores) as short cells in rows that line up,
and the kernel of each to diff (its best correct kernel, else its last one)."""
from __future__ import annotations

from kernelcraft.workbench.agent.scoring import held_out_verdict, score_flags
from kernelcraft.workbench.evaluation import shown_speedup

from .backends import is_rtl_run, rtl_cell
from .runs import plural
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


def _cycles(n) -> str:
    return f"{n:,} cycles" if isinstance(n, int) else "? cycles"


def _speedup(result: dict) -> str:
    v = shown_speedup(result)
    return f" {v:.2f}x" if v is not None else ""


def facts(trace: RunTrace) -> dict[str, str]:
    """A run's facts by row label, each short enough for half of an 80-column screen."""
    r = trace.run
    s = r.scores or {}
    flags = score_flags(s) if r.finished else []
    out = {"cell": f"{r.accelerator}/{r.task}/{r.config}",
           "agent": r.agent + (f" {r.model}" if r.model else ""),
           "status": f"{r.status}, {plural(r.steps, 'step')}" +
                     (f" ({', '.join(flags)})" if flags else ""),
           "tokens": f"{r.tokens_in:,}/{r.tokens_out:,}  {r.cost_text}"}
    best = s.get("best")
    if best:
        out["best"] = (f"v{best['kernel_version']} (step {best['step']}) "
                       f"{_cycles(best.get('cycles'))}{_speedup(best)}")
    elif trace.best() is not None:
        b = trace.best()
        out["best"] = f"so far v{b.kernel_version}: {_cycles(b.cycles)}"
    else:
        out["best"] = "none passed" if r.finished else "none yet"
    held = s.get("held_out_seeds")
    if held:
        verdict = "PASS" if held.get("passed") else "FAIL"
        out["held-out"] = f"{verdict} {_cycles(held.get('cycles'))}"
    for config, h in (s.get("held_out_configs") or {}).items():
        verdict = held_out_verdict(h)
        out[config] = (verdict if verdict == "not transferable" else
                       f"{verdict.upper()} {_cycles(h.get('cycles'))}{_speedup(h)}") + \
            (f" -- {h['reason']}" if h.get("reason") else "")     # cut when narrow
    if is_rtl_run(r):
        out["RTL"] = rtl_cell(r)
    if r.finished:
        out["ended by"] = str(s.get("stop") or r.status)
    return out


def compare_rows(a: RunTrace, b: RunTrace) -> list[tuple[str, str, str]]:
    """(label, first run's cell, second run's cell) for every fact either run has,
    in order; "-" where one has none."""
    fa, fb = facts(a), facts(b)
    labels = list(fa) + [k for k in fb if k not in fa]
    return [(k, fa.get(k, "-"), fb.get(k, "-")) for k in labels]
