"""The `rxanon-sql` command (click): `common` holds the group, its error handling and the shared
options; the commands are in `release` (demo, apply, sweep, report, verify, export) and `data`
(load, init, entities, generate), each a few lines that call the module doing the work."""
from __future__ import annotations

from . import data, release  # noqa: F401  (their commands register on the group)
from .common import EXIT_BAD_INPUT, main

__all__ = ["EXIT_BAD_INPUT", "main"]
