"""The debugger on coral and aie kernels, driven with the keyboard: coral's vtype/vl,
register pages and DTCM by byte address; aie stepped per bundle with its slots, the
wait and stall counters and the DMA engine on screen after known steps."""
from __future__ import annotations

import asyncio

import numpy as np
from tui_kit import SIZE, screen_text, wait_for

from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.tui.app import KernelCraftApp
from kernelcraft.workbench.tui.model.formats import format_cells
from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen
from kernelcraft.workbench.tui.screens.picker import PickerScreen


def debug(db, accel: str, task: str, config: str, script, source: str | None = None):
    """Open the debugger on `source` (the baseline by default) over the sample store."""
    acc = get_accel(accel)
    source = source or acc.baseline(task, config, acc.default_config())

    async def go():
        app = KernelCraftApp(db)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)
            app.push_screen(DebuggerScreen(accel, task, config, source, seed=1))
            assert await wait_for(pilot, lambda: isinstance(app.screen, DebuggerScreen)
                                  and app.screen.session is not None, timeout=20)
            await script(app, pilot, app.screen)
    asyncio.run(go())


def test_coral_vector_state_registers_and_dtcm(sample_db):
    async def script(app, pilot, dbg):
        text = screen_text(app)
        assert "instruction 0/79" in text and "vl=0 of VLMAX 0" in text and "vill" in text
        await pilot.press(*["l"] * 7)                  # past the vsetvli
        text = screen_text(app)
        assert "instruction 7/79" in text
        assert "vl=32 of VLMAX 32  vtype=0x000000D3 SEW=e32 LMUL=m8 ta ma" in text
        assert "x10 a0   131136" in text and " x5 t0   32" in text
        await pilot.press("r", "r")                     # the f page, then v0-v15
        await pilot.press("l")                          # the vle32.v: v8.. loaded
        text = screen_text(app)
        assert " x  f  v 1/2   r: next page" in text        # the v page, first part
        assert "v8 │" in text and "v9 ┆" in text
        v8 = next(line for line in text.splitlines() if "v8 │" in line)
        first = format_cells(np.float32(get_task("relu").generate("C1", 1)["x"].flat[0]), "fp32",
                             "fp32")[0]
        assert v8.split("v8 │")[1].split()[0] == first    # element 0 at SEW 32, as fp32
        await pilot.press("h")                          # back: v8 empty again, vl kept
        assert "vl=32 of VLMAX 32" in screen_text(app)
        # DTCM by byte address: the input region starts at its byte address
        await pilot.press("a")
        await pilot.press(*"0x20040", "enter")
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "dtcm" in text and "0x0020040" in text and "x[0x20040..0x2043F] input" in text
        assert "4-byte cells shown as fp32" in text
        await pilot.press("end")                        # the outputs follow byte-addressed writes
        assert "y 4x64 fp32 in dtcm[0x20480..]: matches the reference" in screen_text(app)
    debug(sample_db, "coral", "relu", "C1", script)


def test_aie_steps_by_bundle_with_slots_stalls_and_dma(sample_db):
    async def script(app, pilot, dbg):
        await pilot.press("l", "l", "l")                # DMAIN issued; the ACQ is next
        text = screen_text(app)
        assert "bundle 3/33" in text and "cycle 102" in text
        assert "bundle 3 (line 7) issues at cycle 102" in text
        assert " alu ACQ l0, 1" in text and " ld0 ·" in text and " vec ·" in text
        assert "waits 99 cycle(s) for lock l0 to reach 1 (ACQ)" in text
        assert "stalls so far 0 of 102 cycles" in text
        assert "DMA after bundle 2, cycle 2" in text
        assert "in0  XIN256 512B" in text and "till 102 →l0+1" in text and "out0 idle" in text
        await pilot.press("l")
        text = screen_text(app)
        assert "stalls so far 99 of 103 cycles" in text and "DMA wait 99" in text
        assert "in0  idle" in text
        await pilot.press("end")
        text = screen_text(app)
        result = dbg.session.main.result
        assert f"stalls so far {sum(result.stalls.values()):,} of {result.cycles:,}" in text
        assert "no bundle left" in text
    debug(sample_db, "aie", "relu", "C1", script)
