"""The join stage (stages.py): the natural join of the configured relations becomes `rx.dataset` (one row per
tuple, with `row_id` and `person`), and every quasi-identifier value becomes a row of `rx.values`
(long form: one row per tuple and attribute), so that the later stages are static SQL files
that do not depend on the configured column names.
"""
from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

import duckdb
import sqlglot
from sqlglot import exp

from .errors import InputError, outside_the_database
from .sqlrun import col, fold, ident, lit, run, run_file, table, union_all

if TYPE_CHECKING:
    from .config import Config

NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                 "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "DECIMAL", "REAL")
DATE_TYPES = ("DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS")


def relation_table(path: tuple[str, ...]) -> exp.Table:
    *outer, name = path
    catalog, db = ([None] * (2 - len(outer)) + outer)
    return exp.table_(ident(name), db=ident(db) if db else None, catalog=ident(catalog) if catalog else None)


def source_query(cfg: Config) -> exp.Query:
    """The relation D: the user's SELECT, or the natural join of the configured relations."""
    if cfg.query:  # checked to be one SELECT when the configuration was parsed
        return sqlglot.parse_one(cfg.query, read="duckdb")
    tables = [relation_table(p) for p in cfg.relation_paths or [(n,) for n in cfg.relations]]
    query = exp.select("*").from_(tables[0])
    for t in tables[1:]:
        query = query.join(t, join_type="NATURAL")
    return query


def resolve(con: duckdb.DuckDBPyConnection, cfg: Config) -> tuple[Config, dict[str, str]]:
    """The configuration with its relations as DuckDB finds them and its column names spelt as in
    the source, and the columns of D (name -> DuckDB type); every check of the source's shape."""
    columns: dict[str, list[str]] = {}
    paths = []
    for name in cfg.relations:
        path, columns[name] = _find_relation(con, name)
        paths.append(path)
    cfg = dataclasses.replace(cfg, relation_paths=tuple(paths))
    types = describe(con, cfg, columns)
    spelt = {fold(c): c for c in types}

    def as_source(names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(spelt.get(fold(n), n) for n in names)
    cfg = dataclasses.replace(
        cfg, person=as_source((cfg.person,))[0], direct_identifiers=as_source(cfg.direct_identifiers),
        insensitive=as_source(cfg.insensitive), text_columns=as_source(cfg.text_columns),
        attributes=tuple(dataclasses.replace(a, name=as_source((a.name,))[0]) for a in cfg.attributes),
        sensitive=tuple(dataclasses.replace(a, name=as_source((a.name,))[0]) for a in cfg.sensitive))
    check_columns(cfg, types)
    return cfg, types


def _find_relation(con: duckdb.DuckDBPyConnection, name: str) -> tuple[tuple[str, ...], list[str]]:
    """Where DuckDB finds the relation `name` (through its search path, in any case), and its
    columns. The name is first taken whole, so that a table named "a.b" is found; then, split at
    its dots, as schema.table or catalog.schema.table."""
    parts = tuple(name.split("."))
    for path in [(name,)] + ([parts] if len(parts) in (2, 3) and all(parts) else []):
        try:
            described = run(con, exp.Describe(this=exp.select("*").from_(relation_table(path)))).fetchall()
        except duckdb.CatalogException:
            continue
        except duckdb.PermissionException as e:
            raise outside_the_database(e, f"relation {name!r}") from None
        except duckdb.Error as e:
            raise InputError(f"relation {name!r} cannot be read: {str(e).splitlines()[0]}") from None
        return path, [r[0] for r in described]
    raise InputError(f"relation {name!r} not found in the database" + (
        "; a file is brought in with `rxanon-sql load`" if re.search(r"[/\\]|\.(csv|tsv|parquet|json|jsonl|gz)$", name)
        else ""))


def describe(con: duckdb.DuckDBPyConnection, cfg: Config, columns: dict[str, list[str]]) -> dict[str, str]:
    """Column name -> DuckDB type of D, given each relation's columns (resolve). Column names are
    compared as DuckDB compares them (sqlrun.fold): a natural join joins "gender" with "GENDER"."""
    person = fold(cfg.person)
    for name, cols in columns.items():
        for c in cols:
            if fold(c) == person:
                # A NULL person would silently vanish in the natural join.
                nulls = run(con, exp.select(exp.Count(this=exp.Star())).from_(_relation_of(cfg, name)).where(
                    exp.Is(this=col(c), expression=exp.null()))).fetchall()[0][0]
                if nulls:
                    raise InputError(f"person column {cfg.person!r} is NULL in {nulls} rows of relation {name!r}")
    if cfg.relations and not any(fold(c) == person for cols in columns.values() for c in cols):
        raise InputError(f"column {cfg.person!r} (source.person) not found in relations {list(cfg.relations)}")
    # A natural join joins on every shared name: a shared column that is not a join key would
    # silently drop rows, so it is an error.
    keys = {fold(k) for k in cfg.join_keys or (cfg.person,)}
    owners: dict[str, tuple[str, str]] = {}
    for name, cols in columns.items():
        for c in cols:
            if fold(c) in owners and fold(c) not in keys:
                first, owner = owners[fold(c)]
                named = repr(c) if first == c else f"{first!r} ({c!r} in {name!r})"
                raise InputError(f"relations {owner!r} and {name!r} both have column {named}, which is not a join key "
                                 f"(source.join_keys = {sorted(cfg.join_keys or (cfg.person,))}); rename it in a "
                                 "source.query or list it in source.join_keys")
            owners.setdefault(fold(c), (c, name))
    try:
        rows = run(con, exp.Describe(this=source_query(cfg))).fetchall()
    except duckdb.PermissionException as e:
        raise outside_the_database(e, "source.query" if cfg.query else f"relations {list(cfg.relations)}") from None
    except duckdb.Error as e:
        raise InputError(f"the source cannot be read: {str(e).splitlines()[0]}") from None
    names = [r[0] for r in rows]
    dupes = sorted({n for n in names if [fold(m) for m in names].count(fold(n)) > 1})
    if dupes:
        raise InputError(f"the source has duplicate column names {dupes} (DuckDB's names ignore case); "
                         "rename them in source.query")
    _check_nothing_dropped(con, cfg, columns, keys)
    _check_nothing_repeated(con, cfg, columns, keys)
    return {r[0]: r[1] for r in rows}


def _relation_of(cfg: Config, name: str) -> exp.Table:
    return relation_table(cfg.relation_paths[cfg.relations.index(name)])


def _check_nothing_dropped(con: duckdb.DuckDBPyConnection, cfg: Config, columns: dict[str, list[str]],
                           keys: set[str]) -> None:
    """Every row of every relation reaches D: a row whose join keys find no partner in the other
    relations (or are NULL) would vanish from the natural join, and with it from the release."""
    if len(cfg.relations) < 2:
        return
    joined = exp.Subquery(this=source_query(cfg), alias=exp.TableAlias(this=ident("d")))
    if not run(con, exp.select(exp.Exists(this=exp.select(exp.Literal.number(1)).from_(joined.copy())))).fetchall()[0][0]:
        return          # (build_dataset names an empty source)
    for name, cols in columns.items():
        on = [c for c in cols if fold(c) in keys]
        if not on:
            continue    # (no shared column: a cross join, which drops nothing)
        partner = exp.select(exp.Literal.number(1)).from_(joined.copy()).where(
            exp.and_(*[exp.EQ(this=col(c, "d"), expression=col(c, "r")) for c in on]))
        lost = run(con, exp.select(exp.Count(this=exp.Star())).from_(
            exp.alias_(_relation_of(cfg, name), "r")).where(exp.Not(this=exp.Exists(this=partner)))).fetchall()[0][0]
        if lost:
            raise InputError(f"{lost} rows of relation {name!r} find no partner on column(s) {on} in the natural join "
                             f"of relations {list(cfg.relations)} and would be dropped; give the join in a source.query")


def _check_nothing_repeated(con: duckdb.DuckDBPyConnection, cfg: Config, columns: dict[str, list[str]],
                             keys: set[str]) -> None:
    """D holds each row of the text relation once: a key that another relation holds twice (an
    author listed twice, with two ages) would repeat that person's texts, with both ages merged
    into one range, and a release would no longer be one row per text. The text relation is the
    largest one that holds a text column, or without text the largest one."""
    if len(cfg.relations) < 2:
        return

    def count(query: exp.Query) -> int:
        return run(con, exp.select(exp.Count(this=exp.Star())).from_(
            exp.Subquery(this=query, alias=exp.TableAlias(this=ident("q"))))).fetchall()[0][0]
    rows = {name: count(exp.select("*").from_(_relation_of(cfg, name))) for name in columns}
    texts = {fold(c) for c in cfg.text_columns}
    base = max([n for n, cols in columns.items() if any(fold(c) in texts for c in cols)] or list(columns),
               key=lambda n: rows[n])
    joined = count(source_query(cfg))
    if joined <= rows[base]:
        return
    repeated = f"the natural join of relations {list(cfg.relations)} repeats rows of relation {base!r} " \
               f"({rows[base]} rows become {joined})"
    for name, cols in columns.items():
        on = [c for c in cols if fold(c) in keys]
        if name == base or not on:
            continue
        twice = run(con, exp.select(*[col(c) for c in on], exp.alias_(exp.Count(this=exp.Star()), "n"))
                    .from_(_relation_of(cfg, name)).group_by(*[col(c) for c in on])
                    .having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)))
                    .order_by(*[exp.Ordered(this=col(c)) for c in on]).limit(1)).fetchall()
        if twice:
            *value, n = twice[0]
            named = f"{on[0]} = {value[0]!r}" if len(on) == 1 else f"({', '.join(on)}) = {tuple(value)!r}"
            raise InputError(f"relation {name!r} holds {named} in {n} rows, so {repeated}; keep one row per key in "
                             f"relation {name!r}, or give the join in a source.query")
    raise InputError(f"{repeated}; give the join in a source.query")


def check_columns(cfg: Config, types: dict[str, str]) -> None:
    where = f"relations {list(cfg.relations)}" if cfg.relations else "source.query"
    roles = [(cfg.person, "source.person")] + [(c, "source.direct_identifiers") for c in cfg.direct_identifiers] \
        + [(c, "source.insensitive") for c in cfg.insensitive] + [(a.name, f"attributes.{a.name}") for a in (*cfg.attributes, *cfg.sensitive)] \
        + [(c, "text.columns") for c in cfg.text_columns]
    for name, role in roles:
        if name not in types:
            raise InputError(f"column {name!r} ({role}) not found in {where}; columns are {list(types)}")
    for a in cfg.attributes:
        t = types[a.name].split("(")[0]
        if a.type == "numeric" and t not in NUMERIC_TYPES:
            raise InputError(f"column {a.name!r} is {types[a.name]}, but attributes.{a.name}.type is numeric")
        if a.type == "date" and t not in DATE_TYPES and t != "VARCHAR":
            raise InputError(f"column {a.name!r} is {types[a.name]}, but attributes.{a.name}.type is date")
    for c in cfg.text_columns:
        if types[c] != "VARCHAR":
            raise InputError(f"text column {c!r} is {types[c]}, expected VARCHAR")


def unreleased(cfg: Config, types: dict[str, str]) -> dict[str, list[str]]:
    """The columns of D that the release leaves out, by why: the person, the direct identifiers
    and the columns the configuration gives no role (which a user may have left out by mistake)."""
    released = {*cfg.insensitive, *cfg.quasi_identifiers, *cfg.text_columns, *(a.name for a in cfg.sensitive)}
    out: dict[str, list[str]] = {}
    for c in types:
        if c not in released:
            why = ("source.person" if c == cfg.person else "source.direct_identifiers" if c in cfg.direct_identifiers
                   else "no role in the configuration")
            out.setdefault(why, []).append(c)
    return out


def text_bytes(con: duckdb.DuckDBPyConnection, cfg: Config) -> int | None:
    """The bytes of D's text columns (what apply's default memory limit scales with), or None where
    the source does not resolve: the join stage then says why."""
    try:
        cfg, types = resolve(con, cfg)
        texts = [c for c in cfg.text_columns if c in types]
        if not texts:
            return None
        sums = [exp.func("sum", exp.func("strlen", exp.cast(col(c), "VARCHAR"))) for c in texts]
        row = run(con, exp.select(*sums).from_(
            exp.Subquery(this=source_query(cfg), alias=exp.TableAlias(this=ident("src"))))).fetchall()[0]
    except (InputError, duckdb.Error):
        return None
    return sum(v or 0 for v in row)


def build_dataset(con: duckdb.DuckDBPyConnection, cfg: Config, types: dict[str, str]) -> None:
    s = cfg.schema
    kept = [c for c in types if c != cfg.person and c in
            {*cfg.direct_identifiers, *cfg.insensitive, *cfg.quasi_identifiers, *cfg.text_columns,
             *(a.name for a in cfg.sensitive)}]
    # A deterministic row_id: the same input gives the same row ids, partitions and release.
    order = [col(cfg.person)] + [col(c) for c in kept]
    row_id = exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=[exp.Ordered(this=o) for o in order]))
    select = exp.select(exp.alias_(row_id, "row_id"), exp.alias_(col(cfg.person), "person"), *[col(c) for c in kept]) \
        .from_(exp.Subquery(this=source_query(cfg), alias=exp.TableAlias(this=ident("src"))))
    run(con, exp.Create(this=table("dataset", s), kind="TABLE", expression=select, replace=True))
    n_rows, nulls, persons = con.execute(
        f"SELECT count(*), count(*) - count(person), count(DISTINCT person) FROM {table('dataset', s).sql('duckdb')}"
    ).fetchall()[0]
    where = f"relations {list(cfg.relations)}" if cfg.relations else "source.query"
    if not n_rows:
        raise InputError(f"the source ({where}) has no rows")
    if nulls:
        raise InputError(f"person column {cfg.person!r} is NULL in {nulls} rows")
    check_persons(cfg, persons)


def check_persons(cfg: Config, persons: int) -> None:
    if persons < cfg.k:
        raise InputError(f"the source has {persons} persons in column {cfg.person!r}, fewer than k = {cfg.k}")


def _value_select(cfg: Config, attr, types: dict[str, str]) -> exp.Select:
    raw = col(attr.name, "d")
    txt = exp.cast(raw, "VARCHAR")
    if attr.type == "date":
        # A blank date stored as text ("", "  ") is a missing one, as NULL is: not a value of its
        # own that no format reads.
        txt = exp.If(this=exp.EQ(this=exp.func("trim", txt), expression=lit("")), true=exp.null(), false=txt)
        if types[attr.name] == "VARCHAR":
            if attr.format:
                fmt = lit(attr.format)
                # The month name may be in another language ("mayo", "Juni"): try it translated.
                day = exp.func("coalesce",
                               exp.func("try_strptime", raw, fmt),
                               exp.func("try_strptime", col("english", "m"), fmt))
            else:
                day = exp.TryCast(this=raw, to=exp.DataType.build("DATE"))
        else:
            day = raw
        day = exp.cast(day, "DATE")
    else:
        day = exp.cast(exp.null(), "DATE")
    return exp.select(
        col("row_id", "d"), col("person", "d"), exp.alias_(lit(attr.name), "attribute"),
        exp.alias_(txt, "txt"), exp.alias_(day, "day"),
    ).from_(exp.alias_(table("dataset", cfg.schema), "d")).join(
        exp.alias_(table("month_translation", cfg.schema), "m"),
        on=exp.and_(exp.EQ(this=col("raw", "m"), expression=raw), exp.EQ(this=col("attribute", "m"), expression=lit(attr.name))),
        join_type="LEFT")


def build_values(con: duckdb.DuckDBPyConnection, cfg: Config, types: dict[str, str]) -> None:
    s = cfg.schema
    date_attrs = [a for a in cfg.attributes if a.type == "date" and types[a.name] == "VARCHAR" and a.format]
    # Distinct raw date strings with their month word translated to English, per attribute.
    raw_dates = [exp.select(exp.alias_(lit(a.name), "attribute"), exp.alias_(col(a.name), "raw"))
                 .from_(table("dataset", s)).where(exp.Not(this=exp.Is(this=col(a.name), expression=exp.null())))
                 for a in date_attrs] or [exp.select(exp.alias_(exp.cast(exp.null(), "VARCHAR"), "attribute"),
                                                     exp.alias_(exp.cast(exp.null(), "VARCHAR"), "raw")).where(exp.false())]
    run(con, exp.Create(this=table("date_strings", s), kind="TABLE", replace=True,
                        expression=exp.select("*").from_(exp.Subquery(this=union_all(raw_dates))).distinct()))
    run_file(con, "month_translation", s)
    # (a release of texts alone has no quasi-identifier: an empty table of the same columns)
    selects = [_value_select(cfg, a, types) for a in cfg.attributes] or [
        exp.select(*(exp.alias_(exp.cast(exp.null(), t), n) for n, t in
                     (("row_id", "BIGINT"), ("person", "BIGINT"), ("attribute", "VARCHAR"), ("txt", "VARCHAR"),
                      ("day", "DATE")))).where(exp.false())]
    run(con, exp.Create(this=table("values_raw", s), kind="TABLE", expression=union_all(selects), replace=True))
    run_file(con, "values", s)
    bad = con.execute(f"SELECT attribute, txt, count(*) FROM {table('values_unparsed', s).sql('duckdb')} "
                      "GROUP BY ALL ORDER BY 3 DESC, 1, 2 LIMIT 3").fetchall()
    if bad:
        a, v, n = bad[0]
        fmt = cfg.attribute(a).format
        raise InputError(f"column {a!r}: value {v!r} is not a date" + (f" in format {fmt!r}" if fmt else "")
                         + f" ({n} rows; other bad values: {[b[1] for b in bad[1:]]})")
    bad = con.execute(f"SELECT attribute, txt, count(*) FROM {table('values_infinite', s).sql('duckdb')} "
                      "GROUP BY ALL ORDER BY 1, 2 LIMIT 1").fetchall()
    if bad:
        a, v, n = bad[0]
        raise InputError(f"column {a!r}: value {v!r} is not a finite number ({n} rows)")
    bad = con.execute(f"SELECT attribute, txt FROM {table('qi_values', s).sql('duckdb')} WHERE num IS NULL "
                      "AND txt IS NOT NULL LIMIT 1").fetchall()
    if bad:
        bad = bad[0]
        raise InputError(f"column {bad[0]!r}: value {bad[1]!r} is not in attributes.{bad[0]}.order")
