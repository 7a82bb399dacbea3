"""DuckDB's Arrow UDFs as Spark calls them (`SparkConnection.create_function`)."""
from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def arrow_type(duckdb_type: str) -> pa.DataType:
    """The Arrow type in which DuckDB hands a UDF an argument of that type."""
    return duckdb.sql(f"SELECT CAST(NULL AS {duckdb_type}) AS x").to_arrow_table().schema[0].type


class ArrowCall:
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

