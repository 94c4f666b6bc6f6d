"""Scripted test models for sweeps (`scripted/NAME`): fixed replies served through
litellm's custom-provider hook (workbench/agent/scripted.py), so a sweep exercises
the LLM agent, litellm, tokens and cost with no network.

- `scripted/baseline`: writes the baseline kernel, runs run_eval, submits.
- `scripted/give-up`: submits at once without a kernel (a failed cell).
"""
from __future__ import annotations

from kernelcraft.workbench.agent.scripted import ScriptedModel, call, reply


def _baseline(accel: str, task: str, config: str, hw) -> list:
    from kernelcraft.workbench.accel import get_accel
    source = get_accel(accel).baseline(task, config, hw)
    return [reply("Start from the template compiler's kernel.", call("write_code", {"code": source})),
            reply("Check it.", call("run_eval")),
            reply("It passes; submitting.", call("submit", {"summary": "the baseline"}))]


def _give_up(accel: str, task: str, config: str, hw) -> list:
    return [reply("I cannot do this one.", call("submit", {"summary": "no kernel"}))]


SCRIPTS = {"baseline": _baseline, "give-up": _give_up}


def scripted_model(name: str, accel: str, task: str, config: str, hw) -> ScriptedModel:
    return ScriptedModel(SCRIPTS[name](accel, task, config, hw), provider="scripted")
