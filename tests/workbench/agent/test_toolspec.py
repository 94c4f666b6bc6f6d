"""Tool schemas and argument checking: every malformed call gets a message that says
what is wrong and how a valid call looks."""
import json

import pytest

from workbench.agent import prompting, toolspec
from workbench.agent.toolspec import MAX_KERNEL_BYTES, ToolError, parse_arguments


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
