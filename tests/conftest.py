"""Shared fixtures: small databases built here (the paper's running example is typed into
rxanon_sql.demo; nothing is read from ../shared)."""
from __future__ import annotations

import shutil

import duckdb
import pytest

from helpers import demo_config
from rxanon_sql.demo import write_demo_database
from rxanon_sql.pipeline import apply


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory):
    """A demo database file, anonymized once per worker for the tests of a session (the running
    example with the demo configuration, k=2, lambda=0.5). Tests open it read-only or copy it."""
    path = str(tmp_path_factory.mktemp("demo") / "demo.duckdb")
    con = duckdb.connect(path)
    write_demo_database(con)
    apply(con, demo_config())
    con.close()
    return path


@pytest.fixture
def demo_con(demo_db):
    """The demo release, read-only: a test that only reads it shares the session's one apply."""
    con = duckdb.connect(demo_db, read_only=True)
    yield con
    con.close()


@pytest.fixture
def demo_con_rw(demo_db, tmp_path):
    """A writable copy of the demo release, for the tests that change it or run apply again."""
    path = tmp_path / "demo.duckdb"
    shutil.copyfile(demo_db, path)
    con = duckdb.connect(str(path))
    yield con
    con.close()


def pytest_collection_modifyitems(items):
    """The Spark tests (marked with their xdist group) first: a module runs on one worker
    (--dist loadfile), and tests/test_spark.py holds its worker for several minutes while the
    others share the rest; collected last, it was the run's tail."""
    items.sort(key=lambda item: item.get_closest_marker("xdist_group") is None)
