"""flash_attention: the shared attention template (attention.py), strategy "online" by default."""
from __future__ import annotations

from .attention import attention_template

TEMPLATE = attention_template("flash_attention", strategy="online")
