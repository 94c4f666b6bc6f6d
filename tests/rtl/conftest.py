"""What every RTL test folder shares: the tests that take minutes run only when asked for.

- `synth`: Yosys synthesis, of a small or the default configuration, minutes to an hour
  each (`-m synth`);
- `fullsize`: a design at its default (full-size) configuration where the small shared
  build cannot hold the kernel: one more cold Verilator build of many minutes
  (`-m fullsize`). The suite's plain `pytest -q` covers the same RTL on the small
  configurations; these repeat it at full size."""
import pytest

OPT_IN = {"synth": "Yosys synthesis (minutes to an hour): run with -m synth",
          "fullsize": "a cold build of the default configuration: run with -m fullsize"}


def pytest_collection_modifyitems(config, items):
    asked = config.getoption("markexpr") or ""
    for marker, reason in OPT_IN.items():
        if marker in asked:
            continue
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)
