"""The corpus-wide search: ahocorasick-rs (udfs/corpus.py) against the per-needle-set search of
udfs/find.py, and pyahocorasick where it is installed (the `bench` extra), on the same texts and
needles.

    python benchmarks/search.py DB [--repeat 5] [--batch 2048]

DB is a database that a run has written (benchmarks/privacy.py leaves some): its rx.texts are
the texts, the distinct norms of its rx.terms the needles. Each searcher gets the texts in
batches of --batch, as DuckDB hands them to a UDF, and must return every text's whole-word,
case-insensitive matches. Prints the median time per searcher, the matches found, and the
ratio to the fastest.

    python benchmarks/search.py DB --groups [--repeat 3]

The search of each person's texts for the person's own needles (udfs/find.py, rx_find_texts: the
leak check, linking's mentions): first each person's automaton built and run by each of
ahocorasick-rs's implementations; then find_texts_arrow in calls of 2,048 persons with
find.RUN_CHARS (a person's texts of fewer characters are searched together, by one automaton of
their persons' needles) set to each value.
"""
from __future__ import annotations

import argparse
import statistics
import time

import duckdb


def _rust(needles):
    from udfs.corpus import CorpusSearcher
    searcher = CorpusSearcher(needles)
    return lambda texts: len(searcher.search(texts)[0])


def _find_py(needles):
    # (find.py's Searcher: one fixed needle set; each text alone, by the regular expression where
    # the text times the needles is short, else by an automaton of the needles' search forms)
    from udfs.find import Searcher
    searcher = Searcher(tuple(needles))
    return lambda texts: sum(len(searcher.find(t)) for t in texts)


def _automaton_rust(needles):
    import ahocorasick_rs
    from udfs.corpus import _key_form, key
    automaton = ahocorasick_rs.AhoCorasick(sorted({k for k in map(key, needles) if k}))

    def search(texts):
        form, _, _ = _key_form("\n".join(t or "" for t in texts))
        return len(automaton.find_matches_as_indexes(form, overlapping=True))
    return search


def _python(needles):
    import ahocorasick
    from udfs.corpus import _key_form, key
    automaton = ahocorasick.Automaton()
    for k in {k for k in map(key, needles) if k}:
        automaton.add_word(k, len(k))
    automaton.make_automaton()

    def search(texts):
        form, _, _ = _key_form("\n".join(t or "" for t in texts))
        return sum(1 for _ in automaton.iter(form))
    return search


def _groups(con, repeat: int) -> None:
    import ahocorasick_rs

    from udfs import find
    from udfs.find_read import SearchForm, needle_form
    rows = con.sql("""
        WITH n AS (SELECT person, list_sort(list(DISTINCT norm)) AS needles FROM rx.terms
                   WHERE norm IS NOT NULL GROUP BY person),
             t AS (SELECT person, list({'id': text_id, 'text': text} ORDER BY text_id) AS items FROM rx.texts
                   WHERE text IS NOT NULL GROUP BY person)
        SELECT t.items, n.needles FROM t JOIN n USING (person) ORDER BY person""").to_arrow_table()
    items, needles = rows.column("items").combine_chunks(), rows.column("needles").combine_chunks()
    print(f"{len(items):,} persons, {sum(len(x) for x in needles.to_pylist()):,} needles")
    persons = [(sorted({f.encode() for f in map(needle_form, ns) if f}),
                SearchForm("\n".join(x["text"] for x in xs)).data)
               for xs, ns in zip(items.to_pylist(), needles.to_pylist())]
    print("| automaton per person | build s | search s | matches |")
    print("|---|---:|---:|---:|")
    for name in ("DFA", "ContiguousNFA", "NoncontiguousNFA"):
        impl = getattr(ahocorasick_rs.Implementation, name)
        builds, searches, found = [], [], 0
        for _ in range(repeat):
            started = time.perf_counter()
            automata = [ahocorasick_rs.BytesAhoCorasick(p, implementation=impl) for p, _ in persons]
            builds.append(time.perf_counter() - started)
            started = time.perf_counter()
            found = sum(len(a.find_matches_as_indexes(d, overlapping=True)) for a, (_, d) in zip(automata, persons))
            searches.append(time.perf_counter() - started)
        print(f"| {name} | {statistics.median(builds):.2f} | {statistics.median(searches):.2f} | {found:,} |")
    calls = [(items.slice(i, 2048), needles.slice(i, 2048)) for i in range(0, len(items), 2048)]
    kept = find.RUN_CHARS
    print("| find.RUN_CHARS | rx_find_texts s (median) | matches |")
    print("|---:|---:|---:|")
    try:
        for chars in (0, 8_000, 32_000, 128_000, 1 << 40):
            find.RUN_CHARS = chars
            times = []
            for _ in range(repeat):
                started = time.perf_counter()
                found = sum(len(find.find_texts_arrow(a, b).flatten()) for a, b in calls)
                times.append(time.perf_counter() - started)
            print(f"| {chars:,}{' (the default)' if chars == kept else ''} | {statistics.median(times):.2f} | {found:,} |")
    finally:
        find.RUN_CHARS = kept


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--skip", action="append", help="leave out the searchers whose name holds this")
    ap.add_argument("--groups", action="store_true", help="the search of each person's texts for their own needles")
    args = ap.parse_args()
    con = duckdb.connect(args.db, read_only=True)
    if args.groups:
        _groups(con, args.repeat)
        return
    texts = [t for (t,) in con.execute("SELECT text FROM rx.texts ORDER BY text_id").fetchall()]
    needles = sorted({n for (n,) in con.execute("SELECT DISTINCT norm FROM rx.terms").fetchall() if n})
    batches = [texts[i:i + args.batch] for i in range(0, len(texts), args.batch)]
    print(f"{len(texts):,} texts, {sum(map(len, texts)) / 1e6:.1f} M characters, {len(needles):,} needles")
    # (corpus.py is the whole search: key form, automaton, offsets and capitals; the two
    # "automaton" rows are the key form and the automaton alone, the same work in both libraries)
    searchers = {"corpus.py (ahocorasick-rs)": _rust, "find.py Searcher": _find_py,
                 "automaton: ahocorasick-rs": _automaton_rust}
    try:
        import ahocorasick  # noqa: F401
        searchers["automaton: pyahocorasick"] = _python
    except ImportError:
        pass
    if args.skip:
        searchers = {n: f for n, f in searchers.items() if not any(s in n for s in args.skip)}
    import udfs.corpus  # noqa: F401  (imports are not the build's time)
    results = {}
    for name, make in searchers.items():
        started = time.perf_counter()
        search = make(needles)
        build = time.perf_counter() - started
        times, found = [], 0
        for _ in range(args.repeat):
            started = time.perf_counter()
            found = sum(search(b) for b in batches)
            times.append(time.perf_counter() - started)
        results[name] = (statistics.median(times), build, found)
    best = min(t for t, _, _ in results.values())
    print("| searcher | build s | search s (median) | matches | x fastest |")
    print("|---|---:|---:|---:|---:|")
    for name, (t, build, found) in results.items():
        print(f"| {name} | {build:.2f} | {t:.2f} | {found:,} | {t / best:.1f} |")


if __name__ == "__main__":
    main()
