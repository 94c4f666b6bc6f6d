"""The test-only toy accelerator (tests/accelerators/toy/) joins the registry here, so
the contract test runs over it beside the product's accelerators."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "accelerators"))

from kernelcraft.workbench.accel import register  # noqa: E402

register("toy", "toy.workbench")      # the toy's one registry line
