"""What every command of `rxanon-sql` shares: the group, the one place where the library's
refusals become an exit code, the connection a command runs against, and the shared options."""
from __future__ import annotations

import sys

import click
import duckdb

from .. import console
from ..config import ConfigError
from ..engines import open_engine
from ..engines.duckdb import connect
from ..errors import ReleaseRejected, RxAnonSqlError, outside_the_database

# Imports inside functions, module-wide, for start-up time: each command imports what it runs,
# so that `--help`, `load` and `init` need not load the pipeline, the operators, Spark or spaCy,
# which take seconds.

EXIT_BAD_INPUT = 2


class OperatorChoice(click.Choice):
    """The registered text operators, looked up when an option is parsed or shown: the registry
    imports the operators' code, which a command without --operator does not need, and an
    operator registered after this module was imported counts."""

    def __init__(self):
        super().__init__(())

    @property
    def choices(self):
        from ..operators import names
        return names()

    @choices.setter
    def choices(self, _):
        pass


def fail(message: str) -> None:
    click.echo(f"rxanon-sql: error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def open_database(db: str, read_only: bool = False, confined: bool = False, memory_limit: str | None = None,
                  relations: tuple[str, ...] = ()):
    """The DuckDB file (engines/duckdb.py), closed when the command ends, error exits included,
    so that no file lock outlives it: not at the process's exit, since a program or test may run
    many commands in one process."""
    con = connect(db, read_only, confined, memory_limit, relations)
    click.get_current_context().call_on_close(con.close)
    return con


def open_connection(db: str, engine: str, spark_master: str, inputs: tuple[str, ...], read_only: bool = False,
                    confined: bool = True, memory_limit=None, relations: tuple[str, ...] = ()):
    """The connection of a command that reads or writes a release, on either engine, closed as
    open_database's."""
    con = open_engine(db, engine, spark_master, inputs, read_only, confined, memory_limit, relations)
    click.get_current_context().call_on_close(con.close)
    return con


def external_access_option(command):
    return click.option(
        "--allow-external-access", is_flag=True,
        help="Let source.query and the database's views read files, URLs and DuckDB extensions outside the "
             "database (read_csv, read_text, glob, a relation named like a path). A risk: a configuration or "
             "database written by someone else could then publish any file you can read. Without it they read "
             "the database's own tables only; `rxanon-sql load` brings a file in.")(command)


def engine_options(command):
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


def run_apply(con, cfg, quiet: bool = False, reuse: bool = True):
    """Run the pipeline (a release that fails its check raises ReleaseRejected: see _Commands)."""
    from ..pipeline import apply
    progress = console.progress(quiet)
    try:
        return apply(con, cfg, progress, reuse=reuse)
    finally:
        # (before any message: a bar left open would share its line)
        if progress is not None:
            progress.close()


def verify_and_exit(con, schema: str, k: int | None = None, strict: bool = False) -> None:
    """Verify the release, report the verdict, and exit 0 only when it holds."""
    from ..verify import verify
    try:
        v = verify(con, schema, k, strict=strict)
    except ConfigError as e:
        if k is None:       # (not the option's fault: no "--k None")
            raise
        raise ConfigError(f"--k {k}: {e}") from None
    console.report_verdict(v)
    con.close()
    sys.exit(0 if v.ok else 1)


def report_check_and_exit(con, schema: str, verdict) -> None:
    """Report the check that apply made before its commit, with the residual audit added."""
    from ..verify import audit_residual
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
            fail(str(e))
        except duckdb.OutOfMemoryException as e:
            # (apply's default limit scales with the texts, engines/duckdb.scaled_memory_limit; an
            # input with more to hold per byte of text than the corpus shape may need more)
            fail(f"DuckDB ran out of memory ({str(e).splitlines()[0].removeprefix('Out of Memory Error: ')}): "
                 "give a larger --memory-limit")
        except duckdb.PermissionException as e:
            # (source.query and the relations are named where join reads them: this is a view)
            fail(str(outside_the_database(e, "a view of the database", "drop or replace the view")))


@click.group(cls=_Commands)
@click.version_option(package_name="rxanon-sql")
def main() -> None:
    """Joint k-anonymization of relational attributes and free text inside DuckDB (rx-anon)."""
