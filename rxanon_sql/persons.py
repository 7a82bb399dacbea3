"""The persons stage (stages.py): the person-centric view D*. `sql/persons.sql` builds the long tables the
partitioner reads; `rx.persons`, one row per person with one list per quasi-identifier and the
set of non-redundant terms, is a view generated here for the configured columns. (Nothing in a
run reads it, so a table would be written for no reader.)"""
from __future__ import annotations

import duckdb
from sqlglot import exp

from .config import Config
from .sqlrun import col, drop_base_table, ident, lit, run, run_file, table


def build_persons(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    s = cfg.schema
    run_file(con, "persons", s)
    lists = []
    for a in cfg.attributes:
        value = {"numeric": col("num", "v"), "date": col("day", "v")}.get(a.type, col("txt", "v"))
        agg = exp.ArrayAgg(this=exp.Distinct(expressions=[value]))
        filtered = exp.Filter(this=agg, expression=exp.Where(this=exp.and_(
            exp.EQ(this=col("attribute", "v"), expression=lit(a.name)),
            exp.Not(this=exp.Is(this=value.copy(), expression=exp.null())))))
        lists.append(exp.alias_(exp.func("list_sort", exp.func("coalesce", filtered, exp.Array())), a.name, quoted=True))
    terms = exp.select(col("person"), exp.alias_(exp.func("list_sort", exp.ArrayAgg(this=exp.func(
        "struct_pack", exp.PropertyEQ(this=ident("label"), expression=col("label")),
        exp.PropertyEQ(this=ident("norm"), expression=col("norm"))))), "terms")) \
        .from_(table("person_terms", s)).group_by(col("person"))
    # The values are aggregated per person before the terms are joined: joined first, each
    # person's list of terms would be copied onto every one of their value rows.
    values = exp.select(col("person", "v"), *lists).from_(exp.alias_(table("qi_values", s), "v")) \
        .group_by(col("person", "v"))
    query = exp.select(col("person", "v"), *[col(a.name, "v") for a in cfg.attributes],
                       exp.alias_(exp.func("coalesce", col("terms", "t"), exp.Array()), "terms")) \
        .from_(exp.Subquery(this=values, alias=exp.TableAlias(this=ident("v")))) \
        .join(exp.Subquery(this=terms, alias=exp.TableAlias(this=ident("t"))),
              on=exp.EQ(this=col("person", "t"), expression=col("person", "v")), join_type="LEFT") \
        .order_by(col("person", "v"))
    drop_base_table(con, table("persons", s))
    run(con, exp.Create(this=table("persons", s), kind="VIEW", replace=True, expression=query))
