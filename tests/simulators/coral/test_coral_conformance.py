"""The coral model against Spike, the independent reference: signature programs
(conformance/programs/*.s, hand-written per family) and random instruction sequences
(conformance/randprog.py, fixed seeds), with Spike's signatures committed in
conformance/expected.json by conformance/regenerate.py. What the specification leaves to
the implementation is kept out of the programs (conformance/harness.py says what)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "conformance"))

from harness import bodies, differences, load_expected, run_model, wrap  # noqa: E402
from regenerate import body_hash  # noqa: E402

BODIES = bodies()
EXPECTED = load_expected()


def test_every_program_has_a_current_reference_signature():
    missing = sorted(set(BODIES) - set(EXPECTED))
    stale = sorted(n for n in set(BODIES) & set(EXPECTED) if EXPECTED[n]["body_sha256"] != body_hash(BODIES[n]))
    assert not missing and not stale, (
        f"no Spike signature for {missing}, stale for {stale}: run "
        "python tests/simulators/coral/conformance/regenerate.py --spike PATH")
    assert len(BODIES) >= 20


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_model_agrees_with_spike(name):
    ours = run_model(wrap(BODIES[name], "model"), name)
    diff = differences(ours, EXPECTED[name]["signature"], limit=20)
    assert not diff, f"{name}: the model differs from Spike:\n" + "\n".join(diff)
