"""The aie tile is hardware: Yosys 0.23 elaborates and synthesizes it (generic gates) with
no latch, no multiple or missing drivers (`check -assert`), no construct it rejects; the
SRAM macros (aie_sram, aie_imem) and the clock-gate cell (icg) are black boxes, and
aie_sim (the simulation harness, the DMA's external memory) is not part of it. All of it
goes through simulators/aie_rtl/synth.py, the hierarchical machinery coral's synthesis
uses (simulators/rtl/synth.py): each distinct module synthesized once per parameter set
(the 256 bf16 multipliers of aie_mac cost one), counts over every instance.

The elaboration with the checks at the default configuration runs in the suite; the
synthesis (the tile at the default and the small configuration, each unit alone) is
`-m synth` (minutes to hours of CPU): `python3 -m pytest -m synth tests/rtl/aie/test_synth.py -s`
prints the figures quoted in rtl/aie/README.md, Synthesis."""
import shutil

import pytest

from kernelcraft.isa.aie import default_config
from kernelcraft.simulators.aie_rtl.randprog import DIFF_CONFIG

pytestmark = pytest.mark.skipif(shutil.which("yosys") is None,
                                reason="yosys is absent (scripts/install-system-deps.sh installs it)")

UNITS = ("aie_shuf", "aie_reduce", "aie_pwl", "aie_mac", "aie_dma", "aie_dm")


def _params(module: str, config: dict) -> dict:
    cfg = default_config(**config).as_dict()
    rows = cfg["DM_SIZE"] // 32
    # (aie_dm at aie_top's instance: which requesters write and which read)
    return {"aie_dm": {"DM_SIZE": cfg["DM_SIZE"], "DM_BANKS": cfg["DM_BANKS"],
                       "RW": rows.bit_length() - 1, "NREQ": 8,
                       "WRITERS": "8'b00111100", "READERS": "8'b11001011"},
            "aie_reduce": {"LAT": cfg["REDUCE_LATENCY"]}, "aie_pwl": {"LAT": cfg["PWL_LATENCY"]},
            "aie_shuf": {}}.get(module, cfg)


def _print(what: str, r: dict) -> None:
    print(f"\n{what}: {r['cells']:,} cells, {r['flip_flops']:,} flip-flops; {r['by_type']}")
    for name, m in sorted(r["modules"].items(), key=lambda kv: -kv[1]["cells"] * kv[1]["instances"]):
        print(f"  {name}: {m['cells']:,} cells, {m['flip_flops']:,} flip-flops, x{m['instances']}")


def _tile(r: dict, cfg) -> None:
    # each unit once in the tile (aie_mac, aie_reduce, aie_pwl, aie_shuf in the core)
    for unit in UNITS + ("aie_core",):
        found = [m for name, m in r["modules"].items() if name.split("(")[0].split("#")[0] == unit]
        assert sum(m["instances"] for m in found) == 1, (unit, found)
    # the data memory's macros: four 32-byte-row macros a bank; the instruction memory
    assert r["by_type"]["aie_sram"] == 4 * cfg.DM_BANKS, r["by_type"]
    assert r["by_type"]["aie_imem"] >= 1


def test_elaborates_with_the_checks_at_the_default_config():
    """The structure at the default configuration, in the suite: every module elaborates
    from aie_top at its parameters (no construct Yosys rejects, no missing module), `proc`
    leaves no latch (the clock gates are the icg cells, black boxes), `check -assert` is
    clean in every module and between instances. The synthesis is `-m synth`."""
    from kernelcraft.simulators.aie_rtl.synth import elaborate
    cfg = default_config()
    _tile(elaborate(cfg), cfg)


@pytest.mark.parametrize("body,what", [
    ("always @(*) if (en) q = d;", "latch"),
    ("assign q = d; assign q = en;", "multiple drivers"),
])
def test_the_checks_see_the_parameters_the_top_gives(tmp_path, body, what):
    """The sources read deferred (as the tile's are) are elaborated at the parameters the
    top is given, and the checks see the module derived at them: the faulty branch
    exists only at P=1."""
    from kernelcraft.simulators.rtl import synth
    (tmp_path / "m.v").write_text(
        f"module m #(parameter P = 0) (input en, input d, output {'reg' if what == 'latch' else 'wire'} q);\n"
        f"  generate if (P) begin : bad {body} end else begin : ok assign q = d; end endgenerate\n"
        "endmodule\n")
    kw = dict(sources=("m.v",), top="m", cwd=tmp_path, defer=True, passes=synth.ELABORATE)
    assert synth.checked_synth(params={"P": 0}, **kw)["modules"]["m"]["instances"] == 1
    with pytest.raises(synth.SynthesisError, match="Assertion failed" if what == "latch" else "check -assert"):
        synth.checked_synth(params={"P": 1}, **kw)


# synthesize's own limit (4 h wall) stops a hung Yosys; pytest's (pyproject) would stop the
# tile first on a loaded machine, where its CPU minutes take hours of wall time
@pytest.mark.parametrize("module", UNITS)
@pytest.mark.synth
@pytest.mark.timeout(0)
def test_unit_synthesizes(module):
    from kernelcraft.simulators.aie_rtl.synth import synthesize
    cfg = default_config(**DIFF_CONFIG)
    r = synthesize(cfg, top=module, params=_params(module, DIFF_CONFIG))
    _print(f"{module} (small configuration)", r)
    assert r["cells"] > 0


@pytest.mark.synth
@pytest.mark.timeout(0)
def test_core_processes():
    """`proc` and `check -assert` of the core (with every unit inside it) at the small
    configuration: 63 CPU seconds (0.8 GB) on Dec 5. Its one clocked block had held every
    register file, the scoreboard and the locks, 3,458 signals for `proc_mux`, which had
    not finished after 7.5 CPU minutes; each now has a block of its own (rtl/aie/README.md,
    Synthesis)."""
    from kernelcraft.simulators.aie_rtl.synth import elaborate
    elaborate(default_config(**DIFF_CONFIG), top="aie_core", params=_params("aie_core", DIFF_CONFIG))


@pytest.mark.synth
@pytest.mark.timeout(0)
def test_tile_synthesizes_small_config():
    from kernelcraft.simulators.aie_rtl.synth import synthesize
    cfg = default_config(**DIFF_CONFIG)
    r = synthesize(cfg)
    _print("aie_top (small configuration)", r)
    _tile(r, cfg)


@pytest.mark.synth
@pytest.mark.timeout(0)
def test_tile_synthesizes_default_config():
    """The whole tile at the default configuration (64 KB data memory in eight banks,
    4096-word instruction memory): rtl/aie/README.md, Synthesis, for its figures."""
    from kernelcraft.simulators.aie_rtl.synth import synthesize
    cfg = default_config()
    r = synthesize(cfg)
    _print("aie_top (default configuration)", r)
    _tile(r, cfg)
