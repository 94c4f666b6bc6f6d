"""decoder_block_t5: the shared decoder template (decoder.py) with the position bias,
unscaled attention and the ReLU feed-forward."""
from __future__ import annotations

from .decoder import decoder_template

TEMPLATE = decoder_template("decoder_block_t5", llama=False)
