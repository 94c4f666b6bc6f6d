"""The bundle rules of isa/aie/bundle.toml, checked on one bundle's operations. The
assembler reports a broken rule at the operation that breaks it; the functional model
refuses a program (built or decoded without the assembler) that breaks one."""
from __future__ import annotations

from dataclasses import dataclass

from kernelcraft.isa.aie.model import AieSpec, OpInfo

from .effects import effects
from .program import PostMod


@dataclass(frozen=True)
class Problem:
    rule: str
    message: str
    culprit: int          # index of the operation to point at
    hint: str


def check(spec: AieSpec, ops: list[tuple[OpInfo, dict]], names: list[str] | None = None,
          postmod: PostMod | None = None) -> Problem | None:
    """The first rule one bundle breaks, or None. `names` describe the operations in
    messages (default: their mnemonics)."""
    names = names or [info.mnemonic for info, _ in ops]
    capacity = spec.slot_classes()
    by_class: dict[str, list[int]] = {}
    for i, (info, _) in enumerate(ops):
        by_class.setdefault(info.slot, []).append(i)
    for cls, idx in by_class.items():
        cap = capacity[cls]
        if len(idx) > cap:
            slots = [s.name for s in spec.slots if s.cls == cls]
            return Problem("slots", f"rule slots: this bundle has {len(idx)} {cls} operations "
                           f"({', '.join(names[i] for i in idx)}) but {cap} {cls} slot"
                           f"{'s' if cap != 1 else ''} ({', '.join(slots)})", idx[cap],
                           "move the extra operation to another bundle (a line of its own)")
    eff = [effects(spec, info, vals, postmod) for info, vals in ops]
    writer: dict = {}
    for i, (_, writes) in enumerate(eff):
        for u in dict.fromkeys(writes):
            if u in writer:
                doc = next(r.doc for r in spec.rules if r.name == "one-writer")
                return Problem("one-writer", f"rule one-writer: {u[0]}{u[1]} is written by both "
                               f"{names[writer[u]]} and {names[i]} in one bundle", i,
                               f"{doc}; split the bundle")
            writer[u] = i
    for rule in spec.rules:
        if not rule.count:
            continue
        used = [(i, u) for i, (reads, writes) in enumerate(eff)
                for u in (reads if rule.count == "reads" else writes) if u[0] in rule.files]
        if len(used) > rule.limit:
            listed = ", ".join(f"{names[i].split()[0]} {u[0]}{u[1]}" for i, u in used)
            return Problem(rule.name, f"rule {rule.name}: this bundle {rule.count[:-1]}s "
                           f"{len(used)} {'/'.join(rule.files)} registers ({listed}); at most "
                           f"{rule.limit}", used[rule.limit][0], f"{rule.doc}; move an operation "
                           "to another bundle")
    return None
