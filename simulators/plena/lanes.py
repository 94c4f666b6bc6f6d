"""The C lane loops of fastlanes.py's closures (lanes.c), built on first use
(simulators/core/native.py): `module()` is the built extension module, or None, and the
closures then run their numpy code, which computes the same bits."""
from __future__ import annotations

from pathlib import Path

from kernelcraft.simulators.core.native import Native

_NATIVE = Native(Path(__file__).with_name("lanes.c"), "_plena_lanes", "plena lane loops")
module, enabled, status = _NATIVE.module, _NATIVE.enabled, _NATIVE.status
