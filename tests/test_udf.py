"""rxanon_sql/udf.py: Arrow's memory pool during a run."""
from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from helpers import demo_config
from rxanon_sql.demo import write_demo_database
from rxanon_sql.pipeline import apply
from rxanon_sql.udf import system_allocator
from udfs import find


@pytest.fixture(autouse=True)
def mimalloc_pool():
    """A pool other than the system's to start from (Arrow's default here), so that putting it
    back is seen."""
    previous = pa.default_memory_pool()
    try:
        pa.set_memory_pool(pa.mimalloc_memory_pool())
    except NotImplementedError:
        pytest.skip("this pyarrow has no mimalloc")
    yield
    pa.set_memory_pool(previous)


def test_the_search_allocates_from_the_system_pool_and_the_pool_is_put_back(monkeypatch):
    seen = []
    original = find.find_texts_sliced

    def recording(*args, **kwargs):
        seen.append(pa.default_memory_pool().backend_name)
        return original(*args, **kwargs)
    monkeypatch.setattr(find, "find_texts_sliced", recording)
    con = duckdb.connect(":memory:")
    write_demo_database(con)
    apply(con, demo_config())
    assert seen and set(seen) == {"system"}
    assert pa.default_memory_pool().backend_name == "mimalloc"


def test_the_pool_is_put_back_when_the_run_fails():
    with pytest.raises(RuntimeError):
        with system_allocator():
            assert pa.default_memory_pool().backend_name == "system"
            raise RuntimeError("a failed run")
    assert pa.default_memory_pool().backend_name == "mimalloc"
