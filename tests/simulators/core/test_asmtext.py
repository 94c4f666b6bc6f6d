"""The accelerator-neutral assembler text helpers: lines, labels, operands,
expressions, diagnostics and hints."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcraft.simulators.core import asmtext
from kernelcraft.simulators.core.asmtext import Diagnostics, ExprError, Line, evaluate
from kernelcraft.simulators.core.errors import AssemblyError


def no_names(name):
    return None


# --- lines, labels, operands -------------------------------------------------------

def test_split_lines_strips_every_comment_style_and_keeps_columns():
    lines = asmtext.split_lines("a ; one\r\nb # two\nc // three\n  d")
    assert [ln.code for ln in lines] == ["a", "b", "c", "  d"]
    assert [ln.number for ln in lines] == [1, 2, 3, 4]
    assert lines[0].raw == "a ; one"            # the CR of CRLF is dropped
    assert lines[3].code.index("d") + 1 == 3    # column of d is 3 in code and raw


def test_split_lines_only_breaks_on_newline():
    # Form feeds and other separators Python's splitlines() honours must not shift lines.
    lines = asmtext.split_lines("a\x0cb\nc")
    assert [ln.code for ln in lines] == ["a\x0cb", "c"]


def test_take_labels_returns_names_columns_and_rest():
    labels, pos = asmtext.take_labels("  outer: inner:  S_ADD_INT gp1, gp2, gp3")
    assert labels == [("outer", 3), ("inner", 10)]
    assert "  outer: inner:  S_ADD_INT gp1, gp2, gp3"[pos:].strip().startswith("S_ADD_INT")
    assert asmtext.take_labels("S_ADD_INT gp1, gp2, gp3") == ([], 0)


def test_check_name():
    assert asmtext.check_name("row_loop.2") == ""
    assert "digit" in asmtext.check_name("2abc")
    assert "may only contain" in asmtext.check_name("a-b")


def test_split_operands_positions():
    pieces, problems = asmtext.split_operands(" gp1,  (1 + 2) ,x", 10)
    assert problems == []
    assert [(p.text, p.column, p.inferred) for p in pieces] == [
        ("gp1", 11, False), ("(1 + 2)", 17, False), ("x", 26, False)]


def test_split_operands_infers_missing_commas():
    pieces, _ = asmtext.split_operands(" gp1 gp2, 4 + 5 MLEN", 1)
    assert [(p.text, p.inferred) for p in pieces] == [
        ("gp1", False), ("gp2", True), ("4 + 5", False), ("MLEN", True)]
    assert pieces[1].column == 6


def test_split_operands_reports_empty_trailing_and_unbalanced():
    _, problems = asmtext.split_operands(" a,, b,", 1)
    msgs = [m for _, m in problems]
    assert any("empty operand" in m for m in msgs)
    assert any("trailing comma" in m for m in msgs)
    _, problems = asmtext.split_operands(" (1, 2", 1)
    assert any("unclosed" in m for _, m in problems)
    assert asmtext.split_operands("   ", 1) == ([], [])


# --- expressions -------------------------------------------------------------------

@pytest.mark.parametrize("text,value", [
    ("42", 42), ("-7", -7), ("0x2A", 42), ("0b101010", 42), ("0o52", 42), ("1_024", 1024),
    ("007", 7), ("2 + 3 * 4", 14), ("(2 + 3) * 4", 20), ("-7 // 2", -4), ("-7 % 2", 1),
    ("1 << 4 + 1", 32), ("0xF0 & 0x3C | 1", 0x31), ("6 ^ 3", 5), ("~0", -1), ("- - 3", 3),
    ("+5", 5),
])
def test_evaluate_literals_and_precedence(text, value):
    assert evaluate(text, no_names) == value


def test_evaluate_names():
    env = {"MLEN": 64, "rows": 3}
    assert evaluate("rows * MLEN + 1", env.get) == 193


_atoms = st.integers(-1000, 1000).map(str)
_exprs = st.recursive(
    _atoms,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "&", "|", "^"]), inner).map(" ".join),
        inner.map(lambda e: f"({e})"),
        inner.map(lambda e: f"-{e}" if not e.startswith("-") else f"-({e})"),
    ),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_exprs)
def test_evaluate_agrees_with_python(expr):
    assert evaluate(expr, no_names) == eval(expr)   # the subset is Python's own syntax


@pytest.mark.parametrize("text,fragment,offset", [
    ("1 / 2", "'/' is not an integer operator", 2),
    ("4 // 0", "division by zero", 2),
    ("(1 + 2", "missing ')'", 6),
    ("1 + 2)", "unmatched ')'", 5),
    ("1 <<", "expression ends", 4),
    ("1 << 65", "shift amounts must be 0..64", 2),
    ("1 << 64 << 64", "too large", 8),
    ("12abc", "invalid number", 0),
    ("3 @ 4", "unexpected character '@'", 2),
    ("4 5", "after a complete value", 2),
    ("FOO + 1", "unknown name 'FOO'", 0),
])
def test_evaluate_errors_name_the_offset(text, fragment, offset):
    with pytest.raises(ExprError) as e:
        evaluate(text, no_names)
    assert fragment in e.value.message
    assert e.value.offset == offset


def test_evaluate_division_hint_and_custom_unknown():
    with pytest.raises(ExprError) as e:
        evaluate("8/2", no_names)
    assert "//" in e.value.hint
    with pytest.raises(ExprError) as e:
        evaluate("1 + nope", no_names, lambda n: (f"who is {n}?", "define it"))
    assert (e.value.message, e.value.hint, e.value.offset) == ("who is nope?", "define it", 4)


def test_evaluate_bounds_work_on_hostile_input():
    with pytest.raises(ExprError, match="nested too deeply"):
        evaluate("(" * 200 + "1" + ")" * 200, no_names)
    with pytest.raises(ExprError, match="nested too deeply"):
        evaluate("-" * 200 + "1", no_names)
    with pytest.raises(ExprError, match="too long"):
        evaluate("+".join(["1"] * 2000), no_names)
    with pytest.raises(ExprError, match="invalid number"):
        evaluate("1" * 500, no_names)


def test_parse_int():
    assert asmtext.parse_int("0x10") == 16
    assert asmtext.parse_int("-0b11") == -3
    assert asmtext.parse_int("0010") == 10
    assert asmtext.parse_int("1x") is None
    assert asmtext.parse_int("9" * 100) is None


# --- hints and diagnostics ---------------------------------------------------------

def test_suggest_is_case_insensitive_and_keeps_spelling():
    assert asmtext.suggest("v_add_v", ["V_ADD_VV", "V_ADD_VF", "M_MM"])[:2] == ["V_ADD_VV", "V_ADD_VF"]
    assert asmtext.suggest("mlen", ["MLEN", "VLEN"])[0] == "MLEN"
    assert asmtext.suggest("x" * 100, ["MLEN"]) == []


def test_window_and_clip_bound_long_garbage():
    line = "a" * 5000 + "Z" + "b" * 5000
    shown = asmtext.window(line, 5001)
    assert "Z" in shown and len(shown) <= 170
    assert asmtext.clip("q" * 500).endswith("...") and len(asmtext.clip("q" * 500)) == 40
    assert asmtext.clip("a\x0bb\tc") == "a?b c"


def test_diagnostics_keep_the_first_ones_and_count_the_rest():
    d = Diagnostics("k.asm", limit=3)
    line = Line(7, "  bad stuff", "  bad stuff")
    calls = []

    def hint():
        calls.append(1)
        return "fix it"

    for _ in range(10):
        d.error(line, 3, "boom", hint)
    assert len(d) == 10 and len(d.kept) == 3 and d.omitted == 7
    assert len(calls) == 3                 # hints of dropped diagnostics are never computed
    with pytest.raises(AssemblyError) as e:
        d.raise_if_any()
    err = e.value
    assert err.omitted == 7 and len(err.diagnostics) == 3
    assert str(err).startswith("10 errors in assembly")
    assert "7 more errors not shown" in str(err)
    first = err.diagnostics[0]
    assert (first.line, first.column, first.source, first.hint) == (7, 3, "k.asm", "fix it")


def test_diagnostics_without_errors_do_not_raise():
    Diagnostics().raise_if_any()
