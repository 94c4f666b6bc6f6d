"""plena's layout: every tensor in HBM (bf16), task constants in FP_MEM (fp32).

Each region starts on a VLEN boundary and reserves whole transfer blocks
(HBM_V_WRITEBACK_AMOUNT x VLEN elements), so a kernel may move whole blocks at a
tensor's tail; the slack is the region's own and is not checked. One guard row of
VLEN elements follows each region, and all of HBM that no region declares starts as a
NaN guard: an overrun there fails the evaluation as a write outside the declared
regions. Room a kernel needs in HBM is a scratch region (`scratch_elems`, Levels 2-3).
Level 2/3 inputs also have a zero lead before them and a tile's width of zero slack
after them (tile reads of narrow heads; see the notes)."""
from __future__ import annotations

from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.tasks.core import Task
from kernelcraft.workbench.layout import Constant, Layout, pack, stray_note


def scratch_elems(task: Task, config: str, hw: HardwareConfig) -> int:
    """Level 2/3 kernels spill intermediates (hidden states, q/k/v, constant tiles) to
    HBM scratch: room for twice the task's inputs and outputs plus two MLEN x MLEN
    tiles, so it follows the task and the hardware instead of a fixed size. Level 1
    needs none."""
    if task.level < 2:
        return 0
    w = task.work(config)
    return 2 * (w.input_elems + w.output_elems) + 2 * hw.MLEN * hw.MLEN


def plena_layout(task: Task, config: str, hw: HardwareConfig) -> Layout:
    align = hw.VLEN
    # A row narrower than VLEN is stored as a whole VLEN row (H_STORE_V with STRIDE < VLEN):
    # the last one runs VLEN - width past the tensor, into space the tensor reserves.
    def tail(t):
        return max(0, hw.VLEN - t.shape[-1]) if t.shape else 0
    # Level 2/3 kernels read MLEN x MLEN tiles and VLEN rows of tensors narrower than a tile
    # (heads of D = 16..64 columns): such a read may start up to VLEN elements before a
    # tensor and end up to MLEN after it, so each input has a zero lead and MLEN zero slack.
    deep = task.level >= 2
    spec = [(t.name, t.shape, t.dtype, "input", t.doc, hw.MLEN if deep else 0) for t in task.inputs(config)]
    spec += [(t.name, t.shape, t.dtype, "output", t.doc, tail(t)) for t in task.outputs(config)]
    scratch = scratch_elems(task, config, hw)
    if scratch:
        spec.append(("scratch", (scratch,), "bf16", "scratch", "free for intermediates"))
    block = hw.HBM_V_WRITEBACK_AMOUNT * hw.VLEN
    lead = {t.name: hw.VLEN for t in task.inputs(config)} if deep else None
    regions = pack(spec, "hbm", 0, align, block=block, guard=align, lead=lead)
    addr = regions[-1].address + regions[-1].reserved
    if addr > hw.HBM_SIZE:
        raise ValueError(f"{task.name} {config} needs {addr} HBM elements, HBM_SIZE is {hw.HBM_SIZE}")
    consts = task.constants(config)
    if len(consts) > hw.FP_MEM_SIZE:
        raise ValueError(f"{task.name} {config}: {len(consts)} constants exceed FP_MEM_SIZE")
    constants = [Constant(name, "fp_mem", i, float(v)) for i, (name, v) in enumerate(consts.items())]
    notes = [
        "All HBM addresses are in bf16 elements; tensors are row-major.",
        "Address registers a0..a7, STRIDE, V_MASK and every SRAM start at zero.",
        "Output regions start filled with NaN: the kernel must write every output element.",
        f"Each tensor reserves whole blocks of {block} elements (see 'reserved'; an output whose rows "
        "are narrower than VLEN also covers one whole VLEN row stored at its last row); the slack "
        "after a tensor may be written freely.",
        stray_note("hbm"),
    ]
    if deep:
        notes.append(f"Each input is preceded by {hw.VLEN} zero elements (its 'lead') and reserves at "
                     f"least {hw.MLEN} zero elements after it, so a VLEN row or an MLEN x MLEN tile read "
                     "that starts before a narrow tensor (a head of D < VLEN columns) or runs past its "
                     "end reads zeros; the lead may be read but not written.")
    notes += [
        "Nothing else is in memory: the expected outputs are never visible to the kernel.",
    ]
    return Layout("plena", task.name, config, regions, constants, notes, sizes={"hbm": hw.HBM_SIZE})
