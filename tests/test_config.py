import pytest

from rxanon_sql.config import ConfigError, load_config
from helpers import config_from, demo_config

BASE = """
[source]
relations = ["t"]
person = "id"
[attributes.age]
type = "numeric"
"""


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
