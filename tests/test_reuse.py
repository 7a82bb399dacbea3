"""A run that changes only parameters of partitioning, recoding and measures keeps the last run's
join, terms, linking and persons (reuse.py): its tables must be those of a full run."""
from __future__ import annotations

import dataclasses
import shutil
import tomllib
from unittest import mock

import duckdb
import pytest

from helpers import demo_config, differing_rows, rows, rx_tables, scalar
from rxanon_sql.config import parse_config
from rxanon_sql.generate import config_text, generate, prefill_cache
from rxanon_sql.join import InputError
from rxanon_sql.pipeline import apply
from rxanon_sql.reuse import retune

BASE = parse_config(tomllib.loads(config_text())).with_overrides(secret="one")


def _every_retune_setting_changed(cfg):
    """Another value for every setting that retunes (and every attribute's bias)."""
    changed = cfg.with_overrides( k=3, lam=0.9, strategy="gdf", nominal_order="frequency", operator="pseudonymize",
        label_operators={"GPE": "generalize", "PERSON": "tag"}, fallback="mask", mask="###", secret="two",
        locale="de_DE", w_a=2.0, w_x=0.5, label_bias={"DATE": 0.3}, batch_size=64, workers=2, in_memory_rows=0,
        attributes=tuple(dataclasses.replace(a, bias=0.25) for a in cfg.attributes))
    # (l and t need a sensitive attribute, which this dataset lacks: tests/test_diversity.py
    # retunes them)
    assert all(getattr(changed, f) != getattr(cfg, f) for f in retune() if f not in ("l", "t"))
    return changed


# (with the rare-token guard on, k is also the guard's threshold and changes the terms:
# test_k_rebuilds_the_terms_when_the_rare_guard_is_on)
VARIANTS = {
    "k and lambda": lambda cfg: dataclasses.replace(cfg, rare_guard=False).with_overrides(k=4, lam=0.1),
    "lambda, guard on": lambda cfg: cfg.with_overrides(lam=0.1),
    "every retune setting": lambda cfg: _every_retune_setting_changed(dataclasses.replace(cfg, rare_guard=False)),
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    path = tmp_path_factory.mktemp("reuse") / "generated.duckdb"
    con = duckdb.connect(str(path))
    generate(con, 90, 3, seed=5)
    prefill_cache(con, BASE)
    con.close()
    return path


# the per-run salts (tag order, audit order) fixed, so that two runs can be compared
SALT = "5a17" * 8


@pytest.fixture(scope="module")
def based(generated, tmp_path_factory):
    """The generated database after one full run of BASE, with the rare-token guard on (True) and
    off (False): the run each test retunes or changes, made once for the module (tests copy it)."""
    out = {}
    for guard in (True, False):
        path = tmp_path_factory.mktemp("based") / "based.duckdb"
        shutil.copy(generated, path)
        con = duckdb.connect(str(path))
        with mock.patch("secrets.token_hex", lambda n=None: SALT):
            assert not apply(con, dataclasses.replace(BASE, rare_guard=guard)).reused
        con.close()
        out[guard] = path
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_retuned_run_reuses_and_equals_a_full_run(generated, based, tmp_path, monkeypatch, variant):
    monkeypatch.setattr("secrets.token_hex", lambda n=None: SALT)
    retuned = VARIANTS[variant](BASE)
    # (database a: the full run of BASE with the retuned configuration's guard, then the retune)
    shutil.copy(based[retuned.rare_guard], tmp_path / "a.duckdb")
    shutil.copy(generated, tmp_path / "b.duckdb")
    con = duckdb.connect(str(tmp_path / "a.duckdb"))
    assert apply(con, retuned).reused
    full = duckdb.connect(str(tmp_path / "b.duckdb"))
    assert not apply(full, retuned, reuse=False).reused
    full.close()
    con.execute(f"ATTACH '{tmp_path / 'b.duckdb'}' AS fresh (READ_ONLY)")
    names = rx_tables(con)
    assert {"terms", "person_terms", "partitions", "release", "audit", "ncp"} <= set(names)
    for name in sorted(set(names) - {"runs", "reusable"}):
        for a, b in (("a", "fresh"), ("fresh", "a")):
            assert differing_rows(con, name, a, b) == 0, (name, a, b)
    assert rows(con, "SELECT reused FROM rx.runs ORDER BY run_id") == [(False,), (True,)]


def test_k_rebuilds_the_terms_when_the_rare_guard_is_on(based, tmp_path):
    shutil.copy(based[True], tmp_path / "a.duckdb")          # (after a full run of BASE)
    con = duckdb.connect(str(tmp_path / "a.duckdb"))
    assert not apply(con, BASE.with_overrides(k=BASE.k + 1)).reused
    assert apply(con, BASE.with_overrides(k=BASE.k + 1, lam=0.2)).reused


def test_any_other_change_builds_every_stage(based, tmp_path):
    shutil.copy(based[True], tmp_path / "a.duckdb")          # (after a full run of BASE)
    con = duckdb.connect(str(tmp_path / "a.duckdb"))
    assert not apply(con, BASE, reuse=False).reused
    assert apply(con, BASE).reused
    # a setting that terms, linking or persons read
    no_dates = dataclasses.replace(BASE, labels=tuple(x for x in BASE.labels if x != "DATE"))
    assert not apply(con, no_dates).reused
    assert apply(con, no_dates).reused
    # one character of one text (the NER cache then lacks the text: NER runs for it)
    con.execute("UPDATE posts SET text = text || '.' WHERE rowid = (SELECT min(rowid) FROM posts)")
    report = apply(con, no_dates)
    assert not report.reused and report.counts["texts_recognized"] == 1
    # one relational value
    con.execute("UPDATE authors SET age = age + 1 WHERE rowid = (SELECT min(rowid) FROM authors)")
    assert not apply(con, no_dates).reused
    # a table the reused stages left, dropped by hand
    assert apply(con, no_dates).reused
    con.execute("DROP TABLE rx.person_terms")
    assert not apply(con, no_dates).reused
    assert scalar(con, "SELECT count(*) FROM rx.person_terms") > 0


def test_a_reused_run_still_checks_k_against_the_persons(demo_con_rw):
    con = demo_con_rw       # (a copy of the demo's release: conftest.demo_db)
    before = rows(con, "SELECT * FROM rx.release ORDER BY ALL")
    with pytest.raises(InputError, match="6 persons in column 'id', fewer than k = 7"):
        apply(con, demo_config(k=7))
    assert rows(con, "SELECT * FROM rx.release ORDER BY ALL") == before


def test_a_runs_table_of_an_earlier_version_gets_the_new_columns(demo_con_rw):
    con = demo_con_rw       # (a copy of the demo's release: conftest.demo_db)
    for column in ("reused", "ncp_a", "ncp_x", "ncp"):
        con.execute(f"ALTER TABLE rx.runs DROP COLUMN {column}")
    assert apply(con, demo_config(lam=0.3)).reused
    assert rows(con, "SELECT lam, reused FROM rx.runs ORDER BY run_id") == [(0.5, None), (0.3, True)]
    # each run's NCP is kept beside its parameters, for comparing settings
    assert rows(con, "SELECT ncp_a, ncp_x, ncp FROM rx.runs ORDER BY run_id DESC LIMIT 1") == \
        rows(con, "SELECT ncp_a, ncp_x, ncp FROM rx.ncp")
    assert rows(con, "SELECT count(*) FROM rx.runs WHERE ncp IS NULL") == [(1,)]
