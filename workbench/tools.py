"""The agent-facing tools, as plain functions returning concise text for a model
(and structured data for the trace store and the TUI).

check_syntax, run_eval, view_output, grep_docs, get_inst_size keep the published
system's names and meanings; their text is short, exact and actionable. run_rtl (ours)
runs a kernel on an accelerator's RTL beside the functional model.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from kernelcraft.simulators.core.errors import (AssemblyError, BudgetExceeded, KernelCraftError,
                                                TimeLimitExceeded)
from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.evaluation import (OWN_CODE_RULE, Evaluation, baseline_cycles,
                                              budget_for, edge_seed_for, evaluate, judge,
                                              set_problem)
from kernelcraft.workbench.layout import build_image

MAX_DIAGNOSTICS = 20
MAX_GREP_HITS = 30
# run_rtl stops the RTL at this multiple of the baseline's cycles (at least MIN_RTL_CYCLES;
# NO_BASELINE_RTL_CYCLES for a task without a baseline), so a runaway kernel costs
# seconds of simulation rather than minutes.
RTL_CYCLE_FACTOR = 20
MIN_RTL_CYCLES = 1_000_000
NO_BASELINE_RTL_CYCLES = 20_000_000


@dataclass
class ToolResult:
    text: str
    data: dict


def check_syntax(accel_name: str, source: str, hw=None) -> ToolResult:
    accel = get_accel(accel_name)
    hw = hw or accel.default_config()
    try:
        program = accel.assemble(source, source_name="kernel.asm", config=hw)
    except AssemblyError as e:
        shown = e.diagnostics[:MAX_DIAGNOSTICS]
        more = len(e.diagnostics) - len(shown)
        text = f"{len(e.diagnostics)} error(s):\n" + "\n".join(d.format() for d in shown)
        if more:
            text += f"\n... and {more} more"
        return ToolResult(text, {"ok": False, "errors": [d.format() for d in e.diagnostics]})
    limit = accel.imem_limit(hw)
    return ToolResult(f"OK: {len(program)} instructions ({len(program)}/{limit} of instruction memory)",
                      {"ok": True, "instructions": len(program), "limit": limit})


def get_inst_size(accel_name: str, source: str, hw=None) -> ToolResult:
    accel = get_accel(accel_name)
    hw = hw or accel.default_config()
    limit = accel.imem_limit(hw)
    try:
        program = accel.assemble(source, source_name="kernel.asm", config=hw)
    except AssemblyError as e:
        return ToolResult(f"cannot size the kernel: it does not assemble ({len(e.diagnostics)} "
                          f"error(s); run check_syntax)", {"ok": False})
    n = len(program)
    return ToolResult(f"{n} instructions = {program.size_bytes} bytes; instruction memory holds "
                      f"{limit} instructions ({100 * n / limit:.1f}% used)",
                      {"ok": True, "instructions": n, "bytes": program.size_bytes, "limit": limit})


def speedup_text(ev: Evaluation) -> str:
    """The speed-up, or why there is none: only a PASS that is not impossible has one."""
    if ev.speedup is not None:
        return f"speed-up {ev.speedup:.3f}x"
    if not ev.passed:
        return "no speed-up: the kernel did not pass"
    if ev.impossible:
        return "no speed-up: faster than the lower bound is impossible"
    return "no baseline to compare with"


def format_evaluation(ev: Evaluation) -> str:
    if ev.status == "assembly_error":
        shown = ev.diagnostics[:MAX_DIAGNOSTICS]
        return "ASSEMBLY FAILED\n" + "\n".join(shown)
    lines = []
    if ev.status == "run_error":
        lines.append(f"RUN FAILED: {ev.error}")
    else:
        lines.append(f"{'PASS' if ev.passed else 'FAIL'}: {ev.frac_match:.2%} of output elements "
                     f"within tolerance over {len(ev.sets)} input sets")
    for s in ev.sets:
        if not s.passed:
            why = s.error or ", ".join(
                f"{name}: {o['frac_match']:.2%} match, max abs err {o['max_abs_err']:.4g}"
                for name, o in s.outputs.items() if not ((s.stray or s.family or s.own_code)
                                                         and o.get("passed")))
            lines.append(f"  {s.label}: " + "; ".join(w for w in (why, s.stray, s.family, s.own_code) if w))
    if ev.cycles:
        lines.append(f"cycles: {ev.cycles}  (baseline {ev.baseline_cycles}, {speedup_text(ev)}; "
                     f"lower bound {ev.lower_bound} ({ev.bound_kind}-bound), "
                     f"{ev.roofline_fraction:.1%} of roofline)")
        util = ", ".join(f"{u} {v:.0%}" for u, v in sorted(ev.utilisation.items()) if v)
        lines.append(f"instructions retired: {ev.retired}; unit utilisation: {util}")
        if ev.input_dependent:
            n, c = sorted({s.retired for s in ev.sets}), sorted({s.cycles for s in ev.sets})
            paths = f", {ev.paths} different sets of instructions run" if ev.paths > 1 else ""
            lines.append(f"control flow or timing depends on the inputs: {n[0]}..{n[-1]} instructions "
                         f"retired, {c[0]}..{c[-1]} cycles{paths} across the {len(ev.sets)} input sets "
                         "(flagged in the run's score)")
        if ev.stalls.get("dma_wait"):
            lines.append(f"stalled waiting for DMA: {ev.stalls['dma_wait']} cycles")
        other = ", ".join(f"{k} {v}" for k, v in ev.stalls.items() if v and k != "dma_wait")
        if other:
            lines.append(f"other stall cycles: {other}")
        if ev.impossible:
            lines.append("WARNING: fewer cycles than the analytic lower bound -- flagged as impossible")
    return "\n".join(lines)


def run_eval(accel_name: str, task_name: str, config: str, source: str, hw=None,
             seeds=None) -> ToolResult:
    ev = evaluate(accel_name, task_name, config, source, hw=hw, seeds=seeds)
    return ToolResult(format_evaluation(ev), ev.to_dict())


def view_output(accel_name: str, task_name: str, config: str, source: str, hw=None,
                seed: int | None = None, max_rows: int = 12) -> ToolResult:
    """Memory-level diff against the reference on one fresh input set."""
    seeds = [seed] if seed is not None else None
    ev = evaluate(accel_name, task_name, config, source, hw=hw, seeds=seeds, n_seeds=1,
                  edge_cases=False, keep_outputs=True)
    if ev.status in ("assembly_error", "run_error"):
        return ToolResult(format_evaluation(ev), ev.to_dict())
    s = ev.sets[0]
    lines = [f"{s.label}: {'PASS' if s.passed else 'FAIL'}"]
    data = {"seed": ev.seeds[0], "outputs": {}}
    for name, o in s.outputs.items():
        got, exp = np.asarray(o.pop("got")), np.asarray(o.pop("expected"))
        g2, e2 = got.reshape(-1, got.shape[-1]), exp.reshape(-1, exp.shape[-1])
        err = np.abs(g2.astype(np.float64) - e2)
        err = np.where(np.isnan(err), np.inf, err)
        row_max = err.max(axis=1)
        bad_rows = np.argsort(-row_max)[:max_rows]
        lines.append(f"output {name} shape {tuple(got.shape)}: {o['frac_match']:.2%} match, "
                     f"max abs err {o['max_abs_err']:.4g}, reference rms {o['rms_ref']:.4g}")
        lines.append("  worst rows (row: bad elements / max abs err / mean abs err):")
        for r in bad_rows:
            n_bad = next((b for rr, b, _ in o["per_row"] if rr == r), 0)
            lines.append(f"    row {r}: {n_bad}/{g2.shape[1]} / {row_max[r]:.4g} / "
                         f"{float(np.mean(err[r][np.isfinite(err[r])])) if np.isfinite(err[r]).any() else float('inf'):.4g}")
        if o["first_mismatches"]:
            lines.append("  first mismatches (index: got vs expected, tolerance):")
            for idx, g, e, tol in o["first_mismatches"][:8]:
                lines.append(f"    {tuple(idx)}: {g:.6g} vs {e:.6g} (tol {tol:.3g})")
        data["outputs"][name] = {**o, "row_max_err": row_max.tolist()}
    return ToolResult("\n".join(lines), data)


def rtl_budget(accel_name: str, task_name: str, config: str, hw):
    """(instruction budget of both runs, cycle budget of the RTL run) for a kernel."""
    if task_name in get_accel(accel_name).baseline_templates():
        cycles, retired = baseline_cycles(accel_name, task_name, config, hw)
        return budget_for(retired), max(MIN_RTL_CYCLES, RTL_CYCLE_FACTOR * cycles)
    return budget_for(0), NO_BASELINE_RTL_CYCLES


def _backend_record(sets: list, runs: list, seconds: float) -> dict:
    """What one backend did over the input sets: pass/fail/run_error, cycles, errors."""
    failed = [s for s in sets if not s.passed]
    error = next((s.error for s in sets if s.error), "")
    return {"status": "run_error" if error else ("fail" if failed else "pass"),
            "cycles": max((r.cycles for r in runs), default=0),
            "frac_match": sum(s.frac_match for s in sets) / len(sets) if sets else 0.0,
            "failed_sets": [set_problem(s) for s in failed[:4]], "error": error,
            "wall_seconds": round(seconds, 3)}


def run_rtl(accel_name: str, task_name: str, config: str, source: str, rtl, *, hw=None,
            seeds: list[int], edge_cases: bool = False) -> ToolResult:
    """Run a kernel on the RTL (`rtl`, a backend of workbench.rtlcheck.rtl_backend) and
    on the functional model, on the same input sets; judge both against the reference
    and compare them with each other. The data is the per-backend record the trace
    store keeps: model and rtl {status pass/fail/run_error/error/not_run, cycles, ...},
    agree, divergence."""
    from kernelcraft.workbench.rtlcheck import AUTO_LOCKSTEP_LIMIT, run_both
    accel, task = get_accel(accel_name), get_task(task_name)
    hw = hw or accel.default_config()
    not_run = lambda why: {"status": "not_run", "cycles": None, "reason": why}
    rec = {"status": "failed", "passed": False, "cycles": 0, "backend": rtl.name,
           "simulator": getattr(rtl, "simulator", ""), "seeds": list(seeds), "edge_cases": edge_cases, "cycle_budget": None,
           "model": not_run("the kernel does not assemble"),
           "rtl": not_run("the kernel does not assemble"), "agree": None, "divergence": None}
    try:
        program = accel.assemble(source, source_name="kernel.asm", config=hw)
    except AssemblyError as e:
        rec["status"] = "assembly_error"
        return ToolResult("ASSEMBLY FAILED (not run on either backend)\n" +
                          "\n".join(d.format() for d in e.diagnostics[:MAX_DIAGNOSTICS]), rec)
    budget, max_cycles = rtl_budget(accel_name, task_name, config, hw)
    rec["cycle_budget"] = max_cycles
    layout = accel.layout(task, config, hw)
    sets = [(f"seed {s}", task.generate(config, s)) for s in seeds]
    if edge_cases:
        sets += [(f"edge: {name}", inputs) for name, inputs in task.edge_cases(config, edge_seed_for(seeds))]
    images = [build_image(layout, inputs) for _, inputs in sets]
    model = accel.backend()
    t0 = time.perf_counter()
    model_runs = [model.run(program, image, hw, budget) for image in images]
    model_s = time.perf_counter() - t0
    judged = lambda runs: [judge(accel, task, config, layout, label, inputs, image, r)[0]
                           for (label, inputs), image, r in zip(sets, images, runs)]
    rec["model"] = _backend_record(judged(model_runs), model_runs, model_s)
    runaway = next((r for r in model_runs if isinstance(r.error, (BudgetExceeded, TimeLimitExceeded))
                    or r.cycles > max_cycles), None)
    if runaway is not None:
        why = ("it did not finish on the functional model" if runaway.error is not None else
               f"it takes {runaway.cycles:,} cycles on the functional model, beyond the RTL "
               f"run's budget of {max_cycles:,} (the larger of {RTL_CYCLE_FACTOR}x the "
               f"baseline's cycles and {MIN_RTL_CYCLES:,})")
        rec["rtl"] = not_run(why)
        return ToolResult(_format_rtl(rec, sets, accel_name), rec)
    saved, rtl.max_cycles = rtl.max_cycles, max_cycles
    t0 = time.perf_counter()
    try:
        pairs = run_both(accel_name, task_name, config, "kernel", program, images, hw=hw,
                         budget=budget, rtl=rtl, model_runs=model_runs)
    except KernelCraftError as e:     # toolchain missing, build failed, simulator crashed
        rec["status"] = "rtl_error"
        rec["rtl"] = {"status": "error", "cycles": None, "error": str(e)}
        return ToolResult(_format_rtl(rec, sets, accel_name), rec)
    finally:
        rtl.max_cycles = saved
    rtl_s = time.perf_counter() - t0      # one simulator process (plus any traced re-run)
    rtl_runs = [r for _, _, r in pairs]
    rec["rtl"] = _backend_record(judged(rtl_runs), rtl_runs, rtl_s)
    diverged = [(label, res, m) for (label, _), (res, m, _) in zip(sets, pairs) if not res.passed]
    rec["agree"] = not diverged
    if diverged:
        label, res, m = diverged[0]
        first = res.first or ("not located: the traced re-run found every retired "
                              "instruction and its writes equal; the differences:")
        if m.retired > AUTO_LOCKSTEP_LIMIT:
            first = (f"not located: the run retired {m.retired:,} instructions, more than the "
                     f"{AUTO_LOCKSTEP_LIMIT:,} a traced re-run covers; the memory and register "
                     f"differences below show where the results differ")
        rec["divergence"] = {"input_set": label, "first": first, "differences": res.divergences,
                             "sets": len(diverged)}
    rec["passed"] = rec["agree"] and rec["model"]["status"] == rec["rtl"]["status"] == "pass"
    rec["status"] = "passed" if rec["passed"] else "failed"
    rec["cycles"] = rec["rtl"]["cycles"]
    return ToolResult(_format_rtl(rec, sets, accel_name), rec)


def _format_rtl(rec: dict, sets: list, accel_name: str) -> str:
    what = sets[0][0] if len(sets) == 1 else f"{len(sets)} input sets"
    on = f" on {rec['simulator'].capitalize()}" if rec.get("simulator") else ""
    lines = [f"{accel_name} RTL{on} and functional model on {what}:"]
    for name, key in (("functional model", "model"), ("RTL", "rtl")):
        b = rec[key]
        if b["status"] in ("pass", "fail"):
            line = (f"{'PASS' if b['status'] == 'pass' else 'FAIL'} against the reference, "
                    f"{b['cycles']:,} cycles")
        elif b["status"] == "run_error":
            line = f"RUN FAILED after {b['cycles']:,} cycles: {b['error']}"
        elif b["status"] == "error":
            line = f"COULD NOT RUN: {b['error']}"
        else:
            line = f"not run: {b['reason']}"
        lines.append(f"  {name + ':':17s} {line}")
        lines += [f"    {p}" for p in b.get("failed_sets", []) if b["status"] == "fail"]
    if rec["agree"]:
        lines.append("  the backends agree: every memory, register and counter identical, "
                     "same cycle count")
    elif rec["agree"] is False:
        d = rec["divergence"]
        lines.append(f"  the backends DISAGREE on {d['input_set']}"
                     + (f" (and {d['sets'] - 1} more input sets)" if d["sets"] > 1 else ""))
        lines.append(f"  first divergence: {d['first']}")
        lines += [f"    {x}" for x in d["differences"]]
        lines.append("  run_eval scores the kernel on the functional model; the RTL is the "
                     "hardware. Where they disagree, the kernel relies on behaviour in which "
                     "the two differ: change the code around the first diverging instruction.")
    elif rec["rtl"]["status"] == "not_run" and rec["cycle_budget"]:
        lines.append("  make the kernel finish (check its loops with run_eval) before running "
                     "it on the RTL")
    return "\n".join(lines)


@lru_cache(maxsize=8)
def _manual_lines(accel_name: str) -> tuple[tuple[str, str], ...]:
    """(section heading, line) for every line of the manual."""
    manual = get_accel(accel_name).manual()
    section, out = "", []
    for line in manual.splitlines():
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        out.append((section, line))
    return tuple(out)


def _re2_options(literal: bool = False):
    import re2
    opts = re2.Options()
    opts.case_sensitive = False
    opts.log_errors = False          # the model is told; nothing goes to stderr
    opts.literal = literal
    opts.max_mem = 8 << 20           # a pattern whose automaton needs more is refused
    return opts


def grep_docs(accel_name: str, pattern: str, context: int = 1) -> ToolResult:
    """Search the ISA manual (regular expression, case-insensitive; plain text works too).

    The pattern is a model's, so it is matched with RE2, whose time is linear in the
    text: no pattern can hang a run (Python's re backtracks exponentially on e.g.
    `(\\w+\\s?)*$`). RE2 has no backreferences or lookaround; a pattern it rejects is
    searched as plain text and the model is told so."""
    import re2
    note = ""
    try:
        rx = re2.compile(pattern, _re2_options())
    except re2.error as e:
        why = e.args[0].decode(errors="replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        note = (f"(not a valid RE2 regular expression: {why[:120]}; searched as plain text. "
                f"RE2 has no backreferences or lookaround)\n")
        rx = re2.compile(pattern, _re2_options(literal=True))
    lines = _manual_lines(accel_name)
    hits = [i for i, (_, l) in enumerate(lines) if rx.search(l)]
    if not hits:
        return ToolResult(f"{note}no match for {pattern!r} in the {accel_name} manual", {"hits": 0})
    out, last_section, shown = [note.rstrip()] if note else [], None, 0
    for i in hits[:MAX_GREP_HITS]:
        sec = lines[i][0]
        if sec != last_section:
            out.append(f"[{sec}]")
            last_section = sec
        lo, hi = max(0, i - context), min(len(lines), i + context + 1)
        out += [f"{j + 1:5d}{':' if j == i else '-'} {lines[j][1]}" for j in range(lo, hi)]
        shown += 1
    if len(hits) > shown:
        out.append(f"... {len(hits) - shown} more matches; narrow the pattern")
    return ToolResult("\n".join(out), {"hits": len(hits)})


def task_statement(accel_name: str, task_name: str, config: str, hw=None) -> str:
    """What an agent is told about a task on an accelerator (layout included)."""
    accel = get_accel(accel_name)
    hw = hw or accel.default_config()
    task = get_task(task_name)
    layout = accel.layout(task, config, hw)
    rules = task.correctness(config)
    if task.family_rules(task.dims(config)):
        rules += f"\n{OWN_CODE_RULE}"
    return (f"# Task {task.name} (level {task.level}), configuration {config}\n\n"
            f"{task.description}\n\n## Correctness\n\n{rules}\n\n"
            f"## Memory layout on {accel_name}\n\n{layout.describe()}\n")
