"""`kernelcraft suite` on Levels 2 and 3: the cells come from the registry, baselines run,
and a cell whose template does not fit the hardware shows why instead of stopping."""
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.cli import main
from kernelcraft.workbench.suite import evaluate_cells, suite_cells


def test_level_2_and_3_cells_come_from_the_registry():
    for level, task in ((2, "ffn"), (3, "conv_block")):
        cells = suite_cells("plena", level)
        assert (task, "C1") in cells and (task, "H1") in cells


def test_a_cell_that_does_not_fit_is_reported_not_raised():
    hw = get_accel("plena").default_config(VSRAM_ROWS=64)
    ((task, config, ev, note),) = evaluate_cells("plena", [("ffn", "C5")], hw, n_seeds=1)
    assert ev is None and note.startswith("no baseline: ffn template on C5") and "VSRAM_ROWS=64" in note


def test_suite_level_2_runs_a_baseline(capsys):
    assert main(["suite", "--accel", "plena", "--level", "2", "--tasks", "rope", "--configs", "C1",
                 "--seeds", "1"]) == 0
    assert "1/1 cells passed" in capsys.readouterr().out


def test_suite_level_all_runs_every_level_and_reports_cpu_seconds(capsys):
    assert main(["suite", "--accel", "plena", "--level", "all", "--tasks", "relu,rope", "--configs", "C1",
                 "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert "2/2 cells passed" in out and "CPU time" in out and "slowest cell" in out and "cpu s" in out


def test_a_failed_cell_says_why_under_the_table(tmp_path, capsys):
    (tmp_path / "relu_C1.asm").write_text("")        # writes nothing: every output wrong
    assert main(["suite", "--accel", "plena", "--tasks", "relu", "--configs", "C1", "--seeds", "1",
                 "--kernels", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "0/1 cells passed" in out
    assert "relu C1: FAIL: 0.00% of output elements within tolerance" in out
    assert "  seed " in out and "max abs err" in out
