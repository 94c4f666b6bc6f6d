"""An LLM as the agent: the conversation and the tool schemas go to any model that
litellm reaches (workbench/llm.py); its reply comes back as it is, and the loop
deals with whatever it contains."""
from __future__ import annotations

from kernelcraft.workbench.llm import LiteLLMModel, Reply

from .loop import LoopState, Transfer


class LLMAgent:
    name = "llm"

    def __init__(self, model: LiteLLMModel):
        self.llm = model
        self.model = model.model

    def settings(self) -> dict:
        return {"agent": "llm", **self.llm.settings()}

    def act(self, state: LoopState) -> Reply:
        # Retries are recorded as they happen, so a run killed during a long back-off
        # still shows why it was waiting.
        self.llm.on_retry = lambda info: state.note({"kind": "retry", **info})
        return self.llm.query(state.messages, state.tools)

    def transfer(self, config: str, hw) -> Transfer | None:
        return None      # an LLM's kernel is tried unchanged (see scoring.py)
