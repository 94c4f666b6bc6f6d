"""The known gap of issue 11, pinned: the edge families whose own checks are the only ones that
catch the 1.1% and the 0.56% degree-3 Taylor exps (`many_units`, `units_near_zero`, `many_keys`,
and attention's `two_keys` for the 1.1% one) can be told from a random draw by a test a kernel
can run on its inputs (`wrong_variants.RECOGNISE`), and a kernel exact where that test fires and
using either exp elsewhere passes every input set.
When a change hides a family from its test, the first test here fails: then the test, the
gap (wrong_variants.GAPS) and tasks/README.md ("Anti-gaming rules") are out of date."""
import pytest

from kernelcraft.tasks import get_task
from kernelcraft.tasks.calibrate import calibrate
from kernelcraft.tasks.wrong_variants import RECOGNISE

READ_BACK = {"many_units", "units_near_zero", "many_keys", "two_keys"}


@pytest.mark.parametrize("name", sorted(RECOGNISE))
@pytest.mark.parametrize("config", ["C1", "H1"])
def test_the_read_back_families_are_recognised_and_no_random_draw_is(name, config):
    t = get_task(name)
    spots = RECOGNISE[name]
    for seed in (0, 1, 2):
        assert not spots(t.generate(config, seed)), f"seed {seed}"
    for edge_seed in (0, 1):
        cases = dict(t.edge_cases(config, edge_seed))
        assert READ_BACK & set(cases)
        for label in READ_BACK & set(cases):
            assert spots(cases[label]), label


@pytest.mark.parametrize("name", ["swiglu", "scaled_dot_product"])
def test_the_recognising_kernel_passes_where_the_taylor_exp_alone_fails(name):
    m = calibrate(get_task(name), seeds=1, configs=["C1"])
    assert m.correct < 1
    for exp in ("exp_fixup_1pct", "exp_taylor3"):
        assert m.wrong[exp][0] > 1
        assert m.gaps[f"{exp}_exact_where_recognised"][0] < 1
