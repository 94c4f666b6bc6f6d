"""Yosys 0.23 reads every source of the plena core (the harness plena_sim.v aside), and
synthesizes the DMA engine with `check -assert` clean (no multiple drivers, no
undriven or combinational-loop wires) and without latches: at the small differential
configuration in the default suite, at the default configuration under the `synth`
marker (figures in rtl/plena/README.md). The Matrix SRAM, BMM_ACC and MM_ACC are inferred
as their banks' 1R1W memories, and synthesize likewise at the small configuration. The
vector groups' and reductions' only latches are their operands' isolation latches. The
whole core elaborates hierarchically at the small configuration with the SRAM macros and
clock gates as cells, `check -assert` clean with no latch but the isolation latches (default
suite), and synthesizes module by module (`synth` marker)."""
import re
import shutil
import subprocess

import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.plena_rtl import build

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
    out = _yosys(f"{_read([build.PLENA_RTL / 'plena_dma.v'])}; chparam {params} plena_dma; "
                 "synth -top plena_dma; check -assert; tee -o /dev/stdout stat", timeout)
    cells = {m.group(1): int(m.group(2))
             for m in re.finditer(r"^\s+(\$\S+)\s+(\d+)\s*$", out, flags=re.M)}
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


MSRAM_FILES = ("plena_msram.v", "plena_sram.v")
ICG = build.COMMON_RTL / "icg.v"     # the clock gates: read as a cell (its latch is the cell's)
MSRAM_PARAMS = ("MLEN", "BLEN", "HLEN", "MSRAM_TILES")


def test_matrix_sram_is_inferred_as_banks(diff_cfg):
    """The Matrix SRAM (plena_msram: banks, the step's column selection, the host's row)
    at the small configuration: Yosys infers MLEN memories of one read and one write port
    each, what a 1R1W macro replaces."""
    files = [build.PLENA_RTL / f for f in MSRAM_FILES]
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
    out = _yosys(f"{_read([build.PLENA_RTL / 'plena_msram.v'])}; "
                 f"{_read([build.PLENA_RTL / 'plena_sram.v', ICG], '-lib ')}; "
                 f"chparam {sets} plena_msram; synth -noshare -top plena_msram; check -assert; "
                 "tee -o /dev/stdout stat", 3600)
    cells = {m.group(1): int(m.group(2))
             for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s*$", out, flags=re.M)}
    total = int(re.search(r"Number of cells:\s+(\d+)", out).group(1))
    assert not [c for c in cells if "LATCH" in c.upper()], cells
    assert cells["plena_sram"] == cfg.MLEN and cells["icg"] == 2
    flops = sum(n for c, n in cells.items() if "DFF" in c.upper())
    print(f"plena_msram at the default configuration: {total:,} cells, {flops:,} flip-flops")
    assert total < 2 * cfg.MLEN * 16 * (cfg.MLEN + cfg.BLEN * cfg.BLEN) * 5 // 4


def _synth_small(diff_cfg, top: str, names, params) -> int:
    """Synthesize `top` at DIFF_CONFIG to flip-flops (no macro library here), print its
    figures and return its flip-flop count."""
    cells, flops, depth = _synth_lane({k: getattr(diff_cfg, k) for k in params}, top,
                                      [build.PLENA_RTL / f for f in names], 1800, cells_lib=[ICG])
    print(f"{top} at DIFF_CONFIG: {cells:,} cells, {flops:,} flip-flops, longest path {depth} cells")
    return flops


ACC_FILES = ("plena_acc.v", "plena_sram.v")


def _acc_params(cfg, which: str) -> dict[str, int]:
    """plena_acc's parameters for BMM_ACC or MM_ACC, as plena_matrix sets them."""
    if which == "BMM_ACC":
        return {"ROWS": cfg.MLEN, "COLS": cfg.MLEN, "BLEN": cfg.BLEN, "HEADS": cfg.MLEN // cfg.HLEN}
    return {"ROWS": cfg.BLEN, "COLS": cfg.BLEN, "BLEN": cfg.BLEN, "HEADS": 1}


def _acc_banks(cfg, which: str) -> int:
    """Memories of one read and one write port, ROWS words of BLEN fp32 entries each,
    Yosys infers in plena_acc for `which`."""
    params = _acc_params(cfg, which)
    files = [build.PLENA_RTL / f for f in ACC_FILES]
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
    cells, flops, depth = _synth_lane(params, "plena_acc", [build.PLENA_RTL / f for f in ACC_FILES],
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


@pytest.mark.parametrize("unit, kind", [("plena_vgroup", k) for k in range(6)]
                         + [("plena_vreduce", k) for k in range(2)],
                         ids=[f"vgroup-{n}" for n in ("add", "mul", "max", "exp", "reci", "map")]
                         + ["vreduce-sum", "vreduce-max"])
def test_vector_units_latch_only_their_operands(diff_cfg, unit, kind):
    """The vector groups' and reductions' one latch is their operand isolation
    (plena_oplatch: the chunk's bf16 elements of A, and of B for the two-operand kinds,
    the function, f and use_f; a reduction's row), of that width and nowhere else (the
    clock gates read as cells); the map kind has none (rtl/plena/README.md)."""
    from kernelcraft.simulators.plena_rtl import timing
    vlen = diff_cfg.VLEN
    if unit == "plena_vgroup":
        s = timing.structure()
        chunks = s["VCHUNKS_4"] if kind in (VK_EXP, VK_RECI) else s["VCHUNKS_1"]
        lanes = vlen // chunks
        sets = f"-set VLEN {vlen} -set CHUNKS {chunks} -set KIND {kind}"
        want = {VK_MAP: []}.get(kind, [(2 if kind in (VK_ADD, VK_MUL, VK_MAX) else 1)
                                       * lanes * 16 + 4 + 32 + 1])
    else:
        sets = f"-set VLEN {vlen} -set KIND {kind}"
        want = [vlen * 16]
    files = [build.PLENA_RTL / f for f in (f"{unit}.v", "plena_oplatch.v",
                                           "plena_exp_pipe.v", "plena_recip_pipe.v")]
    common = [p for p in sorted(build.COMMON_RTL.glob("*.v")) if p != ICG]
    out = _yosys(f"{_read(files + common)}; {_read([ICG], '-lib ')}; chparam {sets} {unit}; "
                 f"hierarchy -top {unit}; proc; flatten; opt_clean; "
                 "tee -o /dev/stdout stat -width", 600)
    latches = sorted(int(w) for w, n in re.findall(r"^\s+\$dlatch_(\d+)\s+(\d+)\s*$", out,
                                                   flags=re.M) for _ in range(int(n)))
    assert latches == want, out[-2000:]


# The whole core, hierarchical: every distinct module (per parameter set) elaborated and
# synthesized once, not flattened. The SRAM macros (plena_sram, plena_sram2w: every bank of
# the Matrix and Vector SRAM, the accumulators, FP_MEM, INT_MEM and the program) and the
# clock gate are cells, what a memory compiler's macros and the library's ICG replace.
CORE_HARNESS = {"plena_sim.v", "plena_top.v"}
MACROS = ("plena_sram.v", "plena_sram2w.v")


def _core_script(cfg) -> str:
    """Read the core (-defer: nothing elaborated at the default parameters), set `cfg`'s
    parameters on plena_core, elaborate it, `proc`, drop what drives nothing (the loop
    integers of `always @*` blocks, which `proc` reads as latches), `check -assert`, and
    count the macros' and gates' instances and list every latch."""
    macros = [build.PLENA_RTL / m for m in MACROS] + [ICG]
    files = [p for p in build.sources("icarus")
             if p.name not in CORE_HARNESS and p not in macros]
    sets = " ".join(f"-set {k} {v}" for k, v in cfg.as_dict().items())
    return (f"{_read(files, '-defer ')}; {_read(macros, '-lib ')}; "
            # (`hierarchy -chparam` on a deferred top trips an assertion in Yosys 0.23)
            f"chparam {sets} $abstract\\plena_core; hierarchy -check -top plena_core; "
            "proc; opt_clean; check -assert; "
            "tee -o /dev/stdout select -count t:plena_sram; "
            "tee -o /dev/stdout select -count t:plena_sram2w; "
            "tee -o /dev/stdout select -count t:icg; " + _LATCHES.format(cell="$dlatch"))


# Every latch cell, as `module/cell` lines, and their number.
_LATCHES = ("tee -o /dev/stdout select -count t:{cell}; "
            "tee -o /dev/stdout select -list t:{cell}")


def _latch_modules(out: str) -> set[str]:
    """The modules holding the latches _LATCHES printed (the last count and listing in
    `out`)."""
    count = int(re.findall(r"(\d+) objects", out)[-1])
    listed = [ln.split("/")[0] for ln in out.splitlines()[-count:]] if count else []
    assert len(listed) == count and all(m.startswith("$") for m in listed), out[-3000:]
    return set(listed)


def _is_oplatch(module: str) -> bool:
    return module.startswith("$paramod\\plena_oplatch\\")


def test_core_elaborates_hierarchically_small(diff_cfg):
    """plena_core at DIFF_CONFIG elaborates with the SRAM macros and clock gates as cells
    (the units' modules per parameter set, none flattened), passes `check -assert` (no
    multiple drivers, undriven wires or combinational loops), and its only latches are the
    isolation latches (plena_oplatch: the MAC array's, the vector groups' but the map
    group's, the reductions', V_TOPK's logits; the existing per-unit test holds their
    widths). About 15 s of CPU."""
    out = _yosys(_core_script(diff_cfg), timeout=600)
    sram, sram2w, icg = (int(n) for n in re.findall(r"(\d+) objects", out)[:3])
    cfg = diff_cfg
    # Matrix SRAM MLEN, BMM_ACC HEADS x MLEN/BLEN, MM_ACC 1, FP_MEM and INT_MEM 8 each, imem 1
    assert sram == cfg.MLEN + (cfg.MLEN // cfg.HLEN) * (cfg.MLEN // cfg.BLEN) + 1 + 8 + 8 + 1
    assert sram2w == 3 * _vsram_banks(cfg) and icg > 0
    modules = _latch_modules(out)
    assert modules and all(_is_oplatch(m) for m in modules), sorted(modules)


def _module_names(log: str) -> dict[str, str]:
    """A readable name per derived module of a Yosys log: `plena_vreduce(VLEN=16,KIND=0)`
    for `$paramod$<hash>\\plena_vreduce`, from the parameters the log prints as it derives."""
    names, params = {}, []
    for line in log.splitlines():
        if m := re.match(r"Parameter \\(\w+) = (.+)$", line):
            params.append(f"{m.group(1)}={m.group(2)}")
        elif m := re.match(r"Generating RTLIL representation for module `(\$paramod\S*\\(\w+))'",
                           line):
            # (the whole configuration, as the core's units take it, is left out)
            names[m.group(1)] = (f"{m.group(2)}({','.join(params)})" if 0 < len(params) <= 4
                                 else m.group(2))
            params = []
        elif "Executing AST frontend in derive mode" in line:
            params = []
    return names


def _readable(module: str, names: dict[str, str]) -> str:
    """`names`' name for a module, or `plena_oplatch(W=293)` for Yosys's
    `$paramod\\plena_oplatch\\W=s32'00...0100100101`."""
    if module in names:
        return names[module]
    if m := re.match(r"\$paramod\\(\w+)\\(\w+)=s32'([01]+)$", module):
        return f"{m.group(1)}({m.group(2)}={int(m.group(3), 2)})"
    return module


def _stat_per_module(out: str) -> dict[str, dict[str, int]]:
    """`stat`'s cells, flip-flops and latch bits per module: its own (a submodule or
    macro instance counted as one cell) and, as `all_*`, with its submodules' expanded
    (a macro or clock gate still one cell); 'TOTAL' is the design hierarchy's."""
    own, kinds = {}, {}
    for name, body in re.findall(r"^=== (.+?) ===$(.*?)(?=^=== |\Z)", out, flags=re.M | re.S):
        total = re.search(r"Number of cells:\s+(\d+)", body)
        if not total:
            continue
        name = "TOTAL" if name == "design hierarchy" else name
        kinds[name] = {m.group(1): int(m.group(2))
                       for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s*$",
                                            body[total.start():], flags=re.M)}
        # (gate cells only: a derived module's hashed name may hold "dff", as one does at
        # the default configuration)
        own[name] = {"cells": int(total.group(1)),
                     "flops": sum(n for k, n in kinds[name].items()
                                  if k.startswith("$_") and "DFF" in k.upper()),
                     "latches": sum(n for k, n in kinds[name].items()
                                    if k.startswith("$_") and "DLATCH" in k.upper())}

    def expanded(m: str) -> dict[str, int]:
        if "all_cells" not in own[m]:
            sums = dict(own[m])
            for sub, n in kinds[m].items():
                if sub in own and sub != m:
                    e = expanded(sub)
                    sums["cells"] += n * (e["all_cells"] - 1)
                    sums["flops"] += n * e["all_flops"]
                    sums["latches"] += n * e["all_latches"]
            own[m].update({f"all_{k}": v for k, v in sums.items()})
        return own[m]

    for m in own:
        if m != "TOTAL":
            expanded(m)
    return own


def synth_core(cfg, timeout: float, log) -> tuple[dict, str]:
    """plena_core at `cfg` synthesized module by module (`synth -noshare`, no flattening;
    SRAM macros and clock gates as cells), `check -assert` clean, latches only in
    plena_oplatch: its per-module figures and the log. (No `ltp`: on the hierarchy it
    reads a submodule instance as one combinational cell and loops through them.)"""
    script = (_core_script(cfg) + "; synth -noshare -top plena_core; check -assert; "
              "tee -o /dev/stdout stat; " + _LATCHES.format(cell="$_DLATCH*"))
    out = _yosys(script, timeout, log=log)
    modules = _latch_modules(out)
    assert modules and all(_is_oplatch(m) for m in modules), sorted(modules)
    return _stat_per_module(out), open(log).read()


@pytest.mark.synth
def test_core_synthesizes_hierarchically_small(diff_cfg, tmp_path):
    """plena_core at DIFF_CONFIG synthesized module by module: `check -assert` clean after
    synthesis too, latch bits only in plena_oplatch; prints each module's cells,
    flip-flops and latch bits, its own and with its submodules (figures in
    rtl/plena/README.md; about 11 CPU minutes and 3.7 GB)."""
    figures, log = synth_core(diff_cfg, 7200, tmp_path / "yosys.log")
    _report_core(figures, log)


def _report_core(figures: dict, log: str) -> None:
    """Print synth_core's per-module figures and check its totals."""
    names = _module_names(log)
    print(f"{'module':52s} {'own cells':>10s} {'flops':>7s} | {'with submodules':>15s} "
          f"{'flops':>7s} {'latch bits':>10s}")
    for module, f in sorted(figures.items(), key=lambda kv: -kv[1].get("all_cells", 0)):
        if module != "TOTAL":
            print(f"{_readable(module, names)[:52]:52s} {f['cells']:>10,} {f['flops']:>7,} | "
                  f"{f['all_cells']:>15,} {f['all_flops']:>7,} {f['all_latches']:>10,}")
    total, core = figures["TOTAL"], figures["plena_core"]
    print(f"whole core: {total['cells']:,} cells, {total['flops']:,} flip-flops, "
          f"{total['latches']:,} latch bits")
    assert (core["all_cells"], core["all_flops"], core["all_latches"]) == \
        (total["cells"], total["flops"], total["latches"])
    assert total["flops"] > 0
    assert all(f["latches"] == 0 for m, f in figures.items() if m != "TOTAL" and not _is_oplatch(m))


@pytest.mark.synth
def test_core_synthesizes_hierarchically_at_the_default_configuration(tmp_path):
    """plena_core at the default configuration, as at DIFF_CONFIG above: `check -assert`
    clean, latch bits only in plena_oplatch; prints each module's figures and the CPU
    time Yosys took (rtl/plena/README.md, "Synthesis": the issue's goal is 15 minutes)."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures, log = synth_core(default_config(), 4 * 3600, tmp_path / "yosys.log")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    _report_core(figures, log)
    print(f"Yosys CPU time: {cpu:.0f} s; peak RSS {after.ru_maxrss / 1e6:.2f} GB")
