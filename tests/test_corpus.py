"""udfs/corpus.py: every text searched for every needle of the corpus at once."""
from __future__ import annotations

import re

import pyarrow as pa
from hypothesis import given, settings, strategies as st

from udfs.corpus import CorpusSearcher, all_keys, key, key_arrow, keys


def found(searcher, texts):
    return [(i, texts[i][s:e], searcher.norms[n][0], bool(c)) for i, s, e, n, c in zip(*searcher.search(texts))]


def test_whole_words_in_any_case_and_any_separator():
    s = CorpusSearcher(["george", "st. louis", "new york"])
    texts = ["Georges and george_x, GEORGE.", "From ST-LOUIS to st louis", "New\n\tYork! new york"]
    assert found(s, texts) == [
        (0, "GEORGE", "george", True),
        (1, "ST-LOUIS", "st. louis", True), (1, "st louis", "st. louis", False),
        (2, "New\n\tYork", "new york", True), (2, "new york", "new york", False)]


def test_overlapping_matches_are_all_returned_and_capitals_are_per_word():
    s = CorpusSearcher(["new york", "york", "new york city"])
    got = found(s, ["In New York city."])
    assert got == [(0, "New York city", "new york city", False), (0, "New York", "new york", True),
                   (0, "York", "york", True)]


def test_no_match_across_two_texts_of_a_batch_and_none_in_empty_ones():
    s = CorpusSearcher(["bob smith"])
    assert found(s, ["said bob", None, "", "smith said"]) == []
    arrow = s.arrow(pa.array(["bob smith", None, "x BOB  SMITH"]))
    assert [len(v) for v in arrow.to_pylist()] == [1, 0, 1]
    assert arrow.to_pylist()[2] == [{"start_pos": 2, "end_pos": 12, "needle": "bob smith", "capital": True}]


def test_offsets_beyond_ascii_and_with_characters_that_lower_to_two():
    s = CorpusSearcher(["zoë", "istanbul"])
    text = "İİ Zoë in İstanbul, zoë."
    got = found(s, [text])
    assert [(t, c) for _, t, _, c in got] == [("Zoë", True), ("zoë", False)]
    assert key("İstanbul") is not None


def test_every_norm_of_a_key_is_reported():
    s = CorpusSearcher(["good bye", "good-bye", "goodbye"])
    arrow = s.arrow(pa.array(["Good-bye now"])).to_pylist()[0]
    assert sorted(m["needle"] for m in arrow) == ["good bye", "good-bye"] and {m["start_pos"] for m in arrow} == {0}


def test_needles_without_a_word_character_are_ignored():
    assert CorpusSearcher(["...", "", "-"]).empty


_WORDS = st.sampled_from(["ann", "Ann", "lee", "LEE", "jo", "ann-lee", "x", "café", "Zoë", "ß", "über"])
_SEPS = st.sampled_from([" ", "  ", "\n", ", ", "-", "_", ".", "", "é"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_WORDS, _SEPS), max_size=12), st.lists(st.lists(_WORDS, min_size=1, max_size=3), min_size=1, max_size=4))
def test_every_whole_word_occurrence_is_found(parts, needle_words):
    """Against a regular expression per needle: every place where the needle's words stand as
    whole words, separated by non-word characters only, is a match, and every match is one."""
    text = "".join(w + sep for w, sep in parts)
    needles = [" ".join(ws) for ws in needle_words]
    s = CorpusSearcher(needles)
    got = {(st_, e, norm) for _, st_, e, n, _ in zip(*s.search([text])) for norm in s.norms[n]}
    expected = set()
    for norm in {n for norms in s.norms for n in norms}:
        words = re.findall(r"\w+", norm.lower())
        pattern = re.compile(r"(?<!\w)" + r"\W+".join(map(re.escape, words)) + r"(?!\w)", re.IGNORECASE)
        for start in range(len(text)):
            m = pattern.match(text, start)
            if m and text[m.start():m.end()].lower() == text[m.start():m.end()].lower():
                expected.add((m.start(), m.end(), norm))
    # (keys that lower-case differently than the regex folds, ß/ss, are left aside)
    expected = {x for x in expected if key(text[x[0]:x[1]]) == key(x[2])}
    assert got == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.lists(st.tuples(_WORDS, _SEPS), max_size=6)
                          .map(lambda ps: "".join(w + sep for w, sep in ps))), max_size=12),
       st.integers(1, 40))
def test_a_search_in_pieces_finds_what_one_search_finds(texts, piece):
    """search() cuts its texts into pieces of about PIECE_CHARS characters (memory): the same
    matches, at the same texts, as one search of them all."""
    import udfs.corpus as corpus
    s = CorpusSearcher(["ann lee", "jo", "zoë", "x", "über"])
    whole = s._search(texts)
    saved, corpus.PIECE_CHARS = corpus.PIECE_CHARS, piece
    try:
        cut = s.search(texts)
    finally:
        corpus.PIECE_CHARS = saved
    assert [a.tolist() for a in cut] == [a.tolist() for a in whole]


def test_resolve_keeps_the_longest_then_whatever_overlaps_nothing_kept():
    from udfs.corpus import resolve_arrow
    m = lambda s, e, n: {"start_pos": s, "end_pos": e, "needle": n}  # noqa: E731
    # "EDITOR STATUS OR HER" loses to the longer "STATUS OR HER FAVORITE"; "EDITOR" then
    # overlaps nothing kept and stays (dropping every match a better one overlaps lost it)
    text = "EDITOR STATUS OR HER FAVORITE"
    cluster = [m(0, 6, "editor"), m(0, 20, "editor status or her"), m(7, 29, "status or her favorite")]
    assert resolve_arrow(pa.array([[cluster]]), pa.array([text])).to_pylist() == [
        [m(7, 29, "status or her favorite"), m(0, 6, "editor")]]


def test_resolve_widens_a_loser_that_would_leave_a_word_bare():
    from udfs.corpus import resolve_arrow
    m = lambda s, e, n: {"start_pos": s, "end_pos": e, "needle": n}  # noqa: E731
    # "RITA MENDES THE MEETING" loses to the longer "MENDES THE MEETING MOVED": kept apart,
    # "RITA" stayed readable; widened, the two are one match. A second cluster of the same text
    # is resolved on its own.
    text = "TELL RITA MENDES THE MEETING MOVED. Ana Sousa"
    rita = [m(5, 28, "rita mendes the meeting"), m(12, 36, "mendes the meeting moved")]
    ana = [m(37, 40, "ana"), m(37, 46, "ana sousa")]
    assert resolve_arrow(pa.array([[rita, ana]]), pa.array([text])).to_pylist() == [
        [m(5, 36, "mendes the meeting moved"), m(37, 46, "ana sousa")]]



# ASCII, glue (ASCII and not), characters beyond ASCII that lower to two, separators
_KEY_CHARS = st.sampled_from(list("aZ_9 -.'\t\n\x00\x07\x1b\x1c\x7f\x85\u200bÉéİß’,\x92"))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(_KEY_CHARS, max_size=8)), max_size=20))
def test_all_keys_at_once_are_keys_one_by_one(norms):
    assert all_keys(norms) == [None if n is None else keys(n) for n in norms]
    assert key_arrow(pa.array(norms, pa.string())).to_pylist() == [None if n is None else key(n) for n in norms]
