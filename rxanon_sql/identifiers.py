"""Direct identifiers in text: the values of the direct-identifier columns, of the person column
when it holds names rather than numbers, and of the text columns the release drops (a hotel's
name, an address) are searched in every text and always replaced; `verify` checks that none is
left in the release. So are their distinctive words, the words of three letters or more that are
no common word ("Astor" of "Hotel Astor"): a review that says "the Astor" names the hotel too.

Across the corpus, only values that cannot be mistaken for an everyday word or number are
searched (sql/identifier_values.sql): three characters or more with a letter, or four digits or
more. A shorter value (initials "LW", a badge number "48") is still searched in the texts of the
person it belongs to (rx.person_identifier_values): there it is that person's identifier, not
someone else's number."""
from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
from sqlglot import exp

from .common_words import TOKEN
from .join import source_query
from .sqlrun import col, ident, lit, run, run_file, table, union_all
from .udf import replace_function
from udfs.find import MATCH_SQL_TYPE, Searcher, search_arrow

if TYPE_CHECKING:
    from .config import Config

def _columns(cfg: Config, types: dict[str, str]) -> list[str]:
    person = [cfg.person] if types.get(cfg.person) == "VARCHAR" else []
    return [c for c in (*person, *cfg.direct_identifiers)]


def dropped_columns(cfg: Config, types: dict[str, str]) -> list[str]:
    """The text-typed columns of the source that no role releases or uses."""
    roles = {cfg.person, *cfg.direct_identifiers, *cfg.insensitive, *cfg.quasi_identifiers, *cfg.text_columns,
             *(a.name for a in cfg.sensitive)}
    return [c for c, t in types.items() if c not in roles and t == "VARCHAR"]


def build_identifier_values(con: duckdb.DuckDBPyConnection, cfg: Config, types: dict[str, str]) -> None:
    """rx.identifier_values(column_name, norm), searched in every text, and
    rx.person_identifier_values(person, column_name, norm), searched in the person's own texts:
    whole values, then their distinctive words (needs rx.common_words)."""
    s = cfg.schema
    selects = []
    for c in _columns(cfg, types):
        source = "person" if c == cfg.person else c
        value = exp.func("lower", exp.func("trim", exp.cast(col(source), "VARCHAR")))
        selects.append(exp.select(col("person"), exp.alias_(lit(c), "column_name"), exp.alias_(value, "norm"))
                       .from_(table("dataset", s)))
    src = exp.Subquery(this=source_query(cfg), alias=exp.TableAlias(this=ident("src")))
    for c in dropped_columns(cfg, types):
        value = exp.func("lower", exp.func("trim", col(c)))
        selects.append(exp.select(exp.alias_(col(cfg.person), "person"), exp.alias_(lit(c), "column_name"),
                                  exp.alias_(value, "norm")).from_(src))
    # (without a column, an empty table that keeps the person's type)
    candidates = union_all(selects) if selects else exp.select(
        col("person"), exp.alias_(exp.cast(exp.null(), "VARCHAR"), "column_name"),
        exp.alias_(exp.cast(exp.null(), "VARCHAR"), "norm")).from_(table("dataset", s)).where(exp.false())
    run(con, exp.Create(this=exp.Table(this=ident("identifier_candidates")), kind="TABLE", replace=True,
                        expression=candidates, properties=exp.Properties(expressions=[exp.TemporaryProperty()])))
    run_file(con, "identifier_values", s, token=TOKEN)


def register_identifier_search(con: duckdb.DuckDBPyConnection, schema: str) -> None:
    """rx_find_identifiers(text): rx_find with the identifier values of `schema` as its needles;
    rx_mask_identifiers(value): the value with each of them replaced by its column's label."""
    columns = dict(con.execute(f"SELECT norm, min(column_name) FROM {table('identifier_values', schema).sql('duckdb')} "
                               "GROUP BY norm ORDER BY norm").fetchall())
    searcher = Searcher(tuple(columns))

    def search(texts: pa.Array) -> pa.Array:
        return search_arrow(texts, searcher)

    def mask(values: pa.Array) -> pa.Array:
        out = []
        for value in values.to_pylist():
            for start, end, needle in reversed(searcher.find(value) if value else ()):
                value = f"{value[:start]}[{columns[needle].upper()}]{value[end:]}"
            out.append(value)
        return pa.array(out, pa.string())
    replace_function(con, "rx_find_identifiers", search, ["VARCHAR"], MATCH_SQL_TYPE)
    replace_function(con, "rx_mask_identifiers", mask, ["VARCHAR"], "VARCHAR")


def mark_identifiers(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    register_identifier_search(con, cfg.schema)
    run_file(con, "identifiers", cfg.schema)
