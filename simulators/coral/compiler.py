"""Translate coral basic blocks into Python functions, once per block, on first use.

A block runs from its first instruction to the first control-flow instruction
(branch, jal, jalr, ecall, ebreak), at most MAX_BLOCK instructions, the end of the
program, or the instruction before a loop head (a backward branch's target). Its scalar instructions become the statements their semantics generate
(semantics/scalar.py); vector instructions become calls of closures bound at compile
time (semantics/vector_*.py). So a run interprets no instruction text or bits: a loop
iteration is one call of one function.

Vector closures are wrapped in their short-vector forms where they have one
(smallvec.py: pure Python at small vl), unless tracing or with the fast paths off.

Two variants of a block:
- fast `fn()` -> next index: no cycle counter; the run loop adds the block's static
  cycles (and the misprediction penalty when the next block is not the predicted one).
  Used when the block has no vector instruction, no CSR access or fence, and (for
  blocks with scalar loads/stores) no vector memory access is still in flight.
- timed `tfn(T, R)` -> (next index, T): keeps the scalar cycle T instruction by
  instruction, dispatches vector instructions to the vector timing model and waits
  where the timing model says. Tracing runs every instruction as a one-instruction
  timed block.

A block that branches back to itself may also get a plan that runs many of its
iterations in one step, with the same results and cycles (`Block.loop`): a
contraction's multiply-add inner loop (loops.py), the strips of a strip-mined
elementwise loop (strips.py) or a counted loop of loads, element-wise operations and
stores (maps.py); any other self-looping block runs as one Python
`while` loop (selfloop.py). The compiler records the timed variant's cycle
accounting as data (`Block.tsteps`) so that those plans can replay it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.errors import SimError

from . import fp32, scoreboard, smallvec
from .semantics import SCALAR, VECTOR, Code
from .semantics.scalar import BRANCH
from .semantics.system import System, div_s, div_u, rem_s, rem_u
from .state import M, CoralState, fault
from .loops import LoopPlan
from .maps import MapPlan
from .selfloop import SelfLoop
from .strips import StripPlan
from .timing import LOAD, NOWB, STORE, WSHIFT, VectorTiming
from .vecloop import VecLoop

MAX_BLOCK = 256
# compiled block sources: a program run again (seeds, edge cases, benchmark repeats)
# generates the same text, and compile() took a few ms of every run
_CODE: dict[str, object] = {}
STOP_BREAK, STOP_ECALL = -1, -2
MEM_KIND = {"VLOAD": LOAD, "VLOADS": LOAD, "VSTORE": STORE, "VSTORES": STORE, "VMOVE": NOWB}
# Indexed accesses check every element's address at dispatch from the index register group,
# so they wait until no earlier vector instruction still queued or issuing writes the offsets
# (or v0, masked): the RTL's scoreboard (rtl/coral/README.md, scoreboard.py)
INDEXED = frozenset(m for m, d in get_isa("coral").instructions.items()
                    if d.format.name in ("VLX", "VSX"))


@dataclass
class Block:
    start: int
    size: int
    fn: object = None            # fast variant, or None if the block must be timed
    source: str = ""             # the generated timed source, compiled on demand
    tfn: object = None
    cost: int = 0                # static cycles of the fast variant (prediction right)
    predicted: int = 0           # the next index the fast variant's cycles assume
    penalty: int = 0             # extra cycles when the next index is not `predicted`
    mem: bool = False            # has scalar loads or stores
    prefix: list = field(default_factory=list)    # static issue offset of each instruction
    # the timed variant's T when each instruction's own code starts, as a static offset
    # behind the instruction's issue cycle (T moves in steps: flushes, waits, dispatches),
    # and whether the instruction waits itself (its fault is at the wait's start): a fault
    # inside the block is timed from T, waits earlier in the block included (fault_at)
    tdelta: tuple = ()
    own_wait: tuple = ()
    busy: dict = field(default_factory=dict)      # unit -> static cycles of one pass
    # the timed variant's cycle accounting as data, for loops.py: ("add", n), ("vq", pc, kind,
    # its scoreboard.write_rule or None), ("load",) / ("store",) / ("drain",); None if the block
    # has other timed code or an indexed access
    tsteps: list | None = field(default_factory=list)
    tails: tuple = ()            # (taken, fall) cycles a branch ending the block adds
    loop: object = None          # a LoopPlan if the block is a loop loops.py runs whole
    sloop: object = None         # a SelfLoop if the block branches back to itself (selfloop.py)


class Compiler:
    def __init__(self, program, state: CoralState, timing: VectorTiming, cfg, isa, traced: bool = False,
                 fast: bool = True):
        self.program, self.s, self.cfg, self.isa, self.traced = program, state, cfg, isa, traced
        self.fast = fast and not traced       # short-vector forms (smallvec.py) allowed
        self.timing = timing
        self.n = len(program.instrs)
        self.penalty = cfg.BRANCH_PENALTY
        system = System(state, timing)
        s = state
        self.ns = {
            "x": s.x, "f": s.f, "fc": s.fc, "m8": s.m8, "m16": s.m16, "m32": s.m32, "M": M, "S": s,
            "DB": s.dbase, "DL1": s.dsize - 1, "DL2": s.dsize - 2, "DL4": s.dsize - 4,
            "BAD": s.bad_access, "STORE": s.store, "CSR": system.csr, "FRM": system.frm,
            "JUMP": system.jump, "VSET": system.vset, "VQ": timing.dispatch,
            "SYNC_LOAD": timing.sync_load, "SYNC_STORE": timing.sync_store, "DRAIN": timing.drain,
            "WAIT_REGS": timing.wait_regs,
            "div_s": div_s, "div_u": div_u, "rem_s": rem_s, "rem_u": rem_u,
            "fadd": fp32.fadd, "fsub": fp32.fsub, "fmul": fp32.fmul, "fdiv": fp32.fdiv,
            "fsqrt": fp32.fsqrt, "fma": fp32.fma, "fmin": fp32.fmin, "fcompare": fp32.fcompare,
            "fclass": fp32.fclass, "fcvt_to_int": fp32.fcvt_to_int, "fcvt_from_int": fp32.fcvt_from_int,
            "ILLEGAL": self.illegal, "SimError": SimError, "FAULT_AT": self.fault_at,
        }
        self.blocks: dict[int, Block] = {}
        # the registers each dispatch writes are kept only where something reads them
        timing.scoreboard = any(ins.mnemonic in INDEXED for ins in program.instrs)
        self.wrules: dict[int, object] = {}     # pc -> scoreboard.write_rule (while scoreboard)
        # the first instruction of every loop body (a backward branch's target) starts a
        # block: a block running into a loop from above would otherwise hold the loop's
        # first iteration, which its plan (loops.py, strips.py, selfloop.py) then misses on
        # every entry. Block boundaries add no cycles (a block without control flow at its
        # end predicts its fall-through), so results and timing are the same either way.
        self.heads = frozenset(pc + ins.ops.get("imm", 0) // 4 for pc, ins in enumerate(program.instrs)
                               if ins.mnemonic in BRANCH and ins.ops.get("imm", 0) <= 0)

    def illegal(self, pc: int) -> SimError:
        ins = self.program.instrs[pc]
        what = f"the word 0x{self.program.words[pc]:08x}" if pc < len(self.program.words) else ins.mnemonic
        return fault(pc, f"{what} is not a coral instruction ({ins.mnemonic!r}); data in .text is "
                         "executed only if the program jumps to it or runs into it")

    def block(self, pc: int, limit: int = MAX_BLOCK) -> Block:
        """The block starting at `pc` (compiled on first use; `limit` < MAX_BLOCK
        compiles an uncached shorter block, for runs that stop inside one)."""
        blk = self.blocks.get(pc) if limit == MAX_BLOCK else None
        if blk is None:
            blk = self.compile(pc, 1 if self.traced else limit)
            if limit == MAX_BLOCK:
                self.blocks[pc] = blk
        return blk

    def code_of(self, pc: int, k: int) -> tuple[Code, object]:
        """The Code of instruction `pc` (k-th of its block) and its ISA record."""
        ins = self.program.instrs[pc]
        d = self.isa.instructions.get(ins.mnemonic)
        if d is None:
            return Code([f"raise ILLEGAL({pc})"], flow="stop", stop="illegal"), None
        ops = {op.name: ins.ops.get(op.name, op.kind.default) for op in d.operands}
        gen = SCALAR.get(d.mnemonic)
        if gen is not None:
            return gen(mnemonic=d.mnemonic, pc=pc, addr=4 * pc, traced=self.traced, k=k, **ops), d
        closure = VECTOR[d.mnemonic](self.s, ops, pc, self.cfg.cycles(d.timing))
        if self.fast:
            closure = smallvec.wrap(d.mnemonic, self.s, ops, closure)
        self.ns[f"V{pc}"] = closure
        kind = MEM_KIND.get(d.timing, 0)
        call = f"T = VQ(T, V{pc}(), {kind})"
        wait = []
        if self.timing.scoreboard:
            rule = self.wrules[pc] = scoreboard.write_rule(d.mnemonic, ops)
            self.ns[f"W{pc}"] = rule
            call = f"T = VQ(T, V{pc}(), {kind} | W{pc}(S) << {WSHIFT})"
            if d.mnemonic in INDEXED:
                self.ns[f"R{pc}"] = scoreboard.index_read_rule(d.mnemonic, ops)
                wait = [f"T = WAIT_REGS(T, R{pc}(S))"]
        lines = wait + [call] + (["T = DRAIN(T)"] if d.unit == "vmove" else [])
        return Code(lines, timed=True), d

    def compile(self, start: int, limit: int) -> Block:
        blk = Block(start, 0)
        fast, timed = [], []
        steps = blk.tsteps
        pending = 0                       # static cycles not yet added to T in the timed variant
        timed_only = False
        flow = None
        t = 0
        base = 0                          # the static offset the timed variant's T stands for
        tdelta, own = [], []
        for k, pc in enumerate(range(start, min(self.n, start + limit))):
            if k and pc in self.heads:
                break
            code, d = self.code_of(pc, k)
            cost = 1 if d is None or d.mnemonic in VECTOR else self.cfg.cycles(d.timing)
            blk.prefix.append(t)
            blk.size += 1
            if d is not None:
                unit = d.unit if d.mnemonic not in VECTOR else "vdispatch"
                blk.busy[unit] = blk.busy.get(unit, 0) + cost
            timed_only |= code.timed
            blk.mem |= code.mem
            sync = {"load": "T = SYNC_LOAD(T)", "store": "T = SYNC_STORE(T)", "drain": "T = DRAIN(T)"}.get(code.sync)
            if sync and code.flow != "stop":
                timed += self._flush(pending) + [sync]
                if steps is not None:
                    steps += [("add", pending)] * bool(pending) + [(code.sync,)]
                pending = 0
                base = t
            if code.timed:
                timed += self._flush(pending)
                if steps is not None:
                    steps += [("add", pending)] * bool(pending)
                    if d is not None and d.mnemonic in VECTOR and d.mnemonic not in INDEXED:
                        steps += [("vq", pc, MEM_KIND.get(d.timing, 0), self.wrules.get(pc))] + \
                            [("drain",)] * (d.unit == "vmove")
                    else:              # (an indexed access's wait reads the scoreboard: no fast path)
                        steps = blk.tsteps = None
                pending = 0
                base = t
            tdelta.append(t - base)
            own.append(bool(sync) and code.flow != "stop")
            fast += code.lines
            timed += code.lines
            if code.flow:
                flow = (code, pc, cost, d)
                break
            if not code.timed or d is None or d.mnemonic not in VECTOR:
                pending += cost
            t += cost
            if code.timed and d is not None and d.mnemonic in VECTOR:
                base = t                  # VQ returned the next issue cycle
        end = start + blk.size
        body_fast, body_timed = list(fast), list(timed)
        blk.cost = t
        blk.predicted = end
        if flow is None:
            fast.append(f"return {end}")
            timed.append(f"return {end}, T + {pending}")
        else:
            code, pc, cost, d = flow
            blk.cost += cost
            tail_fast, tail_timed = self._flow(blk, code, pc, cost, pending, end)
            fast += tail_fast
            timed += tail_timed
        blk.tdelta, blk.own_wait = tuple(tdelta), tuple(own)
        blk.source = ("def tfn(T, R):\n    try:\n        " + "\n        ".join(timed) +
                      f"\n    except SimError as e:\n        FAULT_AT(e, T, {start}, {blk.tdelta}, {blk.own_wait})\n"
                      "        raise\n")
        if flow is not None and flow[0].flow == "branch" and flow[0].target == start and not self.traced:
            args = (self.program.instrs, start, blk.size, self.cfg, self.isa, self.s, self.timing, blk.tsteps)
            blk.loop = (LoopPlan.recognise(*args, *blk.tails) or StripPlan.recognise(*args, blk.tails)
                        or MapPlan.recognise(*args, blk.tails))
            vec = VecLoop(self, blk, flow[0].cond) if timed_only and self.fast else None
            blk.sloop = SelfLoop(self, blk, body_fast if not timed_only else None, body_timed, flow[0].cond, vec)
        if not timed_only:
            blk.fn = self._define("def fn():\n    " + "\n    ".join(fast) + "\n", "fn")
        if self.traced or timed_only:
            self.timed(blk)
        return blk

    def fault_at(self, e: SimError, T: int, start: int, tdelta: tuple, own: tuple) -> None:
        """An error raised by the timed code of a block starting at `start`, with T as it
        was: the faulting instruction's issue cycle, as `e.fault_cycle`. One that waits
        itself (a scalar load behind a vector store) faults as it issues, before the wait,
        as the RTL does: the wait is taken back from the stall count."""
        k = e.where.index - start
        if not hasattr(e, "fault_cycle") and 0 <= k < len(tdelta):
            tm = self.timing
            if own[k]:
                e.fault_cycle = tm.wait_from
                tm.sync_stall -= T - tm.wait_from
            else:
                e.fault_cycle = T + tdelta[k]

    @staticmethod
    def _flush(pending: int) -> list[str]:
        return [f"T += {pending}"] if pending else []

    def _flow(self, blk: Block, code: Code, pc: int, cost: int, pending: int, end: int):
        p = self.penalty
        if code.flow == "branch":
            backward = code.target <= pc
            blk.predicted = code.target if backward else end
            blk.penalty = p
            taken, fall = pending + cost + (0 if backward else p), pending + cost + (p if backward else 0)
            if code.target == end:        # to the next instruction: fetched either way (as the RTL)
                taken = fall = pending + cost
            blk.tails = (taken, fall)
            return ([f"if {code.cond}: return {code.target}", f"return {end}"],
                    [f"if {code.cond}: return {code.target}, T + {taken}", f"return {end}, T + {fall}"])
        if code.flow == "jump":
            blk.predicted = code.target
            return ([f"return {code.target}"], [f"return {code.target}, T + {pending + cost}"])
        if code.flow == "indirect":
            blk.predicted = -3                 # never equal: JALR's cycles include the penalty
            return (["return nxt"], [f"return nxt, T + {pending + cost}"])
        stop = STOP_ECALL if code.stop == "ecall" else STOP_BREAK
        blk.predicted = stop
        return ([f"return {stop}"], [f"return {stop}, T + {pending + cost}"])

    def _define(self, source: str, name: str):
        code = _CODE.get(source)
        if code is None:
            if len(_CODE) >= 4096:
                _CODE.clear()
            code = _CODE[source] = compile(source, "<coral block>", "exec")
        scope: dict = {}
        exec(code, self.ns, scope)
        return scope[name]

    def timed(self, blk: Block):
        if blk.tfn is None:
            blk.tfn = self._define(blk.source, "tfn")
        return blk.tfn
