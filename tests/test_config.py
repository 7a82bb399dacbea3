import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from rxanon_sql.config import Config, ConfigError, load_config, parse_config
from rxanon_sql.config_docs import docs_with_table
from rxanon_sql.settings import DECLARED, STRINGS, all_settings
from helpers import ONE_TABLE, config_from, demo_config

BASE = ONE_TABLE


def test_demo_config_parses_with_defaults():
    cfg = demo_config()
    assert cfg.k == 2 and cfg.lam == 0.5 and cfg.strategy == "mondrian"
    assert cfg.quasi_identifiers == ("gender", "age", "topic", "sign", "date")
    assert cfg.attribute("date").format == "%d,%B,%Y"
    assert "JOB" in cfg.sensitive_labels  # a term list's label is sensitive by construction


@pytest.mark.parametrize("extra, key", [
    ("[anonymization]\nkk = 3", "kk"),
    ("[text]\ncolumn = ['x']", "column"),
    ("[attributes.x]\ntype = 'nominal'\nemaps = ['GPE']", "emaps"),
    ("[sauce]\nx = 1", "sauce"),
])
def test_unknown_keys_are_reported_by_name(extra, key):
    with pytest.raises(ConfigError, match=f"unknown configuration key .*{key}"):
        config_from(BASE + extra)


@pytest.mark.parametrize("extra, message", [
    ("[anonymization]\nk = 1", "k must be an integer from 2 to"),
    ("[anonymization]\nk = 'five'", "anonymization.k must be int"),
    ("[anonymization]\nlambda = 1.5", r"lambda must lie in \[0, 1\]"),
    ("[anonymization]\nstrategy = 'random'", "strategy must be one of"),
    ("[anonymization]\nnominal_order = 'random'", "nominal_order must be one of"),
    ("[attributes.x]\ntype = 'colour'", "attributes.x.type must be one of"),
    ("[attributes.x]\ntype = 'ordinal'", "order is required"),
    ("[text]\ncolumns = ['age']", "given two roles"),
    ("[text]\ncolumns = 'text'", "text.columns must be list"),
])
def test_bad_values_are_reported(extra, message):
    with pytest.raises(ConfigError, match=message):
        config_from(BASE + extra)


def test_overrides_are_checked():
    with pytest.raises(ConfigError, match="lambda"):
        demo_config(lam=-0.1)
    assert demo_config(k=3).k == 3


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")


def test_fingerprint_changes_with_term_lists():
    a = demo_config()
    b = config_from(BASE + "[text]\ncolumns = []\n[text.terms]\nJOB = ['pilot']")
    assert a.recognizer_fingerprint("v1") != b.recognizer_fingerprint("v1")
    assert a.recognizer_fingerprint("v1") != a.recognizer_fingerprint("v2")


# --- one declaration per key (rxanon_sql/settings.py) -------------------------------------------

def test_the_docs_table_lists_every_declared_key():
    """docs/configuration.md's table is the one the declarations give: a key declared and not
    documented, or documented and gone, fails here (python -m rxanon_sql.config_docs regenerates it)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text()
    assert docs_with_table(text) == text, "docs/configuration.md's table is stale: python -m rxanon_sql.config_docs"
    for s in all_settings(Config):
        assert f"| `{s.key}` |" in text


def test_each_key_is_declared_once_and_read_by_the_parser():
    keys = [s.key for s in all_settings(Config)]
    assert len(keys) == len(set(keys))
    fields = {f.name for f in dataclasses.fields(Config)}
    for s in all_settings(Config):
        assert s.field in fields or s.field in DECLARED, s.key
        # the parser reads each key: a value of the wrong type is refused by its dotted name
        data = tomllib.loads(BASE)
        section, name = s.key.split(".", 1)
        data.setdefault(section, {})[name] = [1] if s.type != STRINGS else "x"
        with pytest.raises(ConfigError, match=re.escape(s.key)):
            parse_config(data)


@pytest.mark.parametrize("key, value, field, expected", [
    ("anonymization.lambda", "0.25", "lam", 0.25),
    ("text.bias", "{ gpe = 1 }", "label_bias", {"GPE": 1.0}),
    ("text.operators", "{ gpe = 'tag' }", "label_operators", {"GPE": "tag"}),
    ("text.label_map", "{ persName = 'person' }", "label_map", {"persName": "PERSON"}),
    ("anonymization.mask", "'##'", "mask", "##"),
])
def test_a_key_and_its_field(key, value, field, expected):
    section, name = key.split(".", 1)
    assert getattr(config_from(BASE + f"[{section}]\n{name} = {value}\n"), field) == expected


def test_checks_come_from_the_declaration():
    for s in all_settings(Config):
        if s.check is not None:
            with pytest.raises(ConfigError, match=re.escape(f"{s.key} must {s.check[1]}, got")):
                s.validate(-5)
