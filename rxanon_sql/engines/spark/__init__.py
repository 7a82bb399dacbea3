"""The Spark engine: the pipeline's DuckDB-dialect SQL, run on a SparkSession (docs/spark.md).

One module per concern: `session` (the SparkSession and `open_release`), `connection` (the
DuckDB connection's face), `store` (the release folder: lock, manifest, commit, cleanup), `dml`
(statements, and DML emulated over Parquet), `result` (results, Arrow narrowed as DuckDB's),
`udf` (DuckDB's Arrow UDFs on Spark's workers), `dialect` (each statement as Spark SQL) and
`messages` (a Spark error in one line). Nothing here is imported before a command asks for
`--engine spark`.
"""
from __future__ import annotations

from .connection import SparkConnection
from .session import SESSION_CONF, open_release, session
from .store import MANIFEST

__all__ = ["MANIFEST", "SESSION_CONF", "SparkConnection", "open_release", "session"]
