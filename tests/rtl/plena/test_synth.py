"""Yosys 0.23 reads every source of the plena core (the harness plena_sim.v aside), and
synthesizes the DMA engine with `check -assert` clean (no multiple drivers, no
undriven or combinational-loop wires) and without latches: at the small differential
configuration in the default suite, at the default configuration under the `synth`
marker (figures in rtl/plena/README.md). The Matrix SRAM, BMM_ACC and MM_ACC are inferred
as their banks' 1R1W memories, and synthesize likewise at the small configuration. The
operand isolation of the vector groups, reductions, scalar unit and MAC array is AND
gates (plena_opiso): no latch, no falling-edge flip-flop. The whole core elaborates hierarchically at the small configuration with the SRAM
macros and clock gates as cells, `check -assert` clean with no latch at all (default
suite), and synthesizes module by module without one (`synth` marker): the checks of
simulators/rtl/synth.py's `checked_synth`, which fails on any latch cell."""
import re
import shutil
import subprocess

import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.plena_rtl import build
from kernelcraft.simulators.rtl import synth

HARNESS = {"plena_sim.v"}


def _yosys(script: str, timeout: float, log=None) -> str:
    tool = shutil.which("yosys")
    assert tool, "yosys is missing: run sudo scripts/install-system-deps.sh"
    proc = subprocess.run([tool, "-q", *(["-l", str(log)] if log else []), "-p", script],
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:] or proc.stdout[-3000:]
    return proc.stdout


def _read(files, opts: str = "") -> str:
    inc = f"-I{build.PLENA_RTL} -I{build.COMMON_RTL}"
    return "; ".join(f"read_verilog -sv {opts}{inc} {f}" for f in files)


def test_yosys_reads_every_core_source():
    files = [p for p in build.sources() if p.suffix == ".v" and p.name not in HARNESS]
    assert any(p.name == "plena_check.v" for p in files)
    # -defer: parse and check every file, elaborate nothing (elaborating the whole core at
    # its default parameters is what does not finish yet)
    _yosys(_read(files, "-defer "), timeout=600)


def _synth_dma(cfg, timeout: float) -> dict[str, int]:
    params = " ".join(f"-set {k} {v}" for k, v in cfg.as_dict().items())
    # its response counters' clock gate is read as a cell (ICG: its latch is the cell's)
    out = _yosys(f"{_read([build.PLENA_RTL / 'plena_dma.v'])}; {_read([ICG], '-lib ')}; "
                 f"chparam {params} plena_dma; "
                 "synth -top plena_dma; check -assert; tee -o /dev/stdout stat", timeout)
    cells = {m.group(1): int(m.group(2))
             for m in re.finditer(r"^\s+(\$\S+|icg)\s+(\d+)\s*$", out, flags=re.M)}
    total = int(re.search(r"Number of cells:\s+(\d+)", out).group(1))
    assert total == sum(cells.values()) > 0
    assert not [c for c in cells if "LATCH" in c.upper()], cells
    return {"total": total, **cells}


def test_dma_engine_synthesizes_small(diff_cfg):
    cells = _synth_dma(diff_cfg, timeout=600)
    assert any(c.startswith("$_DFF") or c.startswith("$_SDFF") for c in cells)


@pytest.mark.synth
def test_dma_engine_synthesizes_at_the_default_configuration():
    cells = _synth_dma(default_config(), timeout=1800)
    print(f"plena_dma, default configuration: {cells['total']:,} cells")


def _synth_lane(params: dict[str, int], top: str, files, timeout: float,
                cells_lib=()) -> tuple[int, int, int]:
    """Cells, flip-flops and the longest combinational path in cells (Yosys `ltp -noff`,
    between ports and flip-flops) of `top` synthesized flat; `cells_lib` are read as
    cells (black boxes)."""
    sets = " ".join(f"-set {k} {v}" for k, v in params.items())
    chparam = f"chparam {sets} {top}; " if sets else ""
    lib = f"{_read(cells_lib, '-lib ')}; " if cells_lib else ""
    out = _yosys(f"{_read(files)}; {lib}{chparam}synth -flatten -top {top}; check -assert; "
                 "tee -o /dev/stdout stat; tee -o /dev/stdout ltp -noff", timeout)
    cells = {m.group(1): int(m.group(2))
             for m in re.finditer(r"^\s+(\$\S+)\s+(\d+)\s*$", out, flags=re.M)}
    assert not [c for c in cells if "LATCH" in c.upper()], cells
    flops = sum(n for c, n in cells.items() if "DFF" in c.upper())
    total = int(re.search(r"Number of cells:\s+(\d+)", out).group(1))
    depth = int(re.search(r"Longest topological path in \S+ \(length=(\d+)\)", out).group(1))
    return total, flops, depth


@pytest.mark.synth
@pytest.mark.parametrize("mlen, hlen", [(16, 4), (64, 16)], ids=["MLEN=16", "default MLEN=64"])
def test_mac_lane_is_registered_and_shallow(mlen, hlen):
    """A lane of the MAC array is three register stages whose longest path is about a
    multiplier and two fp32 additions (MLEN=16: one, two and one tree levels), far below
    the unpipelined product-and-tree chain it replaces."""
    common = [build.COMMON_RTL / f for f in ("bf16_mul.v", "fp32_add.v", "fp_mul.v",
                                             "fp32_round_pack.v")]
    _, _, add = _synth_lane({}, "fp32_add", [build.COMMON_RTL / "fp32_add.v",
                                            build.COMMON_RTL / "fp32_round_pack.v"], 1800)
    _, _, mul = _synth_lane({}, "bf16_mul", [build.COMMON_RTL / "bf16_mul.v",
                                            build.COMMON_RTL / "fp_mul.v",
                                            build.COMMON_RTL / "fp32_round_pack.v"], 1800)
    cells, flops, depth = _synth_lane({"MLEN": mlen, "HLEN": hlen}, "plena_mac_lane",
                                      [build.PLENA_RTL / "plena_mac_lane.v", *common], 3600)
    levels = mlen.bit_length() - 1
    print(f"plena_mac_lane MLEN={mlen}: {cells:,} cells, {flops:,} flip-flops, longest path "
          f"{depth} cells (fp32_add {add}, bf16_mul {mul}; unpipelined product and tree "
          f"about {mul + levels * add})")
    assert flops >= 32 * (mlen // hlen)
    assert depth <= mul + 2 * add + 8
    assert depth < mul + levels * add


ICG = build.COMMON_RTL / "icg.v"     # the clock gates: read as a cell (its latch is the cell's)
MUX_TREE = build.COMMON_RTL / "mux_tree.v"   # the selections' mux trees (flattened into the unit)
MSRAM_FILES = (build.PLENA_RTL / "plena_msram.v", build.PLENA_RTL / "plena_sram.v", MUX_TREE)
MSRAM_PARAMS = ("MLEN", "BLEN", "HLEN", "MSRAM_TILES")


def test_matrix_sram_is_inferred_as_banks(diff_cfg):
    """The Matrix SRAM (plena_msram: banks, the step's column selection, the host's row)
    at the small configuration: Yosys infers MLEN memories of one read and one write port
    each, what a 1R1W macro replaces."""
    files = list(MSRAM_FILES)
    sets = " ".join(f"-set {k} {getattr(diff_cfg, k)}" for k in MSRAM_PARAMS)
    out = _yosys(f"{_read(files)}; {_read([ICG], '-lib ')}; chparam {sets} plena_msram; "
                 "hierarchy -top plena_msram; "
                 "proc; flatten; opt -fast; memory -nomap; "
                 "tee -o /dev/stdout select -count t:$mem_v2 r:RD_PORTS=1 %i r:WR_PORTS=1 %i; "
                 "tee -o /dev/stdout select -count t:$mem_v2", 600)
    counts = [int(n) for n in re.findall(r"(\d+) objects", out)]
    assert counts == [diff_cfg.MLEN, diff_cfg.MLEN], out[-2000:]


@pytest.mark.synth
def test_matrix_sram_synthesizes_small(diff_cfg):
    """Mapped to flip-flops (no macro library here) it passes `check -assert` without a
    latch (figures in rtl/plena/README.md)."""
    flops = _synth_small(diff_cfg, "plena_msram", MSRAM_FILES, MSRAM_PARAMS)
    assert flops >= diff_cfg.MSRAM_TILES * diff_cfg.MLEN * diff_cfg.MLEN * 16


@pytest.mark.synth
def test_matrix_sram_synthesizes_at_the_default_configuration():
    """At the default configuration, its banks (plena_sram) and clock gates as cells (what
    the macros and the library's ICG replace): `check -assert` clean, no latch, and the
    column selection within its registered-select network's 2 x MLEN x 16 x (MLEN +
    BLEN x BLEN) mux inputs (a quarter's margin), where an MLEN-to-1 choice per lane and
    position alone was BLEN x MLEN x MLEN x 16 (figures in rtl/plena/README.md; about 6
    CPU minutes and 3.9 GB)."""
    cfg = default_config()
    sets = " ".join(f"-set {k} {getattr(cfg, k)}" for k in MSRAM_PARAMS)
    out = _yosys(f"{_read([build.PLENA_RTL / 'plena_msram.v', MUX_TREE])}; "
                 f"{_read([build.PLENA_RTL / 'plena_sram.v', ICG], '-lib ')}; "
                 f"chparam {sets} plena_msram; synth -flatten -noshare -top plena_msram; "
                 "check -assert; "
                 "tee -o /dev/stdout stat", 3600)
    cells = {m.group(1): int(m.group(2))
             for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s*$", out, flags=re.M)}
    total = int(re.search(r"Number of cells:\s+(\d+)", out).group(1))
    assert not [c for c in cells if "LATCH" in c.upper()], cells
    assert cells["plena_sram"] == cfg.MLEN and cells["icg"] == 2
    flops = sum(n for c, n in cells.items() if "DFF" in c.upper())
    print(f"plena_msram at the default configuration: {total:,} cells, {flops:,} flip-flops")
    assert total < 2 * cfg.MLEN * 16 * (cfg.MLEN + cfg.BLEN * cfg.BLEN) * 5 // 4


def _synth_small(diff_cfg, top: str, files, params) -> int:
    """Synthesize `top` at DIFF_CONFIG to flip-flops (no macro library here), print its
    figures and return its flip-flop count."""
    cells, flops, depth = _synth_lane({k: getattr(diff_cfg, k) for k in params}, top,
                                      list(files), 1800, cells_lib=[ICG])
    print(f"{top} at DIFF_CONFIG: {cells:,} cells, {flops:,} flip-flops, longest path {depth} cells")
    return flops


ACC_FILES = (build.PLENA_RTL / "plena_acc.v", build.PLENA_RTL / "plena_sram.v", MUX_TREE)


def _acc_params(cfg, which: str) -> dict[str, int]:
    """plena_acc's parameters for BMM_ACC or MM_ACC, as plena_matrix sets them."""
    if which == "BMM_ACC":
        return {"ROWS": cfg.MLEN, "COLS": cfg.MLEN, "BLEN": cfg.BLEN, "HEADS": cfg.MLEN // cfg.HLEN}
    return {"ROWS": cfg.BLEN, "COLS": cfg.BLEN, "BLEN": cfg.BLEN, "HEADS": 1}


def _acc_banks(cfg, which: str) -> int:
    """Memories of one read and one write port, ROWS words of BLEN fp32 entries each,
    Yosys infers in plena_acc for `which`."""
    params = _acc_params(cfg, which)
    files = list(ACC_FILES)
    sets = " ".join(f"-set {k} {v}" for k, v in params.items())
    out = _yosys(f"{_read(files)}; {_read([ICG], '-lib ')}; chparam {sets} plena_acc; "
                 "hierarchy -top plena_acc; "
                 "proc; flatten; opt -fast; memory -nomap; "
                 "tee -o /dev/stdout select -count t:$mem_v2 r:RD_PORTS=1 %i r:WR_PORTS=1 %i "
                 f"r:SIZE={params['ROWS']} %i r:WIDTH={cfg.BLEN * 32} %i; "
                 "tee -o /dev/stdout select -count t:$mem_v2", 600)
    counts = [int(n) for n in re.findall(r"(\d+) objects", out)]
    assert len(counts) == 2 and counts[0] == counts[1], out[-2000:]
    return counts[0]


def test_bmm_accumulator_is_inferred_as_banks(diff_cfg):
    """BMM_ACC (plena_acc: banks, valid bits, the reads' selection) at the small
    configuration: Yosys infers HEADS x MLEN/BLEN memories (16 at MLEN = 16, BLEN = HLEN =
    4), each MLEN words of BLEN fp32 entries with one read and one write port, what a 1R1W
    macro replaces; the valid bits are no memory (they clear at one edge)."""
    banks = (diff_cfg.MLEN // diff_cfg.HLEN) * (diff_cfg.MLEN // diff_cfg.BLEN)
    assert _acc_banks(diff_cfg, "BMM_ACC") == banks


def test_mm_accumulator_is_inferred_as_a_bank(diff_cfg):
    """MM_ACC (plena_acc with one head of BLEN x BLEN): one memory of BLEN words of BLEN
    fp32 entries, one read and one write port (M_MM_WO reads it a row per step)."""
    assert _acc_banks(diff_cfg, "MM_ACC") == 1


@pytest.mark.synth
@pytest.mark.parametrize("which", ["BMM_ACC", "MM_ACC"])
def test_accumulator_synthesizes_small(diff_cfg, which):
    """Mapped to flip-flops (no macro library here) it passes `check -assert` without a
    latch (figures in rtl/plena/README.md)."""
    params = _acc_params(diff_cfg, which)
    cells, flops, depth = _synth_lane(params, "plena_acc", list(ACC_FILES),
                                      1800, cells_lib=[ICG])
    print(f"{which} (plena_acc) at DIFF_CONFIG: {cells:,} cells, {flops:,} flip-flops, "
          f"longest path {depth} cells")
    assert flops >= params["HEADS"] * params["ROWS"] * params["COLS"] * 32


VSRAM_FILES = ("plena_vsram.v", "plena_sram2w.v")


@pytest.mark.synth
def test_vector_sram_is_inferred_as_banks(diff_cfg):
    """The Vector SRAM (plena_vsram) at the small configuration: Yosys infers NB x 3
    memories (NB = 8 banks at VLEN = 16: V_TOPK's 128 / VLEN rows; a copy per
    read port A, B, D) of one read and two write ports each, what a 1R2W macro replaces
    (78 s of CPU on the 2-core machine, figures in rtl/plena/README.md)."""
    files = [*(build.PLENA_RTL / f for f in VSRAM_FILES), build.COMMON_RTL / "icg.v"]
    sets = " ".join(f"-set {k} {getattr(diff_cfg, k)}" for k in ("VLEN", "VSRAM_ROWS"))
    out = _yosys(f"{_read(files)}; chparam {sets} plena_vsram; hierarchy -top plena_vsram; "
                 "proc; flatten; opt -fast; memory -nomap; "
                 "tee -o /dev/stdout select -count t:$mem_v2 r:RD_PORTS=1 %i r:WR_PORTS=2 %i; "
                 "tee -o /dev/stdout select -count t:$mem_v2", 1200)
    nb = _vsram_banks(diff_cfg)
    counts = [int(n) for n in re.findall(r"(\d+) objects", out)]
    assert counts == [3 * nb, 3 * nb], out[-2000:]


def _vsram_banks(cfg) -> int:
    """plena_vsram's NB: a power of two of at least NA = ceil(128 / VLEN)."""
    na = max(1, -(-128 // cfg.VLEN))
    return 1 << (na - 1).bit_length()


@pytest.mark.synth
@pytest.mark.parametrize("memory", ["FP_MEM", "INT_MEM"])
def test_scalar_memories_are_inferred_as_banks(diff_cfg, memory):
    """FP_MEM and INT_MEM (plena_smem) at the small configuration: Yosys infers NB
    memories of one read and one write port each (FP_MEM: NB = 8 for S_MAP_V_FP's
    VLEN / VCHUNKS_1 = 8 words and V_TOPK's 8; INT_MEM: 8 for V_TOPK's), what a 1R1W
    macro replaces."""
    files = [build.PLENA_RTL / "plena_smem.v", build.PLENA_RTL / "plena_sram.v",
             build.COMMON_RTL / "icg.v"]
    depth = getattr(diff_cfg, f"{memory}_SIZE")
    from kernelcraft.simulators.plena_rtl import timing
    nr = diff_cfg.VLEN // timing.structure()["VCHUNKS_1"] if memory == "FP_MEM" else 1
    out = _yosys(f"{_read(files)}; chparam -set DEPTH {depth} -set NR {nr} -set NW 8 plena_smem; "
                 "hierarchy -top plena_smem; proc; flatten; opt -fast; memory -nomap; "
                 "tee -o /dev/stdout select -count t:$mem_v2 r:RD_PORTS=1 %i r:WR_PORTS=1 %i; "
                 "tee -o /dev/stdout select -count t:$mem_v2", 600)
    nb = 1 << (max(nr, 8) - 1).bit_length()
    counts = [int(n) for n in re.findall(r"(\d+) objects", out)]
    assert counts == [nb, nb], out[-2000:]


VK_ADD, VK_MUL, VK_MAX, VK_EXP, VK_RECI, VK_MAP = range(6)


def _iso_widths(r: dict, module: str = "plena_opiso") -> list[int]:
    """The widths of the `module` instances (plena_opiso: the operand isolation) in
    `checked_synth`'s counts `r`, one per instance."""
    return sorted(int(re.fullmatch(module + r"\(W=(\d+)\)", m).group(1))
                  for m, f in r["modules"].items() if m.startswith(module + "(")
                  for _ in range(f["instances"]))


# A flip-flop on a falling edge: `proc`'s and `opt`'s flip-flop cells with CLK_POLARITY 0.
FALLING_EDGE = "t:$*dff* r:CLK_POLARITY=1'0 %i"


@pytest.mark.parametrize("unit, kind", [("plena_vgroup", k) for k in range(6)]
                         + [("plena_vreduce", k) for k in range(2)]
                         + [("plena_sfpu", None), ("plena_matrix", None)],
                         ids=[f"vgroup-{n}" for n in ("add", "mul", "max", "exp", "reci", "map")]
                         + ["vreduce-sum", "vreduce-max", "sfpu", "matrix"])
def test_isolated_units_have_no_latch_and_no_falling_edge_flop(diff_cfg, unit, kind):
    """The operand isolation of the vector groups (the chunk's bf16 elements of A, and of
    B for the two-operand kinds, the function, f and use_f), the reductions (the row), the
    scalar unit (function and operands) and the MAC array (A, B, head mode) is plena_opiso
    of that width, AND gates behind a 1-bit rising-edge register (the scalar unit's
    enable is its `go` itself: no register), and each unit elaborates without a latch and
    without a falling-edge flip-flop (`checked_synth`'s ELABORATE flow: `proc`, `check
    -assert`, no latch cell; the clock gates read as cells); the map kind has none
    (rtl/plena/README.md, "The isolation registers")."""
    from kernelcraft.simulators.plena_rtl import timing
    vlen = diff_cfg.VLEN
    ffs = 1
    if unit == "plena_vgroup":
        s = timing.structure()
        chunks = s["VCHUNKS_4"] if kind in (VK_EXP, VK_RECI) else s["VCHUNKS_1"]
        lanes = vlen // chunks
        params = {"VLEN": vlen, "CHUNKS": chunks, "KIND": kind}
        want = {VK_MAP: []}.get(kind, [(2 if kind in (VK_ADD, VK_MUL, VK_MAX) else 1)
                                       * lanes * 16 + 4 + 32 + 1])
    elif unit == "plena_vreduce":
        params = {"VLEN": vlen, "KIND": kind}
        want = [vlen * 16]
    elif unit == "plena_sfpu":
        params, want, ffs = {}, None, 0            # W = 3 + 64, REG_EN = 0
    else:
        params = diff_cfg.as_dict()
        want = [diff_cfg.MLEN * 16 + diff_cfg.BLEN * diff_cfg.MLEN * 16 + 1]
    macros = [build.PLENA_RTL / m for m in MACROS] + [ICG]
    files = [p for p in build.sources("icarus") if p not in macros
             and p.name not in CORE_HARNESS | {"plena_core.v"}]
    r = synth.checked_synth(files, unit, params, macros=macros,
                            include=(build.PLENA_RTL, build.COMMON_RTL), defer=True,
                            passes=synth.ELABORATE + f"; select -assert-none {FALLING_EDGE}",
                            timeout=900)
    if want is None:      # (Yosys names it by a hash of its parameters: no width to read)
        assert sum(f["instances"] for m, f in r["modules"].items()
                   if m.startswith("plena_opiso")) == 1, sorted(r["modules"])
    else:
        assert _iso_widths(r) == want, sorted(r["modules"])
    # act: one 1-bit register per instance (none for the scalar unit's)
    assert all(f["flip_flops"] == ffs for m, f in r["modules"].items()
               if m.startswith("plena_opiso")), r["modules"]


# The whole core, hierarchical: every distinct module (per parameter set) elaborated and
# synthesized once, not flattened. The SRAM macros (plena_sram, plena_sram2w: every bank of
# the Matrix and Vector SRAM, the accumulators, FP_MEM, INT_MEM and the program) and the
# clock gate are cells, what a memory compiler's macros and the library's ICG replace.
CORE_HARNESS = {"plena_sim.v", "plena_top.v"}
MACROS = ("plena_sram.v", "plena_sram2w.v")


def _core(cfg, passes: str = "", timeout: float = 900) -> dict:
    """`checked_synth` of plena_core at `cfg` (read with `-defer`, its parameters set on
    the deferred module, then elaborated from it), the SRAM macros and the clock gate as
    cells: fails on any latch cell and on any problem `check -assert` finds."""
    macros = [build.PLENA_RTL / m for m in MACROS] + [ICG]
    files = [p for p in build.sources("icarus")
             if p.name not in CORE_HARNESS and p not in macros]
    return synth.checked_synth(files, "plena_core", cfg.as_dict(), macros=macros,
                               include=(build.PLENA_RTL, build.COMMON_RTL), defer=True,
                               passes=passes, timeout=timeout)


def test_core_elaborates_hierarchically_small(diff_cfg):
    """plena_core at DIFF_CONFIG elaborates with the SRAM macros and clock gates as cells
    (the units' modules per parameter set, none flattened), passes `check -assert` (no
    multiple drivers, undriven wires or combinational loops) and holds no latch at all
    and no falling-edge flip-flop (the operand isolation of the MAC array, the vector
    groups but the map group, the reductions and the scalar unit is plena_opiso's AND
    gates, V_TOPK's logits' its HOLD form: a mux and a rising-edge register). About 36 s
    wall at load 17."""
    r = _core(diff_cfg, passes=synth.ELABORATE + f"; select -assert-none {FALLING_EDGE}",
              timeout=600)
    cfg = diff_cfg
    # Matrix SRAM MLEN, BMM_ACC HEADS x MLEN/BLEN, MM_ACC 1, FP_MEM and INT_MEM 8 each, imem 1
    assert r["by_type"].get("plena_sram") == \
        cfg.MLEN + (cfg.MLEN // cfg.HLEN) * (cfg.MLEN // cfg.BLEN) + 1 + 8 + 8 + 1
    assert r["by_type"].get("plena_sram2w") == 3 * _vsram_banks(cfg)
    assert r["by_type"].get("icg", 0) > 0
    # the operand isolation: the MAC array's, three two-operand groups', the exp and
    # reciprocal groups', the two reductions' and the scalar unit's AND gates, and
    # V_TOPK's HOLD form (its engine reads the held logits for the whole instruction), one
    # per instance (the scalar unit's and V_TOPK's named by a hash of their parameters)
    assert sum(f["instances"] for m, f in r["modules"].items()
               if m.startswith("plena_opiso")) == 1 + 3 + 2 + 2 + 1 + 1, sorted(r["modules"])


def _with_submodules(r: dict, m: str, memo: dict) -> tuple[int, int]:
    """(cells, flip-flops) of module `m` of `checked_synth`'s counts `r` with its
    submodules expanded (a macro or clock gate one cell)."""
    if m not in memo:
        f = r["modules"][m]
        cells, flops = f["cells"], f["flip_flops"]
        for sub, n in r["submodules"][m].items():
            c, ff = _with_submodules(r, sub, memo)
            cells, flops = cells + n * c, flops + n * ff
        memo[m] = (cells, flops)
    return memo[m]


def synth_core(cfg, timeout: float) -> dict:
    """plena_core at `cfg` synthesized module by module (`checked_synth`'s `synth
    -noshare` flow, no flattening; SRAM macros and clock gates as cells): `check -assert`
    clean and no latch cell in any module. (No `ltp`: on the hierarchy it reads a
    submodule instance as one combinational cell and loops through them.)"""
    return _core(cfg, timeout=timeout)


@pytest.mark.synth
def test_core_synthesizes_hierarchically_small(diff_cfg):
    """plena_core at DIFF_CONFIG synthesized module by module: `check -assert` clean after
    synthesis too, no latch; prints each module's cells and flip-flops, its own and with
    its submodules (figures in rtl/plena/README.md; about 11 CPU minutes and 3.7 GB)."""
    _report_core(synth_core(diff_cfg, 7200))


def _report_core(r: dict) -> None:
    """Print synth_core's per-module figures and check its totals."""
    modules, memo = r["modules"], {}
    print(f"{'module':52s} {'instances':>9s} {'own cells':>10s} {'flops':>7s} | "
          f"{'with submodules':>15s} {'flops':>7s}")
    for m in sorted(modules, key=lambda m: -_with_submodules(r, m, memo)[0]):
        f = modules[m]
        cells, flops = _with_submodules(r, m, memo)
        print(f"{m[:52]:52s} {f['instances']:>9,} {f['cells']:>10,} {f['flip_flops']:>7,} | "
              f"{cells:>15,} {flops:>7,}")
    print(f"whole core: {r['cells']:,} cells, {r['flip_flops']:,} flip-flops, 0 latches; "
          f"{len(modules)} modules, {sum(f['cells'] for f in modules.values()):,} cells "
          f"between them")
    assert _with_submodules(r, "plena_core", memo) == (r["cells"], r["flip_flops"])
    assert r["flip_flops"] > 0


@pytest.mark.synth
def test_core_synthesizes_hierarchically_at_the_default_configuration():
    """plena_core at the default configuration, as at DIFF_CONFIG above: `check -assert`
    clean, no latch; prints each module's figures and the CPU time Yosys took
    (rtl/plena/README.md, "Synthesis": the issue's goal is 15 minutes)."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = synth_core(default_config(), 4 * 3600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    _report_core(r)
    print(f"Yosys CPU time: {cpu:.0f} s; peak RSS {after.ru_maxrss / 1e6:.2f} GB")
