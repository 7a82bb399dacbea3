"""The measures stage (stages.py): NCP per record, attribute, entity label and dataset (`sql/measures.sql`),
what the release costs a reader of the texts (the words kept, what replaced the others:
`sql/utility.sql`), the equivalence classes of the release, and their re-identification risk
(`sql/risk.sql`)."""
from __future__ import annotations

import duckdb

from .common_words import TOKEN
from .config import Config
from .diversity import build_diversity
from .release import build_classes
from .sqlrun import drop_temporary, run_file, table


def measure(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    run_file(con, "measures", cfg.schema)
    run_file(con, "utility", cfg.schema, token=TOKEN)
    drop_temporary(con, "utility_windows", "utility_kept", "utility_replaced")
    build_classes(con, cfg)
    build_diversity(con, cfg)
    run_file(con, "risk", cfg.schema)


def dataset_ncp(con: duckdb.DuckDBPyConnection, schema: str) -> tuple:
    """The release's NCP as measured: (ncp_a, ncp_x, ncp, records, partitions); ncp_x is NULL
    without text columns."""
    return con.execute(f"SELECT ncp_a, ncp_x, ncp, records, partitions FROM {table('ncp', schema).sql('duckdb')}") \
        .fetchall()[0]


def utility(con: duckdb.DuckDBPyConnection, schema: str, top: int = 3) -> tuple:
    """What the release keeps of the texts: (share of the words kept, or None without words;
    the `top` most replaced surfaces as (surface, label, replacements)), from rx.utility and
    rx.utility_surfaces."""
    share = con.execute(f"SELECT share_kept FROM {table('utility', schema).sql('duckdb')} WHERE scope = 'all'") \
        .fetchall()[0][0]
    surfaces = con.execute(f"SELECT surface, label, CAST(sum(replacements) AS BIGINT) AS n "
                           f"FROM {table('utility_surfaces', schema).sql('duckdb')} GROUP BY surface, label "
                           "ORDER BY n DESC, surface, label LIMIT ?", [top]).fetchall()
    return share, surfaces
