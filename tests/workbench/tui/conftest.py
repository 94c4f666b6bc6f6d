"""Fixtures for the workbench tests: the fixed sample trace stores (sample.py, and
sample_rtl.py for runs with --rtl), built once per session, and a copy per test for
tests that must own their file."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from sample import build_sample  # noqa: E402
from sample_rtl import build_rtl_sample  # noqa: E402


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory) -> Path:
    return build_sample(tmp_path_factory.mktemp("sample") / "traces.db")


@pytest.fixture(scope="session")
def rtl_db(tmp_path_factory) -> Path:
    """Runs started with --rtl (sample_rtl.py)."""
    return build_rtl_sample(tmp_path_factory.mktemp("sample_rtl") / "traces.db")


@pytest.fixture
def sample_copy(sample_db, tmp_path) -> Path:
    dst = tmp_path / "traces.db"
    shutil.copy(sample_db, dst)
    return dst
