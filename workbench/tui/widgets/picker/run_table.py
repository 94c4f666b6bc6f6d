"""Every run of the trace store as a table row (model/runs.py says what each cell
holds); keeps the cursor on the same run when rows change; vi keys move it."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from ...keys import bindings
from ...model.runs import STATUS_STYLES, RunRow, columns_for


class RunTable(DataTable):
    BINDINGS = bindings("picker_table")
    columns_shown: tuple = ()

    def action_first_run(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_run(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self._set_columns(columns_for([]))

    def _set_columns(self, columns: tuple) -> None:
        # The column set changes only when the first run with --rtl appears.
        self.clear(columns=True)
        for key, title, _ in columns:
            self.add_column(title, key=key)
        self.columns_shown = columns

    @property
    def current_run_id(self) -> int | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key((self.cursor_row, 0)).row_key
        except Exception:  # noqa: BLE001 -- no row under the cursor
            return None
        return int(key.value) if key.value is not None else None

    def set_rows(self, rows: list[RunRow], sort_key: str, descending: bool,
                 columns: tuple | None = None, limits: dict[str, int] | None = None) -> None:
        """Show `rows` in `columns` (model/runs.py fit_columns), cells cut to `limits`."""
        limits = limits or {}
        keep = self.current_run_id
        columns = columns or columns_for(rows)
        if columns != self.columns_shown:
            self._set_columns(columns)
        self.clear()
        for row in rows:
            cells = []
            for key, _title, justify in columns:
                style = STATUS_STYLES.get(row.run.status, "") if key == "status" else ""
                text = row.cell(key)
                if key in limits and len(text) > limits[key]:
                    text = text[:limits[key] - 1] + "…"
                cells.append(Text(text, style=style, justify=justify))
            self.add_row(*cells, key=str(row.run.id))
        for key, title, _ in columns:
            label = Text(title + (f" {'▼' if descending else '▲'}" if key == sort_key else ""))
            column = self.columns[key]
            column.label = label
            # a column sized for its title and cells would cut the arrow off
            column.content_width = max(column.content_width, label.cell_len)
        self._require_update_dimensions = True
        if keep is not None:
            self.move_to_run(keep)

    def move_to_run(self, run_id: int) -> bool:
        try:
            self.move_cursor(row=self.get_row_index(str(run_id)))
            return True
        except Exception:  # noqa: BLE001 -- the run is filtered out
            return False
