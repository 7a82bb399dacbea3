"""Arrow packing of search results: the SQL and Arrow types of the find UDFs, arrays built from
buffers, and rx_cut. (No search here: udfs/find.py searches, this module hands the results to
DuckDB.)"""
from __future__ import annotations

from array import array
from itertools import accumulate

import numpy as np
import pyarrow as pa

MATCH_SQL_TYPE = "STRUCT(start_pos INTEGER, end_pos INTEGER, needle VARCHAR)[]"
MATCH_ARROW_TYPE = pa.list_(pa.struct([("start_pos", pa.int32()), ("end_pos", pa.int32()), ("needle", pa.string())]))
ITEMS_SQL_TYPE = "STRUCT(id BIGINT, text VARCHAR)[]"
TEXT_MATCH_SQL_TYPE = "STRUCT(id BIGINT, start_pos INTEGER, end_pos INTEGER, needle VARCHAR)[]"
TEXT_MATCH_ARROW_TYPE = pa.list_(pa.struct([("id", pa.int64()), ("start_pos", pa.int32()), ("end_pos", pa.int32()),
                                            ("needle", pa.string())]))
# rx_find_texts_own: each text with needles of its own besides its group's (the number of a needle
# set); a match says whose
OWN_ITEMS_SQL_TYPE = "STRUCT(id BIGINT, text VARCHAR, own INTEGER)[]"
OWN_MATCH_SQL_TYPE = "STRUCT(id BIGINT, start_pos INTEGER, end_pos INTEGER, needle VARCHAR, own BOOLEAN)[]"
OWN_MATCH_ARROW_TYPE = pa.list_(pa.struct(list(TEXT_MATCH_ARROW_TYPE.value_type) + [("own", pa.bool_())]))


def _ints(values, typecode: str, arrow_type: pa.DataType) -> pa.Array:
    # From a buffer, not pa.array(list): pa.array checks for pandas objects, which imports pandas
    # (about 45 MB and half a second) into a run that has no other use for it.
    if isinstance(values, pa.Array):
        return values.cast(arrow_type)
    buf = np.ascontiguousarray(values, dtype=np.dtype(typecode)) if isinstance(values, np.ndarray) else array(typecode, values)
    return pa.Array.from_buffers(arrow_type, len(buf), [None, pa.py_buffer(buf)])


def _strings(values: list[str]) -> pa.Array:
    encoded = [v.encode() for v in values]
    offsets = array("i", accumulate(map(len, encoded), initial=0))
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def _list_of(offsets, columns: list[pa.Array], arrow_type: pa.DataType) -> pa.Array:
    # Built column by column (offsets and flat children): much cheaper than a list of dicts.
    values = pa.StructArray.from_arrays(columns, fields=list(arrow_type.value_type))
    return pa.ListArray.from_arrays(_ints(offsets, "i", pa.int32()), values, type=arrow_type)


def _matches_array(offsets, starts, ends, found) -> pa.Array:
    found = found if isinstance(found, pa.Array) else _strings(found)
    return _list_of(offsets, [_ints(starts, "i", pa.int32()), _ints(ends, "i", pa.int32()), found], MATCH_ARROW_TYPE)


def cut_arrow(texts: pa.Array, starts: pa.Array, ends: pa.Array) -> pa.Array:
    """rx_cut(text, starts, ends): the pieces text[start:end] of each text (offsets in characters
    from 0, cut as Python slices cut). DuckDB's substring of a text that a join or an unnest has
    carried to each of its spans copied the whole text once per span: a dense text of n
    characters with n / 17 spans took time and memory in n squared (2.6 GB at 200 KB). Here each
    text crosses into Python once, and each piece costs its own length."""
    offsets, pieces = [0], []
    for text, s, e in zip(texts.to_pylist(), starts.to_pylist(), ends.to_pylist()):
        if text is not None and s is not None and e is not None:
            pieces.extend(text[max(a or 0, 0):b or 0] for a, b in zip(s, e))
        offsets.append(len(pieces))
    return pa.ListArray.from_arrays(_ints(offsets, "i", pa.int32()), _strings(pieces))
