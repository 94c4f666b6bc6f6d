"""aie's ISA data (the TOML files beside this one); see README.md for the decisions.

`isa()` is the generic ISA model (isa/loader.py); `spec()` (model.py) adds what only aie has:
slots and bundle rules, register files, DMA descriptors, shuffle modes and the
function unit's tables (spec.py)."""
from kernelcraft.isa.loader import HardwareConfig, get_isa


def isa():
    return get_isa("aie")


def default_config(**overrides) -> HardwareConfig:
    return HardwareConfig(isa(), **overrides)


def spec():
    from .model import get_spec
    return get_spec()
