"""The DuckDB engine: a database file, opened for one command and confined to its own tables
(sqlrun.confine) unless the command allows external access. A file that opens but is damaged
fails on its first read of a damaged block, anywhere in a run: `readable` says so in one line."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

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


# Tables written in row groups of 8,192 rows, not DuckDB's 122,880: DuckDB hands its threads
# whole row groups, so every statement over the blog sample's 13,360 texts ran on one core while
# the other idled (docs/benchmark-history.md: 12.1 -> 11.1 s). The corpus shape's tables have
# dozens of row groups either way.
ROW_GROUP_ROWS = 8192


def _attached(db: str) -> duckdb.DuckDBPyConnection:
    """The database for writing, as duckdb.connect(db) opens it (same catalogue name, temporary
    files beside it) but with ROW_GROUP_ROWS, an option of ATTACH only. A file that DuckDB would
    name "memory", the name of the connection's own database, is opened as it is."""
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH ? (ROW_GROUP_SIZE {ROW_GROUP_ROWS})", [db])
    except duckdb.BinderException:
        con.close()
        return duckdb.connect(db)
    name = con.execute("SELECT database_name FROM duckdb_databases() WHERE path IS NOT NULL").fetchall()[0][0]
    con.execute(f"USE {ident(name).sql('duckdb')}")
    con.execute("DETACH memory")
    con.execute("SET temp_directory = ?", [f"{os.path.abspath(db)}.tmp"])
    return con


def connect(db: str, read_only: bool = False, confined: bool = False,
            memory_limit: str | Callable[[duckdb.DuckDBPyConnection], str | None] | None = None
            ) -> duckdb.DuckDBPyConnection:
    """The database; `confined`: able to read its own tables only (sqlrun.confine), after
    `memory_limit` is set, since the configuration is then locked. A callable `memory_limit`
    gives it from the database, read already confined (None: DuckDB's default)."""
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
        con = duckdb.connect(db, read_only=True) if read_only else _attached(db)
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
