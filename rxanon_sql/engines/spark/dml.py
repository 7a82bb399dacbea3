"""The statements of the DuckDB dialect on a Spark session: each statement parsed by sqlglot and
written as Spark SQL (dialect.py), and DML emulated over the release store's views. A DELETE
writes the rows it keeps, an UPDATE a projection, an INSERT the union; DuckDB's `rowid` and
catalogue functions are views made when a statement reads them."""
from __future__ import annotations

from sqlglot import exp

from ...errors import EngineCatalogError, EngineError
from .dialect import READ, WRITE, catalog_rewrite, duckdb_type, reads_catalog, spark_type, table_view, to_spark
from .messages import first_line
from .result import SparkResult
from .store import ReleaseStore


class Statements(ReleaseStore):
    """Runs one parsed statement against the release store."""

    def __init__(self, spark, folder: str, read_only: bool = False):
        self._udfs: dict[str, object] = {}
        self.statements = 0
        self.log: list[str] | None = None
        super().__init__(spark, folder, read_only)

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
                raise EngineCatalogError(f"{first_line(e)}\n  in: {text[:2000]}") from None
            raise EngineError(f"{first_line(e)}\n  in: {text[:2000]}") from None
