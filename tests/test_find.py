"""The fast path of rx_find for ASCII texts gives exactly what the one-regex search gives."""
from __future__ import annotations

import random

import pyarrow as pa

from rxanon_sql.udfs import find


def _regex(text, needles):
    pat = find._pattern(tuple(needles))
    return [] if pat is None else [(m.start(), m.end(), " ".join(m.group(0).lower().split())) for m in pat.finditer(text)]


def test_ascii_fast_path_equals_alternation():
    rng = random.Random(3)
    for _ in range(20000):
        text = "".join(rng.choice("ab AB_-.1\n\t") for _ in range(rng.randint(1, 25)))
        needles = ["".join(rng.choice("abAB _-.1") for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(1, 4))]
        assert find._find_ascii(text, needles) == _regex(text, needles), (text, needles)


def test_arrow_shape():
    out = find.find_all_arrow(pa.array(["New  York and new york city", None, "x"]),
                              pa.array([["new york", "new york city"], ["a"], None]))
    assert out.to_pylist() == [
        [{"start_pos": 0, "end_pos": 9, "needle": "new york"}, {"start_pos": 14, "end_pos": 27, "needle": "new york city"}],
        [], []]
