"""The ner and terms stages (stages.py): sensitive terms in the text columns.

NER runs once per distinct text and recognizer configuration: texts are keyed by md5 in
`rx.ner_cache`, so a rerun with another k, lambda or strategy loads no spaCy pipeline at all.
The cache is filled in chunks, each committed on its own, so a run killed during NER keeps what
it recognized. The terms of this run (the temporary table `terms_found`) are then read from the cache in SQL.
"""
from __future__ import annotations

import dataclasses
import importlib.metadata
import json
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import sqlglot
from sqlglot import exp

from .errors import ConfigError
from .join import source_query
from .sqlrun import col, create_schema, drop_base_table, ident, lit, mark_owned, run, run_file, table, union_all
from .faults import fault_point
from .common_words import (CAPITALISED, CAPITALISED_INSIDE, CAPITALISED_SEQUENCE, SEQUENCE_GAP, TOKEN,
                           register_vocabulary, widely_written)
from .identifiers import build_identifier_values, mark_identifiers
from .udf import counted, register_ner, replace_function
from udfs.mojibake import repaired_arrow
from udfs.rules import RuleRecognizer
from udfs.corpus import CORPUS_MATCH_SQL_TYPE, RESOLVE_CLUSTERS_SQL_TYPE, RESOLVE_ITEMS_SQL_TYPE, CorpusSearcher, resolve_arrow, key_arrow, written_as_name
from udfs.find import (ITEMS_SQL_TYPE, OWN_ITEMS_SQL_TYPE, OWN_MATCH_SQL_TYPE, TEXT_MATCH_SQL_TYPE, find_texts_arrow,
                         find_texts_own)

if TYPE_CHECKING:
    from .config import Config

CHUNK = 20_000


def pipeline_version(name: str) -> str:
    """The installed version of a spaCy pipeline package or folder, without loading it."""
    meta = Path(name) / "meta.json"
    if meta.is_file():
        m = json.loads(meta.read_text())
        return f"{m.get('lang')}_{m.get('name')}-{m.get('version')}"
    try:
        return f"{name}-{importlib.metadata.version(name.replace('_', '-'))}"
    except importlib.metadata.PackageNotFoundError:
        return f"{name}-unknown"


def fingerprint(cfg: Config) -> str:
    return cfg.recognizer_fingerprint(pipeline_version(cfg.pipeline))


def _texts_of(source: exp.Expression, cfg: Config, with_rows: bool) -> exp.Expression:
    selects = []
    for c in cfg.text_columns:
        cols = [col("row_id"), col("person"), exp.alias_(lit(c), "attribute")] if with_rows else []
        selects.append(exp.select(*cols, exp.alias_(col(c), "text")).from_(source)
                       .where(exp.Not(this=exp.Is(this=col(c), expression=exp.null()))))
    return union_all(selects)


def pending_texts(con: duckdb.DuckDBPyConnection, cfg: Config) -> int:
    """How many distinct texts of the source the NER cache lacks, kept in the temporary table
    `ner_todo` for fill_cache. Writes nothing to the database."""
    if not cfg.text_columns:
        return 0
    s = cfg.schema
    src = exp.Subquery(this=source_query(cfg), alias=exp.TableAlias(this=ident("src")))
    texts = exp.select(exp.alias_(exp.func("md5", col("text")), "text_hash"), col("text")).from_(
        exp.Subquery(this=_texts_of(src, cfg, with_rows=False), alias=exp.TableAlias(this=ident("t"))))
    params = None
    cache_exists = con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = 'ner_cache'",
                               [s]).fetchall()[0][0]
    if cache_exists:
        # (the cached texts are left out before the texts are made distinct: with a filled cache
        # nothing is grouped, where grouping first would hash every text)
        cached = exp.select(col("text_hash")).from_(table("ner_cache", s)).where(
            exp.EQ(this=col("fingerprint"), expression=exp.Placeholder(this="fp")))
        texts = exp.select("*").from_(exp.Subquery(this=texts, alias=exp.TableAlias(this=ident("h")))).where(
            exp.Not(this=col("text_hash").isin(query=cached)))
        params = {"fp": fingerprint(cfg)}
    distinct = exp.select(col("text_hash"), exp.alias_(exp.func("any_value", col("text")), "text")).from_(
        exp.Subquery(this=texts, alias=exp.TableAlias(this=ident("texts")))).group_by(col("text_hash"))
    todo = exp.select("*", exp.alias_(exp.Window(this=exp.RowNumber(), order=exp.Order(
        expressions=[exp.Ordered(this=col("text_hash"))])), "n")).from_(
        exp.Subquery(this=distinct, alias=exp.TableAlias(this=ident("d"))))
    run(con, exp.Create(this=exp.Table(this=ident("ner_todo")), kind="TABLE", replace=True,
                        expression=todo, properties=exp.Properties(expressions=[exp.TemporaryProperty()])), params)
    return con.execute("SELECT count(*) FROM ner_todo").fetchall()[0][0]


def fill_cache(con: duckdb.DuckDBPyConnection, cfg: Config, progress=None, pending: int | None = None) -> int:
    """Recognize the texts of the source that the cache lacks; returns how many were recognized.
    `pending`: what pending_texts returned just before, if it was called. `progress(done, total)`:
    called with the texts recognized so far after each vector of texts DuckDB hands the
    recognizer (2,048 at most), not only once per committed chunk."""
    total = pending_texts(con, cfg) if pending is None else pending
    if total:
        create_schema(con, cfg.schema)
        run_file(con, "ner_cache", cfg.schema)
        # (committed now, before the run's own transaction: the cache is rxanon-sql's from the start)
        mark_owned(con, cfg.schema)
        # (an engine that runs UDFs in its own worker processes, Spark, needs no pool of ours)
        recognizer = make_recognizer(dataclasses.replace(cfg, workers=1) if getattr(con, "udfs_in_workers", False)
                                     else cfg)
        register_ner(con, recognizer, None if progress is None else lambda done: progress(done, total))
        if progress is not None:
            # (the first vector can take a minute: the display starts its clock now)
            progress(0, total)
        try:
            _fill(con, cfg, fingerprint(cfg), total)
        finally:
            if hasattr(recognizer, "close"):
                recognizer.close()
    if cfg.text_columns:
        con.execute("DROP TABLE ner_todo")
    return total


def check_rules(cfg: Config) -> None:
    """A bad pattern or phone region is a configuration error before anything is written: the
    recognizer would raise it only once NER starts (in a worker process, with workers > 1)."""
    for key, kw in (("phone_regions", {"phone_regions": cfg.phone_regions}),
                    ("patterns", {"phone_regions": (), "patterns": cfg.patterns})):
        try:
            RuleRecognizer(**kw)
        except ValueError as e:
            raise ConfigError(f"text.{key}: {e}") from None


def make_recognizer(cfg: Config):
    """The recognizer behind `rx_ner`: in this process, or a pool of cfg.workers processes."""
    args = (cfg.pipeline, cfg.phone_regions, cfg.terms, cfg.patterns, cfg.vague_temporal_guard, cfg.batch_size)
    guards = {"allow": cfg.allow, "common_word_guard": cfg.common_word_guard, "label_map": cfg.label_map,
              "parser": cfg.parser}
    if cfg.workers > 1:
        from udfs.parallel import ParallelRecognizer  # (here for start-up time: spaCy loads with it)
        return ParallelRecognizer(cfg.workers, *args, **guards)
    from udfs.ner import TextRecognizer  # (here for start-up time: spaCy loads with it)
    return TextRecognizer(*args, **guards)


def _fill(con: duckdb.DuckDBPyConnection, cfg: Config, fp: str, total: int) -> None:
    for lo in range(0, total, CHUNK):
        con.execute("BEGIN TRANSACTION")
        run_file(con, "ner_fill", cfg.schema, fingerprint=fp, lo=lo, hi=lo + CHUNK)
        con.execute("COMMIT")
        fault_point("ner_chunk")


def build_texts(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    s = cfg.schema
    if cfg.text_columns:
        texts = _texts_of(table("dataset", s), cfg, with_rows=True)
        # text_id: one number per text, which rx_find_texts carries through a person's texts
        # (numbered in a total order: Spark numbers no unordered window)
        query = exp.select("*", exp.alias_(exp.func("md5", col("text")), "text_hash"),
                           exp.alias_(exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=[
                               exp.Ordered(this=col("row_id")), exp.Ordered(this=col("attribute"))])),
                               "text_id")).from_(
            exp.Subquery(this=texts, alias=exp.TableAlias(this=ident("t"))))
    else:
        # No text columns: an empty table of the same shape (person keeps its type).
        query = exp.select(col("row_id"), col("person"), *[exp.alias_(exp.cast(exp.null(), "VARCHAR"), n)
                                                         for n in ("attribute", "text", "text_hash")],
                            exp.alias_(exp.cast(exp.null(), "BIGINT"), "text_id")) \
            .from_(table("dataset", s)).where(exp.false())
    run(con, exp.Create(this=table("texts", s), kind="TABLE", replace=True, expression=query))


def register_find_texts(con: duckdb.DuckDBPyConnection) -> None:
    """rx_find_texts(items, needles): rx_find over a group of texts that share their needles;
    rx_written_as_name(surface): whether a found surface is written as a name, and rx_key(norm):
    the automaton's key of a norm (udfs/corpus.py), for the surfaces that count only where written
    as a name (propagate.sql, leaks.sql, sweep.sql)."""
    replace_function(con, "rx_find_texts", find_texts_arrow, [ITEMS_SQL_TYPE, "VARCHAR[]"], TEXT_MATCH_SQL_TYPE)
    replace_function(con, "rx_written_as_name", written_as_name, ["VARCHAR"], "BOOLEAN")
    replace_function(con, "rx_key", key_arrow, ["VARCHAR"], "VARCHAR")


def register_find_texts_own(con: duckdb.DuckDBPyConnection) -> None:
    """rx_find_texts_own(items, needles): rx_find_texts, each text with the needle set of its
    own that the temporary table needle_sets (set_id, needles) numbers."""
    # (set_id runs from 1 without a gap: row_number() in mention_needles.sql)
    sets = con.sql("SELECT needles FROM needle_sets ORDER BY set_id").to_arrow_table().column(0)
    replace_function(con, "rx_find_texts_own", find_texts_own(sets), [OWN_ITEMS_SQL_TYPE, "VARCHAR[]"], OWN_MATCH_SQL_TYPE)


def register_find_corpus(con: duckdb.DuckDBPyConnection, on_rows=None):
    """rx_find_corpus(text): the text searched for every needle of the temporary table
    corpus_needles (corpus_needles.sql) at once; rx_resolve(clusters, text): which of a text's clusters
    of overlapping matches stay (resolve_matches.sql). `on_rows`: as for udf.counted(). Returns a
    function that lets the searcher go once the last search has run: the UDF lives as long as the
    connection, and with it the automaton and its norms (74 MB on the blog sample), through the
    check, where the run's memory peaks; rx_find_corpus then refuses to search."""
    needles = con.sql("SELECT norm FROM corpus_needles ORDER BY norm").to_arrow_table().column(0).to_pylist()
    held = [CorpusSearcher(needles)]

    def search(texts):
        if not held:
            raise RuntimeError("rx_find_corpus called after its searcher was let go (recognize.build_terms)")
        return held[0].arrow(texts)
    replace_function(con, "rx_find_corpus", search if on_rows is None else counted(search, on_rows), ["VARCHAR"],
                     CORPUS_MATCH_SQL_TYPE)
    replace_function(con, "rx_resolve", resolve_arrow, [RESOLVE_CLUSTERS_SQL_TYPE, "VARCHAR"], RESOLVE_ITEMS_SQL_TYPE)
    return held.clear



# Text (bytes) that one batch of a search over persons' texts groups at once (run_file's batches).
# A batch holds its texts in memory while it groups them by person: smaller batches hold less
# at once, at the cost of one more run of the statement each.
SEARCH_BATCH_BYTES = 32 << 20


def search_batches(con: duckdb.DuckDBPyConnection, cfg: Config) -> int:
    """How many batches the searches over rx.texts take (run_file's batches)."""
    total = run(con, exp.select(exp.func("sum", sqlglot.parse_one("octet_length(encode(text))", read="duckdb")))
                .from_(table("texts", cfg.schema))).fetchall()[0][0] or 0
    return max(1, -(-int(total) // SEARCH_BATCH_BYTES))


def build_terms(con: duckdb.DuckDBPyConnection, cfg: Config, types: dict[str, str], batches: int,
                progress=None) -> None:
    """The run's terms (temporary table terms_found); `batches`: search_batches' count.
    `progress(done, total)`: the texts of rx.texts the corpus-wide search has gone through, after
    each vector of them."""
    register_find_texts(con)
    replace_function(con, "rx_repaired", repaired_arrow, ["VARCHAR"], "VARCHAR")
    drop_base_table(con, table("terms_found", cfg.schema))     # (a table of earlier versions)
    run_file(con, "terms", cfg.schema)
    # Direct identifiers first: a term they overlap is dropped, and propagation then tags the
    # surfaces it leaves bare ("Jo" of "Jo Ann" when "Ann Lee" is an identifier).
    register_vocabulary(con, cfg.schema, cfg.lang, cfg.rare_zipf, cfg.guard_zipf)
    build_identifier_values(con, cfg, types)
    mark_identifiers(con, cfg)
    # (the persons who have a text: the rare guard's bar of a word of the corpus's own)
    persons = run(con, exp.select(exp.Count(this=exp.Distinct(expressions=[col("person")])))
                  .from_(table("texts", cfg.schema)).where(exp.Not(this=exp.Is(this=col("text"), expression=exp.null())))
                  ).fetchall()[0][0]
    run_file(con, "corpus_needles", cfg.schema, widely=widely_written(persons, cfg.k),
             rare_guard=bool(cfg.rare_guard), allow=list(cfg.allow), token=TOKEN,
             sequence=CAPITALISED_SEQUENCE, gap=SEQUENCE_GAP, inside=CAPITALISED_INSIDE,
             capitalised=CAPITALISED)
    on_rows = None
    if progress is not None:
        total = run(con, exp.select(exp.Count(this=exp.Star())).from_(table("texts", cfg.schema))).fetchall()[0][0]
        on_rows = lambda done: progress(done, total)
        progress(0, total)
    let_go = register_find_corpus(con, on_rows)
    run_file(con, "mention_needles", cfg.schema)
    register_find_texts_own(con)
    for name in ("propagate", "resolve_matches", "propagate_terms"):
        run_file(con, name, cfg.schema, batches=batches, batch_table="person_batches")
    # (DuckDB has run every statement that reads rx_find_corpus; an engine that runs them later,
    # reading views, keeps the searcher)
    if isinstance(con, duckdb.DuckDBPyConnection):
        let_go()
