"""The grid from flags and from a sweep file: cells, ids, and clear errors for bad
input before anything runs."""
from __future__ import annotations

import pytest

from kernelcraft.workbench.cli import build_parser, main
from kernelcraft.workbench.sweep.grid import build, provider


def test_flags_make_the_cells_and_a_stable_id():
    grid, file_id = build(models="autotune,scripted/baseline", accels="plena,aie",
                          tasks="relu,gemv", configs="C1,C2", reps=2)
    cells = grid.cells()
    assert len(cells) == 2 * 2 * 2 * 2 * 2 and file_id is None
    assert cells[0]["key"] == "autotune|plena|relu|C1|r0"
    assert grid.default_id() == build(models="autotune,scripted/baseline", accels="plena,aie",
                                      tasks="relu,gemv", configs="C1,C2", reps=2)[0].default_id()
    assert grid.default_id() != build(models="autotune", accels="plena,aie", tasks="relu,gemv",
                                      configs="C1,C2", reps=2)[0].default_id()
    default = build(models="autotune", accels="plena", tasks="relu")[0]
    assert [c["config"] for c in default.cells()] == ["C1", "C2", "C3", "C4", "C5"]


def test_a_sweep_file_with_flags_over_it(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[sweep]\nid = "mine"\nmodels = ["autotune"]\naccelerators = ["aie"]\n'
                 'level = 1\nconfigs = ["C1"]\nbudget = 4\n')
    grid, file_id = build(file=str(f), accels="plena")
    assert file_id == "mine" and grid.accels == ["plena"] and grid.budget == 4
    assert len(grid.tasks) == 12 and len(grid.cells()) == 12


@pytest.mark.parametrize("kw, message", [
    (dict(models="autotune", accels="tpu", tasks="relu"), "unknown accelerator(s) tpu"),
    (dict(models="autotune", accels="plena", tasks="relux"), "no task 'relux'"),
    (dict(models="autotune", accels="plena", tasks="relu", configs="C9"),
     "task relu has no visible configuration C9"),
    (dict(models="autotune", accels="plena", tasks="relu", configs="H1"),
     "no visible configuration H1"),
    (dict(models="gpt-5", accels="plena", tasks="relu"), "model 'gpt-5'"),
    (dict(models="scripted/nope", accels="plena", tasks="relu"), "scripted/baseline"),
    (dict(models="autotune", accels="plena", tasks="relu", reps=0), "at least 1"),
    (dict(accels="plena", tasks="relu"), "no models given (the command line)"),
])
def test_bad_grids_are_refused_by_name(kw, message):
    with pytest.raises((ValueError, KeyError), match=message.replace("(", r"\(").replace(")", r"\)")):
        build(**kw)


def test_bad_sweep_files_name_the_file(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text("[sweep]\nmodel = ['autotune']\n")
    with pytest.raises(ValueError, match=r"sweep file .*s.toml: unknown key\(s\) model"):
        build(file=str(f))
    f.write_text("[sweep\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        build(file=str(f))
    with pytest.raises(ValueError, match="cannot read it"):
        build(file=str(tmp_path / "missing.toml"))


def test_cli_errors_and_help(tmp_path, capsys):
    assert main(["sweep", "--models", "autotune", "--accels", "plena", "--tasks", "nope",
                 "--traces", str(tmp_path / "t.db")]) == 2
    assert "no task 'nope'" in capsys.readouterr().err
    assert not (tmp_path / "t.db").exists()           # nothing recorded for a bad grid
    for cmd in ("sweep", "report"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([cmd, "--help"])
    text = capsys.readouterr().out
    assert "--ray" in text and "--max-cost" in text and "--sweep" in text and "--format" in text


def test_providers():
    assert provider("autotune") == "offline" and provider("scripted/baseline") == "offline"
    assert provider("openai/gpt-5.2") == "openai"
    assert provider("anthropic/claude-sonnet-4-5") == "anthropic"
