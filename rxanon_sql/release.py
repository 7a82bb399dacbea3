"""The recoding_release stage, release: `rx.release` (public, a view: every released column, recoded; no row key, no person
key, no direct identifier) and `rx.audit` (private: the same with row_id, person, partition_id).

Rows are ordered by partition and then by a hash keyed with a per-run secret, so that the row
order does not tell which rows belong to the same person."""
from __future__ import annotations

import secrets

import duckdb
from sqlglot import exp

from .config import Config
from .sqlrun import (col, column_names, drop_base_table, drop_temporary, ident, lit, run, run_file, schema_objects,
                     table, union_all)


def released_columns(cfg: Config, columns: list[str]) -> list[str]:
    """The columns of rx.release, in the order of the source."""
    dropped = {cfg.person, *cfg.direct_identifiers}
    return [c for c in columns if c not in dropped and c not in ("row_id", "person")]


def audit_rows(cfg: Config, columns: list[str]) -> exp.Select:
    """rx.audit's rows, unordered: the keys and every released column. A text column is its
    rebuilt text (rebuild_texts.sql) or, with no edit, the dataset's own."""
    s = cfg.schema
    texts = {c: f"t{i}" for i, c in enumerate(cfg.text_columns)}
    out = []
    for c in released_columns(cfg, columns):
        if c in cfg.quasi_identifiers:
            out.append(exp.alias_(col(c, "r"), c, quoted=True))
        elif c in texts:
            out.append(exp.alias_(exp.func("coalesce", col("text", texts[c]), col(c, "d")), c, quoted=True))
        else:
            out.append(exp.alias_(col(c, "d"), c, quoted=True))
    keys = [col("row_id", "d"), col("person", "d"), col("partition_id", "p")]
    q = exp.select(*keys, *out).from_(exp.alias_(table("dataset", s), "d")) \
        .join(exp.alias_(table("partitions", s), "p"), on=exp.EQ(this=col("person", "p"), expression=col("person", "d"))) \
        .join(exp.alias_(table("recoded", s), "r"), on=exp.EQ(this=col("partition_id", "r"), expression=col("partition_id", "p")))
    for c, alias in texts.items():
        q = q.join(exp.alias_(table("rebuilt_texts"), alias), join_type="LEFT", on=exp.and_(
            exp.EQ(this=col("row_id", alias), expression=col("row_id", "d")),
            exp.EQ(this=col("attribute", alias), expression=lit(c))))
    return q


def audit_columns(cfg: Config, columns: list[str]) -> list[str]:
    """rx.audit's columns, given rx.dataset's."""
    return ["row_id", "person", "partition_id", *released_columns(cfg, columns)]


def _keyed_hash(row_id: exp.Column) -> exp.Expression:
    # (a number, not md5's hex string: a sort compares one integer where it would compare 32
    # characters; without the secret salt the order cannot be recomputed from row ids)
    return exp.func("hash", exp.DPipe(this=exp.Placeholder(this="salt"), expression=exp.cast(row_id, "VARCHAR")))


def rebuild_texts(con: duckdb.DuckDBPyConnection, cfg: Config, original: exp.Expression, cached: bool = True) -> None:
    """The temporary table rebuilt_texts: the texts of `original` (row_id, attribute, text) that
    rx.replacements edits, edited (release_edits.sql, rebuild_texts.sql)."""
    drop_temporary(con, "text_edits", "original_texts")
    run(con, exp.Create(this=exp.table_(ident("original_texts")), kind="VIEW", replace=True, expression=original,
                        properties=exp.Properties(expressions=[exp.TemporaryProperty()])))
    for name in ("release_edits", "rebuild_texts"):
        run_file(con, name, cfg.schema, cached=cached)


def release(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    s = cfg.schema
    rebuild_texts(con, cfg, exp.select(col("row_id"), col("attribute"), col("text")).from_(table("texts", s)))
    columns = column_names(con, table("dataset", s))
    salt = secrets.token_hex(16)
    run(con, exp.Create(this=table("audit", s), kind="TABLE", replace=True, expression=audit_rows(cfg, columns)
                        .order_by(col("partition_id", "p"), _keyed_hash(col("row_id", "d")))), {"salt": salt})
    # Every edited text once more, read by nothing after the audit. (Dropped so that no later
    # statement reads them; inside the run's transaction this frees no memory before the commit.)
    drop_temporary(con, "rebuilt_texts", "text_edits", "original_texts")
    # The release is a view of the audit without its keys (docs/schema.md, rx.release): a
    # table would be one more copy of every text. A scan keeps the audit's order
    # (partition, then keyed hash); where a connection lets DuckDB reorder a scan, the order
    # still follows partitions and hashes in pieces, never persons. (An earlier version wrote a
    # table.)
    public = [exp.alias_(col(c), c, quoted=True) for c in released_columns(cfg, columns)]
    drop_base_table(con, table("release", s))
    run(con, exp.Create(this=table("release", s), kind="VIEW", replace=True,
                        expression=exp.select(*public).from_(table("audit", s))))
    # The released texts in long form, read from the audit itself, so that verify checks what
    # was written rather than what was meant to be.
    texts = [exp.select(col("row_id"), col("person"), exp.alias_(lit(c), "attribute"), exp.alias_(col(c), "text"))
             .from_(table("audit", s)) for c in cfg.text_columns] or [
        exp.select(col("row_id"), col("person"), exp.alias_(exp.cast(exp.null(), "VARCHAR"), "attribute"),
                   exp.alias_(exp.cast(exp.null(), "VARCHAR"), "text")).from_(table("audit", s)).where(exp.false())]
    run(con, exp.Create(this=table("audit_texts", s), kind="VIEW", replace=True, expression=union_all(texts)))
    drop_base_table(con, table("released_texts", s))
    run_file(con, "release_text", s)


def release_relation(con: duckdb.DuckDBPyConnection, schema: str) -> duckdb.DuckDBPyRelation:
    """The public release of `schema`, as a relation to print or export; a CatalogException
    when the schema holds none."""
    # (checked first: for a missing table DuckDB would scan this module's function `release`, a
    # Python replacement scan, and fail with an error that names neither schema nor table)
    if "release" not in schema_objects(con, schema):
        raise duckdb.CatalogException(f"schema {schema!r} holds no release")
    return con.sql(f"SELECT * FROM {table('release', schema).sql('duckdb')}")


def classes_query(cfg: Config) -> exp.Select:
    """Equivalence classes of the release: persons with the same released quasi-identifier tuple
    and the same set of kept terms (a term of X' none of whose occurrences was suppressed or
    generalized, and every generalized value the person shows)."""
    members = exp.Subquery(this=class_members_query(cfg), alias=exp.TableAlias(this=ident("m")))
    return exp.select(
        col("key"), col("kept_terms"),
        exp.alias_(exp.Count(this=exp.Distinct(expressions=[col("person")])), "size"),
        exp.alias_(exp.Count(this=exp.Star()), "person_rows"),
    ).from_(members).group_by(col("key"), col("kept_terms"))


def class_members_query(cfg: Config) -> exp.Select:
    """Each person's class (key, kept_terms), once per released quasi-identifier tuple of theirs
    (a person with two would be counted in two classes, which the check fails)."""
    s = cfg.schema
    qis = list(cfg.quasi_identifiers)
    per_person = exp.select(col("person"), *[col(q) for q in qis]).distinct().from_(table("audit", s))
    # A term with any replacement but a recoded value (suppressed, or generalized) is not kept.
    suppressed = exp.select(exp.Literal.number(1)).from_(exp.alias_(table("replacements", s), "r")).where(exp.and_(
        exp.EQ(this=col("person", "r"), expression=col("person", "t")),
        exp.NEQ(this=col("reason", "r"), expression=lit("recoded")),
        exp.EQ(this=col("label", "r"), expression=col("label", "t")),
        exp.EQ(this=col("norm", "r"), expression=col("norm", "t"))))
    kept_rows = exp.select(col("person", "t"), exp.alias_(
        exp.DPipe(this=exp.DPipe(this=col("label", "t"), expression=lit(":")), expression=col("norm", "t")), "term")) \
        .from_(exp.alias_(table("person_terms", s), "t")).where(exp.Not(this=exp.Exists(this=suppressed)))
    # A generalized value the person shows counts as kept, as if the person had written it.
    shown_rows = exp.select(col("person", "r"), exp.alias_(exp.DPipe(this=exp.DPipe(
        this=col("label", "r"), expression=lit(":")), expression=exp.func("lower", col("replacement", "r"))), "term")) \
        .from_(exp.alias_(table("replacements", s), "r")).where(
            exp.EQ(this=col("reason", "r"), expression=lit("generalized")))
    kept = exp.select(col("person", "u"), exp.alias_(exp.func("list_sort", exp.ArrayAgg(
        this=exp.Distinct(expressions=[col("term", "u")]))), "kept_terms")) \
        .from_(exp.Subquery(this=exp.union(kept_rows, shown_rows, distinct=False), alias=exp.TableAlias(this=ident("u")))) \
        .group_by(col("person", "u"))
    key = exp.func("struct_pack", *[exp.PropertyEQ(this=ident(q), expression=col(q, "pp")) for q in qis])
    kept_terms = exp.func("coalesce", col("kept_terms", "k"), exp.cast(exp.Array(), "VARCHAR[]"))
    return exp.select(col("person", "pp"), exp.alias_(key, "key"), exp.alias_(kept_terms, "kept_terms")) \
        .from_(exp.Subquery(this=per_person, alias=exp.TableAlias(this=ident("pp")))) \
        .join(exp.Subquery(this=kept, alias=exp.TableAlias(this=ident("k"))),
              on=exp.EQ(this=col("person", "k"), expression=col("person", "pp")), join_type="LEFT")


def build_classes(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    q = classes_query(cfg)
    wrapped = exp.select("*", exp.alias_(exp.GTE(this=col("size"), expression=exp.select(col("k")).from_(
        table("params", cfg.schema)).subquery()), "ok")).from_(exp.Subquery(this=q, alias=exp.TableAlias(this=ident("c")))) \
        .order_by(col("size"))
    run(con, exp.Create(this=table("classes", cfg.schema), kind="TABLE", replace=True, expression=wrapped))
