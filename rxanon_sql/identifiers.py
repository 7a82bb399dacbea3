"""Direct identifiers in text: the values of the direct-identifier columns, of the person column
when it holds names rather than numbers, and of the text columns the release drops (a hotel's
name, an address) are searched in every text and always replaced; `verify` checks that none is
left in the release. So are their distinctive words, the words of three letters or more that are
no common word ("Astor" of "Hotel Astor"): a review that says "the Astor" names the hotel too.

Only values with a letter and at least three characters are searched: a bare number such as a
row id would match every number in the texts."""
from __future__ import annotations

import duckdb
import pyarrow as pa
from sqlglot import exp

from .config import Config
from .common_words import TOKEN
from .join import source_query
from .sqlrun import col, ident, lit, run, run_file, table, union_all
from .udf import replace_function
from .udfs.find import MATCH_SQL_TYPE, Searcher, search_arrow

MIN_LENGTH = 3


def _columns(cfg: Config, types: dict[str, str]) -> list[str]:
    person = [cfg.person] if types.get(cfg.person) == "VARCHAR" else []
    return [c for c in (*person, *cfg.direct_identifiers)]


def dropped_columns(cfg: Config, types: dict[str, str]) -> list[str]:
    """The text-typed columns of the source that no role releases or uses."""
    roles = {cfg.person, *cfg.direct_identifiers, *cfg.insensitive, *cfg.quasi_identifiers, *cfg.text_columns}
    return [c for c, t in types.items() if c not in roles and t == "VARCHAR"]


def build_identifier_values(con: duckdb.DuckDBPyConnection, cfg: Config, types: dict[str, str]) -> None:
    """rx.identifier_values(column_name, norm): whole values, then their distinctive words (needs
    rx.common_words)."""
    s = cfg.schema
    selects = []
    for c in _columns(cfg, types):
        source = "person" if c == cfg.person else c
        value = exp.func("lower", exp.func("trim", exp.cast(col(source), "VARCHAR")))
        selects.append(exp.select(exp.alias_(lit(c), "column_name"), exp.alias_(value, "norm"))
                       .from_(table("dataset", s)))
    src = exp.Subquery(this=source_query(cfg), alias=exp.TableAlias(this=ident("src")))
    for c in dropped_columns(cfg, types):
        value = exp.func("lower", exp.func("trim", col(c)))
        selects.append(exp.select(exp.alias_(lit(c), "column_name"), exp.alias_(value, "norm")).from_(src))
    if selects:
        whole = exp.select("*").distinct().from_(exp.Subquery(this=union_all(selects), alias="v"))
        words = exp.select(col("column_name"), exp.alias_(col("word", "u"), "norm")).from_(
            exp.Subquery(this=whole, alias="w")).join(
            exp.Unnest(expressions=[exp.func("regexp_extract_all", col("norm"), lit(TOKEN))],
                       alias=exp.TableAlias(this=ident("u"), columns=[ident("word")])), join_type="CROSS").where(
            exp.Not(this=col("word", "u").isin(query=exp.select("word").from_(table("common_words", s)))))
        values = exp.select("*").distinct().from_(exp.Subquery(this=union_all([whole, words]), alias="v")).where(
            exp.and_(exp.GTE(this=exp.func("length", col("norm")), expression=exp.Literal.number(MIN_LENGTH)),
                     exp.func("regexp_matches", col("norm"), lit(r"\pL"))))
    else:
        values = exp.select(exp.alias_(exp.cast(exp.null(), "VARCHAR"), "column_name"),
                            exp.alias_(exp.cast(exp.null(), "VARCHAR"), "norm")).where(exp.false())
    run(con, exp.Create(this=table("identifier_values", s), kind="TABLE", replace=True, expression=values))


def register_identifier_search(con: duckdb.DuckDBPyConnection, schema: str) -> None:
    """rx_find_identifiers(text): rx_find with the identifier values of `schema` as its needles."""
    needles = tuple(sorted(r[0] for r in con.execute(
        f"SELECT DISTINCT norm FROM {table('identifier_values', schema).sql('duckdb')}").fetchall()))

    searcher = Searcher(needles)

    def search(texts: pa.Array) -> pa.Array:
        return search_arrow(texts, searcher)
    replace_function(con, "rx_find_identifiers", search, ["VARCHAR"], MATCH_SQL_TYPE)


def mark_identifiers(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    register_identifier_search(con, cfg.schema)
    run_file(con, "identifiers", cfg.schema)
