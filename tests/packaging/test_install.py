"""The distribution as a user installs it: one `kernelcraft` namespace, nothing else at
the top of site-packages, the Verilog shipped beside the code, and a wheel that runs
`kernelcraft demo` in a fresh virtual environment (dependencies come from the
environment the tests run in: --system-site-packages, no network)."""
from __future__ import annotations

import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("isa", "simulators", "tasks", "workbench")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    src = out / "src"                  # a copy: an in-tree build would leave build/ behind
    for name in ("kernelcraft", "rtl", *PARTS):
        shutil.copytree(ROOT / name, src / name,
                        ignore=shutil.ignore_patterns("__pycache__", "sim_build"))
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                        "--no-build-isolation", "-w", str(out), str(src)],
                       capture_output=True, text=True, timeout=600, cwd=out)
    assert r.returncode == 0, r.stderr
    return next(out.glob("kernelcraft-*.whl"))


def test_the_wheel_holds_one_namespace_with_its_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"kernelcraft", next(t for t in tops if t.endswith(".dist-info"))}
    for must in ("kernelcraft/__init__.py", "kernelcraft/workbench/cli.py",
                 "kernelcraft/isa/plena/hardware.toml", "kernelcraft/isa/plena/MANUAL.md",
                 "kernelcraft/workbench/tui/app.tcss", "kernelcraft/rtl/plena/plena_core.v",
                 "kernelcraft/rtl/plena/plena_hbm.cpp", "kernelcraft/rtl/coral/coral_core.v",
                 "kernelcraft/simulators/plena/lanes.c",
                 "kernelcraft/workbench/agent/prompts/system.j2"):
        assert must in names, must
    # every module and data file of the checkout is in the wheel (prompts, Verilog ...)
    shipped = (".py", ".toml", ".md", ".j2", ".tcss", ".json", ".v", ".vh", ".cpp", ".vlt", ".c")
    missing = [path for part in (*PARTS, "rtl") for path in (ROOT / part).rglob("*")
               if path.suffix in shipped and "__pycache__" not in path.parts
               and f"kernelcraft/{path.relative_to(ROOT).as_posix()}" not in names]
    assert not missing, missing


@pytest.fixture(scope="module")
def env(wheel, tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(where)
    if sys.prefix != sys.base_prefix:
        # the tests run in a virtual environment: --system-site-packages reaches only its
        # base interpreter's packages, so the dependencies installed here are named too
        # (as plain paths: their .pth files, the editable checkout's among them, stay unread)
        inner = next((where / "lib").glob("python3*/site-packages"))
        (inner / "outer_env.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # --ignore-installed: the editable checkout under test is also kernelcraft 0.1.0
    r = subprocess.run([str(where / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                        "--ignore-installed", str(wheel)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return where


def run(env: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*argv], capture_output=True, text=True, timeout=600, cwd=cwd,
                          env={"PATH": f"{env / 'bin'}:/usr/bin:/bin", "HOME": str(cwd),
                               "LITELLM_LOCAL_MODEL_COST_MAP": "True"})


def test_the_installed_wheel_runs_the_demo_and_owns_no_top_level_name(env, tmp_path):
    py = str(env / "bin" / "python")
    r = run(env, py, "-c", "import kernelcraft, kernelcraft.workbench.cli as c; print(c.__file__)",
            cwd=tmp_path)
    assert r.returncode == 0 and str(env) in r.stdout, r.stderr
    for part in PARTS:
        r = run(env, py, "-c", f"import {part}", cwd=tmp_path)
        assert r.returncode != 0 and "No module named" in r.stderr, (part, r.stdout, r.stderr)
    r = run(env, py, "-c", "from kernelcraft.simulators.plena_rtl.build import ROOT;"
            "print((ROOT / 'rtl' / 'plena' / 'plena_core.v').is_file(), ROOT)", cwd=tmp_path)
    assert r.stdout.startswith("True") and str(env) in r.stdout, r.stdout + r.stderr
    r = run(env, str(env / "bin" / "kernelcraft"), "demo", "--traces", str(tmp_path / "t.db"),
            cwd=tmp_path)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "ended by: submitted; correct: True" in r.stdout, r.stdout[-2000:]
