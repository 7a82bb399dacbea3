"""`rxanon-sql verify`: is the release in a database k-anonymous, and does it leak?

It recomputes, from the release and the audit rather than from the partitioner's bookkeeping:
the audit itself, rebuilt from rx.dataset (the user's rows), rx.replacements and the recoded
values, so that a text or value written back into the audit, or texts swapped between rows, fail;
the equivalence classes (same released quasi-identifiers and same kept terms; each must hold at
least k persons and give every person one released tuple), the leak check (no surface of a
suppressed term left uncovered in any text of that person), and the row count.

The residual audit (sql/residual.sql) trusts not even rx.terms: it lists the tokens and
capitalised sequences of the released texts that the original texts of fewer than k persons
hold and that are no common words. Those are suspects, not proof of a leak, so they fail the
verdict only when it is strict (`verify --strict`).

Its statements are rendered from the package's SQL files, never read from the user's cache
folder (sqlrun.statements)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import duckdb
from sqlglot import exp

from .advice import advise
from .common_words import (CAPITALISED, CAPITALISED_INSIDE, CAPITALISED_SEQUENCE, DEFAULT_ZIPF, TOKEN,
                           pipeline_language, register_vocabulary, widely_written)
from .config import Attribute, Config
from .diversity import failing_classes
from .hierarchy import Hierarchy
from .errors import ReleaseRejected  # noqa: F401  (raised by pipeline.apply; importers found it here)
from .identifiers import register_identifier_search
from .recognize import register_find_texts, search_batches
from .udf import register_cut
from .release import audit_columns, audit_rows, class_members_query, classes_query, rebuild_texts
from .sqlrun import (col, column_names, drop_temporary, execute, hash_sum, ident, lit, run, run_file, statements, table,
                     union_all)

# Where the audit keeps the common-word table: an in-memory database of its own, because
# `verify` opens the release read-only and register_vocabulary writes a schema's tables.
AUDIT_CATALOG = "rx_residual"
_AUDIT_TABLES = ("residual_originals", "residual_row_values", "residual_classes", "residual_capitalised_inside",
                 "residual_released_pieces", "residual_distinct_forms", "residual_released", "residual_sequences",
                 "residual_wanted", "residual_original_hits", "residual_token_holders", "residual_token_persons",
                 "residual_token_class_persons", "residual_sequence_persons", "residual_sequence_class_persons",
                 "residual_rare", "residual_row_tokens")


@dataclass
class Verdict:
    k: int
    classes: int = 0
    smallest: int = 0
    failing: list[tuple] = field(default_factory=list)
    # classes that break anonymization.l or .t: key, kept_terms, size, attribute, distinct values,
    # distance kind, distance (diversity.failing_classes)
    undiverse: list[tuple] = field(default_factory=list)
    l: int | None = None
    t: float | None = None
    leaks: list[tuple] = field(default_factory=list)
    identifiers: list[tuple] = field(default_factory=list)
    mismatched_rows: int = 0
    # row_ids whose rows in the audit and in its rebuild from the dataset differ; the least of them
    unrebuilt_rows: int = 0
    unrebuilt_example: object = None
    rows_released: int = 0
    rows_input: int = 0
    # The residual audit's rows (residual.sql): kind ("token" or "sequence"), suspect,
    # original_persons, person, occurrences, row_id, attribute, example.
    suspects: list[tuple] = field(default_factory=list)
    residual_seconds: float = 0.0
    strict: bool = False      # suspects fail the verdict too
    audited: bool = False     # the residual audit ran
    # what to change, a line per kind of failure (advice.advise); empty when the release holds
    advice: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (not self.failing and not self.undiverse and not self.leaks and not self.identifiers and not self.mismatched_rows
                and not self.unrebuilt_rows
                and self.rows_released == self.rows_input and self.classes > 0
                and not (self.strict and self.suspects))

    @property
    def suspect_strings(self) -> list[tuple[str, str, int, int, int]]:
        """Each suspect once: kind, suspect, original_persons, how many persons' released texts
        show it and how often; the rarest in the original texts first, then the most shown."""
        shown: dict[tuple[str, str, int], list[int]] = {}
        for kind, suspect, original, _, occurrences, *_ in self.suspects:
            counts = shown.setdefault((kind, suspect, original), [0, 0])
            counts[0] += 1
            counts[1] += occurrences
        return sorted(((kind, suspect, original, persons, n) for (kind, suspect, original), (persons, n) in shown.items()),
                      key=lambda r: (r[2], -r[4], r[1]))

    @property
    def suspect_persons(self) -> int:
        return len({r[3] for r in self.suspects})


def stored_config(con: duckdb.DuckDBPyConnection, schema: str) -> Config:
    """The configuration of the run that wrote the release (from rx.runs)."""
    import json
    row = con.execute(f"SELECT config FROM {table('runs', schema).sql('duckdb')} ORDER BY run_id DESC LIMIT 1").fetchall()[0]
    data = json.loads(row[0])
    for a in data["attributes"]:
        # (a hierarchy is stored as its file and digest, without its rows: config.as_json)
        if a.get("hierarchy"):
            a["hierarchy"] = Hierarchy(a["hierarchy"]["path"], a["hierarchy"]["delimiter"], a["hierarchy"]["sha256"])
    for key in ("attributes", "sensitive"):
        data[key] = tuple(Attribute(**{k: tuple(v) if isinstance(v, list) else v for k, v in a.items()})
                          for a in data.get(key, ()))
    return Config.from_settings({k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


def _long_form(source: exp.Table, columns: list[str], key: str, value: str, name: str | None = None) -> exp.Expression:
    """`source`'s columns one value a row: `key`, with `name` the column's name, and the value
    as VARCHAR (no row when there is no column)."""
    def select(c: str | None) -> exp.Select:
        named = [exp.alias_(lit(c) if c else exp.cast(exp.null(), "VARCHAR"), name)] if name else []
        return exp.select(col(key), *named, exp.alias_(exp.cast(col(c) if c else exp.null(), "VARCHAR"), value)) \
            .from_(source.copy())
    return union_all([select(c) for c in columns]) if columns else select(None).where(exp.false())


def audit_patterns() -> dict[str, str]:
    """The regular expressions residual.sql takes as parameters."""
    # The same word characters as TOKEN: a capitalised sequence starts after none of them, so
    # that it never starts inside a word.
    word = TOKEN.removesuffix("+")
    assert word.startswith("[") and word.endswith("]"), TOKEN
    return {"token": TOKEN, "bracketed_token": rf"\[?{TOKEN}\]?", "inside": CAPITALISED_INSIDE,
            # (TOKEN's characters and the space: residual.sql splits the runs at the spaces)
            "token_run": rf"[{word[1:-1]} ]+",
            "capitalised": CAPITALISED, "sequence": rf"(?:^|[^{word[1:-1]}])({CAPITALISED_SEQUENCE})"}


def residual_suspects(con: duckdb.DuckDBPyConnection, cfg: Config, schema: str, k: int) -> tuple[list[tuple], float]:
    """The residual audit (sql/residual.sql): one row per suspect and person showing it (see
    Verdict.suspects), and the seconds it took."""
    released = column_names(con, table("release", schema))
    lang = getattr(cfg, "language", None) or pipeline_language(cfg.pipeline)
    zipf = getattr(cfg, "rare_zipf", DEFAULT_ZIPF)
    # (the guard's dictionary, read from wordfreq as the guard reads it, not from the run's tables)
    dictionary_zipf = cfg.guard_zipf
    params = {**audit_patterns(), "k": k}
    # The original texts from the dataset itself (rx.texts is the pipeline's copy of them).
    originals = _long_form(table("dataset", schema), list(cfg.text_columns), "person", "text")
    others = _long_form(table("audit", schema), [c for c in released if c not in cfg.text_columns], "row_id", "value")
    # Each person's class as the k-anonymity check reads it (one, should the check find two).
    members = exp.Subquery(this=class_members_query(cfg), alias=exp.TableAlias(this=ident("m")))
    classes = exp.select(col("person"), exp.alias_(exp.func("min", exp.func("hash", col("key"), col("kept_terms"))),
                                                    "class_id")).from_(members).group_by(col("person"))
    start = time.perf_counter()
    con.execute(f"ATTACH IF NOT EXISTS ':memory:' AS {ident(AUDIT_CATALOG).sql('duckdb')} (READ_WRITE)")
    try:
        register_vocabulary(con, AUDIT_CATALOG, lang, zipf, dictionary_zipf, audit=True)
        for name, query in (("residual_originals", originals), ("residual_row_values", others),
                            ("residual_classes", classes)):
            run(con, exp.Create(this=exp.table_(ident(name)), kind="VIEW", replace=True, expression=query,
                                properties=exp.Properties(expressions=[exp.TemporaryProperty()])))
        # (the bar of a word of the corpus's own, from the persons who have an original text)
        persons = run(con, exp.select(exp.Count(this=exp.Distinct(expressions=[col("person")])))
                      .from_(exp.table_(ident("residual_originals")))
                      .where(exp.Not(this=exp.Is(this=col("text"), expression=exp.null())))).fetchall()[0][0]
        rows = run_file(con, "residual", schema, cached=False, widely=widely_written(persons, k), **params).fetchall()
    finally:
        drop_temporary(con, *_AUDIT_TABLES)
        con.execute(f"DETACH DATABASE IF EXISTS {ident(AUDIT_CATALOG).sql('duckdb')}")
    return rows, time.perf_counter() - start


def _unrebuilt(con: duckdb.DuckDBPyConnection, cfg: Config, schema: str) -> tuple[int, object]:
    """How many row_ids have rows that rx.audit and its rebuild from rx.dataset (release.audit_rows
    over texts rebuilt with rx.replacements) do not share, and the least of them."""
    try:
        rebuild_texts(con, cfg, _long_form(table("dataset", schema), list(cfg.text_columns), "row_id", "text",
                                           "attribute"), cached=False)
        source_columns = column_names(con, table("dataset", schema))
        columns = audit_columns(cfg, source_columns)
        rebuilt = exp.Subquery(this=audit_rows(cfg, source_columns), alias=exp.TableAlias(this=ident("b")))
        audit = table("audit", schema)
        # (as for the release below: equal hash sums, equal rows; compared row by row only when not)
        if hash_sum(con, rebuilt, columns) == hash_sum(con, audit, columns):
            return 0, None
        picked = [col(c) for c in columns]
        # (each difference a subquery of its own: set operations chain from the left)
        one_way = lambda a, b: exp.select(col("row_id")).from_(exp.Subquery(this=exp.except_(
            exp.select(*picked).from_(a.copy()), exp.select(*picked).from_(b.copy()), distinct=False),
            alias=exp.TableAlias(this=ident("e"))))
        differing = exp.union(one_way(rebuilt, audit), one_way(audit, rebuilt), distinct=False)
        return tuple(run(con, exp.select(exp.Count(this=exp.Distinct(expressions=[col("row_id")])),
                                         exp.func("min", col("row_id"))).from_(
            exp.Subquery(this=differing, alias=exp.TableAlias(this=ident("d"))))).fetchall()[0])
    finally:
        drop_temporary(con, "rebuilt_texts", "text_edits", "original_texts")


def verify(con: duckdb.DuckDBPyConnection, schema: str = "rx", k: int | None = None, strict: bool = False,
           residual: bool = True) -> Verdict:
    """The verdict on the release in `schema`; with `strict`, a residual suspect fails it too.
    Without `residual`, the residual audit is left out (it writes to a database of its own,
    which the run's transaction cannot). A k below 2 is a ConfigError, as in the configuration."""
    cfg = stored_config(con, schema)
    if k is not None:
        cfg = cfg.with_overrides(k=k)
    register_find_texts(con)
    register_cut(con)           # (rebuild_texts.sql cuts long texts with it)
    k = cfg.k
    v = Verdict(k=k, strict=strict)
    v.unrebuilt_rows, v.unrebuilt_example = _unrebuilt(con, cfg, schema)
    rows = run(con, classes_query(cfg)).fetchall()
    v.classes = len(rows)
    v.smallest = min((r[2] for r in rows), default=0)
    v.failing = [r for r in rows if r[2] < k or r[3] != r[2]]
    v.l, v.t = cfg.l, cfg.t
    v.undiverse = failing_classes(con, cfg)
    run_file(con, "shown_terms", schema, cached=False)
    v.leaks = run_file(con, "leaks", schema, cached=False, batches=search_batches(con, cfg),
                      batch_table="leak_batches").fetchall()
    # No direct identifier value anywhere in the public release, in any column.
    register_identifier_search(con, schema)
    release = table("release", schema).sql("duckdb")
    names = column_names(con, table("release", schema))
    # A released number or date of a quasi-identifier (a value or a range's bound) is the
    # column's own, shared by every person of its class: equal to the digits of some row's
    # address ("1053" of a postcode) it names no one (docs/privacy.md, "Where two rules meet").
    numbers = {a.name for a in cfg.attributes if a.type in ("numeric", "date")}
    for column in names:
        cell = exp.cast(col(column), "VARCHAR").sql("duckdb")
        worded = r"WHERE regexp_matches(found.hit.needle, '\pL') " if column in numbers else ""
        # A column other than a text holds few distinct values: each is searched once and counts
        # for its rows (on the blog corpus shape, five such columns took 2 s row by row).
        cells = (f"SELECT {cell} AS value, 1 AS n FROM {release}" if column in cfg.text_columns else
                 f"SELECT {cell} AS value, count(*) AS n FROM {release} GROUP BY ALL")
        # (the matches in a subquery of their own: a released column may have any name, "m" too)
        v.identifiers += execute(
            con, f"SELECT ? AS column_name, found.hit.needle, sum(found.n) "
            f"FROM (SELECT unnest(rx_find_identifiers(c.value)) AS hit, c.n FROM ({cells}) AS c) AS found {worded}"
            f"GROUP BY found.hit.needle ORDER BY found.hit.needle",
            [column], f"identifier search of {column}").fetchall()
    # The values too short to search in every text, in their own person's released texts
    # (found by the leak check's search).
    (sql, _), = statements("identifier_leaks", schema, cached=False)
    v.identifiers += execute(con, sql, label="identifier_leaks.sql #1").fetchall()
    drop_temporary(con, "leak_hits", "leak_batches", "shown_terms")
    # The public release is the audit without its keys, row for row. Equal rows give equal hash
    # sums: the rows are only compared one by one (EXCEPT ALL, 3.6 s on the blog corpus shape,
    # against 0.5 s) where the sums differ, to count them.
    audit = table("audit", schema).sql("duckdb")
    released = hash_sum(con, table("release", schema), names)
    if released != hash_sum(con, table("audit", schema), names):
        cols = ", ".join(col(c).sql("duckdb") for c in names)
        v.mismatched_rows = con.execute(
            f"SELECT (SELECT count(*) FROM (SELECT {cols} FROM {release} EXCEPT ALL SELECT {cols} FROM {audit})) + "
            f"(SELECT count(*) FROM (SELECT {cols} FROM {audit} EXCEPT ALL SELECT {cols} FROM {release}))").fetchall()[0][0]
    v.rows_released = released[0]
    v.rows_input = con.execute(f"SELECT count(*) FROM {table('dataset', schema).sql('duckdb')}").fetchall()[0][0]
    if residual:
        audit_residual(con, v, schema, cfg)
    else:
        v.advice = advise(con, cfg, v)
    return v


def audit_residual(con: duckdb.DuckDBPyConnection, v: Verdict, schema: str = "rx", cfg: Config | None = None) -> None:
    """Add the residual audit to a verdict made without it (verify(..., residual=False))."""
    cfg = cfg or stored_config(con, schema)
    v.suspects, v.residual_seconds = residual_suspects(con, cfg, schema, v.k)
    v.audited = True
    v.advice = advise(con, cfg, v)
