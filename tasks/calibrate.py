"""How close correct bf16 kernels come to each task's bound, and how far known-wrong
ones land beyond it.

    python -m kernelcraft.tasks.calibrate [--seeds N] [task ...]

An evaluation draw is one random seed s plus the edge cases of edge seed s. For every
configuration (held-out ones included) and N draws, the margin of a kernel on a draw is
its largest |y - r| / bound over the draw's input sets (1.0 = at the bound; a kernel
passes an evaluation iff its margin is at most 1). Printed per task:

- correct: the largest margin of the emulated correct kernel (`tasks.bf16_kernels`)
  over every configuration and draw; it must stay below 1;
- each wrong variant (`tasks.wrong_variants`): its smallest margin over every
  configuration where it differs from the correct kernel and every draw; it must
  stay above 1 (every evaluation fails it);
- each known gap (`wrong_variants.GAPS`, a wrong variant the bounds do not catch yet):
  its smallest margin, for the record (below 1: some evaluation passes it).
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field

import numpy as np

from . import all_tasks, get_task
from .bf16_kernels import run
from .core import Task
from .tolerance import worst_ratio
from .wrong_variants import GAPS, VARIANTS


@dataclass
class Margins:
    task: str
    correct: float = 0.0
    correct_at: str = ""
    wrong: dict[str, tuple[float, str]] = field(default_factory=dict)   # name -> (smallest, where)
    gaps: dict[str, tuple[float, str]] = field(default_factory=dict)    # the same, for GAPS


def draw(task: Task, config: str, seed: int) -> list[tuple[str, dict]]:
    return [(f"seed {seed}", task.generate(config, seed))] + \
           [(f"edge {seed} {label}", x) for label, x in task.edge_cases(config, seed)]


def allowances(task: Task, config: str, sets: list) -> list[dict]:
    """Each input set's allowance per output (computed once per draw: the Level 2 error
    models are costly, and every kernel of the catalogue is held to the same bound)."""
    return [{s.name: task.allowance(x, config, s.name) for s in task.outputs(config)} for _, x in sets]


def margin(task: Task, config: str, sets: list, refs: list, kernel, allows=None) -> tuple[float, str] | None:
    """The kernel's largest error/bound over one draw's input sets, and of the edge
    families' own checks (None if the kernel does not apply to this configuration);
    `allows`: the sets' `allowances`, if known."""
    worst, where = 0.0, ""
    d = task.dims(config)
    allows = allows or allowances(task, config, sets)
    for (label, x), ref, allow in zip(sets, refs, allows):
        with np.errstate(all="ignore"):
            got = kernel(x, d)
        if got is None:
            return None
        for spec in task.outputs(config):
            q = worst_ratio(got[spec.name], ref[spec.name], task.tolerance(config, spec.name),
                            allow[spec.name])
            if q > worst or not where:
                worst, where = q, f"{config} {label}"
        if label.startswith("edge "):
            found = task.family_margin(label.split(" ", 2)[2], x, config, got)
            if found is not None and found[0] > worst:
                worst, where = found[0], f"{config} {label} (its family's check)"
    return worst, where


def calibrate(task: Task, seeds: int, configs: list[str] | None = None,
              variants: bool = True, gaps: bool = True) -> Margins:
    m = Margins(task.name)
    correct = lambda x, d: run(task.name, x, d)          # noqa: E731
    wrong = [(n, k, m.wrong) for n, k in VARIANTS.get(task.name, [])] if variants else []
    wrong += [(n, k, m.gaps) for n, k in GAPS.get(task.name, [])] if variants and gaps else []
    for config in configs or list(task.configs):
        for s in range(seeds):
            sets = draw(task, config, s)
            refs = [task.reference(x, config) for _, x in sets]
            allows = allowances(task, config, sets)
            q, where = margin(task, config, sets, refs, correct, allows)
            if q >= m.correct:
                m.correct, m.correct_at = q, where
            for name, kernel, into in wrong:
                got = margin(task, config, sets, refs, kernel, allows)
                if got is not None and (name not in into or got[0] < into[name][0]):
                    into[name] = got
    return m


def fmt(q: float) -> str:
    return "inf" if not np.isfinite(q) else (f"{q:.3g}" if q < 1e4 else f"{q:.1e}")


MARGIN_HEAD = ["| task | tolerance | correct kernel: largest margin | wrong variants: smallest margin "
               "| known gaps (not caught yet): smallest margin |", "|---|---|---|---|---|"]


def tolerance_of(t: Task) -> str:
    return "; ".join(dict.fromkeys(t.tolerance(c, s.name).describe() for c in t.configs for s in t.outputs(c)))


def margin_row(m) -> str:
    wrong = ", ".join(f"{n} {fmt(q)}" for n, (q, _) in m.wrong.items())
    gaps = ", ".join(f"{n} {fmt(q)}" for n, (q, _) in m.gaps.items()) or "none"
    return (f"| `{m.task}` | {tolerance_of(get_task(m.task))} | {fmt(m.correct)} ({m.correct_at}) | {wrong} "
            f"| {gaps} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kernelcraft.tasks.calibrate", description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2, help="draws (random seed + edge seed) per configuration (default 2)")
    ap.add_argument("tasks", nargs="*", help="task names (default: all)")
    args = ap.parse_args(argv)
    try:
        tasks = [get_task(n) for n in args.tasks] if args.tasks else all_tasks()
    except KeyError as e:
        ap.error(e.args[0])
    print("\n".join(MARGIN_HEAD))
    bad = 0
    for t in tasks:
        m = calibrate(t, args.seeds)
        print(margin_row(m), flush=True)
        bad += (m.correct >= 1) + sum(q <= 1 for q, _ in m.wrong.values())
    if bad:
        print(f"\n{bad} margin(s) on the wrong side of 1")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
