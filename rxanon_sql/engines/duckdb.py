"""The DuckDB engine: a database file, opened for one command and confined to its own tables
(sqlrun.confine) unless the command allows external access. A file that opens but is damaged
fails on its first read of a damaged block, anywhere in a run: `readable` says so in one line."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Sequence

import duckdb

from ..errors import InputError
from ..join import text_bytes
from ..sqlrun import confine, ident


def writable(path: str, what: str) -> None:
    """Refuses a path whose directory does not exist, before anything is written."""
    if not Path(path).parent.is_dir():
        raise InputError(f"{what} {path!r}: directory {str(Path(path).parent)!r} not found")


# The default memory limit of `apply` (scaled_memory_limit). Under DuckDB's own default (80 % of
# the RAM) it keeps what it read and built cached: the blog sample (14 MB of text) peaked at
# 885 MB, the corpus shape (163 MB) at 2.7 GB even at a 2 GB limit. Six bytes of limit per byte of text (the corpus
# shape: 980 MB) peaks at 1.3 GB there; eight, 2.0 GB for no less CPU; four (650 MB), 1.0 GB
# for 8 % more CPU, its statements that spill taking twice as long. (Before the statements that
# could not spill were made to, four ran out of memory: six kept a margin of 1.5 over it.) Below
# 300 MB the small inputs spill for little gain (the blog sample at 300 MB: 625 to 680 MB peak,
# about 7 % more CPU).
LIMIT_PER_TEXT_BYTE = 6
LIMIT_FLOOR = 300 * 10**6
# At most half the RAM: the rest is for what DuckDB does not count (Python, the UDFs' arrays,
# NER's processes, what the allocator keeps).
LIMIT_RAM_SHARE = 0.5


def ram_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def scaled_memory_limit(text_bytes: int, ram: int | None = None) -> str:
    """DuckDB's memory_limit for a run over `text_bytes` of text, when the user gives none."""
    cap = int((ram if ram is not None else ram_bytes()) * LIMIT_RAM_SHARE)
    return f"{min(max(LIMIT_FLOOR, LIMIT_PER_TEXT_BYTE * text_bytes), cap) // 10**6}MB"


def default_memory_limit(con: duckdb.DuckDBPyConnection, cfg) -> str | None:
    """apply's memory limit without --memory-limit: scaled to the bytes of the configured texts
    (None, DuckDB's default, for a source without texts or one that does not resolve)."""
    n = text_bytes(con, cfg)
    return None if n is None else scaled_memory_limit(n)


# DuckDB hands its threads whole row groups (122,880 rows by default), so every statement over
# the blog sample's 13,360 texts ran on one core while the other idled. A run over fewer rows
# than that per thread writes its tables in smaller groups, one per thread at least: the blog
# sample at 8,192 rows, 12.1 -> 11.1 s. A larger one keeps DuckDB's: at 8,192 rows the corpus
# shape took 4 CPU s more (docs/benchmark-history.md, ninth round).
DEFAULT_ROW_GROUP = 122_880
VECTOR = 2048           # (DuckDB's row groups are whole vectors)


def row_group_rows(rows: int | None, threads: int) -> int:
    """Rows per row group for a run whose source has `rows` rows (None: not known)."""
    if not rows:
        return DEFAULT_ROW_GROUP
    per_thread = -(-rows // max(threads, 1))
    return min(DEFAULT_ROW_GROUP, -(-per_thread // VECTOR) * VECTOR)


def _attached(db: str, relations: Sequence[str]) -> duckdb.DuckDBPyConnection:
    """The database for writing, as duckdb.connect(db) opens it (same catalogue name, temporary
    files beside it, no other database), with row groups sized by row_group_rows for the largest
    of `relations` that is a table of the file (ROW_GROUP_SIZE is an option of ATTACH only; the
    sizes are the catalogue's, read before the connection is confined: no view runs). A file
    that DuckDB would name "memory", the name of the connection's own database, is opened as
    duckdb.connect opens it."""
    con = duckdb.connect()
    try:
        con.execute("ATTACH ?", [db])
    except duckdb.BinderException:
        con.close()
        return duckdb.connect(db)
    except duckdb.Error:
        con.close()
        raise
    try:
        name = con.execute("SELECT database_name FROM duckdb_databases() WHERE path IS NOT NULL").fetchall()[0][0]
        quoted = ident(name).sql("duckdb")
        rows = con.execute("SELECT max(estimated_size) FROM duckdb_tables() WHERE database_name = ? AND "
                           "lower(table_name) IN (SELECT lower(unnest(CAST(? AS VARCHAR[]))))",
                           [name, [r.split(".")[-1] for r in relations]]).fetchall()[0][0]
        size = row_group_rows(rows, con.execute("SELECT current_setting('threads')").fetchall()[0][0])
        if size < DEFAULT_ROW_GROUP:
            con.execute(f"DETACH {quoted}")
            con.execute(f"ATTACH ? AS {quoted} (ROW_GROUP_SIZE {size})", [db])
        con.execute(f"USE {quoted}")
        con.execute("DETACH memory")
        con.execute("SET temp_directory = ?", [f"{os.path.abspath(db)}.tmp"])
    except duckdb.Error:
        con.close()
        raise
    return con


def connect(db: str, read_only: bool = False, confined: bool = False,
            memory_limit: str | Callable[[duckdb.DuckDBPyConnection], str | None] | None = None,
            relations: Sequence[str] = ()) -> duckdb.DuckDBPyConnection:
    """The database; `confined`: able to read its own tables only (sqlrun.confine), after
    `memory_limit` is set, since the configuration is then locked. A callable `memory_limit`
    gives it from the database, read already confined (None: DuckDB's default). `relations`:
    the run's source, whose size sets the row groups a writing connection writes (_attached)."""
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
        con = duckdb.connect(db, read_only=True) if read_only else _attached(db, relations)
    except duckdb.Error as e:
        raise InputError(f"cannot open database {db!r}: {str(e).splitlines()[0]}") from None
    if confined:
        confine(con, lock=False)
    if callable(memory_limit):
        memory_limit = memory_limit(con)
    if memory_limit is not None:
        try:
            con.execute("SET memory_limit = ?", [memory_limit])
        except duckdb.Error as e:
            con.close()
            raise InputError(f"--memory-limit {memory_limit!r}: {str(e).splitlines()[0]}") from None
    if confined:
        con.execute("SET lock_configuration = true")
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
