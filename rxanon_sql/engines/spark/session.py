"""A Spark session for a run, and a release folder opened on one (`open_release`), with the
relations a run reads (`--input`) as views."""
from __future__ import annotations

import os
import sys

from ...errors import InputError
from .connection import SparkConnection
from .messages import first_line
from .store import MANIFEST

# Settings of every session on top of session()'s own (tests set those for tiny tables).
SESSION_CONF: dict[str, str] = {}


def session(master: str = "local[2]", app: str = "rxanon-sql", conf: dict | None = None):
    """A SparkSession for a run. Spark Connect (`sc://…`) takes `remote`, a cluster `master`."""
    from pyspark.sql import SparkSession
    # (the workers that run the UDFs must import this project: the driver's interpreter has it)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app)
    builder = builder.remote(master) if master.startswith("sc://") else builder.master(master)
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        # (not ANSI: an index beyond the end of a list is NULL, as DuckDB reads it, not an error)
        "spark.sql.ansi.enabled": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.caseSensitive": "true",
        # (a relation named csv.`/etc/passwd` in a configuration would read that file: Spark reads
        # files only as the command's --input, as DuckDB reads only its database, sqlrun.confine)
        "spark.sql.runSQLOnFiles": "false",
        # (in local mode the driver is the whole of Spark: its default 1 GB could not broadcast
        # the join of 250,000 texts to their edits)
        **({"spark.driver.memory": "4g"} if master.startswith("local") else {}),
        **SESSION_CONF,
        **(conf or {}),
    }
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if not master.startswith("sc://"):     # (a Spark Connect client has no SparkContext)
        spark.sparkContext.setLogLevel("OFF")
        # (a refused statement is the run's error, said once in one line: not also Spark's log
        # entry with the plan, which SQLQueryContextLogger writes whatever the level above)
        jvm = spark.sparkContext._jvm
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(
            "SQLQueryContextLogger", jvm.org.apache.logging.log4j.Level.OFF)
    return spark


def open_release(folder: str, master: str = "local[2]", inputs: dict[str, str] | None = None,
                 read_only: bool = False) -> "SparkConnection":
    """A Spark session on the release folder, with each input relation (name -> Parquet file or
    folder, or CSV file with a header) as a view of that name. Tables of Spark's catalogue are
    read under their own names."""
    for name in inputs or {}:
        # (the session's own views: rx.x is the view rx__x, and the catalogue views start _rx_)
        if "__" in name or name.startswith("_rx_"):
            raise InputError(f"--input {name}: a name with '__' or starting '_rx_' is one the Spark engine "
                             "gives its own views; load the relation under another name")
    spark = session(master)
    # (a session is one process's: its temporary views are those of the last release it opened)
    for t in spark.catalog.listTables():
        if t.isTemporary:
            spark.catalog.dropTempView(t.name)
    for name, path in (inputs or {}).items():
        if not os.path.exists(path) and "://" not in path:
            raise InputError(f"--input {name}={path}: no such file or folder")
        reader = spark.read.option("header", True).option("inferSchema", True).csv if path.lower().endswith(".csv") \
            else spark.read.parquet
        try:
            reader(path).createOrReplaceTempView(name)
        except Exception as e:
            raise InputError(f"--input {name}={path}: {first_line(e)}") from None
    if read_only and not os.path.exists(os.path.join(folder, MANIFEST)):
        raise InputError(f"release folder {folder!r} holds no release (no {MANIFEST}); run `rxanon-sql apply` first")
    return SparkConnection(spark, folder, read_only=read_only)
