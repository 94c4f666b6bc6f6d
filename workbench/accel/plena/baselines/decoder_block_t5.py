"""decoder_block_t5: the shared decoder-block template (decoder.py)."""
from __future__ import annotations

from .decoder import decoder_template

TEMPLATE = decoder_template("decoder_block_t5", llama=False)
