"""rx_find and rx_find_texts give exactly what the one-regex search (find_needles.alternation) gives."""
from __future__ import annotations

import random

import pyarrow as pa

from udfs import find, find_needles


def _regex(text, needles):
    pat = find_needles.pattern(tuple(needles))
    return [] if pat is None else [(m.start(), m.end(), " ".join(m.group(0).lower().split())) for m in pat.finditer(text)]


def test_automaton_equals_alternation():
    rng = random.Random(3)
    rows = []
    for _ in range(20000):
        text = "".join(rng.choice("ab AB_-.1\n\t") for _ in range(rng.randint(1, 25)))
        needles = ["".join(rng.choice("abAB _-.1") for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(1, 4))]
        rows.append((text, needles))
    out = find.find_all_arrow(pa.array([t for t, _ in rows]), pa.array([n for _, n in rows]))
    for (text, needles), got in zip(rows, out.to_pylist()):
        assert [(m["start_pos"], m["end_pos"], m["needle"]) for m in got] == _regex(text, needles), (text, needles)


def test_arrow_shape():
    out = find.find_all_arrow(pa.array(["New  York and new york city", None, "x"]),
                              pa.array([["new york", "new york city"], ["a"], None]))
    assert out.to_pylist() == [
        [{"start_pos": 0, "end_pos": 9, "needle": "new york"}, {"start_pos": 14, "end_pos": 27, "needle": "new york city"}],
        [], []]


def _groups(rng, text_chars, needle_chars, n_groups):
    items, needle_sets = [], []
    for g in range(n_groups):
        texts = ["".join(rng.choice(text_chars) for _ in range(rng.randint(0, 30))) for _ in range(rng.randint(0, 4))]
        needles = ["".join(rng.choice(needle_chars) for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(0, 6))]
        items.append([{"id": 10 * g + i, "text": t} for i, t in enumerate(texts)] if texts or g % 2 else None)
        needle_sets.append(needles if g % 7 else None)
    return items, needle_sets


def _group_search_equals_text_search(items, needle_sets, slice_bytes=None):
    expected = [[{"id": x["id"], "start_pos": s, "end_pos": e, "needle": n}
                 for x in group for s, e, n in find.find_all(x["text"], needles)]
                if group is not None and needles is not None else []
                for group, needles in zip(items, needle_sets)]
    arrow_items = pa.array(items, type=pa.list_(pa.struct([("id", pa.int64()), ("text", pa.string())])))
    needles = pa.array(needle_sets[1:], pa.list_(pa.string()))
    out = find.find_texts_arrow(arrow_items.slice(1), needles) if slice_bytes is None else \
        find.find_texts_sliced(arrow_items.slice(1), needles, slice_bytes)
    assert out.to_pylist() == expected[1:]
    return sum(map(len, expected))


def test_slices_cut_through_rows_and_give_what_one_search_gives():
    # slices smaller than one text, and slices that end inside a row, between rows or after
    # empty and null rows
    for slice_bytes in (1, 25, 60):
        rng = random.Random(slice_bytes)
        assert _group_search_equals_text_search(*_groups(rng, "ab AB_-.1\n", "abAB _-.1", 400), slice_bytes)
        assert _group_search_equals_text_search(*_groups(rng, "ab AB_-.1\nzöÖé\xa0’ıİſKΣσς\x01\x02", "abAB _-.1öÖ\xa0’ıſσς\x01", 400),
                                                slice_bytes)


def test_texts_of_a_group_give_what_each_text_gives():
    rng = random.Random(5)
    # ASCII, where the index finds every needle with a word character
    assert _group_search_equals_text_search(*_groups(rng, "ab AB_-.1\n", "abAB _-.1", 3000))
    # beyond ASCII: letters, white space and punctuation beyond ASCII, characters that fold to
    # ASCII letters, sigma's case forms, and the placeholder characters themselves
    assert _group_search_equals_text_search(*_groups(rng, "ab AB_-.1\nzöÖé\xa0’ıİſKΣσς\x01\x02", "abAB _-.1öÖ\xa0’ıſσς\x01", 3000))
    assert _group_search_equals_text_search(*_groups(rng, "ab AB-.\nöÖé\xa0’", "abAB -.öÖé\xa0’", 3000))


def test_own_needles_searched_apart_in_the_same_pass():
    # rx_find_texts_own: a text's matches of its group's needles are those rx_find_texts finds,
    # and its matches of its own set's needles those rx_find finds with them, each search
    # resolving only its own overlaps; slices cut through rows and texts as before.
    for seed, text_chars, needle_chars in ((21, "ab AB_-.1\n", "abAB _-.1"),
                                           (22, "ab AB_-.1\nzöÖé\xa0’ıİſKΣσς\x01\x02", "abAB _-.1öÖ\xa0’ıſσς\x01")):
        rng = random.Random(seed)
        items, needle_sets = _groups(rng, text_chars, needle_chars, 1500)
        sets = [[]] + [["".join(rng.choice(needle_chars) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 6))]
                       for _ in range(40)] + [None]
        for group in items:
            for x in group or []:
                x["own"] = rng.choice([None, 0, *range(1, len(sets))])
        expected = []
        for group, needles in zip(items, needle_sets):
            found = []
            for x in group or []:
                hits = [(s, False, e, n) for s, e, n in (find.find_all(x["text"], needles) if needles is not None else [])]
                hits += [(s, True, e, n) for s, e, n in find.find_all(x["text"], sets[x["own"] or 0])]
                found += [{"id": x["id"], "start_pos": s, "end_pos": e, "needle": n, "own": own}
                          for s, own, e, n in sorted(hits)]
            expected.append(found)
        arrow_items = pa.array(items, type=pa.list_(pa.struct([("id", pa.int64()), ("text", pa.string()), ("own", pa.int32())])))
        own = (pa.array(sets, pa.list_(pa.string())),)
        own += (find_needles.Needles(own[0]),)
        for slice_bytes in (1, 60, 1 << 20):
            out = find.find_texts_sliced(arrow_items, pa.array(needle_sets, pa.list_(pa.string())), slice_bytes, own)
            assert out.to_pylist() == expected
        # (as registered: the sets from 1 on, as DuckDB returns them)
        search = find.find_texts_own(pa.chunked_array([pa.array(sets[1:20]), pa.array(sets[20:], pa.list_(pa.string()))]))
        assert search(arrow_items, pa.array(needle_sets, pa.list_(pa.string()))).to_pylist() == expected
        assert sum(m["own"] for group in expected for m in group) > 100
        assert sum(not m["own"] for group in expected for m in group) > 100


def test_texts_beyond_ascii_and_long_mojibake_texts():
    # on texts beyond ASCII and on long mojibake texts where a lone letter beyond ASCII is a needle
    rng = random.Random(31)
    groups = [_groups(rng, "ab AB_-.1\nzöÖé\xa0’ıİſKΣσς\x01\x02", "abAB _-.1öÖ\xa0’ıſσς\x01", 600)]
    letters = "åäçèöÃ¤Ã©â€™ ab\n"
    items = [[{"id": 10 * g + i, "text": "".join(rng.choice(letters) for _ in range(rng.randint(50, 400)))}
              for i in range(3)] for g in range(60)]
    groups.append((items, [rng.sample(["å", "ä", "ç", "è", "Ã¤", "ab", "åä", "a b", "â€"], 4) for _ in items]))
    counts = [_group_search_equals_text_search(items, needle_sets) for items, needle_sets in groups]
    assert counts[0] > 50 and counts[1] > 500


def test_group_search_on_words():
    rng = random.Random(8)
    words = ["new", "york", "New York", "city", "the", "The", "jo", "ann", "Jo Ann", "lee", "café", "CAFÉ", "x@y.com",
             "o’brien", "O’Brien", "a-b", "2004", "june", "15"]
    seps = [" ", "  ", "\n", ", ", ". ", "-", "’", "\xa0", "@", ""]
    items, needle_sets = [], []
    for g in range(2000):
        texts = ["".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(0, 12))) for _ in range(3)]
        items.append([{"id": 10 * g + i, "text": t} for i, t in enumerate(texts)])
        picked = rng.sample(words, rng.randint(1, 6))
        needle_sets.append([" ".join(w.lower().split()) if rng.random() < 0.5 else w for w in picked]
                           + (["new york city", "jo ann lee", "june 2004", "15 june 2004"] if g % 3 == 0 else []))
    assert _group_search_equals_text_search(items, needle_sets) > 1000


def test_group_search_on_words_apart_by_any_white_space():
    # A needle's tokens stand apart by any run of white space in a text (\s+): a text that does
    # not hold the needle's own single spaces goes to the regular expression, beyond ASCII too;
    # needles that overlap one another (the leftmost, then the longest, wins).
    rng = random.Random(11)
    words = ["a", "b", "ab", "A", "new", "York", "x-y", "2004", "é", "ċ"]
    seps = [" ", "  ", "\t", "\n", "\r\n", "\x0b", "\x1c", "\x1f", "\xa0", "\u2003", "-", ", ", ""]
    items, needle_sets = [], []
    for g in range(1500):
        texts = ["".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(0, 15))) for _ in range(3)]
        items.append([{"id": 10 * g + i, "text": t} for i, t in enumerate(texts)])
        needle_sets.append([rng.choice([" ", "  ", "\t"]).join(rng.choice(words) for _ in range(rng.randint(1, 3)))
                            for _ in range(rng.randint(1, 6))])
    expected = [[{"id": x["id"], "start_pos": s, "end_pos": e, "needle": n} for x in group for s, e, n in _regex(x["text"], needles)]
                for group, needles in zip(items, needle_sets)]
    arrow_items = pa.array(items, type=pa.list_(pa.struct([("id", pa.int64()), ("text", pa.string())])))
    for slice_bytes in (50, 1 << 20):
        assert find.find_texts_sliced(arrow_items, pa.array(needle_sets), slice_bytes).to_pylist() == expected
    assert sum(map(len, expected)) > 3000
