"""Text operators as registered classes (issue 25): an operator defined and registered in this file
alone is accepted by the configuration, shows in the release, keeps it k-anonymous and leak-free,
and enters the reuse fingerprint; the registry refuses what it cannot run."""
from __future__ import annotations

import re
from importlib import resources

import duckdb
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import sqlglot
from sqlglot import exp

from helpers import config_from, demo_config, rows
from rxanon_sql import operators, reuse
from rxanon_sql.cli import main
from rxanon_sql.config import ConfigError
from rxanon_sql.demo import write_demo_database
from rxanon_sql.operators import register
from rxanon_sql.operators.base import Operator, bracketed, occurrence, setting, tag
from rxanon_sql.pipeline import apply
from rxanon_sql.config_docs import settings_table
from rxanon_sql.settings import INTEGER, Setting
from rxanon_sql.sqlrun import statements
from rxanon_sql.verify import verify


class Category(Operator):
    """<person>: the label in lower case, in angle brackets (nothing of the term but its label)."""
    name = "category"

    def replacement(self) -> exp.Expression:
        return exp.DPipe(this=exp.DPipe(this=exp.Literal.string("<"), expression=exp.Lower(this=occurrence("label"))),
                         expression=exp.Literal.string(">"))


class Numbered(Operator):
    """[PERSON#3]: the tag number, which only an operator that says `numbered` is given."""
    name = "numbered"
    numbered = True

    def replacement(self) -> exp.Expression:
        return bracketed(occurrence("label"), exp.Literal.string("#"), exp.cast(tag(), "VARCHAR"))


class Picky(Operator):
    """An operator whose configuration check refuses a mask other than its own."""
    name = "picky"

    def check(self, cfg) -> None:
        if cfg.mask != "XXXXX":
            raise ConfigError(f"anonymization.mask: the picky operator takes no mask, got {cfg.mask!r}")

    def replacement(self) -> exp.Expression:
        return exp.Literal.string("[PICKY]")


class Stars(Operator):
    """An operator with a setting of its own, declared here: as many stars as anonymization.stars."""
    name = "stars"
    settings = (Setting("anonymization.stars", INTEGER, 3, "how many stars replace a term", retune=True,
                        check=(lambda v: isinstance(v, int) and 1 <= v <= 20, "be an integer from 1 to 20")),)

    def replacement(self) -> exp.Expression:
        return exp.func("repeat", exp.Literal.string("*"), setting("stars"))


@pytest.fixture
def stars():
    register(Stars)
    yield
    operators.unregister(Stars.name)


@pytest.fixture
def registered():
    """The three operators above, registered for one test and taken out again after it."""
    for cls in (Category, Numbered, Picky):
        register(cls)
    yield
    for cls in (Category, Numbered, Picky):
        operators.unregister(cls.name)


def demo(**overrides):
    con = duckdb.connect()
    write_demo_database(con)
    apply(con, demo_config(**overrides))
    return con


def texts(con) -> dict[int, str]:
    return dict(rows(con, "SELECT row_id, text FROM rx.audit"))


# --- the acceptance: an operator from this file alone -------------------------------------------

def test_the_configuration_accepts_an_operator_only_once_registered():
    with pytest.raises(ConfigError, match="anonymization.operator .*'category'"):
        demo_config(operator="category")
    with pytest.raises(ConfigError, match="text.operators.GPE .*'category'"):
        demo_config(label_operators={"GPE": "category"})


def test_a_registered_operator_shows_in_the_release(registered):
    con = demo(operator="category")
    assert texts(con)[1] == "My name is <person>, I\u2019m a [36-37] years old <job> from <gpe>."
    v = verify(con)
    assert v.ok, (v.failing, v.leaks, v.identifiers)
    assert {r[0] for r in rows(con, "SELECT DISTINCT reason FROM rx.replacements WHERE operator = 'category'")} \
        == {"suppressed"}


def test_a_registered_operator_per_label_and_as_fallback(registered):
    cfg = config_from("""
[source]
relations = ["t"]
[attributes.age]
type = "numeric"
[text.operators]
gpe = "category"
[anonymization]
fallback = "category"
""")
    assert cfg.operator_of("GPE") == "category" and cfg.fallback == "category"
    # k = 5: one partition, no place shared by all, so generalize falls back to the new operator
    con = demo(k=5, operator="generalize", fallback="category")
    assert re.fullmatch(r"My name is <person>, I\u2019m a \S+ years old <job> from <gpe>\.", texts(con)[1])
    con = demo(label_operators={"GPE": "category"}, operator="tag")
    assert re.fullmatch(r"My name is \[PERSON_\d\], I\u2019m a \[36-37\] years old \[JOB_\d\] from <gpe>\.", texts(con)[1])


def test_a_numbered_operator_is_given_the_tag(registered):
    con = demo(operator="numbered")
    assert re.fullmatch(r"My name is \[PERSON#\d\], I\u2019m a \[36-37\] years old \[JOB#\d\] from \[GPE#\d\]\.",
                        texts(con)[1])
    owners = {}
    for person, marks in rows(con, "SELECT person, list(DISTINCT r) FROM rx.audit, "
                                   "unnest(regexp_extract_all(text, '\\[[A-Z]+#\\d+\\]')) AS u(r) GROUP BY person"):
        for m in marks:
            assert owners.setdefault(m, person) == person, m   # no two persons share one
    assert len(owners) >= 6


def test_an_operators_check_runs_when_the_configuration_names_it(registered):
    with pytest.raises(ConfigError, match="anonymization.mask: the picky operator"):
        demo_config(operator="picky", mask="***")
    with pytest.raises(ConfigError, match="picky"):
        demo_config(label_operators={"ORG": "picky"}, mask="***")
    assert demo_config(operator="picky").operator == "picky"
    assert demo_config(mask="***").mask == "***"          # not named: not checked


def test_the_command_line_offers_a_registered_operator(registered):
    assert "category" in CliRunner().invoke(main, ["demo", "--help"]).output
    refused = CliRunner().invoke(main, ["demo", "--operator", "nosuch"])
    assert refused.exit_code == 2 and "'category'" in refused.output


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(assignment=st.dictionaries(st.sampled_from(["PERSON", "JOB", "GPE", "DATE", "ORG"]),
                                  st.sampled_from(["category", "numbered", "label", "tag", "generalize"]), max_size=4),
       default=st.sampled_from(["category", "numbered", "mask"]), k=st.integers(2, 3))
def test_any_mix_with_registered_operators_is_k_anonymous_and_leak_free(registered, assignment, default, k):
    con = demo(label_operators=assignment, operator=default, k=k, fallback="numbered")
    v = verify(con)
    assert v.ok, (v.failing, v.leaks, v.identifiers)
    for label, replacement, operator in rows(con, "SELECT label, replacement, operator FROM rx.replacements "
                                                  "WHERE reason = 'suppressed'"):
        if operator == "category":
            assert replacement == f"<{label.lower()}>"
        elif operator == "numbered":
            assert re.fullmatch(rf"\[{label}#\d+\]", replacement)


# --- the registry ------------------------------------------------------------------------------

def test_recode_text_names_no_operator():
    """Adding an operator edits no SQL file: recode_text.sql holds no operator's name."""
    text = resources.files("sql").joinpath("recode_text.sql").read_text()
    for name in operators.names():
        assert f"'{name}'" not in text, name
    assert "rx_operator_replacement()" in text


def test_recode_text_is_rendered_from_the_registry(registered):
    rendered = " ".join(sql for sql, _ in statements("recode_text", "rx", True, operators.expansions()))
    assert "WHEN 'category' THEN '<' || LOWER(t.label) || '>'" in rendered
    assert "IN ('tag', 'pseudonymize', 'numbered')" in rendered
    calls = {f.name for sql, _ in statements("recode_text", "rx", True, operators.expansions())
             for f in sqlglot.parse_one(sql, read="duckdb").find_all(exp.Anonymous)}
    assert not any(name.startswith("rx_operator") for name in calls), calls


class Nothing(Operator):
    name = "nothing"

    def replacement(self) -> exp.Expression:
        return exp.Null()


def test_an_operator_that_gives_null_is_named():
    register(Nothing)
    try:
        with pytest.raises(ConfigError, match="text operator 'nothing' gave no replacement"):
            demo(label_operators={"ORG": "label", "GPE": "nothing"})
    finally:
        operators.REGISTRY.pop("nothing")


class NotAnOperator:
    name = "stray"


class BadName(Operator):
    name = "Has Space"


class BadReason(Operator):
    name = "odd"
    reason = "kept"


class Twin(Operator):
    name = "label"


@pytest.mark.parametrize("cls, match", [
    (NotAnOperator, "is not a subclass"), (BadName, "lower-case identifier, got 'Has Space'"),
    (BadReason, "'odd': reason must be one of"), (Twin, "'label' is registered twice"),
])
def test_the_registry_refuses_what_it_cannot_run(cls, match):
    before = dict(operators.REGISTRY)
    with pytest.raises(ConfigError, match=match):
        register(cls)
    assert operators.REGISTRY == before
    with pytest.raises(ConfigError, match="no text operator 'nosuch'"):
        operators.get("nosuch")


def test_the_reuse_fingerprint_holds_the_registered_operators_code():
    before = reuse._code()
    register(Category)
    try:
        with_category = reuse._code()
    finally:
        operators.REGISTRY.pop("category")
    assert with_category != before and reuse._code() == before


# --- an operator with a setting, from this file alone -------------------------------------------

def test_an_operator_declares_its_own_setting(stars):
    """The key is read, type-checked and checked by its declaration, shows in rx.operator_settings
    for the replacement to read, retunes, and has its row in the docs' table."""
    cfg = config_from("""
[source]
relations = ["t"]
[attributes.age]
type = "numeric"
[anonymization]
operator = "stars"
stars = 5
""")
    assert cfg.stars == 5 and demo_config().stars == 3
    with pytest.raises(ConfigError, match="anonymization.stars must be int"):
        config_from('[source]\nrelations = ["t"]\n[attributes.age]\ntype = "numeric"\n[anonymization]\nstars = "5"\n')
    with pytest.raises(ConfigError, match="anonymization.stars must be an integer from 1 to 20, got 0"):
        demo_config(stars=0)
    assert "stars" in reuse.retune()
    assert "| `anonymization.stars` | integer | `3` | retunes |" in settings_table()
    con = demo(operator="stars", stars=4)
    assert texts(con)[1] == "My name is ****, I\u2019m a [36-37] years old **** from ****."
    assert verify(con).ok


def test_an_operators_setting_leaves_with_it():
    assert "stars" not in reuse.retune()
    with pytest.raises(ConfigError, match="unknown configuration key anonymization.'stars'"):
        config_from('[source]\nrelations = ["t"]\n[attributes.age]\ntype = "numeric"\n[anonymization]\nstars = 5\n')
