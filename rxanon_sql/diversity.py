"""Sensitive attributes: distinct l-diversity and t-closeness (docs/privacy.md, "Sensitive
attributes").

A sensitive attribute is no quasi-identifier: it is neither cut on nor recoded, and the release
shows it unchanged. What protects it is that every equivalence class holds at least l distinct
values of it, and that its distribution in each class lies within t of the whole dataset's (ARX's
EMD: ordered for a numeric attribute or one with an `order`, equal-distance for a nominal one).

The values come from rx.dataset for the partitioner (sensitive_values.sql, also kept as
rx.sensitive_values) and from rx.audit, what was released, for the check (diversity.sql)."""
from __future__ import annotations

import duckdb
from sqlglot import exp

from .config import Config
from .errors import InputError
from .release import class_members_query
from .sqlrun import col, column_types, drop_temporary, ident, lit, run, run_file, table, union_all

# DuckDB's number types: a sensitive column of one of these is ordered by number
NUMBER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "REAL")
TOLERANCE = 1e-9        # the partitioner and diversity.sql sum the same shares in other orders
_TEMPORARY = ("sensitive_source", "sensitive_values", "sensitive_domain", "class_members", "class_values",
              "class_diversity")


def _source_query(con: duckdb.DuckDBPyConnection, cfg: Config, source: exp.Table) -> exp.Expression:
    """(person, attribute, value, sort_key, ordered), one row per row of `source` and sensitive
    attribute."""
    types = column_types(con, source)
    selects = []
    for a in cfg.sensitive:
        value = exp.cast(col(a.name), "VARCHAR")
        numeric = types[a.name].split("(")[0] in NUMBER_TYPES
        if a.order:
            key = exp.func("list_position", exp.cast(exp.Array(expressions=[lit(v) for v in a.order]), "VARCHAR[]"),
                           value.copy())
        elif numeric:
            key = exp.cast(col(a.name), "DOUBLE")
        else:
            key = exp.cast(exp.null(), "DOUBLE")
        ordered = bool(a.order) or numeric
        selects.append(exp.select(col("person"), exp.alias_(lit(a.name), "attribute"), exp.alias_(value, "value"),
                                  exp.alias_(exp.cast(key, "DOUBLE"), "sort_key"),
                                  exp.alias_(exp.Boolean(this=ordered), "ordered")).from_(source.copy()))
    if selects:
        return union_all(selects)
    empty = [exp.alias_(exp.cast(exp.null(), t), n) for n, t in (
        ("attribute", "VARCHAR"), ("value", "VARCHAR"), ("sort_key", "DOUBLE"), ("ordered", "BOOLEAN"))]
    return exp.select(col("person"), *empty).from_(source.copy()).where(exp.false())


def load_values(con: duckdb.DuckDBPyConnection, cfg: Config, source: exp.Table, cached: bool = True) -> None:
    """The temporary tables sensitive_values and sensitive_domain, from `source` (a table with a
    person column and the sensitive columns). A value of an ordered attribute missing from its
    `order` is an InputError."""
    run(con, exp.Create(this=exp.table_(ident("sensitive_source")), kind="VIEW", replace=True,
                        expression=_source_query(con, cfg, source),
                        properties=exp.Properties(expressions=[exp.TemporaryProperty()])))
    run_file(con, "sensitive_values", cfg.schema, cached=cached)
    for a in cfg.sensitive:
        if a.order:
            missing = con.execute("SELECT value FROM sensitive_source WHERE attribute = ? AND value IS NOT NULL "
                                  "AND sort_key IS NULL ORDER BY value LIMIT 1", [a.name]).fetchall()
            if missing:
                raise InputError(f"column {a.name!r} holds the value {missing[0][0]!r}, which "
                                 f"attributes.{a.name}.order does not list")


def check_dataset(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    """Whether the whole dataset can be l-diverse: each attribute needs l distinct values."""
    if cfg.l is None:
        return
    found = dict(con.execute("SELECT attribute, count(*) FROM sensitive_domain GROUP BY attribute").fetchall())
    for a in cfg.sensitive:
        if found.get(a.name, 0) < cfg.l:
            raise InputError(f"sensitive attribute {a.name!r} has {found.get(a.name, 0)} distinct values in the "
                             f"whole dataset, fewer than anonymization.l = {cfg.l}: no release can be {cfg.l}-diverse")


def check_source(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    """The sensitive columns' input errors, found with the others before anything is committed
    (pipeline._build_source); the partitioner checks again, for a run that reuses the dataset."""
    if not cfg.sensitive:
        return
    try:
        load_values(con, cfg, table("dataset", cfg.schema))
        check_dataset(con, cfg)
    finally:
        drop_temporary(con, "sensitive_source", "sensitive_values", "sensitive_domain")


def measure_classes(con: duckdb.DuckDBPyConnection, cfg: Config, cached: bool = True) -> None:
    """The temporary table class_diversity (diversity.sql): one row per equivalence class of the
    release and sensitive attribute, with its distinct values, its distance and whether it meets
    l and t. Reads the release's own values (rx.audit)."""
    load_values(con, cfg, table("audit", cfg.schema), cached)
    members = class_members_query(cfg)
    numbered = exp.select(exp.alias_(exp.Window(this=exp.func("dense_rank"), order=exp.Order(expressions=[
        exp.Ordered(this=col("key")), exp.Ordered(this=col("kept_terms"))])), "class_id"), col("key"),
        col("kept_terms"), col("person")).from_(exp.Subquery(this=members, alias=exp.TableAlias(this=ident("m"))))
    run(con, exp.Create(this=exp.table_(ident("class_members")), kind="TABLE", replace=True, expression=numbered,
                        properties=exp.Properties(expressions=[exp.TemporaryProperty()])))
    run_file(con, "diversity", cfg.schema, cached=cached, l=cfg.l, t=cfg.t)


def failing_classes(con: duckdb.DuckDBPyConnection, cfg: Config) -> list[tuple]:
    """For verify: (key, kept_terms, size, attribute, distinct_values, distance_kind, distance) of
    each class and attribute that breaks l or t, computed anew from the package's SQL files."""
    if not cfg.sensitive:
        return []
    try:
        measure_classes(con, cfg, cached=False)
        return con.execute("SELECT key, kept_terms, size, attribute, distinct_values, distance_kind, distance "
                           "FROM class_diversity WHERE NOT ok ORDER BY class_id, attribute").fetchall()
    finally:
        drop_temporary(con, *_TEMPORARY)


def build_diversity(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    """rx.diversity: class_diversity as a table of the schema (empty without sensitive attributes)."""
    try:
        measure_classes(con, cfg)
        run(con, exp.Create(this=table("diversity", cfg.schema), kind="TABLE", replace=True,
                            expression=exp.select("*").from_("class_diversity")))
    finally:
        drop_temporary(con, *_TEMPORARY)
