"""Registration of the Python UDFs on a DuckDB connection."""
from __future__ import annotations

import duckdb

from .udfs.find import MATCH_SQL_TYPE, find_all_arrow

_FIND = "rx_find"
_NER = "rx_ner"


def replace_function(con: duckdb.DuckDBPyConnection, name: str, function, parameters: list[str], returns: str) -> None:
    """Register an Arrow UDF, replacing one of that name. (Removed and created again, not looked
    up first: a lookup in duckdb_functions() took 56 ms.)"""
    try:
        con.remove_function(name)
    except duckdb.Error:
        pass
    con.create_function(name, function, [duckdb.sqltype(p) for p in parameters], duckdb.sqltype(returns),
                        type="arrow", side_effects=False)


def register_find(con: duckdb.DuckDBPyConnection) -> None:
    replace_function(con, _FIND, find_all_arrow, ["VARCHAR", "VARCHAR[]"], MATCH_SQL_TYPE)


def register_ner(con: duckdb.DuckDBPyConnection, recognizer) -> None:
    from .udfs.ner import ENTITY_SQL_TYPE
    replace_function(con, _NER, recognizer.arrow, ["VARCHAR"], ENTITY_SQL_TYPE)
