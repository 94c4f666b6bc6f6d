"""`kernelcraft exec` with bad arguments (finding 6 of issue 16): every case is refused
before the run with the option, the bad value and what is allowed; nothing is stored
silently as something else."""
import numpy as np
import pytest

from kernelcraft.workbench.cli import main

PLENA = "S_ADDI_INT gp1, gp0, 1\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "k.asm").write_text(PLENA)
    (tmp_path / "c.asm").write_text("NOP\n")
    (tmp_path / "latin1.asm").write_bytes(b"NOP ; caf\xe9\n")
    (tmp_path / "bad.npy").write_text("not an array")
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object))
    np.save(tmp_path / "str.npy", np.array(["a", "b"]))
    (tmp_path / "dir.npy").mkdir()
    return tmp_path


def refused(capsys, *argv) -> str:
    rc = main(list(argv))
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith("kernelcraft: error: ") and "Traceback" not in err
    return err


@pytest.mark.parametrize("extra,words", [
    (["--save", "int_mem:0:4:/nonexistent/x.npy"], ["--save", "folder /nonexistent does not exist"]),
    (["--save", "int_mem:0:4:{d}/dir.npy"], ["--save", "is a folder"]),
    (["--save", "int_mem:0:4:/proc/version"], ["--save", "must end in .npy", "/proc/version"]),
    (["--save", "int_mem:0:999:{d}/o.npy"], ["--save", "0..999", "int_mem (size 256)"]),
    (["--hw", "HBM_SIZE=1099511627776"], ["--hw HBM_SIZE=1099511627776", "1 GiB", "HBM_SIZE"]),
    (["--set", "int_mem:0=nan"], ["--set int_mem:0=nan", "nan", "-2147483648 to 2147483647"]),
    (["--set", "int_mem:0=inf"], ["--set int_mem:0=inf", "inf", "whole numbers"]),
    (["--set", "int_mem:0=1e400"], ["--set int_mem:0=1e400", "beyond the range of a float"]),
    (["--set", "int_mem:0=2.5"], ["2.5", "int32"]),
    (["--set", "int_mem:0=2147483648"], ["2147483648", "-2147483648 to 2147483647"]),
    (["--set", "hbm:0=1e39"], ["bf16", "3.39e+38"]),
    (["--set", "int_mem:0=1,x"], ["--set int_mem:0=1,x", "'x' is not a number"]),
    (["--set", "int_mem:254=1,2,3"], ["3 elements at 254 do not fit int_mem", "0..255"]),
    (["--load", "int_mem:0:{d}/bad.npy"], ["--load", "bad.npy", "not a readable .npy"]),
    (["--load", "int_mem:0:{d}/obj.npy"], ["--load", "obj.npy", "not a readable .npy"]),
    (["--load", "int_mem:0:{d}/str.npy"], ["--load", "str.npy", "<U1 values"]),
    (["--load", "int_mem:0:{d}/latin1.asm"], ["--load", "latin1.asm", "not UTF-8"]),
])
def test_plena_exec_refuses_bad_options(files, capsys, extra, words):
    err = refused(capsys, "exec", "--accel", "plena", str(files / "k.asm"),
                  *[e.replace("{d}", str(files)) for e in extra])
    for w in words:
        assert w in err, err


def test_lossy_conversions_in_byte_addressed_memory(files, capsys):
    c = str(files / "c.asm")
    err = refused(capsys, "exec", "--accel", "coral", c, "--as", "u8", "--set", "dtcm:0x10000=300")
    assert "300.0" in err and "u8 memory" in err and "0 to 255" in err
    err = refused(capsys, "exec", "--accel", "coral", c, "--as", "i16", "--set", "dtcm:0x10000=-40000")
    assert "-32768 to 32767" in err
    assert main(["exec", "--accel", "coral", c, "--as", "u8", "--set", "dtcm:0x10000=255,0x7f",
                 "--dump", "dtcm:0x10000:2", "--json"]) == 0
    assert '"dtcm:0x10000:2": [\n      255,\n      127\n    ]' in capsys.readouterr().out


def test_absurd_memory_sizes_are_refused_before_allocating(files, capsys):
    err = refused(capsys, "exec", "--accel", "aie", str(files / "c.asm"), "--hw", f"DM_SIZE={2 ** 62}")
    assert "memory dm would take" in err and "make DM_SIZE smaller" in err


def test_a_kernel_that_is_not_utf8_is_named(files, capsys):
    with pytest.raises(SystemExit) as e:
        main(["exec", "--accel", "plena", str(files / "latin1.asm")])
    assert str(e.value) == (f"kernel file {files / 'latin1.asm'}: not UTF-8 text (byte 0xe9 at "
                            f"offset 9); save it as UTF-8")
