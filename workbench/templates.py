"""The template-compiler records every accelerator's baselines share: the context a
template renders with, and the Template record with its rendering steps.

An accelerator subclasses `Template` for the three things that differ: its layout,
how an assembly builder starts (header line), and how a kernel ends."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.tasks.core import Task
from kernelcraft.workbench.layout import Layout


@dataclass
class Ctx:
    task: Task
    config: str
    dims: dict
    layout: Layout
    hw: HardwareConfig

    def addr(self, tensor: str) -> int:
        return self.layout.region(tensor).address

    def const(self, name: str) -> int:
        for c in self.layout.constants:
            if c.name == name:
                return c.address
        raise KeyError(f"task {self.task.name} has no constant {name!r}")


@dataclass(frozen=True)
class Template:
    task: str
    generate: Callable
    params: dict = field(default_factory=dict)      # defaults: the baseline
    space: dict = field(default_factory=dict)       # name -> candidate values, for tuning
    doc: str = ""
    check: Callable[[Ctx, dict], str | None] = lambda ctx, p: None  # why params don't fit, or None

    ctx_class = Ctx

    # --- what an accelerator provides -------------------------------------------------
    def layout(self, task: Task, config: str, hw: HardwareConfig) -> Layout:
        raise NotImplementedError

    def begin(self, hw: HardwareConfig, header: str):
        """A fresh assembly builder with `header` as its first comment."""
        raise NotImplementedError

    def validate(self, p: dict) -> None:
        """Reject parameter values no configuration accepts (ValueError)."""

    def finish(self, asm) -> None:
        """Whatever ends a kernel on this accelerator."""

    # --- shared ---------------------------------------------------------------------
    def _prepare(self, task: Task, config: str, hw: HardwareConfig, params: dict):
        unknown = set(params) - set(self.params)
        if unknown:
            raise KeyError(f"{self.task} template has no parameter(s) {sorted(unknown)}; "
                           f"parameters: {sorted(self.params)}")
        for k, v in params.items():
            default, tried = self.params[k], self.space.get(k, ())
            if type(v) is not type(default):
                raise ValueError(f"{self.task} template: parameter {k} takes "
                                 f"{type(default).__name__} values like {default!r}, got {v!r}")
            ints = [c for c in tried if type(c) is int]
            if type(v) is int and ints and v < min(ints):
                raise ValueError(f"{self.task} template: parameter {k} must be at least "
                                 f"{min(ints)} (the tuned values are {', '.join(map(str, tried))}), "
                                 f"got {v}")
        p = {**self.params, **params}
        ctx = self.ctx_class(task, config, dict(task.configs[config]),
                             self.layout(task, config, hw), hw)
        self.validate(p)
        return ctx, p, self.check(ctx, p)

    def fits(self, task: Task, config: str, hw: HardwareConfig, **params) -> str | None:
        """Why the template cannot compile this cell (None: it can), without rendering it."""
        try:
            return self._prepare(task, config, hw, params)[2]
        except ValueError as e:          # e.g. the layout does not fit the hardware
            return str(e)

    def render(self, task: Task, config: str, hw: HardwareConfig, **params) -> str:
        ctx, p, problem = self._prepare(task, config, hw, params)
        if problem:
            raise ValueError(f"{self.task} template on {config}: {problem}")
        asm = self.begin(hw, f"{task.name} {config} -- {self.accel_name} template compiler, "
                             f"parameters {p}")
        self.generate(ctx, asm, p)
        self.finish(asm)
        return asm.text()

    accel_name = ""
