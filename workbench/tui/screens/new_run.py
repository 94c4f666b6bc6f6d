"""Choosing a new run: accelerator, task, configuration, and the offline autotuner or
an LLM (litellm provider/model). Returns a RunRequest, or None when cancelled."""
from __future__ import annotations

from textual import on
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from ..keys import bindings
from ..model.launch import RunRequest

AUTOTUNE = "autotune"
MODEL = "model"


def _choices():
    from kernelcraft.tasks import all_tasks
    from kernelcraft.workbench.accel import NAMES
    return list(NAMES), {t.name: t for t in all_tasks()}


SHORT = 34             # rows below which the dialog is laid out compactly


class NewRunScreen(ModalScreen[RunRequest | None]):
    BINDINGS = bindings("new_run")

    def compose(self):
        accels, self.tasks = _choices()
        with Vertical(id="new-run"):
            yield Static("Start a run in the background", classes="pane-title")
            yield Label("accelerator")
            yield Select([(a, a) for a in accels], value=accels[0], allow_blank=False,
                         id="nr-accel")
            yield Label("task")
            yield Select([(f"{n} (level {t.level})", n) for n, t in self.tasks.items()],
                         value=next(iter(self.tasks)), allow_blank=False, id="nr-task")
            yield Label("configuration")
            yield Select([], id="nr-config")
            yield Label("agent")
            yield Select([("autotune (offline, no API key)", AUTOTUNE),
                          ("an LLM through litellm", MODEL)], value=AUTOTUNE,
                         allow_blank=False, id="nr-agent")
            yield Input(placeholder="provider/model, e.g. openai/gpt-5.2 (key from the "
                                    "provider's environment variable)", id="nr-model",
                        disabled=True)
            yield Input(placeholder="iteration budget (empty: 15/20/25 by level)",
                        id="nr-budget", type="integer")
            yield Static(id="nr-error")
            with Horizontal(id="nr-buttons"):
                yield Button("Start", variant="primary", id="nr-start")
                yield Button("Cancel", id="nr-cancel")
        # its own keys: without a footer the picker's below shows through (80x24)
        yield Footer()

    def on_mount(self) -> None:
        self._configs(self.query_one("#nr-task", Select).value)
        self._fit(self.app.size.height)

    def on_resize(self, event) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        """On a short terminal (80x24) one-row fields without gaps, so the whole dialog
        and its Start button are in view."""
        short = height < SHORT
        for field in self.query("#new-run Select, #new-run Input"):
            field.compact = short
        self.query_one("#new-run").set_class(short, "short")

    def _configs(self, task_name) -> None:
        task = self.tasks.get(task_name)
        configs = task.visible_configs() if task else []
        sel = self.query_one("#nr-config", Select)
        sel.set_options([(c, c) for c in configs])
        if configs:
            sel.value = configs[0]

    @on(Select.Changed, "#nr-task")
    def _task_changed(self, event: Select.Changed) -> None:
        self._configs(event.value)

    @on(Select.Changed, "#nr-agent")
    def _agent_changed(self, event: Select.Changed) -> None:
        self.query_one("#nr-model", Input).disabled = event.value != MODEL

    def _request(self) -> RunRequest:
        accel = self.query_one("#nr-accel", Select).value
        task = self.query_one("#nr-task", Select).value
        config = self.query_one("#nr-config", Select).value
        if config is Select.NULL:
            raise ValueError("choose a configuration")
        budget_text = self.query_one("#nr-budget", Input).value.strip()
        budget = int(budget_text) if budget_text else None
        if self.query_one("#nr-agent", Select).value == MODEL:
            model = self.query_one("#nr-model", Input).value.strip()
            if not model:
                raise ValueError("give the model as provider/model, e.g. openai/gpt-5.2")
            return RunRequest(str(accel), str(task), str(config), agent=None, model=model,
                              budget=budget)
        from kernelcraft.workbench.accel import get_accel
        if task not in get_accel(str(accel)).baseline_templates():
            raise ValueError(f"autotune needs a baseline template, and {accel} has none for "
                             f"{task}; choose an LLM for this task")
        return RunRequest(str(accel), str(task), str(config), budget=budget)

    @on(Button.Pressed, "#nr-start")
    def action_start(self) -> None:
        try:
            request = self._request()
        except ValueError as e:
            self.query_one("#nr-error", Static).update(f"[b red]{e}[/]")
            return
        self.dismiss(request)

    @on(Button.Pressed, "#nr-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
