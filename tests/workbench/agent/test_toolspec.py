"""Tool schemas and argument checking: every malformed call gets a message that says
what is wrong and how a valid call looks."""
import json

import pytest

from kernelcraft.workbench.agent import prompting, toolspec
from kernelcraft.workbench.agent.toolspec import MAX_KERNEL_BYTES, ToolError, parse_arguments


def refused(name, raw) -> str:
    with pytest.raises(ToolError) as e:
        parse_arguments(name, raw)
    return str(e.value)


def test_schemas_are_openai_function_tools():
    names = [s["function"]["name"] for s in toolspec.schemas()]
    assert names == ["write_code", "check_syntax", "run_eval", "view_output", "grep_docs",
                     "get_inst_size", "submit"]
    wc = toolspec.BY_NAME["write_code"].schema()["function"]["parameters"]
    assert wc["required"] == ["code"] and wc["properties"]["code"]["type"] == "string"
    vo = toolspec.BY_NAME["view_output"].schema()["function"]["parameters"]
    assert vo["required"] == [] and vo["properties"]["max_rows"]["maximum"] == 64


def test_valid_calls_parse():
    assert parse_arguments("write_code", '{"code": "NOP\\n"}') == {"code": "NOP\n"}
    assert parse_arguments("run_eval", "") == {}
    assert parse_arguments("run_eval", "{}") == {}
    assert parse_arguments("view_output", '{"max_rows": 5}') == {"max_rows": 5}
    assert parse_arguments("view_output", '{"max_rows": null}') == {}


def test_bad_json_names_the_position_and_shows_a_valid_call():
    msg = refused("write_code", '{"code": "S_ADDI_INT gp1')
    assert "not valid JSON" in msg and "(line 1, column" in msg and '{"code": "..."}' in msg


def test_unknown_tool_lists_the_tools():
    msg = refused("compile", "{}")
    assert "unknown tool 'compile'" in msg and "write_code" in msg and "submit" in msg
    assert "(no tool name)" in refused("", "{}")


def test_missing_wrong_type_and_unexpected_arguments():
    assert "needs the argument 'code'" in refused("write_code", "{}")
    assert "must be a string" in refused("write_code", '{"code": 12}')
    assert "unexpected argument(s) source" in refused("write_code", '{"code": "x", "source": "y"}')
    assert "takes no arguments" in refused("run_eval", '{"seed": 1}')
    assert "between 1 and 64" in refused("view_output", '{"max_rows": 1000}')
    assert "must be an integer" in refused("view_output", '{"max_rows": true}')
    assert "must be a JSON object" in refused("grep_docs", '["V_ADD"]')
    assert "non-empty pattern" in refused("grep_docs", '{"pattern": "  "}')


def test_oversized_and_empty_kernels():
    big = json.dumps({"code": "S_ADDI_INT gp1, gp0, 1\n" * (1 << 16)})   # ~1.5 MB
    msg = refused("write_code", big)
    assert f"{MAX_KERNEL_BYTES:,} bytes" in msg and "256 KB" in msg and "unchanged" in msg
    just_over = json.dumps({"code": "x" * (MAX_KERNEL_BYTES + 1)})
    assert "262,145 bytes" in refused("write_code", just_over)
    assert "empty kernel" in refused("write_code", '{"code": "\\n  "}')
    assert "lone surrogate" in refused("write_code", '{"code": "NOP \\ud800"}')


def test_prompts_fail_on_undefined_variables():
    import jinja2
    with pytest.raises(jinja2.UndefinedError):
        prompting.render("empty_reply", budget=3)             # 'remaining' missing
    text = prompting.render("empty_reply", budget=3, remaining=2)
    assert "2 of 3 iterations left" in text


def test_hostile_arguments_are_refused_within_limits():
    # Found by fuzzing: these raised RecursionError / ValueError out of the loop.
    deep = refused("grep_docs", "[" * 1000 + "]" * 1000)
    assert "nest 1000 levels deep" in deep and f"at most {toolspec.MAX_NESTING}" in deep
    big = refused("view_output", '{"max_rows": ' + "9" * 5000 + "}")
    assert "5,000 digits" in big and '"max_rows"' not in big[:40]
    assert "16,384 bytes" in refused("submit", json.dumps({"summary": "x" * 20_000}))
    # brackets and digits inside strings are text, not structure
    assert parse_arguments("grep_docs", json.dumps({"pattern": "[[[[[[[[[[" + "9" * 40}))
    assert "lone surrogate" in refused("grep_docs", '{"pattern": "\\ud800"}')


def test_names_are_clipped_in_every_echo():
    msg = refused("x" * 1_000_000, "{}")
    assert len(msg) < 500 and "1,000,000 characters" in msg
    many = {f"{'k' * 200}{i}": 1 for i in range(50)}
    msg = refused("check_syntax", json.dumps(many))
    assert len(msg) < 800 and "and 45 more" in msg
    assert toolspec.history_name("x" * 1_000_000) == "x" * 64
    assert toolspec.history_name("run eval!") == "run_eval_"
    assert toolspec.history_name("") == "unnamed" and toolspec.history_name("run_eval") == "run_eval"


@pytest.mark.parametrize("pattern", [r"(.*.*)*Q", r"(\w+\s?)*$", r"(a+)+$", r"(x+x+)+y"])
def test_grep_docs_is_linear_time_on_backtracking_patterns(pattern):
    import time

    from kernelcraft.workbench.tools import grep_docs
    t0 = time.perf_counter()
    grep_docs("plena", pattern)
    assert time.perf_counter() - t0 < 2.0      # Python's re takes minutes on the first two


def test_grep_docs_says_when_a_pattern_is_not_re2():
    from kernelcraft.workbench.tools import grep_docs
    r = grep_docs("plena", r"(V_ADD)\1")
    assert "not a valid RE2 regular expression" in r.text and "searched as plain text" in r.text
    assert grep_docs("plena", "V_ADD[").data["hits"] == 0
    assert grep_docs("plena", "v_add").data["hits"] > 0
