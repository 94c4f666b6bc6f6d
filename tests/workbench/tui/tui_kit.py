"""Helpers the TUI tests share (imported by name, like coral_kit and aie_kit: a module
named `conftest` could resolve to another folder's conftest on sys.path)."""
from __future__ import annotations

SIZE = (132, 40)          # the terminal size of pilot and snapshot tests


async def wait_for(pilot, condition, timeout: float = 5.0, step: float = 0.05) -> bool:
    """Let the app run until `condition()` holds (workers finish, timers fire)."""
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await pilot.pause(step)
    return condition()


def screen_text(app) -> str:
    """The app's screen as plain text, as a person would read it."""
    import io

    from rich.console import Console
    w, h = app.size
    console = Console(width=w, height=h, file=io.StringIO(), force_terminal=False,
                      color_system=None, record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))
    return console.export_text()
