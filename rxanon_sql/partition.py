"""Stage 5, partition: the modified Mondrian with lambda and bias, or GDF (DESIGN.md).

Level-synchronous and set-based: each pass of the loop below is one Mondrian level, in which
`sql/partition_<strategy>.sql` scores the candidate cuts of every open partition at once and
`sql/partition_split.sql` applies the chosen cuts. Python only counts the levels; it never sees
a person or a partition. The result is `rx.partitions` (person -> partition_id), `rx.splits`
(one row per cut made), `rx.split_candidates` (every candidate scored) and `rx.partition_tree`.
"""
from __future__ import annotations

import duckdb

from .config import Config
from .sqlrun import run_file


def partition(con: duckdb.DuckDBPyConnection, cfg: Config) -> int:
    """Partition D*; returns the number of levels."""
    s = cfg.schema
    run_file(con, "partition_init", s)
    level = 0
    while con.execute("SELECT count(*) FROM open_partitions").fetchall()[0][0]:
        run_file(con, "partition_open", s)
        run_file(con, f"partition_{cfg.strategy}", s)
        run_file(con, "partition_split", s, level=level)
        level += 1
    run_file(con, "partition_finish", s)
    return level
