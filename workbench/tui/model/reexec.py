"""Re-executing a recorded evaluation on demand, and saying whether it still gives
what was recorded.

The kernel, configuration, hardware overrides and seeds all come from the trace, so
a faithful workbench reproduces the recorded result exactly (the same comparison
`kernelcraft replay` makes, field by field, ignoring wall-clock time). Nothing is
written anywhere: the result is only shown.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kernelcraft.workbench import tools
from kernelcraft.workbench.agent.recorder import jsonable
from kernelcraft.workbench.agent.replay import differences
from kernelcraft.workbench.evaluation import evaluate
from kernelcraft.workbench.store import Event, Run

from .backends import RTL_TOOLS
from .heat import HeatMap, from_arrays


@dataclass
class Reexecution:
    tool: str
    config: str
    seeds: list[int]
    result: dict
    differences: list[str]
    maps: list[HeatMap] = field(default_factory=list)    # per-tile maps of the first seed

    @property
    def identical(self) -> bool:
        return not self.differences

    def summary(self) -> str:
        r = self.result
        status = r.get("status") or ("passed" if all(
            o.get("passed") for o in (r.get("outputs") or {}).values()) else "failed")
        head = (f"re-executed {self.tool} on {self.config} with the recorded seeds "
                f"{', '.join(map(str, self.seeds))}: {status}"
                + (f", {r.get('cycles')} cycles" if r.get("cycles") else ""))
        if self.identical:
            return head + " — identical to the recording"
        return head + f" — {len(self.differences)} difference(s) from the recording"


def _hw(run: Run):
    from kernelcraft.workbench.accel import get_accel
    overrides = (run.settings or {}).get("hw") or {}
    return get_accel(run.accelerator).default_config(**overrides)


def _max_rows(call: Event | None) -> int:
    import json
    if call is None:
        return 12
    try:
        args = json.loads(call.payload.get("arguments") or "{}")
        return int(args.get("max_rows", 12)) if isinstance(args, dict) else 12
    except (ValueError, TypeError):
        return 12


def reexecute(run: Run, evaluation: Event, source: str, call: Event | None = None) -> Reexecution:
    """Run the evaluation recorded in `evaluation` again on `source` (the kernel it
    carries) and compare with the recording. `call` is the tool call that asked for
    it (view_output's row count comes from there)."""
    p = evaluation.payload
    tool, config = str(p.get("tool", "")), str(p.get("config", run.config))
    if tool in RTL_TOOLS:
        raise ValueError(f"{tool} at seq {evaluation.seq} ran the RTL, which the workbench "
                         f"does not re-run; `kernelcraft replay {run.id}` re-runs it (with "
                         f"Verilator)")
    seeds = [int(s) for s in p.get("seeds") or []]
    if not seeds:
        raise ValueError(f"evaluation at seq {evaluation.seq} recorded no seeds, so it cannot "
                         f"be re-executed exactly")
    hw = _hw(run)
    if tool == "view_output":
        new = tools.view_output(run.accelerator, run.task, config, source, hw=hw, seed=seeds[0],
                                max_rows=_max_rows(call)).data
    else:
        new = evaluate(run.accelerator, run.task, config, source, hw=hw, seeds=seeds).to_dict()
    new = jsonable(new)
    diffs = differences(p.get("result") or {}, new)
    maps = []
    if new.get("status") not in ("assembly_error", "run_error"):
        full = evaluate(run.accelerator, run.task, config, source, hw=hw, seeds=seeds[:1],
                        edge_cases=False, keep_outputs=True, compare_baseline=False)
        if full.sets:
            from kernelcraft.tasks import get_task
            task = get_task(run.task)
            for name, o in full.sets[0].outputs.items():
                if "got" in o:
                    maps.append(from_arrays(name, o["got"], o["expected"],
                                            task.tolerance(config, name)))
    return Reexecution(tool, config, seeds, new, diffs, maps)
