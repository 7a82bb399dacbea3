"""Loading and running the SQL of `sql/`, and building the few statements that depend on
configured column names.

Every statement passes through sqlglot before DuckDB sees it: the files name the output schema
`rx`, which is rewritten to the configured schema as a quoted identifier, and generated SQL is
built from sqlglot expressions so that a configured name can never become SQL text.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import tempfile
import time
from importlib import resources

import duckdb
import sqlglot
from sqlglot import exp

DIALECT = "duckdb"


# DuckDB matches identifiers case-insensitively in ASCII only ("A" is "a", "Ä" is not "ä").
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(name: str) -> str:
    """The key under which DuckDB finds a column, table or schema name: two names with the same key
    are one name to DuckDB, however they are spelt."""
    return name.translate(_ASCII_LOWER)


def ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(ident(name), table=ident(table) if table else None)


def lit(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def table(name: str, schema: str | None = None) -> exp.Table:
    return exp.table_(ident(name), db=ident(schema) if schema else None)


@functools.lru_cache(maxsize=None)
def _file(name: str) -> str:
    return resources.files("sql").joinpath(f"{name}.sql").read_text(encoding="utf-8")


def _retarget(statement: exp.Expression, schema: str) -> exp.Expression:
    """Point every `rx.<table>` of a file at the configured schema."""
    if schema == "rx":
        return statement
    for t in statement.find_all(exp.Table):
        if t.args.get("db") is not None and t.db == "rx" and not t.args.get("catalog"):
            t.set("db", ident(schema))
    return statement


Expansions = tuple[tuple[str, str], ...]


@functools.lru_cache(maxsize=None)
def statements(name: str, schema: str = "rx", cached: bool = True,
               expand: Expansions = ()) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The statements of `sql/<name>.sql` as DuckDB SQL, each with the named parameters it uses.
    With `cached` false they are rendered from the package's file, never read from the cache
    file: anyone who can write to the user's cache folder could otherwise rewrite what `verify`
    runs (an empty leak check), and a key or hash beside the entry could be rewritten as well.
    `expand`: (function name, SQL) pairs; a call of that name without arguments in the file
    stands for that SQL (recode_text.sql's CASE over the registered text operators)."""
    if not cached:
        return _render(name, schema, expand)
    text = _file(name)
    key = f"{name} {schema} {hashlib.sha256((text + json.dumps(expand)).encode()).hexdigest()}"
    cache = _rendered()
    if key not in cache:
        out = [[sql, list(params)] for sql, params in _render(name, schema, expand)]
        # (an edited file's older renderings go)
        for old in [k for k in cache if k.startswith(f"{name} {schema} ")]:
            del cache[old]
        cache[key] = out
        _save_rendered(cache)
    return tuple((sql, tuple(params)) for sql, params in cache[key])


def _expand(statement: exp.Expression, expand: Expansions) -> exp.Expression:
    if not expand:
        return statement
    macros = dict(expand)
    for call in list(statement.find_all(exp.Anonymous)):
        if call.name in macros and not call.expressions:
            call.replace(sqlglot.parse_one(macros[call.name], read=DIALECT))
    return statement


@functools.lru_cache(maxsize=None)
def _render(name: str, schema: str, expand: Expansions = ()) -> tuple[tuple[str, tuple[str, ...]], ...]:
    out = []
    for stmt in sqlglot.parse(_file(name), read=DIALECT):
        if stmt is None:
            continue
        stmt = _retarget(_expand(stmt, expand), schema)
        params = sorted({p.name for p in stmt.find_all(exp.Placeholder) if p.name})
        out.append((stmt.sql(dialect=DIALECT), tuple(params)))
    return tuple(out)


def _cache_file() -> str:
    """Where the rendered statements are kept between runs. Parsing and rendering every file
    with sqlglot is a fair part of a short run, and each `rxanon-sql` command is a new process.
    An entry's key holds the SQL file's name and hash and the schema; the cache file's name holds
    the sqlglot version and a hash of this module, which renders them."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rxanon-sql", f"statements-sqlglot-{sqlglot.__version__}-{_renderer()}.json")


@functools.cache
def _renderer() -> str:
    with open(__file__, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def _rendered() -> dict:
    try:
        with open(_cache_file(), encoding="utf-8") as f:
            cache = json.load(f)
        return cache if isinstance(cache, dict) else {}
    except (OSError, ValueError):
        return {}          # none yet, unreadable or damaged: render again


def _save_rendered(cache: dict) -> None:
    path = _cache_file()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(path), delete=False, encoding="utf-8") as f:
            json.dump(cache, f)
        os.replace(f.name, path)
    except OSError:
        pass               # a read-only home: the run renders the files every time


def run_file(con: duckdb.DuckDBPyConnection, name: str, schema: str = "rx", cached: bool = True,
             expand: Expansions = (), **params) -> duckdb.DuckDBPyConnection:
    """Run sql/<name>.sql; with RXANON_SQL_PROFILE set, each statement's time goes to stderr.
    Returns the connection with the last statement's result, for a file that ends in a query.
    `cached`, `expand`: as for statements().

    A statement that uses $first_person and $last_person runs once for each batch from 0 to
    $batches - 1 (the caller gives batches, and batch_table, the table of each batch's
    first_person and last_person, which the file writes before): it handles the persons of that
    batch (propagate.sql's person_batches), so that one statement never holds all the texts at
    once. (Constants, not a subquery of batch_table: DuckDB then skips the row groups of the
    other batches' texts, which lie in person order.)"""
    result = con
    for i, (sql, names) in enumerate(statements(name, schema, cached, expand)):
        missing = [n for n in names if n not in params and n not in ("first_person", "last_person")]
        if missing:
            raise KeyError(f"sql/{name}.sql needs parameters {missing}")
        for batch in range(params["batches"]) if "first_person" in names else (None,):
            values = dict(params)
            if batch is not None:
                # (no row: a batch without persons, and no text between NULL and NULL)
                bounds = _execute(con, f"SELECT first_person, last_person FROM {params['batch_table']} WHERE batch = $batch",
                                  {"batch": batch}, f"{name}.sql batch {batch} bounds").fetchall()
                values["first_person"], values["last_person"] = bounds[0] if bounds else (None, None)
            label = f"{name}.sql #{i + 1}" + (f" batch {batch}" if batch is not None else "")
            result = _execute(con, sql, {n: values[n] for n in names} if names else None, label)
    return result


def _rss_mb() -> float:
    """Resident memory now, for the profile (a stage's peak is measured by the benchmarks)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


_last_peak = [0.0]


def _peak_since_reset() -> float:
    """The process's peak resident memory (VmHWM) since the last call, which resets it (Linux:
    clear_refs 5), so that the profile gives each statement's own peak, and that of the Python
    work between two statements when it is higher."""
    with open("/proc/self/status") as f:
        peak = next((int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:")), 0.0)
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return peak


class _DuckDBSampler:
    """The most DuckDB's buffer pool held (what its memory limit counts: duckdb_memory()) while a
    statement ran, sampled every 50 ms from a cursor of the same database."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        import threading
        # (another engine's connection, Spark's: no buffer pool to read, 0)
        self.cursor = con.cursor() if isinstance(con, duckdb.DuckDBPyConnection) else None
        self.peak, self.done = 0.0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        if self.cursor is None:
            return
        used = self.cursor.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchall()[0][0]
        self.peak = max(self.peak, (used or 0) / 2**20)

    def _run(self) -> None:
        while not self.done.wait(0.05):
            self._sample()

    def __enter__(self):
        self._sample()
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()
        self._sample()
        if self.cursor is not None:
            self.cursor.close()


def _execute(con: duckdb.DuckDBPyConnection, sql: str, params, label: str):
    """con.execute; with RXANON_SQL_PROFILE set, to stderr: the statement's time, the resident
    memory after it, its peak (and that of the work before it, where higher) and the most that
    DuckDB's buffer pool held while it ran. (The peak is reset for each statement: the process's
    own maximum, which /usr/bin/time reports, is then the last statement's; the run's is the
    highest of the profile's.)"""
    if not os.environ.get("RXANON_SQL_PROFILE"):
        return con.execute(sql, params)
    gap = _peak_since_reset()
    with _DuckDBSampler(con) as duck:
        start = time.perf_counter()
        result = con.execute(sql, params)
        took = time.perf_counter() - start
    peak = _peak_since_reset()
    print(f"{took:9.3f}s {_rss_mb():6.0f} MB  peak {peak:6.0f}{'' if gap <= _last_peak[0] + 1 else f' (before it {gap:.0f})'} MB"
          f"  duckdb {duck.peak:6.0f} MB  {label}: {sql[:90]}", file=sys.stderr)
    _last_peak[0] = peak
    return result


def execute(con: duckdb.DuckDBPyConnection, sql: str, params=None, label: str = "(statement)"):
    """con.execute of a statement given as text, in the profile under `label`."""
    return _execute(con, sql, params, label)


def run(con: duckdb.DuckDBPyConnection, statement: exp.Expression | str, params=None):
    """Run a generated statement (an sqlglot expression, or SQL text that sqlglot re-renders)."""
    if isinstance(statement, str):
        statement = sqlglot.parse_one(statement, read=DIALECT)
    return _execute(con, statement.sql(dialect=DIALECT), params, "(generated)")


def hash_sum(con: duckdb.DuckDBPyConnection, source: exp.Expression, columns: list[str]) -> tuple[int, int]:
    """The row count of `source` (a table, or a subquery with an alias) and the sum of its rows'
    hashes over `columns`: equal for equal multisets of rows, whatever their order, in one scan.
    Unequal ones differ in it unless 64-bit hashes collide."""
    row_hash = exp.func("hash", *[col(c) for c in columns])
    rows, total = run(con, exp.select(exp.Count(this=exp.Star()), exp.func("sum", exp.cast(row_hash, "HUGEINT")))
                      .from_(source)).fetchall()[0]
    return rows, int(total or 0)


def drop_temporary(con: duckdb.DuckDBPyConnection, *names: str) -> None:
    """Drop the temporary tables or views of those names that there are. (Inside the run's
    transaction this frees nothing before the commit, but it keeps a later stage from reading a
    stale table. One look-up for all: each reads DuckDB's whole catalogue.)"""
    found = con.execute("SELECT table_name, 'TABLE' FROM duckdb_tables() WHERE temporary AND list_contains(?, table_name) "
                        "UNION ALL SELECT view_name, 'VIEW' FROM duckdb_views() WHERE temporary AND list_contains(?, view_name)",
                        [list(names), list(names)]).fetchall()
    for name, kind in found:
        run(con, exp.Drop(tables=[exp.table_(ident(name), db=ident("main"), catalog=ident("temp"))], kind=kind))


def drop_base_table(con: duckdb.DuckDBPyConnection, name: exp.Table) -> None:
    """Drop the base table of that name, if there is one: earlier versions wrote as tables what are
    now views (rx.release, rx.released_texts, rx.persons: CREATE OR REPLACE VIEW does not replace a
    table) or a temporary table (rx.terms_found, which would stay behind, stale)."""
    found = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
                        "AND schema_name = ? AND table_name = ? AND NOT temporary", [name.db, name.name]).fetchall()[0][0]
    if found:
        run(con, exp.Drop(tables=[name], kind="TABLE"))


def create_schema(con: duckdb.DuckDBPyConnection, schema: str) -> None:
    run(con, exp.Create(this=exp.Table(this=ident(schema)), kind="SCHEMA", exists=True))


def column_types(con: duckdb.DuckDBPyConnection, relation: exp.Table) -> dict[str, str]:
    """A table's or view's columns, in order, with their DuckDB types."""
    return {r[0]: r[1] for r in con.execute(f"DESCRIBE {relation.sql(DIALECT)}").fetchall()}


def column_names(con: duckdb.DuckDBPyConnection, relation: exp.Table) -> list[str]:
    """The names of a table's or view's columns, in order."""
    return list(column_types(con, relation))


def confine(con: duckdb.DuckDBPyConnection, lock: bool = True) -> None:
    """Let the connection read nothing but its own database: no file, URL or glob (read_csv,
    read_text, a relation named like a path, a view that reads one), and no extension installed
    or loaded on demand. A configuration or database written by someone else could otherwise
    publish any file the user can read. For good: DuckDB refuses to turn it back on, and the
    configuration is locked, so that nothing later in the session (a SET the tool never runs, a
    query's own settings) can lift it. verify's ':memory:' catalogue, temporary files spilled
    beside the database, and Python UDFs still work. `lock` False: the caller locks it after
    settings of its own, which may read the database, confined already (external access, once
    off, cannot be turned back on)."""
    for setting in ("enable_external_access", "autoinstall_known_extensions", "autoload_known_extensions"):
        con.execute(f"SET {setting} = false")
    if lock:
        con.execute("SET lock_configuration = true")


# The tables and views rxanon-sql wrote into its output schema: pipeline.check_schema_is_ours
# refuses a schema that holds anything else, so that no run ever replaces a table of the user's.
OWNED = "rxanon_sql_tables"


def schema_objects(con: duckdb.DuckDBPyConnection, schema: str) -> set[str]:
    """The tables and views of the schema that DuckDB takes `schema` for (by its own name rule)."""
    return {r[1] for r in con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND NOT temporary UNION ALL SELECT schema_name, view_name FROM duckdb_views() WHERE "
        "database_name = current_database() AND NOT temporary").fetchall() if fold(r[0]) == fold(schema)}


def mark_owned(con: duckdb.DuckDBPyConnection, schema: str) -> None:
    """Record every table and view of the schema as rxanon-sql's: only after the schema was found
    to be ours and while nothing but rxanon-sql has written to it since."""
    names = sorted(schema_objects(con, schema) | {OWNED})
    con.execute(f"CREATE OR REPLACE TABLE {table(OWNED, schema).sql(DIALECT)} AS "
                "SELECT unnest(CAST(? AS VARCHAR[])) AS table_name", [names])


def union_all(selects: list[exp.Select]) -> exp.Expression:
    result: exp.Expression = selects[0]
    for s in selects[1:]:
        result = exp.union(result, s, distinct=False)
    return result
