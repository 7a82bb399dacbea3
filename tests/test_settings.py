"""settings.py: a configuration key is one declaration, and the rest follows from it. Adding a key
of the core is one field of `Config` (config.py); here a subclass stands in for that field, put
where config.py's `Config` is read, and nothing else is changed: the file is read and checked,
a command-line override is checked, reuse counts it among the retuning keys, rx.runs.config
holds it, and docs/configuration.md's table shows it. (An operator with a setting:
tests/test_operator_registry.py; a recognizer: tests/test_recognizer_registry.py; each from
its test file alone.)"""
from __future__ import annotations

import dataclasses
import tomllib

import pytest

from rxanon_sql import config, config_docs, reuse
from rxanon_sql.config import Config, ConfigError, parse_config
from helpers import ONE_TABLE
from rxanon_sql.settings import INTEGER, setting

BASE = ONE_TABLE


@dataclasses.dataclass(frozen=True)
class WithSparkle(Config):
    sparkle: int = setting("anonymization.sparkle", INTEGER, 3, "how much the release sparkles",
                           check=(lambda v: v >= 1, "be at least 1"), retune=True)


@pytest.fixture
def sparkle(monkeypatch):
    for module in (config, config_docs, reuse):
        monkeypatch.setattr(module, "Config", WithSparkle)


def parse(extra: str = "") -> Config:
    return parse_config(tomllib.loads(BASE + extra))


def test_a_new_key_is_read_with_its_default(sparkle):
    assert parse().sparkle == 3
    assert parse("[anonymization]\nsparkle = 7\n").sparkle == 7


@pytest.mark.parametrize("value, message", [
    ('"7"', "anonymization.sparkle must be int, got '7'"),
    ("0", "anonymization.sparkle must be at least 1, got 0"),
])
def test_a_new_key_is_type_checked_and_checked(sparkle, value, message):
    with pytest.raises(ConfigError, match=f"^{message}$"):
        parse(f"[anonymization]\nsparkle = {value}\n")


def test_an_override_of_a_new_key_is_checked(sparkle):
    assert parse().with_overrides(sparkle=5).sparkle == 5
    with pytest.raises(ConfigError, match="anonymization.sparkle must be at least 1, got 0"):
        parse().with_overrides(sparkle=0)


def test_a_new_key_retunes_is_stored_and_documented(sparkle):
    assert "sparkle" in reuse.retune()
    assert parse("[anonymization]\nsparkle = 4\n").settings()["sparkle"] == 4
    assert "| `anonymization.sparkle` | integer | `3` | retunes | how much the release sparkles |" \
        in config_docs.settings_table()


def test_without_the_declaration_the_key_is_refused():
    # (the checks above are the declaration's doing: without it the file's key is unknown)
    with pytest.raises(ConfigError, match="sparkle"):
        parse("[anonymization]\nsparkle = 7\n")
