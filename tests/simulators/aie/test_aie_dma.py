"""DMA and locks: transfer patterns, timing, concurrency and double buffering, queue
limits, descriptor locks, and the errors: transfers off memory, data races, deadlocks."""
import numpy as np

from aie_kit import bf, image, run, small, unbf
from kernelcraft.simulators.core.budget import Budget

CFG = small()


def occupancy(words):
    return CFG.DMA_SETUP + -(-2 * words // CFG.DMA_BW)


def test_input_transfer_lands_and_releases_its_lock():
    x = np.arange(64, dtype=np.uint16) + 1000
    r = run(".bd A, ext=100, loc=256, n0=64, rel=l2\nDMAIN 1, A, r0, r0\nACQ l2, 1", image(ext={100: x}))
    assert np.array_equal(r.memories["dm"][256:384].view(np.uint16), x)
    done = 0 + occupancy(64) + CFG.EXT_LATENCY
    assert r.stalls["dma_wait"] == done - 1 and r.cycles == done + 1
    assert r.registers["locks"][2] == 0
    assert r.unit_busy["dma_in1"] == occupancy(64) and r.unit_busy["dma_in0"] == 0


def test_strided_patterns_on_both_sides():
    ext = np.arange(4096, dtype=np.uint16)
    # 3 planes x 2 runs x 4 words; external runs 10 words apart, planes 100 apart;
    # in data memory runs 16 bytes apart, planes 64 bytes apart
    src = ".bd A, ext=5, loc=0, n0=4, n1=2, s1=10, n2=3, s2=100, ls1=16, ls2=64, rel=l0\n" \
          "MOVI r1, 1\nMOVI r2, 128\nDMAIN 0, A, r1, r2\nACQ l0, 1"
    r = run(src, image(ext={0: ext}))
    dm16 = r.memories["dm"].view(np.uint16)
    for i2 in range(3):
        for i1 in range(2):
            at = (128 + i2 * 64 + i1 * 16) // 2
            first = 6 + i2 * 100 + i1 * 10
            assert list(dm16[at:at + 4]) == list(range(first, first + 4))
    assert dm16[(128 + 8) // 2] == 0                 # the gap between runs is untouched



def test_patterns_that_step_back_or_write_a_word_twice_move_as_index_arrays_do():
    # an untraced run moves a pattern that writes no word twice between strided views,
    # else by index arrays (a later word wins); a traced run always by index arrays
    ext = np.arange(4096, dtype=np.uint16) + 7
    src = "\n".join([
        ".bd B, ext=300, loc=0, n0=4, n1=3, s1=-40, n2=2, s2=9, ls1=8, ls2=24, rel=l0",   # back
        ".bd T, ext=10, loc=512, n0=4, n1=2, s1=8, n2=2, s2=20, ls1=0, ls2=-2, rel=l0",   # twice
        ".bd O, ext=3000, loc=0, n0=4, n1=3, s1=4, n2=2, s2=-12, ls1=8, ls2=24, rel=l1",  # back
        ".bd P, ext=3500, loc=510, n0=2, n1=3, s1=0, n2=1, s2=0, ls1=2, ls2=0, rel=l1",   # twice
        "DMAIN 0, B, r0, r0", "DMAIN 1, T, r0, r0", "ACQ l0, 2",
        "DMAOUT 0, O, r0, r0", "DMAOUT 1, P, r0, r0", "ACQ l1, 2"])
    plain, traced = run(src, image(ext={0: ext})), run(src, image(ext={0: ext}), trace=True)
    for k in plain.memories:
        assert np.array_equal(plain.memories[k], traced.memories[k]), k
    assert (plain.cycles, plain.stalls) == (traced.cycles, traced.stalls)
    dm16, out = plain.memories["dm"].view(np.uint16), plain.memories["ext"]
    assert list(dm16[4:8]) == list(range(300 - 40 + 7, 300 - 40 + 11))       # B: run 1, plane 0
    # T: plane 1 (one word lower) over plane 0, the second run of each over the first
    # (a strided copy may run a backward step's axis forwards: not for these)
    assert list(dm16[255:260]) == [45, 46, 47, 48, 28]
    assert list(out[3500:3502]) == [47, 48]                                     # P: its last run

def test_output_transfer_and_the_run_waits_for_it():
    vals = np.linspace(-1, 1, 32).astype(np.float32)
    r = run(".bd O, ext=2000, loc=0, n0=32, rel=l1\nDMAOUT 0, O, r0, r0\nACQ l1, 1", image(dm={0: bf(vals)}))
    assert np.array_equal(unbf(r.memories["ext"][2000:2032]), unbf(bf(vals)))
    assert r.stalls["dma_wait"] == occupancy(32) - 1            # the source is read: lock released
    assert r.cycles == occupancy(32) + CFG.EXT_LATENCY            # the run waits until it has landed


def _blocks(double: bool) -> str:
    """Scale 4 blocks of 256 words by 2: wait for each block (single buffer), or load
    the next block while working on this one (double buffer)."""
    lines = [".bd IA, ext=0, loc=0, n0=256, rel=l0", ".bd IB, ext=0, loc=512, n0=256, rel=l1",
             ".bd OA, ext=4096, loc=1024, n0=256, rel=l2", ".bd OB, ext=4096, loc=1536, n0=256, rel=l3",
             "MOVI r5, 0x4000", "VBCST.16 x7, r5", "MOVI r1, 0", "MOVI r3, 256", "MOVI r6, 512"]
    if double:
        lines += ["DMAIN 0, IA, r0, r0"]
    for blk in range(4):
        a = blk % 2 if double else 0
        buf_in, buf_out = ("IA", "IB")[a], ("OA", "OB")[a]
        lock_in, lock_out = (0, 1)[a], (2, 3)[a]
        lines += [f"MOVI r1, {blk * 256}"]
        if double:
            if blk + 1 < 4:
                lines += [f"MOVI r2, {(blk + 1) * 256}", f"DMAIN 1, {('IA', 'IB')[1 - a]}, r2, r0"]
        else:
            lines += [f"DMAIN 0, {buf_in}, r1, r0"]
        if blk >= 2 or not double:
            if blk >= (2 if double else 1):
                lines += [f"ACQ l{lock_out}, 1"]
        lines += [f"ACQ l{lock_in}, 1", f"MOVPI p0, {512 * a}", f"MOVPI p1, {1024 + 512 * a}",
                  "LOOP 8", "VLD x0, [p0], 64", "VMUL.BF16 acc0, x0, x7", "VSRS.BF16 x1, acc0",
                  "VST x1, [p1], 64", "ENDLOOP", f"DMAOUT {a}, {buf_out}, r1, r0"]
    return "\n".join(lines)


def test_double_buffering_gives_the_same_result_faster():
    x = bf(np.linspace(-4, 4, 1024))
    single = run(_blocks(False), image(ext={0: x}))
    double = run(_blocks(True), image(ext={0: x}))
    want = unbf(x) * 2
    for r in (single, double):
        assert np.array_equal(unbf(r.memories["ext"][4096:5120]), want)
    assert double.cycles < single.cycles
    assert double.stalls["dma_wait"] < single.stalls["dma_wait"]


def test_full_queue_stalls_the_core():
    src = ".bd A, ext=0, loc=0, n0=8\n" + "\n".join(["DMAIN 0, A, r0, r0"] * 4)
    r = run(src, cfg=small(DMA_QUEUE=2))
    # the third waits for the first to land, the fourth for the second (one beat time later)
    assert r.stalls["dma_queue"] == (occupancy(8) + CFG.EXT_LATENCY - 2) + (occupancy(8) - 1)
    assert run(src).stalls["dma_queue"] == 0


def test_descriptor_acquire_waits_for_the_core():
    src = ".bd A, ext=0, loc=0, n0=8, acq=l4, rel=l5\nDMAIN 0, A, r0, r0\n" + \
          "\n".join(["NOP"] * 20) + "\nREL l4, 1\nACQ l5, 1"
    r = run(src, image(ext={0: np.arange(8, dtype=np.uint16) + 1}))
    assert r.stalls["dma_wait"] == occupancy(8) + CFG.EXT_LATENCY - 1
    assert list(r.memories["dm"][:16].view(np.uint16)) == list(range(1, 9))


def test_deadlocks_are_reported_not_hung():
    r = run("ACQ l3, 1", expect_ok=False)
    assert r.error.kind == "deadlock" and "ACQ l3, 1 waits forever" in str(r.error)
    assert "all channels idle" in str(r.error)
    r = run(".bd A, ext=0, loc=0, n0=8, acq=l1, rel=l2\nDMAIN 0, A, r0, r0\nACQ l2, 1", expect_ok=False)
    assert r.error.kind == "deadlock" and "waits to acquire l1" in str(r.error)
    r = run(".bd A, ext=0, loc=0, n0=8, acq=l1\nDMAIN 0, A, r0, r0", expect_ok=False)
    assert r.error.kind == "deadlock" and "program ended" in str(r.error)


def test_transfers_off_memory_are_rejected_when_queued():
    r = run(".bd A, ext=0, loc=0, n0=64\nMOVI r1, 65500\nDMAIN 0, A, r1, r0", expect_ok=False)
    assert r.error.kind == "memory access error" and r.error.memory == "ext"
    assert "runs off memory" in str(r.error) and "line 3" in str(r.error)
    r = run(".bd A, ext=0, loc=0, n0=64\nMOVI r1, 8190\nDMAIN 0, A, r0, r1", expect_ok=False)
    assert r.error.memory == "dm" and "8190..8317" in str(r.error)
    r = run(".bd A, ext=0, loc=0, n0=4\nMOVI r1, 3\nDMAOUT 0, A, r0, r1", expect_ok=False)
    assert "odd offset" in str(r.error)


def test_data_races_are_reported():
    src = ".bd A, ext=0, loc=64, n0=64, rel=l0\nDMAIN 0, A, r0, r0\nMOVPI p0, 96\nVLD x0, [p0]"
    r = run(src, expect_ok=False)
    assert r.error.kind == "data race" and "loads from data-memory bytes 96..159" in str(r.error)
    assert "ACQ" in str(r.error)
    ok = run(src.replace("VLD x0, [p0]", "ACQ l0, 1\nVLD x0, [p0]"))
    assert ok.error is None
    out = ".bd O, ext=0, loc=0, n0=64\nDMAOUT 0, O, r0, r0\nVLD x1, [p0]\nVST x1, [p0]"
    r = run(out, expect_ok=False)
    assert r.error.kind == "data race" and "stores to" in str(r.error)


def test_lock_overflow_is_an_error():
    r = run("REL l1, 63\nREL l1, 1", expect_ok=False)
    assert r.error.kind == "illegal operand" and "0..63" in str(r.error)


def test_a_beat_ends_before_a_word_beyond_four_rows():
    """One-word runs 64 bytes apart: a beat's rows may span four (one access, a row per
    macro of a bank), so each beat takes two words, not DMA_BW / 2: four beats."""
    src = ".bd A, ext=0, loc=0, n0=1, n1=8, s1=1, ls1=64, rel=l0\nDMAIN 0, A, r0, r0\nACQ l0, 1"
    r = run(src, image(ext={0: np.arange(8, dtype=np.uint16) + 1}))
    assert CFG.DMA_BW // 2 >= 8          # (naively one beat)
    assert r.unit_busy["dma_in0"] == CFG.DMA_SETUP + 4
    assert list(r.memories["dm"][:512].view(np.uint16)[::32]) == list(range(1, 9))


# An error stops the DMA (rtl/aie's DMA and the model alike): in0's first transfer has
# started when the misaligned load fails, its second is queued behind it and never
# starts; out0's transfer has started too. A budget stop is the same.
STOPPED = """.bd A, ext=0, loc=0, n0=64, rel=l1
.bd B, ext=256, loc=1024, n0=64, rel=l2
.bd C, ext=512, loc=256, n0=32, rel=l3
DMAIN 0, A, r0, r0
DMAIN 0, B, r0, r0
DMAOUT 0, C, r0, r0
MOVPI p0, 6
NOP
LD r1, [p0]
"""


def test_an_error_stops_the_dma_and_waits_for_what_started():
    ext = np.arange(1, 1000, dtype=np.uint16)
    dm = np.arange(256, dtype=np.uint16) + 5000
    r = run(STOPPED, image(dm={0: dm}, ext={0: ext}), expect_ok=False)
    assert r.error.kind == "memory access error" and r.error.where.cycle == 5
    words = r.memories["dm"].view(np.uint16)
    assert np.array_equal(words[:64], ext[:64])                  # A landed
    assert np.array_equal(words[512:576], np.zeros(64))         # B never started
    assert np.array_equal(r.memories["ext"][512:544], dm[128:160])   # C left
    assert list(r.registers["locks"][1:4]) == [1, 0, 1]
    a_done = occupancy(64) + CFG.EXT_LATENCY                     # A started in cycle 0
    c_landed = 2 + occupancy(32) + CFG.EXT_LATENCY
    assert r.cycles == max(a_done, c_landed)
    assert r.unit_busy["dma_in0"] == occupancy(64) and r.unit_busy["dma_out0"] == occupancy(32)
    budget = run(STOPPED.replace("LD r1, [p0]", "NOP\nNOP"), image(dm={0: dm}, ext={0: ext}),
                 budget=Budget(max_instructions=5), expect_ok=False)
    assert budget.error.kind == "instruction budget exceeded" and list(budget.registers["locks"][1:4]) == [1, 0, 1]
    assert np.array_equal(budget.memories["dm"][1024:1152], np.zeros(128, np.uint8))
