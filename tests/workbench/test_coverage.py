"""Baseline coverage comes from the registry: the tasks table, its JSON and the README."""
import json

from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import NAMES, get_accel
from kernelcraft.workbench.cli import main
from kernelcraft.workbench.coverage import baseline_cells, main as coverage_main


def test_readme_coverage_table_is_current():
    assert coverage_main(["--check"]) == 0, "run `python -m kernelcraft.workbench.coverage`"


def test_cells_follow_templates_and_their_checks():
    cells = baseline_cells("plena")
    plena = get_accel("plena")
    for task, configs in cells.items():
        if task in plena.baseline_templates():
            assert configs, task
        else:
            assert configs == [], task
    # a hardware configuration a template refuses leaves the cell out
    hw = plena.default_config(VSRAM_ROWS=64)
    tpl = plena.baseline_templates()["ffn"]
    assert "Vector SRAM" in tpl.fits(get_task("ffn"), "C5", hw)


def test_tasks_json_names_configurations_per_accelerator(capsys):
    assert main(["tasks", "--json", "--level", "2"]) == 0
    rows = json.loads(capsys.readouterr().out)
    for r in rows:
        assert set(r["baselines"]) == set(NAMES)
        for configs in r["baselines"].values():
            assert set(configs) <= set(r["configs"] + r["held_out"])
    assert {r["task"] for r in rows if r["baselines"]["plena"]} >= {"ffn", "rope", "flash_attention"}
