"""`generalize`: the lowest node of a hierarchy (hierarchy.py) that every person of the partition
shows; a term with no such node gets anonymization.fallback (sql/operator_suppressed.sql)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
from sqlglot import exp

from ..sqlrun import run, run_file, table
from .registry import register
from .base import Operator, count_rows, occurrence
from .hierarchy import hierarchy_rows

if TYPE_CHECKING:
    from ..config import Config

HIERARCHY_SCHEMA = pa.schema([("label", pa.string()), ("norm", pa.string()), ("level", pa.int32()),
                              ("node", pa.string()), ("display", pa.string()), ("share", pa.float64())])


@register
class Generalize(Operator):
    name = "generalize"
    reason = "generalized"
    fallback = False
    temporary = ("gen_options", "gen_candidates", "gen_choice", "gen_shown")

    def replacement(self) -> exp.Expression:
        return occurrence("generalized")

    def prepare(self, con: duckdb.DuckDBPyConnection, cfg: Config) -> dict:
        """rx.term_hierarchy, then the fixpoint of sql/operator_generalize.sql: gen_choice, which
        sql/operator_suppressed.sql reads."""
        build_hierarchy(con, cfg)
        run_file(con, "operator_generalize_init", cfg.schema)
        passes = 0
        while True:
            passes += 1
            run_file(con, "operator_generalize", cfg.schema)
            if count_rows(con, "gen_shown") == count_rows(con, "gen_candidates"):
                break
            run(con, "CREATE OR REPLACE TEMP TABLE gen_candidates AS SELECT * FROM gen_shown")
        return {"generalize_passes": passes}


def build_hierarchy(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    """rx.term_hierarchy: the hierarchy nodes above every term of a label whose operator is generalize."""
    s = cfg.schema
    labels = [r[0] for r in con.execute(
        f"SELECT DISTINCT label FROM {table('person_terms', s).sql('duckdb')}").fetchall()]
    wanted = [l for l in labels if cfg.operator_of(l) == Generalize.name]
    terms = con.execute(f"SELECT DISTINCT label, norm FROM {table('person_terms', s).sql('duckdb')} "
                        "WHERE list_contains(?, label) ORDER BY label, norm", [wanted]).fetchall() if wanted else []
    rows = hierarchy_rows(terms)
    data = pa.Table.from_pylist([dict(zip(HIERARCHY_SCHEMA.names, r)) for r in rows], schema=HIERARCHY_SCHEMA)
    con.register("rx_hierarchy_rows", data)
    try:
        con.execute(f"CREATE OR REPLACE TABLE {table('term_hierarchy', s).sql('duckdb')} AS SELECT * FROM rx_hierarchy_rows")
    finally:
        con.unregister("rx_hierarchy_rows")
