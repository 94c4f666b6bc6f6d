"""Yosys 0.23 synthesis of the aie tile's units (rtl/aie without the simulation harness)
at the small configuration (randprog.DIFF_CONFIG), one unit at a time and hierarchical
(each rtl/common unit synthesized once per parameter set, so the 256 bf16 multipliers
of aie_mac cost one): it elaborates, has no latches, no multiple or missing drivers
(`check -assert`), and maps to generic gates, whose counts the test prints (quoted in
rtl/aie/README.md, Synthesis). The SRAM macros (aie_sram, aie_imem) and the clock-gate
cell (icg) are black boxes, as coral's synthesis. The whole tile's count is the tile
(aie_top with the core) synthesized with the units as black boxes, plus each unit's own
count once per instance: the units' runs are separate processes, so no Yosys process
holds more than the largest unit (aie_mac, 7.3 GB). Minutes, hence the `synth` marker:
`python3 -m pytest -m synth tests/rtl/aie/test_synth.py -s` (the tile's total runs every
unit it needs; see CPU_LIMITS)."""
import re
import resource
import shutil
import subprocess

import pytest

from kernelcraft.isa.aie import default_config
from kernelcraft.simulators.aie_rtl.build import AIE_RTL, COMMON, COMMON_UNITS, TILE
from kernelcraft.simulators.aie_rtl.randprog import DIFF_CONFIG

# Each Yosys run is bounded by its CPU time (CPU_LIMITS), not by the suite's wall-clock
# timeout: on a loaded machine the tile's run took over 30 minutes of wall time.
pytestmark = [pytest.mark.synth, pytest.mark.timeout(0)]

MACROS = ("aie_sram.v", "aie_imem.v")
CPU_SECONDS = 1200               # per unit (the largest took minutes of CPU)
# the core holds aie_mac (418 CPU s alone) and the other vector units; the tile holds the
# core, the DMA and the data memory
CPU_LIMITS = {"aie_core": 3600, "aie_top": 5400}
# The units counted on their own (test_unit_synthesizes), black boxes in the tile's count.
# Each is one file, read as a black box (`read_verilog -lib`: its ports at the parameters
# its instance gives it) in place of its source.
BLACK_BOXES = ("aie_shuf", "aie_reduce", "aie_pwl", "aie_mac", "aie_dma", "aie_dm")


def _params(module: str, config: dict) -> dict:
    cfg = default_config(**config).as_dict()
    rows = cfg["DM_SIZE"] // 32
    # (aie_dm at aie_top's instance: which requesters write and which read)
    return {"aie_dm": {"DM_SIZE": cfg["DM_SIZE"], "DM_BANKS": cfg["DM_BANKS"],
                       "RW": rows.bit_length() - 1, "NREQ": 8,
                       "WRITERS": "8'b00111100", "READERS": "8'b11001011"},
            "aie_reduce": {"LAT": cfg["REDUCE_LATENCY"]}, "aie_pwl": {"LAT": cfg["PWL_LATENCY"]},
            "aie_shuf": {}}.get(module, cfg)


def synthesize(module: str, tmp_path, upto: str = "synth", config: dict = DIFF_CONFIG,
               black_boxes: tuple = ()) -> tuple[str, str]:
    """(the latch count, `stat`'s report) of `module` synthesized to generic gates at
    `config` (parameters over the defaults), the modules `black_boxes` (of BLACK_BOXES)
    as black boxes; `upto` "hierarchy" stops after elaboration ("", ""), "check" after
    `proc` and `check -assert` (the latch count, "")."""
    if shutil.which("yosys") is None:
        pytest.skip("yosys is not installed (scripts/install-system-deps.sh)")
    latches, stat = tmp_path / "latches.txt", tmp_path / "stat.txt"
    boxed = MACROS + tuple(f"{m}.v" for m in black_boxes)
    sources = [str(AIE_RTL / f) for f in TILE if f not in boxed] + \
        [str(COMMON / f) for f in COMMON_UNITS if f != "icg.v"]
    chparams = " ".join(f"-chparam {k} {v}" for k, v in _params(module, config).items())
    steps = [
        f"read_verilog -sv -lib -I{AIE_RTL} -I{COMMON} {COMMON / 'icg.v'} "
        + " ".join(str(AIE_RTL / m) for m in boxed),
        # -defer: elaborate only what the unit instantiates, at its parameters
        f"read_verilog -sv -defer -I{AIE_RTL} -I{COMMON} " + " ".join(sources),
        f"hierarchy -check -top {module} {chparams}",
    ]
    if upto != "hierarchy":
        steps += [
            "proc",
            f"tee -o {latches} select -count t:$dlatch t:$adlatch t:$dlatchsr t:$sr",
            "check -assert",
        ]
    if upto == "synth":
        steps += [f"synth -top {module}", f"tee -o {stat} stat"]
    script = "\n".join(steps)
    (tmp_path / "unit.ys").write_text(script)
    cpu = CPU_LIMITS.get(module, CPU_SECONDS)
    limit = lambda: resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    proc = subprocess.run(["yosys", "-q", "-s", str(tmp_path / "unit.ys")], capture_output=True,
                          text=True, preexec_fn=limit)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    if upto == "hierarchy":
        return "", ""
    return latches.read_text(), stat.read_text() if upto == "synth" else ""


def _cells_flops(report: str) -> tuple[int, int]:
    cells = re.search(r"Number of cells:\s+(\d+)", report)
    return int(cells.group(1)), sum(int(n) for n in re.findall(r"\$_\w*DFF\w*_\s+(\d+)", report))


def counts(stat: str) -> dict:
    """{module: (cells, flip-flops)} of each module in `stat`'s report (one instance)."""
    return {name: _cells_flops(body)
            for name, body in re.findall(r"=== (\S+) ===\n(.*?)(?====|\Z)", stat, re.S)}


def assert_clean(latches: str, stat: str) -> tuple[int, int]:
    """No latch after `proc` (the clock gates are black boxes) and none mapped; the
    whole hierarchy's (cells, flip-flops)."""
    assert re.search(r"\b0 objects", latches), latches
    total = stat.split("=== design hierarchy ===")[-1]
    assert not re.search(r"LATCH", stat)
    cells, flops = _cells_flops(total)           # (the hierarchy's: every instance counted)
    assert cells > 0
    return cells, flops


# Every unit of the tile counted on its own: the bf16 and integer multiply-accumulate
# lanes (aie_mac), the DMA with its four channels, the banked data memory's routing and
# arbitration (aie_dm), and the vector units the core holds (the core and the tile's own
# logic are counted with these as black boxes: test_tile_synthesizes).
UNITS = BLACK_BOXES


@pytest.fixture(scope="session")
def unit_counts(tmp_path_factory):
    """count(module, config) -> (cells, flip-flops) of a unit synthesized on its own, once
    a session (test_unit_synthesizes and the tile's total share the runs)."""
    done = {}

    def count(module: str, config: dict = DIFF_CONFIG) -> tuple[int, int]:
        key = (module, tuple(sorted(config.items())))
        if key not in done:
            done[key] = assert_clean(*synthesize(module, tmp_path_factory.mktemp(module),
                                                 config=config))
        return done[key]
    return count


@pytest.mark.parametrize("module", UNITS)
def test_unit_synthesizes(module, unit_counts):
    cells, flops = unit_counts(module)
    print(f"\n{module}: {cells:,} cells, {flops:,} flip-flops")


def black_box_instances(stat: str) -> dict:
    """{unit: instances} of the black-boxed units in the hierarchy's cells of `stat`'s
    report (a unit's cell type is its name, or `$paramod...\\name` when derived)."""
    total = stat.split("=== design hierarchy ===")[-1]
    found = {}
    for kind, n in re.findall(r"^\s+(\S+)\s+(\d+)$", total, re.M):
        name = kind.rsplit("\\", 1)[-1]
        if name in BLACK_BOXES:
            found[name] = found.get(name, 0) + int(n)
    return found


def test_core_processes(tmp_path):
    """`proc` and `check -assert` of the core (with every unit inside it): 63 CPU seconds
    (0.8 GB). Its one clocked block had held every register file, the scoreboard and the
    locks, 3,458 signals for `proc_mux`, which had not finished after 7.5 CPU minutes;
    each now has a block of its own (rtl/aie/README.md, Synthesis)."""
    latches, _ = synthesize("aie_core", tmp_path, upto="check")
    assert re.search(r"\b0 objects", latches), latches


def test_tile_elaborates(tmp_path):
    """Elaboration only (7 minutes wall at load 10): Yosys 0.23 stopped here on an
    internal assertion while the core connected an array element to aie_mac's port
    (rtl/aie/README.md, Synthesis)."""
    synthesize("aie_top", tmp_path, upto="hierarchy")


def test_tile_synthesizes(tmp_path, unit_counts):
    """The whole tile, aie_top (core, DMA, data memory, instruction memory): the tile and
    the core synthesized hierarchically with the units as black boxes, plus each unit's
    own count per instance. Not yet through: on Dec 6 the tile's run (proc clean, no
    latch) ran out of 8 GB in `share` on the core's register reads, whose conditions
    the bundle decoder's slot chain multiplied; with the decoder in one-hot selects the
    core's `share` got past those to a ROM read of the scalar slot's latency, and with
    one latency look-up per slot past that to an accumulator read (the store slot's
    AST data), where it passed 9 GB; with the accumulator reads by constant index past
    those to the store slot's alignment ROM (`isa_align`), where it passed 9.5 GB; with
    the slots' latency, byte and alignment look-ups as select chains (no ROM) `share`
    went through, at about 1 GB (rtl/aie/README.md, Synthesis)."""
    latches, stat = synthesize("aie_top", tmp_path, black_boxes=BLACK_BOXES)
    shell_cells, shell_flops = assert_clean(latches, stat)
    for name, (c, f) in counts(stat).items():
        print(f"\n{name}: {c:,} cells, {f:,} flip-flops (black boxes as one cell each)", end="")
    boxes = black_box_instances(stat)
    # each unit is in the tile once (aie_mac, aie_reduce, aie_pwl, aie_shuf in the core)
    assert boxes == {m: 1 for m in BLACK_BOXES}, boxes
    cells, flops = shell_cells - sum(boxes.values()), shell_flops
    for name, n in boxes.items():
        c, f = unit_counts(name)
        print(f"\n{name}: {c:,} cells, {f:,} flip-flops (x{n})", end="")
        cells, flops = cells + n * c, flops + n * f
    print(f"\naie_top (whole tile): {cells:,} cells, {flops:,} flip-flops")
