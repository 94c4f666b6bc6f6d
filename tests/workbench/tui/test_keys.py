"""keys.toml: every screen's bindings as data, read by workbench/tui/keys.py; each
names an action its screen has, and a malformed entry is named with what is wrong."""
from __future__ import annotations

import pytest

from kernelcraft.workbench.tui import keys
from kernelcraft.workbench.tui.app import KernelCraftApp, all_binding_ids
from kernelcraft.workbench.tui.screens.compare import CompareScreen
from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen
from kernelcraft.workbench.tui.screens.help import HelpScreen
from kernelcraft.workbench.tui.screens.leaderboard import LeaderboardScreen
from kernelcraft.workbench.tui.screens.new_run import NewRunScreen
from kernelcraft.workbench.tui.screens.picker import PickerScreen
from kernelcraft.workbench.tui.screens.prompt import TextPrompt
from kernelcraft.workbench.tui.screens.run import RunScreen
from kernelcraft.workbench.tui.widgets.picker.run_table import RunTable

OWNERS = {"app": KernelCraftApp, "picker": PickerScreen, "picker_table": RunTable,
          "run": RunScreen, "compare": CompareScreen, "debug": DebuggerScreen,
          "leaderboard": LeaderboardScreen, "new_run": NewRunScreen, "prompt": TextPrompt,
          "help": HelpScreen}


def test_every_table_belongs_to_a_screen_and_names_its_actions():
    assert set(keys._tables()) == set(OWNERS)
    for section, owner in OWNERS.items():
        assert owner.BINDINGS == keys.bindings(section)
        for b in owner.BINDINGS:
            name = b.action.split("(")[0]
            assert hasattr(owner, f"action_{name}"), f"[{section}] {b.id}: no action_{name}"
            assert b.id.split(".")[0] in (section, "picker"), b.id
    assert len(all_binding_ids()) == sum(len(o.BINDINGS) for o in OWNERS.values())


def test_the_footer_and_tooltips_come_from_the_table():
    by_id = {b.id: b for b in DebuggerScreen.BINDINGS}
    assert by_id["debug.step"].show and by_id["debug.step"].key == "right,l"
    assert not by_id["debug.goto"].show and "source line" in by_id["debug.goto"].tooltip
    assert {b.id: b for b in CompareScreen.BINDINGS}["compare.diff_down"].priority


@pytest.mark.parametrize("text, message", [
    ('[run]\n"run.x" = { keys = "x", action = "x" }\n', r"\[run\] run.x: lacks text"),
    ('[run]\n"run.x" = { keys = "x", action = "x", text = "X", colour = "red" }\n',
     r"\[run\] run.x: unknown field colour \(fields: keys, action, text, show, tip"),
    ('[run]\n"run.x" = "x"\n', r"\[run\] run.x: expected \{ keys, action, text"),
    ('[run]\n', r"has no \[debug\] table; tables: run"),
])
def test_a_malformed_table_is_named(tmp_path, monkeypatch, text, message):
    path = tmp_path / "keys.toml"
    path.write_text(text)
    monkeypatch.setattr(keys, "KEYS", path)
    keys._tables.cache_clear()
    try:
        with pytest.raises(keys.KeyTableError, match=message):
            keys.bindings("debug" if "debug" in message else "run")
    finally:
        keys._tables.cache_clear()
