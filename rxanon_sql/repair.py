"""Repair: what the check before the commit still reads in the released texts is replaced where
it read it, and the release is checked again (sql/repair.sql).

The pipeline and the check read the texts alike by construction where they can (one search, one
definition of the surfaces and identifier values), but a text of a shape no one foresaw can
still be read two ways. A user following the README on ordinary data should get a release that
passes the check rather than none: so a leak of a replaced surface, or a direct identifier's
value, in a released text becomes one more replacement (reason `repaired`), and the release is
rebuilt and checked again, up to MAX_ROUNDS times. What cannot be repaired this way (a class
smaller than k, an identifier's value in a column other than a text, a hit inside a
replacement) still rejects the release. `verify` knows nothing of repairs: it checks the
release as it stands.
"""
from __future__ import annotations

import duckdb
import pyarrow as pa

from .config import Config
from .measures import measure
from .release import release
from .sqlrun import drop_temporary, run_file
from .verify import Verdict, verify

MAX_ROUNDS = 3


def repairable(v: Verdict, cfg: Config) -> bool:
    """Whether every failure of the verdict is a text that shows too much."""
    texts = set(cfg.text_columns)
    return (bool(v.leaks or v.identifiers) and not v.failing and not v.undiverse and not v.mismatched_rows
            and not v.unrebuilt_rows and v.rows_released == v.rows_input and v.classes > 0
            and all(column in texts for column, *_ in v.identifiers))


def repair(con: duckdb.DuckDBPyConnection, cfg: Config, v: Verdict) -> tuple[Verdict, int]:
    """The verdict after repairing what `v` found, and how many replacements the repairs added."""
    added = 0
    for _ in range(MAX_ROUNDS):
        if v.ok or not repairable(v, cfg):
            break
        # (Verdict.leaks: row_id, person, attribute, start_pos, end_pos, needle)
        leaks = pa.table({name: pa.array([row[i] for row in v.leaks], typ) for name, i, typ in (
            ("row_id", 0, pa.int64()), ("attribute", 2, pa.string()), ("start_pos", 3, pa.int64()),
            ("end_pos", 4, pa.int64()), ("needle", 5, pa.string()))})
        con.register("repair_leaks_arrow", leaks)
        try:
            con.execute("CREATE OR REPLACE TEMP TABLE repair_leaks AS SELECT * FROM repair_leaks_arrow")
        finally:
            con.unregister("repair_leaks_arrow")
        run_file(con, "repair", cfg.schema)
        done = con.execute("SELECT count(*) FROM repair_edits").fetchall()[0][0]
        drop_temporary(con, "repair_leaks", "repair_hits", "repair_edits")
        if not done:
            break
        added += done
        release(con, cfg)
        measure(con, cfg)
        v = verify(con, cfg.schema, residual=False)
    return v, added

