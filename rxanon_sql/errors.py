"""The errors rxanon-sql raises, under one root.

A caller (the command line, or a program using the library) catches `RxAnonSqlError` to tell
the tool's own refusals, whose message names the configuration key, relation, column or value
at fault, from bugs and from DuckDB's errors. The subclasses keep the built-in base they had
before the root existed (`ValueError`, `RuntimeError`), so that code catching those still works.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:
    from .verify import Verdict


class RxAnonSqlError(Exception):
    """Raised by rxanon-sql for input or a state it refuses; the message is one line."""


class ConfigError(RxAnonSqlError, ValueError):
    """A configuration that cannot be used; the message names the offending key."""


class InputError(RxAnonSqlError, ValueError):
    """Input data that cannot be anonymized as configured; the message names table, column or value."""


class PipelineNotFound(RxAnonSqlError, RuntimeError):
    """The configured spaCy pipeline is not installed."""


class EngineError(RxAnonSqlError, duckdb.Error):
    """A statement Spark refused: Spark's own line and the statement. A duckdb.Error too, so that
    a stage handles a failed statement alike on both engines."""


class EngineCatalogError(EngineError, duckdb.CatalogException):
    """A table or view that Spark does not find."""


class ReleaseRejected(RxAnonSqlError):
    """A release that fails its check: the run that built it rolls back and publishes nothing.
    Not bad input: the command line reports the verdict and exits 1, not 2."""

    def __init__(self, verdict: Verdict, schema: str = "rx"):
        super().__init__(f"the new release fails its check; it was rolled back, and schema {schema!r} holds the "
                         "previous release, if any")
        self.verdict = verdict
        self.schema = schema


def outside_the_database(e: duckdb.PermissionException, what: str,
                         remedy: str = "bring the file in with `rxanon-sql load`, or pass --allow-external-access "
                                       "if you trust the configuration and the database") -> InputError:
    """What a confined connection (sqlrun.confine) says when `what` reads a file, URL or extension."""
    # (DuckDB's line: 'Permission Error: Cannot access file "/etc/passwd" - file system operations
    # are disabled by configuration': the path is what the user needs, the rest is its cause)
    line = str(e).splitlines()[0].removeprefix("Permission Error: ").split(" - ")[0]
    return InputError(f"{what} reads outside the database ({line}), which rxanon-sql refuses by default: {remedy}")
