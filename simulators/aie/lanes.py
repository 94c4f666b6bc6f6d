"""The C loops of inline.py's vector statements (lanes.c), built on first use
(simulators/core/native.py): `module()` is the built extension module, or None, and the
statements then run their numpy code, which computes the same bits."""
from __future__ import annotations

from pathlib import Path

from kernelcraft.simulators.core.native import Native

_NATIVE = Native(Path(__file__).with_name("lanes.c"), "_aie_lanes", "aie vector lanes")
module, enabled, status = _NATIVE.module, _NATIVE.enabled, _NATIVE.status
