"""Tables for the command line: a Rich table on a terminal, tab-separated lines in a
pipe or a file, so that no identifier is ever cut to fit a width there is none of."""
from __future__ import annotations

import sys


def print_table(title: str, columns: list[str], rows: list[list[str]],
                right: tuple[str, ...] = ()) -> None:
    if not sys.stdout.isatty():
        clean = lambda cell: str(cell).replace("\t", " ").replace("\n", " ")
        print("\t".join(columns))
        for row in rows:
            print("\t".join(clean(c) for c in row))
        return
    from rich.console import Console
    from rich.table import Table
    table = Table(title=title)
    for col in columns:
        table.add_column(col, justify="right" if col in right else "left", overflow="fold")
    for row in rows:
        table.add_row(*row)
    Console().print(table)
