"""Turn a Program into what the run loop executes, once per run.

Each instruction becomes its semantics function bound (functools.partial, a C-level
call) to the state and its operand values, so the loop does no string or dict work.
Instructions are grouped into basic blocks: a block is a run of ordinary
instructions ended by a control-flow instruction (C_LOOP_START, C_LOOP_END, C_BREAK),
the end of the program, or MAX_BLOCK instructions. Hardware loops only jump to block starts, and a block's
static cycles are known in advance, so a block that cannot stall runs as a plain
`for fn in fns: fn()` with one timing update.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from kernelcraft.simulators.core.errors import IllegalOperandError, SimError, Where

from . import fastvec, loopbatch, semantics as sem

# How an instruction meets the timing model, from its ISA unit.
PLAIN, SRAM, DMA = 0, 1, 2
UNIT_KIND = {"vector": SRAM, "matrix": SRAM, "dma": DMA}
# Straight-line code is cut into blocks of at most this many instructions, so budgets
# (checked between blocks) are checked often enough even in long unrolled kernels.
MAX_BLOCK = 256
# How a block may run: FAST never stalls; CHECK may stall on a DMA in flight (fast
# once nothing is in flight); SLOW issues a DMA (or is traced): instruction by instruction.
FAST, CHECK, SLOW = 0, 1, 2


@dataclass
class Block:
    start: int                     # pc of the first instruction
    size: int                      # instructions, including the flow instruction
    fns: list = field(default_factory=list)      # bound semantics of the body
    # (reference fn, kind, cycles, fast fn, fast fn noting its footprint or None) per body instruction
    items: list = field(default_factory=list)
    flow: object = None            # bound control-flow instruction ending the block
    flow_ref: object = None        # its reference semantics (flow is its fast closure, if any)
    body_cycles: int = 0
    flow_cycles: int = 0
    mode: int = FAST
    prefix: list = field(default_factory=list)   # issue-cycle offset of each body instruction
    busy: dict = field(default_factory=dict)     # unit -> static busy cycles (not DMA)
    batch: object = None           # loopbatch.Plan when the block is a loop body it can run at once
    written: set = field(default_factory=set)    # gp registers the body may write (so far)
    # the rows and tiles its body touches (fastvec.touches), all addressed by registers the
    # body does not change before it uses them, so known at entry; None if not known
    touched: list | None = field(default_factory=list)

    def row(self, ref: bool = False) -> tuple:
        """What the hot loop unpacks (with `ref`: the reference flow instruction)."""
        return (self.fns, self.flow_ref if ref else self.flow, self.body_cycles,
                self.flow_cycles, self.size, self.mode, self.start)


@dataclass
class Code:
    blocks: list[Block]
    rows: list[tuple]              # Block.row() of each block
    ref_rows: list[tuple]          # Block.row(ref=True): what runs with the fast paths off
    block_at: list[int]            # pc -> block index (len(program) -> len(blocks))
    pc_of: dict[int, int]          # id(bound fn) -> pc, to locate errors in the fast path
    lines: list[int]
    texts: list[str]
    units: list[str]
    kinds: list[int]
    cycles: list[int]
    # pcs of V_TOPK: its NaN check is made in its step 1, from the logits the RTL reads at
    # issue (rtl/plena/plena_core.v, late_err), so that error comes a cycle after it starts
    late: frozenset = frozenset()

    def where(self, pc: int, cycle: int, retired: int) -> Where:
        if pc >= len(self.lines):
            return Where(pc, 0, "(end of program)", cycle, retired)
        return Where(pc, self.lines[pc], self.texts[pc], cycle, retired)


def render(defn, values: dict) -> str:
    """Assembly text of an instruction (for programs built without source text)."""
    parts = []
    for op in defn.operands:
        v = values.get(op.name, 0)
        parts.append(f"{op.kind.prefix}{v}" if op.kind.is_register else str(v))
    return f"{defn.mnemonic} {', '.join(parts)}".strip()


def timing_class(defn, instr) -> str:
    """The timing class an instruction takes: its record's, except V_TOPK's 4 of 32
    (rmask = 0), whose engine finishes four selections earlier (rtl/plena/plena_topk.v)."""
    if defn.mnemonic == "V_TOPK" and not instr.ops.get("rmask"):
        return "V_TOPK_32"
    return defn.timing


def _operand_values(defn, instr) -> list[int]:
    values = []
    for op in defn.operands:
        v = instr.ops.get(op.name)
        if op.kind.reserved:
            if v not in (None, 0):
                raise IllegalOperandError(f"operand {op.name} of {defn.mnemonic} is reserved "
                                          f"and must be 0, got {v}")
            continue
        if v is None:
            if not op.optional:
                raise IllegalOperandError(f"{defn.mnemonic} is missing operand {op.name} "
                                          f"(syntax: {defn.syntax})")
            v = 0
        if not isinstance(v, int) or isinstance(v, bool):
            raise IllegalOperandError(f"operand {op.name} of {defn.mnemonic} must be an "
                                      f"integer, got {v!r}")
        lo, hi = (0, op.kind.count - 1) if op.kind.is_register else (op.kind.min, op.kind.max)
        if not lo <= v <= hi:
            raise IllegalOperandError(f"operand {op.name} of {defn.mnemonic} is {v}; "
                                      f"{op.kind.name} allows {lo}..{hi}")
        values.append(v)
    return values


_GP_OPERANDS: dict = {}     # mnemonic -> positions of its gp operands among its values


def _note_touches(blk: Block, defn, kind: int, values: list[int], at) -> None:
    """Add an instruction's rows and tiles (`at`, from fastvec.touches) to its block's
    `touched`, or make that None: an SRAM instruction whose rows are not known, or whose
    address register an earlier instruction of the block may have written (any gp
    operand of a scalar or control instruction counts as written)."""
    if kind == PLAIN:
        at_gp = _GP_OPERANDS.get(defn.mnemonic)
        if at_gp is None:
            ops = [op for op in defn.operands if not op.kind.reserved]
            at_gp = _GP_OPERANDS[defn.mnemonic] = [i for i, op in enumerate(ops)
                                                   if op.kind.prefix == "gp"]
        blk.written.update(values[i] for i in at_gp)
    elif kind == SRAM:
        if not at or any(reg in blk.written for _, reg, _, _ in at):
            blk.touched = None
        else:
            blk.touched.extend(a for a in at if a not in blk.touched)


def predecode(program, state, cfg, isa, trace: bool = False) -> Code:
    """Bind every instruction of `program` to `state`; raises a located SimError for an
    instruction the model cannot run (unknown mnemonic, bad operand, program too big)."""
    table = sem.table(isa)
    if program.accel != isa.name:
        raise SimError(f"the program was assembled for {program.accel!r}, not {isa.name!r}")
    n = len(program.instrs)
    if n > cfg.IMEM_SIZE:
        raise SimError(f"the program has {n} instructions; instruction memory holds "
                       f"IMEM_SIZE={cfg.IMEM_SIZE}: shorten it (use hardware loops)")
    lines, texts, units, kinds, cycles = [], [], [], [], []
    blocks: list[Block] = []
    pc_of: dict[int, int] = {}
    block_at = [-1] * (n + 1)
    blk = None
    for pc, instr in enumerate(program.instrs):
        defn = isa.instructions.get(instr.mnemonic)
        lines.append(instr.line)
        texts.append(instr.text or (render(defn, instr.ops) if defn else instr.mnemonic))
        try:
            if defn is None:
                raise IllegalOperandError(f"unknown instruction {instr.mnemonic!r}: plena has "
                                          "no such mnemonic")
            values = _operand_values(defn, instr)
        except SimError as e:
            raise e.locate(Where(pc, instr.line, texts[-1]))
        is_flow = defn.mnemonic in sem.FLOW
        fn = partial(table[defn.mnemonic], state, *values, *((pc,) if is_flow else ()))
        pc_of[id(fn)] = pc
        kind = UNIT_KIND.get(defn.unit, PLAIN)
        c = cfg.cycles(timing_class(defn, instr))
        units.append(defn.unit)
        kinds.append(kind)
        cycles.append(c)

        if blk is None:
            blk = Block(start=pc, size=0)
            block_at[pc] = len(blocks)
            blocks.append(blk)
        blk.size += 1
        if kind != DMA:
            blk.busy[defn.unit] = blk.busy.get(defn.unit, 0) + c
        if is_flow:
            blk.flow = blk.flow_ref = fn
            if not trace:
                blk.flow = fastvec.bind(defn.mnemonic, state, [*values, pc], fn)
                pc_of[id(blk.flow)] = pc
            blk.flow_cycles = c
            blk = None
            continue
        blk.prefix.append(blk.body_cycles)
        ref, noted, at = fn, None, None
        if not trace:
            fn = fastvec.bind(defn.mnemonic, state, values, fn)
            pc_of[id(fn)] = pc
            if fn is not ref and kind != PLAIN:
                at = fastvec.touches(defn.mnemonic, state, values)
                noted = fastvec.noting(defn.mnemonic, state, fn, at)
        if blk.touched is not None:
            _note_touches(blk, defn, kind, values, at)
        blk.items.append((ref, kind, c, fn, noted))
        blk.fns.append(fn)
        blk.body_cycles += c
        blk.mode = max(blk.mode, SLOW if trace or kind == DMA else CHECK if kind == SRAM else FAST)
        if blk.size == MAX_BLOCK:
            blk = None
    block_at[n] = len(blocks)
    if not trace:
        for prev, blk in zip(blocks, blocks[1:]):
            start, end = prev.flow_ref, blk.flow_ref
            if (start is not None and end is not None and start.func.__name__ == "C_LOOP_START"
                    and end.func.__name__ == "C_LOOP_END" and start.args[-1] + 1 == blk.start):
                blk.batch = loopbatch.plan(blk, end.args[1])
    late = frozenset(pc for pc, instr in enumerate(program.instrs) if instr.mnemonic == "V_TOPK")
    return Code(blocks, [b.row() for b in blocks], [b.row(ref=True) for b in blocks], block_at,
                pc_of, lines, texts, units, kinds, cycles, late)
