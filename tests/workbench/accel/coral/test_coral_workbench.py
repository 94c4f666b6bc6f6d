"""coral in the workbench: the registry entry, DTCM layouts of every task, stray
writes, the roofline bound, the agent tools and `kernelcraft exec` on plain programs."""
import json
import subprocess
import sys

import numpy as np
import pytest

from kernelcraft.tasks import all_tasks, get_task
from kernelcraft.workbench import tools
from kernelcraft.workbench.accel import NAMES, get_accel
from kernelcraft.workbench.evaluation import evaluate

ACCEL = get_accel("coral")
HW = ACCEL.default_config()


def test_registered():
    assert "coral" in NAMES and ACCEL.name == "coral"
    assert ACCEL.imem_limit(HW) == HW.ITCM_SIZE // 4 and ACCEL.checked_memories == ("dtcm",)


@pytest.mark.parametrize("task", [t.name for t in all_tasks()])
def test_every_task_fits_dtcm_with_aligned_disjoint_regions(task):
    t = get_task(task)
    for config in t.configs:
        lay = ACCEL.layout(t, config, HW)
        assert lay.bases == {"dtcm": HW.DTCM_BASE}
        regions = sorted(lay.regions, key=lambda r: r.address)
        assert regions[0].name == "program_data" and regions[0].address == HW.DTCM_BASE
        assert regions[-1].name == "stack" and regions[-1].address + 4 * regions[-1].size == \
            HW.DTCM_BASE + HW.DTCM_SIZE
        for a, b in zip(regions, regions[1:]):
            assert a.address + 4 * a.reserved <= b.address, (task, config, a.name, b.name)
        for r in regions[1:-1]:
            assert r.address % 64 == 0 and r.dtype == "fp32"
        for c in lay.constants:
            assert HW.DTCM_BASE + HW.DATA_SIZE <= c.address < regions[1].address


def test_layout_is_described_with_byte_addresses_and_constants():
    text = tools.task_statement("coral", "softmax", "C1")
    assert "byte addresses in DTCM" in text and "neg_max" in text and "0x" in text


def _kernel(body: str, task="relu", config="C1"):
    lay = ACCEL.layout(get_task(task), config, HW)
    x, y = lay.region("x"), lay.region("y")
    n = x.size
    return body.format(x=x.address, y=y.address, n=n, after=y.address + 4 * n + 8)


def test_stray_writes_are_reported_with_byte_addresses():
    copy = """
        li a0, {x}
        li a1, {y}
        li a2, {n}
    1:  vsetvli t0, a2, e32, m8, ta, ma
        vle32.v v8, (a0)
        vfmax.vf v8, v8, fa0
        vse32.v v8, (a1)
        slli t1, t0, 2
        add a0, a0, t1
        add a1, a1, t1
        sub a2, a2, t0
        bnez a2, 1b
        li a3, {after}
        li a2, 0x01010101
        sw a2, 0(a3)
        ebreak
    """
    ev = evaluate("coral", "relu", "C1", _kernel(copy), seeds=[3], edge_cases=False, compare_baseline=False)
    assert ev.frac_match == 1.0 and not ev.passed       # right outputs, wrong kernel
    y = ACCEL.layout(get_task("relu"), "C1", HW).region("y")
    at = y.address + 4 * y.size + 8
    assert ev.sets[0].outside_writes == [("dtcm", at, 4)]
    assert f"writes outside the declared regions: dtcm[0x{at:X}:0x{at + 4:X}] (4 bytes)" \
        in ev.sets[0].stray


@pytest.mark.parametrize("where", ["guard", "input", "constant"])
def test_a_zero_written_where_the_kernel_may_not_fails(where):
    """Zero into the guard after y, into input x, or over a constant: each fails, named."""
    lay = ACCEL.layout(get_task("softmax"), "C1", HW)
    y, x = lay.region("y"), lay.region("x")
    at = {"guard": y.address + 4 * y.size + 8, "input": x.address + 12,
          "constant": lay.constants[0].address}[where]
    src = ACCEL.baseline("softmax", "C1", HW).replace("ebreak", f"li a3, {at}\nsw zero, 0(a3)\nebreak")
    assert src.count(f"li a3, {at}") == 1
    ev = evaluate("coral", "softmax", "C1", src, seeds=[3], edge_cases=False)
    assert ev.frac_match == 1.0 and not ev.passed and ev.speedup is None
    s = ev.sets[0]
    if where == "input":       # the bytes that changed: a bf16 value's low half is zero already
        ((mem, first, n, name),) = s.input_writes
        assert (mem, name) == ("dtcm", "x") and at <= first < first + n <= at + 4
        assert f"x at dtcm[0x{first:X}:0x{first + n:X}]" in s.stray and not s.outside_writes
    else:
        assert s.outside_writes == [("dtcm", at, 4)] and not s.input_writes


def test_zeros_and_copies_fail():
    zeros = "li a1, {y}\nli a2, {n}\n1: vsetvli t0, a2, e32, m8, ta, ma\nvmv.v.i v8, 0\nvse32.v v8, (a1)\n" \
            "slli t1, t0, 2\nadd a1, a1, t1\nsub a2, a2, t0\nbnez a2, 1b\nebreak"
    assert not evaluate("coral", "silu", "C1", _kernel(zeros, "silu"), seeds=[1], edge_cases=False,
                        compare_baseline=False).passed
    nothing = "ebreak"
    ev = evaluate("coral", "relu", "C1", nothing, seeds=[1], edge_cases=False, compare_baseline=False)
    assert not ev.passed and ev.frac_match == 0.0


def test_lower_bound_is_below_every_c1_baseline():
    for name, template in ACCEL.baseline_templates().items():
        t = get_task(name)
        b = ACCEL.lower_bound(t, "C1", HW)
        assert b.cycles > 0 and b.kind in ("compute", "bandwidth")


def test_tools_on_coral():
    src = ACCEL.baseline("relu", "C1", HW)
    assert tools.check_syntax("coral", src).data["ok"]
    bad = tools.check_syntax("coral", "vadd.vv v1, v2\n")
    assert not bad.data["ok"] and "kernel.asm:1:" in bad.text
    size = tools.get_inst_size("coral", src)
    assert size.data["limit"] == HW.ITCM_SIZE // 4 and size.data["bytes"] == 4 * size.data["instructions"]
    hit = tools.grep_docs("coral", "vfredusum")
    assert hit.data["hits"] > 0 and "vfredusum.vs" in hit.text
    run = tools.run_eval("coral", "relu", "C1", src, seeds=[1])
    assert run.text.startswith("PASS") and "cycles:" in run.text


def cli(*args, inp=None):
    return subprocess.run([sys.executable, "-m", "kernelcraft.workbench.cli", *args], capture_output=True, text=True,
                          input=inp, timeout=120)


PLAIN = """
    .globl _start
_start:
    la a0, xs
    la a1, ys
    li a2, 5
    vsetvli t0, a2, e32, m1, ta, ma
    vle32.v v1, (a0)
    vfadd.vv v1, v1, v1
    vsetvli t0, a2, e32, m2, ta, ma
    vle32.v v2, (a0)
    vfadd.vv v2, v2, v2
    vse32.v v2, (a1)
    lw a3, count
    li a7, 93
    ecall
    .data
xs: .float 1, 2, 3, 4, 5
ys: .zero 20
count: .word 7
"""


def test_exec_runs_a_plain_bare_metal_program_and_dumps_labelled_ranges(tmp_path):
    prog = tmp_path / "p.s"
    prog.write_text(PLAIN)
    r = cli("exec", "--accel", "coral", str(prog), "--dump", "ys", "--json", "--regs")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["dumps"]["ys"] == [2.0, 4.0, 6.0, 8.0, 10.0] and out["stop"] == "break"
    assert out["registers"]["x"][13] == 7
    r = cli("exec", "--accel", "coral", str(prog), "--dump", "count", "--as", "i32", "--set", "dtcm:xs=10,20",
            "--dump", "dtcm:ys:2", "--json")
    out = json.loads(r.stdout)
    assert out["dumps"]["count"] == [7] and out["dumps"]["dtcm:ys:2"] == [20, 40]
    np.save(tmp_path / "v.npy", np.array([1.5, 2.5, 3.5, 4.5, 5.5], np.float32))
    r = cli("exec", "--accel", "coral", str(prog), "--load", f"dtcm:xs:{tmp_path / 'v.npy'}", "--dump", "ys",
            "--save", f"ys:{tmp_path / 'o.npy'}")
    assert r.returncode == 0 and np.array_equal(np.load(tmp_path / "o.npy"), [3, 5, 7, 9, 11])
    r = cli("exec", "--accel", "coral", str(prog), "--dump", "nope")
    assert r.returncode == 2 and "or a label (_start, count, xs, ys)" in r.stderr


def test_exec_reports_faults_with_location(tmp_path):
    prog = tmp_path / "bad.s"
    prog.write_text("li a0, 0x10001\nlw a1, 0(a0)\nebreak\n")
    r = cli("exec", "--accel", "coral", str(prog))
    assert r.returncode == 1 and "line 2" in r.stdout and "not aligned" in r.stdout


def test_isa_and_baseline_commands():
    r = cli("isa", "coral", "--hw", "VLEN=256")
    assert r.returncode == 0 and "| `VLEN` | 256 (default 128) |" in r.stdout
    r = cli("baseline", "--accel", "coral", "--task", "gemm", "--config", "C1", "--param", "mr=2")
    assert r.returncode == 0 and "vfmacc.vf" in r.stdout and "'mr': 2" in r.stdout
