"""The partitioning stage as SQL: the levels of partition.py run by the engine itself, for per-person
data beyond the driver's memory (anonymization.in_memory_rows; partition.py chooses).

Each pass of the loop is one level, in a fixed number of set-based statements over every open
partition at once (sql/partition_sql_*.sql): open, the strategy's scoring, split. Python only
counts the open partitions; it never holds a person. The result is handed to sql/partition.sql
in the tables the in-memory partitioner registers, coded alike, so both write the same tables.
(In memory is faster: a level here is 11 statements, whose planning costs DuckDB more than
running them, and each is a job on Spark. SQL pays only where the data would not fit.)
"""
from __future__ import annotations

import duckdb

from .config import Config
from .sqlrun import run_file, table

# the tables the levels leave behind; partition.py drops them once sql/partition.sql has run
TEMPORARY = ("partition_assignment", "partition_candidates", "open_partitions", "level_persons", "level_ranks",
             "level_medians", "level_terms", "level_scored", "level_ranked", "level_cuts")


def index_persons(con: duckdb.DuckDBPyConnection, s: str) -> int:
    """person_index: each person's index from 0 in the order of person, whatever the type of the
    ids (sql/partition.sql reads both partitioners' assignments by it). Returns the persons."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE person_index AS SELECT person, "
                f"CAST(row_number() OVER (ORDER BY person) - 1 AS INTEGER) AS idx FROM {table('person_ids', s).sql('duckdb')}")
    return _scalar(con, "SELECT count(*) FROM person_index")


def per_person_rows(con: duckdb.DuckDBPyConnection, s: str) -> int:
    """The rows the in-memory partitioner would hold: every person's values, keys and terms."""
    return _scalar(con, "SELECT " + " + ".join(f"(SELECT count(*) FROM {table(name, s).sql('duckdb')})"
                                               for name in ("person_values", "person_keys", "person_terms")))


def partition_levels(con: duckdb.DuckDBPyConnection, cfg: Config) -> int:
    """Cut D* level by level into partition_candidates and partition_assignment; returns the
    number of levels. Needs person_index (index_persons)."""
    s = cfg.schema
    run_file(con, "partition_sql_init", s)
    level = 0
    while _scalar(con, "SELECT count(*) FROM open_partitions"):
        run_file(con, "partition_sql_open", s)
        run_file(con, f"partition_sql_{cfg.strategy}", s)
        run_file(con, "partition_sql_split", s, level=level)
        level += 1
    _check_sizes(con)
    return level


def _scalar(con, sql: str):
    return con.execute(sql).fetchall()[0][0]


def _check_sizes(con) -> None:
    """Every final partition holds as many persons as the cut that made it counted on its side:
    the moves and the counts test the same conditions, and a difference would be a wrong release."""
    wrong = _scalar(con, """
        WITH counted AS (
            SELECT left_id AS partition_id, "left" AS size FROM partition_candidates WHERE chosen
            UNION ALL
            SELECT left_id + 1, size - "left" FROM partition_candidates WHERE chosen
        ),
        held AS (SELECT partition_id, count(*) AS size FROM partition_assignment GROUP BY partition_id)
        SELECT count(*) FROM held LEFT JOIN counted ON counted.partition_id = held.partition_id
        WHERE held.partition_id <> 1 AND (counted.size IS NULL OR counted.size <> held.size)""")
    if wrong:
        raise AssertionError(f"the SQL partitioner moved other persons than its cuts counted ({wrong} partitions)")
