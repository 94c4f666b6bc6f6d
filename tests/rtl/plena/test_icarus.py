"""The plena RTL on Icarus Verilog, the second simulator: the same RTL with the Verilog
HBM model (plena_hbm.vh). Icarus is some hundred times slower than Verilator, so these
run on the small differential configuration with few, short programs: baselines of the
vector, scalar-fp and matrix units (one simulator process), random programs and a
lockstep comparison of retirement traces (one test and simulator process per seed),
`rtl-check --sim icarus`, and the missing-toolchain message."""
import pytest

from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.plena.assembler import assemble
from kernelcraft.simulators.plena.machine import PlenaModel
from kernelcraft.simulators.plena_rtl import build as rtl_build
from kernelcraft.simulators.plena_rtl.backend import Job, PlenaRTL
from kernelcraft.simulators.plena_rtl.compare import compare_runs, compare_traces
from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG, ProgramGenerator
from kernelcraft.simulators.rtl import toolchain
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.cli import main
from kernelcraft.workbench.layout import build_image

# relu: vector unit and DMA; rms_norm: reductions, scalar fp (sqrt, reciprocal), vector
# multiplies; gemv: Matrix SRAM prefetch and the array (M_MV, write-outs).
BASELINES = ("relu", "rms_norm", "gemv")
SEEDS = range(6)
LOCKSTEP_SEEDS = range(100, 102)
LENGTH = 20


def test_baselines_identical_on_icarus(diff_cfg):
    from kernelcraft.tasks import get_task
    accel = get_accel("plena")
    cells = []
    for name in BASELINES:
        task = get_task(name)
        program = accel.assemble(accel.baseline(name, "C1", diff_cfg),
                                 source_name=f"{name}_C1.asm", config=diff_cfg)
        cells.append((name, program, build_image(accel.layout(task, "C1", diff_cfg),
                                                 task.generate("C1", 0))))
    rtl = PlenaRTL("icarus").run_many([Job(p, img) for _, p, img in cells], diff_cfg)
    for (name, program, image), r in zip(cells, rtl):
        m = PlenaModel().run(program, image, diff_cfg)
        assert m.error is None and r.error is None, f"{name}: {m.error or r.error}"
        diffs = compare_runs(m, r)
        assert not diffs, f"{name} C1 on Icarus: " + "; ".join(d.format() for d in diffs)
        assert r.cycles == m.cycles and r.retired == m.retired
        assert r.memories["hbm"].tobytes() == m.memories["hbm"].tobytes()


# One test per seed (each its own simulator process, the build shared through the cache and
# its lock), so that `-n auto --dist worksteal` spreads them over the workers: the six
# programs together took 324-576 s of the fresh-clone suite as one test (rtl/plena/README.md,
# "Simulators"). Seed 5 (854 cycles) is the longest, about 23 CPU s.
@pytest.mark.parametrize("seed", SEEDS)
def test_random_programs_agree_on_icarus(diff_cfg, seed):
    programs = ProgramGenerator(diff_cfg).programs([seed], LENGTH)
    rtl = PlenaRTL("icarus").run_many([Job(p, img) for _, p, img in programs], diff_cfg)
    for (seed, program, image), r in zip(programs, rtl):
        m = PlenaModel().run(program, image, diff_cfg)
        assert m.error is None, f"seed {seed}: the generator made an invalid program: {m.error}"
        diffs = compare_runs(m, r)
        assert not diffs, f"seed {seed} on Icarus: " + "; ".join(d.format() for d in diffs)


@pytest.mark.parametrize("seed", LOCKSTEP_SEEDS)
def test_lockstep_traces_on_icarus(diff_cfg, seed):
    programs = ProgramGenerator(diff_cfg).programs([seed], LENGTH)
    rtl = PlenaRTL("icarus").run_many([Job(p, img, trace=True) for _, p, img in programs],
                                      diff_cfg)
    for (seed, program, image), r in zip(programs, rtl):
        m = PlenaModel().run(program, image, diff_cfg, trace=True)
        assert len(r.trace) == r.retired > 0
        d = compare_traces(m.trace, r.trace)
        assert d is None, f"seed {seed} on Icarus: {d.format()}"


def test_rtl_check_cli_on_icarus(capsys):
    hw = [a for k, v in DIFF_CONFIG.items() for a in ("--hw", f"{k}={v}")]
    assert main(["rtl-check", "--accel", "plena", "--sim", "icarus", "--task", "relu",
                 "--config", "C1", *hw]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PASS  plena relu C1 (baseline): backends agree, kernel correct\n")
    assert "  backends: 288 cycles on both" in out


def test_icarus_builds_are_cached_apart(diff_cfg):
    first = rtl_build.build(diff_cfg, "icarus")
    again = rtl_build.build(diff_cfg, "icarus")
    assert again.cached and again.directory == first.directory
    assert first.directory.name.startswith("icarus-")
    # Icarus gets the Verilog HBM model and no Verilator control file or C++.
    spec = rtl_build.spec(diff_cfg, "icarus")
    assert "PLENA_HBM_VERILOG" in spec.defines and not spec.build_args
    assert all(s.suffix == ".v" for s in spec.sources)
    assert spec.key("icarus", toolchain.find_icarus()) != \
        rtl_build.spec(diff_cfg).key("icarus", toolchain.find_icarus())


def test_missing_icarus_names_what_to_install(diff_cfg, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))          # no iverilog, no vvp
    toolchain.find_icarus.cache_clear()
    try:
        program = assemble("S_ADDI_INT gp1, gp0, 1", "one.asm", diff_cfg)
        with pytest.raises(toolchain.ToolchainError) as e:
            PlenaRTL("icarus").run(program, ProgramGenerator(diff_cfg).generate(0, 1)[1],
                                   diff_cfg)
    finally:
        toolchain.find_icarus.cache_clear()
    msg = str(e.value)
    assert "iverilog" in msg and "scripts/install-system-deps.sh" in msg


def test_unknown_simulator_is_refused():
    with pytest.raises(ConfigError, match="choose one of verilator, icarus"):
        PlenaRTL("xcelium")
