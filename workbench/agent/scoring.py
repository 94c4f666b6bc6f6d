"""The final scoring of a run, done once after the agent has finished.

The best correct kernel (fewest cycles among the kernels that passed `run_eval`) is
evaluated again on held-out input seeds of its own configuration: a run is correct
only if it passes those too. It is then scored on each held-out configuration of the
task, which the agent never saw:

- A kernel is written for one configuration's memory layout and shapes, so it does
  not in general carry over. If the agent has a *method* that produces kernels (the
  autotuner's template parameters), that method is applied to the held-out
  configuration and the result is scored ("agent" method).
- Otherwise (an LLM's kernel) the best kernel is run unchanged on the held-out
  configuration ("as_is"). If it passes, it is configuration-generic and its score
  counts; if not, the configuration is recorded as "not transferable", with the
  reason, and does not count as a failure of the run.

Every evaluation made here is recorded as an `evaluation` event (tool "final_seeds"
or "final_config") with its seeds, so a replay re-executes it exactly.

The seeds are always the workbench's own (fresh, or a replay's recorded ones): a run
whose tools took seeds the caller chose is scored on fresh seeds all the same and is
marked `scored: false` (debugging only), as a replay is. A best kernel flagged
impossible (fewer cycles than the analytic lower bound) has passed a re-check on fresh
seeds (workspace.py) and its score carries the flag (`flags`). So does a kernel whose
control flow depended on its inputs (`input_dependent`: the instructions run, how often
each ran, their count or the cycles differed between input sets), the one way a kernel can
compute exactly only on the inputs it recognises (code, or counts and busy cycles beyond
what every seeded set agrees on, that only an edge family with its own check ran fails the
evaluation instead: evaluation.own_code). What the flag may still hide (tasks/README.md, "What
still gets through"): a recogniser whose loop counts also vary on the random draws. It buys no
speed-up where it runs its exact path on the family, since an evaluation's cycles are the
largest over its input sets, the family's included (tests/workbench/test_own_code.py measures
one); only a family path cheaper than that exact path everywhere (exact only where the family's
check reads) could gain, by less than the exact path's cost over the work the check skips.
"""
from __future__ import annotations

import traceback

from kernelcraft.simulators.core.errors import KernelCraftError
from kernelcraft.workbench.evaluation import evaluate
from kernelcraft.workbench.store.chain import sha256_text

from .recorder import jsonable, record_evaluation
from .workspace import RECHECK, EvalRecord, chosen_by


NO_RTL = "the run was started without --rtl"


def _summary(result: dict) -> dict:
    keys = ("status", "passed", "frac_match", "cycles", "baseline_cycles", "speedup",
            "lower_bound", "roofline_fraction", "impossible", "input_dependent", "code_size", "error")
    return {k: result.get(k) for k in keys}


def _evaluate(loop, tool: str, config: str, source: str, version, **extra) -> EvalRecord:
    seeds = loop.ws.scoring_seeds.take(tool, config, loop.spec.final_seeds)
    ev = evaluate(loop.spec.accel, loop.spec.task, config, source, hw=loop.hw, seeds=seeds)
    rec = EvalRecord(tool, config, version, source, seeds, jsonable(ev.to_dict()), None)
    record_evaluation(loop.rec, rec, None, **extra)
    return rec


def _backends(loop, best: EvalRecord, final: EvalRecord) -> dict:
    """Which backends the scored kernel passed on the held-out input sets: the model's
    verdict is the final_seeds evaluation; with --rtl, the same input sets run on the
    RTL too (recorded as a final_rtl evaluation) and both are compared."""
    r = final.result
    model = {"status": {"passed": "pass", "failed": "fail"}.get(r.get("status"), "run_error"),
             "cycles": r.get("cycles"), "error": r.get("error", "")}
    if loop.rtl is None:
        return {"model": model, "agree": None, "divergence": None,
                "rtl": {"status": "not_run", "cycles": None, "reason": NO_RTL}}
    try:
        out = loop.rtl.run(loop.spec.task, loop.spec.config, best.source, final.seeds,
                           edge_cases=True)
    except Exception as e:  # noqa: BLE001 -- a workbench fault must not cost the run its score
        err = f"{type(e).__name__}: {e}"
        loop.rec.event("error", {"where": "final_rtl", "error": err,
                                 "traceback": traceback.format_exc()}, text=err)
        return {"model": model, "agree": None, "divergence": None,
                "rtl": {"status": "error", "cycles": None, "error": err}}
    rec = EvalRecord("final_rtl", loop.spec.config, best.kernel_version, best.source,
                     final.seeds, jsonable(out.data), None)
    record_evaluation(loop.rec, rec, None, report=out.text)
    d = rec.result
    return {"model": model, "rtl": d["rtl"], "agree": d["agree"],
            "divergence": d["divergence"], "cycle_budget": d.get("cycle_budget")}


def final_scores(loop) -> dict:
    ws, task = loop.ws, loop.task
    best = ws.best
    scores: dict = {
        "correct": False, "stop": loop.stop_reason, "submitted": loop.submitted,
        "steps": loop.state.step, "budget": loop.budget,
        "kernel_versions": len(ws.versions),
        "evaluations": sum(1 for e in ws.evaluations if e.tool == "run_eval"),
        "first_correct_step": ws.first_correct_step, "best": None,
        "held_out_seeds": None, "held_out_configs": {},
        **scored(ws.seeds),
    }
    rtl_calls = sum(1 for e in ws.evaluations if e.tool == "run_rtl")
    if best is None:
        why = "no kernel passed run_eval"
        scores["backends"] = {"kernel_version": None, "run_rtl_calls": rtl_calls,
                              "model": {"status": "not_run", "cycles": None, "reason": why},
                              "rtl": {"status": "not_run", "cycles": None, "reason": why}}
        return scores
    scores["best"] = {"kernel_version": best.kernel_version, "kernel_hash": sha256_text(best.source),
                      "step": best.step, **_summary(best.result)}
    recheck = next((e for e in ws.evaluations if e.tool == RECHECK
                    and e.kernel_version == best.kernel_version), None)
    if recheck is not None:
        scores["best"]["recheck"] = {"seeds": recheck.seeds, **_summary(recheck.result)}
    final = _evaluate(loop, "final_seeds", loop.spec.config, best.source, best.kernel_version)
    scores["held_out_seeds"] = {"seeds": final.seeds, **_summary(final.result)}
    flags = [f for f in ("impossible", "input_dependent") if best.result.get(f) or final.result.get(f)]
    if flags:
        scores["flags"] = flags
    scores["correct"] = final.passed
    scores["backends"] = {"kernel_version": best.kernel_version, "run_rtl_calls": rtl_calls,
                          **_backends(loop, best, final)}

    for config in task.held_out_configs():
        transfer = loop.agent.transfer(config, loop.hw)
        if transfer is not None and transfer.source is None:
            scores["held_out_configs"][config] = {"method": "agent", "transferable": False,
                                                  "reason": transfer.method}
            continue
        method = "agent" if transfer is not None else "as_is"
        source = transfer.source if transfer is not None else best.source
        try:
            rec = _evaluate(loop, "final_config", config, source,
                            None if method == "agent" else best.kernel_version,
                            method=method, how=transfer.method if transfer else
                            f"kernel version {best.kernel_version} unchanged")
        except (KernelCraftError, KeyError, ValueError) as e:
            # e.g. the task has no baseline on this configuration to compare with.
            scores["held_out_configs"][config] = {"method": method, "transferable": False,
                                                  "reason": f"could not be evaluated: {e}"}
            continue
        entry = {"method": method, "kernel_hash": sha256_text(source), **_summary(rec.result)}
        if method == "as_is":
            entry["transferable"] = rec.passed
            if not rec.passed:
                entry["reason"] = (f"the kernel is written for {loop.spec.config}'s layout and "
                                   f"is not configuration-generic: on {config} it "
                                   f"{'failed' if rec.result.get('status') == 'failed' else 'gave ' + str(rec.result.get('status'))}")
        else:
            entry["transferable"] = True
            entry["how"] = transfer.method
        scores["held_out_configs"][config] = entry
    for entry in scores["held_out_configs"].values():
        entry["verdict"] = held_out_verdict(entry)
    return scores


def scored(seeds) -> dict:
    """Whether a run is a score: only when the workbench chose every seed."""
    who = chosen_by(seeds)
    if who == "workbench":
        return {"scored": True}
    why = ("a replay re-uses the recorded seeds; the original run holds the score"
           if who == "recording" else
           "the caller chose the evaluation seeds (debugging only); the final scoring used "
           "fresh seeds all the same")
    return {"scored": False, "not_scored": why}


def held_out_verdict(entry: dict) -> str:
    """A held-out configuration as it is shown: "pass", "fail" (the kernel was evaluated
    there and failed, whatever made it) or "not transferable" (nothing could be run)."""
    if entry.get("verdict"):
        return entry["verdict"]
    if entry.get("status") is None:
        return "not transferable"
    return "pass" if entry.get("passed") else "fail"


def held_out_cell(scores: dict) -> str:
    """Every held-out configuration's verdict, e.g. "pass" (one) or "H1 fail, H2 pass"."""
    held = scores.get("held_out_configs") or {}
    verdicts = [(c, held_out_verdict(e)) for c, e in held.items()]
    if len(verdicts) == 1:
        return verdicts[0][1]
    return ", ".join(f"{c} {v}" for c, v in verdicts) or "-"


def score_flags(scores: dict) -> list[str]:
    """What a reader must know before believing a run's score: "not scored" (seeds not
    chosen by the workbench), "impossible" (the best kernel beat the lower bound),
    "input-dependent" (its control flow differed between input sets: a kernel that
    recognises the checker's input families and varies only how often it runs the same
    instructions can pass while computing wrongly elsewhere, see tasks/README.md's known
    gaps)."""
    flags = [] if scores.get("scored", True) else ["not scored"]
    best = scores.get("best") or {}
    if "impossible" in (scores.get("flags") or []) or best.get("impossible"):
        flags.append("impossible")
    if "input_dependent" in (scores.get("flags") or []) or best.get("input_dependent"):
        flags.append("input-dependent")
    return flags
