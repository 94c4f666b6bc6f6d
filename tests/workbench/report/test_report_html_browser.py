"""The HTML report in a real headless browser (Debian's chromium): it renders with no
console errors and no network, and its plots are visible in the screenshot."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kernelcraft.workbench.report.data import load
from kernelcraft.workbench.report.render import build, html_page
from kernelcraft.workbench.store import TraceStore

sys.path.insert(0, str(Path(__file__).parent))
from fixture_store import build as build_store  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                "(scripts/install-system-deps.sh installs it)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]


def screenshot(page: Path, tmp: Path) -> tuple[np.ndarray, list[str]]:
    """The page as RGB pixels, and the console messages chromium logged."""
    png = tmp / f"{page.stem}.png"
    proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp / 'profile'}",
                           f"--screenshot={png}", "--window-size=1400,1800",
                           page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert png.exists(), proc.stderr[-2000:]
    import matplotlib.image
    pixels = matplotlib.image.imread(png)[..., :3]
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line]
    return pixels, console


def test_console_errors_are_seen(tmp_path):
    """The check below can fail: a page that logs an error is caught."""
    page = tmp_path / "bad.html"
    page.write_text("<html><body>x<script>console.error('report broke')</script></body></html>")
    _, console = screenshot(page, tmp_path)
    assert any("report broke" in line for line in console)


def test_html_report_renders_with_visible_plots(tmp_path):
    with TraceStore(build_store(tmp_path / "traces.db"), readonly=True) as store:
        rows = load(store)
    page = tmp_path / "report.html"
    page.write_text(html_page(build(rows, "fixture store")), encoding="utf-8")
    pixels, console = screenshot(page, tmp_path)
    assert console == []
    assert pixels.std() > 0.05                              # not a blank page
    # Text and tables are grey on white; only the plots' bars, lines and markers are
    # saturated colour (a missing image would show its alt text instead).
    coloured = ((pixels.max(axis=-1) - pixels.min(axis=-1)) > 0.3).mean()
    assert coloured > 0.003, f"no plot colours on the page ({coloured:.3%} of pixels)"
    distinct = len(np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0))
    assert distinct > 200
