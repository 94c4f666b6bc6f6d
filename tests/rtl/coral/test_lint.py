"""The coral RTL passes verilator --lint-only -Wall (no warning at all) at the tests'
small configuration."""


def test_verilator_wall_is_clean(cfg):
    from kernelcraft.simulators.coral_rtl import build
    build.lint(cfg)                  # raises RtlBuildError with Verilator's lines otherwise
