"""The run picker: every run in the trace store, filtered, sorted and searched; the
place to start a new run from.

The table refreshes every second from a worker thread, so a run another process is
writing shows its steps, status and speed-up as they change; a store that is missing
or cannot be read is shown as a banner with the reason and retried quietly.
"""
from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, OptionList, Static

from ..keys import bindings
from ..messages import OpenRun, deliver
from ..model.runs import FilterError, RunRow, columns_for, fit_columns, plural, select
from ..model.source import Problem
from ..widgets.picker.run_table import RunTable
from ..widgets.picker.search_panel import SearchPanel

REFRESH_SECONDS = 1.0


class PickerScreen(Screen):
    BINDINGS = bindings("picker")

    def __init__(self):
        super().__init__()
        self.rows: list[RunRow] = []
        self.shown: list[RunRow] = []
        self.sort_key = "id"
        self.descending = True
        self.filter_text = ""
        self.filter_error = ""
        self._last_problem: Problem | None = None
        self.loaded = False
        self._loading = False
        self.columns: tuple = columns_for([])   # the columns on screen
        self.hidden: list[str] = []             # titles of those the width leaves out

    def compose(self):
        yield Header(show_clock=False)
        yield Static(id="store-banner")
        yield Input(placeholder="filter: words or field:value, e.g. status:running task:gemm "
                                "-agent:replay  (f focuses, Esc leaves)", id="filter")
        yield RunTable(id="runs")
        yield SearchPanel(id="search", classes="hidden")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = str(self.app.reader.path)
        self.query_one(RunTable).focus()
        self.action_refresh()
        self.set_interval(REFRESH_SECONDS, self.action_refresh)

    def on_resize(self, event) -> None:
        if self.loaded:
            self._show()                        # columns given back or taken on a resize

    # ---------------------------------------------------------------- loading
    def action_refresh(self) -> None:
        if not self._loading:          # one read at a time (threads cannot be cancelled)
            self._loading = True
            self._load()

    @work(thread=True, group="picker-load")
    def _load(self) -> None:
        reader = self.app.reader
        rows, error = None, None
        if reader.open():
            try:
                rows = reader.runs()
            except Exception as e:  # noqa: BLE001 -- shown to the person, never a crash
                error = str(e)
        deliver(self, self._apply, rows, reader.problem, error)

    def _apply(self, rows: list[RunRow] | None, problem: Problem | None,
               error: str | None) -> None:
        self._loading = False
        self.loaded = True
        if problem is not None and problem != self._last_problem and not self._creating(problem):
            self.app.notify(problem.message, title="trace store",
                            severity="information" if problem.kind == "missing" else "error",
                            timeout=8)
        if error and error != getattr(self, "_last_error", None):
            self.app.notify(error, title="reading the trace store", severity="error",
                            timeout=8)
        self._last_problem, self._last_error = problem, error
        if rows is not None:
            self.rows = rows
        if not self.query(RunTable):      # a late reload while the app shuts down
            return
        self._show()

    def _show(self) -> None:
        try:
            self.shown = select(self.rows, self.filter_text, self.sort_key, self.descending)
            self.filter_error = ""
        except FilterError as e:
            self.filter_error = str(e)
        # from every run, so a filter keeps them; those that fit the terminal's width
        columns, limits, self.hidden = fit_columns(columns_for(self.rows), self.rows,
                                                   self.size.width or 160, (self.sort_key,))
        self.columns = columns
        signature = (self.sort_key, self.descending, columns, tuple(limits.items()),
                     tuple((r.run.id, r.run.status, r.run.event_count, r.speedup)
                           for r in self.shown))
        if signature != getattr(self, "_signature", None):   # unchanged: leave the table be
            self._signature = signature
            self.query_one(RunTable).set_rows(self.shown, self.sort_key, self.descending,
                                              columns, limits)
        self.app.run_order = [r.run.id for r in self.shown]
        self._banner()

    def _creating(self, problem: Problem | None) -> bool:
        """The store is missing because a run started here is about to create it (the
        demo): not a problem to notify about."""
        return problem is not None and problem.kind == "missing" and any(
            x.exited() is None for x in self.app.launched)

    def _banner(self) -> None:
        reader = self.app.reader
        t = Text()
        if self._creating(reader.problem):
            t.append(f"creating the trace store at {reader.path}: the run being started "
                     f"records there", "grey62")
        elif reader.problem is not None:
            t.append(reader.problem.message,
                     "yellow" if reader.problem.kind == "missing" else "bold red")
        else:
            running = sum(1 for r in self.rows if r.run.status == "running")
            t.append(plural(len(self.rows), "run"), "bold")
            if len(self.shown) != len(self.rows):
                t.append(f", {len(self.shown)} shown")
            if running:
                t.append(f", {running} running", "bold yellow")
            if self.hidden:
                t.append(f"  ({', '.join(self.hidden)}: wider terminal)", "grey62")
            # the viewer never writes; a run started with n is its own process
            t.append(f"  in {reader.path}  (viewed read-only; n starts a run that records "
                     f"itself)", "grey50")
        if self.filter_error:
            t.append(f"   filter: {self.filter_error}", "bold red")
        banner = self.query("#store-banner")
        if banner:                     # gone while the app shuts down under load
            banner.first(Static).update(t)

    # ---------------------------------------------------------------- actions
    def action_leaderboard(self) -> None:
        from .leaderboard import LeaderboardScreen
        self.app.push_screen(LeaderboardScreen())

    def action_open_run(self) -> None:
        run_id = self.query_one(RunTable).current_run_id
        if run_id is not None:
            self.post_message(OpenRun(run_id))

    @on(DataTable.RowSelected, "#runs")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(OpenRun(int(event.row_key.value)))

    @on(DataTable.HeaderSelected, "#runs")
    def _header_selected(self, event: DataTable.HeaderSelected) -> None:
        key = str(event.column_key.value)
        if key == self.sort_key:
            self.descending = not self.descending
        else:
            self.sort_key, self.descending = key, key in ("id", "speedup", "steps", "cost",
                                                          "tokens", "started")
        self._show()

    def action_sort(self) -> None:
        keys = [c[0] for c in self.columns]                # the columns on screen
        i = keys.index(self.sort_key) if self.sort_key in keys else -1
        self.sort_key = keys[(i + 1) % len(keys)]
        self._show()
        self.app.notify(f"sorted by {self.sort_key} "
                        f"({'descending' if self.descending else 'ascending'})", timeout=2)

    def action_reverse(self) -> None:
        self.descending = not self.descending
        self._show()

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value
        self._show()

    @on(Input.Submitted, "#filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        self.query_one(RunTable).focus()

    def action_search(self) -> None:
        panel = self.query_one(SearchPanel)
        panel.remove_class("hidden")
        panel.query_one("#search-input", Input).focus()

    def action_close_panels(self) -> None:
        panel = self.query_one(SearchPanel)
        if not panel.has_class("hidden"):
            panel.add_class("hidden")
        self.query_one(RunTable).focus()

    @on(Input.Submitted, "#search-input")
    def _search(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self._run_search(event.value)

    @work(thread=True, exclusive=True, group="picker-search")
    def _run_search(self, query: str) -> None:
        try:
            hits = self.app.reader.search(query)
        except Exception as e:  # noqa: BLE001 -- a bad query or an unreadable store
            deliver(self, self.app.notify, str(e), title="search",
                                      severity="error")
            return
        deliver(self, self._show_hits, hits)

    def _show_hits(self, hits) -> None:
        panel = self.query_one(SearchPanel)
        panel.show_hits(hits)
        if hits:
            panel.query_one("#search-hits", OptionList).focus()

    def action_new_run(self) -> None:
        from .new_run import NewRunScreen
        self.app.push_screen(NewRunScreen(), self.app.launch_run)
