"""The linking stage (stages.py): terms that repeat a relational value of their tuple become redundant
(`rx.terms.linked_attribute`, with the stating part in `stated_start`/`stated_end`). All SQL:
`sql/linking.sql`."""
from __future__ import annotations

import duckdb

from .config import Config
from .sqlrun import run_file


def link(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    """(The texts were searched for the tuples' values in the terms stage, with propagation:
    see sql/mention_needles.sql.)"""
    run_file(con, "linking", cfg.schema)
