"""What the recognizers find in a text: for users tuning their configuration.

`rxanon-sql entities "some text"` prints it, and `rx_entities(text)` returns it in SQL after
`rxanon_sql.register(con)`: the same list of `struct(start_pos, end_pos, term, label, source)`
as the NER stage stores in `rx.ner_cache`, with offsets as character positions into the text
(0-based, end exclusive; `substring(text, start_pos + 1, end_pos - start_pos) = term`).
"""
from __future__ import annotations

import functools

import duckdb
import pyarrow as pa

from .config import Config
from .udf import replace_function

ENTITIES_FUNCTION = "rx_entities"


def recognizer_for(cfg: Config | None = None):
    """A TextRecognizer configured like `apply` would build it for cfg (default: the defaults)."""
    cfg = cfg or Config()
    return _recognizer(cfg.pipeline, tuple(cfg.phone_regions),
                       tuple((k, tuple(v)) for k, v in sorted(cfg.terms.items())),
                       tuple((k, tuple(v)) for k, v in sorted(cfg.patterns.items())),
                       cfg.vague_temporal_guard, tuple(cfg.allow), cfg.common_word_guard,
                       tuple(sorted(cfg.label_map.items())), cfg.parser)


@functools.lru_cache(maxsize=4)
def _recognizer(pipeline, regions, terms, patterns, guard, allow, common_word_guard, label_map=(), parser=False):
    from udfs.ner import TextRecognizer  # (here for start-up time: spaCy loads with it)
    return TextRecognizer(pipeline, regions, {k: list(v) for k, v in terms}, {k: list(v) for k, v in patterns}, guard,
                      allow=allow, common_word_guard=common_word_guard, label_map=dict(label_map), parser=parser)


def entities(text: str, cfg: Config | None = None):
    """The spans found in text, sorted by position."""
    return recognizer_for(cfg).entities([text])[0] or []


def format_entities(text: str, spans) -> str:
    """One line per span: start, end, label, source and the term (newlines shown as \\n)."""
    if not spans:
        return "no sensitive terms found"
    rows = [("start", "end", "label", "source", "term")]
    rows += [(str(s.start), str(s.end), s.label, s.source, s.term.replace("\n", "\\n")) for s in spans]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(
        "  ".join(c.rjust(w) if i < 2 else c.ljust(w) for i, (c, w) in enumerate(zip(r[:4], widths))) + "  " + r[4]
        for r in rows)


def register_entities(con: duckdb.DuckDBPyConnection, cfg: Config | None = None) -> None:
    """Register rx_entities(text) on con. The spaCy pipeline is loaded on the first call, not here,
    and shared by every connection of the process."""
    from udfs.ner import ENTITY_SQL_TYPE  # (here for start-up time: spaCy loads with it)

    def udf(texts: pa.Array) -> pa.Array:
        return recognizer_for(cfg).arrow(texts)

    replace_function(con, ENTITIES_FUNCTION, udf, ["VARCHAR"], ENTITY_SQL_TYPE)
