"""Turn an AieProgram into what the run loop executes, once per run.

Each operation becomes a call: its semantics function and its operand values
(codegen.py turns runs of bundles, their calls and timing data into Python functions).
Nothing here depends on the run's state, so a program decoded once serves every run of
it with the same configuration (the result is cached per program object). A bundle's operations run so that an operation reading a
register runs before the one in the same bundle that writes it (all reads of a bundle
see the values from before it); when that order does not exist (two operations
exchanging values) the bundle's writes are deferred and applied after all its
operations ran. For the timing model each bundle carries the register units it reads
and writes (flat numbers), with latencies, and its control needs (lock waits, DMA
queues).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from kernelcraft.isa.aie.model import MEMORY_KINDS, AieSpec
from kernelcraft.simulators.core.errors import IllegalOperandError, SimError, Where

from . import rules, semantics as sem
from .effects import effects
from .effects import units as unit_list
from .program import AieProgram, PostMod
from .state import WRITE_METHODS

# Operations the state may defer per accumulator (AieState.queue_mac); any other
# operation touching an accumulator makes its deferred work land first.
DEFERRABLE = ("VMAC.BF16", "VMSC.BF16", "VMMAC.BF16")


@dataclass(slots=True)
class Row:
    calls: list              # (semantics function, deferred writes?, args, slot index), execution order
    reads: tuple             # flat units read (not as accumulate input)
    macr: tuple              # flat accumulator units read as multiply-accumulate input
    writes: tuple            # (unit, latency, forwarded: a multiply's accumulator)
    acq: tuple | None        # (lock, amount) of an ACQ
    dmaq: tuple | None       # (direction, channel) of a DMAIN/DMAOUT
    ctrl: bool               # has a control operation (needs state.now)
    mem: int                 # memory operations
    ends: int                # loops that end after this bundle
    slots: tuple             # slot names it occupies
    flush: tuple = ()        # accumulators whose deferred multiply-accumulates must land first
    halt: bool = False       # has HALT
    ops: tuple = ()          # the operations' texts, slot order (for error messages)
    loop: bool = False       # opens a hardware loop (its body starts at the next bundle)
    units: tuple = ()        # per operation (slot order): (units read, units written), as effects()
    acc: tuple = ()          # memory accesses (pointer, bytes, alignment) in slot order ld0, ld1, st
    waits: int | None = None  # the operation (slot order) whose ACQ or DMA queue the bundle waits on


@dataclass
class BundleWhere(Where):
    """Where a run-time error happened: the bundle, and the operation in it when known."""

    op: str = ""             # "slot load0: `VLD x0, [p3]`"

    def format(self) -> str:
        if self.index < 0:
            return "before the first bundle"
        if self.text == "(end of program)":
            return f"the end of the program (after bundle {self.index - 1})"
        loc = f"bundle {self.index}"
        if self.line or self.text:
            loc += f" (line {self.line}: {self.text})" if self.line else f" ({self.text})"
        if self.op:
            loc += f", {self.op}"
        return loc


@dataclass
class Code:
    rows: list[Row]
    lines: list[int]
    texts: list[str]
    units: dict[tuple, int]          # (file, number) -> flat unit
    slot_names: list[str]
    compiled: dict = field(default_factory=dict)   # codegen's cache: generated code per run of bundles

    def where(self, b: int, cycle: int, retired: int, op: int | None = None) -> Where:
        """The location of bundle b (and of its operation number `op`, slot order)."""
        if b >= len(self.lines):
            return BundleWhere(b, 0, "(end of program)", cycle, retired)
        what = ""
        if op is not None and b < len(self.rows):
            row = self.rows[b]
            what = f"slot {row.slots[op]}: `{row.ops[op]}`"
        return BundleWhere(b, self.lines[b], self.texts[b], cycle, retired, what)


def flat_units(spec: AieSpec, isa) -> dict[tuple, int]:
    counts = {k.name: k.count for k in isa.register_kinds()}
    out, n = {}, 0
    for name, f in spec.files.items():
        if f.units != name:
            continue
        for i in range(counts[name]):
            out[(name, i)] = n
            n += 1
    return out


def deferring(state):
    """A view of `state` whose write methods queue the write instead of doing it."""
    cls = type(state)
    ns = {}
    for name in WRITE_METHODS:
        real = getattr(cls, name)

        def later(self, *args, _real=real):
            self._deferred.append((_real, tuple(np.array(a) if isinstance(a, np.ndarray) else a
                                                for a in args)))
        ns[name] = later
    proxy = object.__new__(type(f"Deferred{cls.__name__}", (cls,), ns))
    state.__dict__.setdefault("_deferred", [])
    proxy.__dict__ = state.__dict__           # same containers, same attributes
    return proxy


def commit(state) -> None:
    log, state._deferred = state._deferred, []
    for real, args in log:
        real(state, *args)


def _order(infos, effs) -> list[int] | None:
    """Execution order: readers of a unit before its writer, loads before the store, the
    reader of RM before SETRM; slot order otherwise. None if no such order exists."""
    n = len(infos)
    before = [set() for _ in range(n)]          # before[i]: ops that must run before i
    for i in range(n):
        wi = set(effs[i][1]) | set(w for w in infos[i].writes if w.isupper())
        for j in range(n):
            if i == j:
                continue
            rj = set(effs[j][0]) | set(r for r in infos[j].reads if r.isupper())
            if wi & rj or (infos[i].store and infos[j].bytes and not infos[j].store):
                before[i].add(j)
    order, done = [], set()
    while len(order) < n:
        ready = [i for i in range(n) if i not in done and before[i] <= done]
        if not ready:
            return None
        order.append(ready[0])
        done.add(ready[0])
    return order


def _values(defn, instr, pm: PostMod) -> list:
    vals = []
    for op in defn.operands:
        v = instr.ops.get(op.name, 0 if op.optional else None)
        if v is None:
            raise IllegalOperandError(f"{defn.mnemonic} is missing operand {op.name}")
        if not isinstance(v, int) or isinstance(v, bool):
            raise IllegalOperandError(f"operand {op.name} of {defn.mnemonic} must be an integer, got {v!r}")
        k = op.kind
        lo, hi = (0, k.count - 1) if k.is_register else (k.min, k.max)
        if k.name == "postmod":
            lo, hi = 0, (1 << defn.format.fields[op.name][1]) - 1
        if not lo <= v <= hi:
            raise IllegalOperandError(f"operand {op.name} of {defn.mnemonic} is {v}; {k.name} allows {lo}..{hi}")
        if k.name == "postmod":
            mode, value = pm.decode(v)
            if mode is None:
                raise IllegalOperandError(f"operand {op.name} of {defn.mnemonic}: post-modify mode "
                                          f"{v >> pm.bits} is not assigned")
            v = (pm.modes[mode], value)
        vals.append(v)
    return vals


_DECODED: dict[int, tuple] = {}      # id(program) -> (weak reference, key, Code)
_MAX_DECODED = 64


def _fingerprint(program: AieProgram, cfg) -> tuple:
    """What a decode depends on: the operations, the bundles, the configuration."""
    return (tuple(sorted(cfg.as_dict().items())), program.accel, len(program.words),
            tuple((i.mnemonic, tuple(i.ops.items()), i.line, i.text) for i in program.instrs),
            tuple((bd.start, bd.count, bd.ends, bd.line, bd.text) for bd in program.bundles))


def predecode(program: AieProgram, state, cfg, spec: AieSpec) -> Code:
    """The decoded program (`state` is not used: kept for callers that pass it)."""
    key = _fingerprint(program, cfg)
    hit = _DECODED.get(id(program))
    if hit is not None and hit[0]() is program and hit[1] == key:
        return hit[2]
    code = decode(program, cfg, spec)
    if len(_DECODED) >= _MAX_DECODED:
        _DECODED.clear()
    _DECODED[id(program)] = (weakref.ref(program), key, code)
    return code


def decode(program: AieProgram, cfg, spec: AieSpec) -> Code:
    if program.accel != "aie":
        raise SimError(f"the program was assembled for {program.accel!r}, not 'aie'")
    if len(program.words) > cfg.IMEM_WORDS:
        raise SimError(f"the program has {len(program.words)} words; instruction memory holds "
                       f"IMEM_WORDS={cfg.IMEM_WORDS}: shorten it (use hardware loops)")
    table = sem.table(spec)
    pm = PostMod(spec)
    units = flat_units(spec, spec.isa)
    zero = {("r", f.zero) for f in spec.files.values() if f.zero is not None}
    lat = {c: cfg.cycles(c) for c in spec.isa.timing}
    ptr_lat = cfg.cycles("ALU")
    order_slots = [s.name for s in spec.slots]
    rows, lines, texts = [], [], []
    for b, bd in enumerate(program.bundles):
        instrs = program.instrs[bd.start:bd.start + bd.count]
        lines.append(bd.line or (instrs[0].line if instrs else 0))
        texts.append(bd.text or " || ".join(i.text for i in instrs))
        try:
            if not instrs:
                raise IllegalOperandError("an empty bundle (write NOP)")
            infos = []
            for ins in instrs:
                info = spec.ops.get(ins.mnemonic)
                if info is None:
                    raise IllegalOperandError(f"unknown operation {ins.mnemonic!r}: aie has no such mnemonic")
                infos.append(info)
            problem = rules.check(spec, [(i, ins.ops) for i, ins in zip(infos, instrs)], None, pm)
            if problem is not None:
                raise IllegalOperandError(problem.message)
            effs = [effects(spec, info, ins.ops, pm) for info, ins in zip(infos, instrs)]
            order = _order(infos, effs)
            calls, loop = [], False
            for i in (order if order is not None else range(len(instrs))):
                info, ins = infos[i], instrs[i]
                args = _values(info.defn, ins, pm)
                if info.bytes:
                    args = [info.bytes, info.align, *args]
                extra = sem.EXTRA.get(sem.key(info.mnemonic))
                if extra == "next":
                    args.append(b + 1)
                    loop = True
                elif extra == "where":
                    args.append(f"bundle {b} (line {ins.line or lines[-1]}: {ins.text or info.mnemonic})")
                calls.append((table[info.mnemonic], order is None, tuple(args), i))
            if order is None:
                calls.append((commit, False, (), None))
        except SimError as e:
            raise e.locate(BundleWhere(b, lines[-1], texts[-1]))
        reads, macr, writes = [], [], []
        flush = set()
        acq = dmaq = waits = None
        slots, taken = [], set()
        accesses = []
        for info, ins, (r_units, w_units) in zip(infos, instrs, effs):
            kinds = {op.name: op.kind for op in info.defn.operands}
            acc_units = set()
            if info.accumulates:
                acc_units = set(unit_list(spec, kinds[info.accumulates].name, ins.ops[info.accumulates]))
            if info.mnemonic not in DEFERRABLE:
                flush |= {u[1] for u in (*r_units, *w_units) if u[0] == "acc"}
            for u in r_units:
                if u in zero:
                    continue
                (macr if u in acc_units else reads).append(units[u])
            ptr_units = set()
            if info.post:
                ptr = next(n for n, k in kinds.items() if k.name in MEMORY_KINDS)
                ptr_units = {("p", ins.ops[ptr])} | {u for u in w_units if u[0] == "g"}
            for u in w_units:
                if u in zero:
                    continue
                latency = ptr_lat if u in ptr_units else lat[info.defn.timing]
                writes.append((units[u], latency, info.defn.timing == "MAC" and u[0] == "acc"))
            if info.mnemonic == "ACQ":
                acq, waits = (ins.ops["d"], ins.ops["imm"]), len(slots)
            elif info.mnemonic in ("DMAIN", "DMAOUT"):
                dmaq, waits = ("in" if info.mnemonic == "DMAIN" else "out", ins.ops["ch"]), len(slots)
            slot = next(s.name for s in spec.slots if s.cls == info.slot and s.name not in taken)
            taken.add(slot)
            slots.append(slot)
            if info.bytes:
                ptr = next(n for n, k in kinds.items() if k.name in MEMORY_KINDS)
                accesses.append((order_slots.index(slot), ins.ops[ptr], info.bytes, info.align))
        rows.append(Row(calls, tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(macr)), tuple(writes),
                        acq, dmaq, any(i.defn.group == "control" for i in infos),
                        sum(1 for i in infos if i.bytes), bd.ends, tuple(slots), tuple(sorted(flush)),
                        any(i.mnemonic == "HALT" for i in infos),
                        tuple(ins.text or ins.mnemonic for ins in instrs), loop,
                        tuple((tuple(r), tuple(w)) for r, w in effs),
                        tuple(a[1:] for a in sorted(accesses)), waits))
    return Code(rows, lines, texts, units, order_slots)
