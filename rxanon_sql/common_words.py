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
from pathlib import Path

import duckdb
import pyarrow as pa

from .sqlrun import table

# (RE2: \pL letters, \pN digits; the same word characters as find.py's whole-word test)
TOKEN = r"[\pL\pN_]+"
# Two or more capitalised words in a row, on one line ("Reception Team George", "Hotel Astor").
CAPITALISED_SEQUENCE = r"\p{Lu}[\pL\pN_]*(?:[ \t]+\p{Lu}[\pL\pN_]*)+"
DEFAULT_ZIPF = 3.5


def pipeline_language(pipeline: str) -> str:
    """The language code of a spaCy pipeline package or folder, from its meta.json, without
    loading spaCy; "en" when it cannot be told."""
    folder = Path(pipeline)
    if not (folder / "meta.json").is_file():
        spec = importlib.util.find_spec(pipeline) if pipeline.isidentifier() else None
        folder = Path(spec.origin).parent if spec and spec.origin else folder
    try:
        return json.loads((folder / "meta.json").read_text()).get("lang") or "en"
    except (OSError, ValueError):
        return "en"


@functools.lru_cache(maxsize=8)
def common_words(lang: str, zipf: float = DEFAULT_ZIPF) -> tuple[str, ...]:
    """The words of `lang` with a Zipf frequency >= zipf, lower case, without digits."""
    import wordfreq
    floor = 10 ** (zipf - 9)      # Zipf = log10(frequency per billion words)
    try:
        freqs = wordfreq.get_frequency_dict(lang)
    except LookupError:
        return ()
    return tuple(sorted(w for w, f in freqs.items() if f >= floor and not any(c.isdigit() for c in w)))


def register_common_words(con: duckdb.DuckDBPyConnection, schema: str, lang: str, zipf: float = DEFAULT_ZIPF) -> None:
    """The table `<schema>.common_words(word)`: common_words(lang, zipf)."""
    words = pa.table({"word": pa.array(common_words(lang, zipf), pa.string())})
    name = table("common_words", schema).sql("duckdb")
    con.register("rx_common_words_arrow", words)
    try:
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT word FROM rx_common_words_arrow")
    finally:
        con.unregister("rx_common_words_arrow")
