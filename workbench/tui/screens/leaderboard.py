"""The leaderboard: the report's tables (workbench/report/tables.py, the same code as
`kernelcraft report`) for every run in the store or one sweep, with the published
figures beside ours. Opened with `l` from the run picker; `w` steps through the
sweeps, `r` re-reads the store."""
from __future__ import annotations

from rich.text import Text
from textual import work
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from ..keys import bindings
from ..messages import deliver
from ..model.runs import plural

SHOWN = ("solved", "groups", "models")


def load_tables(path, sweep: str | None):
    """(tables, sweep ids, runs counted) read from the store, read-only."""
    from kernelcraft.workbench.report.data import load
    from kernelcraft.workbench.report.tables import all_tables
    from kernelcraft.workbench.store import TraceStore
    from kernelcraft.workbench.store import sweeps as sweep_rows
    with TraceStore(path, readonly=True) as store:
        ids = [s["id"] for s in sweep_rows.sweeps(store)]
        rows = load(store, sweep=sweep)
    return [t for t in all_tables(rows) if t.name in SHOWN], ids, len(rows)


class LeaderboardScreen(Screen):
    DEFAULT_CSS = """
    #leaderboard-banner { height: auto; padding: 0 1; background: $boost; }
    #leaderboard-tables DataTable { height: auto; max-height: 24; margin: 0 1; }
    .leaderboard-title { margin: 1 1 0 1; }
    .leaderboard-note { margin: 0 1; }
    """
    BINDINGS = bindings("leaderboard")

    def __init__(self):
        super().__init__()
        self.sweep: str | None = None
        self.sweep_ids: list[str] = []

    def compose(self):
        yield Header(show_clock=False)
        yield Static(id="leaderboard-banner")
        with VerticalScroll(id="leaderboard-tables"):
            for name in SHOWN:
                yield Static(id=f"title-{name}", classes="leaderboard-title")
                yield DataTable(id=f"table-{name}", zebra_stripes=True, cursor_type="row")
                yield Static(id=f"note-{name}", classes="leaderboard-note")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "leaderboard"
        self.action_reload()

    def action_reload(self) -> None:
        self.query_one("#leaderboard-banner", Static).update("reading the trace store...")
        self._load(self.sweep)

    @work(thread=True, exclusive=True, group="leaderboard")
    def _load(self, sweep: str | None) -> None:
        try:
            result, error = load_tables(self.app.reader.path, sweep), None
        except Exception as e:  # noqa: BLE001 -- shown in the banner, never a crash
            result, error = None, str(e)
        deliver(self, self._show, result, error)

    def _show(self, result, error: str | None) -> None:
        banner = self.query_one("#leaderboard-banner", Static)
        if error is not None:
            banner.update(Text(f"cannot build the leaderboard: {error}", "bold red"))
            return
        tables, self.sweep_ids, n = result
        what = f"sweep {self.sweep}" if self.sweep else "every run that ended"
        banner.update(Text.assemble((plural(n, "run"), "bold"), f" ({what}); ",
                                    (f"{len(self.sweep_ids)} sweeps, w steps through them; "
                                     "columns marked (published) are the paper's figures",
                                     "grey50")))
        for t in tables:
            self.query_one(f"#title-{t.name}", Static).update(Text(t.title, "bold"))
            self.query_one(f"#note-{t.name}", Static).update(Text(t.note, "grey50"))
            table = self.query_one(f"#table-{t.name}", DataTable)
            table.clear(columns=True)
            for c in t.columns:
                table.add_column(Text(c, "italic yellow") if "(published)" in c else c, key=c)
            for row in t.text():
                table.add_row(*row)

    def action_next_sweep(self) -> None:
        order = [None, *self.sweep_ids]
        self.sweep = order[(order.index(self.sweep) + 1) % len(order)] \
            if self.sweep in order else None
        self.action_reload()

    def action_back(self) -> None:
        self.app.pop_screen()
