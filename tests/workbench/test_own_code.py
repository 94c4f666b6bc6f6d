"""A kernel may not take a path of its own, or do more work, on an edge family that has
its own check (evaluation.own_code): real coral kernels that recognise a read-back family
as `tasks.wrong_variants.RECOGNISE` describes and branch there to a copy of themselves
fail, naming the family and a line of the copy; so do coral, aie and plena kernels that go
round a loop more often (a count taken from the recognition) or set a longer vector length
there. A kernel whose paths or counts differ between ordinary input sets (a running
maximum, an early-exit search), or that differs on an edge family without a check, is
flagged, not failed; a recogniser that adds such noise to its count passes too, and gains
no cycles by it (the last test)."""
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


def test_a_loop_count_chosen_by_the_data_is_only_flagged_where_no_family_has_a_check():
    """On aie, whose only data-dependent control flow is a loop count (LOOPR), a loop run
    once or twice on the sign of x[0, 1] runs one instruction set on every input set; relu
    has no family with a check of its own, so the different counts are flagged only."""
    accel, t = get_accel("aie"), get_task("relu")
    hw = accel.default_config()
    sign = {s: t.generate("C1", s)["x"].flat[1] < 0 for s in range(1, 40)}
    seeds = [next(s for s, neg in sign.items() if neg), next(s for s, neg in sign.items() if not neg)]
    counted = accel.baseline("relu", "C1", hw) + (
        "MOVPI p2, 8192\nLD r2, [p2]\nSRLI r2, r2, 31\nADDI r2, r2, 1\nLOOPR r2\n    NOP\nENDLOOP\n")
    ev = evaluate("aie", "relu", "C1", counted, seeds=seeds)
    assert ev.passed and ev.input_dependent and ev.paths == 1
    assert len({s.retired for s in ev.sets}) == 2


SDP = "scaled_dot_product"


def _sdp_sets(source: str, accel: str = "coral", seeds=(1, 2, 3)):
    """`source` on scaled_dot_product C1 with edge seed 5, whose `many_keys` (checked),
    `two_keys` and `spiked_scores` (not) have most of q's first row zero."""
    edges = dict(get_task(SDP).edge_cases("C1", 5))
    assert RECOGNISE[SDP](edges["many_keys"]) and not any(
        RECOGNISE[SDP](get_task(SDP).generate("C1", s)) for s in seeds)
    ev = evaluate(accel, SDP, "C1", source, seeds=list(seeds), edge_seed=5)
    return ev, {s.label[len("edge: "):] if s.label.startswith("edge: ") else s.label: s for s in ev.sets}


def test_a_loop_count_taken_from_the_recognition_fails_on_the_checked_family():
    """coral: the sparse-query test's count of zeros in q's first row (0 on every seed, 17
    or more on `many_keys`) plus one is a loop's count: the loop body runs once on every
    seeded set and more often on the family, with no instruction of its own."""
    accel = get_accel("coral")
    hw = accel.default_config()
    loop = _sparse_query(_address(SDP, "q", hw), 32).replace("    li t1, 16\n    blt t1, a2, .copy\n", "") + """\
    addi a2, a2, 1
.rc_loop:
    addi a2, a2, -1
    bnez a2, .rc_loop
"""
    source = loop + accel.baseline(SDP, "C1", hw)
    ev, sets = _sdp_sets(source)
    assert ev.status == "failed" and ev.input_dependent and ev.paths == 1
    assert [f for f, s in sets.items() if not s.passed] == ["many_keys"]
    own = sets["many_keys"].own_code
    assert "more often than every seeded input set did" in own and "addi a2, a2, -1" in own
    assert re.search(r"\((\d+) times, 1 on every seeded set\)", own)
    assert int(re.search(r"\((\d+) times", own).group(1)) > 16
    assert all(o["passed"] for o in sets["many_keys"].outputs.values())    # the outputs are right
    assert sets["two_keys"].passed       # (the loop runs long there too: a family without a check)


def test_a_vector_length_taken_from_the_recognition_fails_on_the_checked_family():
    """coral: the same count of zeros as a vector length (vsetvli, LMUL 8): every seeded set
    runs the vector instructions at vl = 0, `many_keys` at vl >= 17; the counts are the
    same on every set, the vector unit's busy cycles are not."""
    accel = get_accel("coral")
    hw = accel.default_config()
    vl = _sparse_query(_address(SDP, "q", hw), 32).replace("    li t1, 16\n    blt t1, a2, .copy\n", "") + """\
    vsetvli t0, a2, e32, m8, ta, ma
    vfadd.vv v8, v8, v8
    vfmul.vv v16, v16, v16
"""
    source = vl + accel.baseline(SDP, "C1", hw)
    ev, sets = _sdp_sets(source)
    assert ev.status == "failed" and ev.paths == 1
    assert len({s.retired for s in ev.sets}) == 1            # no count differs
    assert [f for f, s in sets.items() if not s.passed] == ["many_keys"]
    assert re.search(r"kept unit `vector` busy for \d+ cycles, \d+ on every seeded input set",
                     sets["many_keys"].own_code)


def _aie_recognising_loop(hw) -> str:
    """aie's scaled_dot_product baseline, then q[0, 0..1] read into data memory and a LOOPR
    run 65 times when both are zero (`many_keys`), once otherwise (every seed)."""
    return get_accel("aie").baseline(SDP, "C1", hw) + """\
.bd RQ, ext=0, loc=65520, n0=2, rel=l5
MOVI r5, 0
DMAIN 0, RQ, r5, r5
ACQ l5, 1
MOVPI p2, 65520
LD r2, [p2]
SLLI r2, r2, 1
SRLI r2, r2, 1
ADDI r2, r2, -1
SRLI r2, r2, 31
SLLI r2, r2, 6
ADDI r2, r2, 1
LOOPR r2
    NOP
ENDLOOP
"""


def test_an_aie_loop_count_taken_from_the_recognition_fails_on_the_checked_family():
    hw = get_accel("aie").default_config()
    ev, sets = _sdp_sets(_aie_recognising_loop(hw), "aie")
    assert ev.status == "failed" and ev.input_dependent and ev.paths == 1
    assert [f for f, s in sets.items() if not s.passed] == ["many_keys"]
    own = sets["many_keys"].own_code
    assert "(65 times, 1 on every seeded set)" in own and "NOP" in own
    assert sets["two_keys"].passed and sets["two_keys"].retired == sets["many_keys"].retired
    # the baseline alone: every address equally often and every unit equally busy on every set
    plain = evaluate("aie", SDP, "C1", get_accel("aie").baseline(SDP, "C1", hw), seeds=[1, 2, 3], edge_seed=5)
    assert plain.passed and not plain.input_dependent and plain.paths == 1


def _row_max(k: int) -> str:
    """A scalar running maximum over each of k's 64 rows of 32 (the update taken about
    H(32) ~ 4 times a row on random keys), its result unused."""
    return f"""\
    li a0, {k}
    li a2, 64
.hm_row:
    flw ft0, 0(a0)
    li a1, 32
.hm_col:
    flw ft1, 0(a0)
    flt.s t0, ft0, ft1
    beqz t0, .hm_skip
    fmv.s ft0, ft1
.hm_skip:
    addi a0, a0, 4
    addi a1, a1, -1
    bnez a1, .hm_col
    addi a2, a2, -1
    bnez a2, .hm_row
"""


def _first_negative(k: int) -> str:
    """An early-exit search for each of k's rows' first negative element: about 2 steps a
    row on random keys, most of the row on `many_keys`, whose keys are zero in most columns."""
    return f"""\
    li a0, {k}
    li a2, 64
.fs_row:
    mv a3, a0
    li a1, 32
.fs_col:
    lw t0, 0(a3)
    bltz t0, .fs_done
    addi a3, a3, 4
    addi a1, a1, -1
    bnez a1, .fs_col
.fs_done:
    addi a0, a0, 128
    addi a2, a2, -1
    bnez a2, .fs_row
"""


@pytest.mark.parametrize("loop", [_row_max, _first_negative], ids=["running_max", "early_exit"])
def test_honest_data_dependent_loops_pass(loop):
    """Counts that differ between the seeded sets are not bounded on the families: how far a
    family's structure moves them says nothing about the kernel (the early exit runs several
    times longer on `many_keys` than on any random draw)."""
    accel = get_accel("coral")
    hw = accel.default_config()
    source = loop(_address(SDP, "k", hw)) + accel.baseline(SDP, "C1", hw)
    program = accel.assemble(source, config=hw)
    pc = next(i for i in range(len(program)) if program.source_at(i)[0] == 7)   # the loop's 3rd line
    for seeds, edge in (((1, 2, 3), 5), ((11, 12, 13), 6), ((21, 22, 23), 7)):
        ev = evaluate("coral", SDP, "C1", source, seeds=list(seeds), edge_seed=edge)
        assert ev.passed and ev.input_dependent, [s.own_code for s in ev.sets]
    if loop is _first_negative:           # (the last evaluation's counts, run again)
        counts = {}
        for label, inputs in [("seed", get_task(SDP).generate("C1", s)) for s in (21, 22, 23)] + \
                [("many_keys", dict(get_task(SDP).edge_cases("C1", 7))["many_keys"])]:
            from kernelcraft.workbench.layout import build_image
            image = build_image(accel.layout(get_task(SDP), "C1", hw), inputs)
            counts.setdefault(label, []).append(accel.backend().run(program, image, hw).counts[pc])
        assert len(set(counts["seed"])) > 1 and counts["many_keys"][0] > 5 * max(counts["seed"])


def _plena_recognising_loop(hw) -> str:
    """plena's scaled_dot_product baseline, then a count of the zeros in q's first two rows
    (q^2 2^64 clamped at 1: 0 on every random draw, 54 on `many_keys`) made an integer with
    V_TOPK (the index of the largest -(j - zeros)^2 among 32: min(zeros, 31)), loaded into a
    gp register and added to a loop's counter in the loop's body, plena's only
    data-dependent control flow (MANUAL.md, C_LOOP_START)."""
    q = next(r.address for r in get_accel("plena").layout(get_task(SDP), "C1", hw).regions if r.name == "q")
    return get_accel("plena").baseline(SDP, "C1", hw) + f"""\
S_ADDI_INT gp1, gp0, {q}
C_SET_ADDR_REG a0, gp0, gp1
S_ADDI_INT gp2, gp0, 0
H_PREFETCH_V gp2, gp0, a0, 0, 0 ; q's rows 0-7
S_EXP_FP f3, f0                 ; 1
S_ADD_FP f6, f3, f0             ; 1
S_SUB_FP f7, f0, f3             ; -1
S_ADD_FP f3, f3, f3
S_MUL_FP f3, f3, f3
S_MUL_FP f3, f3, f3
S_MUL_FP f3, f3, f3
S_MUL_FP f3, f3, f3
S_MUL_FP f3, f3, f3
S_MUL_FP f3, f3, f3             ; 2^64
V_MUL_VV gp2, gp2, gp2, 0
V_MUL_VF gp2, gp2, f3, 0        ; q^2 2^64: 0, or above 1
V_MIN_VF gp2, gp2, f6, 0
V_SUB_VF gp2, gp2, f6, 0, 1     ; 1 where q is 0, else 0
S_ADD_FP f4, f0, f0
V_RED_SUM f4, gp2               ; the zeros of q's rows 0 and 1
S_ADD_FP f5, f0, f0
S_ADDI_INT gp3, gp0, 512
C_LOOP_START gp4, 64            ; 0, 1, ..., 63 in FP_MEM[512..]
  S_ST_FP f5, gp3, 0
  S_ADD_FP f5, f5, f6
  S_ADDI_INT gp3, gp3, 1
C_LOOP_END gp4
S_ADDI_INT gp5, gp0, 64
S_ADDI_INT gp3, gp0, 512
S_MAP_V_FP gp5, gp3, 0
V_SUB_VF gp5, gp5, f4, 0, 0
V_MUL_VV gp5, gp5, gp5, 0
V_MUL_VF gp5, gp5, f7, 0        ; -(j - zeros)^2
S_ADDI_INT gp6, gp0, 600
S_ADDI_INT gp7, gp0, 0
V_TOPK gp6, gp5, gp7, 0         ; its largest's index to INT_MEM[0]
S_LD_INT gp7, gp0, 0
C_LOOP_START gp8, 1
  S_ADD_INT gp8, gp8, gp7       ; the counter overwritten: that many passes more
  S_ADDI_INT gp7, gp0, 0
C_LOOP_END gp8
"""


def test_a_plena_loop_counter_taken_from_the_data_fails_on_the_checked_family():
    hw = get_accel("plena").default_config()
    ev, sets = _sdp_sets(_plena_recognising_loop(hw), "plena")
    assert ev.status == "failed" and ev.input_dependent and ev.paths == 1
    assert [f for f, s in sets.items() if not s.passed] == ["many_keys"]
    own = sets["many_keys"].own_code
    assert "(32 times, 1 on every seeded set)" in own and "S_ADD_INT gp8, gp8, gp7" in own
    assert all(o["passed"] for o in sets["many_keys"].outputs.values())    # the outputs are right
    assert sets["two_keys"].passed and sets["two_keys"].retired == sets["many_keys"].retired
    plain = evaluate("plena", SDP, "C1", get_accel("plena").baseline(SDP, "C1", hw), seeds=[1, 2, 3],
                     edge_seed=5)
    assert plain.passed and not plain.input_dependent and plain.paths == 1


def _horner_by_count(hw, pick: str = "") -> str:
    """coral's scaled_dot_product baseline with exp's polynomial (asm.vexp) evaluated by a
    loop of K Horner steps from a table: K = 2 is the baseline's degree 5 (n = round), K = 1
    degree 4 and K = 0 degree 3, both with n = floor (z log2 e - 1/2 rounded), the
    0.56% exp of test_wrong_kernels. K comes from the data: 2 when the sparse-query test
    finds most of q's first row zero (`many_keys`), else q[0, 0]'s sign bit (noise: 0 or 1 on
    the random draws). `pick` replaces instructions of the choice ("old=>new;...")."""
    q = _address(SDP, "q", hw)
    head = _sparse_query(q, 32).replace("    li t1, 16\n    blt t1, a2, .copy\n", "") + f"""\
    li t1, 16
    slt t2, t1, a2
    li a0, {q}
    lw t0, 0(a0)
    srli t0, t0, 31
    li t3, 2
    sub t3, t3, t0
    mul t3, t3, t2
    add s4, t0, t3
    la s5, .HF
    slli t0, s4, 2
    add s5, s5, t0
    flw fa6, 0(s5)
    la ra, .HT
    addi ra, ra, 12
    li t0, 2
    sub t0, t0, s4
    slli t0, t0, 2
    la s5, .HT
    add s5, s5, t0
"""
    for edit in filter(None, pick.split(";")):
        old, new = edit.split("=>")
        head = head.replace(f"    {old}\n", f"    {new}\n")
    src = get_accel("coral").baseline(SDP, "C1", hw)
    src, n = re.subn(r"^(\s*)vfmul\.vf (v\d+), (v\d+), fs0\n", r"\g<0>\1vfadd.vf \2, \2, fa6\n", src, flags=re.M)
    sites = iter(range(n))

    def horner(m):
        i, ind = next(sites), m[1]
        return (f"{ind}flw ft3, 0(s5)\n{ind}vfmv.v.f v16, ft3\n{ind}addi s6, s5, 4\n{ind}bgeu s6, ra, .hd{i}\n"
                f".hl{i}:\n{ind}flw ft3, 0(s6)\n{ind}vfmul.vv v16, v16, v8\n{ind}vfadd.vf v16, v16, ft3\n"
                f"{ind}addi s6, s6, 4\n{ind}bltu s6, ra, .hl{i}\n.hd{i}:\n")
    src, m = re.subn(r"^(\s*)vfmul\.vf v16, v8, fs5.*\n\s*vfadd\.vf v16, v16, fs6.*\n\s*vfmul\.vv v16, v16, v8.*\n"
                     r"\s*vfadd\.vf v16, v16, fs7.*\n", horner, src, flags=re.M)
    assert n == m == 2, "the baseline's exp changed: update this test's edit"
    return head + src + (".HF: .float -0.5\n.float -0.5\n.float 0.0\n.HT: .float 0.008333333767950535\n"
                         ".float 0.0416666679084301\n.float 0.1666666716337204\n")


def test_a_recogniser_whose_count_also_varies_on_the_draws_passes_and_gains_nothing():
    """The gap left open (tasks/README.md): a recogniser whose loop count also varies among
    the seeded sets is not bounded on the family, and passes, flagged. What it buys: the
    evaluation's cycles are the largest over its input sets, the family's included, where it
    runs its exact path; so its speed-up is no better than the same kernel's with the exact
    path everywhere. Its cheap path alone fails the family's check."""
    accel = get_accel("coral")
    hw = accel.default_config()
    sign = {s: get_task(SDP).generate("C1", s)["q"].flat[0] < 0 for s in range(1, 40)}
    seeds = (next(s for s, neg in sign.items() if neg), next(s for s, neg in sign.items() if not neg), 3)
    ev, sets = _sdp_sets(_horner_by_count(hw), seeds=seeds)
    assert ev.passed and ev.input_dependent and not any(s.own_code for s in ev.sets)
    steps = {label: s.cycles for label, s in sets.items()}
    assert len({steps[f"seed {s}"] for s in seeds}) == 2            # K = 0 and 1 among the draws
    # the same kernel with K fixed (the same instructions): 2, the exact path, and 0, the cheap one
    exact, _ = _sdp_sets(_horner_by_count(hw, "slt t2, t1, a2=>li t2, 1"), seeds=seeds)
    cheap, cheap_sets = _sdp_sets(_horner_by_count(hw, "slt t2, t1, a2=>li t2, 0;srli t0, t0, 31=>li t0, 0"),
                                  seeds=seeds)
    assert exact.passed and not exact.input_dependent
    assert [f for f, s in cheap_sets.items() if not s.passed] == ["many_keys"] and cheap_sets["many_keys"].family
    assert cheap.cycles == min(steps.values()) < exact.cycles    # what recognising would buy, were it free
    assert steps["many_keys"] == exact.cycles == ev.cycles
    assert ev.baseline_cycles == exact.baseline_cycles and ev.speedup <= exact.speedup
