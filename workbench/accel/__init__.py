"""Registry of accelerators. Adding one means a new `isa/<name>/`, `simulators/<name>/`,
`rtl/<name>/`, a `workbench/accel/<name>/` package exposing `ACCELERATOR`, and a line here."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

NAMES = ("plena", "coral", "aie")


@dataclass(frozen=True)
class Bound:
    """Analytic lower bound of cycles for a (task, configuration) on some hardware."""

    cycles: int
    kind: str          # "bandwidth" | "compute"
    detail: str


@dataclass(frozen=True)
class Accelerator:
    name: str
    title: str
    default_config: Callable[..., Any]               # (**overrides) -> HardwareConfig
    assemble: Callable[..., Any]                     # (source, source_name, config) -> Program
    disassemble: Callable[[list[int]], str]
    backend: Callable[[], Any]                       # () -> Backend
    layout: Callable[..., Any]                       # (task, config_name, hw) -> Layout
    baseline: Callable[..., str]                     # (task, config_name, hw, **params) -> source
    baseline_templates: Callable[[], dict]           # () -> {task name: Template}
    lower_bound: Callable[..., Bound]                # (task, config_name, hw) -> Bound
    manual: Callable[..., str]                       # (hw) -> Markdown
    imem_limit: Callable[[Any], int]                 # (hw) -> instructions that fit
    checked_memories: tuple[str, ...]                # memories scanned for stray writes


def get_accel(name: str) -> Accelerator:
    if name not in NAMES:
        raise KeyError(f"unknown accelerator {name!r}; known: {', '.join(NAMES)}")
    return importlib.import_module(f"workbench.accel.{name}").ACCELERATOR
