"""`rxanon-sql load`: a CSV, Parquet or JSON file into a new table, read by DuckDB's own readers.

A row key (`row_key`, 1..n in file order) is added only when init would otherwise find no person:
no column is named for one and none is unique per row (a file of reviews, one per reviewer). A
file that has a person column gets none, since a key init marks insensitive would be released.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import duckdb
from sqlglot import exp

from .init import person_candidates, profile, row_keys
from .join import InputError
from .sqlrun import column_names, fold, ident, lit, run

# (the format by the file's last suffix, after a compression suffix DuckDB reads through)
READERS = {".csv": ("read_csv", "CSV"), ".tsv": ("read_csv", "CSV"), ".txt": ("read_csv", "CSV"),
           ".parquet": ("read_parquet", "Parquet"), ".json": ("read_json", "JSON"),
           ".jsonl": ("read_json", "JSON"), ".ndjson": ("read_json", "JSON")}
COMPRESSED = (".gz", ".zst")
KEY = "row_key"


@dataclass
class Loaded:
    table: str
    rows: int
    columns: int
    key: str | None     # the row key column added, if any


def reader(path: str) -> tuple[str, str, str]:
    """(DuckDB reader, format name, the file's stem) for a file that exists and has a known suffix."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"file {path!r} not found")
    suffixes = [s.lower() for s in p.suffixes]
    compressed = bool(suffixes) and suffixes[-1] in COMPRESSED
    kind = suffixes[-2 if compressed else -1] if len(suffixes) > compressed else ""
    if kind not in READERS or (compressed and kind == ".parquet"):
        known = ", ".join(READERS) + " (CSV and JSON also compressed: .gz, .zst)"
        raise InputError(f"file {path!r}: unknown format {''.join(p.suffixes) or '(no extension)'!r}; give one of {known}")
    stem = p.name[: -len("".join(p.suffixes[-(2 if compressed else 1):]))]
    return *READERS[kind], stem


def table_name(stem: str) -> str:
    """The file's stem as a table name that needs no quoting: letters, digits and _."""
    name = re.sub(r"\W+", "_", stem, flags=re.ASCII).strip("_").lower() or "data"
    return "t_" + name if name[0].isdigit() else name


def _exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return any(fold(r[0]) == fold(name) for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database() "
        "AND table_schema = 'main'").fetchall())


def _needs_key(con: duckdb.DuckDBPyConnection, staged: exp.Table) -> bool:
    columns = profile(con, exp.select("*").from_(staged))
    everyone = {fold(c.name) for c in columns}
    return not person_candidates(columns, everyone) and not row_keys(columns, everyone)


def load(con: duckdb.DuckDBPyConnection, path: str, name: str | None = None) -> Loaded:
    """Read the file into table `name` (default: its stem) of schema main; refuses a table that
    exists. Nothing is written unless the whole file was read."""
    read, kind, stem = reader(path)
    name = name if name is not None else table_name(stem)
    if not name:
        raise InputError("--table must not be empty")
    if _exists(con, name):
        raise InputError(f"table {name!r} exists in the database; give another --table or drop it")
    staged = exp.table_(ident("rx_load_staged"), db=ident("temp"))
    try:
        # (a temporary table first: its rowid is the file's row order, which the key takes)
        run(con, exp.Create(this=exp.table_(ident("rx_load_staged")), kind="TABLE", replace=True,
                            properties=exp.Properties(expressions=[exp.TemporaryProperty()]),
                            expression=exp.select("*").from_(exp.func(read, lit(str(path))))))
    except duckdb.Error as e:
        raise InputError(f"file {path!r} cannot be read as {kind}: {str(e).splitlines()[0]}") from None
    try:
        rows = con.execute(f"SELECT count(*) FROM {staged.sql('duckdb')}").fetchall()[0][0]
        names = column_names(con, staged)
        if not rows:
            raise InputError(f"file {path!r} has no rows")
        key = None
        if _needs_key(con, staged):
            taken = {fold(n) for n in names}
            key = next(k for k in (KEY, *(f"{KEY}_{i}" for i in range(2, len(names) + 3))) if fold(k) not in taken)
        rowid = exp.column("rowid")
        select = exp.select(*([exp.alias_(rowid + exp.Literal.number(1), key, quoted=True)] if key else []),
                            exp.Star()).from_(staged).order_by(rowid)
        run(con, exp.Create(this=exp.table_(ident(name), db=ident("main")), kind="TABLE", expression=select))
    finally:
        con.execute("DROP TABLE IF EXISTS temp.rx_load_staged")
    return Loaded(name, rows, len(names) + (key is not None), key)
