"""The Aho-Corasick search of udfs/find.py finds what the regular expression finds (its oracle,
find_needles.alternation), as properties on random texts and needles: unicode, case forms re equates,
white space of every kind, glue characters, needles that overlap one another."""
from __future__ import annotations

import sys

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from udfs import find, find_needles
from udfs.find_read import _fold_code

# letters, digits and _, punctuation, white space beyond a space, characters re folds to ASCII
# letters (ı İ ſ K), sigma's case forms, U+0345 (no word character, whose fold ι is one), glue
# (zero-width space, soft hyphen, NUL, \x03), and a letter outside the BMP
ALPHABET = "abAB_9 -.’\t\n\x0b\x1c\xa0\u2003öÖıİſKΣσςͅι\u200b\xad\x00\x03𝒜"
texts = st.text(alphabet=ALPHABET, max_size=40)
needles = st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=6), max_size=6)


def oracle(text, needle_list):
    pattern = find_needles.alternation(needle_list)
    return [] if not text else find._glue_aware(text, lambda t: find_needles.search_regex(t, pattern))


@settings(max_examples=400, deadline=None)
@given(texts, needles)
def test_one_text_by_the_automaton_is_the_regular_expression(text, needle_list):
    needle_list = [n for n in needle_list if n.strip()]
    if not text or not needle_list:
        return
    table = find_needles.Needles(pa.array([needle_list], pa.list_(pa.string())))
    assert find._search_one(text, table) == find_needles.search_regex(text, find_needles.alternation(needle_list))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(texts, needles), min_size=1, max_size=8))
def test_rows_with_their_own_needles_are_the_regular_expression(rows):
    out = find.find_all_arrow(pa.array([t for t, _ in rows], pa.string()), pa.array([n for _, n in rows], pa.list_(pa.string())))
    assert [[(m["start_pos"], m["end_pos"], m["needle"]) for m in row] for row in out.to_pylist()] == \
        [oracle(t, n) for t, n in rows]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.lists(texts, max_size=4), needles), min_size=1, max_size=6), st.sampled_from([1, 30, 1 << 20]))
def test_groups_of_texts_sliced_anywhere_are_the_regular_expression(groups, slice_bytes):
    items = [[{"id": 10 * g + i, "text": t} for i, t in enumerate(ts)] for g, (ts, _) in enumerate(groups)]
    expected = [[{"id": x["id"], "start_pos": s, "end_pos": e, "needle": n} for x in row for s, e, n in oracle(x["text"], ns)]
                for row, (_, ns) in zip(items, groups)]
    arrow_items = pa.array(items, pa.list_(pa.struct([("id", pa.int64()), ("text", pa.string())])))
    out = find.find_texts_sliced(arrow_items, pa.array([n for _, n in groups], pa.list_(pa.string())), slice_bytes)
    assert out.to_pylist() == expected


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(texts, min_size=1, max_size=10), needles), min_size=1, max_size=5),
       st.sampled_from([0, 30, 1 << 30]))
def test_each_group_by_its_own_automaton_is_the_regular_expression(groups, run_chars):
    # (the thresholds lowered, so that every group is searched by an automaton of its own needles
    # and the glued texts of all groups in one search per reading, as on a large corpus; with
    # run_chars, the groups of fewer characters together, by an automaton of their needles)
    items = [[{"id": 100 * g + i, "text": t} for i, t in enumerate(ts)] for g, (ts, _) in enumerate(groups)]
    expected = [[{"id": x["id"], "start_pos": s, "end_pos": e, "needle": n} for x in row for s, e, n in oracle(x["text"], ns)]
                for row, (_, ns) in zip(items, groups)]
    arrow_items = pa.array(items, pa.list_(pa.struct([("id", pa.int64()), ("text", pa.string())])))
    share, count, chars = find.GROUP_SHARE, find.GROUP_TEXTS, find.RUN_CHARS
    find.GROUP_SHARE, find.GROUP_TEXTS, find.RUN_CHARS = 0, 1, run_chars
    try:
        out = find.find_texts_sliced(arrow_items, pa.array([n for _, n in groups], pa.list_(pa.string())), 1 << 20)
    finally:
        find.GROUP_SHARE, find.GROUP_TEXTS, find.RUN_CHARS = share, count, chars
    assert out.to_pylist() == expected


def test_overlapping_needles_and_white_space():
    text = "New\t\tYork  City, new york; NEW-YORK cityscape ſt. louis İstanbul ΟΔΟΣ"
    needle_list = ["new york", "york city", "new  york city", "new", "city", "st. louis", "istanbul", "οδοσ", "ς"]
    got = find.find_all_arrow(pa.array([text]), pa.array([needle_list])).to_pylist()[0]
    assert [(m["start_pos"], m["end_pos"], m["needle"]) for m in got] == oracle(text, needle_list)
    assert [m["needle"] for m in got] == ["new york city", "new york", "new", "ſt. louis", "i̇stanbul", "οδος"]


def test_the_fold_keeps_white_space():
    # The search form folds, then reads white space in the fold: it must be the original's.
    assert not [c for c in range(sys.maxunicode + 1) if chr(c).isspace() != chr(_fold_code(c)).isspace()]


def assert_sliced_search_is_the_oracle(groups):
    """groups: (texts, needles) per group; find_texts_sliced finds what the regular expression does."""
    items = [[{"id": 100 * g + i, "text": t} for i, t in enumerate(ts)] for g, (ts, _) in enumerate(groups)]
    expected = [[{"id": x["id"], "start_pos": s, "end_pos": e, "needle": n} for x in row for s, e, n in oracle(x["text"], ns)]
                for row, (_, ns) in zip(items, groups)]
    arrow_items = pa.array(items, pa.list_(pa.struct([("id", pa.int64()), ("text", pa.string())])))
    out = find.find_texts_sliced(arrow_items, pa.array([n for _, n in groups], pa.list_(pa.string())), 1 << 20)
    assert out.to_pylist() == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.lists(texts, min_size=1, max_size=4), needles), min_size=3, max_size=6), st.data())
def test_glued_texts_of_a_few_groups_by_their_groups_automaton_are_the_regular_expression(groups, data):
    # (glue in the texts of one group only: the texts read apart are searched by an automaton of
    # that group's needles, not of all groups': Needles.of_groups)
    glued = data.draw(st.integers(0, len(groups) - 1))
    groups = [([t.replace("\u200b", "").replace("\xad", "").replace("\x00", "").replace("\x03", "") for t in ts]
               if g != glued else [t + "\u200bb" for t in ts], ns) for g, (ts, ns) in enumerate(groups)]
    assert_sliced_search_is_the_oracle(groups)


GLUE = "\u200b\xad\x00\x03"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(texts, min_size=1, max_size=4),
                          st.lists(st.tuples(st.text(alphabet=ALPHABET, max_size=3), st.sampled_from(GLUE),
                                             st.text(alphabet=ALPHABET, max_size=3)).map("".join), max_size=4)),
                min_size=1, max_size=5))
def test_needles_with_glue_only_are_found_where_their_glue_is_written(groups):
    # (a group whose every needle holds glue is not searched in the readings of its texts without
    # glue, find._search_apart: such a needle is found only where its glue is written)
    assert_sliced_search_is_the_oracle(groups)
