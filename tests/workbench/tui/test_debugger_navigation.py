"""Debugger navigation without a UI: go to an instruction or a line, watchpoints on
registers, memory ranges and regions (stopping after the instruction that wrote
them, forwards and backwards), the output elements out of tolerance as marked
locations, and finding a value in a memory."""
from __future__ import annotations

import numpy as np
import pytest

from kernelcraft.simulators import numerics
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.tui.model.debugger import DebugSession
from kernelcraft.workbench.tui.model.navigate import (NavigationError, find_value, goto_line,
                                                      mismatches, next_write, parse_goto,
                                                      parse_watch)

ACCEL = get_accel("plena")
HW = ACCEL.default_config()
SOURCE = ACCEL.baseline("relu", "C1", HW)


@pytest.fixture
def s():
    return DebugSession.start("plena", "relu", "C1", SOURCE, seed=1)


def test_goto_parses_instructions_and_lines(s):
    assert parse_goto("120") == ("instruction", 120) and parse_goto("1,000")[1] == 1000
    assert parse_goto("L21") == ("line", 21) and parse_goto("line 21") == ("line", 21)
    with pytest.raises(NavigationError, match="instruction number"):
        parse_goto("soon")
    k = goto_line(s.main, 21)
    assert s.main.steps[k].line == 21
    s.goto(k)
    assert goto_line(s.main, 21) > k                         # the next time it runs


def test_watch_a_register_stops_after_the_instruction_that_wrote_it(s):
    w = parse_watch("gp8", s)
    assert (w.space, w.start, w.end) == ("gp", 8, 9)
    s.run(watches=[w])
    assert s.last_watch == w
    wrote = s.main.steps[s.position - 1]
    assert "gp8" in wrote.text.split(",")[0]                 # the instruction that set gp8
    before = s.position
    s.run(watches=[w])
    assert s.position > before and "gp8" in s.main.steps[s.position - 1].text
    s.run(watches=[w], forward=False)
    assert s.position == before                             # back to the previous write
    assert parse_watch("STRIDE", s).space == "csr"
    assert parse_watch("MM_ACC", s).end == np.size(s.main.registers["MM_ACC"])


def test_watch_a_memory_range_or_region(s):
    y = s.layout.by_role("output")[0]
    w = parse_watch(y.name, s)
    s.run(watches=[w])
    step = s.main.steps[s.position - 1]
    assert step.text.startswith("H_STORE_V")                 # the first store into y
    first = s.position
    s.goto(0)
    assert next_write(s.main, [parse_watch(f"hbm:{y.address}+4", s)])[0] == first
    assert parse_watch("vsram:64..79", s).end == 80
    with pytest.raises(NavigationError, match="no memory 'sram'"):
        parse_watch("sram:3", s)
    with pytest.raises(NavigationError, match="outside vsram"):
        parse_watch("vsram:99999999", s)
    with pytest.raises(NavigationError, match="watch a register"):
        parse_watch("gp99", s)
    # a breakpoint line before the watched write wins
    s.goto(0)
    s.run(breakpoints={21}, watches=[w])
    assert s.current_line() == 21 and s.last_watch is None


def test_mismatches_mark_the_output_cells_out_of_tolerance():
    wrong = SOURCE.replace("C_LOOP_START gp14, 4", "C_LOOP_START gp14, 3", 1)
    s = DebugSession.start("plena", "relu", "C1", wrong, seed=1)
    s.goto(s.length)
    (out,) = s.outputs()
    bad = mismatches(s, [out])
    y = s.layout.by_role("output")[0]
    mask = bad.mask(y.memory, y.address, y.size)
    assert int(mask.sum()) == out.comparison.n_bad > 0
    first = tuple(out.comparison.first_mismatches[0][0])
    assert mask[np.ravel_multi_index(first, y.shape)]
    good = DebugSession.start("plena", "relu", "C1", SOURCE, seed=1)
    good.goto(good.length)
    assert mismatches(good, good.outputs()).ranges == {}


def test_find_a_value_in_a_memory():
    bits = numerics.f32_to_bf16_bits(np.array([0, 1.5, 2, 1.5, np.nan], np.float32))
    assert find_value(bits, "bf16", "1.5", -1) == 1
    assert find_value(bits, "bf16", "1.5", 1) == 3
    assert find_value(bits, "bf16", "1.5", 3) == 1              # wraps
    assert find_value(bits, "bf16", "nan", 0) == 4
    assert find_value(bits, "bf16", "0x4000", 0) == 2
    assert find_value(bits, "bf16", "7", 0) is None
    assert find_value(np.array([1, 5, 5], np.int32), "int32", "5", 1) == 2
    with pytest.raises(NavigationError, match="search for a number"):
        find_value(bits, "bf16", "big", 0)


def test_navigation_with_the_keyboard():
    """g goes to an instruction or line, t runs to the cursor, w watches, / finds a value,
    and the memory view marks the output cells out of tolerance inline."""
    import asyncio

    from tui_kit import screen_text, wait_for

    from kernelcraft.workbench.tui.app import KernelCraftApp
    from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen
    wrong = SOURCE.replace("C_LOOP_START gp14, 4", "C_LOOP_START gp14, 3", 1)
    screen = DebuggerScreen("plena", "relu", "C1", wrong, seed=1)

    async def go():
        app = KernelCraftApp(None, debug=screen)
        async with app.run_test(size=(160, 45)) as pilot:
            assert await wait_for(pilot, lambda: screen.session is not None, timeout=30)
            s = screen.session
            await pilot.press("g", *"12", "enter")
            assert s.position == 12
            await pilot.press("g", *"L21", "enter")
            assert s.current_line() == 21
            await pilot.press("g", *"soon", "enter")
            assert any("instruction number" in n.message for n in app._notifications)
            screen.query_one("#debug-source").cursor = 25
            await pilot.press("t")
            assert s.current_line() == 25
            await pilot.press("0", "w", *"gp8", "enter")
            assert "watching gp8" in screen_text(app)
            await pilot.press("c")
            assert "gp8" in s.main.previous().text.split(",")[0]
            assert any("gp8 written by" in n.message for n in app._notifications)
            await pilot.press("W", "end")
            assert s.position == s.length and "watching" not in screen_text(app)
            text = screen_text(app)
            n_bad = s.outputs()[0].comparison.n_bad
            assert f"out of tolerance" in text and n_bad > 0
            assert int(screen.bad.mask("hbm", 0, s.main.memories["hbm"].size).sum()) == n_bad
            vs = s.main.memories["vsram"]
            values, counts = np.unique(vs[vs != 0], return_counts=True)
            bits = int(values[counts > 1][0])                      # a value held twice
            await pilot.press("m", "slash", *f"0x{bits:04X}", "enter")
            assert any(f"0x{bits:04X} at vsram[" in n.message for n in app._notifications)
            first = screen.addresses["vsram"] + screen._found_at
            assert vs[first] == bits
            await pilot.press("n")
            second = screen.addresses["vsram"] + screen._found_at
            assert second != first and vs[second] == bits
    asyncio.run(go())


def test_byte_addressed_memory_is_searched_in_the_cells_it_is_shown_in():
    raw = np.array([0.0, 1.5, np.nan, 1.5], np.float32).view(np.uint8)
    assert find_value(raw, "u8", "1.5", -1, "fp32") == 4
    assert find_value(raw, "u8", "1.5", 4, "fp32") == 12           # byte offsets of cells
    assert find_value(raw, "u8", "nan", 0, "fp32") == 8
    assert find_value(raw, "u8", "0x3FC00000", 0, "hex") == 4
    halves = np.array([1.5, 2.0], np.float32).view(np.uint16).view(np.uint8)
    assert find_value(halves, "u8", "1.5", -1, "bf16") == 2        # bf16 cells: 2 bytes
    assert find_value(raw, "u8", "7", -1, "fp32") is None


def test_coral_dtcm_marks_the_output_cells_out_of_tolerance_at_80x24():
    """DTCM is byte-addressed: the cells of a wrong output are marked red (yellow on red
    where the last move wrote them too), whole cells fit an 80-column pane, and / finds
    a value in it."""
    import asyncio

    from tui_kit import screen_text, wait_for

    from kernelcraft.workbench.tui.app import KernelCraftApp
    from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen
    from kernelcraft.workbench.tui.widgets.debugger.memory import (CHANGED_MISMATCH, MISMATCH,
                                                                   MemoryView)
    acc = get_accel("coral")
    wrong = acc.baseline("relu", "C1", acc.default_config()).replace("vfmax.vf", "vfmin.vf")
    screen = DebuggerScreen("coral", "relu", "C1", wrong, seed=1)

    def styles():
        text = screen.query_one(MemoryView)._text
        return {str(span.style) for span in text.spans}

    async def go():
        app = KernelCraftApp(None, debug=screen)
        async with app.run_test(size=(80, 24)) as pilot:
            assert await wait_for(pilot, lambda: screen.session is not None, timeout=30)
            s = screen.session
            await pilot.press("end")
            assert screen.memory == "dtcm" and s.outputs()[0].comparison.n_bad > 0
            rows = [ln for ln in screen_text(app).splitlines() if "│ 0x00204" in ln]
            assert rows and not any("…" in ln for ln in rows)          # whole cells
            head = screen.query_one(MemoryView).text.splitlines()[0]
            assert head.startswith("dtcm  ") and "out of tolerance" in head.split("bytes")[0]
            assert CHANGED_MISMATCH in styles()        # the last move wrote them, and wrong
            await pilot.press("left", "right")         # over the ebreak: wrong, not written
            assert MISMATCH in styles() and CHANGED_MISMATCH not in styles()
            await pilot.press("slash", *"-0.16796875", "enter")
            await pilot.pause(0.1)
            found = screen.addresses["dtcm"] + screen._found_at
            got = s.main.memories["dtcm"][found:found + 4].view(np.float32)[0]
            assert got == np.float32(-0.16796875)
            assert any("-0.16796875 at dtcm 0x" in n.message for n in app._notifications)
    asyncio.run(go())
