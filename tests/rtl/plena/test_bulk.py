"""Bulk mode (simulators/rtl/bulk.py: the harness driven from C++, no cocotb) gives the
same results as the cocotb run and the functional model, on the small shared
configuration: random programs (end state and traces), baselines, and the wall-clock
stop, which bulk mode's driver raises itself."""
import pytest

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.rtl.divergence import runs_differences
from kernelcraft.simulators.core.errors import ConfigError, TimeLimitExceeded
from kernelcraft.simulators.plena.assembler import assemble
from kernelcraft.simulators.plena_rtl.backend import Job, PlenaRTL
from kernelcraft.simulators.plena_rtl.bench import SCALAR_LOOP
from kernelcraft.simulators.plena_rtl.compare import compare_runs, compare_traces
from kernelcraft.simulators.plena_rtl.randprog import ProgramGenerator
from kernelcraft.workbench.rtlcheck import check_baselines

SEEDS = range(2000, 2030)
BASELINES = ["silu", "softmax", "layer_norm", "gemv", "depthwise_conv"]


@pytest.fixture(scope="module")
def jobs(diff_cfg):
    gen = ProgramGenerator(diff_cfg)
    out = []
    for seed in SEEDS:
        src, img = gen.generate(seed, 60)
        # every third job traced: the trace file is the harness's too
        out.append(Job(assemble(src, f"random-{seed}.asm", diff_cfg), img, trace=seed % 3 == 0))
    return out


def test_bulk_and_cocotb_runs_are_identical(diff_cfg, jobs):
    cocotb = PlenaRTL().run_many(jobs, diff_cfg)
    bulk_rtl = PlenaRTL(bulk=True)
    bulk = bulk_rtl.run_many(jobs, diff_cfg)
    assert bulk_rtl.last_build.flavour == "bulk"
    diffs = runs_differences(jobs, cocotb, bulk, compare_runs, compare_traces)
    assert not diffs, "\n".join(diffs)


def test_bulk_runs_baselines_like_the_model(diff_cfg):
    results = check_baselines("plena", diff_cfg, tasks=BASELINES, configs=["C1"],
                              rtl=PlenaRTL(bulk=True))
    assert [r.task for r in results] == BASELINES
    failed = [r.format() for r in results if not r.passed]
    assert not failed, "\n\n".join(failed)


def test_bulk_stops_at_the_wall_clock_limit(diff_cfg):
    program = assemble(SCALAR_LOOP.format(n=4_000_000), "loop.asm", diff_cfg)
    r = PlenaRTL(bulk=True).run(program, MemoryImage(), diff_cfg,
                                Budget(max_instructions=10**12, wall_seconds=0.5))
    assert isinstance(r.error, TimeLimitExceeded), r.error
    assert 0 < r.retired < 4 * 4_000_000


def test_bulk_needs_verilator(diff_cfg):
    program = assemble("S_ADDI_INT gp1, gp0, 1", "one.asm", diff_cfg)
    with pytest.raises(ConfigError, match="bulk mode .* verilator"):
        PlenaRTL("icarus", bulk=True).run(program, MemoryImage(), diff_cfg)


def test_exec_runs_in_bulk_mode(diff_cfg, tmp_path, capsys):
    from kernelcraft.workbench.cli import main
    path = tmp_path / "two.asm"
    path.write_text("S_ADDI_INT gp1, gp0, 5\nS_ADDI_INT gp2, gp1, 7\n")
    hw = [a for k, v in diff_cfg.as_dict().items() for a in ("--hw", f"{k}={v}")]
    assert main(["exec", "--accel", "plena", str(path), "--rtl", "--bulk", "--regs", *hw]) == 0
    out = capsys.readouterr().out
    assert "backend: plena-rtl" in out and "gp: [0, 5, 12, 0" in out
    assert main(["exec", "--accel", "plena", str(path), "--bulk"]) != 0
    assert "--bulk is a mode of the RTL run; add --rtl" in capsys.readouterr().err


def test_rtl_check_reports_an_rtl_run_cut_by_its_time_limit_as_unfinished(diff_cfg):
    # Cut short on a loaded machine, an RTL run used to read "backends DISAGREE, kernel
    # INCORRECT", which says the hardware is wrong when it only had no time. The model's
    # run (0.6 M cycles) gets all the time it needs; the RTL's 0.3 s is a third of what
    # it would need at 1 M cycles/s.
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.rtlcheck import run_both
    program = assemble("C_LOOP_START gp1, 300000\n  S_ADDI_INT gp2, gp2, 1\nC_LOOP_END gp1\n",
                       "loop.asm", diff_cfg)
    model = get_accel("plena").backend().run(program, MemoryImage(), diff_cfg,
                                             Budget(max_instructions=10**9))
    assert model.error is None
    (res, _, _), = run_both("plena", "relu", "C1", "loop.asm", program, [MemoryImage()],
                            hw=diff_cfg, budget=Budget(max_instructions=10**9, wall_seconds=0.3),
                            rtl=PlenaRTL(bulk=True), model_runs=[model])
    assert res.unfinished and "wall-clock limit of 0.3 s" in res.unfinished
    assert not res.passed and 0 < res.cycles_rtl < res.cycles_model
    text = res.format()
    assert "RTL did NOT FINISH" in text and "raise --timeout" in text
    assert "DISAGREE" not in text and "INCORRECT" not in text
