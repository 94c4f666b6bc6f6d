"""mqa: the shared blocked online-softmax attention (attention.py)."""
from __future__ import annotations

from .attention import attention_template

TEMPLATE = attention_template("mqa")
