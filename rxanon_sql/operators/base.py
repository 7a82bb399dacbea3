"""What a text operator is: a name, a check of the configuration, and the SQL expression that
replaces a term in `sql/recode_text.sql` (after Presidio's anonymizer operators: one small class
each, found by name in a registry).

The expression is evaluated once per replaced occurrence, set-based, over these columns:

- `occurrence(name)`: a column of `replaced_occurrences` (`sql/operator_suppressed.sql`):
  `person`, `partition_id`, `label`, `norm`, `term` (the surface as written), `row_id`,
  `attribute`, `start_pos`, `end_pos`, `generalized`, `operator`;
- `tag()`: the term's number per label over the release (NULL unless the class sets `numbered`);
- `surrogate()`: its surrogate (`rx.surrogates`), NULL if none was drawn;
- `setting(name)`: a column of `rx.operator_settings`: `operator`, `fallback`, and each operator's
  own settings (`mask`, `locale`, ...).

A replacement is counted as suppressed (NCP_X 1, no key of an equivalence class), so it must carry
nothing of the term but its label, and no two persons may share it for one term: a value computed
from the term alone (its hash, its initials) would act as the term itself and link persons.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import duckdb
from sqlglot import exp

from ..settings import Setting

if TYPE_CHECKING:
    from ..config import Config

# rx.replacements.reason: only an operator that writes rx.generalized_terms may say "generalized"
# (verify keys the equivalence classes by the generalized values it lists there).
REASONS = ("suppressed", "generalized")


class Operator:
    name: ClassVar[str]
    reason: ClassVar[str] = "suppressed"
    # Whether anonymization.fallback may name it (generalize cannot: it is what falls back).
    fallback: ClassVar[bool] = True
    # Whether its replacement reads tag(): only such terms join rx.operator_terms, which costs.
    numbered: ClassVar[bool] = False
    # Its own configuration keys (settings.Setting), read as cfg.NAME and, unless private, as the
    # column setting(NAME) of rx.operator_settings: an operator with a setting is one file.
    settings: ClassVar[tuple[Setting, ...]] = ()

    def check(self, cfg: Config) -> None:
        """Raise ConfigError, naming the key, for a configuration this operator cannot serve."""

    def replacement(self) -> exp.Expression:
        raise NotImplementedError

    def prepare(self, con: duckdb.DuckDBPyConnection, cfg: Config) -> dict:
        """Statements run before each replaced term's operator is chosen (rx.kept_terms exists);
        returns what it counted (passes, draws). Runs whether or not the configuration names the
        operator, so that every table recode_text.sql reads exists."""
        return {}

    def finish(self, con: duckdb.DuckDBPyConnection, cfg: Config) -> dict:
        """Statements run after rx.operator_terms (each replaced term with its operator and tag),
        before recode_text.sql; as prepare()."""
        return {}

    # The working tables its statements leave, dropped at the end of the stage.
    temporary: ClassVar[tuple[str, ...]] = ()


def count_rows(con: duckdb.DuckDBPyConnection, name: str) -> int:
    """The rows of a working table (the test that ends a fixpoint)."""
    return con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0]


def occurrence(name: str) -> exp.Column:
    return exp.column(name, table="t")


def tag() -> exp.Column:
    return exp.column("tag", table="n")


def surrogate() -> exp.Column:
    return exp.column("surrogate", table="u")


def setting(name: str) -> exp.Subquery:
    return exp.select(name).from_(exp.table_("operator_settings", db="rx")).subquery()


def bracketed(*parts: exp.Expression) -> exp.Expression:
    """'[' || parts || ']'"""
    return exp.DPipe(this=exp.DPipe(this=exp.Literal.string("["), expression=_concat(parts)),
                     expression=exp.Literal.string("]"))


def numbered_label() -> exp.Expression:
    """[PERSON_3]: the label and the tag number."""
    return bracketed(occurrence("label"), exp.Literal.string("_"), exp.cast(tag(), "VARCHAR"))


def _concat(parts) -> exp.Expression:
    out = parts[0]
    for p in parts[1:]:
        out = exp.DPipe(this=out, expression=p)
    return out
