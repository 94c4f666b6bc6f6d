"""Random valid plena programs on the functional model and on the RTL: every memory,
register, accumulator and counter equal, and the cycle count equal. A divergence fails
naming the first retired instruction where the two differ (both are re-run traced)."""
import collections

import pytest

from kernelcraft.simulators.plena.assembler import assemble
from kernelcraft.simulators.plena.machine import PlenaModel
from kernelcraft.simulators.plena_rtl.backend import Job, PlenaRTL
from kernelcraft.simulators.plena_rtl.compare import compare_runs, compare_traces
from kernelcraft.simulators.plena_rtl.randprog import ProgramGenerator

SEEDS = range(120)
LOCKSTEP_SEEDS = range(1000, 1024)


def _programs(cfg, seeds, length=60):
    gen = ProgramGenerator(cfg)
    out = []
    for seed in seeds:
        src, img = gen.generate(seed, length)
        out.append((seed, assemble(src, f"random-{seed}.asm", cfg), img))
    return out


def _first_divergence(cfg, program, image) -> str:
    model = PlenaModel().run(program, image, cfg, trace=True)
    rtl = PlenaRTL().run(program, image, cfg, trace=True)
    d = compare_traces(model.trace, rtl.trace)
    return d.format() if d else "(the traces agree; the difference is in the end state)"


def test_generator_covers_every_instruction(diff_cfg):
    seen = collections.Counter()
    for _, program, _ in _programs(diff_cfg, SEEDS):
        seen.update(i.mnemonic for i in program.instrs)
    assert set(seen) == set(diff_cfg.isa.instructions)


def test_random_programs_agree(diff_cfg):
    programs = _programs(diff_cfg, SEEDS)
    rtl = PlenaRTL().run_many([Job(p, img) for _, p, img in programs], diff_cfg)
    failures = []
    for (seed, program, image), r in zip(programs, rtl):
        m = PlenaModel().run(program, image, diff_cfg)
        assert m.error is None, f"seed {seed}: the generator made an invalid program: {m.error}"
        diffs = compare_runs(m, r)
        if diffs:
            failures.append(f"seed {seed}: " + "; ".join(d.format() for d in diffs) +
                            "\n  first diverging instruction: " +
                            _first_divergence(diff_cfg, program, image))
            if len(failures) == 3:
                break
    assert not failures, "\n".join(failures)


def test_random_programs_agree_in_lockstep(diff_cfg):
    programs = _programs(diff_cfg, LOCKSTEP_SEEDS, length=40)
    rtl = PlenaRTL().run_many([Job(p, img, trace=True) for _, p, img in programs], diff_cfg)
    for (seed, program, image), r in zip(programs, rtl):
        m = PlenaModel().run(program, image, diff_cfg, trace=True)
        assert len(r.trace) == r.retired
        d = compare_traces(m.trace, r.trace)
        assert d is None, f"seed {seed}: {d.format()}"
        # the loop stack is left out of the comparison, but both trace it alike
        loops = lambda t: [(s.step, tuple(c.new)) for s in t for c in s.changes  # noqa: E731
                           if c.space == "LOOPS"]
        assert loops(r.trace) == loops(m.trace), f"seed {seed}: loop stacks differ"


@pytest.mark.fullsize
def test_random_programs_agree_at_the_default_configuration():
    """The banks at their real size: BMM_ACC's 4 x 16 banks of 64 words (MLEN = 64,
    BLEN = 4, HLEN = 16), the Matrix SRAM's 64, FP_MEM's 32; a few programs in lockstep."""
    from kernelcraft.isa.plena import default_config
    cfg = default_config()
    programs = _programs(cfg, range(5000, 5012))
    assert {"M_BMM", "M_BTMM", "M_BMM_WO"} <= {i.mnemonic for _, p, _ in programs for i in p.instrs}
    jobs = [Job(p, img, trace=k < 3) for k, (_, p, img) in enumerate(programs)]
    rtl = PlenaRTL().run_many(jobs, cfg)
    for k, ((seed, program, image), r) in enumerate(zip(programs, rtl)):
        m = PlenaModel().run(program, image, cfg, trace=k < 3)
        assert m.error is None, f"seed {seed}: the generator made an invalid program: {m.error}"
        diffs = compare_runs(m, r)
        assert not diffs, f"seed {seed}: " + "; ".join(d.format() for d in diffs)
        if k < 3:
            d = compare_traces(m.trace, r.trace)
            assert d is None, f"seed {seed}: {d.format()}"


DMA_TRAFFIC = """
S_ADDI_INT gp1, gp0, 64
S_ADDI_INT gp2, gp0, 512
C_LOOP_START gp13, 3
  H_PREFETCH_V gp0, gp0, a0, 0, 0     ; rows 0-1, again and again: each waits for the last
  H_PREFETCH_V gp1, gp2, a0, 0, 0     ; rows 4-5
  H_PREFETCH_M gp0, gp2, a0, 0, 0     ; tile 0
  H_STORE_V gp0, gp2, a1, 0, 0        ; rows 0-1, after their prefetch lands
  V_ADD_VV gp1, gp1, gp0              ; waits for rows 4-5 and 0-1
  M_MV 0, gp0, gp1                    ; waits for tile 0
  H_STORE_V gp1, gp1, a1, 0, 0
C_LOOP_END gp13
"""


def test_dma_queue_full_and_hazards_agree_in_lockstep(diff_cfg):
    """DIFF_CONFIG's queue of two descriptors fills; prefetches and stores to the same rows
    and tile wait for each other in the engine; compute waits for their rows."""
    from kernelcraft.simulators.core.backend import MemoryImage
    import numpy as np
    program = assemble(DMA_TRAFFIC, "dma.asm", diff_cfg)
    rng = np.random.default_rng(7)
    image = MemoryImage().put("hbm", 0, rng.integers(0, 0x3F00, 4096).astype(np.uint16))
    m = PlenaModel().run(program, image, diff_cfg, trace=True)
    r = PlenaRTL().run(program, image, diff_cfg, trace=True)
    assert m.error is None and m.stalls["dma_wait"] > 0
    assert not compare_runs(m, r), [d.format() for d in compare_runs(m, r)]
    d = compare_traces(m.trace, r.trace)
    assert d is None, d.format()


# FP_MEM and INT_MEM are SRAM banks read at the edge that ends a load's cycle; the loaded
# word reaches its register one edge later, and the instruction after the load reads it
# from the bank's read register (rtl/plena/README.md). Each line after a load uses what it
# loaded in the next cycle, or writes the same register, or reads what was just written.
LOAD_USE = """
S_ADDI_INT gp11, gp0, 32
S_LD_INT gp1, gp0, 3          ; INT_MEM[3] = 7
S_LD_INT gp2, gp1, 0          ; its address from the load just before
S_ADDI_INT gp2, gp2, 1        ; overwrites the loaded register as the load's write lands
S_ST_INT gp2, gp1, 4
S_LD_INT gp3, gp1, 4          ; the word just stored
S_ST_INT gp3, gp0, 20         ; stores what it loaded
S_LD_FP f1, gp0, 5
S_ADD_FP f2, f1, f1           ; fp unit operands from the load
S_LD_FP f3, gp1, 0
S_ST_FP f3, gp0, 40
S_LD_FP f3, gp0, 40
S_LD_FP f3, gp0, 41           ; back to back into one register
S_MUL_FP f4, f3, f2
S_LD_FP f5, gp1, 2
S_MAP_V_FP gp11, gp1, 0       ; FP_MEM's port right after a load's
S_LD_FP f6, gp0, 7
V_ADD_VF gp11, gp11, f6, 0    ; the vector unit's scalar from the load
S_ADDI_INT gp5, gp0, 100
S_ADDI_INT gp6, gp0, 48
V_TOPK gp5, gp0, gp6, 1
S_LD_FP f7, gp5, 1            ; V_TOPK's weight and index just written
S_LD_INT gp7, gp6, 2
S_ADD_INT gp8, gp7, gp7
C_LOOP_START gp14, 5
  S_LD_INT gp14, gp0, 10      ; INT_MEM[10] = 1: C_LOOP_END counts the loaded value down
C_LOOP_END gp14
S_LD_INT gp9, gp0, 11         ; the last instruction: its write lands after `done`
"""


def test_loads_use_stores_and_topk_agree_in_lockstep(diff_cfg):
    from kernelcraft.simulators.core.backend import MemoryImage
    import numpy as np
    from kernelcraft.simulators.plena_rtl.randprog import bf16_values, fp32_values
    program = assemble(LOAD_USE, "load_use.asm", diff_cfg)
    rng = np.random.default_rng(11)
    ints = rng.integers(0, 30, diff_cfg.INT_MEM_SIZE).astype(np.int32)
    ints[3], ints[10] = 7, 1
    image = (MemoryImage().put("int_mem", 0, ints)
             .put("fp_mem", 0, fp32_values(rng, diff_cfg.FP_MEM_SIZE))
             .put("vsram", 0, bf16_values(rng, 8 * diff_cfg.VLEN, nan=False)))
    m = PlenaModel().run(program, image, diff_cfg, trace=True)
    r = PlenaRTL().run(program, image, diff_cfg, trace=True)
    assert m.error is None and m.retired == len(program.instrs)   # the loop body runs once
    assert not compare_runs(m, r), [d.format() for d in compare_runs(m, r)]
    d = compare_traces(m.trace, r.trace)
    assert d is None, d.format()


MM_STREAM = """
S_ADDI_INT gp1, gp0, 4           ; tile 0, columns 4..7
S_ADDI_INT gp3, gp0, 128         ; Vector SRAM row 8
M_MM 0, gp0, gp0                 ; MM_ACC's bank: rows 0..3 written by A
M_MM 0, gp1, gp0                 ; accumulated (read back through the bank)
M_MM_WO gp3, 0, 4                ; streamed: row s of the block read in step s
M_MM 0, gp1, gp0                 ; into the cleared block (the valid bits)
M_MM_WO gp3, 0, 8                ; the same rows again, other columns (masked writes)
M_MM_WO gp3, 0, 12               ; nothing accumulated since the clear: +0
M_TMM 0, gp1, gp0                ; left in MM_ACC for the host's read
"""


def test_mm_accumulator_streams_in_lockstep(diff_cfg):
    """MM_ACC is one SRAM bank of BLEN words: M_MM_WO reads a row of it per step and
    takes BLEN + 1 cycles on both backends; accumulating after its clear starts from +0."""
    from kernelcraft.simulators.core.backend import MemoryImage
    import numpy as np
    from kernelcraft.simulators.plena_rtl.randprog import bf16_values
    c = diff_cfg
    program = assemble(MM_STREAM, "mm_stream.asm", c)
    rng = np.random.default_rng(5)
    image = (MemoryImage().put("vsram", 0, bf16_values(rng, 16 * c.VLEN, nan=False))
             .put("msram", 0, bf16_values(rng, c.MLEN * c.MLEN, nan=False)))
    m = PlenaModel().run(program, image, c, trace=True)
    r = PlenaRTL().run(program, image, c, trace=True)
    assert m.error is None and m.retired == len(program.instrs)
    assert not compare_runs(m, r), [d.format() for d in compare_runs(m, r)]
    d = compare_traces(m.trace, r.trace)
    assert d is None, d.format()
    issue = [s.cycle for s in r.trace]
    assert [issue[k + 1] - issue[k] for k in (4, 6, 7)] == [c.BLEN + 1] * 3
    assert np.any(np.asarray(r.registers["MM_ACC"], np.float32) != 0)
