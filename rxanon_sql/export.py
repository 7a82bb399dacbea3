"""`rxanon-sql export`'s file handling: the release goes to OUT only when told to replace it,
never onto the database, and through a file beside OUT that is renamed, so that a failed export
leaves an existing OUT as it was."""
from __future__ import annotations

import os
from pathlib import Path

import duckdb

from .engines.duckdb import writable
from .errors import InputError


def check_target(out: str, db: str, force: bool) -> None:
    """An export replaces a user's file only when told to, and never the database (a symlink
    OUT may point at it): checked before anything is read."""
    writable(out, "export file")
    target = Path(out)
    if target.is_dir():
        raise InputError(f"export file {out!r} is a directory; give a file name")
    if target.exists() and any(Path(f).exists() and target.samefile(f) for f in (db, f"{db}.wal")):
        raise InputError(f"export file {out!r} is the database {db!r} itself; give another file name")
    if (target.exists() or target.is_symlink()) and not force:
        raise InputError(f"export file {out!r} exists; remove it, give another name, or pass --force to replace it")


def write_release(rel, out: str, parquet: bool) -> None:
    """Write the release beside OUT and move it there: a failed export leaves an existing OUT as
    it was, and a symlink OUT is replaced, not the file it points at."""
    # (a name of this process's, which the writer creates with the user's usual permissions)
    tmp = str(Path(out).with_name(f".{Path(out).name}.{os.getpid()}{Path(out).suffix}"))
    try:
        if isinstance(rel, duckdb.DuckDBPyRelation):
            # (the database's connection may open no file, sqlrun.confine: a connection of its
            # own, which reads nothing but the rows it is handed, writes them)
            with duckdb.connect() as writer:
                rows = writer.from_arrow(rel.to_arrow_reader())
                (rows.write_parquet if parquet else rows.write_csv)(tmp)
        else:
            (rel.write_parquet if parquet else rel.write_csv)(tmp)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
