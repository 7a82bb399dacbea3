"""Fault injection for the crash tests: with RXANON_SQL_FAULT=<point> in the environment the
process kills itself (SIGKILL, no cleanup, like a power cut or an OOM kill) when it reaches that
point. Points: every stage name of pipeline.apply, and `ner_chunk` (after the first NER chunk
is committed)."""
from __future__ import annotations

import os
import signal

ENV = "RXANON_SQL_FAULT"


def fault_point(name: str) -> None:
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
