"""The recoding_release stage, recoding (local, per partition). One SQL file per kind of value:
`sql/recode_numeric.sql`, `sql/recode_date.sql`, `sql/recode_nominal.sql` (nominal and ordinal),
`sql/recode_hierarchy.sql` (any attribute with a user hierarchy) write `rx.recoded_values`, and
`sql/recode_identifiers.sql` masks a direct identifier's value inside one;
`sql/recode_text.sql` decides what replaces which span of the texts, after the text operators
(`operators/`).
`rx.recoded`, one row per partition with one column per quasi-identifier, is generated here."""
from __future__ import annotations

import duckdb
from sqlglot import exp

from .config import Config
from .identifiers import register_identifier_search
from .operators import apply_operators
from .sqlrun import col, lit, run, run_file, table


def recode(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    s = cfg.schema
    register_identifier_search(con, s)      # (rx_mask_identifiers, for recode_identifiers.sql)
    for name in ("recode_init", "recode_numeric", "recode_date", "recode_nominal", "recode_hierarchy",
                 "recode_identifiers"):
        run_file(con, name, s)
    apply_operators(con, cfg)  # kept terms, text operators, then sql/recode_text.sql
    columns = []
    for a in cfg.attributes:
        for field, suffix in (("value", ""), ("lo", "__lo"), ("hi", "__hi"), ("covered", "__covered")):
            picked = exp.Filter(this=exp.Max(this=col(field, "r")), expression=exp.Where(
                this=exp.EQ(this=col("attribute", "r"), expression=lit(a.name))))
            columns.append(exp.alias_(picked, a.name + suffix, quoted=True))
    query = exp.select(col("partition_id", "p"), col("size", "p"), *columns) \
        .from_(exp.alias_(table("partition_sizes", s), "p")) \
        .join(exp.alias_(table("recoded_values", s), "r"),
              on=exp.EQ(this=col("partition_id", "r"), expression=col("partition_id", "p")), join_type="LEFT") \
        .group_by(col("partition_id", "p"), col("size", "p")).order_by(col("partition_id", "p"))
    run(con, exp.Create(this=table("recoded", s), kind="TABLE", replace=True, expression=query))
