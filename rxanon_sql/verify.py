"""`rxanon-sql verify`: is the release in a database k-anonymous, and does it leak?

It recomputes, from the release and the audit rather than from the partitioner's bookkeeping:
the equivalence classes (same released quasi-identifiers and same kept terms; each must hold at
least k persons and give every person one released tuple), the leak check (no surface of a
suppressed term left uncovered in any text of that person), and the row count."""
from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
from sqlglot import exp

from .config import Config
from .identifiers import register_identifier_search
from .recognize import register_find_texts
from .release import classes_query
from .sqlrun import col, hash_sum, run, statements, table


@dataclass
class Verdict:
    k: int
    classes: int = 0
    smallest: int = 0
    failing: list[tuple] = field(default_factory=list)
    leaks: list[tuple] = field(default_factory=list)
    identifiers: list[tuple] = field(default_factory=list)
    mismatched_rows: int = 0
    rows_released: int = 0
    rows_input: int = 0

    @property
    def ok(self) -> bool:
        return not self.failing and not self.leaks and not self.identifiers and not self.mismatched_rows and self.rows_released == self.rows_input and self.classes > 0


def stored_config(con: duckdb.DuckDBPyConnection, schema: str) -> Config:
    """The configuration of the run that wrote the release (from rx.runs)."""
    import json
    from .config import Attribute
    row = con.execute(f"SELECT config FROM {table('runs', schema).sql('duckdb')} ORDER BY run_id DESC LIMIT 1").fetchall()[0]
    data = json.loads(row[0])
    data["attributes"] = tuple(Attribute(**{k: tuple(v) if isinstance(v, list) else v for k, v in a.items()})
                               for a in data["attributes"])
    return Config(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


def verify(con: duckdb.DuckDBPyConnection, schema: str = "rx", k: int | None = None) -> Verdict:
    cfg = stored_config(con, schema)
    register_find_texts(con)
    k = k if k is not None else cfg.k
    v = Verdict(k=k)
    rows = run(con, classes_query(cfg)).fetchall()
    v.classes = len(rows)
    v.smallest = min((r[2] for r in rows), default=0)
    v.failing = [r for r in rows if r[2] < k or r[3] != r[2]]
    (sql, _), = statements("leaks", schema)
    v.leaks = con.execute(sql).fetchall()
    # No direct identifier value anywhere in the public release, in any column.
    register_identifier_search(con, schema)
    release = table("release", schema).sql("duckdb")
    names = [c for (c,) in con.execute(f"SELECT column_name FROM (DESCRIBE {release})").fetchall()]
    for column in names:
        cell = exp.cast(col(column), "VARCHAR").sql("duckdb")
        # A column other than a text holds few distinct values: each is searched once and counts
        # for its rows (on the blog corpus shape, five such columns took 2 s row by row).
        cells = (f"SELECT {cell} AS value, 1 AS n FROM {release}" if column in cfg.text_columns else
                 f"SELECT {cell} AS value, count(*) AS n FROM {release} GROUP BY ALL")
        # (the matches in a subquery of their own: a released column may have any name, "m" too)
        v.identifiers += con.execute(
            f"SELECT ? AS column_name, found.hit.needle, sum(found.n) "
            f"FROM (SELECT unnest(rx_find_identifiers(c.value)) AS hit, c.n FROM ({cells}) AS c) AS found "
            f"GROUP BY found.hit.needle ORDER BY found.hit.needle",
            [column]).fetchall()
    # The public release is the audit without its keys, row for row. Equal rows give equal hash
    # sums: the rows are only compared one by one (EXCEPT ALL, 3.6 s on the blog corpus shape,
    # against 0.5 s) where the sums differ, to count them.
    audit = table("audit", schema).sql("duckdb")
    released = hash_sum(con, table("release", schema), names)
    if released != hash_sum(con, table("audit", schema), names):
        cols = ", ".join(col(c).sql("duckdb") for c in names)
        v.mismatched_rows = con.execute(
            f"SELECT (SELECT count(*) FROM (SELECT {cols} FROM {release} EXCEPT ALL SELECT {cols} FROM {audit})) + "
            f"(SELECT count(*) FROM (SELECT {cols} FROM {audit} EXCEPT ALL SELECT {cols} FROM {release}))").fetchall()[0][0]
    v.rows_released = released[0]
    v.rows_input = con.execute(f"SELECT count(*) FROM {table('dataset', schema).sql('duckdb')}").fetchall()[0][0]
    return v
