"""Stage 8, measures: NCP per record, attribute, entity label and dataset (`sql/measures.sql`),
the equivalence classes of the release, and their re-identification risk (`sql/risk.sql`)."""
from __future__ import annotations

import duckdb

from .config import Config
from .diversity import build_diversity
from .release import build_classes
from .sqlrun import run_file, table


def measure(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    run_file(con, "measures", cfg.schema)
    build_classes(con, cfg)
    build_diversity(con, cfg)
    run_file(con, "risk", cfg.schema)


def dataset_ncp(con: duckdb.DuckDBPyConnection, schema: str) -> tuple:
    """The release's NCP as measured: (ncp_a, ncp_x, ncp, records, partitions); ncp_x is NULL
    without text columns."""
    return con.execute(f"SELECT ncp_a, ncp_x, ncp, records, partitions FROM {table('ncp', schema).sql('duckdb')}") \
        .fetchall()[0]
