"""Registration of the Python UDFs on a DuckDB connection."""
from __future__ import annotations

import duckdb

from .udfs.find import MATCH_SQL_TYPE, find_all_arrow

_FIND = "rx_find"
_NER = "rx_ner"


def _registered(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = ?", [name]).fetchall()[0][0])


def register_find(con: duckdb.DuckDBPyConnection) -> None:
    if not _registered(con, _FIND):
        con.create_function(_FIND, find_all_arrow, [duckdb.sqltype("VARCHAR"), duckdb.sqltype("VARCHAR[]")],
                            duckdb.sqltype(MATCH_SQL_TYPE), type="arrow", side_effects=False)


def register_ner(con: duckdb.DuckDBPyConnection, recognizer) -> None:
    from .udfs.ner import ENTITY_SQL_TYPE
    if _registered(con, _NER):
        con.remove_function(_NER)
    con.create_function(_NER, recognizer.arrow, [duckdb.sqltype("VARCHAR")], duckdb.sqltype(ENTITY_SQL_TYPE),
                        type="arrow", side_effects=False)
