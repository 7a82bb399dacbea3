"""The Spark engine: the pipeline's DuckDB-dialect SQL, run on a SparkSession.

`SparkConnection` has the face of the DuckDB connection that every stage already runs against
(`execute` with parameters, results as rows, Arrow or numpy, `register` of Arrow data, Arrow UDFs),
so the stages, their SQL files and their tests are one copy for both engines. Each statement is
parsed by sqlglot in DuckDB's dialect and written as Spark SQL (spark_dialect.py).

Every table is a temporary view over Parquet that the run wrote: Spark has no temporary tables,
and DELETE, UPDATE and INSERT need a table format (Delta, Iceberg) whose JARs a machine that
reaches only package registries cannot fetch. A DELETE writes the rows it keeps, an UPDATE a
projection, an INSERT the union. Schema `rx` is a name prefix (`rx.persons` is the view
`rx__persons`). COMMIT publishes the release folder's manifest in one rename.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import sys
import tempfile
import time

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp

from .errors import EngineCatalogError, EngineError, InputError
from .spark_dialect import (READ, WRITE, bind, catalog_rewrite, duckdb_type, reads_catalog,
                            spark_type, table_view, to_spark)

MANIFEST = "manifest.json"
LOCK = ".writer.lock"


def _first_line(e: Exception) -> str:
    """The line of a Spark error that says what failed (a Java error's own line, not py4j's)."""
    text = str(e)
    if "Python worker" in text:     # the UDF's own error, the last line of its traceback
        raised = [l for l in text.splitlines() if l and not l[0].isspace() and ("Error" in l or "Exception" in l)
                  and "Python worker" not in l]
        if raised:
            return "a UDF failed: " + raised[-1]
    java = getattr(e, "java_exception", None)
    if java is not None:
        while java.getCause() is not None:
            java = java.getCause()
        return str(java.toString()).splitlines()[0]
    lines = [l for l in text.splitlines() if l.strip()]
    for line in lines:
        if "Exception" in line.split(":")[0] or line.startswith("["):
            return line.lstrip(": ")
    return lines[0] if lines else type(e).__name__


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
            raise InputError(f"--input {name}={path}: {_first_line(e)}") from None
    if read_only and not os.path.exists(os.path.join(folder, MANIFEST)):
        raise InputError(f"release folder {folder!r} holds no release (no {MANIFEST}); run `rxanon-sql apply` first")
    return SparkConnection(spark, folder, read_only=read_only)


# ---------------------------------------------------------------------------------------------
# results

def _plain(value):
    """A Spark value as DuckDB's Python client gives it: structs as dicts, arrays as lists."""
    from pyspark.sql import Row
    if isinstance(value, Row):
        return {k: _plain(v) for k, v in value.asDict().items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _narrow(t: pa.DataType) -> pa.DataType:
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_large_list(t) or pa.types.is_list(t):
        return pa.list_(_narrow(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _narrow(f.type)) for f in t])
    return t


def narrow(table: pa.Table) -> pa.Table:
    """Large strings and lists as DuckDB's Arrow gives them."""
    schema = pa.schema([pa.field(f.name, _narrow(f.type)) for f in table.schema])
    return table if schema == table.schema else table.cast(schema)


class SparkResult:
    def __init__(self, df=None, rows: list[tuple] | None = None, columns: list[str] | None = None):
        self._df, self._rows, self._columns = df, rows, columns
        self._table: pa.Table | None = None

    def fetchall(self) -> list[tuple]:
        if self._rows is not None:
            return list(self._rows)
        if self._df is None:
            return []
        return [tuple(_plain(v) for v in r) for r in self._df.collect()]

    def fetchone(self):
        rows = self.fetchall()
        return rows[0] if rows else None

    def arrow(self) -> pa.Table:
        """The rows as Arrow, fetched once: export writes them and then counts them (shape), and
        each fetch would run the query on Spark again."""
        if self._table is None:
            if self._df is None:
                names = self._columns or []
                self._table = pa.table({n: [r[i] for r in self._rows or []] for i, n in enumerate(names)})
            else:
                self._table = narrow(self._df.toArrow())
        return self._table

    fetch_arrow_table = to_arrow_table = arrow

    def fetchnumpy(self) -> dict:
        table = self.arrow()
        return {n: table.column(n).to_numpy() for n in table.column_names}

    def df(self):
        return self.arrow().to_pandas()

    @property
    def shape(self) -> tuple[int, int]:
        table = self.arrow()
        return table.num_rows, table.num_columns

    def write_parquet(self, path: str) -> None:
        import pyarrow.parquet as pq
        pq.write_table(self.arrow(), path)

    def write_csv(self, path: str) -> None:
        import pyarrow.csv as pcsv
        pcsv.write_csv(self.arrow(), path)

    @property
    def description(self):
        names = self._df.columns if self._df is not None else self._columns or []
        return [(n,) for n in names]


# ---------------------------------------------------------------------------------------------
# the connection

class SparkConnection:
    """The DuckDB connection's face on a SparkSession (see the module's docstring)."""

    # Spark calls the UDFs in its own Python workers (recognize.fill_cache starts no pool)
    udfs_in_workers = True

    def __init__(self, spark, folder: str, read_only: bool = False):
        self.spark = spark
        # The release folder: manifest.json names the Parquet folder (under tables/) of each
        # committed table and the SQL of each committed view. Every table a statement writes is a
        # new folder; COMMIT replaces the manifest in one rename, so a reader, or a run that
        # stops half-way, sees the last committed release whole.
        self.folder = os.path.abspath(folder)
        self.read_only = read_only
        self._tables_dir = os.path.join(self.folder, "tables")
        self._stamp = f"{time.time_ns():x}"
        self._version = 0
        self._udfs: dict[str, object] = {}
        # view -> (kind, temporary) as DuckDB's catalogue would list the table it stands for
        self._kinds: dict[str, tuple[str, bool]] = {}
        self._where: dict[str, str] = {}        # table view -> its rows' folder
        self._views: dict[str, str] = {}        # view -> its Spark SQL, in the order of creation
        self.statements = 0
        self.log: list[str] | None = None
        # (a read-only session, verify's or export's, writes its temporary tables elsewhere)
        self._scratch = tempfile.mkdtemp(prefix="rxanon-spark-") if read_only else None
        self._lock = None
        if not read_only:
            os.makedirs(self._tables_dir, exist_ok=True)
            self._take_lock()
        self._load()
        if not read_only:
            self._collect_garbage()

    # -- the release: load, commit, roll back ------------------------------------------------

    def _take_lock(self) -> None:
        """One writer at a time: a second one would delete the first one's unpublished tables as
        garbage, and the last COMMIT would drop the other's. The lock is the operating system's
        on an open file, so a killed run leaves none behind. (Readers take none: they read what
        the manifest named when they opened.)"""
        self._lock = open(os.path.join(self.folder, LOCK), "a+")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            self._lock = None
            raise EngineError(f"release folder {self.folder!r} is being written by another run; "
                              "start this one when that one has ended") from None

    def _manifest_path(self) -> str:
        return os.path.join(self.folder, MANIFEST)

    def _load(self) -> None:
        """The committed tables and views as this session's views."""
        try:
            with open(self._manifest_path(), encoding="utf-8") as f:
                manifest = json.load(f)
        except FileNotFoundError:
            return
        for view, folder in manifest["tables"].items():
            self.spark.read.parquet(os.path.join(self._tables_dir, folder)).createOrReplaceTempView(view)
            self._where[view] = os.path.join(self._tables_dir, folder)
            self._kinds[view] = ("TABLE", False)
        pending = dict(manifest["views"])
        while pending:      # (a view is created after those it reads)
            done = []
            for view, sql in pending.items():
                try:
                    self.spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW `{view}` AS {sql}")
                except Exception:
                    continue
                self._views[view] = sql
                self._kinds[view] = ("VIEW", False)
                done.append(view)
            if not done:
                raise EngineError(f"{self._manifest_path()}: views {sorted(pending)} cannot be read")
            for view in done:
                del pending[view]

    def _committed(self, view: str) -> bool:
        """Whether a view is part of the release: a table or view of a schema other than main."""
        return "__" in view and not self._kinds.get(view, ("", False))[1]

    def commit(self) -> None:
        if self.read_only:
            raise EngineError(f"release folder {self.folder!r} was opened read-only")
        manifest = {"tables": {v: os.path.relpath(p, self._tables_dir) for v, p in self._where.items()
                               if self._committed(v)},
                    "views": {v: sql for v, sql in self._views.items() if self._committed(v)}}
        tmp = self._manifest_path() + f".{self._stamp}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(manifest, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._manifest_path())
        self._collect_garbage()

    def rollback(self) -> None:
        for view in [v for v in (*self._where, *self._views) if self._committed(v)]:
            self.drop(view)
        self._load()

    def _collect_garbage(self) -> None:
        """Delete the table folders that neither the manifest nor a view of this session reads
        (those of a run that was stopped, or replaced by a later statement)."""
        try:
            with open(self._manifest_path(), encoding="utf-8") as f:
                kept = set(json.load(f)["tables"].values())
        except FileNotFoundError:
            kept = set()
        kept |= {os.path.relpath(p, self._tables_dir) for p in self._where.values()}
        for name in os.listdir(self._tables_dir):
            if name not in kept:
                shutil.rmtree(os.path.join(self._tables_dir, name), ignore_errors=True)

    # -- catalogue --------------------------------------------------------------------------

    def views(self) -> set[str]:
        return {r.viewName if hasattr(r, "viewName") else r[1]
                for r in self.spark.sql("SHOW VIEWS").collect()}

    def has(self, view: str) -> bool:
        return self.spark.catalog.tableExists(view)

    def columns(self, view: str) -> dict[str, str]:
        return {f.name: duckdb_type(f.dataType.simpleString()) for f in self.spark.table(f"`{view}`").schema}

    def _put(self, view: str, df, materialize: bool = True, kind: str | None = None,
             temporary: bool | None = None) -> None:
        old = self._kinds.get(view, ("TABLE", False))
        self._kinds[view] = (kind or old[0], old[1] if temporary is None else temporary)
        self._views.pop(view, None)
        if materialize:
            df, self._where[view] = self._checkpointed(df, view)
        else:
            self._where.pop(view, None)
        df.createOrReplaceTempView(view)

    def _checkpointed(self, df, view: str):
        """The rows of `df` written to a new folder and read back: lineage one step long, and a
        plan that names its columns afresh (a union over two checkpoints of related plans lost
        a column in Spark 4.3, "key not found: attribute#…")."""
        self._version += 1
        path = os.path.join(self._scratch or self._tables_dir, f"{self._stamp}-{self._version:06d}")
        try:
            df.write.parquet(path)
            return self.spark.read.parquet(path), path
        except Exception as e:
            raise EngineError(f"{_first_line(e)}\n  writing: {view}") from None

    def drop(self, view: str) -> None:
        self._kinds.pop(view, None)
        self._where.pop(view, None)
        self._views.pop(view, None)
        self.spark.catalog.dropTempView(view)

    def _catalog_views(self) -> None:
        """DuckDB's catalogue functions as views over this connection's tables, for the few
        statements that look a table up (sqlrun's catalogue helpers, demo, init, load)."""
        rows = []
        for v in sorted(self.views()):
            kind, temporary = self._kinds.get(v, ("TABLE", False))
            schema, name = v.split("__", 1) if "__" in v else ("main", v)
            rows.append(("spark", schema, name, kind, temporary))
        cols = "database_name STRING, schema_name STRING, table_name STRING, kind STRING, temporary BOOLEAN"
        self.spark.createDataFrame(rows, cols).createOrReplaceTempView("_rx_catalog")
        self.spark.createDataFrame([(n,) for n in self._udfs] or [("",)], "function_name STRING") \
            .createOrReplaceTempView("_rx_functions")

    # -- DuckDB's connection API ------------------------------------------------------------

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
        udf = arrow_udf(_Call(function, [arrow_type(str(p)) for p in parameters], str(null_handling) == "default"),
                        spark_type(str(returns)))
        self.spark.udf.register(name, udf)
        self._udfs[name] = udf

    def remove_function(self, name: str) -> None:
        if self._udfs.pop(name, None) is None:
            raise EngineError(f"no function {name!r}")

    # -- statements -------------------------------------------------------------------------

    def _with_rowids(self, tree: exp.Expression) -> None:
        """DuckDB's `rowid`, a row's number in its table, as a column of the table's view: given
        where a statement first reads it, kept by DELETE, new for each INSERTed row."""
        aliases = {t.alias_or_name: table_view(t) for t in tree.find_all(exp.Table)
                   if isinstance(t.this, exp.Identifier)}
        for c in tree.find_all(exp.Column):
            view = aliases.get(c.table) if c.name == "rowid" else None
            current = self.spark.table(f"`{view}`") if view else None
            if current is not None and "rowid" not in current.columns:
                from pyspark.sql import functions as F
                self._put(view, current.withColumn("rowid", F.monotonically_increasing_id()))

    def _spread_udf_input(self, tree: exp.Expression) -> None:
        """A query that calls a Python UDF on one table reads the table in as many partitions as
        Spark has cores: a small table is one Parquet file, one partition, one task, and NER
        would run in one process whatever the cluster."""
        for select in tree.find_all(exp.Select):
            source = select.args.get("from_")
            if select.args.get("joins") or source is None or not isinstance(source.this, exp.Table) or not any(
                    f.name.lower() in self._udfs for p in select.expressions for f in p.find_all(exp.Anonymous)):
                continue
            table = source.this
            spread = exp.select("*").from_(table.copy())
            spread.set("hint", exp.Hint(expressions=[exp.Anonymous(this="REPARTITION", expressions=[
                exp.Literal.number(self._cores())])]))
            table.replace(exp.Subquery(this=spread, alias=exp.TableAlias(this=exp.to_identifier(table.alias_or_name))))

    def _cores(self) -> int:
        try:
            return self.spark.sparkContext.defaultParallelism
        except Exception:       # (Spark Connect: no SparkContext on the client)
            return int(self.spark.conf.get("spark.default.parallelism", "2"))

    def _query(self, tree: exp.Expression):
        self._with_rowids(tree)
        self._spread_udf_input(tree)
        if reads_catalog(tree):
            self._catalog_views()
            tree = catalog_rewrite(tree)
        return self._spark_sql(to_spark(tree))

    def _statement(self, tree: exp.Expression) -> SparkResult:
        if isinstance(tree, exp.Commit):
            self.commit()
            return SparkResult()
        if isinstance(tree, exp.Rollback):
            self.rollback()
            return SparkResult()
        # (ATTACH: verify's in-memory catalogue for its scratch tables is a name prefix here)
        if isinstance(tree, (exp.Transaction, exp.Set, exp.Analyze, exp.Pragma, exp.Attach, exp.Detach)):
            return SparkResult()
        if isinstance(tree, exp.Command) and tree.name.upper() in ("CHECKPOINT", "ANALYZE", "VACUUM"):
            return SparkResult()
        if isinstance(tree, exp.Describe):
            target = tree.this
            if isinstance(target, exp.Table):
                if not self.has(table_view(target)):
                    raise EngineCatalogError(f"Table {target.sql(READ)} does not exist")
                cols = self.columns(table_view(target))
            else:
                try:
                    df = self._query(target)
                except EngineError as e:
                    if "TABLE_OR_VIEW_NOT_FOUND" in str(e):
                        raise EngineCatalogError(str(e)) from None
                    raise
                cols = {f.name: duckdb_type(f.dataType.simpleString()) for f in df.schema}
            return SparkResult(rows=[(c, t, "YES", None, None, None) for c, t in cols.items()],
                               columns=["column_name", "column_type", "null", "key", "default", "extra"])
        if isinstance(tree, exp.Create):
            return self._create(tree)
        if isinstance(tree, exp.Drop):
            if tree.args.get("kind") in ("TABLE", "VIEW"):
                for t in tree.args.get("tables") or [tree.this]:
                    self.drop(table_view(t))
            return SparkResult()
        if isinstance(tree, exp.Insert):
            return self._insert(tree)
        if isinstance(tree, exp.Delete):
            return self._delete(tree)
        if isinstance(tree, exp.Update):
            return self._update(tree)
        if isinstance(tree, exp.Alter):
            return self._alter(tree)
        return SparkResult(self._query(tree))

    def _create(self, tree: exp.Create) -> SparkResult:
        kind = tree.args.get("kind")
        if kind in ("SCHEMA", "DATABASE", "INDEX", "SEQUENCE", "MACRO"):
            return SparkResult()
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        view = table_view(target)
        if tree.args.get("exists") and self.has(view):
            return SparkResult()
        temporary = target.catalog == "temp" or any(True for _ in tree.find_all(exp.TemporaryProperty))
        query = tree.expression
        if kind == "VIEW":
            self._kinds[view] = ("VIEW", temporary)
            text = to_spark(query)
            self._spark_sql(f"CREATE OR REPLACE TEMPORARY VIEW `{view}` AS {text}")
            self._where.pop(view, None)
            self._views.pop(view, None)
            self._views[view] = text
            return SparkResult()
        if query is None:       # CREATE TABLE t (columns)
            schema = ", ".join(f"`{c.name}` {spark_type(c.args['kind'].sql(READ))}"
                               for c in tree.this.expressions if isinstance(c, exp.ColumnDef))
            df = self.spark.createDataFrame([], schema)
            self._put(view, df, kind="TABLE", temporary=temporary)
            return SparkResult()
        self._put(view, self._query(query), kind="TABLE", temporary=temporary)
        return SparkResult()

    def _insert(self, tree: exp.Insert) -> SparkResult:
        # the table's rows, then the new ones by position under the names given, cast to the
        # table's types (as DuckDB casts what it inserts)
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        view = table_view(target)
        current = self.spark.table(f"`{view}`")
        names = [c.name for c in tree.this.expressions] if isinstance(tree.this, exp.Schema) else \
            [c for c in current.columns if c != "rowid"]
        query = tree.expression
        if isinstance(query, exp.Values):
            query = exp.select("*").from_(query.copy())
        from pyspark.sql import functions as F
        # (the query is materialized before anything is laid over it: a projection over a query
        # with a Python UDF lost track of a column in Spark's plan, "key not found: attribute#…")
        new, _ = self._checkpointed(self._query(query), view)
        new = new.toDF(*names[:len(new.columns)])
        rows = new.select(*[(F.col(f"`{c}`") if c in names else F.lit(None)).cast(current.schema[c].dataType).alias(c)
                            for c in current.columns])
        if "rowid" in current.columns and "rowid" not in names:
            # (after every rowid the table has, as DuckDB numbers an inserted row)
            top = current.agg(F.max("rowid")).collect()[0][0]
            rows = rows.withColumn("rowid", F.monotonically_increasing_id() + (0 if top is None else top + 1))
        self._put(view, current.union(rows))
        return SparkResult()

    def _delete(self, tree: exp.Delete) -> SparkResult:
        view = table_view(tree.this)
        where = tree.args.get("where")
        if where is None:
            keep = exp.false()
        else:
            keep = exp.Not(this=exp.func("coalesce", exp.Paren(this=where.this), exp.false()))
        query = exp.select("*").from_(exp.to_table(f"`{view}`", dialect=WRITE).as_(tree.this.alias_or_name)).where(keep)
        self._put(view, self._query(query))
        return SparkResult()

    def _update(self, tree: exp.Update) -> SparkResult:
        view = table_view(tree.this)
        current = self.spark.table(f"`{view}`")
        sets = {e.this.name: e.expression for e in tree.expressions}
        where = tree.args.get("where")
        if tree.args.get("from_") or tree.args.get("from"):
            raise EngineError(f"UPDATE … FROM has no Spark form here: {tree.sql(READ)[:200]}")
        cond = where.this if where is not None else exp.true()
        projection = []
        for c in current.columns:
            if c in sets:
                projection.append(exp.alias_(exp.If(this=exp.func("coalesce", exp.Paren(this=cond.copy()), exp.false()),
                                                    true=sets[c].copy(), false=exp.column(c, quoted=True)),
                                             c, quoted=True))
            else:
                projection.append(exp.column(c, quoted=True))
        query = exp.select(*projection).from_(exp.to_table(f"`{view}`", dialect=WRITE).as_(tree.this.alias_or_name))
        df = self._query(query)
        df = df.select(*[df[c].cast(current.schema[c].dataType).alias(c) for c in current.columns])
        self._put(view, df)
        return SparkResult()

    def _alter(self, tree: exp.Alter) -> SparkResult:
        view = table_view(tree.this)
        current = self.spark.table(f"`{view}`")
        from pyspark.sql import functions as F
        for action in tree.args.get("actions") or []:
            if isinstance(action, exp.ColumnDef):
                if action.name in current.columns:
                    continue
                current = current.withColumn(action.name, F.lit(None).cast(spark_type(action.args["kind"].sql(READ))))
            else:
                raise EngineError(f"ALTER TABLE {action.sql(READ)} is not supported on Spark")
        self._put(view, current)
        return SparkResult()

    def _spark_sql(self, text: str):
        self.statements += 1
        if self.log is not None:
            self.log.append(text)
        try:
            return self.spark.sql(text)
        except Exception as e:
            if "TABLE_OR_VIEW_NOT_FOUND" in str(e):
                raise EngineCatalogError(f"{_first_line(e)}\n  in: {text[:2000]}") from None
            raise EngineError(f"{_first_line(e)}\n  in: {text[:2000]}") from None


def arrow_type(duckdb_type: str) -> pa.DataType:
    """The Arrow type in which DuckDB hands a UDF an argument of that type."""
    return duckdb.sql(f"SELECT CAST(NULL AS {duckdb_type}) AS x").to_arrow_table().schema[0].type


class _Call:
    """A DuckDB Arrow UDF as Spark calls it: each argument cast to the Arrow type DuckDB would
    give it (Spark's integers and strings are other widths), and, as DuckDB does, NULL for a row
    with a NULL argument without calling the function. A class, not a closure, so that the
    workers get it pickled."""

    def __init__(self, function, types: list[pa.DataType], skip_nulls: bool):
        self.function, self.types, self.skip_nulls = function, types, skip_nulls

    def __call__(self, *arrays):
        arrays = [a if a.type == t else a.cast(t) for a, t in zip(arrays, self.types)]
        mask = None
        if self.skip_nulls:
            for a in arrays:
                if a.null_count:
                    mask = a.is_valid() if mask is None else pc.and_(mask, a.is_valid())
        if mask is None:
            return self.function(*arrays)
        idx = pc.indices_nonzero(mask)
        out = self.function(*[a.take(idx) for a in arrays])
        # the computed rows back in their places, NULL between them
        positions = np.zeros(len(arrays[0]), dtype=np.int64)
        positions[idx.to_numpy()] = np.arange(len(idx))
        return pc.if_else(mask, out.take(pa.array(positions)), pa.nulls(len(arrays[0]), out.type))

