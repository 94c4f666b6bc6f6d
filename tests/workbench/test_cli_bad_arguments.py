"""Every subcommand with a catalogue of bad arguments (issue 16): each is refused before
any work with a message naming the option or the bad value, and never with a
traceback. A new subcommand must add its cases here (the coverage check fails)."""
import contextlib
import io
import shlex

import pytest

from kernelcraft.workbench.cli import build_parser, main

# (command line, words the error must contain); {d} is a scratch folder holding k.asm
# (a plena kernel), latin1.asm (not UTF-8), notdb.db (not SQLite) and adir/.
CATALOGUE = [
    ("tasks --level 4", "argument --level: invalid choice: 4"),
    ("isa nope", "unknown accelerator 'nope'"),
    ("isa plena --hw X", "--hw expects NAME=VALUE, got 'X'"),
    ("isa plena --hw MLEN=abc", "--hw MLEN=abc: value must be an integer"),
    ("isa plena --hw MLEN=-1", "--hw MLEN=-1: plena parameter MLEN must be a positive integer"),
    ("isa plena --hw HBM_SIZE=1099511627776", "1 GiB"),
    ("isa plena --out /nonexistent/x.md", "--out /nonexistent/x.md: cannot write it"),
    ("isa plena --out {d}/adir", "--out {d}/adir: cannot write it (Is a directory)"),
    ("baseline --accel nope --task relu --config C1", "unknown accelerator 'nope'"),
    ("baseline --accel plena --task relu --config C99", "C99"),
    ("baseline --accel plena --task relu --config C1 --param depth=abc", "parameter depth takes int values"),
    ("baseline --accel plena --task relu --config C1 --param depth=0", "depth must be at least 1"),
    ("baseline --accel plena --task relu --config C1 --param nope=1", "no parameter(s) ['nope']"),
    ("eval --accel plena --task relu --config C1 {d}/adir", "kernel file not found: {d}/adir"),
    ("eval --accel plena --task relu --config C1 {d}/latin1.asm", "not UTF-8 text (byte 0xe9"),
    ("eval --accel plena --task relu --config C1 {d}/k.asm --seeds a,b", "argument --seeds: seeds are integers"),
    ("eval --accel plena --task relu --config C1 {d}/k.asm --seeds -1", "got '-1'"),
    ("eval --accel plena --task relu --config C1 {d}/k.asm --n-seeds 0", "argument --n-seeds: must be an integer from 1"),
    ("eval --accel plena --task nope --config C1 {d}/k.asm", "no task 'nope'"),
    ("suite --accel nope", "unknown accelerator 'nope'"),
    ("suite --accel plena --tasks nope", "no plena level-1 cells match"),
    ("suite --accel plena --seeds 0", "argument --seeds: must be an integer from 1"),
    ("suite --accel plena --kernels /nonexistent", "--kernels /nonexistent: no such folder"),
    ("exec --accel nope {d}/k.asm", "unknown accelerator 'nope'"),
    ("exec --accel plena {d}/nope.asm", "kernel file not found"),
    ("exec --accel plena {d}/k.asm --dump garbage", "--dump 'garbage': expected MEM:ADDR:LEN"),
    ("exec --accel plena {d}/k.asm --dump hbm:0:-1", "range 0..-1 is outside hbm"),
    ("exec --accel plena {d}/k.asm --set nope:0=1", "--set: unknown memory 'nope'"),
    ("exec --accel plena {d}/k.asm --set int_mem:0=nan", "does not fit int32 memory"),
    ("exec --accel plena {d}/k.asm --save hbm:0:1", "--save 'hbm:0': expected MEM:ADDR:LEN:FILE.npy"),
    ("exec --accel plena {d}/k.asm --timeout nan", "argument --timeout: must be a number of seconds above 0"),
    ("exec --accel plena {d}/k.asm --max-instructions 0", "argument --max-instructions: must be an integer"),
    ("bench nope", "argument what: invalid choice: 'nope'"),
    ("bench model --nonsense", "unrecognized arguments: --nonsense"),
    ("run --accel nope --task relu --config C1", "unknown accelerator 'nope'"),
    ("run --accel plena --task relu --config C99", "no configuration 'C99'"),
    ("run --accel plena --task relu --config H1", "H1 is a held-out configuration"),
    ("run --accel plena --task relu --config C1 --budget 0", "argument --budget: must be an integer from 1"),
    ("run --accel plena --task relu --config C1 --seeds -2", "argument --seeds"),
    ("run --accel plena --task relu --config C1 --timeout nan --model openai/x", "argument --timeout"),
    ("run --accel plena --task relu --config C1 --retries -1 --model openai/x", "argument --retries"),
    ("run --accel plena --task relu --config C1 --model nope", "argument --model: must be provider/model"),
    ("run --accel plena --task relu --config C1 --hw MLEN=3", "must be a power of two"),
    ("run --accel plena --task relu --config C1 --traces /nonexistent/dir/x.db", "folder /nonexistent/dir does not exist"),
    ("run --accel plena --task relu --config C1 --traces {d}/adir", "is a folder, not a trace store file"),
    ("run --accel plena --task relu --config C1 --traces {d}/notdb.db", "not an SQLite database"),
    ("runs --traces {d}/notdb.db", "not an SQLite database"),
    ("runs --limit -1 --traces {d}/t.db", "argument --limit: must be an integer of at least 0"),
    ("runs --order nope --traces {d}/t.db", "cannot order runs by 'nope'"),
    ("show 999 --traces {d}/t.db", "no run 999"),
    ("show x --traces {d}/t.db", "argument run: invalid int value: 'x'"),
    ("show 1 --traces /nonexistent/x.db", "no trace store here"),
    ("replay 999 --traces {d}/t.db", "no run 999"),
    ("export 999 --traces {d}/t.db", "no run 999"),
    ("export 1 --out /nonexistent/x --traces {d}/t.db", "--out /nonexistent/x: cannot write it"),
    ("demo --pace -1", "argument --pace: must be a number of seconds from 0"),
    ("demo --budget 0", "argument --budget: must be an integer from 1"),
    ("tui --poll nan --run 1", "argument --poll"),
    ("tui --max-steps -1 --run 1", "argument --max-steps"),
    ("tui --keymap /nonexistent --run 1", "keymap /nonexistent: cannot read it"),
    ("rtl-check --accel nope", "unknown accelerator 'nope'"),
    ("rtl-check --accel coral --task silu --config C1 {d}/short.s",
     "{d}/short.s:2:15: error: vadd.vv takes 3 to 4 operands, got 2"),
    ("rtl-check --accel plena --task relu --config C1 --seed -1", "argument --seed"),
    ("rtl-check --accel plena --task relu --config C1 --max-cycles 0", "argument --max-cycles"),
    ("rtl-check --accel plena --task relu --config C1 --timeout 0", "argument --timeout"),
    ("rtl-check --accel plena --task relu --config C1 {d}/latin1.asm", "not UTF-8 text"),
    ("rtl-check --accel plena --task relu --config C1 --keep {d}/k.asm", "--keep {d}/k.asm: exists and is not a directory"),
    # commands other branches add (skipped where they do not exist yet)
    ("sweep --level 4", "argument --level: invalid choice: 4"),
    ("debug --accel plena --task relu --config C1", "the following arguments are required: kernel"),
    ("sweep --accel plena --task relu --jobs 0", "argument --jobs: must be an integer from 1 to 256"),
    ("sweep --accel plena --task relu --reps -1", "argument --reps: must be an integer from 1"),
    ("report --level 4", "argument --level: invalid choice: 4"),
]


def _commands() -> set:
    return set(next(a for a in build_parser()._actions if a.dest == "cmd").choices)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "k.asm").write_text("S_ADDI_INT gp1, gp0, 1\n")
    (d / "latin1.asm").write_bytes(b"NOP ; caf\xe9\n")
    # the coral RTL runs every instruction now (its refusal is tested with one taken out,
    # tests/rtl/coral/test_rtlcheck.py): a kernel that does not assemble is refused before a build
    (d / "short.s").write_text("vsetvli t0, zero, e32, m1, ta, ma\nvadd.vv v2, v4\nebreak\n")
    (d / "notdb.db").write_text("junk\n")
    (d / "adir").mkdir()
    from kernelcraft.workbench.store import TraceStore
    with TraceStore(d / "t.db") as s:                 # an empty store
        s.start_run("plena", "relu", "C1", agent="autotune")
    return d


def test_the_catalogue_covers_every_subcommand():
    assert _commands() <= {line.split()[0] for line, _ in CATALOGUE}


@pytest.mark.parametrize("line,words", CATALOGUE, ids=[c[0][:60] for c in CATALOGUE])
def test_bad_arguments_are_refused_with_a_clear_message(scratch, monkeypatch, line, words):
    if line.split()[0] not in _commands():
        pytest.skip(f"no `{line.split()[0]}` command in this tree")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(scratch)
    argv = shlex.split(line.replace("{d}", str(scratch)))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:                   # any exception but SystemExit fails the test: a traceback
            code = main(argv)
        except SystemExit as e:
            code = e.code
            if isinstance(code, str):         # SystemExit("message") prints it, status 1
                err.write(code)
                code = 1
    text = err.getvalue() + out.getvalue()
    assert code not in (0, None), text
    assert words.replace("{d}", str(scratch)) in text, text
    assert "Traceback" not in text and "internal error" not in text
    assert code != 3


def test_an_internal_error_is_one_line_and_its_traceback_on_request(monkeypatch, capsys):
    import kernelcraft.workbench.cli as cli

    def broken(args):
        raise RuntimeError("a bug")
    parser = cli.build_parser

    def patched():
        p = parser()
        sub = next(a for a in p._actions if a.dest == "cmd")
        sub.choices["tasks"].set_defaults(func=broken)
        return p
    monkeypatch.setattr(cli, "build_parser", patched)
    monkeypatch.delenv(cli.DEBUG_VAR, raising=False)
    assert cli.main(["tasks"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("kernelcraft: internal error in `tasks`: RuntimeError: a bug\n")
    assert "Traceback" not in err and cli.DEBUG_VAR in err
    monkeypatch.setenv(cli.DEBUG_VAR, "1")
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(["tasks"])
