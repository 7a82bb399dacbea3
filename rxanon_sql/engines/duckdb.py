"""The DuckDB engine: a database file, opened for one command and confined to its own tables
(sqlrun.confine) unless the command allows external access. A file that opens but is damaged
fails on its first read of a damaged block, anywhere in a run: `readable` says so in one line."""
from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path

import duckdb

from ..errors import InputError
from ..sqlrun import confine


def writable(path: str, what: str) -> None:
    """Refuses a path whose directory does not exist, before anything is written."""
    if not Path(path).parent.is_dir():
        raise InputError(f"{what} {path!r}: directory {str(Path(path).parent)!r} not found")


def connect(db: str, read_only: bool = False, confined: bool = False,
            memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """The database; `confined`: able to read its own tables only (sqlrun.confine), after
    `memory_limit` is set, since the configuration is then locked."""
    if read_only and not Path(db).exists():
        raise InputError(f"database {db!r} not found")
    if not read_only:
        writable(db, "database")
        # DuckDB writes its journal (DB.wal) beside the file, which a read-only directory refuses
        # only at the first commit: after NER, or at the end of the run.
        try:
            tempfile.TemporaryFile(dir=Path(db).parent).close()
        except OSError as e:
            raise InputError(f"database {db!r}: cannot write in its directory {str(Path(db).parent)!r} "
                             f"({e.strerror}), where DuckDB keeps its journal") from None
    try:
        con = duckdb.connect(db, read_only=read_only)
    except duckdb.Error as e:
        raise InputError(f"cannot open database {db!r}: {str(e).splitlines()[0]}") from None
    if memory_limit is not None:
        try:
            con.execute("SET memory_limit = ?", [memory_limit])
        except duckdb.Error as e:
            con.close()
            raise InputError(f"--memory-limit {memory_limit!r}: {str(e).splitlines()[0]}") from None
    if confined:
        confine(con)
    return con


@contextmanager
def readable(db: str):
    """A damaged file's error as one line naming the database: a truncated one fails with an
    IOException, a block whose checksum fails with a bare duckdb.Error that only its message
    tells apart."""
    try:
        yield
    except duckdb.Error as e:
        line = str(e).splitlines()[0]
        if not isinstance(e, duckdb.IOException) and not (type(e) is duckdb.Error
                                                           and line.startswith("Corrupt database file")):
            raise
        raise InputError(f"database {db!r} cannot be read (damaged or truncated?): {line}") from None
