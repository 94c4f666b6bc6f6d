"""The kernelcraft CLI: every command has help and works end to end."""
import json
import subprocess
import sys

import pytest

from kernelcraft.workbench.cli import build_parser, main


def run(*args):
    return subprocess.run([sys.executable, "-m", "kernelcraft.workbench.cli", *args],
                          capture_output=True, text=True, timeout=300)


def test_every_command_has_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "cmd")
    for name, sp in sub.choices.items():
        assert sub._name_parser_map[name].format_help()
        assert any(a.help for a in sub._choices_actions if a.dest == name), name


def test_python_dash_m_kernelcraft_is_the_cli():
    """`python -m kernelcraft` runs the same CLI as the installed script: exit status
    and output, and a bad argument's exit status too."""
    ok = subprocess.run([sys.executable, "-m", "kernelcraft", "tasks", "--json"],
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert len(json.loads(ok.stdout)) == 23
    bad = subprocess.run([sys.executable, "-m", "kernelcraft", "isa", "no_such"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "unknown accelerator 'no_such'" in bad.stderr


def test_tasks_json_lists_all_levels(capsys):
    assert main(["tasks", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["level"] for r in rows} == {1, 2, 3} and len(rows) == 23


def test_isa_manual_and_baseline(capsys):
    assert main(["isa", "plena"]) == 0
    assert "M_MM" in capsys.readouterr().out
    assert main(["baseline", "--accel", "plena", "--task", "relu", "--config", "C1"]) == 0
    assert "V_MAX_VF" in capsys.readouterr().out


def test_eval_human_and_json(tmp_path, capsys):
    main(["baseline", "--accel", "plena", "--task", "relu", "--config", "C1"])
    k = tmp_path / "k.asm"
    k.write_text(capsys.readouterr().out)
    assert main(["eval", "--accel", "plena", "--task", "relu", "--config", "C1", str(k), "--seeds", "1"]) == 0
    assert "PASS" in capsys.readouterr().out
    assert main(["eval", "--accel", "plena", "--task", "relu", "--config", "C1", str(k), "--seeds", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] is True


def test_exec_dump_by_constant_and_regs(tmp_path):
    prog = tmp_path / "p.asm"
    prog.write_text(".equ OUT, 128\nS_ADDI_INT gp1, gp0, 5\nS_EXP_FP f1, f0\n"
                    "S_ADDI_INT gp2, gp0, 0\nV_ADD_VF gp2, gp2, f1, 0\n"
                    "S_ADDI_INT gp3, gp0, OUT\nC_SET_ADDR_REG a0, gp0, gp3\nH_STORE_V gp2, gp0, a0, 0, 0\n")
    r = run("exec", "--accel", "plena", str(prog), "--dump", "hbm:OUT:4", "--regs", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["dumps"]["hbm:OUT:4"] == [1.0, 1.0, 1.0, 1.0]
    assert out["registers"]["gp"][1] == 5
    r = run("exec", "--accel", "plena", str(prog), "--dump", "hbm:NOPE:4")
    assert r.returncode != 0 and "NOPE" in r.stderr


def test_exec_loads_memory_image(tmp_path):
    import numpy as np
    np.save(tmp_path / "x.npy", np.array([1.5, -2.0, 3.25, 4.0], dtype=np.float32))
    prog = tmp_path / "p.asm"
    prog.write_text("H_PREFETCH_V gp0, gp0, a0, 0, 0\nS_ADDI_INT gp1, gp0, 64\n"
                    "C_SET_ADDR_REG a1, gp0, gp1\nH_STORE_V gp0, gp0, a1, 0, 0\n")
    r = run("exec", "--accel", "plena", str(prog), "--load", f"hbm:0:{tmp_path / 'x.npy'}",
            "--dump", "hbm:64:4", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["dumps"]["hbm:64:4"] == [1.5, -2.0, 3.25, 4.0]


def test_exec_reports_runtime_error_with_location(tmp_path):
    prog = tmp_path / "p.asm"
    prog.write_text("S_ADDI_INT gp1, gp0, 3\nV_EXP_V gp1, gp1, 0\n")
    r = run("exec", "--accel", "plena", str(prog))
    assert r.returncode == 1 and "line 2" in r.stdout


def test_bad_arguments_are_clear():
    r = run("eval", "--accel", "plena", "--task", "relu", "--config", "C1", "/nonexistent.asm")
    assert r.returncode != 0 and "not found" in r.stderr
    r = run("baseline", "--accel", "nope", "--task", "relu", "--config", "C1")
    assert r.returncode == 2 and "unknown accelerator" in r.stderr
    r = run("isa", "plena", "--hw", "MLEN=63")
    assert r.returncode == 2 and "power of two" in r.stderr


def test_a_reader_closing_the_pipe_early_ends_quietly():
    # Found by fuzzing: `kernelcraft isa plena | head` ended with a BrokenPipeError
    # traceback and status 1. The manual (76 KB) is larger than a pipe's buffer.
    p = subprocess.Popen([sys.executable, "-m", "kernelcraft.workbench.cli", "isa", "plena"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.readline().startswith(b"<!--")
    p.stdout.close()
    assert p.wait(timeout=60) == 0
    assert p.stderr.read() == b""


def test_tables_in_a_pipe_cut_no_identifier():
    # Found by fuzzing: piped, the tasks table cut names at 80 columns (decoder_b...).
    out = run("tasks").stdout.splitlines()
    assert out[0].split("\t")[:3] == ["task", "level", "budget"]
    rows = {line.split("\t")[0]: line.split("\t") for line in out[1:]}
    assert "decoder_block_llama" in rows and len(rows) == 23
    assert all(len(r) == len(out[0].split("\t")) for r in rows.values())


def test_ctrl_c_in_any_command_ends_without_a_traceback(tmp_path):
    import signal
    import time
    p = subprocess.Popen([sys.executable, "-m", "kernelcraft.workbench.cli", "suite", "--accel", "plena",
                          "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=tmp_path)
    time.sleep(4)                                       # inside the suite's evaluations
    assert p.poll() is None
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "Traceback" not in err, err
    assert "kernelcraft: suite interrupted" in err
