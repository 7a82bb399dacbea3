"""Registration of the Python UDFs on a DuckDB connection."""
from __future__ import annotations

import contextlib
import threading

import duckdb
import pyarrow as pa

from udfs.arrow_pack import MATCH_SQL_TYPE, cut_arrow
from udfs.find import find_all_arrow

_FIND = "rx_find"
_NER = "rx_ner"


def replace_function(con: duckdb.DuckDBPyConnection, name: str, function, parameters: list[str], returns: str,
                     **options) -> None:
    """Register an Arrow UDF, replacing one of that name. (Removed and created again, not looked
    up first: duckdb_functions() lists every built-in function, and a look-up reads them all.)"""
    try:
        con.remove_function(name)
    except duckdb.Error:
        pass
    con.create_function(name, function, [duckdb.sqltype(p) for p in parameters], duckdb.sqltype(returns),
                        type="arrow", side_effects=False, **options)
    _NAMES.add(name)


# Every name replace_function has registered, for forget_rolled_back.
_NAMES: set[str] = set()


def forget_rolled_back(con: duckdb.DuckDBPyConnection) -> None:
    """After a ROLLBACK: a function first registered in the rolled-back transaction is gone from
    DuckDB's catalog but still listed by the connection, which then refuses to remove it (the
    catalog has none) or create it again ("already created"): the next run on the connection
    failed. A stand-in registered through another cursor gives the removal a catalog entry to drop.
    A function still in the catalog is left as it is."""
    present = {r[0] for r in con.execute("SELECT function_name FROM duckdb_functions() WHERE list_contains(?, "
                                         "function_name)", [sorted(_NAMES)]).fetchall()}
    for name in _NAMES - present:
        try:
            con.remove_function(name)
        except duckdb.CatalogException:
            cursor = con.cursor()
            try:
                cursor.create_function(name, lambda x: x, [duckdb.sqltype("VARCHAR")], duckdb.sqltype("VARCHAR"),
                                       type="arrow")
                con.remove_function(name)
            finally:
                cursor.close()
        except duckdb.Error:
            pass        # (not registered on this connection)


def register_find(con: duckdb.DuckDBPyConnection) -> None:
    replace_function(con, _FIND, find_all_arrow, ["VARCHAR", "VARCHAR[]"], MATCH_SQL_TYPE)


def register_cut(con: duckdb.DuckDBPyConnection) -> None:
    """rx_cut(text, starts, ends): the pieces of a text (udfs/arrow_pack.py), for terms.sql and
    rebuild_texts.sql."""
    replace_function(con, "rx_cut", cut_arrow, ["VARCHAR", "INTEGER[]", "INTEGER[]"], "VARCHAR[]")


def counted(function, on_rows):
    """`function` (an Arrow UDF), calling on_rows(done) after each vector with the rows it has
    returned so far: the progress of a long statement, which DuckDB reports nowhere else."""
    done = 0
    # (DuckDB may call a UDF from several of its threads: the count and the report go together,
    # so that the reported counts only ever grow)
    lock = threading.Lock()

    def call(values):
        nonlocal done
        out = function(values)
        with lock:
            done += len(values)
            on_rows(done)
        return out
    # (an engine whose UDFs run in other processes calls the function itself: Spark)
    call.__wrapped__ = function
    return call


def register_ner(con: duckdb.DuckDBPyConnection, recognizer, on_rows=None) -> None:
    """rx_ner(text); `on_rows`: as for counted()."""
    from udfs.ner import ENTITY_SQL_TYPE  # (here for start-up time: spaCy loads with it)
    function = recognizer.arrow if on_rows is None else counted(recognizer.arrow, on_rows)
    replace_function(con, _NER, function, ["VARCHAR"], ENTITY_SQL_TYPE)


@contextlib.contextmanager
def system_allocator():
    """Arrow's allocations on the C library's allocator for the duration, then the pool as before.

    Arrow's default pool (mimalloc) hands the pages of freed arrays back to the system, and the
    search UDF's next call page-faults them in again; the C library's allocator keeps them in its
    heap for the next call."""
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)
