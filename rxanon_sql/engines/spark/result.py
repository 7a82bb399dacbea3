"""A statement's result on Spark, with the face of DuckDB's: rows as Python values, Arrow with
DuckDB's narrow types, numpy, files."""
from __future__ import annotations

import pyarrow as pa

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
