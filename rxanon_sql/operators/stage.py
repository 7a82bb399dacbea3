"""The stage that runs the text operators: kept terms, each registered operator's own statements,
each replaced term's operator and tag, then the replaced spans (sql/recode_text.sql, whose CASE
comes from the registry)."""
from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import duckdb

from ..errors import ConfigError
from ..settings import DECLARED, SQL_TYPES
from ..sqlrun import drop_temporary, ident, run_file, table
from .registry import REGISTRY, expansions
from udfs.glue import GLUE_RE2

if TYPE_CHECKING:
    from ..config import Config


def write_settings(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    s = cfg.schema
    # (operator and fallback, then each operator's own settings, as declared: setting(NAME) reads them)
    own = [st for st in DECLARED.values() if not st.private]
    columns = ", ".join(["operator VARCHAR", "fallback VARCHAR", *(f"{ident(st.field).sql('duckdb')} {SQL_TYPES[st.type]}"
                                                                  for st in own)])
    con.execute(f"CREATE OR REPLACE TABLE {table('operator_settings', s).sql('duckdb')} ({columns})")
    con.execute(f"INSERT INTO {table('operator_settings', s).sql('duckdb')} VALUES ({', '.join(['?'] * (2 + len(own)))})",
                [cfg.operator, cfg.fallback, *(getattr(cfg, st.field) for st in own)])
    con.execute(f"CREATE OR REPLACE TABLE {table('label_operators', s).sql('duckdb')} (label VARCHAR, operator VARCHAR)")
    if cfg.label_operators:
        con.executemany(f"INSERT INTO {table('label_operators', s).sql('duckdb')} VALUES (?, ?)",
                        sorted(cfg.label_operators.items()))


def apply_operators(con: duckdb.DuckDBPyConnection, cfg: Config) -> dict:
    """Write rx.kept_terms, rx.term_hierarchy, rx.generalized_terms, rx.operator_terms,
    rx.surrogates and rx.replacements. Returns what the operators counted (how many passes
    generalization and drawing took)."""
    s = cfg.schema
    operators = [cls() for cls in REGISTRY.values()]
    write_settings(con, cfg)
    run_file(con, "operator_terms", s, glue=GLUE_RE2)
    counts: dict = {}
    for op in operators:
        counts.update(op.prepare(con, cfg))
    run_file(con, "operator_suppressed", s, salt=secrets.token_hex(16))
    for op in operators:
        counts.update(op.finish(con, cfg))
    run_file(con, "recode_text", s, expand=expansions())
    _check_replacements(con, cfg)
    run_file(con, "shown_terms", s)
    run_file(con, "sweep", s, glue=GLUE_RE2)
    # Nothing reads the operators' working tables after this.
    drop_temporary(con, "shown_terms", *(name for op in operators for name in op.temporary))
    return counts


def _check_replacements(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    """An operator whose expression gives NULL would drop the text it stands in (the release check
    rejects it later, but without naming the operator)."""
    found = con.execute(f"SELECT operator, label FROM {table('replacements', cfg.schema).sql('duckdb')} "
                        "WHERE replacement IS NULL LIMIT 1").fetchall()
    if found:
        operator, label = found[0]
        raise ConfigError(f"text operator {operator!r} gave no replacement (NULL) for a {label} term")
