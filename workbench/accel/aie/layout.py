"""aie's layout: every tensor in external memory (bf16, 16-bit word addresses), the
task constants as fp32 at the start of data memory. Everything else the kernel needs in
data memory it must bring there by DMA.

Each region starts on a 32-word boundary and is followed by an empty guard of 32
words: an overrun lands there and is reported as a write outside the declared
regions."""
from __future__ import annotations

from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.tasks.core import Task
from kernelcraft.workbench.layout import Constant, Layout, pack, stray_note

# Level 2/3 kernels may spill intermediates; Level 1 needs none.
SCRATCH_WORDS = {1: 0, 2: 1 << 20, 3: 1 << 21}
ALIGN_WORDS = 32            # 64 bytes: one vector register
CONSTANT_BYTES = 4          # fp32 each


def constants_block(n: int) -> int:
    """Bytes of data memory the constants occupy, rounded up to whole 64-byte vectors."""
    return -(-n * CONSTANT_BYTES // 64) * 64


def aie_layout(task: Task, config: str, hw: HardwareConfig) -> Layout:
    spec = [(t.name, t.shape, t.dtype, "input", t.doc) for t in task.inputs(config)]
    spec += [(t.name, t.shape, t.dtype, "output", t.doc) for t in task.outputs(config)]
    scratch = SCRATCH_WORDS.get(task.level, 0)
    if scratch:
        spec.append(("scratch", (scratch,), "bf16", "scratch", "free for intermediates"))
    regions = pack(spec, "ext", 0, ALIGN_WORDS, block=ALIGN_WORDS, guard=ALIGN_WORDS)
    end = regions[-1].address + regions[-1].reserved
    if end > hw.EXT_SIZE:
        raise ValueError(f"{task.name} {config} needs {end} external words, EXT_SIZE is {hw.EXT_SIZE}")
    consts = task.constants(config)
    block = constants_block(len(consts))
    if block > hw.DM_SIZE:
        raise ValueError(f"{task.name} {config}: {len(consts)} constants exceed DM_SIZE")
    constants = [Constant(name, "dm", CONSTANT_BYTES * i, float(v)) for i, (name, v) in enumerate(consts.items())]
    free = f"{block}..{hw.DM_SIZE - 1}" if block else f"0..{hw.DM_SIZE - 1}"
    notes = [
        "External memory (ext) addresses are 16-bit word addresses, one bf16 element each; tensors are row-major.",
        "The core cannot load or store external memory: bring data into data memory (dm, byte addresses) "
        "with DMAIN and write results back with DMAOUT (see the manual's DMA and locks).",
        (f"Data memory holds the constants as fp32 at the byte addresses listed (load one with LD and "
         f"broadcast it with ABCST); bytes {free} are free." if consts else
         f"Data memory starts zeroed; all {hw.DM_SIZE} bytes are free."),
        "Registers, locks and the rest of data memory start at zero.",
        "Output regions start filled with NaN: the kernel must write every output element.",
        f"Each tensor reserves whole blocks of {ALIGN_WORDS} words (see 'reserved'); the slack after a "
        "tensor may be written freely.",
        stray_note("ext"),
        "Nothing else is in memory: the expected outputs are never visible to the kernel.",
    ]
    return Layout("aie", task.name, config, regions, constants, notes, sizes={"ext": hw.EXT_SIZE})
