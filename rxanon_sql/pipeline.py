"""Orchestration of one anonymization run.

NER fills its cache first, committing as it goes. Everything else happens in one transaction:
either the whole new `rx` schema is committed, or (on an error or a kill) the previous release
stays as it was. A release that fails verify's check is rolled back as well. The user's own
tables are only read.
"""
from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

import duckdb

from . import stages
from .version import __version__
from .config import Config
from .diversity import check_source
from .join import InputError, build_dataset, build_values, check_persons, resolve, unreleased
from .hierarchy import check_leaves, write_hierarchies
from .label_check import check_labels
from .linking import link
from .common_words import prefetch_vocabulary
from .measures import measure
from .partition import partition
from .persons import build_persons
from .recognize import (build_terms, build_texts, check_rules, fill_cache, fingerprint, pending_texts,
                        register_find_texts, search_batches)
from .recoding import recode
from .release import release
from .repair import repair
from .reuse import record, reusable, source_fingerprint
from .sqlrun import OWNED, create_schema, mark_owned, run_file, schema_objects, table
from .udf import forget_rolled_back, register_cut, register_find, system_allocator
from .verify import ReleaseRejected, Verdict, verify
from .faults import fault_point
from .months import month_names, weekday_names
from .numbers import number_words


@dataclass
class RunReport:
    timings: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    # join, terms, linking and persons were kept from the run before (reuse.py)
    reused: bool = False
    # the release's check before the commit (verify.verify without the residual audit)
    verdict: Verdict | None = None
    # columns of the source left out of the release, by why (join.unreleased)
    dropped: dict[str, list[str]] = field(default_factory=dict)
    # apply's progress callback, told of each stage as it starts
    progress: Callable | None = field(default=None, repr=False, compare=False)

    @contextmanager
    def stage(self, name: str):
        if name not in stages.NAMES:    # (a timing no doc explains: add the stage to stages.STAGES)
            raise ValueError(f"no stage {name!r} in stages.STAGES")
        if self.progress is not None:
            self.progress(name, 0, None)
        start = time.perf_counter()
        fault_point(name)
        yield
        self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - start


def connect(path: str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(path, read_only=read_only)


def _write_parameters(con: duckdb.DuckDBPyConnection, cfg: Config, fp: str) -> None:
    s = cfg.schema
    run_file(con, "parameters", s)

    def insert(name: str, rows: list[tuple]) -> None:
        # (one statement of many rows: executemany runs one statement per row)
        if rows:
            marks = "(" + ", ".join("?" * len(rows[0])) + ")"
            con.execute(f"INSERT INTO {table(name, s).sql('duckdb')} VALUES {', '.join([marks] * len(rows))}",
                        [v for row in rows for v in row])

    insert("params", [(cfg.k, cfg.lam, cfg.strategy, cfg.nominal_order, cfg.operator, cfg.w_a, cfg.w_x, fp)])
    insert("attributes", [(a.name, a.type, i, a.bias, a.match_values, a.hierarchy is not None)
                          for i, a in enumerate(cfg.attributes)])
    write_hierarchies(con, cfg)
    insert("emap", [(a.name, label) for a in cfg.attributes for label in a.emap])
    insert("labels", [(label, cfg.label_bias.get(label, 0.0)) for label in cfg.sensitive_labels])
    # The placeholder for missing values sorts before every configured ordinal value.
    insert("ordinal_order", [(a.name, v, float(i)) for a in cfg.attributes if a.type == "ordinal"
                             for i, v in enumerate(("(missing)", *a.order))])
    insert("month_names", month_names())
    insert("weekday_names", weekday_names())
    insert("number_words", number_words())


def _installed(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


# rx.runs as this version writes it: the columns of its first version, then those later versions
# added (a runs table of an earlier one gets them on its next run).
RUNS_COLUMNS = (("run_id", "INTEGER"), ("started_at", "TIMESTAMP"), ("finished_at", "TIMESTAMP"), ("k", "INTEGER"),
                ("lam", "DOUBLE"), ("strategy", "VARCHAR"), ("operator", "VARCHAR"), ("rows", "BIGINT"),
                ("persons", "BIGINT"), ("partitions", "BIGINT"), ("texts_recognized", "BIGINT"), ("levels", "INTEGER"),
                ("versions", "JSON"), ("timings", "JSON"), ("config", "JSON"))
RUNS_COLUMNS_ADDED = (("reused", "BOOLEAN"), ("ncp_a", "DOUBLE"), ("ncp_x", "DOUBLE"), ("ncp", "DOUBLE"))


def _record_run(con, cfg: Config, report: RunReport, started: dt.datetime) -> None:
    s = cfg.schema
    con.execute(f"CREATE TABLE IF NOT EXISTS {table('runs', s).sql('duckdb')} "
                f"({', '.join(f'{c} {kind}' for c, kind in RUNS_COLUMNS)})")
    for column, kind in RUNS_COLUMNS_ADDED:
        con.execute(f"ALTER TABLE {table('runs', s).sql('duckdb')} ADD COLUMN IF NOT EXISTS {column} {kind}")
    # (each run's NCP beside its k and lambda: rx.ncp holds the last run's only)
    ncp = con.execute(f"SELECT ncp_a, ncp_x, ncp FROM {table('ncp', s).sql('duckdb')}").fetchall()[0]
    # (the installed version, without importing spaCy: a run on a filled NER cache loads no spaCy)
    versions = {"rxanon_sql": __version__, "duckdb": duckdb.__version__, "spacy": _installed("spacy"),
                "pipeline": cfg.pipeline}
    rid = con.execute(f"SELECT coalesce(max(run_id), 0) + 1 FROM {table('runs', s).sql('duckdb')}").fetchall()[0][0]
    con.execute(f"INSERT INTO {table('runs', s).sql('duckdb')} (run_id, started_at, finished_at, k, lam, strategy, "
                "operator, rows, persons, partitions, texts_recognized, levels, versions, timings, config, reused, "
                "ncp_a, ncp_x, ncp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
        rid, started, dt.datetime.now(), cfg.k, cfg.lam, cfg.strategy, cfg.operator,
        report.counts.get("rows"), report.counts.get("persons"), report.counts.get("partitions"),
        report.counts.get("texts_recognized"), report.counts.get("levels"),
        json.dumps(versions), json.dumps({k: round(v, 4) for k, v in report.timings.items()}), cfg.as_json(),
        report.reused, *ncp])


def check_schema_is_ours(con: duckdb.DuckDBPyConnection, schema: str) -> None:
    """Runs write only into a schema rxanon-sql owns: one that is empty or missing, or whose every
    table and view its marker (sqlrun.OWNED) lists. Only the marker tells, never a table's
    columns: a user's copy of a run log (main.runs beside main.dataset) has the very columns of
    rx.runs."""
    names = schema_objects(con, schema)
    listed = set()
    if OWNED in names:
        listed = {r[0] for r in con.execute(f"SELECT table_name FROM {table(OWNED, schema).sql('duckdb')}").fetchall()}
    foreign = names - listed
    if foreign:
        raise InputError(f"schema {schema!r} holds tables rxanon-sql did not write ({sorted(foreign)[:5]}), which a "
                         "run would replace; choose another anonymization.schema (--schema)")


def _build_source(con: duckdb.DuckDBPyConnection, cfg: Config, types: dict[str, str], fingerprint: str) -> None:
    """The schema, the parameters, rx.dataset and rx.qi_values: where every input error shows."""
    create_schema(con, cfg.schema)
    _write_parameters(con, cfg, fingerprint)
    build_dataset(con, cfg, types)
    build_values(con, cfg, types)
    check_leaves(con, cfg)
    check_source(con, cfg)


def apply(con: duckdb.DuckDBPyConnection, cfg: Config, progress=None, reuse: bool = True) -> RunReport:
    """Anonymize the configured source into schema cfg.schema; returns timings and counts. With
    `reuse`, a run whose source and configuration differ from the last one's only in parameters
    of partitioning, recoding and measures (the settings declared `retune`) keeps that run's join, terms, linking
    and persons.

    `progress(task, done, total)`, if given, is called as the run goes: with each stage's name
    (stages.STAGES, the keys of RunReport.timings) as it starts, done 0 and total None; and for
    the counted tasks (stages.COUNTED: NER and the corpus-wide term search), with the texts
    done so far of total."""
    with system_allocator():
        return _apply(con, cfg, progress, reuse)


def _task(progress, task: str):
    """apply's progress callback for one counted task, as fill_cache and build_terms take it."""
    if task not in stages.COUNTED:
        raise ValueError(f"no counted task {task!r} in stages.COUNTED")
    return None if progress is None else lambda done, total: progress(task, done, total)


def _apply(con: duckdb.DuckDBPyConnection, cfg: Config, progress, reuse: bool) -> RunReport:
    report = RunReport(progress=progress)
    started = dt.datetime.now()
    register_find(con)
    register_cut(con)
    register_find_texts(con)    # (the sweep's search of glued surfaces, also on a retuning run)
    with report.stage("validate"):
        check_schema_is_ours(con, cfg.schema)
        check_rules(cfg)
        cfg, types = resolve(con, cfg)
        report.dropped = unreleased(cfg, types)
        if cfg.text_columns:
            check_labels(cfg)
        # Everything that can be wrong with the data is found before NER commits anything, so
        # that bad input leaves the database as it was: a first pass builds the dataset and the
        # values in a transaction that is rolled back. With every text in the NER cache nothing
        # is committed before the run's own transaction, which rolls back on bad input just as
        # well, so the pass, which builds the dataset and its values once more, is skipped.
        try:
            pending = pending_texts(con, cfg)
        except duckdb.Error:
            pending = None      # the pass below names what is wrong
        if pending != 0:
            con.execute("BEGIN TRANSACTION")
            try:
                _build_source(con, cfg, types, fingerprint="")
            except BaseException:
                con.execute("ROLLBACK")
                con.execute("DROP TABLE IF EXISTS ner_todo")
                raise
            con.execute("ROLLBACK")
    with report.stage("ner"):
        report.counts["texts_recognized"] = fill_cache(con, cfg, _task(progress, "ner"), pending)
    s = cfg.schema
    con.execute("BEGIN TRANSACTION")
    try:
        with report.stage("join"):
            recognizer = fingerprint(cfg)
            source = source_fingerprint(con, cfg, types, recognizer)
            report.reused = reuse and reusable(con, cfg, source)
            if report.reused:
                _write_parameters(con, cfg, recognizer)
                # (the hierarchies are no part of the fingerprint: a changed one is checked here)
                check_leaves(con, cfg)
                check_persons(cfg, con.execute(f"SELECT count(*) FROM {table('person_ids', s).sql('duckdb')}")
                              .fetchall()[0][0])
            else:
                if cfg.text_columns:
                    prefetch_vocabulary(cfg.lang, cfg.rare_zipf, cfg.guard_zipf)
                _build_source(con, cfg, types, recognizer)
                run_file(con, "ner_cache", s)
                build_texts(con, cfg)
                batches = search_batches(con, cfg)
        if not report.reused:
            with report.stage("terms"):
                build_terms(con, cfg, types, batches, _task(progress, "search"))
            with report.stage("linking"):
                link(con, cfg)
            with report.stage("persons"):
                build_persons(con, cfg)
                record(con, cfg, source)
        with report.stage("partitioning"):
            report.counts["levels"] = partition(con, cfg)
        with report.stage("recoding_release"):
            recode(con, cfg)
            release(con, cfg)
        with report.stage("measures"):
            measure(con, cfg)
        for name, q in (("rows", "dataset"), ("persons", "person_ids"), ("partitions", "partition_sizes")):
            report.counts[name] = con.execute(f"SELECT count(*) FROM {table(q, s).sql('duckdb')}").fetchall()[0][0]
        _record_run(con, cfg, report, started)
        # The check that `verify` makes, on the release before it is committed: one that fails
        # it is never published, and the previous release stays.
        with report.stage("check"):
            report.verdict = verify(con, s, residual=False)
            if not report.verdict.ok:
                report.verdict, report.counts["repairs"] = repair(con, cfg, report.verdict)
        if not report.verdict.ok:
            raise ReleaseRejected(report.verdict, s)
        mark_owned(con, s)
        fault_point("commit")
        con.execute("COMMIT")
    except BaseException:
        try:
            con.execute("ROLLBACK")
        except duckdb.TransactionException:
            pass        # (a COMMIT that failed ended the transaction itself: its error is the one raised)
        forget_rolled_back(con)
        raise
    return report
