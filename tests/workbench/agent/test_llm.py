"""kernelcraft.workbench.llm: litellm offline, replies parsed, retries with back-off, clear errors."""
import os
import subprocess
import sys

import pytest

from kernelcraft.workbench import llm
from kernelcraft.workbench.llm import LiteLLMModel, LLMError, ScriptedFailure, register_provider

TOOLS = [{"type": "function", "function": {"name": "write_code", "parameters": {
    "type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}}]


def test_importing_the_workbench_does_not_import_litellm():
    code = ("import sys, kernelcraft.workbench.cli, kernelcraft.workbench.llm, "
            "kernelcraft.workbench.agent.loop, kernelcraft.workbench.agent.autotune, "
            "kernelcraft.workbench.runs_cli; print('litellm' in sys.modules)")
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

    from kernelcraft.workbench.llm import LiteLLMModel, LLMError, unreachable
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


# ---- failures of a real HTTP connection (127.0.0.1), told apart (found by fuzzing:
# a closed port was retried 7 times over 4 minutes as "InternalServerError (500)")

def _closed_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_provider_fails_fast(monkeypatch):
    import time
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    llm.litellm_module()
    waits, told = [], []
    m = LiteLLMModel("openai/gpt-4o", api_base=f"http://127.0.0.1:{_closed_port()}/v1",
                     max_retries=6, sleep=waits.append, on_retry=told.append)
    t0 = time.perf_counter()
    with pytest.raises(LLMError, match=r"provider unreachable at http://127\.0\.0\.1:\d+/v1: "
                                       r"connection refused \(2 attempts\); check the network"):
        m.query([{"role": "user", "content": "hi"}])
    assert time.perf_counter() - t0 < 15
    assert waits == [1.0] and told[0]["failure"] == "connection" and told[0]["status"] is None


def test_rate_limits_honour_retry_after_and_server_errors_back_off(monkeypatch, openai_server):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    server = openai_server([("status", 429, {"Retry-After": "7"}), ("status", 503, {}),
                            ("reply", {"role": "assistant", "content": "done"})])
    waits = []
    m = LiteLLMModel("openai/gpt-4o", api_base=server.url, backoff_base=0.5, sleep=waits.append)
    r = m.query([{"role": "user", "content": "hi"}])
    assert r.content == "done" and len(server.requests) == 3
    assert [x["failure"] for x in r.retries] == ["rate limit", "server error"]
    assert [x["status"] for x in r.retries] == [429, 503]
    assert waits[0] == 7.0 and 0.5 <= waits[1] <= 1.0     # Retry-After; then backoff


def test_refused_credentials_are_not_retried(monkeypatch, openai_server):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    server = openai_server([("status", 401, {})])
    with pytest.raises(LLMError, match="refused the credentials"):
        LiteLLMModel("openai/gpt-4o", api_base=server.url, sleep=lambda s: None).query(
            [{"role": "user", "content": "hi"}])
    assert len(server.requests) == 1


def test_a_missing_key_is_found_without_importing_litellm():
    code = ("import sys\n"
            "from kernelcraft.workbench.llm import LiteLLMModel, LLMError\n"
            "try: LiteLLMModel('openai/gpt-4o').check_credentials()\n"
            "except LLMError as e: print(e)\n"
            "print('litellm' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120).stdout.splitlines()
    assert out == ["openai/gpt-4o: no API key in the environment; set OPENAI_API_KEY (the key "
                   "is never recorded)", "False"]
    # and `kernelcraft run` checks it before importing the loop, the tasks or litellm
    code = ("import sys\n"
            "from kernelcraft.workbench.cli import main\n"
            "rc = main(['run', '--accel', 'plena', '--task', 'relu', '--config', 'C1', "
            "'--model', 'openai/gpt-4o', '--traces', '/nonexistent/t.db'])\n"
            "print(rc, 'litellm' in sys.modules, 'kernelcraft.workbench.agent.loop' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.stdout.split() == ["2", "False", "False"], r.stderr
    assert "no API key in the environment; set OPENAI_API_KEY" in r.stderr
