"""tasks/README.md: the generated tables are current, the margins table matches the
tasks' tolerances and catalogues, and the policy it states is the code's."""
import pytest

from kernelcraft.tasks import all_tasks, get_task, readme
from kernelcraft.tasks.calibrate import calibrate
from kernelcraft.tasks.tolerance import NEAR_CONSTANT_RATIO


def test_generated_tables_are_current():
    text = readme.README.read_text()
    assert readme.render(text) == text, "tasks/README.md is out of date: run `python -m kernelcraft.tasks.readme`"
    assert readme.stale_margins(text) == []
    assert readme.main(["--check"]) == 0


def test_tables_cover_every_task_and_config():
    text = readme.generated()
    for t in all_tasks():
        assert f"| {t.name.join('``')} |" in text
        assert f"| `{t.name}` | {readme.tolerance_of(t)} |" in text
        for c in t.configs:
            shapes = ", ".join(readme.shape(s) for s in t.inputs(c))
            assert shapes in text


@pytest.mark.parametrize("name", ["relu", "silu", "softmax"])
def test_margin_rows_are_what_calibrate_prints(name):
    """The margins are deterministic: recomputing a row gives the README's row."""
    row = readme.margin_row(calibrate(get_task(name), readme.MARGIN_SEEDS))
    assert row in readme.README.read_text()


def test_a_changed_tolerance_or_catalogue_is_stale():
    text = readme.README.read_text()
    assert readme.stale_margins(text.replace("| `relu` | rtol 1u", "| `relu` | rtol 2u")) == \
        ["relu: tolerance 'rtol 2u, atol 2^-16 x rms(r)', now 'rtol 1u, atol 2^-16 x rms(r)'"]
    assert any("wrong variants" in p for p in readme.stale_margins(text.replace("leaky_0.01", "leaky")))


def test_stated_policy_matches_the_code():
    text = readme.README.read_text()
    assert f"std(r) < {NEAR_CONSTANT_RATIO} * rms(r)" in text
    assert f"MARGIN_SEEDS draws" in text


def test_render_needs_the_markers():
    with pytest.raises(ValueError, match="lacks the markers"):
        readme.render("no markers here")


def test_margins_of_named_tasks_keep_the_other_rows():
    """`--margins TASK`: that row is recomputed (relu's, deterministic: the same), every
    other row is kept as it stands."""
    text = readme.README.read_text()
    assert readme.render(text, with_margins=True, only=["relu"]) == text
    edited = text.replace("| `gemm` | rtol 1u", "| `gemm` | rtol 9u")
    assert readme.render(edited, with_margins=True, only=["relu"]) == readme.render(edited)
