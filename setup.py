"""Packages of the `kernelcraft` namespace (the rest of the metadata is in pyproject.toml).

The four parts live at the repository's top and install as kernelcraft.<part>; the
Verilog under rtl/ installs as data beside them (kernelcraft/rtl), where the RTL
backends look for it in a checkout and in a wheel alike. The package list is computed
so a new subpackage cannot be left out of the wheel; which data files go with them is
pyproject.toml's package-data."""
from setuptools import find_namespace_packages, setup

PARTS = ("isa", "simulators", "tasks", "workbench", "rtl")
# every folder, with or without __init__.py: data folders (agent prompts, Verilog) too
found = find_namespace_packages(include=[f"{p}{s}" for p in PARTS for s in ("", ".*")],
                                exclude=["*__pycache__*", "*sim_build*"])
setup(packages=["kernelcraft"] + [f"kernelcraft.{p}" for p in found],
      package_dir={"kernelcraft": "kernelcraft",
                   **{f"kernelcraft.{p}": p for p in PARTS}})
