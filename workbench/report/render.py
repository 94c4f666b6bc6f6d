"""A report written out: Markdown with the figures as PNG files beside it, one
self-contained HTML file (figures inlined as data URIs, no script, nothing fetched),
JSON, and one CSV per table."""
from __future__ import annotations

import base64
import csv
import html
import json
from dataclasses import dataclass
from pathlib import Path

from . import metrics, published
from .data import CellResult
from .tables import Table, all_tables


@dataclass
class Report:
    title: str
    selection: str                  # what the report covers, in words
    rows: list[CellResult]
    tables: list[Table]
    figures: dict[str, tuple[str, bytes]]    # name -> (title, PNG)


def build(rows: list[CellResult], selection: str, *, figures: bool = True) -> Report:
    figs = {}
    if figures:
        from .plots import all_figures
        figs = all_figures(rows)
    return Report("KernelCraft benchmark report", selection, rows, all_tables(rows), figs)


def _md_table(t: Table) -> str:
    lines = [f"| {' | '.join(t.columns)} |", f"|{'---|' * len(t.columns)}"]
    lines += [f"| {' | '.join(c.replace('|', '/') for c in row)} |" for row in t.text()]
    return "\n".join(lines)


def markdown(rep: Report, image_dir: str | None = None) -> str:
    out = [f"# {rep.title}", "", rep.selection, ""]
    for t in rep.tables:
        out += [f"## {t.title}", "", _md_table(t), ""]
        if t.note:
            out += [f"_{t.note}_", ""]
    if image_dir is not None and rep.figures:
        out += ["## Figures", ""]
        for name, (title, _) in rep.figures.items():
            out += [f"![{title}]({image_dir}/{name}.png)", ""]
    out += [f"Published figures: {published.source()}; they were not produced by this "
            f"project and are labelled (published) wherever they appear.", ""]
    return "\n".join(out)


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}
th.published,td.published{background:#fff7e0;font-style:italic}
.note{color:#555;font-size:12px}figure{display:inline-block;margin:0 1em 1em 0}
figcaption{font-size:13px;color:#444}"""


def _html_table(t: Table) -> str:
    pub = ["published" in c for c in t.columns]
    head = "".join(f'<th{" class=published" if p else ""}>{html.escape(c)}</th>'
                   for c, p in zip(t.columns, pub))
    body = "".join("<tr>" + "".join(f'<td{" class=published" if p else ""}>{html.escape(v)}</td>'
                                    for v, p in zip(row, pub)) + "</tr>" for row in t.text())
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_page(rep: Report) -> str:
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
             f"<title>{html.escape(rep.title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{html.escape(rep.title)}</h1><p>{html.escape(rep.selection)}</p>"]
    if rep.figures:
        parts.append("<h2>Figures</h2>")
        for name, (title, png) in rep.figures.items():
            data = base64.b64encode(png).decode("ascii")
            parts.append(f'<figure id="fig-{name}"><img alt="{html.escape(title)}" '
                         f'src="data:image/png;base64,{data}"><figcaption>'
                         f'{html.escape(title)}</figcaption></figure>')
    for t in rep.tables:
        parts.append(f"<h2>{html.escape(t.title)}</h2>{_html_table(t)}")
        if t.note:
            parts.append(f'<p class=note>{html.escape(t.note)}</p>')
    parts.append(f'<p class=note>Published figures: {html.escape(published.source())}; not '
                 f'produced by this project, labelled (published) wherever they appear.</p>'
                 f"</body></html>")
    return "".join(parts)


def json_doc(rep: Report) -> dict:
    return {"title": rep.title, "selection": rep.selection,
            "summary": metrics.stats(rep.rows).to_dict(),
            "groups": [g.to_dict() for g in metrics.group(rep.rows, ("model", "accel", "level"))],
            "models": [g.to_dict() for g in metrics.group(rep.rows, ("model",))],
            "runs": [r.to_dict() for r in rep.rows],
            "tables": {t.name: {"title": t.title, "columns": t.columns, "rows": t.rows}
                       for t in rep.tables},
            "published_source": published.source()}


FORMATS = ("md", "html", "json", "csv")


def write(rep: Report, out: Path, formats=FORMATS) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if "md" in formats:
        img = out / "figures"
        img.mkdir(exist_ok=True)
        for name, (_, png) in rep.figures.items():
            (img / f"{name}.png").write_bytes(png)
            written.append(img / f"{name}.png")
        (out / "report.md").write_text(markdown(rep, "figures"), encoding="utf-8")
        written.append(out / "report.md")
    if "html" in formats:
        (out / "report.html").write_text(html_page(rep), encoding="utf-8")
        written.append(out / "report.html")
    if "json" in formats:
        (out / "report.json").write_text(json.dumps(json_doc(rep), indent=2), encoding="utf-8")
        written.append(out / "report.json")
    if "csv" in formats:
        for t in rep.tables:
            path = out / f"{t.name}.csv"
            with path.open("w", newline="", encoding="utf-8") as fh:
                w = csv.writer(fh)
                w.writerow(t.columns)
                w.writerows([["" if v is None else v for v in row] for row in t.rows])
            written.append(path)
    return written
