"""`python -m kernelcraft ...`: the same command line as the `kernelcraft` script, for a
checkout run without an install (the script exists only after `pip install`)."""
import sys

from kernelcraft.workbench.cli import main

sys.exit(main())
