"""Helpers shared by the tests: configurations and one-value queries."""
from __future__ import annotations

import tomllib

from rxanon_sql.config import parse_config
from rxanon_sql.demo import CONFIG


def demo_config(**overrides):
    return parse_config(tomllib.loads(CONFIG)).with_overrides(**overrides)


def config_from(text: str, **overrides):
    return parse_config(tomllib.loads(text)).with_overrides(**overrides)


def rows(con, sql, params=None):
    return con.execute(sql, params).fetchall()


def scalar(con, sql, params=None):
    return con.execute(sql, params).fetchall()[0][0]
