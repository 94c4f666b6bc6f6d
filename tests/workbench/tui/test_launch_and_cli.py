"""Starting runs from the workbench (they run in their own process and open live),
and the `tui` / `demo` commands with and without a terminal."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tui_kit import SIZE, screen_text, wait_for

from kernelcraft.workbench.tui.app import KernelCraftApp, KeymapError, load_keymap
from kernelcraft.workbench.tui.model.launch import RunRequest
from kernelcraft.workbench.tui.screens.new_run import NewRunScreen
from kernelcraft.workbench.tui.screens.picker import PickerScreen
from kernelcraft.workbench.tui.screens.run import RunScreen

ROOT = Path(__file__).parents[3]


def kernelcraft(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The command as a user without a terminal runs it (stdin and stdout not a tty)."""
    return subprocess.run([sys.executable, "-m", "kernelcraft.workbench.cli", *args], cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_a_run_started_from_the_picker_opens_live(tmp_path):
    db = tmp_path / "traces.db"

    async def go():
        app = KernelCraftApp(db)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen)
                           and app.screen.loaded)
            assert "no trace store" in screen_text(app)
            await pilot.press("n")
            dialog = app.screen
            assert isinstance(dialog, NewRunScreen)
            dialog.query_one("#nr-agent").value = "model"
            await pilot.press("ctrl+s")
            assert "give the model as provider/model" in screen_text(app)
            dialog.query_one("#nr-model").value = "gpt"
            await pilot.press("ctrl+s")
            assert "must be a litellm provider/model string" in screen_text(app)
            dialog.query_one("#nr-agent").value = "autotune"
            dialog.query_one("#nr-task").value = "relu"
            assert await wait_for(pilot, lambda: dialog.query_one("#nr-config").value == "C1",
                                  timeout=10)
            await pilot.press("ctrl+s")
            assert await wait_for(pilot, lambda: len(app.launched) == 1, timeout=10)
            assert not isinstance(app.screen, NewRunScreen)
            assert await wait_for(pilot, lambda: isinstance(app.screen, RunScreen), timeout=60)
            run = app.screen
            assert await wait_for(pilot, lambda: run.finished_reading, timeout=60)
            assert run.trace.run.status == "succeeded" and run.trace.run.agent == "autotune"
            assert run.trace.steps[run.index].number == -1           # followed to the end
            assert "✓ succeeded" in screen_text(app)
            await pilot.press("escape")
            assert await wait_for(pilot, lambda: "1 run " in screen_text(app), timeout=5)
    asyncio.run(go())


def test_a_run_that_cannot_start_is_reported_with_its_reason(tmp_path):
    async def go():
        app = KernelCraftApp(tmp_path / "traces.db")
        async with app.run_test(size=SIZE) as pilot:
            app.launch_run(RunRequest("plena", "relu", "H1"))      # held out: refused
            assert await wait_for(pilot, lambda: any(
                "before recording a run" in n.message for n in app._notifications), timeout=60)
            note = next(n.message for n in app._notifications if "before recording" in n.message)
            assert "H1 is a held-out configuration" in note and "exit status 2" in note
            assert not app.launched
    asyncio.run(go())


def test_run_requests_are_checked():
    with pytest.raises(ValueError, match="either an offline agent or a model"):
        RunRequest("plena", "relu", "C1", agent=None)
    with pytest.raises(ValueError, match="budget must be at least 1"):
        RunRequest("plena", "relu", "C1", budget=0)
    argv = RunRequest("plena", "relu", "C1", pace=0.5).argv(Path("t.db"))
    assert argv[1:4] == ["-m", "kernelcraft.workbench.tui.background", "--pace"]
    argv = RunRequest("plena", "relu", "C1", agent=None, model="openai/x").argv(Path("t.db"))
    assert "--model" in argv and "openai/x" in argv and "--quiet" in argv


def test_demo_without_a_terminal_prints_the_run_and_exits_0(tmp_path):
    db = tmp_path / "traces.db"
    r = kernelcraft("demo", "--task", "relu", "--config", "C1", "--traces", str(db))
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "no terminal: plain text view" in out and "following run 1" in out
    assert "step 1: Start from the baseline template" in out
    assert "run_eval ok: kernel version 1: PASS" in out and "cycles:" in out
    assert "run 1 succeeded" in out and "held-out seeds: PASS" in out


def test_tui_without_a_terminal_says_what_to_use_instead(sample_db):
    r = kernelcraft("tui", "--traces", str(sample_db))
    assert r.returncode == 2 and "needs an interactive terminal" in r.stderr
    r = kernelcraft("tui", "--traces", str(sample_db), "--run", "1")
    assert r.returncode == 0 and "following run 1" in r.stdout and "run 1 succeeded" in r.stdout
    r = kernelcraft("tui", "--traces", str(sample_db.parent / "none.db"), "--run", "1")
    assert r.returncode == 2 and "no trace store at" in r.stderr


def test_keymaps_are_checked(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text('"run.next_step" = "n,right"\n')
    assert load_keymap(good) == {"run.next_step": "n,right"}
    bad = tmp_path / "bad.toml"
    bad.write_text('"run.fly" = "f"\n')
    with pytest.raises(KeymapError, match=r"unknown binding id\(s\) run.fly"):
        load_keymap(bad)
    broken = tmp_path / "broken.toml"
    broken.write_text("run.next_step = \n")
    with pytest.raises(KeymapError, match="not valid TOML"):
        load_keymap(broken)
    with pytest.raises(KeymapError, match="cannot read it"):
        load_keymap(tmp_path / "missing.toml")
    r = kernelcraft("tui", "--keymap", str(bad))
    assert r.returncode == 2 and "unknown binding id(s) run.fly" in r.stderr


def test_the_demo_opens_the_workbench_on_the_live_run(tmp_path):
    """What `kernelcraft demo` does in a terminal: the paced autotuner in the
    background, its run open live; quitting stops a run still going (interrupted)."""
    from kernelcraft.workbench.store import TraceStore
    db = tmp_path / "traces.db"
    seen = {}

    async def go():
        app = KernelCraftApp(db, request=RunRequest("plena", "relu", "C1", pace=3.0),
                             stop_launched_on_exit=True)
        async with app.run_test(size=SIZE) as pilot:
            assert await wait_for(pilot, lambda: isinstance(app.screen, RunScreen)
                                  and app.screen.trace is not None, timeout=60)
            assert await wait_for(pilot, lambda: "LIVE following" in screen_text(app))
            assert app.screen.trace.run.settings["demo_pace_seconds"] == 3.0
            seen["process"] = app.launched[0].process
            # the store the demo is creating is not reported missing over the run (issue 15)
            assert not any("no trace store" in n.message for n in app._notifications)
    asyncio.run(go())
    assert seen["process"].wait(20) == 130                  # stopped as interrupted
    (run,) = TraceStore(db, readonly=True).runs()
    assert run.status == "interrupted" and run.agent == "autotune"


def test_the_readme_lists_every_binding_and_command():
    from kernelcraft.workbench.tui.app import all_binding_ids
    readme = (ROOT / "workbench" / "tui" / "README.md").read_text()
    missing = [i for i in sorted(all_binding_ids()) if f"`{i}`" not in readme]
    assert not missing, f"README.md keys table lacks {missing}"
    for command in ("kernelcraft tui", "kernelcraft demo", "python -m kernelcraft.workbench.tui.bench"):
        assert command in readme
    r = kernelcraft("demo", "--help")
    assert r.returncode == 0 and "no API key" in " ".join(r.stdout.split())
