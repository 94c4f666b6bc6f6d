"""KernelCraft: the benchmark and workbench, installed as one namespace.

The four parts keep their folders at the repository's top (isa/, simulators/, tasks/,
workbench/: the product's layout) and are installed as `kernelcraft.isa`,
`kernelcraft.simulators`, `kernelcraft.tasks` and `kernelcraft.workbench`, so no
top-level name of ours can collide with another distribution's."""
from __future__ import annotations

from pathlib import Path as _Path

# In a source checkout the four folders sit beside this one, not inside it (an
# installed wheel has them inside): let them be found there too, so that running from
# the checkout (python -m, cocotb's simulator process) needs no install finder.
_ROOT = _Path(__file__).resolve().parent.parent
if (not (_Path(__file__).parent / "workbench").is_dir()
        and (_ROOT / "workbench" / "__init__.py").is_file()):
    __path__.append(str(_ROOT))  # noqa: F821 -- a package's __path__
