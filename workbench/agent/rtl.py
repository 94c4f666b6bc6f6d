"""The RTL of a run started with --rtl: the backend the `run_rtl` tool and the final
scoring use, checked when the run is set up and built once when it starts.

Why build at the start: a cold Verilator build of a configuration takes minutes (about
3 on the default plena configuration, under a minute on a small one); built inside the
first `run_rtl` call it would stall that step, and a step is what the agent's budget
counts. Built before the first step, it is recorded as its own `note` events (kind
`rtl_build`, with the time it took and whether the cache had it), and every `run_rtl`
call then starts from the cached simulator (well under a second to start).
"""
from __future__ import annotations

from kernelcraft.simulators.core.errors import ConfigError, KernelCraftError
from kernelcraft.workbench import tools
from kernelcraft.workbench.accel import get_accel, with_rtl
from kernelcraft.workbench.tools import ToolResult


class RtlSession:
    """`backend` replaces the accelerator's registered RTL backend (tests use a
    deliberately faulty one)."""

    def __init__(self, accel: str, hw, backend=None):
        rtl = get_accel(accel).rtl
        if rtl is None:
            raise ConfigError(f"--rtl: accelerator {accel!r} has no RTL; RTL exists for: "
                              f"{', '.join(with_rtl())}. Run without --rtl, or on one of those")
        self.accel, self.hw, self.rtl = accel, hw, rtl
        self.backend = backend if backend is not None else rtl.make()
        self.build_error: str | None = None
        # Fail now, before anything is recorded, if the simulator is missing or the RTL
        # cannot take this hardware configuration.
        from kernelcraft.simulators.rtl import toolchain
        toolchain.prepare(self.backend.simulator)
        check = getattr(self._build_module(), "check_config", None)
        if check is not None:
            check(hw)

    def _build_module(self):
        return self.rtl.builder()

    def prepare(self) -> dict:
        """Build (or find in the cache) the simulator for this run's configuration; the
        outcome is what the run records. A failed build is kept, and run_rtl reports it."""
        try:
            b = self._build_module().build(self.hw, self.backend.simulator)
        except KernelCraftError as e:
            self.build_error = str(e)
            return {"kind": "rtl_build", "ok": False, "simulator": self.backend.simulator,
                    "error": self.build_error}
        return {"kind": "rtl_build", "ok": True, "simulator": b.simulator, "cached": b.cached,
                "seconds": round(b.seconds, 3), "key": b.key[:20]}

    def run(self, task: str, config: str, source: str, seeds: list[int],
            edge_cases: bool = False) -> ToolResult:
        if self.build_error is not None:
            rec = {"status": "rtl_error", "passed": False, "cycles": 0,
                   "backend": self.backend.name, "simulator": self.backend.simulator,
                   "seeds": list(seeds), "edge_cases": edge_cases,
                   "model": {"status": "not_run", "cycles": None,
                             "reason": "the RTL could not be built"},
                   "rtl": {"status": "error", "cycles": None, "error": self.build_error},
                   "agree": None, "divergence": None}
            return ToolResult("RTL NOT AVAILABLE: it could not be built when the run started "
                              "(a workbench problem, not your kernel's):\n" + self.build_error +
                              "\nrun_eval on the functional model still works.", rec)
        return tools.run_rtl(self.accel, task, config, source, self.backend, hw=self.hw,
                             seeds=seeds, edge_cases=edge_cases)
