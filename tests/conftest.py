"""Shared fixtures: small databases built here (the paper's running example is typed into
rxanon_sql.demo; nothing is read from ../shared)."""
from __future__ import annotations

import duckdb
import pytest

from helpers import demo_config
from rxanon_sql.demo import write_demo_database
from rxanon_sql.pipeline import apply


@pytest.fixture
def demo_con():
    """The running example anonymized with the demo configuration (k=2, lambda=0.5)."""
    con = duckdb.connect(":memory:")
    write_demo_database(con)
    apply(con, demo_config())
    yield con
    con.close()


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory):
    """A demo database file, anonymized once for the read-only tests of a session."""
    path = str(tmp_path_factory.mktemp("demo") / "demo.duckdb")
    con = duckdb.connect(path)
    write_demo_database(con)
    apply(con, demo_config())
    con.close()
    return path


def pytest_collection_modifyitems(items):
    """The Spark tests (marked with their xdist group) first: a module runs on one worker
    (--dist loadfile), and tests/test_spark.py holds its worker for several minutes while the
    others share the rest; collected last, it was the run's tail."""
    items.sort(key=lambda item: item.get_closest_marker("xdist_group") is None)
