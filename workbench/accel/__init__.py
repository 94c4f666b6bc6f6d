"""Registry of accelerators: everything an accelerator plugs into the workbench is a
field of its `Accelerator` record, so that no other module looks a part up by name.

Adding one means a new `isa/<name>/`, `simulators/<name>/` (and `rtl/<name>/`), a
`workbench/accel/<name>/` package exposing `ACCELERATOR`, and a line in REGISTRY. An
accelerator that lives elsewhere (another distribution, a test's toy) calls `register`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from kernelcraft.simulators.core.errors import ConfigError

# name -> the module whose ACCELERATOR is the record
REGISTRY: dict[str, str] = {
    "plena": "kernelcraft.workbench.accel.plena",
    "coral": "kernelcraft.workbench.accel.coral",
    "aie": "kernelcraft.workbench.accel.aie",
}
NAMES = tuple(REGISTRY)            # the product's accelerators (tasks tables, sweeps, CLI)


def register(name: str, module: str) -> None:
    """Register an accelerator outside the product's REGISTRY (get_accel finds it;
    the product's tables, which iterate NAMES, do not list it)."""
    REGISTRY[name] = module


def registered() -> tuple[str, ...]:
    """Every accelerator get_accel knows, the product's first."""
    return tuple(REGISTRY)


def load(path: str):
    """The object a "module:attribute" path names (imported on first use)."""
    module, _, attr = path.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


@dataclass(frozen=True)
class Bound:
    """Analytic lower bound of cycles for a (task, configuration) on some hardware."""

    cycles: int
    kind: str          # "bandwidth" | "compute"
    detail: str


@dataclass(frozen=True)
class Rtl:
    """An accelerator's RTL, by "module:attribute" paths: nothing imports cocotb until
    an RTL run is asked for."""

    backend: str                 # a Backend class: Class(**options), with .simulator
    compare: str                 # compare(model_trace, rtl_trace) -> first divergence or None
                                 # (one routine: rtl-check --lockstep and the debugger's lockstep);
                                 # its module also holds compare_runs(model_run, rtl_run)
    build: str = ""              # module with build(cfg, simulator) [, check_config(cfg)];
                                 # default: `build` beside the backend's module
    bench: str = ""              # `rtl-check --bench`: a function taking argv
    small: str = ""              # a dict of hardware overrides: the small configuration
                                 # tests and benches build once and share

    def make(self, **options):
        return load(self.backend)(**options)

    def comparison(self) -> Callable:
        return load(self.compare)

    def run_comparison(self) -> Callable:
        """compare_runs(model_run, rtl_run) -> [Divergence]: memories, registers,
        counters and cycles at the end of two runs."""
        return load(self.compare.split(":")[0] + ":compare_runs")

    def small_overrides(self) -> dict:
        return dict(load(self.small)) if self.small else {}

    def builder(self):
        return load(self.build or self.backend.split(":")[0].rpartition(".")[0] + ".build")


@dataclass(frozen=True)
class Accelerator:
    name: str
    title: str
    default_config: Callable[..., Any]               # (**overrides) -> HardwareConfig
    assemble: Callable[..., Any]                     # (source, source_name, config) -> Program
    disassemble: Callable[[list[int]], str]
    backend: Callable[[], Any]                       # () -> Backend (the functional model)
    layout: Callable[..., Any]                       # (task, config_name, hw) -> Layout
    baseline: Callable[..., str]                     # (task, config_name, hw, **params) -> source
    baseline_templates: Callable[[], dict]           # () -> {task name: Template}
    lower_bound: Callable[..., Bound]                # (task, config_name, hw) -> Bound
    manual: Callable[..., str]                       # (hw) -> Markdown
    imem_limit: Callable[[Any], int]                 # (hw) -> instructions that fit
    checked_memories: tuple[str, ...]                # memories scanned for stray writes
    # Stepping a traced run: a module (or object) with undo(step, memories, registers),
    # redo(...) and optionally CSR_NAMES (simulators/<name>/tracing.py).
    tracing: str = ""
    # The debugger's MachineView subclass ("module:Class"; empty: the plain MachineView).
    view: str = ""
    rtl: Rtl | None = None
    # `kernelcraft bench NAME`: NAME -> ("module[:function]" taking argv, what it prints)
    benchmarks: dict[str, tuple[str, str]] = field(default_factory=dict)

    def tracing_module(self):
        if not self.tracing:
            raise ConfigError(f"accelerator {self.name!r} registers no tracing module with "
                              "undo/redo helpers, so its runs cannot be stepped")
        mod = load(self.tracing)
        for fn in ("undo", "redo"):
            if not callable(getattr(mod, fn, None)):
                raise ConfigError(f"{self.tracing} lacks {fn}(step, memories, registers); "
                                  "the debugger needs both")
        return mod

    def rtl_backend(self, **options):
        return self.need_rtl().make(**options)

    def need_rtl(self, what: str = "") -> Rtl:
        if self.rtl is None:
            raise ConfigError(f"{what}accelerator {self.name!r} has no RTL yet; RTL exists for: "
                              f"{', '.join(with_rtl())}")
        return self.rtl


def get_accel(name: str) -> Accelerator:
    if name not in REGISTRY:
        raise KeyError(f"unknown accelerator {name!r}; known: {', '.join(REGISTRY)}")
    return load(REGISTRY[name] + ":ACCELERATOR")


def with_rtl() -> tuple[str, ...]:
    """The registered accelerators that have an RTL."""
    return tuple(n for n in REGISTRY if get_accel(n).rtl is not None)
