"""The set of mnemonics in isa/coral equals the set the model implements, and the
benchmark runs and reports its figures."""
from kernelcraft.isa.coral import isa
from kernelcraft.simulators.coral.bench import benchmark
from kernelcraft.simulators.coral.semantics import SCALAR, VECTOR, check_complete


def test_every_instruction_has_exactly_one_semantics():
    check_complete(isa())
    assert set(SCALAR) | set(VECTOR) == set(isa().instructions)
    assert not set(SCALAR) & set(VECTOR)


def test_benchmark_reports_all_figures():
    r = benchmark(repeats=1, scale=0.01)
    for name in ("scalar", "vector"):
        assert r[f"{name}_instr_per_s"] > 0 and r[f"{name}_traced_slowdown"] > 0
    assert r["scalar_instructions"] == 4 + 2500 * 8 + 1       # li (2), la (2), loop, ebreak
