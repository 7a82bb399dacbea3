"""Helpers shared by the tests: configurations and one-value queries."""
from __future__ import annotations

import tomllib

from stdnum import luhn

from rxanon_sql.config import parse_config
from rxanon_sql.demo import CONFIG


def demo_config(**overrides):
    return parse_config(tomllib.loads(CONFIG)).with_overrides(**overrides)


def config_from(text: str, **overrides):
    return parse_config(tomllib.loads(text)).with_overrides(**overrides)


def rows(con, sql, params=None):
    return con.execute(sql, params).fetchall()


def scalar(con, sql, params=None):
    return con.execute(sql, params).fetchall()[0][0]


def rx_tables(con, schema="rx"):
    """The tables and views of a schema of the connection's database."""
    return sorted(r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = ? "
        "UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = ?",
        [schema, schema]).fetchall())


def differing_rows(con, name: str, a: str, b: str, schema="rx") -> int:
    """Rows of table `name` in database a that database b lacks (EXCEPT ALL); doubles rounded, as
    a sum of doubles depends on the order DuckDB's threads add them in, run to run."""
    cells = ", ".join(f'round("{c}", 9)' if t == "DOUBLE" else f'"{c}"' for c, t in con.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = ? "
        "AND table_schema = ? AND table_name = ? ORDER BY ordinal_position", [a, schema, name]).fetchall())
    return scalar(con, f'SELECT count(*) FROM (SELECT {cells} FROM {a}.{schema}."{name}" EXCEPT ALL '
                       f'SELECT {cells} FROM {b}.{schema}."{name}")')


def found(rec, text: str, label: str | None = None) -> list[str]:
    """The terms a rule recognizer finds in text (of one label), each checked against its offsets."""
    spans = rec.find(text)
    for s in spans:
        assert text[s.start:s.end] == s.term
    return [s.term for s in spans if label is None or s.label == label]


def labelled(rec, text: str) -> list[tuple[str, str]]:
    return [(s.term, s.label) for s in rec.find(text)]


def luhn_complete(prefix: str) -> str:
    return prefix + luhn.calc_check_digit(prefix)
