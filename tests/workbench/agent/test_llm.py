"""workbench.llm: litellm offline, replies parsed, retries with back-off, clear errors."""
import os
import subprocess
import sys

import pytest

from workbench import llm
from workbench.llm import LiteLLMModel, LLMError, ScriptedFailure, register_provider

TOOLS = [{"type": "function", "function": {"name": "write_code", "parameters": {
    "type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}}]


def test_importing_the_workbench_does_not_import_litellm():
    code = ("import sys, workbench.cli, workbench.llm, workbench.agent.loop, "
            "workbench.agent.autotune, workbench.runs_cli; print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_litellm_uses_the_local_cost_map():
    llm.litellm_module()
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"


def test_scripted_provider_reply_is_parsed():
    seen = []

    def respond(messages, tools):
        seen.append((messages, tools))
        return {"content": "writing", "reasoning": "think first",
                "tool_calls": [{"name": "write_code", "arguments": '{"code": "NO'}],
                "usage": {"prompt_tokens": 120, "completion_tokens": 30, "reasoning_tokens": 12}}

    register_provider("kctest", respond)
    r = LiteLLMModel("kctest/m").query([{"role": "user", "content": "go"}], TOOLS)
    assert seen[0][1][0]["function"]["name"] == "write_code"    # tools reach the provider
    assert (r.content, r.reasoning) == ("writing", "think first")
    assert r.tool_calls[0].name == "write_code" and r.tool_calls[0].arguments == '{"code": "NO'
    assert (r.tokens_in, r.tokens_out, r.tokens_reasoning) == (120, 30, 12)
    assert r.cost_known is False and r.cost == 0.0                # not in the cost map
    msg = r.assistant_message()
    assert msg["tool_calls"][0]["function"]["arguments"] == '{"code": "NO'


def test_cost_comes_from_the_local_cost_map():
    r = LiteLLMModel("openai/gpt-4o", params={"mock_response": "hello"}).query(
        [{"role": "user", "content": "hi"}])
    assert r.content == "hello" and r.cost_known and r.cost > 0


def test_rate_limits_and_transient_errors_are_retried_with_backoff():
    script = [ScriptedFailure(429, "slow down"), ScriptedFailure(503, "busy"),
              ScriptedFailure(500, "oops")]
    waits, told = [], []

    def respond(messages, tools):
        if script:
            raise script.pop(0)
        return {"content": "done"}

    register_provider("kcretry", respond)
    m = LiteLLMModel("kcretry/m", backoff_base=1.0, backoff_max=3.0, sleep=waits.append,
                     on_retry=told.append)
    r = m.query([{"role": "user", "content": "hi"}])
    assert r.content == "done"
    assert [x["status"] for x in r.retries] == [429, 503, 500] and told == r.retries
    # exponential (with jitter in [0.5, 1]) and capped
    assert 0.5 <= waits[0] <= 1.0 and 1.0 <= waits[1] <= 2.0 and 1.5 <= waits[2] <= 3.0


def test_retries_run_out_with_a_clear_error():
    register_provider("kcdown", lambda m, t: (_ for _ in ()).throw(ScriptedFailure(429, "limit")))
    m = LiteLLMModel("kcdown/m", max_retries=2, sleep=lambda s: None)
    with pytest.raises(LLMError, match=r"gave up after 3 attempts.*RateLimitError.*429"):
        m.query([{"role": "user", "content": "hi"}])


@pytest.mark.parametrize("status,words", [(401, "set the provider's key"),
                                          (404, "model not found"),
                                          (400, "request rejected")])
def test_fatal_errors_are_not_retried(status, words):
    calls = []

    def respond(messages, tools):
        calls.append(1)
        raise ScriptedFailure(status, "nope")

    register_provider(f"kcfatal{status}", respond)
    with pytest.raises(LLMError, match=words):
        LiteLLMModel(f"kcfatal{status}/m", sleep=lambda s: None).query(
            [{"role": "user", "content": "hi"}])
    assert len(calls) == 1


def test_a_missing_key_fails_before_any_request(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    m = LiteLLMModel("anthropic/claude-sonnet-4-5", sleep=lambda s: None)
    with pytest.raises(LLMError, match="no API key in the environment; set ANTHROPIC_API_KEY"):
        m.query([{"role": "user", "content": "hi"}])


def test_an_unreachable_provider_fails_fast_with_a_short_message(monkeypatch):
    import socket
    import time

    from workbench.llm import LiteLLMModel, LLMError, unreachable
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]                      # closed once the block ends
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    waits = []
    model = LiteLLMModel("openai/gpt-4o", api_base=f"http://127.0.0.1:{port}", max_retries=6,
                         sleep=waits.append)
    t0 = time.monotonic()
    with pytest.raises(LLMError, match=rf"openai/gpt-4o: provider unreachable at "
                                       rf"http://127.0.0.1:{port}: connection refused "
                                       rf"\(2 attempts\)"):
        model.query([{"role": "user", "content": "hi"}])
    assert len(waits) == 1 and waits[0] <= 2.0 and time.monotonic() - t0 < 60
    try:
        try:
            raise socket.gaierror(-2, "Name or service not known")
        except socket.gaierror as inner:
            raise RuntimeError("Connection error.") from inner
    except RuntimeError as outer:
        assert unreachable(outer).startswith("host not found")
    assert unreachable(RuntimeError("status 500")) is None
