"""toy's ISA data (the TOML files beside this one), loaded by isa/loader.py from here."""
from pathlib import Path

from kernelcraft.isa.loader import HardwareConfig, get_isa

FOLDER = Path(__file__).resolve().parent


def isa():
    return get_isa("toy", FOLDER)


def default_config(**overrides) -> HardwareConfig:
    return HardwareConfig(isa(), **overrides)
