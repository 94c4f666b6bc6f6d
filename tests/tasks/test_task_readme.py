"""tasks/README.md: the generated tables are current and the policy it states is the code's."""
from tasks import all_tasks, readme
from tasks.tolerance import NEAR_CONSTANT_RATIO, TOLERANCES


def test_generated_tables_are_current():
    text = readme.README.read_text()
    assert readme.render(text) == text, "tasks/README.md is out of date: run `python -m tasks.readme`"
    assert readme.main(["--check"]) == 0


def test_tables_cover_every_task_and_config():
    text = readme.generated()
    for t in all_tasks():
        assert f"| {t.name.join('``')} |" in text
        for c in t.configs:
            shapes = ", ".join(readme.shape(s) for s in t.inputs(c))
            assert shapes in text


def test_stated_policy_matches_the_code():
    text = readme.README.read_text()
    bf16, fp32 = TOLERANCES["bf16"], TOLERANCES["fp32"]
    assert (bf16.rtol, bf16.atol_scale) == (2 ** -5, 2 ** -4)
    assert "| bf16 | 2^-5 = 0.03125 | 2^-4 = 0.0625 |" in text
    assert (fp32.rtol, fp32.atol_scale) == (2 ** -14, 2 ** -13) and "| fp32 | 2^-14 | 2^-13 |" in text
    assert f"std(r) < {NEAR_CONSTANT_RATIO} * rms(r)" in text


def test_render_needs_the_markers():
    import pytest
    with pytest.raises(ValueError, match="lacks the markers"):
        readme.render("no markers here")
