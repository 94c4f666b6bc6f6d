"""What a task is: tensors, configurations, inputs, reference and work counts.

A `Task` subclass states its shapes and arithmetic once, as functions of a
configuration's dimensions (`d`, a dict such as {"M": 64, "K": 128}); the public
methods here check names and shapes on the way in and out, so every consumer
(evaluator, baselines, roofline, README) sees the same validated data.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from kernelcraft.simulators.numerics import round_bf16

from .tolerance import Tolerance

DTYPES = ("bf16", "fp32")


class TaskDefinitionError(Exception):
    """A task's own definition is inconsistent (a defect of the suite, not of a kernel)."""


@dataclass(frozen=True)
class TensorSpec:
    name: str
    shape: tuple[int, ...]
    dtype: str = "bf16"
    doc: str = ""

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


@dataclass(frozen=True)
class Work:
    """Operation counts for roofline bounds (conventions in tasks/README.md).

    macs: multiply-accumulates of contractions (matrix products, convolutions);
    vector_elems: other elementwise and reduction element-operations;
    special_elems: exp / reciprocal / sqrt element-operations;
    input_elems / output_elems: elements of all inputs / outputs (each moved once)."""

    macs: int
    vector_elems: int
    special_elems: int
    input_elems: int
    output_elems: int


@dataclass(frozen=True)
class Ops:
    """The arithmetic part of `Work`, which each task counts for itself."""

    macs: int = 0
    vector: int = 0
    special: int = 0


EdgeCases = list[tuple[str, dict[str, np.ndarray]]]


def stream(task: str, config: str, label: str | int) -> np.random.Generator:
    """A generator fixed by (task, config, label): stable across runs and platforms,
    independent between tasks and configurations."""
    key = [zlib.crc32(task.encode()), zlib.crc32(config.encode()), zlib.crc32(str(label).encode())]
    return np.random.default_rng(np.random.SeedSequence(key))


class Task:
    """Base class of every task; subclasses set the class attributes and implement
    the lower-case hooks (`specs_in`, `specs_out`, `make`, `compute`, `ops`,
    optionally `consts` and `edges`)."""

    name: str = ""
    level: int = 0
    title: str = ""
    description: str = ""
    configs: dict[str, dict] = {}
    tol: Tolerance | None = None       # the task's tolerance (every output), see tolerance.py

    # ---- hooks -------------------------------------------------------------------
    def specs_in(self, d: dict) -> list[TensorSpec]:
        raise NotImplementedError(f"{type(self).__name__} must define specs_in")

    def specs_out(self, d: dict) -> list[TensorSpec]:
        raise NotImplementedError(f"{type(self).__name__} must define specs_out")

    def consts(self, d: dict) -> dict[str, float]:
        return {}

    def make(self, d: dict, rng: np.random.Generator) -> dict[str, np.ndarray]:
        raise NotImplementedError(f"{type(self).__name__} must define make")

    def edges(self, d: dict, rng: np.random.Generator) -> EdgeCases:
        return []

    def error_allowance(self, x: dict[str, np.ndarray], d: dict, output: str) -> np.ndarray | None:
        """Hook: per-element absolute error the task's error model allows on inputs `x`
        beyond rtol |r| + atol (errors that depend on the inputs, not on r); None if none."""
        return None

    def family_check(self, family: str, x: dict[str, np.ndarray], d: dict,
                     outputs: dict[str, np.ndarray]) -> tuple[float, str] | None:
        """Hook: a check that edge family `family` makes of a kernel's `outputs` beyond
        each element's bound, (margin, what it found) with a margin above 1 failing; None
        if the family makes none."""
        return None

    def family_rules(self, d: dict) -> list[str]:
        """Hook: the `family_check`s, as the task prompt states them."""
        return []

    def output_tolerance(self, d: dict, output: str) -> Tolerance | None:
        """Hook for a task whose outputs need different tolerances (default: `tol`)."""
        return self.tol

    def compute(self, x: dict[str, np.ndarray], d: dict) -> dict[str, np.ndarray]:
        raise NotImplementedError(f"{type(self).__name__} must define compute")

    def ops(self, d: dict) -> Ops:
        raise NotImplementedError(f"{type(self).__name__} must define ops")

    # ---- public interface ----------------------------------------------------------
    def visible_configs(self) -> list[str]:
        return [c for c in self.configs if c.startswith("C")]

    def held_out_configs(self) -> list[str]:
        return [c for c in self.configs if c.startswith("H")]

    def dims(self, config: str) -> dict:
        try:
            return dict(self.configs[config])
        except KeyError:
            raise KeyError(f"task {self.name!r} has no configuration {config!r}; "
                           f"configurations: {', '.join(self.configs)}") from None

    def inputs(self, config: str) -> list[TensorSpec]:
        return self.specs_in(self.dims(config))

    def outputs(self, config: str) -> list[TensorSpec]:
        return self.specs_out(self.dims(config))

    def constants(self, config: str) -> dict[str, float]:
        return {k: float(v) for k, v in self.consts(self.dims(config)).items()}

    def generate(self, config: str, seed: int) -> dict[str, np.ndarray]:
        d = self.dims(config)
        x = self.make(d, stream(self.name, config, f"seed:{int(seed)}"))
        return self._finish(x, config, f"seed {seed}")

    def edge_cases(self, config: str, seed: int) -> EdgeCases:
        """The task's edge-case families, drawn afresh for `seed` (an evaluation draws a
        fresh edge seed, so no kernel can recognise a case): same labels for every seed,
        different values."""
        d = self.dims(config)
        cases = self.edges(d, stream(self.name, config, f"edge:{int(seed)}"))
        return [(label, self._finish(x, config, f"edge case {label!r}")) for label, x in cases]

    def tolerance(self, config: str, output: str) -> Tolerance:
        """The tolerance `compare` applies to `output` (tasks/README.md, "Tolerance policy")."""
        d = self.dims(config)
        names = [s.name for s in self.specs_out(d)]
        if output not in names:
            raise KeyError(f"{self.name} {config}: no output {output!r}; outputs: {', '.join(names)}")
        tol = self.output_tolerance(d, output)
        if tol is None:
            raise TaskDefinitionError(f"task {self.name!r} states no tolerance")
        return tol

    def correctness(self, config: str) -> str:
        """What a kernel's outputs are held to on `config`, as the task prompt states it."""
        lines = ["An output element y passes if it is within the task's tolerance of the float64 "
                 "reference r computed from the same bf16 inputs (u = 2^-8, bf16's unit roundoff; "
                 "a non-finite y fails where r is finite):"]
        lines += [f"- {self.tolerance(config, s.name).explain(s.name)}" for s in self.outputs(config)]
        lines += [f"- {rule}" for rule in self.family_rules(self.dims(config))]
        lines.append("Every element of every output must pass on every input set (random seeds and "
                     "edge cases, drawn afresh for each evaluation); there is no partial credit.")
        return "\n".join(lines)

    def allowance(self, inputs: dict[str, np.ndarray], config: str, output: str) -> np.ndarray | None:
        """The `error_allowance` of `output` on `inputs` (float64, the output's shape), or None."""
        d = self.dims(config)
        x = {k: np.asarray(v, dtype=np.float64) for k, v in inputs.items()}
        a = self.error_allowance(x, d, output)
        if a is None:
            return None
        shape = next(s.shape for s in self.specs_out(d) if s.name == output)
        return np.broadcast_to(np.abs(np.asarray(a, dtype=np.float64)), shape)

    def family_margin(self, family: str, inputs: dict[str, np.ndarray], config: str,
                      outputs: dict[str, np.ndarray]) -> tuple[float, str] | None:
        """The `family_check` of edge family `family` on a kernel's `outputs`, or None."""
        d = self.dims(config)
        x = {k: np.asarray(v, dtype=np.float64) for k, v in inputs.items()}
        return self.family_check(family, x, d, outputs)

    def reference(self, inputs: dict[str, np.ndarray], config: str) -> dict[str, np.ndarray]:
        d = self.dims(config)
        x = {}
        for spec in self.specs_in(d):
            if spec.name not in inputs:
                raise KeyError(f"{self.name} {config}: input {spec.name!r} missing; "
                               f"inputs: {', '.join(s.name for s in self.specs_in(d))}")
            raw = np.asarray(inputs[spec.name])
            if raw.dtype == np.uint16:
                raise TypeError(f"{self.name} {config}: input {spec.name!r} is uint16 (bf16 bit patterns?); "
                                "pass values, e.g. simulators.numerics.bf16_bits_to_f32(bits)")
            a = raw.astype(np.float64)
            if a.shape != spec.shape:
                raise ValueError(f"{self.name} {config}: input {spec.name!r} has shape {a.shape}, "
                                 f"expected {spec.shape}")
            x[spec.name] = a
        with np.errstate(over="ignore", under="ignore"):
            y = self.compute(x, d)
        for spec in self.specs_out(d):
            if spec.name not in y or y[spec.name].shape != spec.shape:
                got = y[spec.name].shape if spec.name in y else "nothing"
                raise TaskDefinitionError(f"{self.name} {config}: reference gives {got} for output "
                                          f"{spec.name!r}, declared {spec.shape}")
        return {s.name: y[s.name] for s in self.specs_out(d)}

    def work(self, config: str) -> Work:
        d = self.dims(config)
        o = self.ops(d)
        return Work(macs=int(o.macs), vector_elems=int(o.vector), special_elems=int(o.special),
                    input_elems=sum(s.size for s in self.specs_in(d)),
                    output_elems=sum(s.size for s in self.specs_out(d)))

    # ---- helpers ---------------------------------------------------------------------
    def _finish(self, x: dict[str, np.ndarray], config: str, what: str) -> dict[str, np.ndarray]:
        """Round to each input's dtype and check the set of names and the shapes."""
        specs = self.inputs(config)
        if set(x) != {s.name for s in specs}:
            raise TaskDefinitionError(f"{self.name} {config} {what}: makes inputs {sorted(x)}, "
                                      f"declared {[s.name for s in specs]}")
        out = {}
        for spec in specs:
            a = np.asarray(x[spec.name], dtype=np.float64)
            if a.shape != spec.shape:
                raise TaskDefinitionError(f"{self.name} {config} {what}: input {spec.name!r} has shape "
                                          f"{a.shape}, declared {spec.shape}")
            a = a.astype(np.float32)
            out[spec.name] = round_bf16(a) if spec.dtype == "bf16" else a
        return out

    def __repr__(self) -> str:
        return f"<Task {self.name} L{self.level}>"
