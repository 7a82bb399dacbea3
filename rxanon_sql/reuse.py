"""A run that only retunes starts at partitioning, on the tables the last run built before it.

Join, terms, linking and persons depend on the source data, on the configuration apart from
the parameters that only partitioning, recoding, release and measures read, and on the code; on
a large corpus they take most of a run. Tuning k and lambda, the method's whole
point, changes none of them. So each run that builds them records a fingerprint
of what they depend on (rx.reusable), and a later run with the same fingerprint keeps their
tables. Any other change (a row, a column type, a label, an attribute, the rxanon-sql or DuckDB
version, a file of the package) gives another fingerprint and a full run.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import json
from importlib import resources

import duckdb
from sqlglot import exp

from .version import __version__
from .config import Config
from . import operators
from .join import source_query
from .settings import all_settings
from .sqlrun import hash_sum, ident, run, schema_objects, table



def retune() -> tuple[str, ...]:
    """The configuration read only after persons (and by NER, whose cache has its own key): the
    settings declared `retune` (config.py, the operators'); an attribute's bias too.
    tests/test_reuse.py checks that changing all of them at once and reusing gives the same tables
    as a full run."""
    return tuple(s.field for s in all_settings(Config) if s.retune)


@functools.cache
def _package_code() -> str:
    """A digest of the package's own files, its subpackages' too: other code may build other tables."""
    digest = hashlib.sha256()

    def walk(folder, prefix: str) -> None:
        for f in sorted(folder.iterdir(), key=lambda f: f.name):
            if f.is_dir() and f.name != "__pycache__":
                walk(f, f"{prefix}{f.name}/")
            elif f.is_file() and f.name.endswith((".py", ".sql", ".tsv")):
                digest.update(f"{prefix}{f.name}".encode() + b"\0" + f.read_bytes())

    for package in ("rxanon_sql", "sql", "udfs"):
        walk(resources.files(package), f"{package}/")
    return digest.hexdigest()


def _code() -> str:
    """The package's files and the code of every registered text operator, which may come from
    outside the package (registered after this process started: not cached)."""
    digest = hashlib.sha256(_package_code().encode())
    for name, cls in operators.REGISTRY.items():
        try:
            source = inspect.getsource(cls)
        except (OSError, TypeError):
            source = f"{cls.__module__}.{cls.__qualname__}"   # (defined where no source is kept)
        digest.update(name.encode() + b"\0" + source.encode() + b"\0")
    return digest.hexdigest()


def source_fingerprint(con: duckdb.DuckDBPyConnection, cfg: Config, types: dict[str, str], recognizer: str) -> str:
    """What the stages before partitioning depend on. The data enter as their row count and the
    sum of their rows' hashes (order does not matter, a repeated row counts twice): one scan of
    the source, little beside the stages it can spare."""
    rows, total = hash_sum(con, exp.Subquery(this=source_query(cfg), alias=exp.TableAlias(this=ident("src"))),
                           list(types))
    settings = cfg.settings()
    for name in retune():
        # (the rare-token guard's threshold is k: with it on, k changes the terms)
        if not (name == "k" and cfg.rare_guard):
            del settings[name]
    for attribute in settings["attributes"]:
        # (a hierarchy only changes recoding and measures, which every run rebuilds from
        # rx.hierarchies, written anew by each run from the file's current content)
        del attribute["bias"], attribute["hierarchy"]
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
