"""The RTL's top-level parameters, read with pyverilog, against isa/plena/hardware.toml."""
from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.plena_rtl.params import read_top


def test_top_parameters_are_hardware_toml():
    params, overrides = read_top()
    expected = {name: p.default for name, p in get_isa("plena").params.items()}
    assert params == expected


def test_top_passes_every_parameter_down():
    params, overrides = read_top()
    assert set(overrides) == {"u_core", "u_sim"}
    for instance, names in overrides.items():
        assert names == list(params), f"{instance} does not pass every parameter in order"
