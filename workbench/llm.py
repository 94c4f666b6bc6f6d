"""LLM access through litellm: the only module of the workbench that imports it.

litellm is imported lazily (it takes seconds) and only after
LITELLM_LOCAL_MODEL_COST_MAP=True is set, so that neither `import workbench` nor a
model call fetches litellm's cost map from the network: costs come from the copy
shipped inside litellm. Keys come from the provider's usual environment variables
(OPENAI_API_KEY, ANTHROPIC_API_KEY, ...), which litellm reads itself.

`LiteLLMModel.query` returns a `Reply`: text, reasoning text where the provider
returns it, tool calls with their arguments exactly as the model sent them (the
agent loop parses them, so malformed JSON becomes a message to the model, not a
crash), token usage and cost. Failures are told apart (failure_kind): a provider that
cannot be reached is retried once after a second, then reported (no network should
not cost minutes); rate limits wait as long as the provider's Retry-After asks;
timeouts and 5xx answers are retried with exponential backoff; bad credentials and
bad requests are not retried. Every retry is kept in the Reply.
"""
from __future__ import annotations

import json
import os
import random
import threading
import time
import uuid
import warnings
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from kernelcraft.simulators.core.errors import KernelCraftError

DEFAULT_TIMEOUT = 300.0
DEFAULT_RETRIES = 6
RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
CONNECTION_WAIT = 1.0           # before the one retry of a provider that cannot be reached
# Provider prefix -> environment variables litellm takes its key from. Checked before
# litellm is imported (seconds), so a missing key is reported at once; providers not
# listed are checked by litellm.validate_environment.
PROVIDER_KEYS = {"openai": ("OPENAI_API_KEY",), "anthropic": ("ANTHROPIC_API_KEY",),
                 "gemini": ("GEMINI_API_KEY",), "mistral": ("MISTRAL_API_KEY",),
                 "groq": ("GROQ_API_KEY",), "deepseek": ("DEEPSEEK_API_KEY",),
                 "xai": ("XAI_API_KEY",), "openrouter": ("OPENROUTER_API_KEY",)}

_lock = threading.Lock()
_litellm = None


def litellm_module():
    """Import litellm once, offline: the local cost map, no telemetry, quiet logs."""
    global _litellm
    with _lock:
        if _litellm is None:
            os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
            os.environ.setdefault("LITELLM_LOG", "ERROR")
            import litellm
            litellm.telemetry = False
            litellm.suppress_debug_info = True
            litellm.drop_params = True  # a setting one provider lacks is dropped, not fatal
            _litellm = litellm
        return _litellm


@contextmanager
def _quiet():
    """litellm's pydantic types warn about ReadOnly TypedDict items on first use."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*ReadOnly.*qualifier", category=UserWarning)
        yield


class LLMError(KernelCraftError):
    """A model call failed for good (bad key, unknown model, retries exhausted...)."""


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str          # the JSON text exactly as the model sent it


@dataclass
class Reply:
    """One answer of an agent: what an LLM returned, or what an offline agent decided."""

    content: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = ""
    refusal: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_reasoning: int = 0
    cost: float = 0.0
    cost_known: bool = True
    model: str = ""
    latency: float = 0.0
    retries: list[dict] = field(default_factory=list)   # one entry per failed attempt
    extra: dict = field(default_factory=dict)          # provider fields to send back (thinking blocks)

    def to_dict(self) -> dict:
        return asdict(self)

    def assistant_message(self) -> dict:
        """The message to put back into the conversation for the next query."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            msg["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": c.arguments}}
                                 for c in self.tool_calls]
        msg.update(self.extra)
        return msg


def _status(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    try:
        return int(code) if code is not None else None
    except (TypeError, ValueError):
        return None


def _retry_after(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (Retry-After header), if it said."""
    for holder in (getattr(exc, "headers", None),
                   getattr(getattr(exc, "response", None), "headers", None)):
        try:
            value = holder.get("retry-after") if holder else None
        except AttributeError:
            value = None
        if value is not None:
            try:
                return max(0.0, float(value))
            except ValueError:
                return None
    return None


def _chain(exc: BaseException):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def unreachable(exc: BaseException) -> str | None:
    """Why the provider could not be reached at all (connection refused, no such host),
    found in the exception's chain; litellm reports these as status 500."""
    import socket
    seen, stack = set(), [exc]
    while stack:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, ConnectionRefusedError):
            return "connection refused"
        if isinstance(e, socket.gaierror):
            return f"host not found ({e})"
        stack += [e.__cause__, e.__context__]
    return None


def failure_kind(litellm, exc: BaseException) -> str:
    """'connection' (the provider could not be reached), 'timeout', 'rate limit',
    'server error' (5xx and other transient statuses), 'authentication' or 'fatal'.
    litellm reports a refused connection as InternalServerError (status 500), so the
    cause chain is what tells."""
    import httpx
    chain = list(_chain(exc))
    if unreachable(exc) or any(isinstance(e, (httpx.ConnectError, httpx.ConnectTimeout))
                               for e in chain):
        return "connection"
    if any(isinstance(e, (litellm.Timeout, httpx.TimeoutException)) for e in chain):
        return "timeout"
    status = _status(exc)
    if isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)) or \
            status in (401, 403):
        return "authentication"
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return "rate limit"
    if isinstance(exc, (litellm.InternalServerError, litellm.ServiceUnavailableError,
                        litellm.BadGatewayError, litellm.APIConnectionError)) or \
            status in RETRYABLE_STATUS:
        return "server error"
    return "fatal"


def _classify(litellm, exc: BaseException) -> str:
    """'retry' for transient failures, 'fatal' otherwise."""
    return "fatal" if failure_kind(litellm, exc) in ("authentication", "fatal") else "retry"


def _root_cause(exc: BaseException) -> str:
    last = list(_chain(exc))[-1]
    return (str(last).strip().splitlines() or [type(last).__name__])[0][:300]


def _fatal_message(litellm, model: str, exc: BaseException) -> str:
    detail = str(exc).strip().splitlines()[0][:500] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, litellm.AuthenticationError):
        return (f"{model}: the provider refused the credentials ({detail}); set the provider's "
                f"key in the environment (e.g. OPENAI_API_KEY, ANTHROPIC_API_KEY)")
    if isinstance(exc, litellm.NotFoundError):
        return f"{model}: model not found ({detail}); check the provider/model string"
    if isinstance(exc, litellm.ContextWindowExceededError):
        return f"{model}: the conversation no longer fits the model's context window ({detail})"
    if isinstance(exc, litellm.BadRequestError):
        return (f"{model}: request rejected ({detail}); check the provider/model string "
                f"(e.g. openai/gpt-5.2, anthropic/claude-sonnet-4-5) and its settings")
    return f"{model}: {type(exc).__name__}: {detail}"


@dataclass
class LiteLLMModel:
    """Any model litellm reaches, by its provider/model string."""

    model: str
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_RETRIES
    unreachable_retries: int = 1    # a provider that cannot be reached fails fast
    backoff_base: float = 2.0       # seconds before the first retry, doubled each time
    backoff_max: float = 120.0
    api_base: str | None = None
    params: dict = field(default_factory=dict)       # temperature, reasoning_effort, ...
    sleep: Callable[[float], None] = time.sleep
    on_retry: Callable[[dict], None] | None = None   # told about each retry as it happens
    _credentials_checked: bool = field(default=False, repr=False)

    def settings(self) -> dict:
        """What is recorded about this model in a run's settings (never a key)."""
        return {"model": self.model, "timeout": self.timeout, "max_retries": self.max_retries,
                "backoff_base": self.backoff_base, "api_base": self.api_base,
                "params": dict(self.params)}

    def backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.backoff_max)
        # Exponential with jitter, so parallel runs hitting one limit spread out.
        return min(self.backoff_max, self.backoff_base * (2 ** attempt)) * random.uniform(0.5, 1.0)

    def check_credentials(self) -> None:
        """Fail before the first request when the provider's key is not in the
        environment (litellm would report it as a retryable server error). Known
        providers are checked without importing litellm, so this takes no time."""
        if "mock_response" in self.params or "api_key" in self.params:
            return                          # nothing is sent, or the key is given
        keys = PROVIDER_KEYS.get(self.model.partition("/")[0])
        if keys is not None:
            if not any(os.environ.get(k) for k in keys):
                raise LLMError(f"{self.model}: no API key in the environment; set "
                               f"{' or '.join(keys)} (the key is never recorded)")
            return
        litellm = litellm_module()
        try:
            env = litellm.validate_environment(self.model)
        except Exception:  # noqa: BLE001 -- an unknown provider is reported by the request
            return
        missing = [k for k in env.get("missing_keys") or [] if k.endswith("_API_KEY")]
        if missing and not env.get("keys_in_environment"):
            raise LLMError(f"{self.model}: no API key in the environment; set "
                           f"{' or '.join(missing)} (the key is never recorded)")

    def query(self, messages: list[dict], tools: list[dict] | None = None) -> Reply:
        if not self._credentials_checked:
            self.check_credentials()
            self._credentials_checked = True
        litellm = litellm_module()
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages,
                                  "timeout": self.timeout, "num_retries": 0, "max_retries": 0,
                                  **self.params}
        if tools:
            kwargs["tools"] = tools
        if self.api_base:
            kwargs["api_base"] = self.api_base
        retries: list[dict] = []
        t0 = time.perf_counter()
        for attempt in range(self.max_retries + 1):
            try:
                with _quiet():
                    response = litellm.completion(**kwargs)
                break
            except Exception as exc:  # noqa: BLE001 -- classified below, re-raised as LLMError
                kind = failure_kind(litellm, exc)
                if kind in ("authentication", "fatal"):
                    raise LLMError(_fatal_message(litellm, self.model, exc)) from exc
                if kind == "connection":
                    why = unreachable(exc) or _root_cause(exc)
                    if attempt >= min(self.unreachable_retries, self.max_retries):
                        raise LLMError(f"{self.model}: provider unreachable at "
                                       f"{self.api_base or 'its default address'}: {why} "
                                       f"({attempt + 1} attempts); check the network or "
                                       f"--api-base") from exc
                    detail, status, wait = why, None, CONNECTION_WAIT
                else:
                    detail = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
                    status = _status(exc)
                    if attempt == self.max_retries:
                        raise LLMError(f"{self.model}: gave up after {attempt + 1} attempts; "
                                       f"last error: {kind}, {type(exc).__name__} (status "
                                       f"{status}): {detail}") from exc
                    wait = self.backoff(attempt, _retry_after(exc))
                info = {"attempt": attempt + 1, "failure": kind, "error": type(exc).__name__,
                        "status": status, "detail": detail, "wait": round(wait, 3)}
                retries.append(info)
                if self.on_retry:
                    self.on_retry(info)
                self.sleep(wait)
        with _quiet():
            reply = parse_response(litellm, response, self.model)
        reply.latency = time.perf_counter() - t0
        reply.retries = retries
        return reply


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def parse_response(litellm, response: Any, model: str) -> Reply:
    choices = _get(response, "choices") or []
    if not choices:
        return Reply(model=model, finish_reason="no_choices")
    choice = choices[0]
    msg = _get(choice, "message")
    calls = []
    for i, tc in enumerate(_get(msg, "tool_calls") or []):
        fn = _get(tc, "function")
        args = _get(fn, "arguments")
        if args is not None and not isinstance(args, str):
            args = json.dumps(args)
        calls.append(ToolCall(id=_get(tc, "id") or f"call_{i}_{uuid.uuid4().hex[:8]}",
                              name=_get(fn, "name") or "", arguments=args or ""))
    usage = _get(response, "usage")
    details = _get(usage, "completion_tokens_details")
    extra = {}
    blocks = _get(msg, "thinking_blocks")
    if blocks:
        # Providers with extended thinking want these back with the tool results.
        extra["thinking_blocks"] = [b if isinstance(b, dict) else dict(b) for b in blocks]
    cost, known = 0.0, True
    try:
        cost = float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # noqa: BLE001 -- a model missing from the cost map costs "unknown"
        known = False
    return Reply(
        content=_get(msg, "content") or "",
        reasoning=_get(msg, "reasoning_content") or "",
        tool_calls=calls,
        finish_reason=_get(choice, "finish_reason") or "",
        refusal=_get(msg, "refusal") or "",
        tokens_in=int(_get(usage, "prompt_tokens") or 0),
        tokens_out=int(_get(usage, "completion_tokens") or 0),
        tokens_reasoning=int(_get(details, "reasoning_tokens") or 0),
        cost=cost, cost_known=known, model=_get(response, "model") or model, extra=extra)


# ---------------------------------------------------------------- scripted providers

class ScriptedFailure(Exception):
    """Raised by a scripted responder to make the provider fail with an HTTP status."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def register_provider(name: str, respond: Callable[[list[dict], list[dict]], dict]) -> str:
    """Make `name/<anything>` a litellm provider answered by `respond(messages, tools)`.

    `respond` returns {"content", "reasoning", "tool_calls": [{"name", "arguments",
    "id"?}], "usage": {"prompt_tokens", "completion_tokens", "reasoning_tokens"}} (all
    optional) or raises ScriptedFailure(status, message). This goes through litellm's
    custom-provider hook, so the scripted path is litellm's own, with no network.
    Returns the model prefix to use ("name/")."""
    litellm = litellm_module()
    from litellm import CustomLLM
    from litellm.llms.custom_llm import CustomLLMError

    class _Scripted(CustomLLM):
        def completion(self, model, messages, api_base, custom_prompt_dict, model_response,
                       print_verbose, encoding, api_key, logging_obj, optional_params,
                       *args, **kwargs):
            try:
                out = respond(messages, optional_params.get("tools") or [])
            except ScriptedFailure as f:
                raise CustomLLMError(status_code=f.status, message=str(f)) from None
            return scripted_response(litellm, model, out)

    with _lock:
        litellm.custom_provider_map = [p for p in litellm.custom_provider_map
                                       if p.get("provider") != name]
        litellm.custom_provider_map.append({"provider": name, "custom_handler": _Scripted()})
        # litellm reads the map into its provider list when a call is made.
        from litellm.utils import custom_llm_setup
        custom_llm_setup()
    return f"{name}/"


def scripted_response(litellm, model: str, out: dict):
    calls = [{"id": c.get("id") or f"call_{uuid.uuid4().hex[:12]}", "type": "function",
              "function": {"name": c.get("name", ""),
                           "arguments": c["arguments"] if isinstance(c.get("arguments"), str)
                           else json.dumps(c.get("arguments", {}))}}
             for c in out.get("tool_calls") or []]
    message: dict[str, Any] = {"role": "assistant", "content": out.get("content")}
    if calls:
        message["tool_calls"] = calls
    if out.get("reasoning"):
        message["reasoning_content"] = out["reasoning"]
    usage = out.get("usage") or {}
    return litellm.ModelResponse(
        model=model,
        choices=[{"index": 0, "message": message,
                  "finish_reason": "tool_calls" if calls else out.get("finish_reason", "stop")}],
        usage={"prompt_tokens": usage.get("prompt_tokens", 0),
               "completion_tokens": usage.get("completion_tokens", 0),
               "total_tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0),
               "completion_tokens_details": {"reasoning_tokens": usage.get("reasoning_tokens", 0)}})
