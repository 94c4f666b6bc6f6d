"""The timing model: one bundle per cycle, interlocks on register latencies with
multiply-accumulate forwarding, bank conflicts, and the property that makes it safe
for agents: a mis-scheduled but correct kernel computes the same outputs in more cycles."""
import numpy as np

from aie_kit import bf, image, run, small

CFG = small()
LD, MAC, FWD, SRS = CFG.LOAD_LATENCY, CFG.MAC_LATENCY, CFG.ACC_FORWARD, CFG.SRS_LATENCY


def test_independent_bundles_issue_every_cycle():
    r = run("\n".join(["NOP"] * 10))
    assert r.cycles == 10 and r.retired == 10 and sum(r.stalls.values()) == 0
    assert r.unit_busy["alu"] == 10 and r.unit_busy["vec"] == 0


def test_reading_a_load_early_stalls():
    r = run("VLD x0, [p0]\nVMOV x1, x0")
    assert r.stalls["data_hazard"] == LD - 1
    assert r.cycles == LD + 1


def test_pointer_post_modify_is_ready_next_cycle():
    r = run("\n".join(f"VLD x{k}, [p0], 64" for k in range(8)))
    assert r.stalls["data_hazard"] == 0 and r.cycles == 7 + LD


def test_multiply_chains_forward_but_other_readers_wait():
    r = run("\n".join(["VMAC.BF16 acc0, x1, x2"] * 4) + "\nVSRS.BF16 x3, acc0")
    assert r.stalls["data_hazard"] == MAC - 1                  # only the SRS waits
    assert r.cycles == 3 + MAC + SRS
    r = run("VMAC.BF16 acc0, x1, x2\nAADD.F32 acc0, acc0, acc1")
    assert r.stalls["data_hazard"] == MAC - 1


def test_no_result_overtakes_an_older_one():
    r = run("VLD x0, [p0]\nVMOV x0, x1")
    assert r.stalls["data_hazard"] == LD - 1           # VMOV's result lands after the load's
    r = run("VLD x0, [p0]\nVLD x0, [p1]")
    assert r.stalls["data_hazard"] == 0


def test_r0_never_stalls():
    r = run("LD r0, [p0]\nADD r1, r0, r0")
    assert r.stalls["data_hazard"] == 0


def test_bank_conflicts_cost_a_cycle_per_extra_access():
    bank = CFG.DM_SIZE // CFG.DM_BANKS
    body = "LOOP 10\nVLD x0, [p0] || VLD x1, [p1] || VST x2, [p2]\nENDLOOP"
    same = run(f"MOVPI p1, 64\nMOVPI p2, 128\n{body}")
    other = run(f"MOVPI p1, {bank}\nMOVPI p2, {2 * bank}\n{body}")
    assert same.stalls["bank_conflict"] == 20 and other.stalls["bank_conflict"] == 0
    assert same.cycles == other.cycles + 18            # the last bundle's extra cycles end the run
    two = run(f"MOVPI p1, 64\nMOVPI p2, {bank}\n{body}")
    assert two.stalls["bank_conflict"] == 10


def _dot_kernels():
    """Dot products of 8 pairs of 32-lane bf16 vectors, stored as bf16 sums: once
    naively (every load used at once, one accumulator), once software-pipelined."""
    naive = ["MOVPI p0, 0", "MOVPI p1, 1024", "MOVPI p2, 2048"]
    for _ in range(8):
        naive += ["VLD x0, [p0], 64", "VLD x1, [p1], 64", "VMUL.BF16 acc0, x0, x1",
                  "AREDADD.F32 acc1, acc0", "VSRS.BF16 x2, acc1", "VST x2, [p2], 64"]
    good = ["MOVPI p0, 0", "MOVPI p1, 1024", "MOVPI p2, 2048"]
    for k in range(8):
        good.append(f"VLD x{2 * k}, [p0], 64 || VLD x{2 * k + 1}, [p1], 64")
    for k in range(8):
        good.append(f"VMUL.BF16 acc{k}, x{2 * k}, x{2 * k + 1}")
    for k in range(8):
        good.append(f"AREDADD.F32 acc{k}, acc{k}")
    for k in range(8):
        good.append(f"VSRS.BF16 x{k}, acc{k}")
    for k in range(8):
        good.append(f"VST x{k}, [p2], 64")
    return "\n".join(naive), "\n".join(good)


def test_mis_scheduled_kernel_gives_the_same_outputs_in_more_cycles():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((8, 32)), rng.standard_normal((8, 32))
    img = image(dm={0: bf(a.ravel()), 1024: bf(b.ravel())})
    naive, good = _dot_kernels()
    slow, fast = run(naive, img), run(good, img)
    assert np.array_equal(slow.memories["dm"], fast.memories["dm"])
    assert np.any(slow.memories["dm"][2048:2048 + 512] != 0)
    assert slow.cycles > fast.cycles + 40
    assert slow.stalls["data_hazard"] > fast.stalls["data_hazard"]
    assert slow.retired == 3 + 6 * 8 and fast.retired == 3 + 5 * 8
