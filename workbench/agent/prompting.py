"""The prompts, rendered from the Jinja2 templates in prompts/ with strict undefined
variables: a template that names a variable the caller did not pass fails loudly
instead of showing the model an empty string."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

PROMPTS = Path(__file__).with_name("prompts")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(PROMPTS),
                              undefined=jinja2.StrictUndefined, autoescape=False,
                              keep_trailing_newline=False, trim_blocks=False)


def render(name: str, **context) -> str:
    return environment().get_template(f"{name}.j2").render(**context).strip()


def manual_sections(manual: str) -> list[str]:
    return [line.lstrip("#").strip() for line in manual.splitlines()
            if line.startswith("## ")]


def hw_params(hw) -> list[dict]:
    """The hardware configuration as rows for the task prompt (docs from the ISA data)."""
    rows = []
    for name, value in hw.as_dict().items():
        p = hw.isa.params.get(name)
        rows.append({"name": name, "value": value, "doc": getattr(p, "doc", "") or ""})
    return rows
