"""The engines a run's SQL runs on (docs/architecture.md, "Engines"): a DuckDB file
(`engines/duckdb.py`: opened for one command, confined to its own tables) or a release folder on
Apache Spark (`engines/spark/`, with the face of the DuckDB connection). The stages take either
and do not ask which."""
from __future__ import annotations

from ..errors import InputError
from .duckdb import connect, writable


def open_engine(db: str, engine: str, spark_master: str, inputs: tuple[str, ...], read_only: bool = False,
                confined: bool = True, memory_limit=None, relations: tuple[str, ...] = ()):
    """The connection a command runs against: a DuckDB file (confined, as duckdb.connect), or a
    Spark session on a release folder (which reads files only as --input, spark.session).
    `memory_limit`: DuckDB's, or a function of the database that gives it; `relations`: the run's
    source (engines.duckdb.connect)."""
    if engine == "duckdb":
        if inputs:
            raise InputError("--input is read with --engine spark only; load a file into DuckDB with `rxanon-sql load`")
        return connect(db, read_only, confined, memory_limit, relations)
    try:
        # (for start-up time: Spark's modules load only for --engine spark)
        from .spark import open_release
        import pyspark  # noqa: F401
    except ImportError:
        raise InputError("--engine spark needs pyspark: pip install 'rxanon-sql[spark]' (and Java 17)") from None
    pairs = {}
    for item in inputs:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise InputError(f"--input {item!r}: give NAME=PATH")
        pairs[name] = path
    if not read_only:
        writable(db, "release folder")
    return open_release(db, spark_master, pairs, read_only=read_only)
