"""What the tools act on during a run: the current kernel, its versions, the
evaluations made so far, and where evaluation seeds come from.

`Workspace.execute` takes one tool call as the model sent it and returns an
`Outcome`: the text the model reads, structured data for the trace and for offline
agents, and the kernel version or evaluation the call produced. Refused calls
(malformed or missing arguments, unknown tools, no kernel yet) are outcomes with
ok=False and a message that says how to fix the call.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from kernelcraft.workbench import tools
from kernelcraft.workbench.evaluation import DEFAULT_SEEDS, fresh_seeds
from kernelcraft.workbench.llm import ToolCall

from .toolspec import ToolError, clip_name, offered, parse_arguments


class SeedSource(Protocol):
    """Where evaluation seeds come from. `chosen_by` says who chose them: "workbench"
    (fresh random seeds, the only source a scored run uses), "recording" (a replay
    re-using a recorded run's seeds), anything else (or nothing) the caller: for
    debugging, and the run is then not scored."""

    def take(self, tool: str, config: str, n: int) -> list[int]: ...


class FreshSeeds:
    """Fresh random seeds for every evaluation (recorded, so a replay can reuse them)."""

    chosen_by = "workbench"

    def take(self, tool: str, config: str, n: int) -> list[int]:
        return fresh_seeds(n)


def chosen_by(seeds: SeedSource) -> str:
    return getattr(seeds, "chosen_by", "caller")


RECHECK = "recheck_impossible"      # the evaluation tool name of an impossible kernel's re-check
RECHECK_SEEDS = 5


def recheck_text(rec: EvalRecord) -> str:
    if rec.passed:
        return ("flagged impossible, so re-checked on fresh seeds and edge cases: PASS; it counts "
                "as a correct kernel, and its score will say it was flagged impossible")
    return (f"flagged impossible, so re-checked on fresh seeds and edge cases: "
            f"{str(rec.result.get('status', 'failed')).upper()}; it does not count as a correct kernel")


@dataclass
class KernelVersion:
    version: int
    source: str
    step: int


@dataclass
class EvalRecord:
    """One evaluation of a kernel: by run_eval or view_output during the run, or by the
    final scoring ("final_seeds", "final_config")."""

    tool: str
    config: str
    kernel_version: int | None
    source: str
    seeds: list[int]
    result: dict
    step: int | None = None

    @property
    def passed(self) -> bool:
        return bool(self.result.get("passed"))

    @property
    def cycles(self) -> int:
        return int(self.result.get("cycles") or 0)


@dataclass
class Outcome:
    call_id: str
    name: str
    ok: bool
    text: str
    data: dict = field(default_factory=dict)
    args: dict | None = None
    kernel: KernelVersion | None = None
    evaluation: EvalRecord | None = None
    recheck: EvalRecord | None = None   # an impossible kernel's re-check (see _run_eval)
    submitted: bool = False


class Workspace:
    def __init__(self, accel: str, task: str, config: str, hw, seeds: SeedSource | None = None,
                 n_seeds: int = DEFAULT_SEEDS, rtl=None):
        self.accel, self.task, self.config, self.hw = accel, task, config, hw
        self.rtl = rtl                     # an RtlSession when the run has --rtl
        self.tools = offered(rtl=rtl is not None)
        self.seeds = seeds or FreshSeeds()
        # Re-checks and the final scoring never use seeds a caller chose.
        self.scoring_seeds = (self.seeds if chosen_by(self.seeds) in ("workbench", "recording")
                              else FreshSeeds())
        self.n_seeds = n_seeds
        self.versions: list[KernelVersion] = []
        self.evaluations: list[EvalRecord] = []
        self.best: EvalRecord | None = None
        self.first_correct_step: int | None = None
        self.step = 0

    @property
    def current(self) -> KernelVersion | None:
        return self.versions[-1] if self.versions else None

    def execute(self, call: ToolCall) -> Outcome:
        try:
            args = parse_arguments(call.name, call.arguments, self.tools)
            out = getattr(self, f"_{call.name}")(args)
        except ToolError as e:
            return Outcome(call.id, clip_name(call.name), False, f"error: {e}",
                           {"error": str(e)})
        out.call_id, out.args = call.id, args
        return out

    # ------------------------------------------------------------------ tools
    def _need_kernel(self, tool: str) -> KernelVersion:
        if self.current is None:
            raise ToolError(f"{tool} acts on the current kernel, and there is none yet; call "
                            f"write_code with the complete assembly source first")
        return self.current

    def _write_code(self, args: dict) -> Outcome:
        code = args["code"]
        same = self.current is not None and self.current.source == code
        kv = KernelVersion(len(self.versions) + 1, code, self.step)
        self.versions.append(kv)
        lines = code.count("\n") + (not code.endswith("\n"))
        note = " (identical to the previous version)" if same else ""
        return Outcome("", "write_code", True,
                       f"kernel version {kv.version} saved{note}: {lines} lines, "
                       f"{len(code.encode())} bytes",
                       {"version": kv.version, "lines": lines, "bytes": len(code.encode())},
                       kernel=kv)

    def _check_syntax(self, args: dict) -> Outcome:
        kv = self._need_kernel("check_syntax")
        r = tools.check_syntax(self.accel, kv.source, hw=self.hw)
        return Outcome("", "check_syntax", True, f"kernel version {kv.version}: {r.text}",
                       {"version": kv.version, **r.data})

    def _get_inst_size(self, args: dict) -> Outcome:
        kv = self._need_kernel("get_inst_size")
        r = tools.get_inst_size(self.accel, kv.source, hw=self.hw)
        return Outcome("", "get_inst_size", True, f"kernel version {kv.version}: {r.text}",
                       {"version": kv.version, **r.data})

    def _grep_docs(self, args: dict) -> Outcome:
        r = tools.grep_docs(self.accel, args["pattern"])
        return Outcome("", "grep_docs", True, r.text, r.data)

    def _run_eval(self, args: dict) -> Outcome:
        kv = self._need_kernel("run_eval")
        seeds = self.seeds.take("run_eval", self.config, self.n_seeds)
        r = tools.run_eval(self.accel, self.task, self.config, kv.source, hw=self.hw, seeds=seeds)
        rec = EvalRecord("run_eval", self.config, kv.version, kv.source, seeds, r.data, self.step)
        self.evaluations.append(rec)
        text = f"kernel version {kv.version}: {r.text}"
        recheck = None
        if rec.passed:
            if self.first_correct_step is None:
                self.first_correct_step = self.step
            if self.best is None or rec.cycles < self.best.cycles:
                if rec.result.get("impossible"):
                    recheck = self._recheck(kv)
                    text += "\n" + recheck_text(recheck)
                if recheck is None or recheck.passed:
                    self.best = rec
        if self.best is not None:
            text += (f"\nbest correct kernel so far: version {self.best.kernel_version}, "
                     f"{self.best.cycles} cycles")
        summary = {k: r.data.get(k) for k in ("status", "passed", "frac_match", "cycles",
                                              "baseline_cycles", "speedup", "impossible",
                                              "code_size")}
        if recheck is not None:
            summary["recheck_passed"] = recheck.passed
        return Outcome("", "run_eval", True, text, {"version": kv.version, **summary},
                       evaluation=rec, recheck=recheck)

    def _recheck(self, kv: KernelVersion) -> EvalRecord:
        """A kernel faster than the analytic lower bound may be recognising its inputs:
        before it can become the best kernel, it runs again on fresh seeds chosen by the
        workbench and fresh edge cases."""
        seeds = self.scoring_seeds.take(RECHECK, self.config, RECHECK_SEEDS)
        r = tools.run_eval(self.accel, self.task, self.config, kv.source, hw=self.hw, seeds=seeds)
        rec = EvalRecord(RECHECK, self.config, kv.version, kv.source, seeds, r.data, self.step)
        self.evaluations.append(rec)
        return rec

    def _view_output(self, args: dict) -> Outcome:
        kv = self._need_kernel("view_output")
        (seed,) = self.seeds.take("view_output", self.config, 1)
        r = tools.view_output(self.accel, self.task, self.config, kv.source, hw=self.hw,
                              seed=seed, max_rows=args.get("max_rows", 12))
        rec = EvalRecord("view_output", self.config, kv.version, kv.source, [seed], r.data,
                         self.step)
        self.evaluations.append(rec)
        return Outcome("", "view_output", True, f"kernel version {kv.version}, {r.text}",
                       {"version": kv.version, "seed": seed}, evaluation=rec)

    def _run_rtl(self, args: dict) -> Outcome:
        self._need_kernel("run_rtl")
        n = args["version"]
        if n > len(self.versions):
            raise ToolError(f"run_rtl: there is no kernel version {n}; the versions are 1 to "
                            f"{len(self.versions)} (the current kernel is version "
                            f"{len(self.versions)})")
        kv = self.versions[n - 1]
        seeds = self.seeds.take("run_rtl", self.config, 1)
        r = self.rtl.run(self.task, self.config, kv.source, seeds)
        rec = EvalRecord("run_rtl", self.config, kv.version, kv.source, seeds, r.data, self.step)
        self.evaluations.append(rec)
        summary = {k: r.data.get(k) for k in ("status", "passed", "agree", "cycle_budget")}
        summary.update({f"{b}_{k}": r.data[b].get(k) for b in ("model", "rtl")
                        for k in ("status", "cycles")})
        return Outcome("", "run_rtl", True, f"kernel version {kv.version}: {r.text}",
                       {"version": kv.version, **summary}, evaluation=rec)

    def _submit(self, args: dict) -> Outcome:
        if self.best is None:
            text = "submitted; no kernel passed run_eval, so the run ends without a correct kernel"
        else:
            text = (f"submitted; the best correct kernel is version {self.best.kernel_version} "
                    f"({self.best.cycles} cycles) and will be scored on held-out inputs")
        return Outcome("", "submit", True, text, {"summary": args.get("summary", "")},
                       submitted=True)
