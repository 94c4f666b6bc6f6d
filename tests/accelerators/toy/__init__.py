"""toy: a test-only accelerator of seven instructions, built as a fourth accelerator
would be -- its ISA data (isa/), a functional model on the shared run loop
(simulators/) and a registry record (workbench/) -- to prove that an accelerator plugs
in with no edit outside its own folders and one registry line
(tests/workbench/accel/conftest.py)."""
