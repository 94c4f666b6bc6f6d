"""The core waits for data-memory ports DMA beats hold (simulators/aie/ports.py): worked
out by hand on the RTL tests' small configuration (banks of 1,024 bytes, DMA_SETUP 4,
16-byte beats, LOAD_LATENCY 6)."""
import numpy as np

from kernelcraft.isa.aie import default_config
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.inspect import traced_run
from kernelcraft.simulators.aie.ports import beat_starts
from kernelcraft.simulators.aie_rtl.randprog import PORTS
from kernelcraft.simulators.core.backend import MemoryImage

CFG = default_config(DM_SIZE=4096, DM_BANKS=4, IMEM_WORDS=512)


def test_a_core_access_waits_for_the_port_a_dma_beat_holds():
    r, info = traced_run(assemble(PORTS, "ports.asm", CFG), MemoryImage({}), CFG)
    assert r.error is None
    # DMAOUT on out0 at cycle 0 and on out1 at cycle 1: beats in cycles 4..11 and 5..12
    # read rows 0,0,1,1,2,2,3,3 of bank 0, so both ports of macro (row mod 4) 0 are
    # taken in cycle 5, of macro 1 in 7, of 2 in 9, of 3 in 11.
    # VLD [512] (rows 16-17: macros 0, 1) could issue in cycle 5: waits a cycle.
    # VLD [512] || VLD [576]: one bank, so two cycles. Rows 16-17 in cycle 7 wait for
    # macro 1 and go in 8; rows 18-19 (macros 2, 3) in 9 are held a cycle by macro 2;
    # the scoreboard holds with them, so x2 and x3 are readable at 8 + 6 + 1.
    assert [s.cycle for s in r.trace] == [0, 1, 2, 3, 4, 6, 8, 15]
    assert [rec.stalls for rec in info.records][5:] == [(0, 0, 0, 0, 1), (0, 0, 0, 1, 2),
                                                        (4, 0, 0, 0, 0)]
    assert r.stalls == {"data_hazard": 4, "dma_wait": 0, "dma_queue": 0, "bank_conflict": 1,
                        "dma_port": 3}


def test_one_beat_leaves_port_a_to_the_core():
    src = PORTS.replace("DMAOUT 1, T, r0, r0", "NOP")
    r, _ = traced_run(assemble(src, "ports.asm", CFG), MemoryImage({}), CFG)
    assert [s.cycle for s in r.trace] == [0, 1, 2, 3, 4, 5, 6, 12]
    assert r.stalls["dma_port"] == 0


def test_beat_starts_match_a_word_by_word_walk():
    """beat_starts (its shortcut when every full beat fits, else its walk) against the
    rule taken word by word: a beat takes words while it has fewer than beat_words and
    its rows would span at most four."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        n0, n1 = int(rng.integers(1, 20)), int(rng.integers(1, 9))
        ls1 = 2 * int(rng.integers(-90, 90))
        loc = (2048 + (np.arange(n1)[:, None] * ls1 // 2) + np.arange(n0)[None, :]).ravel()
        bw = int(rng.choice([1, 2, 4, 8, 16]))
        want, i, rows = [], 0, (loc >> 4).tolist()
        while i < loc.size:
            want.append(i)
            j = i + 1
            while j < loc.size and j - i < bw and max(rows[i:j + 1]) - min(rows[i:j + 1]) <= 3:
                j += 1
            i = j
        assert beat_starts(loc, bw).tolist() == want, (n0, n1, ls1, bw)


LONG = """
.bd T, ext=0, loc=0, n0=256, rel=l0
.bd U, ext=512, loc=0, n0=256, rel=l1
MOVPI p0, 512
MOVPI p1, 576
LOOP 300
    DMAOUT 0, T, r0, r0
    DMAOUT 1, U, r0, r0
    VLD x1, [p0]
    VLD x1, [p0]
    VLD x3, [p0] || VLD x2, [p1]
    VLD x1, [p1]
    VLD x3, [p0] || VLD x2, [p1]
    VLD x1, [p0]
    VLD x3, [p0] || VLD x2, [p1]
    VADD.I16 x4, x3, x2
    VLD x5, [p1] || VST x4, [p0]
    ACQ l0, 1
    ACQ l1, 1
ENDLOOP
"""


def test_port_claims_over_a_long_run_keep_their_stalls():
    # 600 transfers of 32 beats over 11k cycles: the per-cycle port arrays drop the
    # cycles behind the DMA's time instead of growing (ports.claim), claims are slices
    # of consecutive cycles. Cycles and stalls as the model gave before those changes
    # (main at c87136b), fast and stepped.
    from kernelcraft.simulators.aie.machine import AieModel
    from kernelcraft.simulators.core.budget import Budget
    img = MemoryImage({"ext": {0: np.arange(2048, dtype=np.uint16)}})
    # (16 banks: 64 macros, masks as Python ints in object arrays)
    for cfg, budget in ((CFG, Budget()), (CFG, Budget(fast=False)),
                        (default_config(DM_SIZE=16384, DM_BANKS=16, IMEM_WORDS=512), Budget())):
        r, _, dma, _ = AieModel().execute(assemble(LONG, "long.asm", cfg), img, cfg, budget)
        assert r.error is None
        assert (r.cycles, r.retired) == (11466, 3903)
        assert r.stalls == {"data_hazard": 1500, "dma_wait": 3900, "dma_queue": 0,
                            "bank_conflict": 1200, "dma_port": 900}
        assert dma.ports.base > 0                 # the arrays were cut, not grown
