"""A kernel may not take a path of its own on an edge family that has its own check
(evaluation.own_code): real coral kernels that recognise a read-back family as
`tasks.wrong_variants.RECOGNISE` describes and branch there to a copy of themselves fail,
naming the family and a line of the copy; a kernel whose paths differ between ordinary
input sets, or on an edge family without a check, is flagged, not failed."""
import re

import pytest

from kernelcraft.tasks import get_task
from kernelcraft.tasks.wrong_variants import RECOGNISE
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.evaluation import OWN_CODE_RULE, evaluate, set_problem
from kernelcraft.workbench.tools import run_eval, task_statement

HASHES = 230656 + (8 << 20)         # hash table in the scratch region, far past the baseline's


def _address(task: str, name: str, hw) -> int:
    accel = get_accel("coral")
    return next(r.address for r in accel.layout(get_task(task), "C1", hw).regions if r.name == name)


def _twin_rows(w: int, rows: int, cols: int) -> str:
    """RECOGNISE's twin test for the MLPs in RV32: hash each row of the pre-activation
    weights at `w` (rows x cols words; FNV-1a of each value's upper half, its bf16 bits)
    and compare every pair of hashes; two equal rows branch to `.copy`, the kernel's copy
    (a conditional branch every input set runs)."""
    return f"""\
    li a0, {w}
    li a1, {HASHES}
    li a2, {rows}
    li a5, 16777619
.rc_row:
    li a3, {cols}
    li a4, -2128831035
.rc_word:
    lhu t0, 2(a0)
    xor a4, a4, t0
    mul a4, a4, a5
    addi a0, a0, 4
    addi a3, a3, -1
    bnez a3, .rc_word
    sw a4, 0(a1)
    addi a1, a1, 4
    addi a2, a2, -1
    bnez a2, .rc_row
    li a0, {HASHES}
    li a2, {HASHES + 4 * rows}
.rc_i:
    lw t0, 0(a0)
    addi a1, a0, 4
.rc_j:
    bgeu a1, a2, .rc_next
    lw t1, 0(a1)
    beq t0, t1, .copy
    addi a1, a1, 4
    j .rc_j
.rc_next:
    addi a0, a0, 4
    bltu a0, a2, .rc_i
"""


def _sparse_query(q: int, d: int) -> str:
    """RECOGNISE's attention test: most of the first query row zero branches to `.copy`."""
    return f"""\
    li a0, {q}
    li a1, {d}
    li a2, 0
.rc_col:
    lw t0, 0(a0)
    slli t0, t0, 1
    seqz t0, t0
    add a2, a2, t0
    addi a0, a0, 4
    addi a1, a1, -1
    bnez a1, .rc_col
    li t1, {d // 2}
    blt t1, a2, .copy
"""


def recognising(task: str, test: str, hw) -> tuple[str, int]:
    """`test` (branching to `.copy` on the family's inputs), the baseline, then the
    baseline's code again under `.copy` with its labels renamed; and the first source
    line of the copy."""
    base = get_accel("coral").baseline(task, "C1", hw)
    code, sep, data = base.partition("    .section .rodata")
    labels = set(re.findall(r"^\s*(\.\w+):", code, re.M))
    copy = re.sub(r"\.\w+\b", lambda m: m.group(0) + "_copy" if m.group(0) in labels else m.group(0), code)
    head = test + code
    return head + ".copy:\n" + copy + sep + data, head.count("\n") + 2


CASES = {"ffn": lambda hw: _twin_rows(_address("ffn", "w1", hw), 128, 64),
         "swiglu": lambda hw: _twin_rows(_address("swiglu", "w_gate", hw), 128, 64),
         "scaled_dot_product": lambda hw: _sparse_query(_address("scaled_dot_product", "q", hw), 32)}
FAMILIES = {"ffn": ("many_units", "units_near_zero"), "swiglu": ("many_units", "units_near_zero"),
            "scaled_dot_product": ("many_keys",)}


@pytest.mark.parametrize("task", list(CASES))
def test_a_kernel_that_takes_its_own_path_on_a_checked_family_fails(task):
    accel = get_accel("coral")
    hw = accel.default_config()
    source, copy_line = recognising(task, CASES[task](hw), hw)
    t = get_task(task)
    # the test in assembly fires where RECOGNISE does (on the edge seed used below), never on the seeds
    edges = dict(t.edge_cases("C1", 5))
    assert all(RECOGNISE[task](edges[f]) for f in FAMILIES[task])
    assert not any(RECOGNISE[task](t.generate("C1", s)) for s in (1, 2, 3))
    ev = evaluate("coral", task, "C1", source, seeds=[1, 2, 3], edge_seed=5)
    assert ev.status == "failed" and ev.input_dependent and ev.paths == 2
    failed = {s.label[len("edge: "):]: s for s in ev.sets if not s.passed}
    assert set(failed) == set(FAMILIES[task])           # every other set passes, copy or not
    lines = source.splitlines()
    for family, s in failed.items():
        assert s.family_checked and not s.family and all(o["passed"] for o in s.outputs.values())
        line = int(re.search(r"the first at line (\d+): ", s.own_code).group(1))
        assert line >= copy_line and f"`{family}`" in s.own_code
        assert lines[line - 1].split("#")[0].strip() in s.own_code       # its text, as written
        assert s.own_code in set_problem(s)
    text = run_eval("coral", task, "C1", source, seeds=[1, 2, 3]).text
    assert text.startswith("FAIL") and "that no seeded input set ran" in text
    assert OWN_CODE_RULE in task_statement("coral", task, "C1")      # the agent is told the rule
    # the baseline itself passes, on the same input sets, with one path
    plain = evaluate("coral", task, "C1", accel.baseline(task, "C1", hw), seeds=[1, 2, 3], edge_seed=5)
    assert plain.passed and not plain.input_dependent and plain.paths == 1


def test_paths_that_differ_between_seeded_sets_or_on_unchecked_families_are_flagged_not_failed():
    accel = get_accel("coral")
    hw = accel.default_config()
    t = get_task("ffn")
    x = _address("ffn", "x", hw)
    sign = {s: t.generate("C1", s)["x"].flat[0] < 0 for s in range(1, 40)}
    seeds = [next(s for s, neg in sign.items() if neg), next(s for s, neg in sign.items() if not neg)]
    # a branch on the first input's sign, both ways among the seeded sets: every edge set
    # runs code some seeded set ran
    branchy = (f"    li t2, {x}\n    lw t3, 0(t2)\n    bltz t3, .negative\n    nop\n"
               f".negative:\n" + accel.baseline("ffn", "C1", hw))
    ev = evaluate("coral", "ffn", "C1", branchy, seeds=seeds)
    assert ev.passed and ev.input_dependent and ev.paths == 2
    # a copy of the kernel taken on a family without its own check (only `large_preactivations`
    # has |x[0, 0]| >= 2 here) passes: an honest kernel may treat special inputs apart
    big = f"    li a0, {x}\n    lw t0, 0(a0)\n    li t1, 0x7fffffff\n    and t0, t0, t1\n" \
          f"    li t1, 0x40000000\n    bgeu t0, t1, .copy\n"
    source, _ = recognising("ffn", big, hw)
    edges = dict(t.edge_cases("C1", 5))
    takes = [f for f, inputs in edges.items() if abs(inputs["x"].flat[0]) >= 2]
    assert takes == ["large_preactivations"] and all(abs(t.generate("C1", s)["x"].flat[0]) < 2 for s in (1, 2, 3))
    ev = evaluate("coral", "ffn", "C1", source, seeds=[1, 2, 3], edge_seed=5)
    assert ev.passed and ev.input_dependent and ev.paths == 2
    assert not any(s.own_code for s in ev.sets)
    assert OWN_CODE_RULE not in task_statement("coral", "relu", "C1")   # (no family with a check)


def test_a_loop_count_chosen_by_the_data_is_only_flagged():
    """What still gets through (tasks/README.md): the same instructions run a different number
    of times. On aie, whose only data-dependent control flow is a loop count (LOOPR), a loop
    run once or twice on the sign of x[0, 1] runs one instruction set on every input set."""
    accel, t = get_accel("aie"), get_task("relu")
    hw = accel.default_config()
    sign = {s: t.generate("C1", s)["x"].flat[1] < 0 for s in range(1, 40)}
    seeds = [next(s for s, neg in sign.items() if neg), next(s for s, neg in sign.items() if not neg)]
    counted = accel.baseline("relu", "C1", hw) + (
        "MOVPI p2, 8192\nLD r2, [p2]\nSRLI r2, r2, 31\nADDI r2, r2, 1\nLOOPR r2\n    NOP\nENDLOOP\n")
    ev = evaluate("aie", "relu", "C1", counted, seeds=seeds)
    assert ev.passed and ev.input_dependent and ev.paths == 1
    assert len({s.retired for s in ev.sets}) == 2
