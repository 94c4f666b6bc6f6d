"""What the workbench does with a store it cannot read and a terminal too small to
draw on: a clear message, no crash, and the file left exactly as it was."""
from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import pytest
from tui_kit import SIZE, screen_text, wait_for
from sqlite_utils import Database

from kernelcraft.workbench.store import TraceStore
from kernelcraft.workbench.tui.app import KernelCraftApp
from kernelcraft.workbench.tui.model.launch import RunRequest
from kernelcraft.workbench.tui.model.source import StoreReader, migrate
from kernelcraft.workbench.tui.screens.picker import PickerScreen
from kernelcraft.workbench.tui.screens.run import RunScreen
from kernelcraft.workbench.tui.screens.too_small import TooSmallScreen


def fingerprint(path: Path) -> tuple:
    """The file's bytes and the names of everything beside it."""
    return (hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None,
            sorted(p.name for p in path.parent.iterdir()))


def banner_after_open(db: Path, size=SIZE) -> tuple[str, list[str], KernelCraftApp]:
    out = {}

    async def go():
        app = KernelCraftApp(db)
        async with app.run_test(size=size) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen)
                           and app.screen.loaded)
            await wait_for(pilot, lambda: app._notifications)
            await pilot.pause()
            out["text"] = screen_text(app)
            out["notes"] = [n.message for n in app._notifications]
            out["app"] = app
    asyncio.run(go())
    return out["text"], out["notes"], out["app"]


def old_store(path: Path) -> None:
    from kernelcraft.workbench.store.schema import MIGRATIONS
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="m002_full_text_search")
    db.execute("PRAGMA journal_mode = DELETE")
    db.close()


def a_store(path: Path) -> None:
    with TraceStore(path) as store:                    # the file is made on the first write
        store.finish_run(store.start_run("plena", "relu", "C1", agent="autotune"), "failed")


def newer_store(path: Path) -> None:
    a_store(path)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO _migrations (migration_set, name, applied_at) "
                     "VALUES ('kernelcraft-traces', 'm999_from_the_future', '2030-01-01')")
        conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()


def corrupt_store(path: Path) -> None:
    a_store(path)
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)           # the schema page, past the header
    path.write_bytes(bytes(data))


def not_sqlite(path: Path) -> None:
    path.write_text("these are notes, not a database\n")


def other_database(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    conn.close()


@pytest.mark.parametrize("make, expected", [
    (old_store, "written by an older KernelCraft"),
    (newer_store, "written by a newer KernelCraft"),
    (corrupt_store, "damaged"),
    (not_sqlite, "not an SQLite database"),
    (other_database, "not a trace store"),
])
def test_a_store_that_cannot_be_read_is_named_and_left_untouched(tmp_path, make, expected):
    db = tmp_path / "traces.db"
    make(db)
    before = fingerprint(db)
    reader = StoreReader(db)
    assert not reader.open()
    assert expected in reader.problem.message and str(db) in reader.problem.message
    with pytest.raises(Exception, match=expected):
        reader.runs()
    assert fingerprint(db) == before


@pytest.mark.parametrize("make, expected", [(corrupt_store, "damaged"),
                                            (newer_store, "upgrade kernelcraft")])
def test_the_picker_shows_why_a_store_cannot_be_read(tmp_path, make, expected):
    db = tmp_path / "traces.db"
    make(db)
    before = fingerprint(db)
    text, notes, _ = banner_after_open(db)
    assert expected in text, text[:400]
    assert any(expected in n for n in notes)
    assert fingerprint(db) == before


def test_an_outdated_store_says_how_to_migrate_and_migrate_works(tmp_path):
    db = tmp_path / "traces.db"
    old_store(db)
    text, _, _ = banner_after_open(db)
    assert "kernelcraft tui --migrate" in text
    reader = StoreReader(db)
    assert not reader.open() and reader.problem.kind == "outdated"
    assert "the viewer only reads, so it will not migrate it" in reader.problem.message
    assert "schema is current" in migrate(db)
    assert StoreReader(db).open()


def test_a_missing_store_invites_a_first_run_and_is_not_created(tmp_path):
    db = tmp_path / "traces.db"
    text, notes, _ = banner_after_open(db)
    assert f"no trace store at {db} yet; start a run (n)" in text
    assert not db.exists() and list(tmp_path.iterdir()) == []


def test_no_run_is_started_on_a_store_that_cannot_be_read(tmp_path):
    db = tmp_path / "traces.db"
    corrupt_store(db)
    before = fingerprint(db)

    async def go():
        app = KernelCraftApp(db)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen)
                           and app.screen.loaded)
            app.launch_run(RunRequest("plena", "relu", "C1"))
            assert not app.launched
            assert await wait_for(pilot, lambda: any("not starting a run" in n.message
                                                     for n in app._notifications))
    asyncio.run(go())
    assert fingerprint(db) == before


def test_an_unknown_run_is_a_message_not_a_crash(sample_db):
    async def go():
        app = KernelCraftApp(sample_db, run_id=99)
        async with app.run_test(size=SIZE) as pilot:
            assert await wait_for(pilot, lambda: isinstance(app.screen, RunScreen)
                                  and app.screen.finished_reading)
            assert "no run 99" in screen_text(app)
            await pilot.press("right", "x", "d", "p")            # nothing to act on
            await pilot.press("escape")
            assert isinstance(app.screen, PickerScreen)
    asyncio.run(go())


def test_a_terminal_too_small_says_so_and_recovers(sample_db):
    async def go():
        app = KernelCraftApp(sample_db)
        async with app.run_test(size=(60, 18)) as pilot:
            await pilot.pause(0.2)
            assert isinstance(app.screen, TooSmallScreen)
            assert "The terminal is 60x18; KernelCraft needs at least 80x24" in screen_text(app)
            await pilot.resize_terminal(*SIZE)
            assert await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
            await pilot.resize_terminal(70, 30)
            assert await wait_for(pilot, lambda: isinstance(app.screen, TooSmallScreen))
            assert "70x30" in screen_text(app)
            await pilot.resize_terminal(*SIZE)
            assert await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
            assert "3 runs" in screen_text(app)
    asyncio.run(go())
