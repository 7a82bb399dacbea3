"""Parallel NER through worker processes gives exactly what the in-process recognizer gives."""
from __future__ import annotations

import pyarrow as pa
import pytest

from udfs.ner import TextRecognizer
from udfs.parallel import ParallelRecognizer

TEXTS = ["My name is Pedro, I'm a 36 years old engineer from Mexico.", None, "",
         "Write to pedro@example.com or call +1 415 723 4567.",
         "During my last business trip to Canada I met my friend Ben from college."] * 5


def test_two_workers_equal_one_process():
    expected = TextRecognizer().arrow(pa.array(TEXTS, pa.string()))
    with ParallelRecognizer(2, slice_size=3) as pool:
        # every worker has loaded its pipeline before the pool is used: the barrier gave each
        # of the two workers one of the ready calls
        assert len(set(pool.pids)) == 2
        got = pool.arrow(pa.array(TEXTS, pa.string()))
        assert pool.arrow(pa.array([], pa.string())).to_pylist() == []
    assert got.to_pylist() == expected.to_pylist()


def test_missing_pipeline_fails_fast():
    from udfs.ner import PipelineNotFound
    with pytest.raises(PipelineNotFound):
        ParallelRecognizer(2, pipeline="no_such_pipeline_xyz")


def test_slices_cover_the_batch_in_order_and_shrink():
    from udfs.parallel import slices
    lengths = [50, 3000, 1, 400] * 500
    cuts = slices(lengths, workers=2, rows=128, least=500)
    assert cuts[0][0] == 0 and cuts[-1][1] == len(lengths)
    assert all(a < b and b - a <= 128 for a, b in cuts)
    assert all(b == c for (_, b), (c, _) in zip(cuts, cuts[1:]))
    weight = [sum(lengths[a:b]) for a, b in cuts]
    assert max(weight[-3:]) < max(weight) / 4     # the workers finish together
    assert slices([], 2, 128) == [] and slices([10], 2, 128) == [(0, 1)]

