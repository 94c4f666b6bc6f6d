"""coral's layout: everything in DTCM, byte-addressed, tensors as binary32 row-major.

DTCM_BASE .. + DATA_SIZE holds the kernel's own .data/.rodata/.bss (region
`program_data`); then the task constants (binary32, 4 bytes each), then every tensor,
each starting on a 64-byte boundary and followed by 64 unused guard bytes; Level 2/3
tasks get every byte between their tensors and the stack as a scratch region for
intermediates (so it grows and shrinks with DTCM_SIZE); the top STACK_BYTES of DTCM are
the stack (sp starts at the end of DTCM). program_data, scratch and the stack are the
kernel's own; the rest of DTCM no region declares starts as a NaN guard, and a write
there fails the evaluation as a stray write.

Tensors are binary32 because Zve32f has no bf16 arithmetic: inputs hold bf16 values
exactly; outputs are judged with the task's (bf16) tolerance."""
from __future__ import annotations

from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.simulators.coral.tables import memory_base
from kernelcraft.tasks.core import Task
from kernelcraft.workbench.layout import Constant, Layout, Region, stray_note

ALIGN = 64
GUARD = 64
STACK_BYTES = 64 * 1024


def _up(a: int, n: int) -> int:
    return -(-a // n) * n


def coral_layout(task: Task, config: str, hw: HardwareConfig) -> Layout:
    base = memory_base(hw, "dtcm")
    end = base + hw.DTCM_SIZE
    regions = [Region("program_data", "dtcm", base, (hw.DATA_SIZE // 4,), "fp32", "scratch",
                      "the kernel's own .data/.rodata/.bss (DATA_SIZE bytes)")]
    addr = base + hw.DATA_SIZE
    consts = task.constants(config)
    constants = [Constant(name, "dtcm", addr + 4 * i, float(v)) for i, (name, v) in enumerate(consts.items())]
    addr = _up(addr + 4 * len(consts) + GUARD, ALIGN)
    spec = [(t.name, t.shape, "input", t.doc) for t in task.inputs(config)]
    spec += [(t.name, t.shape, "output", t.doc) for t in task.outputs(config)]
    for name, shape, role, doc in spec:
        r = Region(name, "dtcm", addr, tuple(shape), "fp32", role, doc)
        regions.append(r)
        addr = _up(r.address + 4 * r.size + GUARD, ALIGN)
    stack = end - STACK_BYTES
    if addr > stack:
        raise ValueError(f"{task.name} {config} needs {addr - base + STACK_BYTES} bytes of DTCM "
                         f"(tensors, program data, stack); DTCM_SIZE is {hw.DTCM_SIZE}")
    if task.level > 1:
        words = (stack - GUARD - addr) // 4
        regions.append(Region("scratch", "dtcm", addr, (words,), "fp32", "scratch",
                              f"free for intermediates: all DTCM between the tensors and the stack "
                              f"({4 * words} bytes)"))
    regions.append(Region("stack", "dtcm", stack, (STACK_BYTES // 4,), "fp32", "scratch",
                          "the stack: sp starts at its end"))
    notes = [
        "Addresses are byte addresses in DTCM; every tensor is binary32 (fp32), row-major, "
        "little-endian. Inputs hold bf16 values exactly; outputs are checked with the bf16 tolerance.",
        f"Constants are binary32 values at the addresses listed (flw them); DTCM starts at "
        f"0x{base:X}, and the kernel's own .data/.rodata/.bss sit at its start (program_data).",
        "Output regions start filled with NaN (0xFFFFFFFF): the kernel must write every output element.",
        "The 64 bytes after each tensor are a guard.",
        stray_note("dtcm"),
        *(["Intermediates (hidden states, scores, packed weights) belong in `scratch`; never write into "
           "an input."] if task.level > 1 else []),
        "Nothing else is in memory: the expected outputs are never visible to the kernel.",
    ]
    return Layout("coral", task.name, config, regions, constants, notes, bases={"dtcm": base},
                  sizes={"dtcm": hw.DTCM_SIZE})
