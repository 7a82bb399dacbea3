"""The Spark engine: the pipeline's DuckDB-dialect SQL, run on a SparkSession.

`SparkConnection` has the face of the DuckDB connection that every stage already runs against
(`execute` with parameters, results as rows, Arrow or numpy, `register` of Arrow data, Arrow UDFs),
so the stages, their SQL files and their tests are one copy for both engines. Each statement is
parsed by sqlglot in DuckDB's dialect, rewritten where Spark has no such statement, and written in
Spark's dialect.

Every table of a run lives as a temporary view over a checkpointed DataFrame: Spark has no
temporary tables, and DELETE, UPDATE and INSERT need a table format (Delta, Iceberg) whose JARs a
machine that reaches only package registries cannot fetch. A DELETE becomes the rows it keeps, an
UPDATE a projection, an INSERT a union, each checkpointed so that lineage stays one step long.
Schema `rx` is a name prefix (`rx.persons` is the view `rx__persons`). The release is written to
Parquet and published in one rename (`rxanon_sql/spark_store.py`).
"""
from __future__ import annotations

import datetime as dt
import decimal
import os
import sys

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp

READ = "duckdb"
WRITE = "spark"


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
    lines = [l for l in str(e).splitlines() if l.strip()]
    for line in lines:
        if "Exception" in line.split(":")[0] or line.startswith("["):
            return line.lstrip(": ")
    return lines[0] if lines else type(e).__name__


class SparkEngineError(duckdb.Error):
    """A statement Spark refused, with the statement: a duckdb.Error, so that the stages' handling
    of a failed statement is the same on both engines."""


class SparkCatalogError(SparkEngineError, duckdb.CatalogException):
    """No such table or view."""


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
        # DuckDB's ANSI behaviour where the SQL relies on it: a bad cast fails, integer overflow fails
        "spark.sql.ansi.enabled": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.caseSensitive": "true",
        **(conf or {}),
    }
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    return spark


# ---------------------------------------------------------------------------------------------
# names

def view_name(schema: str | None, name: str) -> str:
    """The temporary view that stands for <schema>.<name>: `main` and `temp` are Spark's own
    namespace (the user's relations and the run's temporary tables), any other schema a prefix."""
    if not schema or schema in ("main", "temp"):
        return name
    return f"{schema}__{name}"


def _table_view(t: exp.Table) -> str:
    catalog, db = t.catalog or None, t.db or None
    if catalog == "temp":
        return t.name
    return view_name(db, t.name)


def _rename_tables(tree: exp.Expression, targets: set[int] = frozenset()) -> exp.Expression:
    """Every table reference of the statement as its view's name. A renamed table read without an
    alias keeps its old name as alias, for the columns qualified by it."""
    for t in list(tree.find_all(exp.Table)):
        if not isinstance(t.this, exp.Identifier):
            continue
        new = _table_view(t)
        if new == t.name and not t.db and not t.catalog:
            continue
        old = t.name
        t.set("catalog", None)
        t.set("db", None)
        t.set("this", exp.to_identifier(new, quoted=True))
        if id(t) not in targets and not t.alias and new != old:
            t.set("alias", exp.TableAlias(this=exp.to_identifier(old, quoted=True)))
    return tree


# ---------------------------------------------------------------------------------------------
# parameters

def _literal(value) -> exp.Expression:
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, (int, np.integer)):
        return exp.Literal.number(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if v != v or v in (float("inf"), float("-inf")):
            return exp.cast(exp.Literal.string(str(v)), "DOUBLE")
        return exp.cast(exp.Literal.number(repr(v)), "DOUBLE")
    if isinstance(value, decimal.Decimal):
        return exp.Literal.number(str(value))
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, dt.datetime):
        return exp.cast(exp.Literal.string(value.isoformat(sep=" ")), "TIMESTAMP")
    if isinstance(value, dt.date):
        return exp.cast(exp.Literal.string(value.isoformat()), "DATE")
    if isinstance(value, (list, tuple)):
        return exp.Array(expressions=[_literal(v) for v in value])
    raise TypeError(f"no Spark literal for a parameter of type {type(value).__name__}")


def bind(tree: exp.Expression, params) -> exp.Expression:
    """The statement with its parameters as literals (`?` in order, `$name` by name)."""
    if params is None:
        return tree
    holders = [p for p in tree.walk(bfs=False) if isinstance(p, exp.Placeholder)]
    if isinstance(params, dict):
        for p in holders:
            p.replace(_literal(params[p.name]))
    else:
        params = list(params)
        if len(holders) != len(params):
            raise SparkEngineError(f"{len(holders)} parameters in the statement, {len(params)} given")
        for p, v in zip(holders, params):
            p.replace(_literal(v))
    return tree


# ---------------------------------------------------------------------------------------------
# types

def spark_type(duckdb_type: str) -> str:
    """A DuckDB type name as Spark's DDL type."""
    return _datatype(_rewrite(exp.DataType.build(str(duckdb_type), dialect=READ))).sql(WRITE)


_DUCK_TYPES = {"string": "VARCHAR", "int": "INTEGER", "integer": "INTEGER", "bigint": "BIGINT",
               "smallint": "SMALLINT", "tinyint": "TINYINT", "double": "DOUBLE", "float": "FLOAT",
               "boolean": "BOOLEAN", "date": "DATE", "timestamp": "TIMESTAMP", "timestamp_ntz": "TIMESTAMP",
               "binary": "BLOB", "void": "INTEGER"}


def duckdb_type(spark_type_name: str) -> str:
    """A Spark type's simple string as DuckDB names it (as DESCRIBE shows it)."""
    name = spark_type_name.strip()
    if name in _DUCK_TYPES:
        return _DUCK_TYPES[name]
    if name.startswith("decimal"):
        return name.upper()
    return exp.DataType.build(name, dialect=WRITE).sql(READ)


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
        if self._df is None:
            names = self._columns or []
            return pa.table({n: [r[i] for r in self._rows or []] for i, n in enumerate(names)})
        return narrow(self._df.toArrow())

    fetch_arrow_table = to_arrow_table = arrow

    def fetchnumpy(self) -> dict:
        table = self.arrow()
        return {n: table.column(n).to_numpy() for n in table.column_names}

    def df(self):
        return self.arrow().to_pandas()

    @property
    def description(self):
        names = self._df.columns if self._df is not None else self._columns or []
        return [(n,) for n in names]


# ---------------------------------------------------------------------------------------------
# the connection

class SparkConnection:
    """The DuckDB connection's face on a SparkSession (see the module's docstring)."""

    def __init__(self, spark, scratch: str):
        self.spark = spark
        # where every table of the run is written (the staging folder of spark_store.py)
        self.scratch = scratch
        self._version = 0
        self._udfs: dict[str, object] = {}
        # view -> (kind, temporary) as DuckDB's catalogue would list the table it stands for
        self._kinds: dict[str, tuple[str, bool]] = {}
        self.statements = 0
        self.log: list[str] | None = None

    # -- catalogue --------------------------------------------------------------------------

    def views(self) -> set[str]:
        return {r.viewName if hasattr(r, "viewName") else r[1]
                for r in self.spark.sql("SHOW VIEWS").collect()}

    def has(self, view: str) -> bool:
        return self.spark.catalog.tableExists(view)

    def columns(self, view: str) -> dict[str, str]:
        return {f.name: duckdb_type(f.dataType.simpleString()) for f in self.spark.table(f"`{view}`").schema}

    def objects(self, schema: str) -> set[str]:
        prefix = f"{schema}__"
        return {v[len(prefix):] for v in self.views() if v.startswith(prefix)}

    def _put(self, view: str, df, materialize: bool = True, kind: str | None = None,
             temporary: bool | None = None) -> None:
        old = self._kinds.get(view, ("TABLE", False))
        self._kinds[view] = (kind or old[0], old[1] if temporary is None else temporary)
        if materialize:
            df = self._checkpointed(df, view)
        df.createOrReplaceTempView(view)

    def _checkpointed(self, df, view: str):
        """The rows of `df` written out and read back: lineage one step long, and a plan that
        names its columns afresh (a union over two checkpoints of related plans lost a column in
        Spark 4.3, "key not found: attribute#…")."""
        self._version += 1
        path = os.path.join(self.scratch, f"{self._version:06d}")
        try:
            df.write.parquet(path)
            return self.spark.read.parquet(path)
        except Exception as e:
            raise SparkEngineError(f"{_first_line(e)}\n  writing: {view}") from None

    def drop(self, view: str) -> None:
        self._kinds.pop(view, None)
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
        self.spark.createDataFrame(rows, cols).createOrReplaceTempView("__catalog")
        self._udf_rows()

    def _udf_rows(self) -> None:
        self.spark.createDataFrame([(n,) for n in self._udfs] or [("",)], "function_name STRING") \
            .createOrReplaceTempView("__functions")

    # -- DuckDB's connection API ------------------------------------------------------------

    def execute(self, sql: str, params=None) -> SparkResult:
        result = SparkResult()
        for tree in sqlglot.parse(sql, read=READ):
            if tree is not None:
                result = self._statement(bind(tree, params), sql)
        return result

    def sql(self, sql: str) -> SparkResult:
        return self.execute(sql)

    def executemany(self, sql: str, rows) -> None:
        for row in rows:
            self.execute(sql, row)

    def cursor(self) -> "SparkConnection":
        return self

    def close(self) -> None:
        pass

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
            raise SparkEngineError(f"no function {name!r}")

    # -- statements -------------------------------------------------------------------------

    def _sql(self, tree: exp.Expression) -> str:
        return tree.sql(dialect=WRITE)

    def _with_rowids(self, tree: exp.Expression) -> None:
        """DuckDB's `rowid`, a row's number in its table, as a column of the table's view: given
        where a statement first reads it, kept by DELETE, new for each INSERTed row."""
        aliases = {t.alias_or_name: _table_view(t) for t in tree.find_all(exp.Table)
                   if isinstance(t.this, exp.Identifier)}
        for c in tree.find_all(exp.Column):
            view = aliases.get(c.table) if c.name == "rowid" else None
            if view and "rowid" not in self.spark.table(f"`{view}`").columns:
                from pyspark.sql import functions as F
                self._put(view, self.spark.table(f"`{view}`").withColumn("rowid", F.monotonically_increasing_id()))

    def _query(self, tree: exp.Expression):
        self._with_rowids(tree)
        if _reads_catalog(tree):
            self._catalog_views()
            tree = _catalog_rewrite(tree)
        return self._spark_sql(self._sql(_rewrite(_rename_tables(tree))))

    def _statement(self, tree: exp.Expression, original: str) -> SparkResult:
        if isinstance(tree, (exp.Transaction, exp.Commit, exp.Rollback, exp.Set, exp.Analyze, exp.Pragma)):
            return SparkResult()
        if isinstance(tree, exp.Command) and tree.name.upper() in ("CHECKPOINT", "ANALYZE", "VACUUM"):
            return SparkResult()
        if isinstance(tree, exp.Describe):
            target = tree.this
            if isinstance(target, exp.Table):
                if not self.has(_table_view(target)):
                    raise SparkCatalogError(f"Table {target.sql(READ)} does not exist")
                cols = self.columns(_table_view(target))
            else:
                try:
                    df = self._query(target)
                except SparkEngineError as e:
                    if "TABLE_OR_VIEW_NOT_FOUND" in str(e):
                        raise SparkCatalogError(str(e)) from None
                    raise
                cols = {f.name: duckdb_type(f.dataType.simpleString()) for f in df.schema}
            return SparkResult(rows=[(c, t, "YES", None, None, None) for c, t in cols.items()],
                               columns=["column_name", "column_type", "null", "key", "default", "extra"])
        if isinstance(tree, exp.Create):
            return self._create(tree)
        if isinstance(tree, exp.Drop):
            if tree.args.get("kind") in ("TABLE", "VIEW"):
                for t in tree.args.get("tables") or [tree.this]:
                    self.drop(_table_view(t))
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
        view = _table_view(target)
        if tree.args.get("exists") and self.has(view):
            return SparkResult()
        temporary = target.catalog == "temp" or any(True for _ in tree.find_all(exp.TemporaryProperty))
        query = tree.expression
        if kind == "VIEW":
            self._kinds[view] = ("VIEW", temporary)
            text = self._sql(_rewrite(_rename_tables(query)))
            self._spark_sql(f"CREATE OR REPLACE TEMPORARY VIEW `{view}` AS {text}")
            return SparkResult()
        if query is None:       # CREATE TABLE t (columns)
            schema = ", ".join(f"`{c.name}` {spark_type(c.args['kind'].sql(READ))}"
                               for c in tree.this.expressions if isinstance(c, exp.ColumnDef))
            df = self.spark.createDataFrame([], schema)
            self._put(view, df, materialize=False, kind="TABLE", temporary=temporary)
            return SparkResult()
        self._put(view, self._query(query), kind="TABLE", temporary=temporary)
        return SparkResult()

    def _insert(self, tree: exp.Insert) -> SparkResult:
        # the table's rows, then the new ones by position under the names given, cast to the
        # table's types (as DuckDB casts what it inserts)
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        view = _table_view(target)
        current = self.spark.table(f"`{view}`")
        names = [c.name for c in tree.this.expressions] if isinstance(tree.this, exp.Schema) else \
            [c for c in current.columns if c != "rowid"]
        query = tree.expression
        if isinstance(query, exp.Values):
            query = exp.select("*").from_(query.copy())
        from pyspark.sql import functions as F
        # (the query is materialized before anything is laid over it: a projection over a query
        # with a Python UDF lost track of a column in Spark's plan, "key not found: attribute#…")
        new = self._checkpointed(self._query_spark(query), view)
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
        view = _table_view(tree.this)
        where = tree.args.get("where")
        if where is None:
            keep = exp.false()
        else:
            keep = exp.Not(this=exp.func("coalesce", exp.Paren(this=where.this), exp.false()))
        query = exp.select("*").from_(exp.to_table(f"`{view}`", dialect=WRITE).as_(tree.this.alias_or_name)).where(keep)
        self._put(view, self._query_spark(query))
        return SparkResult()

    def _update(self, tree: exp.Update) -> SparkResult:
        view = _table_view(tree.this)
        current = self.spark.table(f"`{view}`")
        sets = {e.this.name: e.expression for e in tree.expressions}
        where = tree.args.get("where")
        if tree.args.get("from"):
            raise SparkEngineError("UPDATE … FROM is not supported on Spark")
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
        df = self._query_spark(query)
        df = df.select(*[df[c].cast(current.schema[c].dataType).alias(c) for c in current.columns])
        self._put(view, df)
        return SparkResult()

    def _alter(self, tree: exp.Alter) -> SparkResult:
        view = _table_view(tree.this)
        current = self.spark.table(f"`{view}`")
        from pyspark.sql import functions as F
        for action in tree.args.get("actions") or []:
            if isinstance(action, exp.ColumnDef):
                if action.name in current.columns:
                    continue
                current = current.withColumn(action.name, F.lit(None).cast(spark_type(action.args["kind"].sql(READ))))
            else:
                raise SparkEngineError(f"ALTER TABLE {action.sql(READ)} is not supported on Spark")
        self._put(view, current)
        return SparkResult()

    def _query_spark(self, tree: exp.Expression):
        """A query whose table names are views already (built here, not read from a file)."""
        return self._spark_sql(self._sql(_rewrite(_rename_tables(tree))))

    def _spark_sql(self, text: str):
        self.statements += 1
        if self.log is not None:
            self.log.append(text)
        try:
            return self.spark.sql(text)
        except Exception as e:
            raise SparkEngineError(f"{_first_line(e)}\n  in: {text[:2000]}") from None


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


# ---------------------------------------------------------------------------------------------
# rewrites: what sqlglot's transpilation leaves for Spark to refuse or read otherwise

def _rewrite(tree: exp.Expression) -> exp.Expression:
    """The rewrites, each of one construct; each says what DuckDB means that Spark reads otherwise."""
    for select in list(tree.find_all(exp.Select)):
        _zip_unnests(select)
        _lateral_unnests(select)
    for cte in tree.find_all(exp.CTE):
        cte.set("materialized", None)       # (a hint to DuckDB's planner; Spark has no such word)
    for node in list(tree.walk()):
        if isinstance(node, exp.Anonymous):
            fix = _FUNCTIONS.get(node.name.lower())
            if fix is not None:
                node.replace(fix(*node.expressions))
        elif type(node) in _NODES:
            node.replace(_NODES[type(node)](node))
    return tree


def _zip_unnests(select: exp.Select) -> None:
    """DuckDB unnests several lists in one select list side by side (the shorter padded with
    NULL); Spark allows one generator a select list, so they become one: inline(arrays_zip(…))."""
    unnests = [i for i, p in enumerate(select.expressions)
               if isinstance(p, exp.Alias) and isinstance(p.this, exp.Explode)]
    if len(unnests) < 2:
        return
    projections = select.expressions
    zipped = exp.Aliases(
        this=exp.Anonymous(this="inline", expressions=[exp.Anonymous(
            this="arrays_zip", expressions=[projections[i].this.this for i in unnests])]),
        expressions=[projections[i].args["alias"] for i in unnests])
    kept = [p for i, p in enumerate(projections) if i not in unnests[1:]]
    kept[unnests[0]] = zipped
    select.set("expressions", kept)


def _lateral_unnests(select: exp.Select) -> None:
    """`JOIN unnest(x) AS u(m)` as `JOIN LATERAL explode(x) AS u(m)`: sqlglot writes a LATERAL VIEW,
    which Spark takes only after every join, so a later join's condition could not name `m`.
    WITH ORDINALITY numbers from 1, posexplode from 0: its position is read as `pos + 1`."""
    for join in select.args.get("joins") or []:
        unnest = join.this
        if not isinstance(unnest, exp.Unnest) or len(unnest.expressions) != 1:
            continue
        alias = unnest.args.get("alias")
        columns = list(alias.columns) if alias is not None else []
        offset = unnest.args.get("offset")
        if not offset:
            generator = exp.Explode(this=unnest.expressions[0])
        else:
            generator = exp.Anonymous(this="posexplode", expressions=[unnest.expressions[0]])
            # (the ordinal is the last of the alias's columns, or named by the offset)
            name = offset.name if isinstance(offset, exp.Expression) else columns.pop().name
            position = f"{name}__from0"
            columns = [exp.to_identifier(position), *columns]
            _read_from_one(select, alias.name if alias is not None else None, name, position)
        join.set("this", exp.Lateral(this=generator, alias=exp.TableAlias(
            this=alias.this if alias is not None else exp.to_identifier("u"), columns=columns)))


def _read_from_one(select: exp.Select, table: str | None, name: str, position: str) -> None:
    for c in list(select.find_all(exp.Column)):
        if c.name == name and c.table in ("", table):
            one_based = exp.Paren(this=exp.Add(this=exp.column(position, table=c.table or None),
                                               expression=exp.Literal.number(1)))
            c.replace(exp.alias_(one_based, name) if c.parent is select else one_based)


def _try_strptime(text, fmt):
    # DuckDB's strftime codes as Java's pattern letters; NULL where the text does not parse
    from sqlglot.dialects.spark import Spark
    from sqlglot.time import format_time
    java = format_time(fmt.name, Spark.INVERSE_TIME_MAPPING, Spark.INVERSE_TIME_TRIE)
    return exp.Anonymous(this="try_to_timestamp", expressions=[text, exp.Literal.string(java)])


def _isinf(x):
    return exp.EQ(this=exp.Abs(this=x), expression=exp.cast(exp.Literal.string("Infinity"), "DOUBLE"))


def _window(window: exp.Window) -> exp.Expression:
    # DuckDB numbers rows with BIGINTs, Spark with INTs
    if isinstance(window.this, (exp.RowNumber, exp.Rank, exp.DenseRank)):
        return exp.cast(window, "BIGINT")
    spec = window.args.get("spec")
    start = spec.args.get("start") if spec is not None else None
    if isinstance(start, exp.Expression) and not isinstance(start, exp.Literal):
        return _computed_frame(window, start)
    return window


def _computed_frame(window: exp.Window, start: exp.Expression) -> exp.Expression:
    """string_agg over `ROWS BETWEEN <expression> PRECEDING AND CURRENT ROW`: Spark takes only a
    literal bound, so the frame is the tail of the running list: its last <expression> + 1 items."""
    spec = window.args["spec"]
    if not isinstance(window.this, exp.GroupConcat) or spec.args.get("kind") != "ROWS" \
            or spec.args.get("start_side") != "PRECEDING" or spec.args.get("end") != "CURRENT ROW":
        raise SparkEngineError(f"no Spark form for the window frame of {window.sql(READ)[:200]}")
    value = window.this.this.this if isinstance(window.this.this, exp.Order) else window.this.this
    running = exp.Window(this=exp.Anonymous(this="collect_list", expressions=[value]),
                         partition_by=window.args.get("partition_by"), order=window.args.get("order"),
                         spec=exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW"))
    count = exp.Paren(this=exp.Add(this=exp.Paren(this=start), expression=exp.Literal.number(1)))
    first = exp.func("greatest", exp.Add(this=exp.Sub(this=exp.func("size", running.copy()), expression=count.copy()),
                                         expression=exp.Literal.number(1)), exp.Literal.number(1))
    tail = exp.Anonymous(this="slice", expressions=[running, first, count])
    return exp.Anonymous(this="array_join", expressions=[tail, window.this.args.get("separator") or exp.Literal.string("")])


def _datatype(node: exp.DataType) -> exp.DataType:
    # HUGEINT: Spark's widest integer is DECIMAL(38, 0)
    if node.this in (exp.DataType.Type.INT128, exp.DataType.Type.UINT128):
        return exp.DataType.build("DECIMAL(38, 0)")
    if node.this == exp.DataType.Type.JSON:         # (rx.runs' JSON columns: the text)
        return exp.DataType.build("STRING")
    return node


def _list_slice(items, begin, end):
    # DuckDB: 1-based, both ends inclusive, empty when end < begin; Spark: a start and a length
    length = exp.func("greatest", exp.Sub(this=exp.Paren(this=exp.Sub(this=end, expression=begin.copy())),
                                          expression=exp.Literal.number(-1)), exp.Literal.number(0))
    return exp.Anonymous(this="slice", expressions=[items, begin, length])


def _regexp_extract(text, pattern, group=None, *rest):
    # with a list of names DuckDB returns a struct of the groups 1, 2, … under those names
    if isinstance(group, exp.Array):
        fields = []
        for i, name in enumerate(group.expressions, start=1):
            fields += [name.copy(), exp.Anonymous(this="regexp_extract", expressions=[
                text.copy(), pattern.copy(), exp.Literal.number(i)])]
        return exp.Anonymous(this="named_struct", expressions=fields)
    return exp.RegexpExtract(this=text, expression=pattern, group=group if group is not None else exp.Literal.number(0))


def _list_position(items, value):
    # DuckDB: NULL where the list lacks the value; Spark's array_position: 0
    return exp.func("nullif", exp.Anonymous(this="array_position", expressions=[items, value]), exp.Literal.number(0))


def _full_match(text, pattern):
    return exp.RegexpLike(this=text, expression=exp.func("concat", exp.Literal.string("^(?:"), pattern,
                                                           exp.Literal.string(")\\z")))


def _bracket_slice(node: exp.Bracket) -> exp.Expression:
    """`l[a:b]` as list_slice(l, a, b), an open end as the list's end."""
    if len(node.expressions) != 1 or not isinstance(node.expressions[0], exp.Slice):
        return node
    part = node.expressions[0]
    begin = part.this if part.this is not None else exp.Literal.number(1)
    end = part.expression if part.expression is not None else exp.func("size", node.this.copy())
    return _list_slice(node.this, begin, end)


_FUNCTIONS = {
    "try_strptime": _try_strptime,
    "list_slice": _list_slice,
    "array_slice": _list_slice,
    "list_position": _list_position,
    "list_indexof": _list_position,
    "regexp_full_match": _full_match,
    # a 64-bit row hash (for sqlrun.hash_sum's fingerprints, compared only within one engine)
    "hash": lambda *a: exp.Anonymous(this="xxhash64", expressions=list(a)),
}

_NODES = {
    exp.IsInf: lambda n: _isinf(n.this),
    exp.Window: _window,
    exp.DataType: _datatype,
    exp.RegexpExtract: lambda n: _regexp_extract(n.this, n.expression, n.args.get("group")),
    exp.RegexpFullMatch: lambda n: _full_match(n.this, n.expression),
    exp.Bracket: lambda n: _bracket_slice(n),
}


_CATALOG = {
    "duckdb_tables": "SELECT database_name, schema_name, table_name, temporary FROM __catalog WHERE kind = 'TABLE'",
    "duckdb_views": "SELECT database_name, schema_name, table_name AS view_name, temporary FROM __catalog "
                    "WHERE kind = 'VIEW'",
    "duckdb_functions": "SELECT function_name FROM __functions",
}
_INFORMATION_SCHEMA = {
    "tables": "SELECT database_name AS table_catalog, schema_name AS table_schema, table_name, "
              "CASE WHEN kind = 'VIEW' THEN 'VIEW' WHEN temporary THEN 'LOCAL TEMPORARY' ELSE 'BASE TABLE' END "
              "AS table_type FROM __catalog",
}


def _catalog_function(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Table) and isinstance(node.this, (exp.Anonymous, exp.Func)):
        name = node.this.name if isinstance(node.this, exp.Anonymous) else node.this.sql_name()
        return name.lower() if name.lower() in _CATALOG else None
    return None


def _reads_catalog(tree: exp.Expression) -> bool:
    return any(_catalog_function(t) or (isinstance(t, exp.Table) and t.db.lower() == "information_schema")
               for t in tree.find_all(exp.Table)) or any(True for _ in tree.find_all(exp.CurrentDatabase))


def _catalog_rewrite(tree: exp.Expression) -> exp.Expression:
    for t in list(tree.find_all(exp.Table)):
        name = _catalog_function(t)
        if name is None and t.db.lower() == "information_schema" and t.name.lower() in _INFORMATION_SCHEMA:
            name = t.name.lower()
            sql = _INFORMATION_SCHEMA[name]
        elif name is not None:
            sql = _CATALOG[name]
        else:
            continue
        alias = t.alias or name
        t.replace(exp.Subquery(this=sqlglot.parse_one(sql, read=WRITE), alias=exp.TableAlias(
            this=exp.to_identifier(alias))))
    for c in list(tree.find_all(exp.CurrentDatabase)):
        c.replace(exp.Literal.string("spark"))
    return tree
