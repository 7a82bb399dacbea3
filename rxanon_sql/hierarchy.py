"""User generalization hierarchies for relational attributes, in ARX's CSV format.

A hierarchy file has one row per leaf value and one column per level, from the value itself up
to the root ('*' in ARX's files):

    1;0-4;0-9;0-19;*
    2;0-4;0-9;0-19;*

It is read and checked when the configuration is read (a tree, with one root), so that a bad file
is refused before any work. A run writes it into rx.hierarchies; `sql/recode_hierarchy.sql`
recodes a partition to the lowest node that all its values share, and measures count the leaves
of D* under that node (docs/configuration.md, Generalization hierarchies).
"""
from __future__ import annotations

import csv
import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from .errors import ConfigError, InputError
from .sqlrun import run_file, table


@dataclass(frozen=True)
class Hierarchy:
    path: str                     # as resolved against the configuration file's folder
    delimiter: str = ";"
    sha256: str = ""              # of the file's bytes: what rx.runs records instead of the rows
    rows: tuple[tuple[str, ...], ...] = field(default=(), repr=False)

    def as_record(self) -> dict:
        """What rx.runs keeps of it: the file and its digest, not its (possibly many) rows."""
        return {"path": self.path, "delimiter": self.delimiter, "sha256": self.sha256, "leaves": len(self.rows)}


def read_hierarchy(path: Path, delimiter: str, key: str, numeric: bool) -> Hierarchy:
    """The hierarchy in `path`, checked to be a tree with one root; `key` is the configuration key
    that names the file (every error names it, the file and the row)."""
    where = f"{key}: file {str(path)!r}"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{where} not found") from None
    except OSError as e:
        raise ConfigError(f"{where} cannot be read: {e.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{where} is not UTF-8: byte {e.object[e.start]:#04x} at position {e.start}") from None
    # (blank lines carry no leaf: a trailing one is common; csv gives them as empty lists)
    numbered = [(i, tuple(c.strip() for c in r))
                for i, r in enumerate(csv.reader(text.splitlines(), delimiter=delimiter), 1) if r]
    if not numbered:
        raise ConfigError(f"{where} has no rows")
    width = len(numbered[0][1])
    leaves: dict[object, int] = {}
    parents: dict[tuple[int, str], tuple[str, int]] = {}
    for line, row in numbered:
        if len(row) != width:
            raise ConfigError(f"{where}: row {line} has {len(row)} columns, row {numbered[0][0]} has {width}")
        if "" in row:
            raise ConfigError(f"{where}: row {line} has an empty column {row.index('') + 1}")
        leaf = _leaf_key(row[0], where, line) if numeric else row[0]
        if leaf in leaves:
            raise ConfigError(f"{where}: leaf {row[0]!r} appears twice (rows {leaves[leaf]} and {line})")
        leaves[leaf] = line
        for level in range(1, width - 1):
            node, parent = row[level], row[level + 1]
            seen = parents.setdefault((level, node), (parent, line))
            if seen[0] != parent:
                raise ConfigError(f"{where}: node {node!r} (column {level + 1}) has two parents, {seen[0]!r} "
                                  f"(row {seen[1]}) and {parent!r} (row {line}); a hierarchy must be a tree")
    roots = sorted({row[-1] for _, row in numbered})
    if len(roots) > 1:
        raise ConfigError(f"{where}: its last column holds {len(roots)} nodes ({', '.join(map(repr, roots[:3]))}"
                          f"{', ...' if len(roots) > 3 else ''}); a hierarchy needs one root, such as '*'")
    return Hierarchy(path=str(path), delimiter=delimiter, sha256=hashlib.sha256(data).hexdigest(),
                     rows=tuple(row for _, row in numbered))


def _leaf_key(value: str, where: str, line: int) -> float:
    # (a numeric attribute's leaf is a number: "1" and "1.0" are one leaf, as they are one value)
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(f"{where}: leaf {value!r} (row {line}) is not a number, but the attribute is numeric") \
            from None
    if not math.isfinite(number):
        raise ConfigError(f"{where}: leaf {value!r} (row {line}) is not a finite number")
    return number


def write_hierarchies(con: duckdb.DuckDBPyConnection, cfg) -> None:
    """rx.hierarchies (sql/parameters.sql made it): (attribute, leaf, level, node) for each leaf
    and level of its path, level 0 being the leaf itself. (Through Arrow: a hierarchy of many
    leaves would pass millions of statement parameters otherwise.)"""
    import pyarrow as pa
    rows = [(a.name, row[0], level, node) for a in cfg.attributes if a.hierarchy is not None
            for row in a.hierarchy.rows for level, node in enumerate(row)]
    if not rows:
        return
    names = ("attribute", "leaf", "level", "node")
    batch = pa.table({n: list(c) for n, c in zip(names, zip(*rows))})
    con.register("hierarchy_rows", batch)
    try:
        con.execute(f"INSERT INTO {table('hierarchies', cfg.schema).sql('duckdb')} "
                    "SELECT attribute, leaf, level, node FROM hierarchy_rows")
    finally:
        con.unregister("hierarchy_rows")


def check_leaves(con: duckdb.DuckDBPyConnection, cfg) -> None:
    """rx.hierarchy_values, and the check that every value of an attribute with a hierarchy is one
    of its leaves: recoding could not place another."""
    s = cfg.schema
    run_file(con, "hierarchy_values", s)
    bad = con.execute(f"SELECT attribute, txt, rows FROM {table('hierarchy_values', s).sql('duckdb')} "
                      "WHERE level IS NULL ORDER BY rows DESC, attribute, txt LIMIT 4").fetchall()
    if bad:
        a, v, n = bad[0]
        where = f"relations {list(cfg.relations)}" if cfg.relations else "source.query"
        others = f"; other values missing: {[b[1] for b in bad[1:]]}" if len(bad) > 1 else ""
        raise InputError(f"{where}, column {a!r}: value {v!r} ({n} rows) is no leaf of attributes.{a}.hierarchy "
                         f"{cfg.attribute(a).hierarchy.path!r}{others}")
