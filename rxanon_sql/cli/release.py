"""The commands that make or read a release: demo, apply, sweep, report, verify, export."""
from __future__ import annotations

import functools
import sys
from pathlib import Path

import click
import duckdb

from .. import console
from ..config import load_config, parse_config
from ..engines.duckdb import default_memory_limit, readable, writable
from .common import (engine_options, external_access_option, fail, main, open_connection, open_database,
                     OperatorChoice, report_check_and_exit, run_apply, verify_and_exit)

# Imports inside functions, module-wide, for start-up time: each command imports what it runs.


@main.command()
@click.option("--db", default="demo.duckdb", show_default=True, help="DuckDB file to write the example into.")
@click.option("--k", type=int, default=2, show_default=True, help="Each person indistinguishable from k-1 others.")
@click.option("--lambda", "lam", type=float, default=0.5, show_default=True,
              help="Partitioning's preference: 1 for cuts on the relational attributes, 0 for cuts on the "
                   "text's terms.")
@click.option("--strategy", type=click.Choice(["mondrian", "gdf"]), default="mondrian", show_default=True,
              help="Partitioning: mondrian, or gdf (cuts on the most frequent allowable term).")
@click.option("--operator", type=OperatorChoice(), default="label", show_default=True,
              help="What replaces a term that cannot be kept (see README, Text operators).")
@click.option("--lang", type=click.Choice(["en", "fr"]), default="en", show_default=True,
              help="en: the paper's example; fr: eight patients' consultation notes in French (needs the French "
                   "pipeline: pip install \"rxanon-sql[fr]\").")
def demo(db: str, k: int, lam: float, strategy: str, operator: str, lang: str) -> None:
    """Anonymize a small example and print its release.

    Writes the rx-anon paper's running example (its Table 1), or with --lang fr a French one, into
    DB as two relations, anonymizes it and prints the release and its NCP."""
    import tomllib
    from .. import demo as english, demo_fr as french
    from ..pipeline import check_schema_is_ours
    example = french if lang == "fr" else english
    cfg = parse_config(tomllib.loads(example.CONFIG)).with_overrides(k=k, lam=lam, strategy=strategy, operator=operator)
    con = open_database(db)
    # (before the demo's tables are written, which the run's own check comes after)
    check_schema_is_ours(con, cfg.schema)
    example.write_demo_database(con)
    report = run_apply(con, cfg, quiet=True)
    title = "French consultation notes" if lang == "fr" else "The running example of the rx-anon paper"
    click.echo(f"{title}, anonymized with k={k}, lambda={lam}, {strategy} (database {db}, schema rx):\n")
    console.print_release(con, cfg.schema)
    click.echo("")
    console.print_measures(con, cfg.schema)
    report_check_and_exit(con, cfg.schema, report.verdict)


@main.command(name="apply")
@click.argument("db")
@click.option("--config", "config_path", required=True, help="TOML configuration.")
@click.option("--k", type=int, help="Override anonymization.k.")
@click.option("--lambda", "lam", type=float, help="Override anonymization.lambda.")
@click.option("--l", "l_", type=int, help="Override anonymization.l (distinct l-diversity).")
@click.option("--t", "t_", type=float, help="Override anonymization.t (t-closeness).")
@click.option("--strategy", type=click.Choice(["mondrian", "gdf"]), help="Override anonymization.strategy.")
@click.option("--schema", help="Override anonymization.schema (where rx.* is written).")
@click.option("--workers", type=int, help="Override text.workers (NER processes).")
@click.option("--operator", type=OperatorChoice(), help="Override anonymization.operator (labels "
              "listed in [text.operators] keep theirs).")
@click.option("--memory-limit", help="DuckDB's memory_limit for the run, e.g. 1GB; beyond it DuckDB spills to disk. "
              "Default: 6 times the bytes of text, at least 300MB, at most half the RAM.")
@click.option("--rebuild", is_flag=True, help="Build every stage, even where only k, lambda or another parameter "
              "of partitioning, recoding and measures changed since the last run.")
@click.option("--quiet", is_flag=True, help="Show no progress (shown only when standard error is a terminal).")
@external_access_option
@engine_options
def apply_cmd(db: str, config_path: str, k, lam, l_, t_, strategy, schema, workers, operator, memory_limit, rebuild,
              quiet, allow_external_access, engine, spark_master, inputs) -> None:
    """Anonymize the relations of DB as configured.

    Writes the release, its audit and its measures into schema rx (anonymization.schema)."""
    cfg = load_config(config_path).with_overrides(k=k, lam=lam, l=l_, t=t_, strategy=strategy, schema=schema,
                                                  workers=workers, operator=operator)
    if memory_limit is None:
        memory_limit = functools.partial(default_memory_limit, cfg=cfg)
    con = open_connection(db, engine, spark_master, inputs, confined=not allow_external_access, memory_limit=memory_limit,
                          relations=cfg.relations)
    with readable(db):
        report = run_apply(con, cfg, quiet=quiet, reuse=not rebuild)
    console.print_run(report)
    console.print_measures(con, cfg.schema)
    console.print_utility(con, cfg.schema)
    console.print_timings(report)
    with readable(db):
        report_check_and_exit(con, cfg.schema, report.verdict)


@main.command(name="sweep")
@click.argument("db")
@click.option("--config", "config_path", required=True, help="TOML configuration.")
@click.option("--k", "ks", default="2,3,5,10", show_default=True, help="The values of k, separated by commas.")
@click.option("--lambda", "lams", default="0:1:0.1", show_default=True,
              help="The values of lambda: separated by commas, or START:STOP:STEP (STOP included).")
@click.option("--gdf", is_flag=True, help="Also run the GDF strategy once for each k (it reads no lambda).")
@click.option("--schema", help="Override anonymization.schema (where rx.* is written).")
@click.option("--workers", type=int, help="Override text.workers (NER processes).")
@click.option("--quiet", is_flag=True, help="Show no progress (shown only when standard error is a terminal).")
@external_access_option
def sweep_cmd(db: str, config_path: str, ks: str, lams: str, gdf: bool, schema, workers, quiet,
              allow_external_access) -> None:
    """Anonymize DB for each k and lambda of a grid, into rx.sweep.

    Each run is an `apply` (the first runs NER; a run that changes only lambda or the strategy
    starts at partitioning) and adds one row to rx.sweep: partitions, splits, NCP, risk and time.
    Afterwards schema rx holds the release of the last setting. `rxanon-sql report` plots them."""
    from ..grid import grid, parse_ks, parse_lambdas, sweep, sweep_rows
    cfg = load_config(config_path).with_overrides(schema=schema, workers=workers)
    settings = grid(cfg, parse_ks(ks), parse_lambdas(lams), gdf)
    con = open_database(db, confined=not allow_external_access, relations=cfg.relations)
    bar = None if quiet or not sys.stderr.isatty() else console.SweepBar(sys.stderr, len(settings))
    with readable(db):
        try:
            result = sweep(con, settings, bar)
        finally:
            if bar is not None:
                bar.close()
    rows = sweep_rows(con, cfg.schema, result.sweep_id)
    con.close()
    console.print_sweep(rows, result, cfg.schema)
    if result.rejected:
        click.echo(f"rxanon-sql: error: {len(result.rejected)} releases failed their check and were rolled back "
                   f"(ok = false), e.g. k = {result.rejected[0].k}, lambda = {result.rejected[0].lam}, "
                   f"{result.rejected[0].strategy}; `rxanon-sql apply` with that setting lists why", err=True)
        sys.exit(1)


@main.command(name="report")
@click.argument("db")
@click.option("-o", "--out", required=True, help="HTML file to write (self-contained: plots embedded).")
@click.option("--schema", default="rx", show_default=True, help="The schema apply and sweep wrote into.")
@click.option("--png-dir", type=click.Path(file_okay=False, exists=True),
              help="Also write each plot as NAME.png into this directory.")
def report_cmd(db: str, out: str, schema: str, png_dir) -> None:
    """Write an HTML report on the last sweep and the release in DB.

    Plots and tables of the sweep (split shares, partitions, NCP against k per lambda, NCP per
    entity label, the recommended lambda for each k), the class sizes and the re-identification
    risk of the release; without a sweep, the last run alone."""
    from ..report import collect, render
    writable(out, "--out")
    con = open_database(db, read_only=True, confined=True)
    with readable(db):
        try:
            report = collect(con, schema)
        except duckdb.CatalogException:
            fail(f"database {db!r} has no release in schema {schema!r}; run `rxanon-sql apply` or `rxanon-sql "
                  "sweep` first")
        page = render(report, db, png_dir)
    con.close()
    Path(out).write_text(page, encoding="utf-8")
    click.echo(f"wrote {out}: " + (f"sweep {report.sweep_id}" if report.sweep_id else "the last run (no sweep)")
               + f", {len(report.figures)} plots, {len(report.tables)} tables")


@main.command(name="verify")
@click.argument("db")
@click.option("--schema", default="rx", show_default=True, help="The schema apply wrote the release into.")
@click.option("--k", type=int, help="Check against this k instead of the run's.")
@click.option("--strict", is_flag=True, help="Fail also when the residual audit finds suspects: tokens or "
              "capitalised sequences of the released texts that can name someone and that the original texts of "
              "fewer than k persons of the corpus or of the person's class hold.")
@engine_options
def verify_cmd(db: str, schema: str, k, strict: bool, engine, spark_master, inputs) -> None:
    """Check that the release in DB is k-anonymous and leaks no term.

    Exits 0 when every equivalence class holds k persons and no suppressed term is left in the
    released texts; else lists what fails and exits 1."""
    con = open_connection(db, engine, spark_master, inputs, read_only=True)
    try:
        with readable(db):
            verify_and_exit(con, schema, k, strict)
    except duckdb.CatalogException:
        fail(f"database {db!r} has no release in schema {schema!r}; run `rxanon-sql apply` first")


@main.command()
@click.argument("db")
@click.argument("out")
@click.option("--schema", default="rx", show_default=True, help="The schema apply wrote the release into.")
@click.option("--allow-unverified", is_flag=True, help="Write the release even when it fails verify's check "
              "(or without checking it).")
@click.option("--force", is_flag=True, help="Replace OUT if it exists (never the database itself).")
@engine_options
def export(db: str, out: str, schema: str, allow_unverified: bool, force: bool, engine, spark_master, inputs) -> None:
    """Write the verified release to a .parquet or .csv file.

    Writes only rx.release to OUT, and only if it passes verify's check (without the residual
    audit, which never fails a plain verdict). An existing OUT is kept unless --force."""
    from ..export import check_target, write_release
    from ..release import release_relation
    from ..verify import verify
    suffix = Path(out).suffix.lower()
    if suffix not in (".parquet", ".csv"):
        fail(f"export file {out!r} must end in .parquet or .csv")
    check_target(out, db, force)
    con = open_connection(db, engine, spark_master, inputs, read_only=True)
    with readable(db):
        try:
            # (checked here and now rather than read from a recorded verdict: the release may have
            # been changed since, or written by a version that published failing releases)
            v = None if allow_unverified else verify(con, schema, residual=False)
            rel = release_relation(con, schema)
        except duckdb.CatalogException:
            fail(f"database {db!r} has no release in schema {schema!r}; run `rxanon-sql apply` first")
    if v is not None and not v.ok:
        console.report_verdict(v)
        click.echo(f"rxanon-sql: error: the release in schema {schema!r} fails verify's check; nothing written "
                   "(--allow-unverified writes it anyway)", err=True)
        sys.exit(1)
    with readable(db):
        write_release(rel, out, suffix == ".parquet")
    click.echo(f"wrote {rel.shape[0]} rows of {schema}.release to {out}" + (" (not verified)" if v is None else ""))
