"""A run that only retunes starts at partitioning, on the tables the last run built before it.

Join, terms, linking and persons depend on the source data, on the configuration apart from
the parameters that only partitioning, recoding, release and measures read, and on the code; on
the blog corpus shape they take 30 s of a 51 s run. Tuning k and lambda, the method's whole
point, changes none of them. So each run that builds them records a fingerprint
of what they depend on (rx.reusable), and a later run with the same fingerprint keeps their
tables. Any other change (a row, a column type, a label, an attribute, the rxanon-sql or DuckDB
version, a file of the package) gives another fingerprint and a full run.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from importlib import resources

import duckdb
from sqlglot import exp

from . import __version__
from .config import Config
from .join import source_query
from .sqlrun import hash_sum, ident, run, schema_objects, table

# The configuration read only after persons (and by NER, whose cache has its own key); an
# attribute's bias too. tests/test_reuse.py checks that changing all of them at once and reusing
# gives the same tables as a full run.
RETUNE = ("k", "lam", "strategy", "nominal_order", "operator", "label_operators", "fallback", "mask",
          "secret", "locale", "w_a", "w_x", "label_bias", "batch_size", "workers")


@functools.cache
def _code() -> str:
    """A digest of the package's own files: other code may build other tables."""
    digest = hashlib.sha256()
    # (udfs.recognizers: a recognizer added or changed there changes the terms)
    for package in ("rxanon_sql", "sql", "udfs", "udfs.recognizers"):
        for f in sorted(resources.files(package).iterdir(), key=lambda f: f.name):
            if f.is_file() and f.name.endswith((".py", ".sql", ".tsv")):
                digest.update(f"{package}/{f.name}".encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()


def source_fingerprint(con: duckdb.DuckDBPyConnection, cfg: Config, types: dict[str, str], recognizer: str) -> str:
    """What the stages before partitioning depend on. The data enter as their row count and the
    sum of their rows' hashes (order does not matter, a repeated row counts twice): one scan,
    0.1 to 0.2 s on the blog corpus shape."""
    rows, total = hash_sum(con, exp.Subquery(this=source_query(cfg), alias=exp.TableAlias(this=ident("src"))),
                           list(types))
    settings = dataclasses.asdict(cfg)
    for name in RETUNE:
        # (the rare-token guard's threshold is k: with it on, k changes the terms)
        if not (name == "k" and cfg.rare_guard):
            del settings[name]
    for attribute in settings["attributes"]:
        del attribute["bias"]
    payload = {"config": settings, "types": types, "recognizer": recognizer, "rows": rows, "hash": str(total),
               "rxanon_sql": __version__, "code": _code(), "duckdb": duckdb.__version__}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=list).encode()).hexdigest()


def reusable(con: duckdb.DuckDBPyConnection, cfg: Config, fingerprint: str) -> bool:
    """Whether the last run that built the stages before partitioning had this fingerprint, and
    every table it left is still there."""
    present = schema_objects(con, cfg.schema)
    if "reusable" not in present:
        return False
    found = run(con, exp.select("fingerprint", "tables").from_(table("reusable", cfg.schema))).fetchall()
    return len(found) == 1 and found[0][0] == fingerprint and set(found[0][1]) <= present


def record(con: duckdb.DuckDBPyConnection, cfg: Config, fingerprint: str) -> None:
    """After persons: the fingerprint, and the tables and views a reusing run needs to find."""
    tables = sorted(schema_objects(con, cfg.schema) - {"reusable"})
    con.execute(f"CREATE OR REPLACE TABLE {table('reusable', cfg.schema).sql('duckdb')} AS "
                "SELECT CAST(? AS VARCHAR) AS fingerprint, CAST(? AS VARCHAR[]) AS tables", [fingerprint, tables])
