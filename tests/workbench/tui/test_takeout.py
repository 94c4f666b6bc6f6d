"""Getting things out of the run view: save, copy and $EDITOR a kernel, export the run
(Markdown, JSON lines), diff a kernel against another version or the baseline."""
from __future__ import annotations

import json
import stat

from test_pilot import drive, open_run
from tui_kit import screen_text, wait_for

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.tui.model.takeout import TakeoutError, free_path


def test_free_path_never_overwrites(tmp_path):
    assert free_path(tmp_path, "a.asm") == tmp_path / "a.asm"
    (tmp_path / "a.asm").write_text("x")
    assert free_path(tmp_path, "a.asm") == tmp_path / "a-2.asm"


def test_save_copy_export_and_compare(sample_db, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    editor = tmp_path / "fake-editor"
    editor.write_text(f"#!/bin/sh\ncp \"$1\" {tmp_path}/edited.asm\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)

    async def script(app, pilot):
        run = await open_run(app, pilot, 1)
        await pilot.press("s")                                # step 0: no kernel yet
        assert any("no kernel at this step" in n.message for n in app._notifications)
        await pilot.press("right", "right", "right")           # version 2
        source = app.reader.cached_kernel(run.trace.kernel_at(run.index).hash).source
        await pilot.press("s", "s")
        assert (tmp_path / "run1-v2.asm").read_text() == source
        assert (tmp_path / "run1-v2-2.asm").read_text() == source      # not overwritten
        await pilot.press("y")
        assert app.clipboard == source
        await pilot.press("o")
        assert (tmp_path / "edited.asm").read_text() == source
        await pilot.press("E", "enter")                        # md, the default
        assert await wait_for(pilot, lambda: (tmp_path / "run1.md").exists())
        assert (tmp_path / "run1.md").read_text().startswith("# Run 1: plena / relu / C2")
        await pilot.press("E", *["backspace"] * 2, *"jsonl", "enter")
        assert await wait_for(pilot, lambda: (tmp_path / "run1.jsonl").exists())
        first = json.loads((tmp_path / "run1.jsonl").read_text().splitlines()[0])
        assert first["record"] == "run" and first["id"] == 1
        # diff against the baseline, then against version 1, then back to the default
        await pilot.press("V", *"baseline", "enter")
        assert "the baseline → version 2" in screen_text(app)
        await pilot.press("V", *["backspace"] * 8, *"1", "enter")
        assert "version 1 → version 2" in screen_text(app)
        await pilot.press("V", *["backspace"] * 8, *"9", "enter")
        assert any("no kernel version 9" in n.message for n in app._notifications)
        assert run.diff_against == ""
    drive(sample_db, script)


def test_diff_base_refuses_what_is_not_there(sample_db):
    from kernelcraft.workbench.store import TraceStore
    from kernelcraft.workbench.tui.model.takeout import diff_base
    from kernelcraft.workbench.tui.model.trace import RunTrace
    store = TraceStore(sample_db, readonly=True)
    trace = RunTrace(store.run(1))
    trace.add(store.events(1))
    src = lambda h: store.kernel(h).source  # noqa: E731
    base = lambda: get_accel("plena").baseline("relu", "C2", get_accel("plena").default_config())  # noqa: E731
    assert diff_base(trace, "baseline", src, base)[1] == "the baseline"
    assert diff_base(trace, "v1", src, base)[1] == "version 1"
    import pytest
    with pytest.raises(TakeoutError, match="kernel version .* or 'baseline'"):
        diff_base(trace, "latest", src, base)


def test_two_runs_side_by_side(sample_db):
    from kernelcraft.workbench.tui.screens.compare import CompareScreen

    async def script(app, pilot):
        run = await open_run(app, pilot, 1)
        await pilot.press("C", *["backspace"] * 3, *"2", "enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen)
                              and app.screen.traces, timeout=10)
        text = screen_text(app)
        rows = {ln.split()[0]: ln for ln in text.splitlines() if ln.strip()}
        assert "run 1" in text and "run 2" in text
        assert rows["cell"].split()[1:] == ["plena/relu/C2", "plena/relu/C1"]
        assert "v2 (step 3) 1,702 cycles 1.00x" in rows["best"]
        assert "FAIL 1,702 cycles" in rows["H1"] and "PASS 19,185 cycles 1.00x" in rows["H1"]
        assert "run 1 best correct kernel v2 → run 2 best correct kernel v" in text
        assert "1,702c" in text and "179c" in text             # each run's steps
        await pilot.press("escape")
        assert app.screen is run
        await pilot.press("C", *["backspace"] * 3, *"99", "enter")
        assert await wait_for(pilot, lambda: "cannot compare" in screen_text(app), timeout=10)
        assert "no run 99" in screen_text(app)
    drive(sample_db, script)


def test_two_runs_side_by_side_fit_80x24(sample_db):
    """At 80x24 every fact is one whole row (the two runs' cells line up), the steps
    scroll into view with j, and the diff keeps its rows below."""
    from kernelcraft.workbench.tui.screens.compare import CompareScreen

    async def script(app, pilot):
        await open_run(app, pilot, 1)
        app.push_screen(CompareScreen(1, 2))
        assert await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen)
                              and app.screen.traces, timeout=10)
        await pilot.pause(0.1)
        lines = screen_text(app).splitlines()
        for label, first, second in (("cell", "plena/relu/C2", "plena/relu/C1"),
                                     ("tokens", "6,500/870  $0.0464", "0/0  $0"),
                                     ("held-out", "PASS 1,702 cycles", "PASS 179 cycles")):
            row = next(ln for ln in lines if ln.split()[:1] == [label])
            assert first in row and second in row and row.index(first) < row.index(second)
            assert row.index(second) in range(40, 48)              # the second column
        assert "3 ✓    1,702c" not in screen_text(app)            # below, for now
        await pilot.press(*"jjjjjj")
        assert "3 ✓    1,702c" in screen_text(app)
        diff = app.screen.query_one("#compare-diff")
        assert diff.size.height >= 8
        top = diff.scroll_y
        await pilot.press("pagedown")
        assert diff.scroll_y > top
        assert "esc Back" in screen_text(app).splitlines()[-1]
    drive(sample_db, script, size=(80, 24))
