"""Fixtures for the workbench tests: the fixed sample trace store (sample.py), built
once per session, and a copy per test for tests that must own their file."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from sample import build_sample  # noqa: E402

SIZE = (132, 40)          # the terminal size of pilot and snapshot tests


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory) -> Path:
    return build_sample(tmp_path_factory.mktemp("sample") / "traces.db")


@pytest.fixture
def sample_copy(sample_db, tmp_path) -> Path:
    dst = tmp_path / "traces.db"
    shutil.copy(sample_db, dst)
    return dst


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
