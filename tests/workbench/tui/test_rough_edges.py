"""Regression tests for the rough edges a user hit (issue 15, item 6), one each."""
from __future__ import annotations

import asyncio

from test_pilot import drive, open_run
from tui_kit import screen_text, wait_for

from kernelcraft.workbench.store import TraceStore
from kernelcraft.workbench.tui.app import KernelCraftApp


def test_run_list_cursor_stays_on_its_run_when_new_runs_appear(sample_copy):
    async def script(app, pilot):
        table = app.screen.query_one("#runs")
        table.move_to_run(2)
        await pilot.pause(0.1)
        with TraceStore(sample_copy) as store:
            new = store.start_run("plena", "relu", "C1", agent="llm")
            store.finish_run(new, "interrupted") if hasattr(store, "finish_run") else None
        assert await wait_for(pilot, lambda: any(r.run.id == new for r in app.screen.rows),
                              timeout=5)
        await pilot.pause(0.2)
        assert table.current_run_id == 2
        assert table.get_row_index("2") == table.cursor_row
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: getattr(app.screen, "run_id", None) == 2)
    drive(sample_copy, script)


def test_numeric_filters_compare_numbers(sample_db):
    import pytest

    from kernelcraft.workbench.tui.model import runs
    rows = [runs.RunRow(r) for r in TraceStore(sample_db, readonly=True).runs()]
    ids = lambda f: [r.run.id for r in runs.select(rows, f, "id", False)]  # noqa: E731
    assert ids("steps:>3") == [1]
    assert ids("steps:>=2") == [1, 2]
    assert ids("speedup:>=1") == [1, 2]            # run 3 has no speed-up: never matches
    assert ids("speedup:>1.5") == []
    assert ids("-speedup:>1.5") == [1, 2, 3]
    assert ids("cost:>0 id:<5") == [1]
    assert ids("speedup:=1.00x") == [1, 2]
    with pytest.raises(runs.FilterError, match="task is not a number"):
        runs.select(rows, "task:>3", "id", True)
    with pytest.raises(runs.FilterError, match="'fast' is not a number"):
        runs.select(rows, "speedup:>fast", "id", True)


def test_vi_keys_and_home_end_move_in_the_run_list(sample_db):
    async def script(app, pilot):
        table = app.screen.query_one("#runs")
        assert table.current_run_id == 3                   # newest first
        await pilot.press("j")
        assert table.current_run_id == 2
        await pilot.press("G")
        assert table.current_run_id == 1
        await pilot.press("k")
        assert table.current_run_id == 2
        await pilot.press("g")
        assert table.current_run_id == 3
        await pilot.press("end")
        assert table.current_run_id == 1
        await pilot.press("home")
        assert table.current_run_id == 3
        await pilot.press("question_mark")
        assert "picker.last" in screen_text(app)          # listed on the help screen
    drive(sample_db, script)


def test_cost_reads_the_same_in_the_app_and_the_cli(sample_db, capsys):
    from kernelcraft.workbench.cli import main
    from kernelcraft.workbench.tui.model import runs
    rows = {r.id: runs.RunRow(r) for r in TraceStore(sample_db, readonly=True).runs()}
    assert rows[1].cell("cost") == "$0.0464" and rows[2].cell("cost") == "$0"
    assert main(["runs", "--traces", str(sample_db)]) == 0
    out = capsys.readouterr().out
    line2 = next(ln for ln in out.splitlines() if ln.split("\t")[0] == "2")   # piped: TSV
    assert line2.rstrip().endswith("$0") and "$0.0000" not in out


def test_one_run_is_not_plural(tmp_path):
    db = tmp_path / "traces.db"
    with TraceStore(db) as store:
        store.start_run("plena", "relu", "C1", agent="llm")

    async def script(app, pilot):
        text = screen_text(app)
        assert "1 run " in text and "1 runs" not in text
    drive(db, script)


def test_kernel_title_follows_the_step_shown(sample_db):
    """Step 2 keeps step 1's kernel: its title says where it came from, and going back
    says 'written at this step' again (it used to stick)."""
    async def script(app, pilot):
        await open_run(app, pilot, 1)
        await pilot.press("right")
        assert "kernel version 1 (written at this step)" in screen_text(app)
        await pilot.press("right")
        text = screen_text(app)
        assert "kernel version 1 (from step 1)" in text and "written at this step" not in text
        await pilot.press("left")
        assert "kernel version 1 (written at this step)" in screen_text(app)
    drive(sample_db, script)


def test_coral_ebreak_is_not_called_a_breakpoint():
    """The program's own ebreak ends the run; the debugger's breakpoints are lines."""
    from kernelcraft.workbench.tui.model.debugger import DebugSession
    s = DebugSession.bare("coral", "li a0, 3\nebreak\n")
    assert s.main.result.stop == "break"
    assert s.stop_reason == ("ended by the program's own ebreak after 2 instructions (the "
                             "program stops there; not a debugger breakpoint)")


def test_heat_map_worst_says_it_is_relative_to_the_tolerance():
    import numpy as np

    from kernelcraft.workbench.tui.model.heat import HeatMap
    from kernelcraft.workbench.tui.widgets.common.heatmap import render_map
    m = HeatMap("y", np.array([[0.5, 58.5]]), np.array([[0, 3]]), 1, 4, (1, 8), "abs err / atol")
    text = render_map(m, 60).plain
    assert "worst 58.5x tolerance" in text and "1.0 = tolerance" in text


def test_sort_arrow_shows_on_narrow_columns(sample_db):
    async def script(app, pilot):
        header = lambda: next(ln for ln in screen_text(app).splitlines()  # noqa: E731
                              if " status" in ln and "accel" in ln)
        assert "run ▼" in header()                       # "run" is wider than its ids
        app.screen.sort_key, app.screen.descending = "config", False
        app.screen._show()
        await pilot.pause(0.1)
        assert "config ▲" in header()
    drive(sample_db, script)


# ---------------------------------------------------------------- 80x24 first
def _debugger(accel, task, config, script, size=(80, 24)):
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen
    acc = get_accel(accel)
    screen = DebuggerScreen(accel, task, config, acc.baseline(task, config, acc.default_config()),
                            seed=1)

    async def go():
        app = KernelCraftApp(None, debug=screen)
        async with app.run_test(size=size) as pilot:
            assert await wait_for(pilot, lambda: screen.session is not None, timeout=30)
            await pilot.pause(0.1)
            await script(app, pilot, screen)
    asyncio.run(go())


def test_aie_debugger_at_80x24_shows_the_current_line_and_the_outputs():
    async def script(app, pilot, dbg):
        await pilot.press("l", "l", "l")
        text = screen_text(app)
        line = dbg.session.current_line()
        assert f"▶{line:>2} " in text or f"▶ {line} " in text     # the line about to issue
        assert "out of tolerance" in text                          # the output comparison
    _debugger("aie", "relu", "C1", script)


def test_plena_registers_at_80x24_keep_a_regs_strides_and_accumulators():
    async def script(app, pilot, dbg):
        await pilot.press(*["l"] * 11)
        text = screen_text(app)
        assert "a7=" in text and "STRIDE=64" in text and "gp15=" in text
        assert "registers 1/2   r: next page" in text
        await pilot.press("r")
        text = screen_text(app)
        assert "MM_ACC max|x|" in text and "BMV_ACC max|x|" in text and "LOOPS=" in text
    _debugger("plena", "relu", "C1", script)


def test_registers_reflow_when_the_terminal_is_resized():
    async def script(app, pilot, dbg):
        await pilot.press(*["l"] * 11)
        assert "registers 1/2" not in screen_text(app)           # all on one page at 160x45
        assert "MM_ACC[4, 4] max|x|" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "registers 1/2" in text and "a7=" in text          # reflowed, not cut
        await pilot.resize_terminal(160, 45)
        await pilot.pause(0.2)
        assert "registers 1/2" not in screen_text(app)
    _debugger("plena", "relu", "C1", script, size=(160, 45))


def test_run_view_at_80x24_gives_the_kernel_room_and_keeps_the_footer_keys(sample_db):
    async def script(app, pilot):
        run = await open_run(app, pilot, 1)
        await pilot.press("right")
        await pilot.pause(0.1)
        lines = screen_text(app).splitlines()
        footer = lines[-2] if not lines[-1].strip() else lines[-1]
        for key in ("d Debug", "esc Runs", "q Quit", "? Help"):
            assert key in footer, footer
        assert run.query_one("#kernel-view").size.width >= 45
        assert any("S_ADDI_INT gp6, gp0, 256" in ln for ln in lines)
    drive(sample_db, script, size=(80, 24))


def test_prompt_starts_collapsed_and_search_finds_text_inside_it(sample_db):
    async def script(app, pilot):
        run = await open_run(app, pilot, 1)
        assert run.index == 0
        text = screen_text(app)
        assert "more lines (e expands, / searches the run)" in text
        assert "M_BMV_WO" not in run.query_one("#conversation").plain     # the manual: collapsed
        await pilot.press("right", "right")
        await pilot.press("slash", *"M_BMV_WO", "enter")
        await pilot.pause(0.2)
        assert run.index == 0 and run.expanded                      # found in the prompt
        assert "M_BMV_WO" in screen_text(app)                       # scrolled into view
        await pilot.press("n")                                       # the only step holding it
        assert run.index == 0
        await pilot.press("slash", *"view_output", "enter")
        await pilot.pause(0.1)
        first = run.index
        assert "view_output" in run.query_one("#conversation").plain
        await pilot.press("n")
        assert run.index != first or "view_output" in screen_text(app)
        await pilot.press("slash", *"no such words anywhere", "enter")
        assert any("is not in this run" in n.message for n in app._notifications)
    drive(sample_db, script)


def test_page_keys_page_a_long_step_instead_of_changing_step(sample_db):
    async def script(app, pilot):
        run = await open_run(app, pilot, 1)
        await pilot.press("e")                                       # the whole prompt
        conv = run.query_one("#conversation")
        assert conv.scroll_y == 0
        await pilot.press("pagedown", "pagedown")
        await pilot.pause(0.1)
        assert run.index == 0 and conv.scroll_y >= 2 * (conv.size.height - 2)
        await pilot.press("pageup")
        await pilot.pause(0.1)
        assert run.index == 0 and 0 < conv.scroll_y
    drive(sample_db, script)


def test_debugger_footer_at_80x24_keeps_back_quit_and_help():
    async def script(app, pilot, dbg):
        footer = [ln for ln in screen_text(app).splitlines() if ln.strip()][-1]
        for key in ("c Continue", "esc Back", "q Quit", "? Help"):
            assert key in footer, footer
    _debugger("plena", "relu", "C1", script)


def test_run_picker_columns_fit_80_columns_and_come_back_when_wider(sample_db):
    """At 80 columns the picker keeps whole columns (run, status, task, accel, config,
    steps, speed-up, cost) and names the ones it leaves out; wider, they come back."""
    async def script(app, pilot):
        picker = app.screen
        header = lambda: next(ln for ln in screen_text(app).splitlines()  # noqa: E731
                              if " status" in ln and "accel" in ln)
        shown = header().split()
        assert shown == ["run", "▼", "status", "task", "accel", "config", "steps", "speed-up",
                         "cost"]
        assert "started, tokens, H1, agent/model: wider terminal" in screen_text(app)
        row = lambda: next(ln for ln in screen_text(app).splitlines()  # noqa: E731
                           if ln.split()[:1] == ["1"])
        # The last column whole. Once (a fresh clone, Dec 6) the row read "$0.0": the cause
        # was not found, so the row is given time to settle; a lasting cut still fails.
        assert await wait_for(pilot, lambda: row().split()[-1] == "$0.0464"), row()
        await pilot.press("s")                              # s cycles the columns on screen
        assert picker.sort_key == "status"
        picker.sort_key = "cost"
        await pilot.press("s")
        assert picker.sort_key == "id"
        await pilot.resize_terminal(160, 45)
        await pilot.pause(0.2)
        assert "agent/model" in header() and "started" in header()
        assert "wider terminal" not in screen_text(app)
    drive(sample_db, script, size=(80, 24))


def test_the_sort_column_is_never_the_one_left_out(sample_db):
    from kernelcraft.workbench.tui.model import runs
    rows = [runs.RunRow(r) for r in TraceStore(sample_db, readonly=True).runs()]
    cols, limits, hidden = runs.fit_columns(runs.columns_for(rows), rows, 80, keep=("started",))
    keys = [c[0] for c in cols]
    assert "started" in keys and "started" not in hidden
    cols, limits, hidden = runs.fit_columns(runs.columns_for(rows), rows, 100, keep=("id",))
    # room for the agent column cut short: its cells are cut with an ellipsis
    assert "agent" in [c[0] for c in cols] and 12 <= limits["agent"] < 26
    assert sum(1 for _ in cols) + len(hidden) == len(runs.columns_for(rows))



def test_new_run_dialog_fits_80x24_with_its_start_button(sample_db):
    from kernelcraft.workbench.tui.screens.new_run import NewRunScreen

    async def script(app, pilot):
        await pilot.press("n")
        assert await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen))
        await pilot.pause(0.2)
        dialog = app.screen
        start = dialog.query_one("#nr-start")
        assert start.region.bottom <= 24 and start.region.height == 3     # whole, in view
        assert dialog.query_one("#nr-accel").compact
        # its own keys in the footer, not the picker's showing through from below
        footer = screen_text(app).rstrip("\n").splitlines()[-1]
        assert "esc Cancel" in footer and "^s Start" in footer, footer
        assert "New run" not in footer and "Search" not in footer, footer
        await pilot.resize_terminal(160, 45)
        await pilot.pause(0.2)
        assert not dialog.query_one("#nr-accel").compact
        assert not dialog.query_one("#new-run").has_class("short")
    drive(sample_db, script, size=(80, 24))
