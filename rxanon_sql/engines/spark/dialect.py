"""The Spark engine's SQL: a statement of the pipeline, parsed by sqlglot in DuckDB's dialect,
as Spark SQL.

sqlglot transpiles most of it. What it leaves for Spark to refuse, or to read otherwise than
DuckDB, is rewritten here on the syntax tree, one function per construct, each saying what
DuckDB means. Table names become the views of the Spark session (`rx.persons` is the view
`rx__persons`), and parameters literals. Nothing here needs pyspark.
"""
from __future__ import annotations

import datetime as dt
import decimal
import re

import numpy as np
import sqlglot
from sqlglot import exp

from ...errors import EngineError

READ = "duckdb"
WRITE = "spark"


def view_name(schema: str | None, name: str) -> str:
    """The temporary view that stands for <schema>.<name>: `main` and `temp` are Spark's own
    namespace (the user's relations and the run's temporary tables), any other schema a prefix."""
    if not schema or schema in ("main", "temp"):
        return name
    return f"{schema}__{name}"


def table_view(t: exp.Table) -> str:
    catalog, db = t.catalog or None, t.db or None
    if catalog == "temp":
        return t.name
    return view_name(db, t.name)


def rename_tables(tree: exp.Expression) -> exp.Expression:
    """Every table reference of the statement as its view's name. A renamed table read without an
    alias keeps its old name as alias, for the columns qualified by it."""
    for t in list(tree.find_all(exp.Table)):
        if not isinstance(t.this, exp.Identifier):
            continue
        new = table_view(t)
        if new == t.name and not t.db and not t.catalog:
            continue
        old = t.name
        t.set("catalog", None)
        t.set("db", None)
        t.set("this", exp.to_identifier(new, quoted=True))
        if not t.alias and new != old:
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
            raise EngineError(f"{len(holders)} parameters in the statement, {len(params)} given")
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


def to_spark(tree: exp.Expression) -> str:
    """A parsed DuckDB statement (or query) as Spark SQL."""
    return _rewrite(rename_tables(tree)).sql(dialect=WRITE)


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
    """DuckDB's strftime codes as Java's pattern letters; NULL where the text does not parse.
    DuckDB's %d, %m, %H, %M and %S read one digit or two ("1,August,2001"); Java's doubled
    letters read two only, single ones either."""
    from sqlglot.dialects.spark import Spark
    from sqlglot.time import format_time
    java = format_time(fmt.name, Spark.INVERSE_TIME_MAPPING, Spark.INVERSE_TIME_TRIE)
    java = re.sub(r"(?<![dMHms])(dd|MM|HH|mm|ss)(?![dMHms])", lambda m: m.group(1)[0], java)
    return exp.Anonymous(this="try_to_timestamp", expressions=[text, exp.Literal.string(java)])


def _substring(node: exp.Substring) -> exp.Expression:
    """substring(s, start, n) with a computed start: DuckDB reads a start of 0 as the place before
    the first character, and gives n - 1 characters; Spark reads it as 1. (linking.sql looks at the
    character before a word with strpos(...) - 1, which is 0 at the term's start, where Spark
    would see the word's own first letter.)"""
    start, length = node.args.get("start"), node.args.get("length")
    if length is None or start is None or start.is_int:
        return node
    return exp.case().when(exp.EQ(this=start.copy(), expression=exp.Literal.number(0)),
                           exp.Substring(this=node.this.copy(), start=exp.Literal.number(1),
                                         length=exp.Sub(this=exp.Paren(this=length.copy()), expression=exp.Literal.number(1)))
                           ).else_(node.copy())


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
        raise EngineError(f"no Spark form for the window frame of {window.sql(READ)[:200]}")
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


def _bracket(node: exp.Bracket) -> exp.Expression:
    """`l[a:b]` as list_slice(l, a, b), an open end as the list's end; `l[i]` as get(l, i - 1):
    DuckDB counts from 1 and gives NULL beyond the end, as get does, counting from 0. (sqlglot
    shifts a literal index only: with a computed one Spark took the next word, and the runs of
    a rare sequence were cut wrong.) A string key (a map's or a struct's) stays as it is."""
    if len(node.expressions) != 1:
        return node
    part = node.expressions[0]
    if not isinstance(part, exp.Slice):
        if part.is_string:
            return node
        # (sqlglot's parser has already made a literal index count from 0)
        index = part.copy() if part.is_int else exp.Sub(this=exp.Paren(this=part.copy()), expression=exp.Literal.number(1))
        return exp.Anonymous(this="get", expressions=[node.this.copy(), index])
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
    exp.Bracket: _bracket,
    exp.Substring: _substring,
    # ISO weekday, Monday 1 to Sunday 7: sqlglot writes ((dayofweek(d) % 7) + 1), which gives
    # Sunday 2 (linking.sql's "Sun Mar 07, 2004" agreed with no date on Spark); weekday() is Monday 0
    exp.DayOfWeekIso: lambda n: exp.Add(this=exp.Anonymous(this="weekday", expressions=[n.this]),
                                        expression=exp.Literal.number(1)),
}


_CATALOG = {
    "duckdb_tables": "SELECT database_name, schema_name, table_name, temporary FROM _rx_catalog WHERE kind = 'TABLE'",
    "duckdb_views": "SELECT database_name, schema_name, table_name AS view_name, temporary FROM _rx_catalog "
                    "WHERE kind = 'VIEW'",
    "duckdb_functions": "SELECT function_name FROM _rx_functions",
}
_INFORMATION_SCHEMA = {
    "tables": "SELECT database_name AS table_catalog, schema_name AS table_schema, table_name, "
              "CASE WHEN kind = 'VIEW' THEN 'VIEW' WHEN temporary THEN 'LOCAL TEMPORARY' ELSE 'BASE TABLE' END "
              "AS table_type FROM _rx_catalog",
}


def _catalog_function(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Table) and isinstance(node.this, (exp.Anonymous, exp.Func)):
        name = node.this.name if isinstance(node.this, exp.Anonymous) else node.this.sql_name()
        return name.lower() if name.lower() in _CATALOG else None
    return None


def reads_catalog(tree: exp.Expression) -> bool:
    return any(_catalog_function(t) or (isinstance(t, exp.Table) and t.db.lower() == "information_schema")
               for t in tree.find_all(exp.Table)) or any(True for _ in tree.find_all(exp.CurrentDatabase))


def catalog_rewrite(tree: exp.Expression) -> exp.Expression:
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
