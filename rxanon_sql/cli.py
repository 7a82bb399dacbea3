"""The `rxanon-sql` command."""
from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import click
import duckdb

from . import console
from .config import Config, ConfigError, load_config, parse_config
from .errors import ReleaseRejected, RxAnonSqlError, outside_the_database
from .sqlrun import confine, table

# Imports inside functions, module-wide, for start-up time: each command imports what it runs,
# so that `--help`, `load` and `init` need not load the pipeline, the operators, Spark or spaCy,
# which take seconds.

EXIT_BAD_INPUT = 2


class _OperatorChoice(click.Choice):
    """The registered text operators, looked up when an option is parsed or shown: the registry
    imports the operators' code, which a command without --operator does not need, and an
    operator registered after this module was imported counts."""

    def __init__(self):
        super().__init__(())

    @property
    def choices(self):
        from .operators import names
        return names()

    @choices.setter
    def choices(self, _):
        pass


def _fail(message: str) -> None:
    click.echo(f"rxanon-sql: error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def _connect(db: str, read_only: bool = False, confined: bool = False,
             memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """The database, open for one command; `confined`: able to read its own tables only
    (sqlrun.confine), after `memory_limit` is set, since the configuration is then locked."""
    if read_only and not Path(db).exists():
        _fail(f"database {db!r} not found")
    if not read_only:
        _writable(db, "database")
        # DuckDB writes its journal (DB.wal) beside the file, which a read-only directory refuses
        # only at the first commit: after NER, or at the end of the run.
        try:
            tempfile.TemporaryFile(dir=Path(db).parent).close()
        except OSError as e:
            _fail(f"database {db!r}: cannot write in its directory {str(Path(db).parent)!r} ({e.strerror}), where "
                  "DuckDB keeps its journal")
    try:
        con = duckdb.connect(db, read_only=read_only)
    except duckdb.Error as e:
        _fail(f"cannot open database {db!r}: {str(e).splitlines()[0]}")
    # Closed when the command ends, error exits included, so that no file lock outlives it: not
    # at the process's exit, since a program or test may run many commands in one process.
    click.get_current_context().call_on_close(con.close)
    if memory_limit is not None:
        try:
            con.execute("SET memory_limit = ?", [memory_limit])
        except duckdb.Error as e:
            _fail(f"--memory-limit {memory_limit!r}: {str(e).splitlines()[0]}")
    if confined:
        confine(con)
    return con


def _external_access_option(command):
    return click.option(
        "--allow-external-access", is_flag=True,
        help="Let source.query and the database's views read files, URLs and DuckDB extensions outside the "
             "database (read_csv, read_text, glob, a relation named like a path). A risk: a configuration or "
             "database written by someone else could then publish any file you can read. Without it they read "
             "the database's own tables only; `rxanon-sql load` brings a file in.")(command)


def _engine_options(command):
    """--engine and the Spark engine's options, for the commands that read or write a release."""
    for option in reversed((
            click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb", show_default=True,
                         help="duckdb: DB is a DuckDB file. spark: DB is a release folder (Parquet), written by a "
                              "Spark session."),
            click.option("--spark-master", default="local[2]", show_default=True,
                         help="Spark's master: local[N], spark://host:port, or sc://host for Spark Connect."),
            click.option("--input", "inputs", multiple=True, metavar="NAME=PATH",
                         help="With --engine spark: a configured relation read from a Parquet file or folder, or "
                              "a CSV file with a header (repeat for each; Spark's own tables are found by name)."))):
        command = option(command)
    return command


def _open(db: str, engine: str, spark_master: str, inputs: tuple[str, ...], read_only: bool = False,
          confined: bool = True, memory_limit: str | None = None):
    """The connection a command runs against: a DuckDB file (confined, as _connect), or a Spark
    session on a release folder (which reads files only as --input, spark.session)."""
    if engine == "duckdb":
        if inputs:
            _fail("--input is read with --engine spark only; load a file into DuckDB with `rxanon-sql load`")
        return _connect(db, read_only, confined, memory_limit)
    try:
        from .spark import open_release
        import pyspark  # noqa: F401
    except ImportError:
        _fail("--engine spark needs pyspark: pip install 'rxanon-sql[spark]' (and Java 17)")
    pairs = {}
    for item in inputs:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            _fail(f"--input {item!r}: give NAME=PATH")
        pairs[name] = path
    if not read_only:
        _writable(db, "release folder")
    con = open_release(db, spark_master, pairs, read_only=read_only)
    click.get_current_context().call_on_close(con.close)
    return con


def _writable(path: str, what: str) -> None:
    if not Path(path).parent.is_dir():
        _fail(f"{what} {path!r}: directory {str(Path(path).parent)!r} not found")


@contextmanager
def _readable(db: str):
    """A database file that opens but is damaged (truncated, overwritten) fails on its first read
    of a damaged block, anywhere in a run: a truncated one with an IOException, a block whose
    checksum fails with a bare duckdb.Error that only its message tells apart."""
    try:
        yield
    except duckdb.Error as e:
        line = str(e).splitlines()[0]
        if not isinstance(e, duckdb.IOException) and not (type(e) is duckdb.Error
                                                           and line.startswith("Corrupt database file")):
            raise
        _fail(f"database {db!r} cannot be read (damaged or truncated?): {line}")


def _apply(con, cfg, quiet: bool = False, reuse: bool = True):
    """Run the pipeline (a release that fails its check raises ReleaseRejected: see _Commands)."""
    from .pipeline import apply
    progress = console.progress(quiet)
    try:
        return apply(con, cfg, progress, reuse=reuse)
    finally:
        # (before any message: a bar left open would share its line)
        if progress is not None:
            progress.close()


def _verify_and_exit(con, schema: str, k: int | None = None, strict: bool = False) -> None:
    """Verify the release, report the verdict, and exit 0 only when it holds."""
    from .verify import verify
    try:
        v = verify(con, schema, k, strict=strict)
    except ConfigError as e:
        if k is None:       # (not the option's fault: no "--k None")
            raise
        raise ConfigError(f"--k {k}: {e}") from None
    console.report_verdict(v)
    con.close()
    sys.exit(0 if v.ok else 1)


def _report_check_and_exit(con, schema: str, verdict) -> None:
    """Report the check that apply made before its commit, with the residual audit added."""
    from .verify import audit_residual
    audit_residual(con, verdict, schema)
    console.report_verdict(verdict)
    con.close()
    sys.exit(0 if verdict.ok else 1)


class _Commands(click.Group):
    """The one place where the library's refusals become the command's exit: an RxAnonSqlError
    is bad input, one line and exit 2; a release that fails its own check is not, and exits 1
    after its verdict."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ReleaseRejected as e:
            console.report_verdict(e.verdict)
            click.echo(f"rxanon-sql: error: {e}", err=True)
            sys.exit(1)
        except RxAnonSqlError as e:
            _fail(str(e))
        except duckdb.PermissionException as e:
            # (source.query and the relations are named where join reads them: this is a view)
            _fail(str(outside_the_database(e, "a view of the database", "drop or replace the view")))


@click.group(cls=_Commands)
@click.version_option(package_name="rxanon-sql")
def main() -> None:
    """Joint k-anonymization of relational attributes and free text inside DuckDB (rx-anon)."""


@main.command()
@click.option("--db", default="demo.duckdb", show_default=True, help="DuckDB file to write the example into.")
@click.option("--k", type=int, default=2, show_default=True, help="Each person indistinguishable from k-1 others.")
@click.option("--lambda", "lam", type=float, default=0.5, show_default=True,
              help="Partitioning's preference: 1 for cuts on the relational attributes, 0 for cuts on the "
                   "text's terms.")
@click.option("--strategy", type=click.Choice(["mondrian", "gdf"]), default="mondrian", show_default=True,
              help="Partitioning: mondrian, or gdf (cuts on the most frequent allowable term).")
@click.option("--operator", type=_OperatorChoice(), default="label", show_default=True,
              help="What replaces a term that cannot be kept (see README, Text operators).")
@click.option("--lang", type=click.Choice(["en", "fr"]), default="en", show_default=True,
              help="en: the paper's example; fr: eight patients' consultation notes in French (needs the French "
                   "pipeline: pip install \"rxanon-sql[fr]\").")
def demo(db: str, k: int, lam: float, strategy: str, operator: str, lang: str) -> None:
    """Anonymize a small example and print its release.

    Writes the rx-anon paper's running example (its Table 1), or with --lang fr a French one, into
    DB as two relations, anonymizes it and prints the release and its NCP."""
    import tomllib
    from . import demo as english, demo_fr as french
    from .pipeline import check_schema_is_ours
    example = french if lang == "fr" else english
    cfg = parse_config(tomllib.loads(example.CONFIG)).with_overrides(k=k, lam=lam, strategy=strategy, operator=operator)
    con = _connect(db)
    # (before the demo's tables are written, which the run's own check comes after)
    check_schema_is_ours(con, cfg.schema)
    example.write_demo_database(con)
    report = _apply(con, cfg, quiet=True)
    title = "French consultation notes" if lang == "fr" else "The running example of the rx-anon paper"
    click.echo(f"{title}, anonymized with k={k}, lambda={lam}, {strategy} (database {db}, schema rx):\n")
    console.print_release(con, cfg.schema)
    click.echo("")
    console.print_measures(con, cfg.schema)
    _report_check_and_exit(con, cfg.schema, report.verdict)


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
@click.option("--operator", type=_OperatorChoice(), help="Override anonymization.operator (labels "
              "listed in [text.operators] keep theirs).")
@click.option("--memory-limit", help="DuckDB's memory_limit for the run, e.g. 1GB (DuckDB's default: 80% of RAM); "
              "beyond it DuckDB spills to disk.")
@click.option("--rebuild", is_flag=True, help="Build every stage, even where only k, lambda or another parameter "
              "of partitioning, recoding and measures changed since the last run.")
@click.option("--quiet", is_flag=True, help="Show no progress (shown only when standard error is a terminal).")
@_external_access_option
@_engine_options
def apply_cmd(db: str, config_path: str, k, lam, l_, t_, strategy, schema, workers, operator, memory_limit, rebuild,
              quiet, allow_external_access, engine, spark_master, inputs) -> None:
    """Anonymize the relations of DB as configured.

    Writes the release, its audit and its measures into schema rx (anonymization.schema)."""
    cfg = load_config(config_path).with_overrides(k=k, lam=lam, l=l_, t=t_, strategy=strategy, schema=schema,
                                                  workers=workers, operator=operator)
    con = _open(db, engine, spark_master, inputs, confined=not allow_external_access, memory_limit=memory_limit)
    with _readable(db):
        report = _apply(con, cfg, quiet=quiet, reuse=not rebuild)
    c = report.counts
    click.echo(f"{c['rows']} rows, {c['persons']} persons -> {c['partitions']} partitions "
               f"({c['levels']} levels); {c['texts_recognized']} texts recognized")
    if c.get("repairs"):
        click.echo(f"repaired: {c['repairs']} spans that the check still read in the released texts were replaced "
                   "there too (rx.replacements, reason 'repaired')")
    if report.dropped:
        click.echo("dropped from the release: " + "; ".join(f"{', '.join(cols)} ({why})"
                                                             for why, cols in report.dropped.items()))
    if report.reused:
        click.echo("source and configuration as in the last run but for parameters of partitioning, recoding and "
                   "measures: its join, terms, linking and persons were kept (--rebuild builds them)")
    console.print_measures(con, cfg.schema)
    console.print_utility(con, cfg.schema)
    click.echo("timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in report.timings.items()))
    with _readable(db):
        _report_check_and_exit(con, cfg.schema, report.verdict)


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
@_external_access_option
def sweep_cmd(db: str, config_path: str, ks: str, lams: str, gdf: bool, schema, workers, quiet,
              allow_external_access) -> None:
    """Anonymize DB for each k and lambda of a grid, into rx.sweep.

    Each run is an `apply` (the first runs NER; a run that changes only lambda or the strategy
    starts at partitioning) and adds one row to rx.sweep: partitions, splits, NCP, risk and time.
    Afterwards schema rx holds the release of the last setting. `rxanon-sql report` plots them."""
    from .grid import grid, parse_ks, parse_lambdas, sweep
    cfg = load_config(config_path).with_overrides(schema=schema, workers=workers)
    settings = grid(cfg, parse_ks(ks), parse_lambdas(lams), gdf)
    con = _connect(db, confined=not allow_external_access)
    bar = None if quiet or not sys.stderr.isatty() else console.SweepBar(sys.stderr, len(settings))
    with _readable(db):
        try:
            result = sweep(con, settings, bar)
        finally:
            if bar is not None:
                bar.close()
    rows = con.execute(f"SELECT k, lam, strategy, ok, partitions, round(size_mean, 1), splits_relational, "
                       f"splits_textual, round(ncp_a, 4), round(ncp_x, 4), round(ncp, 4), round(risk_highest, 3), "
                       f"reused, round(seconds, 2) FROM {table('sweep', cfg.schema).sql('duckdb')} "
                       "WHERE sweep_id = ? ORDER BY k, strategy DESC, lam", [result.sweep_id]).fetchall()
    con.close()
    click.echo(console.table(rows, ["k", "lambda", "strategy", "ok", "partitions", "mean size", "splits A", "splits X",
                             "NCP_A", "NCP_X", "NCP", "max risk", "reused", "seconds"]))
    click.echo(f"sweep {result.sweep_id}: {result.runs} runs in {result.seconds:.1f}s, written to "
               f"{cfg.schema}.sweep; schema {cfg.schema!r} holds the release of the last setting")
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
    from .report import collect, render
    _writable(out, "--out")
    con = _connect(db, read_only=True, confined=True)
    with _readable(db):
        try:
            report = collect(con, schema)
        except duckdb.CatalogException:
            _fail(f"database {db!r} has no release in schema {schema!r}; run `rxanon-sql apply` or `rxanon-sql "
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
@_engine_options
def verify_cmd(db: str, schema: str, k, strict: bool, engine, spark_master, inputs) -> None:
    """Check that the release in DB is k-anonymous and leaks no term.

    Exits 0 when every equivalence class holds k persons and no suppressed term is left in the
    released texts; else lists what fails and exits 1."""
    con = _open(db, engine, spark_master, inputs, read_only=True)
    try:
        with _readable(db):
            _verify_and_exit(con, schema, k, strict)
    except duckdb.CatalogException:
        _fail(f"database {db!r} has no release in schema {schema!r}; run `rxanon-sql apply` first")


@main.command()
@click.argument("db")
@click.argument("out")
@click.option("--schema", default="rx", show_default=True, help="The schema apply wrote the release into.")
@click.option("--allow-unverified", is_flag=True, help="Write the release even when it fails verify's check "
              "(or without checking it).")
@click.option("--force", is_flag=True, help="Replace OUT if it exists (never the database itself).")
@_engine_options
def export(db: str, out: str, schema: str, allow_unverified: bool, force: bool, engine, spark_master, inputs) -> None:
    """Write the verified release to a .parquet or .csv file.

    Writes only rx.release to OUT, and only if it passes verify's check (without the residual
    audit, which never fails a plain verdict). An existing OUT is kept unless --force."""
    from .release import release_relation
    from .verify import verify
    suffix = Path(out).suffix.lower()
    if suffix not in (".parquet", ".csv"):
        _fail(f"export file {out!r} must end in .parquet or .csv")
    _check_export_target(out, db, force)
    con = _open(db, engine, spark_master, inputs, read_only=True)
    with _readable(db):
        try:
            # (checked here and now rather than read from a recorded verdict: the release may have
            # been changed since, or written by a version that published failing releases)
            v = None if allow_unverified else verify(con, schema, residual=False)
            rel = release_relation(con, schema)
        except duckdb.CatalogException:
            _fail(f"database {db!r} has no release in schema {schema!r}; run `rxanon-sql apply` first")
    if v is not None and not v.ok:
        console.report_verdict(v)
        click.echo(f"rxanon-sql: error: the release in schema {schema!r} fails verify's check; nothing written "
                   "(--allow-unverified writes it anyway)", err=True)
        sys.exit(1)
    with _readable(db):
        _write_release(rel, out, suffix == ".parquet")
    click.echo(f"wrote {rel.shape[0]} rows of {schema}.release to {out}" + (" (not verified)" if v is None else ""))


def _check_export_target(out: str, db: str, force: bool) -> None:
    """An export replaces a user's file only when told to, and never the database (a symlink
    OUT may point at it): checked before anything is read."""
    _writable(out, "export file")
    target = Path(out)
    if target.is_dir():
        _fail(f"export file {out!r} is a directory; give a file name")
    if target.exists() and any(Path(f).exists() and target.samefile(f) for f in (db, f"{db}.wal")):
        _fail(f"export file {out!r} is the database {db!r} itself; give another file name")
    if (target.exists() or target.is_symlink()) and not force:
        _fail(f"export file {out!r} exists; remove it, give another name, or pass --force to replace it")


def _write_release(rel, out: str, parquet: bool) -> None:
    """Write the release beside OUT and move it there: a failed export leaves an existing OUT as
    it was, and a symlink OUT is replaced, not the file it points at."""
    # (a name of this process's, which the writer creates with the user's usual permissions)
    tmp = str(Path(out).with_name(f".{Path(out).name}.{os.getpid()}{Path(out).suffix}"))
    try:
        if isinstance(rel, duckdb.DuckDBPyRelation):
            # (the database's connection may open no file, sqlrun.confine: a connection of its
            # own, which reads nothing but the rows it is handed, writes them)
            with duckdb.connect() as writer:
                rows = writer.from_arrow(rel.to_arrow_reader())
                (rows.write_parquet if parquet else rows.write_csv)(tmp)
        else:
            (rel.write_parquet if parquet else rel.write_csv)(tmp)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@main.command()
@click.argument("db")
@click.argument("file")
@click.option("--table", "name", help="Table to create (default: the file's name without its extensions, "
              "other characters than letters, digits and _ made _).")
def load(db: str, file: str, name) -> None:
    """Read FILE (CSV, Parquet or JSON) into a new table of DB.

    Formats by extension: .csv, .tsv, .parquet, .json, .jsonl (CSV and JSON also .gz). A row key
    column `row_key` (1..n in file order) is added when no column can stand for a person."""
    from .load import load as load_file, reader
    reader(file)            # (before the database file is created)
    con = _connect(db)
    with _readable(db):
        loaded = load_file(con, file, name)
    con.close()
    click.echo(f"loaded {loaded.rows} rows and {loaded.columns} columns into table {loaded.table!r} of {db}"
               + (f", with a row key {loaded.key!r} (1..{loaded.rows} in file order) since no column identifies a "
                  "person" if loaded.key else ""))


@main.command()
@click.argument("db")
@click.option("--out", default="rx.toml", show_default=True, help="Configuration file to write (not replaced).")
def init(db: str, out: str) -> None:
    """Write a starting configuration for the tables found in DB."""
    from .init import starting_config
    if Path(out).exists():
        _fail(f"{out!r} exists; remove it or give --out")
    _writable(out, "--out")
    con = _connect(db, read_only=True)
    warnings: list[str] = []
    with _readable(db):
        text = starting_config(con, warnings)
    con.close()
    for w in warnings:
        click.echo(f"rxanon-sql: warning: {w}", err=True)
    Path(out).write_text(text, encoding="utf-8")
    click.echo(f"wrote {out}; review the roles of the columns before `rxanon-sql apply {db} --config {out}`")


@main.command(name="entities")
@click.argument("text")
@click.option("--config", "config_path", type=click.Path(), help="Recognize as configured here (term lists, "
              "patterns, phone regions, pipeline, guard); default: the default configuration.")
def entities_cmd(text: str, config_path) -> None:
    """Show the sensitive terms found in TEXT, with labels and offsets.

    TEXT '-' reads the text from standard input."""
    from .entities import entities, format_entities
    from .label_check import check_labels, label_note
    from .recognize import check_rules
    cfg = None
    if text == "-":
        text = sys.stdin.read()
    if config_path:
        cfg = load_config(config_path)
        # (as apply checks them: the recognizer itself would refuse a bad pattern with a bare ValueError)
        check_rules(cfg)
        check_labels(cfg)
    spans = entities(text, cfg)
    note = label_note(cfg or Config())
    click.echo(format_entities(text, spans))
    if note:
        click.echo(note)


@main.command(name="generate")
@click.argument("db")
@click.option("--persons", type=int, default=1000, show_default=True, help="Authors to generate.")
@click.option("--posts-per-person", type=int, default=5, show_default=True, help="Posts (texts) per author.")
@click.option("--seed", type=int, default=0, show_default=True, help="The same seed writes the same data.")
@click.option("--relational", type=click.Path(exists=True, dir_okay=False),
              help="Take authors and post dates from this CSV (id, gender, age, topic, sign, date; one row per "
                   "post, as blog_relational_full.csv.gz) and generate only the texts.")
@click.option("--prefill-cache/--no-prefill-cache", default=False, show_default=True,
              help="Write the generated terms into rx.ner_cache, so that `apply` runs no NER on these texts.")
@click.option("--out", "config_out", type=click.Path(dir_okay=False), help="Also write a matching configuration here.")
def generate_cmd(db: str, persons: int, posts_per_person: int, seed: int, relational, prefill_cache: bool,
                 config_out) -> None:
    """Write generated blog-shaped test data into DB.

    The relations `authors` and `posts` (replaced if there), seeded."""
    from .generate import config_text, generate, prefill_generated
    if persons < 1 or posts_per_person < 1:
        _fail("--persons and --posts-per-person must be >= 1")
    con = _connect(db)
    stats = generate(con, persons, posts_per_person, seed=seed, relational=relational, entities=prefill_cache)
    if prefill_cache:
        stats["cached"] = prefill_generated(con)
    if config_out:
        Path(config_out).write_text(config_text(), encoding="utf-8")
    con.close()
    click.echo(f"wrote {stats['persons']} authors and {stats['posts']} posts ({stats['words']} words, "
               f"{stats['entities']} terms) to {db}" + (f"; {stats['cached']} texts cached" if prefill_cache else "")
               + (f"; configuration {config_out}" if config_out else ""))
