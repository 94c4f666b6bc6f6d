"""Benchmark reports from the trace store: data.py (rows), metrics.py (the numbers),
tables.py, plots.py, render.py (Markdown, HTML, JSON, CSV), published.toml (the
published figures, for comparison)."""
