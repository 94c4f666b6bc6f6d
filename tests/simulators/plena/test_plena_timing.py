"""The timing model (isa/plena/README.md, "Timing model") on the small configuration:
HBM_BW = 4 and HBM_LATENCY = 10, so an H_PREFETCH_V / H_STORE_V of 2 rows x 8 occupies
the channel 2 * ceil(8/4) = 4 cycles and an H_PREFETCH_M 8 * 2 = 16; a transfer starts
on the channel at the earliest in the cycle after its H_ instruction issued (the DMA
engine takes it from its queue). Figures by hand."""
from plena_kit import run, small

NON_DMA_UNITS = ("scalar_int", "scalar_fp", "vector", "matrix", "control")


def test_prefetch_then_dependent_vector_op_stalls():
    r = run("""
        S_ADDI_INT gp1, gp0, 0            ; t 0 -> 1
        H_PREFETCH_V gp1, gp0, a0, 0, 0   ; issues at 1: channel 2..6, rows ready at 16; t = 2
        V_ADD_VV gp1, gp1, gp1            ; waits 2 -> 16 (14 stall), then 2 + 1 cycles
    """, trace=True)
    assert r.cycles == 19
    assert r.stalls == {"dma_wait": 14}
    assert r.unit_busy == {"scalar_int": 1, "scalar_fp": 0, "vector": 3, "matrix": 0,
                           "dma": 4, "control": 0}
    assert [s.cycle for s in r.trace] == [0, 1, 2]          # issue cycles


SERIAL = """
    H_PREFETCH_V gp0, gp0, a0, 0, 0       ; 0: channel 1..5, rows 0-1 ready at 15; t = 1
    V_ADD_VV gp0, gp0, gp0                ; stalls 1 -> 15, t = 18
    S_ADDI_INT gp1, gp0, 64               ; t = 19
    V_EXP_V gp1, gp1                      ; 3 x (4 + 4) cycles on row 8: t = 43
    V_EXP_V gp1, gp1
    V_EXP_V gp1, gp1
"""
OVERLAPPED = """
    H_PREFETCH_V gp0, gp0, a0, 0, 0       ; t = 1, rows ready at 15
    S_ADDI_INT gp1, gp0, 64               ; t = 2
    V_EXP_V gp1, gp1                      ; independent work while the rows fly: t = 26
    V_EXP_V gp1, gp1
    V_EXP_V gp1, gp1
    V_ADD_VV gp0, gp0, gp0                ; rows ready at 15: no stall, t = 29
"""


def test_overlapping_an_independent_prefetch_with_compute_saves_cycles():
    serial, overlapped = run(SERIAL), run(OVERLAPPED)
    assert (serial.cycles, serial.stalls["dma_wait"]) == (43, 14)
    assert (overlapped.cycles, overlapped.stalls["dma_wait"]) == (29, 0)
    assert serial.unit_busy == overlapped.unit_busy
    assert (serial.memories["vsram"] == overlapped.memories["vsram"]).all()


def test_single_channel_serialises_transfers_and_matrix_waits_for_its_tile():
    r = run("""
        S_ADDI_INT gp1, gp0, 64           ; t = 1
        H_PREFETCH_M gp1, gp0, a0, 0, 0   ; issue 1: channel 2..18, tile 1 ready at 28; t = 2
        H_PREFETCH_V gp0, gp0, a0, 0, 0   ; issue 2: channel 18..22, rows ready at 32; t = 3
        M_MV 0, gp1, gp0                  ; waits for both (32), MLEN//BLEN + 4 = 8 cycles
    """)
    assert r.cycles == 40 and r.stalls["dma_wait"] == 29
    assert r.unit_busy["dma"] == 20 and r.unit_busy["matrix"] == 8


def test_busy_cycles_stalls_and_issue_cycles_add_up():
    r = run("""
        S_ADDI_INT gp1, gp0, 64
        H_PREFETCH_M gp1, gp0, a0, 0, 0
        H_PREFETCH_V gp0, gp0, a0, 0, 0
        M_MV 0, gp1, gp0
        S_LD_FP f1, gp0, 0
        V_RED_SUM f1, gp0
        M_MV_WO gp0, 16
    """)
    dma_issues = 2
    assert sum(r.unit_busy[u] for u in NON_DMA_UNITS) + r.stalls["dma_wait"] + dma_issues \
        == r.cycles == 40 + 1 + 5 + 2      # V_RED_SUM at VLEN = 8: log2(8) + 2


def test_store_frees_its_rows_when_read_and_completes_after_latency():
    r = run("""
        H_STORE_V gp0, gp0, a0, 0, 0      ; channel 1..5: rows free at 5, complete at 15; t = 1
        V_ADD_VV gp0, gp0, gp0            ; writes row 0: waits until 5, t = 7
    """)
    assert r.stalls["dma_wait"] == 4
    assert r.cycles == 15                 # the store's completion, after the last issue


def test_prefetch_into_rows_a_store_is_reading_waits_in_the_channel():
    r = run("""
        H_STORE_V gp0, gp0, a0, 0, 0      ; channel 1..5, rows 0-1 busy until 5
        H_PREFETCH_V gp0, gp0, a0, 0, 0   ; issue 1, starts at 5, lands at 5 + 4 + 10 = 19
    """)
    assert r.cycles == 19 and r.stalls["dma_wait"] == 0 and r.unit_busy["dma"] == 8


def test_other_rows_do_not_wait():
    r = run("""
        H_PREFETCH_V gp0, gp0, a0, 0, 0   ; rows 0-1
        S_ADDI_INT gp1, gp0, 16           ; row 2
        V_ADD_VV gp1, gp1, gp1
    """)
    assert r.stalls["dma_wait"] == 0
    assert r.cycles == 15                 # transfer completion (1 + 4 + 10) after t = 4


def test_loop_stalls_on_first_pass_only_and_loop_costs():
    # C_LOOP_START and C_LOOP_END cost 1 cycle each; the first V_ADD_VV waits for the rows
    r = run("""
        H_PREFETCH_V gp0, gp0, a0, 0, 0   ; t = 1, rows ready at 15
        C_LOOP_START gp1, 3               ; t = 2
            V_ADD_VV gp2, gp0, gp0        ; 15 -> 18, 19 -> 22, 23 -> 26
        C_LOOP_END gp1                    ; 18 -> 19, 22 -> 23, 26 -> 27
    """)
    assert r.cycles == 27 and r.stalls["dma_wait"] == 13
    assert r.unit_busy["control"] == 4 and r.unit_busy["vector"] == 9
    traced = run("""
        H_PREFETCH_V gp0, gp0, a0, 0, 0
        C_LOOP_START gp1, 3
            V_ADD_VV gp2, gp0, gp0
        C_LOOP_END gp1
    """, trace=True)
    assert [s.cycle for s in traced.trace] == [0, 1, 2, 18, 19, 22, 23, 26]


def test_timing_classes_follow_the_configuration():
    src = "M_MM 0, gp0, gp0\nM_BMM 0, gp0, gp0\nM_BMM_WO gp0, 0"
    a = run(src)
    b = run(src, cfg=small(BLEN=4))
    # M_MM = BLEN + 4, M_BMM = MLEN*MLEN // BLEN + 4 (the array's drain),
    # M_BMM_WO = HEADS * MLEN + 1 (the rounding stage)
    assert a.unit_busy["matrix"] == 6 + 36 + 17 and a.cycles == 59
    assert b.unit_busy["matrix"] == 8 + 20 + 17 and b.cycles == 45


def test_cycles_are_repeatable():
    assert run(SERIAL).cycles == run(SERIAL).cycles == 43


FOUR_PREFETCHES = """
    H_PREFETCH_V gp0, gp0, a0, 0, 0   ; issue 0: channel 1..5, rows 0-1 land at 15
    H_PREFETCH_V gp0, gp0, a0, 0, 0   ; issue 1: queued 2..15 (its rows), lands at 29
    H_PREFETCH_V gp0, gp0, a0, 0, 0   ; issue 2: queued 3..29, lands at 43
    H_PREFETCH_V gp0, gp0, a0, 0, 0   ; DMA_QUEUE = 2: full until the second starts (15)
"""


def test_a_full_descriptor_queue_holds_the_next_transfer_at_issue():
    """The fourth waits at issue (a DMA stall) from 3 to 16, starts at 43, lands at 57."""
    r = run(FOUR_PREFETCHES, cfg=small(DMA_QUEUE=2), trace=True)
    assert [s.cycle for s in r.trace] == [0, 1, 2, 3]
    assert r.stalls["dma_wait"] == 16 - 3
    assert r.cycles == 43 + 4 + 10
    roomy = run(FOUR_PREFETCHES, cfg=small(DMA_QUEUE=8))
    assert roomy.stalls["dma_wait"] == 0 and roomy.cycles == r.cycles
