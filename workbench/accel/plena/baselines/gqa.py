"""gqa: the shared attention template (attention.py), strategy "rows" by default."""
from __future__ import annotations

from .attention import attention_template

TEMPLATE = attention_template("gqa", strategy="rows")
