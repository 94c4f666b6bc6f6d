"""decoder_block_llama: the shared decoder template (decoder.py) with RoPE, scaled
attention and the SwiGLU feed-forward."""
from __future__ import annotations

from .decoder import decoder_template

TEMPLATE = decoder_template("decoder_block_llama", llama=True)
