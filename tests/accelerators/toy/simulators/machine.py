"""toy's functional model: only what differs from simulators/core/runloop.py -- the
state, one semantics function per instruction (bound once per program), and the loop
over them. Every instruction is its own block, so the budget never ends inside one."""
from __future__ import annotations

import numpy as np

from kernelcraft.isa.errors import ConfigError, MemoryAccessError, SimError, Where
from kernelcraft.simulators.core.runloop import Machine, Run
from kernelcraft.simulators.core.trace import ChangeLog, TraceStep

from ..isa import isa as toy_isa

MASK32 = (1 << 32) - 1


class ToyState:
    def __init__(self, cfg):
        self.r = [0] * 8
        self.mem = np.zeros(cfg.MEM_SIZE, dtype=np.uint16)

    def set_r(self, i, v):
        if i:
            v &= MASK32
            self.r[i] = v - (1 << 32) if v >> 31 else v

    def check(self, address):
        if not 0 <= address < len(self.mem):
            raise MemoryAccessError(f"address {address} is outside mem (0..{len(self.mem) - 1})",
                                    memory="mem", address=address)

    def store(self, address, v):
        self.check(address)
        self.mem[address] = v & 0xFFFF

    def load_image(self, image):
        for name, writes in image.writes.items():
            if name != "mem":
                raise SimError(f"toy has no memory {name!r}; it has mem")
            for address, values in writes.items():
                values = np.asarray(values).ravel()
                if address < 0 or address + len(values) > len(self.mem):
                    raise SimError(f"the image writes mem[{address}:{address + len(values)}], "
                                   f"outside mem (0..{len(self.mem) - 1})")
                self.mem[address:address + len(values)] = values.astype(np.uint16)

    def memories(self):
        return {"mem": self.mem.copy()}

    def registers(self):
        return {"r": list(self.r)}


class TracingState(ChangeLog, ToyState):
    def set_r(self, i, v):
        if i:
            self.logged("r", i, lambda: self.r[i], ToyState.set_r, self, i, v)

    def store(self, address, v):
        self.check(address)
        self.logged("mem", address, lambda: self.mem[address], ToyState.store, self, address, v)


def _bind(s: ToyState, mn: str, o: dict):
    """The instruction as a function of no arguments returning the next pc or None."""
    r = s.r
    if mn == "LI":
        return lambda: s.set_r(o["rd"], o["imm"])
    if mn == "ADDI":
        return lambda: s.set_r(o["rd"], r[o["rs"]] + o["imm"])
    if mn == "LD":
        def ld():
            s.check(r[o["rs"]])
            s.set_r(o["rd"], int(s.mem[r[o["rs"]]]))
        return ld
    if mn == "ST":
        return lambda: s.store(r[o["rs"]], r[o["rd"]])
    if mn == "RELU":
        return lambda: s.set_r(o["rd"], 0 if r[o["rs"]] & 0x8000 else r[o["rs"]] & 0xFFFF)
    if mn == "BNZ":
        return lambda: o["target"] if r[o["rd"]] else None
    if mn == "HALT":
        return lambda: -1
    raise SimError(f"unknown instruction {mn!r}")


class ToyModel(Machine):
    name = "toy-model"

    def check_config(self, cfg) -> None:
        if getattr(getattr(cfg, "isa", None), "name", None) != "toy":
            raise ConfigError(f"ToyModel needs a toy HardwareConfig, got {cfg!r}")

    def start(self, program, config, budget, started, trace) -> "_Run":
        return _Run(program, config, budget, started, trace)


class _Run(Run):
    def __init__(self, program, cfg, budget, started, trace):
        super().__init__((TracingState if trace else ToyState)(cfg), budget, started, trace)
        self.program, self.cfg = program, cfg
        self.busy = {"alu": 0, "mem": 0}

    def prepare(self, image) -> None:
        if self.program.accel != "toy":
            raise SimError(f"the program was assembled for {self.program.accel!r}, not 'toy'")
        if len(self.program) > self.cfg.IMEM_SIZE:
            raise SimError(f"the program has {len(self.program)} instructions; IMEM_SIZE is "
                           f"{self.cfg.IMEM_SIZE}")
        self.state.load_image(image)
        isa = toy_isa()
        self.fns = [_bind(self.state, i.mnemonic, i.ops) for i in self.program.instrs]
        self.costs = [self.cfg.cycles(isa.instructions[i.mnemonic].timing) for i in self.program.instrs]
        self.units = [isa.instructions[i.mnemonic].unit for i in self.program.instrs]

    def where(self, pc, cycle, retired) -> Where:
        ins = self.program.instrs
        if pc >= len(ins):
            return Where(pc, 0, "(end of program)", cycle, retired)
        return Where(pc, ins[pc].line, ins[pc].text, cycle, retired)

    def creep(self, block, pc, t, retired, count):
        return pc, t, retired            # blocks of one instruction: nothing to run

    def execute(self) -> str:
        fns, costs, units, ins = self.fns, self.costs, self.units, self.program.instrs
        trace, state, busy = self.trace, self.state, self.busy
        check_at = self.check_at
        t = retired = pc = 0
        try:
            while pc < len(fns):
                if retired + 1 > check_at:
                    check_at = self.checkpoint(pc, pc, t, retired, 1)
                nxt = fns[pc]()
                if trace is not None:
                    trace.append(TraceStep(retired, pc, ins[pc].line, ins[pc].text, t,
                                           state.take_changes()))
                t += costs[pc]
                busy[units[pc]] += costs[pc]
                retired += 1
                if nxt is not None and nxt < 0:
                    self.t, self.retired = t, retired
                    return "break"
                pc = pc + 1 if nxt is None else nxt
        except SimError as e:
            if e.where.index < 0:
                e.locate(self.where(pc, t, retired))
            self.t, self.retired = e.where.cycle, e.where.retired
            raise
        self.t, self.retired = t, retired
        return "end"

    def unit_busy(self) -> dict[str, int]:
        return dict(self.busy)
