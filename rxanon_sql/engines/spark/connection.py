"""The Spark engine: the pipeline's DuckDB-dialect SQL, run on a SparkSession.

`SparkConnection` has the face of the DuckDB connection that every stage already runs against
(`execute` with parameters, results as rows, Arrow or numpy, `register` of Arrow data, Arrow UDFs),
so the stages, their SQL files and their tests are one copy for both engines. Each statement is
parsed by sqlglot in DuckDB's dialect and written as Spark SQL (dialect.py).

Every table is a temporary view over Parquet that the run wrote: Spark has no temporary tables,
and DELETE, UPDATE and INSERT need a table format (Delta, Iceberg) whose JARs a machine that
reaches only package registries cannot fetch. A DELETE writes the rows it keeps, an UPDATE a
projection, an INSERT the union. Schema `rx` is a name prefix (`rx.persons` is the view
`rx__persons`). COMMIT publishes the release folder's manifest in one rename.
"""
from __future__ import annotations

import shutil

import pyarrow as pa
import sqlglot

from ...errors import EngineError
from .dialect import READ, bind, spark_type
from .dml import Statements
from .result import SparkResult
from .udf import ArrowCall, arrow_type


class SparkConnection(Statements):
    """The DuckDB connection's face on a SparkSession (see the module's docstring): the release
    store (store.py) and its statements (dml.py) under DuckDB's connection API."""

    # Spark calls the UDFs in its own Python workers (recognize.fill_cache starts no pool)
    udfs_in_workers = True

    def execute(self, sql: str, params=None) -> SparkResult:
        result = SparkResult()
        for tree in sqlglot.parse(sql, read=READ):
            if tree is not None:
                result = self._statement(bind(tree, params))
        return result

    def sql(self, sql: str) -> SparkResult:
        return self.execute(sql)

    def executemany(self, sql: str, rows) -> None:
        for row in rows:
            self.execute(sql, row)

    def cursor(self) -> "SparkConnection":
        return self

    def close(self) -> None:
        """The session's temporary tables go: a scratch folder, or, for a session that writes,
        every table folder that the manifest does not name."""
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)
        elif self._lock is not None:
            self._where.clear()
            self._collect_garbage()
            self._lock.close()          # (which lets the lock go)
            self._lock = None

    def register(self, name: str, data) -> None:
        if isinstance(data, dict):
            data = pa.table({k: pa.array(v) for k, v in data.items()})
        elif not isinstance(data, pa.Table):
            data = pa.Table.from_pandas(data, preserve_index=False)
        self._put(name, self.spark.createDataFrame(data), materialize=False)

    def unregister(self, name: str) -> None:
        self.drop(name)

    def create_function(self, name, function, parameters, returns, type="arrow", side_effects=False,
                        null_handling="default", **_):
        from pyspark.sql.functions import arrow_udf
        # (a UDF that counts its rows for the progress bar runs in Spark's workers, where there
        # is no bar: they run the function it wraps)
        function = getattr(function, "__wrapped__", function)
        udf = arrow_udf(ArrowCall(function, [arrow_type(str(p)) for p in parameters], str(null_handling) == "default"),
                        spark_type(str(returns)))
        self.spark.udf.register(name, udf)
        self._udfs[name] = udf

    def remove_function(self, name: str) -> None:
        if self._udfs.pop(name, None) is None:
            raise EngineError(f"no function {name!r}")
