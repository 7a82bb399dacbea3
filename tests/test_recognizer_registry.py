"""The registry of rule recognizers (udfs/recognizers/, issue 25): a recognizer defined and
registered in this file alone is run by the rule recognizer, is a default sensitive label, is
accepted in text.labels, is replaced in the release, and gives its own surrogate."""
from __future__ import annotations

import random
import re
from pathlib import Path

import duckdb
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from stdnum import luhn

from helpers import config_from, rows
from rxanon_sql import reuse
from rxanon_sql.config import Config, ConfigError
from rxanon_sql.label_check import check_labels
from rxanon_sql.pipeline import apply
from udfs import recognizers
from udfs.recognizers import PatternRecognizer, Recognizer, register, unregister
from udfs.rules import RuleRecognizer
from udfs.surrogates import Surrogates

BUILT_IN = ("MAIL", "URL", "IBAN", "CARD", "SSN", "PHONE", "IP", "POSTCODE", "DATE")


def badge(body: str) -> str:
    """A badge number: "BDG-", five digits and their Luhn check digit."""
    return f"BDG-{body}{luhn.calc_check_digit(body)}"


class BadgeRecognizer(PatternRecognizer):
    """Employee badges: "BDG-" and six digits whose last is a Luhn check digit."""
    label = "BADGE"
    pattern = r"(?<![\w-])BDG-\d{6}(?![\w-])"
    anchor = "BDG-"

    def validate(self, value: str) -> bool:
        return luhn.is_valid(value[4:])

    @staticmethod
    def surrogate(surface: str, rng: random.Random) -> str:
        return badge(f"{rng.randrange(100_000):05d}")


@pytest.fixture
def badges():
    register(BadgeRecognizer)
    yield BadgeRecognizer
    unregister(BadgeRecognizer)


def test_built_in_recognizers_are_found_through_the_registry():
    # (in their tie-break order; a recognizer added to the folder may come anywhere among them)
    assert [label for label in recognizers.labels() if label in BUILT_IN] == list(BUILT_IN)
    assert all(c.__module__.startswith("udfs.recognizers.") for c in recognizers.registered())
    assert set(Config().labels) >= set(BUILT_IN)


def test_a_registered_recognizer_runs_with_its_checksum(badges):
    good, bad = badge("12345"), "BDG-123450"
    assert not luhn.is_valid(bad[4:])
    spans = RuleRecognizer().find(f"Badge {good}, not {bad}; mail ann@example.org")
    assert [(s.term, s.label, s.source) for s in spans] == [(good, "BADGE", "rule"), ("ann@example.org", "MAIL", "rule")]


def test_unregistered_it_is_gone(badges):
    text = f"Badge {badge('12345')}."
    assert RuleRecognizer().find(text)
    unregister(badges)
    assert RuleRecognizer().find(text) == [] and "BADGE" not in recognizers.labels()
    register(badges)


def test_the_configuration_reads_the_registry(badges):
    assert "BADGE" in Config().labels and "BADGE" in recognizers.labels()
    cfg = config_from(ONLY_BADGES)
    check_labels(cfg)                                   # (no ConfigError: a recognizer gives BADGE)
    unregister(badges)
    try:
        assert "BADGE" not in Config().labels
        with pytest.raises(ConfigError, match="BADGE"):
            check_labels(cfg)
    finally:
        register(badges)


def test_the_ner_cache_key_names_the_recognizers(badges):
    with_badges = Config().recognizer_fingerprint("v")
    unregister(badges)
    try:
        assert Config().recognizer_fingerprint("v") != with_badges
    finally:
        register(badges)


def test_the_reuse_digest_reads_the_recognizers_package(monkeypatch):
    before = reuse._package_code.__wrapped__()
    read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes",
                        lambda self: read(self) + (b"#" if self.parent.name == "recognizers" else b""))
    assert reuse._package_code.__wrapped__() != before


def test_a_surrogate_comes_from_the_recognizer(badges):
    gen = Surrogates("secret")
    value = gen.surrogate("p1", "BADGE", "bdg-123455", "BDG-123455")
    assert re.fullmatch(r"BDG-\d{6}", value) and luhn.is_valid(value[4:]) and value != "BDG-123455"
    assert gen.surrogate("p1", "BADGE", "bdg-123455", "BDG-123455") == value       # (seeded per person and term)
    unregister(badges)
    try:
        assert gen.surrogate("p1", "BADGE", "bdg-123455", "BDG-123455") is None   # (SQL then writes a tag)
    finally:
        register(badges)


@pytest.mark.parametrize("cls", [
    type("NotARecognizer", (), {"label": "X"}),
    type("Lower", (PatternRecognizer,), {"label": "badge", "pattern": "x"}),
    type("NoLabel", (PatternRecognizer,), {"pattern": "x"}),
    type("NoFind", (Recognizer,), {"label": "NOFIND"}),
])
def test_register_refuses_what_it_could_not_run(cls):
    with pytest.raises(ConfigError, match=cls.__name__):
        register(cls)
    assert cls not in recognizers.registered()


class Never(Recognizer):
    """Finds nothing, and runs first: it must change nothing of what the others find."""
    label = "NEVER"
    order = -1
    priority = -1

    def find(self, text, scan):
        scan.zones          # (computes the zones early)
        return []


_PIECES = st.sampled_from(["Mail ann@example.org", "call +44 20 7946 0958", "IBAN GB82 WEST 1234 5698 7654 32",
                           "card 4111 1111 1111 1111", "SSN 123-45-6789", "from 192.168.1.1", "on 14.05.2004",
                           "SW1A 1AA", "BDG-123455", "2004", "5/14", "x", " ", "-", "."])


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(st.one_of(_PIECES, st.text(max_size=12)), max_size=12))
def test_property_an_extra_recognizer_changes_no_other_span(parts):
    text = " ".join(parts)
    before = RuleRecognizer().find(text)
    register(Never)
    try:
        assert RuleRecognizer().find(text) == before
    finally:
        unregister(Never)


@settings(max_examples=100, deadline=None)
@given(body=st.integers(0, 99_999), left=st.text(max_size=20), right=st.text(max_size=20))
# (a PHONE as long as the badge, "016808 000", overlapping it: it won, and "BDG-" stayed outside)
@example(body=16808, left="", right="000")
def test_property_a_registered_recognizer_finds_its_value_anywhere(body, left, right):
    register(BadgeRecognizer)
    try:
        value = badge(f"{body:05d}")
        text = f"{left} {value} {right}"
        spans = RuleRecognizer().find(text)
        # found, or inside a longer hit of another recognizer (which replaces it as well)
        start = len(left) + 1
        assert any(s.start <= start and start + len(value) <= s.end for s in spans)
    finally:
        unregister(BadgeRecognizer)


# --- end to end --------------------------------------------------------------------------------

CONFIG = """
[source]
relations = ["p"]
[attributes.age]
type = "numeric"
emap = []
[text]
columns = ["body"]
[anonymization]
k = 2
"""
# Sensitive: persons and badges only, and no rare-token guard: spaCy takes a badge for an ORG,
# and the guard its digits for a rare word, either of which would hide what the recognizer does.
ONLY_BADGES = CONFIG.replace('columns = ["body"]', 'columns = ["body"]\nlabels = ["PERSON", "BADGE"]\nrare_guard = false')
VALUES = [badge(f"{n:05d}") for n in (10_203, 31_337, 42_424, 77_001)]


def badge_db() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE p (id INTEGER, age INTEGER, body VARCHAR)")
    for i, value in enumerate(VALUES):
        con.execute("INSERT INTO p VALUES (?, ?, ?)", [i, 30 + i, f"My badge number is {value}, please keep it."])
    return con


def released(con) -> list[str]:
    return [r[0] for r in rows(con, "SELECT body FROM rx.release")]


def test_apply_replaces_a_registered_recognizers_values(badges):
    for config in (CONFIG, ONLY_BADGES):        # (its label is a default label, and an accepted one)
        con = badge_db()
        apply(con, config_from(config))
        bodies = released(con)
        assert len(bodies) == 4 and not any(v in b for v in VALUES for b in bodies)
        assert rows(con, "SELECT DISTINCT label, source FROM rx.terms WHERE term LIKE 'BDG-%'") == [("BADGE", "rule")]
    assert all("BADGE" in b for b in bodies)


def test_apply_pseudonymizes_with_the_recognizers_surrogate(badges):
    con = badge_db()
    apply(con, config_from(ONLY_BADGES + 'operator = "pseudonymize"\nsecret = "s"\n'))
    found = [re.search(r"BDG-\d{6}", b) for b in released(con)]
    assert all(found) and all(luhn.is_valid(m.group()[4:]) for m in found)
    assert not {m.group() for m in found} & set(VALUES)


def test_without_the_recognizer_the_values_stay_or_the_label_is_refused():
    # (the other side of the two tests above: nothing else in the pipeline removes them)
    con = badge_db()
    apply(con, config_from(ONLY_BADGES.replace(', "BADGE"', "")))
    assert sum(v in b for v in VALUES for b in released(con)) == 4
    with pytest.raises(ConfigError, match="BADGE"):
        apply(badge_db(), config_from(ONLY_BADGES))
