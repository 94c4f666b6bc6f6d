"""Imported by the forkserver that local sweep workers are forked from (executors.py
preloads it): the forkserver then dies with the coordinator, and each worker with the
forkserver, so a coordinator killed with SIGKILL leaves no cell running behind it."""
from __future__ import annotations

from .cell import die_with_parent

die_with_parent()
