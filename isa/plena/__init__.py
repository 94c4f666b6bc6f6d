"""plena's ISA data (the TOML files beside this one); see README.md for the decisions."""
from kernelcraft.isa.loader import HardwareConfig, get_isa


def isa():
    return get_isa("plena")


def default_config(**overrides) -> HardwareConfig:
    return HardwareConfig(isa(), **overrides)
