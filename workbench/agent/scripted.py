"""A deterministic scripted model for tests and benchmarks, served through litellm's
custom-provider hook: the LLM agent and litellm run exactly as they would with a
real provider, with no network.

Each script item is one reply: a dict as `workbench.llm.register_provider` takes,
a callable (messages, tools) -> dict, or a `ScriptedFailure` to raise (e.g. a 429).
"""
from __future__ import annotations

import json
from typing import Callable, Union

from kernelcraft.workbench.llm import LiteLLMModel, ScriptedFailure, register_provider

Item = Union[dict, Callable[[list, list], dict], ScriptedFailure]


def call(name: str, arguments=None, id: str | None = None) -> dict:
    """A tool call; `arguments` as a dict (encoded) or a string (sent as it is)."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return {"name": name, "arguments": args, **({"id": id} if id else {})}


def reply(content: str = "", *calls: dict, reasoning: str = "",
          usage: tuple[int, int, int] = (1000, 200, 0)) -> dict:
    return {"content": content, "tool_calls": list(calls), "reasoning": reasoning,
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                      "reasoning_tokens": usage[2]}}


class ScriptedModel:
    """Answers each query with the next script item; after the script, submits."""

    def __init__(self, script: list[Item], provider: str = "scripted"):
        self.script = list(script)
        self.queries: list[list[dict]] = []          # the messages of every query
        self.provider = provider
        register_provider(provider, self._respond)

    def _respond(self, messages: list, tools: list) -> dict:
        self.queries.append(messages)
        if not self.script:
            return reply("Script finished.", call("submit", {"summary": "script finished"}))
        item = self.script.pop(0)
        if isinstance(item, ScriptedFailure):
            raise item
        return item(messages, tools) if callable(item) else item

    def model(self, name: str = "test", **kw) -> LiteLLMModel:
        kw.setdefault("backoff_base", 0.01)
        return LiteLLMModel(f"{self.provider}/{name}", **kw)
