"""The Template record and the context a template renders with."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from isa.loader import HardwareConfig
from tasks.core import Task
from workbench.layout import Layout

from ..layout import coral_layout
from .asm import Asm

LMULS = (1, 2, 4, 8)


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

    def vlmax(self, lmul: int, sew: int = 32) -> int:
        return self.hw.VLEN * lmul // sew


@dataclass(frozen=True)
class Template:
    task: str
    generate: Callable[[Ctx, Asm, dict], None]
    params: dict = field(default_factory=dict)      # defaults: the baseline
    space: dict = field(default_factory=dict)       # name -> candidate values, for tuning
    doc: str = ""
    check: Callable[[Ctx, dict], str | None] = lambda ctx, p: None  # why params don't fit, or None

    def render(self, task: Task, config: str, hw: HardwareConfig, **params) -> str:
        unknown = set(params) - set(self.params)
        if unknown:
            raise KeyError(f"{self.task} template has no parameter(s) {sorted(unknown)}; "
                           f"parameters: {sorted(self.params)}")
        p = {**self.params, **params}
        ctx = Ctx(task, config, dict(task.configs[config]), coral_layout(task, config, hw), hw)
        if "lmul" in p and p["lmul"] not in LMULS:
            raise ValueError(f"{self.task} template: lmul must be one of {LMULS}, got {p['lmul']}")
        problem = self.check(ctx, p)
        if problem:
            raise ValueError(f"{self.task} template on {config}: {problem}")
        asm = Asm(hw)
        asm.comment(f"{task.name} {config} -- coral template compiler, parameters {p}")
        self.generate(ctx, asm, p)
        asm("ebreak")
        return asm.text()
