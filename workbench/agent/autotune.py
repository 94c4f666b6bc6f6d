"""`autotune`, the embedded offline agent: a search over the baseline template's
parameters, driven only by tool feedback.

It starts from the baseline (the template at its default parameters), then tries one
parameter change per iteration, coordinate by coordinate through `Template.space`
(nearest values first) and, once no single change helps, pair moves (two parameters a
step each), and keeps a change only when `run_eval` says the kernel is correct and
takes fewer cycles than the best so far. Each candidate is written with
`write_code` and measured with `run_eval`, the same tools and trace an LLM gets; the
reply's text is a short plain-language rationale. Settings the template itself
rejects for this configuration (it says why) are skipped without spending an
iteration. When no untried neighbour of the best setting is left, it submits.

Its method carries over to held-out configurations: the best parameters are
rendered again for them (`transfer`).
"""
from __future__ import annotations

import itertools
import json

from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.llm import Reply, ToolCall

from .loop import LoopState, Transfer

MAX_TRANSFER_TRIES = 4096


def _fmt(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "no parameters"


def _key(params: dict) -> str:
    return json.dumps(params, sort_keys=True)


class AutotuneAgent:
    name = "autotune"
    model = None

    def __init__(self, accel: str, task: str):
        templates = get_accel(accel).baseline_templates()
        if task not in templates:
            raise ValueError(f"autotune needs a baseline template for {task!r} on {accel}; "
                             f"templates exist for: {', '.join(sorted(templates)) or 'none'}")
        self.accel, self.task_name = accel, task
        self.template = templates[task]
        self.task = get_task(task)
        self.tried: dict[str, dict] = {}       # params key -> {"params", "passed", "cycles"}
        self.skipped: dict[str, str] = {}      # params key -> why the template refused
        self.best: dict | None = None          # {"params", "cycles"}
        self.pending: dict | None = None       # params sent, feedback not yet read
        self.sources: dict[str, str] = {}      # kernel source -> params key that produced it
        self.baseline_cycles: int | None = None

    def settings(self) -> dict:
        return {"agent": "autotune", "template": self.task_name,
                "defaults": self.template.params,
                "space": {k: list(v) for k, v in self.template.space.items()}}

    # ------------------------------------------------------------------ feedback
    def _read_feedback(self, state: LoopState) -> str:
        """Update the search from the last run_eval result; say what it showed."""
        if self.pending is None:
            return ""
        params, self.pending = self.pending, None
        result = next((o for o in state.last_outcomes if o.name == "run_eval" and o.ok), None)
        if result is None:
            self.tried[_key(params)] = {"params": params, "passed": False, "cycles": None}
            return f"{_fmt(params)} could not be evaluated."
        passed, cycles = bool(result.data.get("passed")), int(result.data.get("cycles") or 0)
        self.tried[_key(params)] = {"params": params, "passed": passed, "cycles": cycles}
        if self.baseline_cycles is None and result.data.get("baseline_cycles"):
            self.baseline_cycles = int(result.data["baseline_cycles"])
        if not passed:
            return f"{_fmt(params)} is not correct ({result.data.get('status')}); discarded."
        if self.best is None:
            self.best = {"params": params, "cycles": cycles}
            return f"{_fmt(params)} is correct at {cycles} cycles; this is the starting point."
        if cycles < self.best["cycles"]:
            gain = self.best["cycles"] / cycles
            old = self.best
            self.best = {"params": params, "cycles": cycles}
            return (f"{_fmt(params)} is correct at {cycles} cycles, {gain:.2f}x faster than "
                    f"{_fmt(old['params'])} ({old['cycles']} cycles); keeping it.")
        return (f"{_fmt(params)} is correct but takes {cycles} cycles, not fewer than the best "
                f"{self.best['cycles']}; keeping {_fmt(self.best['params'])}.")

    # ------------------------------------------------------------------ search
    def _neighbours(self) -> list[tuple[tuple[str, ...], dict]]:
        """Changes of the best setting: every single-parameter change (nearest values
        first), then pair moves, two parameters one step each, for the optima a
        coordinate search cannot leave (a register budget that frees room in one
        parameter only when another shrinks)."""
        base = self.best["params"] if self.best else dict(self.template.params)
        space = {n: list(v) for n, v in self.template.space.items()}

        def here(name):
            return space[name].index(base[name]) if base[name] in space[name] else 0
        out = []
        for name, values in space.items():
            for v in sorted(values, key=lambda v: (abs(values.index(v) - here(name)), values.index(v))):
                if v != base[name]:
                    out.append(((name,), {**base, name: v}))
        for a, b in itertools.combinations(space, 2):
            for da, db in itertools.product((-1, 1), repeat=2):
                ia, ib = here(a) + da, here(b) + db
                if 0 <= ia < len(space[a]) and 0 <= ib < len(space[b]):
                    out.append(((a, b), {**base, a: space[a][ia], b: space[b][ib]}))
        return out

    def _render(self, params: dict, config: str, hw) -> str:
        return self.template.render(self.task, config, hw, **params)

    def _next_candidate(self, state: LoopState) -> tuple[dict, str, str] | None:
        """(params, source, why) of the next setting worth a run_eval, or None."""
        if not self.tried:
            params = dict(self.template.params)
            return params, self._render(params, state.spec.config, state.hw), (
                f"Start from the baseline template ({_fmt(params)}) to measure the reference "
                f"point.")
        if self.best is None:
            return None      # the baseline itself failed: nothing trustworthy to tune from
        for names, params in self._neighbours():
            key = _key(params)
            if key in self.tried or key in self.skipped:
                continue
            try:
                source = self._render(params, state.spec.config, state.hw)
            except ValueError as e:
                self.skipped[key] = str(e)
                continue
            if source in self.sources:       # e.g. a block longer than the sequence: same kernel
                self.tried[key] = {**self.tried[self.sources[source]], "params": params}
                continue
            change = " and ".join(f"{n}={params[n]} instead of {self.best['params'][n]}" for n in names)
            why = "keeping the rest of the best setting"
            if len(names) > 1:
                why = "together, since no single change helped; " + why
            return params, source, f"Try {change}, {why}."
        return None

    def act(self, state: LoopState) -> Reply:
        seen = self._read_feedback(state)
        skipped_before = set(self.skipped)
        nxt = self._next_candidate(state)
        newly_skipped = [f"{_fmt(json.loads(k))} does not fit ({self.skipped[k]})"
                         for k in self.skipped if k not in skipped_before]
        parts = [p for p in [seen, *[f"Skipped {s}." for s in newly_skipped]] if p]
        if nxt is None:
            parts.append(self._conclusion())
            return Reply(content=" ".join(parts), model="autotune", tool_calls=[
                ToolCall(f"call_{state.step}_0", "submit",
                         json.dumps({"summary": self._conclusion()}))])
        params, source, why = nxt
        self.pending = params
        self.sources[source] = _key(params)
        parts.append(why)
        if state.remaining == 0:
            parts.append("This is the last iteration of the budget.")
        return Reply(content=" ".join(parts), model="autotune", tool_calls=[
            ToolCall(f"call_{state.step}_0", "write_code", json.dumps({"code": source})),
            ToolCall(f"call_{state.step}_1", "run_eval", "{}")])

    def _conclusion(self) -> str:
        if self.best is None:
            return "The baseline template did not pass run_eval, so there is nothing to tune."
        text = f"Best setting: {_fmt(self.best['params'])} at {self.best['cycles']} cycles"
        if self.baseline_cycles:
            text += f" ({self.baseline_cycles / self.best['cycles']:.2f}x over the baseline)"
        return text + f", after {len(self.tried)} evaluated settings."

    def transfer(self, config: str, hw) -> Transfer:
        """The best setting rendered for `config`; if the template refuses it there
        (shapes differ), the nearest setting in the space that it accepts."""
        best = self.best["params"] if self.best else dict(self.template.params)
        try:
            return Transfer(self._render(best, config, hw),
                            f"template {self.task_name} re-rendered with {_fmt(best)}")
        except ValueError as e:
            refusal = str(e)
        for params in self._by_distance(best)[:MAX_TRANSFER_TRIES]:
            try:
                source = self._render(params, config, hw)
            except ValueError:
                continue
            return Transfer(source, f"template {self.task_name} with {_fmt(params)}, the setting "
                                    f"nearest to the best ({_fmt(best)}) that fits {config} "
                                    f"({refusal})")
        return Transfer(None, f"no setting of the {self.task_name} template fits {config} "
                              f"({refusal})")

    def _by_distance(self, centre: dict) -> list[dict]:
        names = list(self.template.space)
        combos = [dict(zip(names, vals)) for vals in
                  itertools.islice(itertools.product(*(self.template.space[n] for n in names)),
                                   MAX_TRANSFER_TRIES)]

        def distance(p: dict) -> tuple:
            d = [abs(list(self.template.space[n]).index(p[n]) -
                     (list(self.template.space[n]).index(centre[n])
                      if centre[n] in self.template.space[n] else 0)) for n in names]
            return (sum(d), [list(self.template.space[n]).index(p[n]) for n in names])
        return sorted(combos, key=distance)
